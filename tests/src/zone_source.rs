//! Synthetic RklPatch zone sources written through the project's own writers:
//! a real Max 2010 scene (neloid/block.max, the Max release of the reference
//! zones) whose one node gets an RklPatch base object (class directory and DLL
//! entries appended, the Box replaced), the zone name, and optionally a NeL
//! Edit Patch modifier moving vertices. The patches come from a real zone's
//! `CZone::retrieve` turned back into the RklPatch layout the seed documents
//! (the inverse of `RPatchMesh::exportZone`'s rules).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use maxfs_exporters::nel::zone::Zone;
use maxfs_exporters::nel::zone_build::{
    build_with, retrieve, BuildOptions, PatchInfo, ZoneInfo, TILE_LAYER_EMPTY,
};
use maxfs_exporters::nel::{read_kind, NelFile, NelKind};
use maxfs_scene::chunk::{self, Body, Chunk};
use maxfs_scene::container::MaxFile;
use maxfs_scene::rklpatch::build::{build_quads, unbound, QuadInput};
use maxfs_scene::rklpatch::mod_data::local_data_chunks;
use maxfs_scene::rklpatch::rpo::{
    TileDesc, TileLayer, Tiles, UiPatch, VertexBind, BIND_25, BIND_75, BIND_SINGLE,
};
use maxfs_scene::rklpatch::{
    RklPatch, VertMapper, EPD_HASDATA, NEL_EDIT_PATCH_CLASS, NEL_PAINT_CLASS, RKLPATCH_CLASS,
};
use maxfs_scene::typed::ClassId;

use crate::{corpus_dir, files_with_ext};

/// BIND_50 (nel_patch_mesh.h typeBind): the middle vertex of a 1:4 bind.
const BIND_50: u32 = 2;
/// The scene the sources are built in, and its node and object.
pub const TEMPLATE: &str = "max/neloid/block.max";
pub const NODE: usize = 367;
const BASE: usize = 365;

/// The `UiPatch` a `PatchInfo` was exported from.
fn ui_patch(pi: &PatchInfo) -> UiPatch {
    let (s, t) = (usize::from(pi.order_s), usize::from(pi.order_t));
    let tiles = pi
        .tiles
        .iter()
        .take(s * t)
        .map(|el| {
            let num = el
                .tile
                .iter()
                .position(|&x| x == TILE_LAYER_EMPTY)
                .unwrap_or(3) as u16;
            let (is256, uv) = el.tile_256_info();
            let case = if is256 { u16::from(uv) + 1 } else { 0 };
            let noise = el.tile_sub_noise();
            let layer = |l: usize| TileLayer {
                invert: 0,
                tile: if l < usize::from(num) {
                    i32::from(el.tile[l])
                } else {
                    0
                },
                rotate: if l < usize::from(num) {
                    i32::from(el.tile_orient(l))
                } else {
                    0
                },
            };
            TileDesc {
                num,
                flags: Some(case | (u16::from(noise) << 3)),
                noise: Some(noise),
                layers: [layer(0), layer(1), layer(2)],
            }
        })
        .collect();
    let colors = pi
        .tile_colors
        .iter()
        .map(|c| {
            let v = u32::from(c.color565);
            let (r, g, b) = ((v >> 11) & 31, (v >> 5) & 63, v & 31);
            ((r << 3) << 16) | ((g << 2) << 8) | (b << 3)
        })
        .collect();
    UiPatch {
        nb_tiles_u: i32::from(pi.order_s).trailing_zeros() as i32,
        nb_tiles_v: i32::from(pi.order_t).trailing_zeros() as i32,
        tiles: Tiles::Desc(tiles),
        colors,
        edge_flags: Some(std::array::from_fn(|e| u32::from(!pi.smooth_flag(e)))),
    }
}

