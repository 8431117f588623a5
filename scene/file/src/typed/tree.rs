//! The typed chunk tree: the chunk tree again, but with every leaf whose meaning is
//! known decoded into a value. Building writes each value back from its decoded
//! form, so a rebuild that matches the original bytes proves the decoding exact.

use crate::chunk::{Body, Chunk};
use crate::error::ChunkPath;

use super::leaf::{ClassId, LeafReader, MaxString};
use super::schema::Ctx;
use crate::reader::ReadError;
use crate::rklpatch::{patch_mesh, RpoBlob};

/// How a known leaf is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafKind {
    U32,
    I32,
    I64,
    F32,
    /// A run of f32 (Point3, quaternion, scale + axis …) of a fixed count.
    F32s(usize),
    /// Whole payload is one string (UTF-16 in practice).
    Str,
    /// u32 length (counting the NUL), bytes, NUL: the ConfigScript string.
    MetaStr,
    /// ClassDirectory3 entry header: s32 dll index, ClassId, u32 superclass.
    ClassHeader,
    /// ClassData / ConfigScript header: ClassId, u32 superclass (ClassData order).
    ClassIdSuper,
    /// ConfigScript entry header: u32 superclass, ClassId.
    SuperClassId,
    /// AppData key: ClassId, superclass, sub id, value size.
    AppDataKey,
    /// 0x2034: one s32 object index per reference slot, -1 = empty.
    RefArray,
    /// 0x2035: a leading u32, then (slot, object index) pairs.
    RefPairs,
    /// Node 0x0960: parent storage index and flags.
    NodeParent,
    /// A run of s32 of a fixed count.
    I32s(usize),
    /// RklPatch 0x08FD: the RPO blob (`crate::rklpatch::rpo`).
    Rpo,
    /// RklPatch PatchMesh records (`crate::rklpatch::patch_mesh`).
    PatchVerts,
    PatchVecs,
    PatchEdges,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TValue {
    U32(u32),
    I32(i32),
    I64(i64),
    /// f32 kept as bits: NaN payloads and signed zeros survive.
    F32(u32),
    F32s(Vec<u32>),
    Str(MaxString),
    MetaStr(Vec<u8>),
    ClassHeader {
        dll: i32,
        class_id: ClassId,
        super_class: u32,
    },
    ClassIdSuper {
        class_id: ClassId,
        super_class: u32,
    },
    SuperClassId {
        super_class: u32,
        class_id: ClassId,
    },
    AppDataKey {
        class_id: ClassId,
        super_class: u32,
        sub_id: u32,
        size: u32,
    },
    RefArray(Vec<i32>),
    RefPairs {
        lead: u32,
        pairs: Vec<(u32, i32)>,
    },
    NodeParent {
        parent: u32,
        flags: u32,
    },
    I32s(Vec<i32>),
    Rpo(Box<crate::rklpatch::RpoBlob>),
    PatchVerts(Vec<crate::rklpatch::PatchVert>),
    PatchVecs(Vec<crate::rklpatch::PatchVec>),
    PatchEdges(Vec<crate::rklpatch::PatchEdge>),
}

