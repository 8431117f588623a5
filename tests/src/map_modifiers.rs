//! Map Extender and NeL VertexTreePaint modifiers put on corpus scenes
//! through our writers (the corpus holds neither), with local data laid out
//! as the sources give it: Map Extender's map stored flat in 0x2512 (seed
//! S003 l.845–847: 0x03e8 count, 0x03e9 Point3s, 0x03ea count, 0x03eb
//! corners, 0x03f3 channel); VertexTreePaint's version 0x0100 and colour
//! list 0x0120 (ryzomcore nel_vertex_tree_paint, `SaveLocalData`).

use maxfs_scene::chunk::{self, Chunk};
use maxfs_scene::eval::modifier::map_extender::MAP_EXTENDER;
use maxfs_scene::eval::modifier::vertex_tree_paint::VERTEX_TREE_PAINT;

use crate::rewrite::SceneEdit;

/// Object-space modifiers' superclass.
const OSM: u32 = 0x810;

pub fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A modifier to put on a node: Map Extender or VertexTreePaint, with its
/// local data chunk (0x2512, see [`container`] and [`leaf`]).
pub enum Modifier {
    MapExtender(Chunk),
    VertexTreePaint(Chunk),
}

/// Local data 0x2512 saved as a container of `chunks`.
pub fn container(chunks: Vec<Chunk>) -> Chunk {
    Chunk::container(0x2512, chunks)
}

/// Local data 0x2512 saved as a leaf whose payload is the chunk stream of
/// `chunks` (how some Map Extender caches are stored, S003 l.847).
pub fn leaf(chunks: &[Chunk]) -> Chunk {
    Chunk::leaf(0x2512, chunk::write(chunks))
}

/// Puts `mods` (top first) on node `node`'s stack, above what it has,
/// registering their DLLs and classes.
pub fn put_map_modifiers(e: &mut SceneEdit, node: usize, mods: &[Modifier]) {
    let mapext_dll = e.add_dll("Map extender plug-in (synthetic)", "mapext198m3.dlm");
    let mapext = e.add_class(mapext_dll, MAP_EXTENDER, OSM, "Map Extender");
    let vtp_dll = e.add_dll(
        "NeL vertex tree paint (synthetic)",
        "nel_vertex_tree_paint.dlm",
    );
    let vtp = e.add_class(vtp_dll, VERTEX_TREE_PAINT, OSM, "NeL VertexTreePaint");
    // Modifier::Save's own chunk (0x39bf holding an empty 0x0100), which is
    // all a Map Extender object holds (S003 l.846); VertexTreePaint adds its
    // version (0x0100, i32 1).
    let modifier_save = || Chunk::container(0x39bf, vec![Chunk::leaf(0x0100, Vec::new())]);
    // Bottom first, each on top of the last.
    for m in mods.iter().rev() {
        let (object, local) = match m {
            Modifier::MapExtender(local) => {
                (e.add_object(mapext, vec![modifier_save()]), local.clone())
            }
            Modifier::VertexTreePaint(local) => (
                e.add_object(vtp, vec![modifier_save(), Chunk::leaf(0x0100, words(&[1]))]),
                local.clone(),
            ),
        };
        e.add_modifier(node, 0, object, local);
    }
}

/// A stored map of `faces` faces for channel `channel`: texture vertex i at
/// (i/64, 1 − i/32, i/16) (exact in f32, so 1 − v is too), face f over
/// texture vertices 3f, 3f+1, 3f+2.
pub fn map_local(channel: i32, faces: u32) -> Vec<Chunk> {
    let nv = 3 * faces;
    let verts: Vec<u32> = (0..nv)
        .flat_map(|i| {
            let i = i as f32;
            [i / 64.0, 1.0 - i / 32.0, i / 16.0].map(f32::to_bits)
        })
        .collect();
    let corners: Vec<u32> = (0..nv).collect();
    vec![
        Chunk::leaf(0x03e8, words(&[nv])),
        Chunk::leaf(0x03e9, words(&verts)),
        Chunk::leaf(0x03ea, words(&[faces])),
        Chunk::leaf(0x03eb, words(&corners)),
        // Companions the replay ignores: edge flags, a selection.
        Chunk::leaf(0x03ec, vec![7; faces as usize]),
        Chunk::leaf(0x03ed, words(&[0])),
        Chunk::leaf(0x03f3, words(&[channel as u32])),
    ]
}

/// The map `map_local` stores, decoded by hand from the same numbers.
pub fn expected_map(faces: u32) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let v = (0..3 * faces)
        .map(|i| {
            let i = i as f32;
            [i / 64.0, 1.0 - i / 32.0, i / 16.0]
        })
        .collect();
    let f = (0..faces).map(|f| [3 * f, 3 * f + 1, 3 * f + 2]).collect();
    (v, f)
}

/// VertexTreePaint local data: version 1 and `colours` as COLORREFs.
pub fn paint_local(colours: &[[u8; 3]]) -> Vec<Chunk> {
    let mut list = (colours.len() as i32).to_le_bytes().to_vec();
    for c in colours {
        list.extend([c[0], c[1], c[2], 0]);
    }
    vec![Chunk::leaf(0x0100, words(&[1])), Chunk::leaf(0x0120, list)]
}