/// The vertex binds that make exportZone's pass 1 rebuild the zone's 1:2 and
/// 1:4 bind lists: the middle vertex of a 1:2 edge is BIND_SINGLE, the three
/// vertices of a 1:4 edge BIND_25 / BIND_50 / BIND_75.
fn binds(infos: &[PatchInfo]) -> HashMap<u32, VertexBind> {
    let mut out = HashMap::new();
    let corners = |p: usize| infos.get(p).map(|x| x.base_vertices).unwrap_or_default();
    for (p, pi) in infos.iter().enumerate() {
        for (e, b) in pi.bind_edges.iter().enumerate() {
            let n = usize::from(b.n_patchs);
            if n != 2 && n != 4 {
                continue;
            }
            // The vertex shared by the edges the neighbours list (edge k of a
            // patch joins its corners k and k+1), not a corner of this patch.
            let edge_verts = |slot: usize| {
                let c = corners(usize::from(b.next[slot]));
                let k = usize::from(b.edge[slot]) & 3;
                [c[k], c[(k + 1) % 4]]
            };
            let mid = |a: usize, c: usize| {
                let (x, y) = (edge_verts(a), edge_verts(c));
                x.iter()
                    .copied()
                    .find(|v| y.contains(v) && !pi.base_vertices.contains(v))
            };
            let kinds: &[(usize, usize, u32)] = if n == 2 {
                &[(0, 1, BIND_SINGLE)]
            } else {
                &[(0, 1, BIND_25), (1, 2, BIND_50), (2, 3, BIND_75)]
            };
            for &(a, c, kind) in kinds {
                if let Some(v) = mid(a, c) {
                    out.insert(
                        u32::from(v),
                        VertexBind {
                            binded: 1,
                            bind_type: kind,
                            edge: e as u32,
                            patch: p as u32,
                            bind_type2: kind,
                            ..unbound()
                        },
                    );
                }
            }
        }
    }
    out
}

/// The world → object map of the template node: the object TM is a pure
/// translation `t`; each coordinate x becomes an object-space value whose
/// single-precision sum with t gives x back exactly when one exists (the
/// closest otherwise).
pub fn to_object(p: [f32; 3], t: [f32; 3]) -> [f32; 3] {
    std::array::from_fn(|k| {
        let want = p[k];
        let guess = want - t[k];
        let mut best = guess;
        let mut cand = guess;
        for step in 0..64 {
            if (cand + t[k]) == want {
                return cand;
            }
            if ((cand + t[k]) - want).abs() < ((best + t[k]) - want).abs() {
                best = cand;
            }
            let k2 = (step / 2 + 1) as u32;
            cand = if step % 2 == 0 {
                f32::from_bits(guess.to_bits().wrapping_add(k2))
            } else {
                f32::from_bits(guess.to_bits().wrapping_sub(k2))
            };
        }
        best
    })
}

/// The RklPatch model whose export is `info`, in object space under translation `t`.
pub fn rklpatch_from_zone(info: &ZoneInfo, t: [f32; 3]) -> RklPatch {
    let quads: Vec<QuadInput> = info
        .patches
        .iter()
        .map(|pi| QuadInput {
            corners: pi.base_vertices.map(u32::from),
            vertices: pi.patch.vertices.map(|p| to_object(p, t)),
            tangents: pi.patch.tangents.map(|p| to_object(p, t)),
            interiors: pi.patch.interiors.map(|p| to_object(p, t)),
            ui: ui_patch(pi),
        })
        .collect();
    build_quads(&quads, &binds(&info.patches))
}

fn utf16(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(|c| c.to_le_bytes()).collect()
}

fn stream_chunks(file: &MaxFile, name: &str) -> Vec<Chunk> {
    let s = file.stream(name).unwrap_or_else(|| panic!("no {name}"));
    chunk::parse(&s.data).expect("parses")
}

fn put_stream(file: &mut MaxFile, name: &str, chunks: &[Chunk]) {
    let s = file
        .streams
        .iter_mut()
        .find(|s| s.name == name)
        .expect("stream");
    s.data = chunk::write(chunks).into();
}

fn children(c: &mut Chunk) -> &mut Vec<Chunk> {
    match &mut c.body {
        Body::Container(v) => v,
        Body::Leaf(_) => panic!("chunk {:#06x} is a leaf", c.id),
    }
}