impl TValue {
    pub fn decode(kind: LeafKind, payload: &[u8]) -> Result<TValue, ReadError> {
        let mut r = LeafReader::new(payload);
        let v = match kind {
            LeafKind::U32 => TValue::U32(r.u32("u32")?),
            LeafKind::I32 => TValue::I32(r.i32("s32")?),
            LeafKind::I64 => TValue::I64(r.u64("s64")? as i64),
            LeafKind::F32 => TValue::F32(r.u32("float")?),
            LeafKind::F32s(n) => {
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(r.u32("float")?);
                }
                TValue::F32s(v)
            }
            LeafKind::Str => TValue::Str(MaxString::decode(r.rest())),
            LeafKind::MetaStr => {
                let len = r.u32("string length")? as usize;
                if len == 0 {
                    return Err(r.invalid("string length", "0 leaves no room for its NUL"));
                }
                let bytes = r.take(len - 1, "string bytes")?.to_vec();
                if r.u8("string terminator")? != 0 {
                    return Err(r.invalid("string", "not NUL-terminated"));
                }
                TValue::MetaStr(bytes)
            }
            LeafKind::ClassHeader => TValue::ClassHeader {
                dll: r.i32("dll index")?,
                class_id: ClassId::read(&mut r)?,
                super_class: r.u32("superclass id")?,
            },
            LeafKind::ClassIdSuper => TValue::ClassIdSuper {
                class_id: ClassId::read(&mut r)?,
                super_class: r.u32("superclass id")?,
            },
            LeafKind::SuperClassId => TValue::SuperClassId {
                super_class: r.u32("superclass id")?,
                class_id: ClassId::read(&mut r)?,
            },
            LeafKind::AppDataKey => TValue::AppDataKey {
                class_id: ClassId::read(&mut r)?,
                super_class: r.u32("superclass id")?,
                sub_id: r.u32("sub id")?,
                size: r.u32("value size")?,
            },
            LeafKind::RefArray => {
                if !payload.len().is_multiple_of(4) {
                    return Err(r.invalid(
                        "reference array",
                        format!("{} bytes are not a whole number of s32", payload.len()),
                    ));
                }
                let mut v = Vec::with_capacity(payload.len() / 4);
                while r.remaining() > 0 {
                    v.push(r.i32("reference")?);
                }
                TValue::RefArray(v)
            }
            LeafKind::RefPairs => {
                let lead = r.u32("reference header")?;
                if !r.remaining().is_multiple_of(8) {
                    return Err(r.invalid(
                        "reference pairs",
                        format!(
                            "{} bytes after the header are not whole (slot, index) pairs",
                            r.remaining()
                        ),
                    ));
                }
                let mut pairs = Vec::with_capacity(r.remaining() / 8);
                while r.remaining() > 0 {
                    pairs.push((r.u32("reference slot")?, r.i32("reference index")?));
                }
                TValue::RefPairs { lead, pairs }
            }
            LeafKind::NodeParent => TValue::NodeParent {
                parent: r.u32("parent index")?,
                flags: r.u32("node flags")?,
            },
            LeafKind::I32s(n) => {
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(r.i32("s32")?);
                }
                TValue::I32s(v)
            }
            LeafKind::Rpo => return Ok(TValue::Rpo(Box::new(RpoBlob::decode(payload)?))),
            LeafKind::PatchVerts => {
                return Ok(TValue::PatchVerts(patch_mesh::decode_verts(payload)?))
            }
            LeafKind::PatchVecs => return Ok(TValue::PatchVecs(patch_mesh::decode_vecs(payload)?)),
            LeafKind::PatchEdges => {
                return Ok(TValue::PatchEdges(patch_mesh::decode_edges(payload)?))
            }
        };
        r.finish("typed leaf")?;
        Ok(v)
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        let u32s = |out: &mut Vec<u8>, v: &[u32]| {
            v.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()))
        };
        match self {
            TValue::U32(v) | TValue::F32(v) => out.extend_from_slice(&v.to_le_bytes()),
            TValue::I32(v) => out.extend_from_slice(&v.to_le_bytes()),
            TValue::I64(v) => out.extend_from_slice(&v.to_le_bytes()),
            TValue::F32s(v) => u32s(out, v),
            TValue::Str(s) => s.encode(out),
            TValue::MetaStr(b) => {
                out.extend_from_slice(&(b.len() as u32 + 1).to_le_bytes());
                out.extend_from_slice(b);
                out.push(0);
            }
            TValue::ClassHeader {
                dll,
                class_id,
                super_class,
            } => {
                out.extend_from_slice(&dll.to_le_bytes());
                class_id.write(out);
                out.extend_from_slice(&super_class.to_le_bytes());
            }
            TValue::ClassIdSuper {
                class_id,
                super_class,
            } => {
                class_id.write(out);
                out.extend_from_slice(&super_class.to_le_bytes());
            }
            TValue::SuperClassId {
                super_class,
                class_id,
            } => {
                out.extend_from_slice(&super_class.to_le_bytes());
                class_id.write(out);
            }
            TValue::AppDataKey {
                class_id,
                super_class,
                sub_id,
                size,
            } => {
                class_id.write(out);
                u32s(out, &[*super_class, *sub_id, *size]);
            }
            TValue::RefArray(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            TValue::RefPairs { lead, pairs } => {
                out.extend_from_slice(&lead.to_le_bytes());
                for (s, i) in pairs {
                    out.extend_from_slice(&s.to_le_bytes());
                    out.extend_from_slice(&i.to_le_bytes());
                }
            }
            TValue::NodeParent { parent, flags } => u32s(out, &[*parent, *flags]),
            TValue::I32s(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            TValue::Rpo(b) => b.encode(out),
            TValue::PatchVerts(v) => patch_mesh::encode_verts(v, out),
            TValue::PatchVecs(v) => patch_mesh::encode_vecs(v, out),
            TValue::PatchEdges(v) => patch_mesh::encode_edges(v, out),
        }
    }

    pub fn as_u32(&self) -> Option<u32> {
        match self {
            TValue::U32(v) => Some(*v),
            TValue::I32(v) => Some(*v as u32),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&MaxString> {
        match self {
            TValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_f32s(&self) -> Option<Vec<f32>> {
        match self {
            TValue::F32(v) => Some(vec![f32::from_bits(*v)]),
            TValue::F32s(v) => Some(v.iter().map(|b| f32::from_bits(*b)).collect()),
            _ => None,
        }
    }
}

/// A chunk of the typed tree.
#[derive(Debug, Clone, PartialEq)]
pub enum TNode {
    Container {
        id: u16,
        wide: bool,
        children: Vec<TNode>,
    },
    Value {
        id: u16,
        wide: bool,
        value: TValue,
    },
    /// Not typed here (unknown, or a typed decode failed and was recorded): kept verbatim.
    Raw(Chunk),
}

/// A chunk whose typed decoding failed; the file still rebuilds from the raw bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Degraded {
    pub path: ChunkPath,
    pub what: String,
}

impl TNode {
    pub fn id(&self) -> u16 {
        match self {
            TNode::Container { id, .. } | TNode::Value { id, .. } => *id,
            TNode::Raw(c) => c.id,
        }
    }

    pub fn children(&self) -> &[TNode] {
        match self {
            TNode::Container { children, .. } => children,
            _ => &[],
        }
    }

    pub fn value(&self) -> Option<&TValue> {
        match self {
            TNode::Value { value, .. } => Some(value),
            _ => None,
        }
    }

    /// The first direct child with this id.
    pub fn child(&self, id: u16) -> Option<&TNode> {
        self.children().iter().find(|c| c.id() == id)
    }

    pub fn child_value(&self, id: u16) -> Option<&TValue> {
        self.child(id).and_then(TNode::value)
    }

    pub fn raw_payload(&self) -> Option<&[u8]> {
        match self {
            TNode::Raw(c) => c.payload(),
            _ => None,
        }
    }

    /// Writes the chunk straight from the typed values (what T2 compares).
    pub fn write_into(&self, out: &mut Vec<u8>) {
        match self {
            TNode::Container { id, wide, children } => {
                let open = crate::chunk::begin_chunk(out, *id, *wide);
                for c in children {
                    c.write_into(out);
                }
                crate::chunk::end_chunk(out, open, true);
            }
            TNode::Value { id, wide, value } => {
                let open = crate::chunk::begin_chunk(out, *id, *wide);
                value.encode(out);
                crate::chunk::end_chunk(out, open, false);
            }
            TNode::Raw(c) => crate::chunk::write_chunk(c, out),
        }
    }

    pub fn build(&self) -> Chunk {
        match self {
            TNode::Container { id, wide, children } => Chunk {
                id: *id,
                wide: *wide,
                body: Body::Container(children.iter().map(TNode::build).collect()),
            },
            TNode::Value { id, wide, value } => {
                let mut data = Vec::new();
                value.encode(&mut data);
                Chunk {
                    id: *id,
                    wide: *wide,
                    body: Body::Leaf(data.into()),
                }
            }
            TNode::Raw(c) => c.clone(),
        }
    }
}

/// Types a list of sibling chunks under `ctx`.
pub fn type_chunks(
    chunks: &[Chunk],
    ctx: &Ctx,
    path: &ChunkPath,
    degraded: &mut Vec<Degraded>,
) -> Vec<TNode> {
    let mut stack = path.0.clone();
    type_level(chunks, ctx, &mut stack, degraded)
}

/// `path` is a stack of (index, id) pushed and popped as the walk descends, so
/// only a degraded chunk pays for a path of its own.
fn type_level(
    chunks: &[Chunk],
    ctx: &Ctx,
    path: &mut Vec<(usize, u16)>,
    degraded: &mut Vec<Degraded>,
) -> Vec<TNode> {
    let mut out = Vec::with_capacity(chunks.len());
    for (i, c) in chunks.iter().enumerate() {
        path.push((i, c.id));
        out.push(type_chunk(c, ctx, path, degraded));
        path.pop();
    }
    out
}

fn type_chunk(
    c: &Chunk,
    ctx: &Ctx,
    path: &mut Vec<(usize, u16)>,
    degraded: &mut Vec<Degraded>,
) -> TNode {
    match &c.body {
        Body::Container(children) => match ctx.container(c.id) {
            Some(inner) => TNode::Container {
                id: c.id,
                wide: c.wide,
                children: type_level(children, &inner, path, degraded),
            },
            None => TNode::Raw(c.clone()),
        },
        Body::Leaf(data) => match ctx.leaf(c.id) {
            Some(kind) => match TValue::decode(kind, data) {
                Ok(value) => TNode::Value {
                    id: c.id,
                    wide: c.wide,
                    value,
                },
                Err(what) => {
                    degraded.push(Degraded {
                        path: ChunkPath(path.clone()),
                        what: format!("{kind:?}: {what}"),
                    });
                    TNode::Raw(c.clone())
                }
            },
            None => TNode::Raw(c.clone()),
        },
    }
}

pub fn build_all(nodes: &[TNode]) -> Vec<Chunk> {
    nodes.iter().map(TNode::build).collect()
}
