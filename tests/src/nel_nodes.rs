//! Test scenes with NeL collision, PACS and vegetable nodes, made in copies of
//! real corpus files through our own writers (see rewrite.rs): shared by the
//! export tests and the mutation sweep.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::typed::ClassId;

use crate::rewrite::{param_block2, SceneEdit};

pub const NEL_PACS_BOX: ClassId = ClassId(0x7f37_4277, 0x5d39_71df);
pub const NEL_PACS_CYLINDER: ClassId = ClassId(0x62a5_6810, 0x4b3d_601c);
const PARAM_BLOCK2: ClassId = ClassId(0x82, 0);
/// ClassDirectory dll index of scripted (MAXScript) classes.
const DLL_MAXSCRIPT: i32 = -2;
const GEOMETRY: u32 = 0x10;

/// A ParamBlock2 object like the scripted plug-in's (header 0x0009, one
/// inline-constant record 0x000e per parameter, ids in declaration order),
/// built from an existing block of the file so the trailing chunks stay real.
pub fn pacs_block(template: Vec<Chunk>, owner: u32, values: &[(u16, u16, [u8; 4])]) -> Vec<Chunk> {
    let values: Vec<(u16, u16, &[u8])> = values.iter().map(|(p, t, v)| (*p, *t, &v[..])).collect();
    param_block2(template, owner, &values)
}

const INT: u16 = 1;
const BOOL: u16 = 4;
const FLOAT: u16 = 0;

/// The twelve parameters: Reaction 4 ("Stop"), enter and overlap triggers,
/// masks, not an obstacle, absorption 0.25, user data 1..4.
pub fn pacs_values() -> Vec<(u16, u16, [u8; 4])> {
    let i = |v: i32| v.to_le_bytes();
    vec![
        (0, INT, i(4)),
        (1, BOOL, i(1)),
        (2, BOOL, i(0)),
        (3, BOOL, i(1)),
        (4, INT, i(0x12)),
        (5, INT, i(3)),
        (6, BOOL, i(0)),
        (7, FLOAT, 0.25f32.to_le_bytes()),
        (8, INT, i(1)),
        (9, INT, i(2)),
        (10, INT, i(3)),
        (11, INT, i(4)),
    ]
}

/// Turns `node`'s object into the scripted PACS plug-in object: class
/// `class`, reference 0 the delegate primitive `delegate`, reference 1 a new
/// ParamBlock2 with `values`.
pub fn make_pacs(
    e: &mut SceneEdit,
    node: &str,
    class: ClassId,
    name: &str,
    delegate: usize,
    values: &[(u16, u16, [u8; 4])],
) {
    let n = e.node(node);
    let pb2_class = e
        .class_index(PARAM_BLOCK2)
        .expect("the file has ParamBlock2 objects");
    let template = e.pb2_template();
    let plugin_class = e.add_class(DLL_MAXSCRIPT, class, GEOMETRY, name);
    let count = e.graph.objects.len();
    let (plugin, block) = (count, count + 1);
    let refs: Vec<u8> = [delegate as i32, block as i32]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    assert_eq!(
        e.add_object(plugin_class, vec![Chunk::leaf(0x2034, refs)]),
        plugin
    );
    assert_eq!(
        e.add_object(pb2_class, pacs_block(template, plugin as u32, values)),
        block
    );
    e.set_reference(n, 1, plugin as i32);
}