/// Appends a DLL and a class to the directories; returns the class index.
fn add_class(file: &mut MaxFile, class: ClassId, super_class: u32, name: &str, dll: &str) -> u16 {
    let mut dlls = stream_chunks(file, "DllDirectory");
    let dll_index = dlls.iter().filter(|c| c.id == 0x2038).count() as i32;
    dlls.push(Chunk::container(
        0x2038,
        vec![
            Chunk::leaf(0x2039, utf16(&format!("{name} (synthetic)"))),
            Chunk::leaf(0x2037, utf16(dll)),
        ],
    ));
    put_stream(file, "DllDirectory", &dlls);
    let mut classes = stream_chunks(file, "ClassDirectory3");
    let index = classes.iter().filter(|c| c.id == 0x2040).count() as u16;
    let mut header = Vec::new();
    header.extend_from_slice(&dll_index.to_le_bytes());
    header.extend_from_slice(&class.0.to_le_bytes());
    header.extend_from_slice(&class.1.to_le_bytes());
    header.extend_from_slice(&super_class.to_le_bytes());
    classes.push(Chunk::container(
        0x2040,
        vec![
            Chunk::leaf(0x2060, header),
            Chunk::leaf(0x2042, utf16(name)),
        ],
    ));
    put_stream(file, "ClassDirectory3", &classes);
    index
}

fn ref_pairs(pairs: &[(u32, i32)]) -> Chunk {
    let mut b = 0u32.to_le_bytes().to_vec();
    for (s, i) in pairs {
        b.extend_from_slice(&s.to_le_bytes());
        b.extend_from_slice(&i.to_le_bytes());
    }
    Chunk::leaf(0x2035, b)
}

/// One NeL Edit Patch or NeL Paint application: its class and the children of
/// its EDITPATCHDATA_CHUNK (0x1000), which tests may edit (old records, damage).
#[derive(Debug, Clone)]
pub struct PatchModifier {
    pub class: ClassId,
    pub data: Vec<Chunk>,
}

impl PatchModifier {
    /// NeL Edit Patch as `EditPatchData::Save` leaves it after an edit
    /// (EPD_HASDATA set): `mapper` and `final_patch`.
    pub fn edit_patch(mapper: &VertMapper, final_patch: &RklPatch) -> PatchModifier {
        PatchModifier {
            class: NEL_EDIT_PATCH_CLASS,
            data: local_data_chunks(EPD_HASDATA, Some(mapper), final_patch),
        }
    }

    /// NeL Paint as `PaintPatchData::Save` leaves it after painting (EPD_HASDATA set).
    pub fn paint(final_patch: &RklPatch) -> PatchModifier {
        PatchModifier {
            class: NEL_PAINT_CLASS,
            data: local_data_chunks(EPD_HASDATA, None, final_patch),
        }
    }

    /// The same with the flags replaced (e.g. 0: never edited).
    pub fn with_flags(mut self, flags: u32) -> PatchModifier {
        for c in self.data.iter_mut().filter(|c| c.id == 0x1015) {
            c.body = Body::Leaf(flags.to_le_bytes().to_vec().into());
        }
        self
    }
}

/// The ModApp of a patch modifier holding `data` in its local data
/// (0x2512 → EDITPATCHDATA_CHUNK 0x1000).
fn patch_mod_app(data: &[Chunk]) -> Chunk {
    let mut tm = Vec::new();
    for v in [
        1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
    ] {
        tm.extend_from_slice(&v.to_le_bytes());
    }
    tm.extend_from_slice(&0u32.to_le_bytes());
    Chunk::container(
        0x2500,
        vec![
            Chunk::leaf(0x2510, tm),
            Chunk::leaf(0x2511, vec![0; 24]),
            Chunk::container(0x2512, vec![Chunk::container(0x1000, data.to_vec())]),
            Chunk::leaf(0x2513, 0u32.to_le_bytes().to_vec()),
        ],
    )
}

