//! The scene graph read off the typed Scene stream: objects with their classes,
//! references and AppData, and the node hierarchy.

use serde::Serialize;

use crate::directories::{ser_class_id, ClassEntry, DllEntry};
use crate::error::{ChunkPath, TypedError};
use crate::typed::schema::{DERIVED_OSM, DERIVED_WSM, SUPERCLASS_NODE};
use crate::typed::{ClassId, TNode, TValue, TypedStream};

/// Chunk holding an object's AppData, and inside it one entry per item.
pub const APPDATA: u16 = 0x2150;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObjectClass {
    #[serde(serialize_with = "ser_class_id")]
    pub class_id: ClassId,
    pub super_class: u32,
    pub name: String,
    /// Plug-in DLL file name; "builtin" / "maxscript" for the pseudo entries.
    pub dll: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Reference {
    pub slot: u32,
    /// Storage index of the referenced object; -1 = empty slot.
    pub target: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppDataEntry {
    #[serde(serialize_with = "ser_class_id")]
    pub class_id: ClassId,
    pub super_class: u32,
    pub sub_id: u32,
    /// The size field of the key, as stored.
    pub size: u32,
    pub value: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeInfo {
    pub version: Option<u32>,
    /// Storage index of the parent node.
    pub parent: Option<u32>,
    pub flags: Option<u32>,
    pub name: String,
    pub offset_position: Option<[f32; 3]>,
    pub offset_rotation: Option<[f32; 4]>,
    /// Scale (x, y, z) then the scale axis quaternion.
    pub offset_scale: Option<[f32; 7]>,
    /// The object (wireframe) colour, 8-bit RGB: chunk 0x0974, a u32 whose
    /// bytes are red, green, blue and 0 (3ds Max's FBX export writes it as
    /// the geometry's `Color`).
    pub wire_colour: Option<[u8; 3]>,
    /// The node takes its colour from its layer (bit 1 of byte 7 of chunk
    /// 0x0A28; the FBX export then writes the layer's colour).
    pub colour_by_layer: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SceneObject {
    /// Position in the scene class container: what references point at.
    pub index: usize,
    /// The chunk id: class directory index, or 0x2032/0x2033 for derived objects.
    pub chunk_id: u16,
    pub class: Option<ObjectClass>,
    pub references: Vec<Reference>,
    pub appdata: Vec<AppDataEntry>,
    pub node: Option<NodeInfo>,
    /// Note-track keys (time in ticks, flags, text), when the object has them.
    pub note_keys: Vec<NoteKey>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteKey {
    pub time: i32,
    pub flags: u32,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SceneGraph {
    pub version: u16,
    pub objects: Vec<SceneObject>,
}

fn err(path: ChunkPath, what: impl Into<String>) -> TypedError {
    TypedError {
        stream: "Scene".into(),
        path,
        what: what.into(),
    }
}

fn derived_class(chunk_id: u16) -> ObjectClass {
    let (class_id, name) = if chunk_id == DERIVED_OSM {
        (ClassId(0x29263a68, 0x405f22f5), "OSM Derived")
    } else {
        (ClassId(0x4ec13906, 0x5578130e), "WSM Derived")
    };
    ObjectClass {
        class_id,
        super_class: 0,
        name: name.into(),
        dll: "builtin".into(),
    }
}

fn resolve_class(chunk_id: u16, classes: &[ClassEntry], dlls: &[DllEntry]) -> Option<ObjectClass> {
    if chunk_id == DERIVED_OSM || chunk_id == DERIVED_WSM {
        return Some(derived_class(chunk_id));
    }
    let c = classes.get(usize::from(chunk_id))?;
    let dll = match c.dll_index {
        -1 => "builtin".to_string(),
        -2 => "maxscript".to_string(),
        i => usize::try_from(i)
            .ok()
            .and_then(|i| dlls.get(i))
            .map(|d| d.filename.clone())
            .unwrap_or_else(|| format!("dll#{i}")),
    };
    Some(ObjectClass {
        class_id: c.class_id,
        super_class: c.super_class,
        name: c.name.clone(),
        dll,
    })
}

/// The node chunk holding its object colour.
const WIRE_COLOUR: u16 = 0x0974;
/// The node chunk of "by layer" flags (8 bytes) and where "colour by layer"
/// sits in it: measured against 3ds Max's FBX exports, 857 nodes of 60
/// files (docs/max-format.md, "Object colour").
const LAYER_FLAGS: u16 = 0x0A28;
const LAYER_COLOUR_BYTE: usize = 7;
const LAYER_COLOUR_BIT: u8 = 0x02;

fn floats<const N: usize>(v: Option<&TValue>) -> Option<[f32; N]> {
    let f = v?.as_f32s()?;
    f.try_into().ok()
}

fn appdata(container: &TNode, path: &ChunkPath) -> Result<Vec<AppDataEntry>, TypedError> {
    let mut out = Vec::new();
    for (i, e) in container.children().iter().enumerate() {
        if e.id() != 0x0110 {
            continue;
        }
        let here = path.child(i, e.id());
        let key = e.child_value(0x0120);
        let value = e.child(0x0130).and_then(TNode::raw_payload);
        match (key, value) {
            (
                Some(TValue::AppDataKey {
                    class_id,
                    super_class,
                    sub_id,
                    size,
                }),
                Some(v),
            ) => out.push(AppDataEntry {
                class_id: *class_id,
                super_class: *super_class,
                sub_id: *sub_id,
                size: *size,
                value: v.to_vec(),
            }),
            _ => {
                return Err(err(
                    here,
                    "AppData entry lacks its 0x0120 key or 0x0130 value",
                ))
            }
        }
    }
    Ok(out)
}

fn note_keys(container: &TNode) -> Vec<NoteKey> {
    let mut keys = Vec::new();
    let mut cur: Option<NoteKey> = None;
    for c in container.children() {
        match (c.id(), c.value()) {
            (0x0100, Some(TValue::I32(t))) => {
                keys.extend(cur.take());
                cur = Some(NoteKey {
                    time: *t,
                    flags: 0,
                    text: String::new(),
                });
            }
            (0x0110, Some(TValue::U32(f))) => {
                if let Some(k) = cur.as_mut() {
                    k.flags = *f;
                }
            }
            (0x0120, Some(TValue::Str(s))) => {
                if let Some(k) = cur.as_mut() {
                    k.text = s.text();
                }
            }
            _ => {}
        }
    }
    keys.extend(cur);
    keys
}

/// Reads the scene graph; `scene` must be the typed Scene stream.
pub fn scene_graph(
    scene: &TypedStream,
    classes: &[ClassEntry],
    dlls: &[DllEntry],
) -> Result<SceneGraph, TypedError> {
    let root = match scene.nodes.as_slice() {
        [r @ TNode::Container { .. }] => r,
        _ => {
            return Err(err(
                ChunkPath::default(),
                format!(
                    "expected exactly one version container at the root, found {} chunks",
                    scene.nodes.len()
                ),
            ))
        }
    };
    let version = root.id();
    let root_path = ChunkPath::default().child(0, version);
    let mut objects = Vec::with_capacity(root.children().len());
    for (index, o) in root.children().iter().enumerate() {
        let path = root_path.child(index, o.id());
        let class = resolve_class(o.id(), classes, dlls);
        let mut obj = SceneObject {
            index,
            chunk_id: o.id(),
            class,
            references: Vec::new(),
            appdata: Vec::new(),
            node: None,
            note_keys: Vec::new(),
        };
        let is_node = obj
            .class
            .as_ref()
            .is_some_and(|c| c.super_class == SUPERCLASS_NODE);
        let mut node = NodeInfo {
            version: None,
            parent: None,
            flags: None,
            name: String::new(),
            offset_position: None,
            offset_rotation: None,
            offset_scale: None,
            wire_colour: None,
            colour_by_layer: false,
        };
        for (ci, c) in o.children().iter().enumerate() {
            match (c.id(), c.value()) {
                (0x2034, Some(TValue::RefArray(v))) => {
                    obj.references = v
                        .iter()
                        .enumerate()
                        .map(|(slot, &target)| Reference {
                            slot: slot as u32,
                            target,
                        })
                        .collect();
                }
                (0x2035, Some(TValue::RefPairs { pairs, .. })) => {
                    obj.references = pairs
                        .iter()
                        .map(|&(slot, target)| Reference { slot, target })
                        .collect();
                }
                (APPDATA, None) => {
                    obj.appdata.extend(appdata(c, &path.child(ci, APPDATA))?);
                }
                (0x2140, None) => obj.note_keys.extend(note_keys(c)),
                (0x09ce, Some(v)) if is_node => node.version = v.as_u32(),
                (0x0960, Some(TValue::NodeParent { parent, flags })) => {
                    node.parent = Some(*parent);
                    node.flags = Some(*flags);
                }
                (0x0962, Some(TValue::Str(s))) if is_node => node.name = s.text(),
                (0x096a, v @ Some(_)) if is_node => node.offset_position = floats(v),
                (0x096b, v @ Some(_)) if is_node => node.offset_rotation = floats(v),
                (0x096c, v @ Some(_)) if is_node => node.offset_scale = floats(v),
                (WIRE_COLOUR, None) if is_node => {
                    node.wire_colour = c
                        .raw_payload()
                        .filter(|p| p.len() == 4)
                        .map(|p| [p[0], p[1], p[2]]);
                }
                (LAYER_FLAGS, None) if is_node => {
                    node.colour_by_layer = c
                        .raw_payload()
                        .and_then(|p| p.get(LAYER_COLOUR_BYTE))
                        .is_some_and(|b| b & LAYER_COLOUR_BIT != 0);
                }
                _ => {}
            }
        }
        if is_node {
            obj.node = Some(node);
        }
        objects.push(obj);
    }
    Ok(SceneGraph { version, objects })
}

impl SceneGraph {
    /// The name of node `idx`; empty for an index that is not a node (the
    /// exporters name such a node nothing rather than fail).
    pub fn node_name(&self, idx: usize) -> &str {
        self.objects
            .get(idx)
            .and_then(|o| o.node.as_ref())
            .map_or("", |n| n.name.as_str())
    }

    /// The class of object `idx`; `None` when it is not in the class
    /// directory (or `idx` is out of range).
    pub fn class(&self, idx: usize) -> Option<&ObjectClass> {
        self.objects.get(idx)?.class.as_ref()
    }

    /// The class name of object `idx`; empty when the class is not in the
    /// class directory (or `idx` is out of range).
    pub fn class_name(&self, idx: usize) -> &str {
        self.class(idx).map_or("", |c| c.name.as_str())
    }

    /// The class id of object `idx`; `None` when the class is not in the class
    /// directory (or `idx` is out of range).
    pub fn class_id(&self, idx: usize) -> Option<ClassId> {
        self.class(idx).map(|c| c.class_id)
    }

    pub fn nodes(&self) -> impl Iterator<Item = (&SceneObject, &NodeInfo)> {
        self.objects
            .iter()
            .filter_map(|o| o.node.as_ref().map(|n| (o, n)))
    }
}
