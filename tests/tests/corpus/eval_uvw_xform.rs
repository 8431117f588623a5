//! UVW Xform (issue 19 item 6: UV-only modifiers never cost the geometry).
//! The corpus holds none, so each test writes one through the project's own
//! writer, as Max stores it (an old ParamBlock of 14 parameters, the layout of
//! the SDK sample `uvwxform.cpp`), and checks the result against that
//! sample's documented transform, written out here on its own: rotation
//! about W as Max's `RotateZMatrix` turns row vectors (x·Rz(90°) = y), about
//! (½, ½) when asked, then flip (u → 1 − u), tile, offset. The public file
//! that has them (vilTools3's displays.max: tiles of ¼ and offsets in steps
//! of ¼ over a digit atlas) is measured in docs/unseen-files.md.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

const UVW_XFORM2: ClassId = ClassId(0x5f32de13, 0);
const PARAM_BLOCK: ClassId = ClassId(8, 0);
const OSM: u32 = 0x810;

enum P {
    F(f32),
    I(i32),
}

/// An old ParamBlock's chunks: one 0x0002 per parameter (index, value).
fn old_block(values: &[P]) -> Vec<Chunk> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let value = match v {
                P::F(x) => Chunk::leaf(0x0100, x.to_le_bytes().to_vec()),
                P::I(x) => Chunk::leaf(0x0101, x.to_le_bytes().to_vec()),
            };
            Chunk::container(
                0x0002,
                vec![
                    Chunk::leaf(0x0003, (i as i32).to_le_bytes().to_vec()),
                    value,
                ],
            )
        })
        .collect()
}

/// `file` with a UVW Xform of parameters `values` on top of `node`'s stack.
fn with_xform(file: &str, node: &str, values: &[P]) -> SceneEval {
    let mut e = SceneEdit::open(file);
    let n = e.node(node);
    let dll = e.add_dll("(synthetic)", "mods.dlm");
    let class = e.add_class(dll, UVW_XFORM2, OSM, "UVW Xform");
    let pb_class = e
        .class_index(PARAM_BLOCK)
        .expect("the file has old ParamBlocks");
    let block = e.add_object(pb_class, old_block(values));
    let xform = e.add_object(
        class,
        vec![Chunk::container(
            0x39bf,
            vec![Chunk::leaf(0x0100, Vec::new())],
        )],
    );
    assert_eq!(e.append_reference(xform, block as i32), 0);
    e.add_modifier(n, 0, xform, Chunk::container(0x2512, Vec::new()));
    SceneEval::from_document(e.finish()).expect("edited scene")
}

/// The documented transform of one map vertex.
fn expected(uv: [f32; 3], tile: [f64; 2], offset: [f64; 2], flip_u: bool, turn: f64) -> [f64; 2] {
    let (u, v) = (f64::from(uv[0]) - 0.5, f64::from(uv[1]) - 0.5);
    let (s, c) = turn.sin_cos();
    let (mut u, v) = (u * c - v * s + 0.5, u * s + v * c + 0.5);
    if flip_u {
        u = 1.0 - u;
    }
    [u * tile[0] + offset[0], v * tile[1] + offset[1]]
}

fn channel1(m: &Mesh) -> &[[f32; 3]] {
    &m.maps
        .iter()
        .find(|c| c.channel == 1)
        .expect("channel 1")
        .vertices
}

fn params(entire: i32) -> Vec<P> {
    use P::{F, I};
    vec![
        F(2.0),
        F(0.5),
        F(1.0),
        F(0.1),
        F(0.25),
        F(0.0),
        I(1),
        I(0),
        I(0),
        I(0),
        I(1),
        F(std::f32::consts::FRAC_PI_2),
        I(1),
        I(entire),
    ]
}

/// house_thing's Plane001 (a Plane under a UVW Map): a procedural base
/// carries no face selection, so "entire object" off transforms every map
/// vertex; the geometry is untouched.
#[test]
fn uvw_xform_transforms_every_map_vertex_of_a_primitive() {
    const FILE: &str = "max/kenji-room/house_thing.max";
    let plain = maxfs_tests::corpus_eval(FILE);
    let before = plain
        .mesh(maxfs_tests::node_named(&plain.graph, "Plane001"), 0)
        .expect("a mesh")
        .expect("evaluates");
    let eval = with_xform(FILE, "Plane001", &params(0));
    let after = eval
        .mesh(maxfs_tests::node_named(&eval.graph, "Plane001"), 0)
        .expect("a mesh")
        .expect("evaluates with the UVW Xform");
    assert_eq!(after.vertices, before.vertices);
    assert_eq!(after.faces, before.faces);
    let (a, b) = (channel1(&after), channel1(&before));
    assert_eq!(a.len(), b.len());
    let mut moved = 0;
    for (x, y) in a.iter().zip(b) {
        let want = expected(
            *y,
            [2.0, 0.5],
            [0.1, 0.25],
            true,
            std::f64::consts::FRAC_PI_2,
        );
        assert!(
            (f64::from(x[0]) - want[0]).abs() < 1e-5 && (f64::from(x[1]) - want[1]).abs() < 1e-5,
            "{y:?} → {x:?}, expected {want:?}"
        );
        moved += usize::from(x != y);
    }
    assert!(
        moved > a.len() / 2,
        "the transform moved {moved} of {}",
        a.len()
    );
}

/// Over an Editable Poly, "entire object" off depends on the faces the poly
/// object has flagged selected (saved whatever the sub-object level): with
/// none the channel is transformed; with some, Max transforms those faces
/// only, which is refused by name — the channel left out, the geometry kept.
/// "Entire object" on transforms all of them either way.
#[test]
fn uvw_xform_over_an_editable_poly_follows_its_face_selection() {
    const FILE: &str = "max/kenji-room/house_thing.max";
    let plain = maxfs_tests::corpus_eval(FILE);
    let node = maxfs_tests::node_named(&plain.graph, "Box001");
    let before = plain.mesh(node, 0).expect("a mesh").expect("evaluates");
    let (stack, base) = plain.modifier_stack(node).expect("a stack");
    assert!(stack.is_empty());
    let geom = maxfs_scene::eval::objects::mesh::geom_buffers(plain.chunks(base)).expect("poly");
    let selected = maxfs_scene::eval::objects::mesh::selected_poly_faces(geom)
        .expect("face records")
        .expect("flags saved");
    for entire in [0, 1] {
        let eval = with_xform(FILE, "Box001", &params(entire));
        let after = eval
            .mesh(maxfs_tests::node_named(&eval.graph, "Box001"), 0)
            .expect("a mesh")
            .expect("the geometry evaluates");
        assert_eq!(after.vertices, before.vertices);
        if entire == 0 && selected > 0 {
            assert!(after.maps.iter().all(|c| c.channel != 1));
            let why = format!("{:?}", after.missing_maps);
            assert!(
                why.contains("UVW Xform") && why.contains("selected"),
                "{why}"
            );
        } else {
            assert!(after.missing_maps.is_empty(), "{:?}", after.missing_maps);
            for (x, y) in channel1(&after).iter().zip(channel1(&before)) {
                let want = expected(
                    *y,
                    [2.0, 0.5],
                    [0.1, 0.25],
                    true,
                    std::f64::consts::FRAC_PI_2,
                );
                assert!((f64::from(x[0]) - want[0]).abs() < 1e-5, "{x:?} {want:?}");
                assert!((f64::from(x[1]) - want[1]).abs() < 1e-5, "{x:?} {want:?}");
            }
        }
    }
    eprintln!("Box001: {selected} faces flagged selected");
}