/// How `write_source` builds the file (block.max's node: world translation
/// (6.5197515, 4.7095585, 1), offset (0, 0, -1)).
pub struct SourceOptions<'a> {
    pub node_name: &'a str,
    /// The template's object-TM translation: when given, the node's offset
    /// position is lowered by it so the object TM has none (exact float round
    /// trip); otherwise block.max's own transform stays.
    pub cancel_translation: Option<[f32; 3]>,
    /// NeL Edit Patch / NeL Paint modifiers on the RklPatch, bottom first.
    pub modifiers: &'a [PatchModifier],
    /// Mark the node frozen (node chunk 0x0976).
    pub frozen: bool,
    /// Add a copy of the node under this name (an instance of the same
    /// RklPatch: two RklPatch nodes, a refusal case).
    pub second_node: Option<&'a str>,
}

impl<'a> SourceOptions<'a> {
    /// The node alone under `node_name`, as block.max places it: no
    /// translation cancelled, no modifiers, not frozen, no copy. The tests
    /// change the fields they are about from here.
    pub fn plain(node_name: &'a str) -> SourceOptions<'a> {
        SourceOptions {
            node_name,
            cancel_translation: None,
            modifiers: &[],
            frozen: false,
            second_node: None,
        }
    }
}

/// A `.max` holding one RklPatch node built from `model`.
pub fn write_source(model: &RklPatch, o: &SourceOptions) -> Vec<u8> {
    write_source_at(model, o, None)
}

/// block.max's Position XYZ sub-controllers (Bezier Float, no keys: the value in 0x2501).
const POSITION_FLOATS: [usize; 3] = [354, 355, 356];
/// block.max's Euler XYZ sub-controllers (radians, same layout).
const ROTATION_FLOATS: [usize; 3] = [358, 359, 360];

/// [`write_source`] with the node placed: `(node position, object offset position)`
/// replace block.max's (6.5197515, 4.7095585, 1) and (0, 0, -1), so the pivot (the node
/// position) can sit anywhere, e.g. at a ligo cell centre.
pub fn write_source_at(
    model: &RklPatch,
    o: &SourceOptions,
    placement: Option<([f32; 3], [f32; 3])>,
) -> Vec<u8> {
    let mut file = MaxFile::open(&corpus_dir().join(TEMPLATE)).expect("template opens");
    let rkl = add_class(&mut file, RKLPATCH_CLASS, 0x10, "RklPatch", "nelpatch.dlo");
    let nep = add_class(
        &mut file,
        NEL_EDIT_PATCH_CLASS,
        0x810,
        "NeL Edit",
        "neleditpatch.dlm",
    );
    let paint = add_class(
        &mut file,
        NEL_PAINT_CLASS,
        0x810,
        "NeL Paint",
        "nelpatchpaint.dlm",
    );
    let mut scene = stream_chunks(&file, "Scene");
    let objects = children(&mut scene[0]);
    objects[BASE] = Chunk::container(rkl, model.to_chunks());
    let node = children(&mut objects[NODE]);
    for c in node.iter_mut() {
        match c.id {
            0x0962 => c.body = Body::Leaf(utf16(o.node_name).into()),
            0x096a => {
                if let Some(w) = o.cancel_translation {
                    // offset position = stored offset − object-TM translation
                    let old: Vec<f32> = c
                        .payload()
                        .unwrap_or_default()
                        .chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect();
                    let p: Vec<u8> = (0..3).flat_map(|k| (old[k] - w[k]).to_le_bytes()).collect();
                    c.body = Body::Leaf(p.into());
                }
            }
            _ => {}
        }
    }
    if let Some((_, offset)) = placement {
        for c in node.iter_mut().filter(|c| c.id == 0x096a) {
            let p: Vec<u8> = offset.iter().flat_map(|v| v.to_le_bytes()).collect();
            c.body = Body::Leaf(p.into());
        }
    }
    if o.frozen {
        node.push(Chunk::leaf(0x0976, Vec::new()));
    }
    if let Some((pos, _)) = placement {
        for (k, &idx) in POSITION_FLOATS.iter().enumerate() {
            for c in children(&mut objects[idx]).iter_mut() {
                if c.id == 0x2501 {
                    c.body = Body::Leaf(pos[k].to_le_bytes().to_vec().into());
                }
            }
        }
    }
    if let Some(name) = o.second_node {
        let mut copy = objects[NODE].clone();
        for c in children(&mut copy).iter_mut().filter(|c| c.id == 0x0962) {
            c.body = Body::Leaf(utf16(name).into());
        }
        let scene_impl = objects.pop().expect("CSceneImpl");
        objects.push(copy);
        objects.push(scene_impl);
    }
    if !o.modifiers.is_empty() {
        // Insert the modifiers and the derived object before CSceneImpl (which
        // stays last); nothing refers to CSceneImpl, so no index moves. The
        // derived object lists its modifiers top first, the base object last.
        let scene_impl = objects.pop().expect("CSceneImpl");
        let first = objects.len() as i32;
        let top_first: Vec<&PatchModifier> = o.modifiers.iter().rev().collect();
        for m in &top_first {
            let class = if m.class == NEL_PAINT_CLASS {
                paint
            } else {
                nep
            };
            objects.push(Chunk::container(
                class,
                vec![Chunk::leaf(0x1001, 0u32.to_le_bytes().to_vec())],
            ));
        }
        let n = top_first.len() as i32;
        let mut pairs: Vec<(u32, i32)> = (0..n).map(|k| (k as u32, first + k)).collect();
        pairs.push((n as u32, BASE as i32));
        let mut derived = vec![ref_pairs(&pairs)];
        derived.extend(top_first.iter().map(|m| patch_mod_app(&m.data)));
        derived.push(Chunk::container(0x2501, Vec::new()));
        objects.push(Chunk::container(0x2032, derived));
        objects.push(scene_impl);
        let derived_index = first + n;
        let node = children(&mut objects[NODE]);
        let refs = node.iter_mut().find(|c| c.id == 0x2035).expect("node refs");
        let mut b = refs.payload().expect("leaf").to_vec();
        for k in (4..b.len()).step_by(8) {
            if u32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]) == 1 {
                b[k + 4..k + 8].copy_from_slice(&derived_index.to_le_bytes());
            }
        }
        refs.body = Body::Leaf(b.into());
    }
    put_stream(&mut file, "Scene", &scene);
    file.to_bytes().expect("writes")
}

/// Every real zone of the corpus (`nel/**/*.zone`, `*.zonel`), sorted.
pub fn corpus_zones() -> Vec<PathBuf> {
    let zones = files_with_ext(&corpus_dir().join("nel"), &["zone", "zonel"]);
    assert!(zones.len() >= 90, "corpus zones: {}", zones.len());
    zones
}

/// The template node's object-TM translation, as the evaluation computes it.
pub fn template_translation() -> [f32; 3] {
    let doc = maxfs_scene::Document::from_file(
        MaxFile::open(&corpus_dir().join(TEMPLATE)).expect("template opens"),
    );
    let eval = maxfs_scene::eval::SceneEval::from_document(doc).expect("template evaluates");
    let t = eval.object_tm(NODE, 0).0[3];
    [t.0 as f32, t.1 as f32, t.2 as f32]
}

/// The direct-export source of one real zone (what `export_zone.rs` checks, the zone
/// benchmark times and `zone-sources` writes).
pub struct CorpusZoneSource {
    pub path: PathBuf,
    /// The zone's file stem, the node name and the `.max` stem (`3_AC`).
    pub stem: String,
    pub zone: Zone,
    /// `CZone::retrieve` of `zone`: the patches the source holds.
    pub info: ZoneInfo,
    /// The `.max` bytes.
    pub bytes: Vec<u8>,
}

/// The source of the real zone at `path`: its patches as an RklPatch node named after
/// the file stem, the offset cancelling `t` (the template's object-TM translation, see
/// [`template_translation`]) so world points are the zone's floats exactly.
pub fn corpus_zone_source(path: &Path, t: [f32; 3]) -> CorpusZoneSource {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let zone = match read_kind(&bytes, NelKind::Zone) {
        Ok(NelFile::Zone(z)) => z,
        other => panic!("{}: not a zone: {:?}", path.display(), other.err()),
    };
    let info = retrieve(&zone).expect("retrieves");
    let bytes = write_source(
        &rklpatch_from_zone(&info, [0.0; 3]),
        &SourceOptions {
            cancel_translation: Some(t),
            ..SourceOptions::plain(&stem)
        },
    );
    CorpusZoneSource {
        path: path.to_path_buf(),
        stem,
        zone,
        info,
        bytes,
    }
}

/// [`corpus_zone_source`] of every corpus zone, in path order.
pub fn corpus_zone_sources() -> Vec<CorpusZoneSource> {
    let t = template_translation();
    corpus_zones()
        .iter()
        .map(|p| corpus_zone_source(p, t))
        .collect()
}

/// A Box node added to a source by [`with_box_nodes`].
pub struct BoxNode<'a> {
    pub name: &'a str,
    /// Node position and Euler XYZ rotation (radians): the node TM.
    pub position: [f32; 3],
    pub rotation: [f32; 3],
    /// NeL AppData (sub id, text), e.g. IGNAME.
    pub appdata: &'a [(u32, &'a str)],
    /// Index in the list of an earlier box node to parent this one under (else the root).
    pub parent: Option<usize>,
}

/// `bytes` (a source built from the template) with copies of the template's Box01 node
/// (its controllers, Box object and material, through `SceneEdit::transplant`) placed,
/// named and tagged as `nodes` say. Returns the file and the object index of each node.
pub fn with_box_nodes(bytes: &[u8], nodes: &[BoxNode]) -> (Vec<u8>, Vec<usize>) {
    use maxfs_exporters::nel::export::properties::{NEL_CLASS_ID, NEL_SUPER_CLASS};
    let mut template = crate::rewrite::SceneEdit::open(TEMPLATE);
    let mut e =
        crate::rewrite::SceneEdit::from_file(MaxFile::from_bytes(bytes).expect("source parses"));
    let mut made: Vec<usize> = Vec::new();
    for n in nodes {
        let map = e.transplant(&mut template, NODE);
        let copy_of = |old: usize| {
            map.iter()
                .find(|(o, _)| *o == old)
                .map(|&(_, c)| c)
                .expect("controller copied with the node")
        };
        let node = copy_of(NODE);
        e.set_leaf(node, 0x0962, utf16(n.name));
        for (k, &c) in POSITION_FLOATS.iter().enumerate() {
            e.set_leaf(copy_of(c), 0x2501, n.position[k].to_le_bytes().to_vec());
        }
        for (k, &c) in ROTATION_FLOATS.iter().enumerate() {
            e.set_leaf(copy_of(c), 0x2501, n.rotation[k].to_le_bytes().to_vec());
        }
        if let Some(p) = n.parent {
            let mut b = e
                .object_chunks(node)
                .into_iter()
                .find(|c| c.id == 0x0960)
                .and_then(|c| c.payload().map(<[u8]>::to_vec))
                .expect("node parent chunk");
            b[..4].copy_from_slice(&(made[p] as u32).to_le_bytes());
            e.set_leaf(node, 0x0960, b);
        }
        for (sub, text) in n.appdata {
            e.add_appdata(node, (NEL_CLASS_ID, NEL_SUPER_CLASS), *sub, text);
        }
        made.push(node);
    }
    let bytes = e.finish_file().to_bytes().expect("writes");
    (bytes, made)
}

/// What the zone exporter must write for `info`'s patches once some corners
/// moved: `CZone::build` (our port, byte-identical to NeL's on every corpus
/// zone) at the version the exporter writes (4). `moved` gets a corner's base
/// vertex index and position and returns its new position if it moves.
/// Lumels and tile light influences, which build does not take, are
/// cleared. Also returns how many patch corners moved.
pub fn build_moved(
    info: &ZoneInfo,
    moved: impl Fn(usize, [f32; 3]) -> Option<[f32; 3]>,
) -> (Zone, usize) {
    let mut expected = info.clone();
    let mut touched = 0;
    for pi in &mut expected.patches {
        for j in 0..4 {
            let corner = usize::from(pi.base_vertices[j]);
            if let Some(p) = moved(corner, pi.patch.vertices[j]) {
                pi.patch.vertices[j] = p;
                touched += 1;
            }
        }
        pi.lumels.clear();
        pi.tile_light_influences.clear();
    }
    let zone = build_with(
        &expected,
        &BuildOptions {
            zone_version: 4,
            ..BuildOptions::default()
        },
    )
    .expect("the moved patches build");
    (zone, touched)
}
