//! Poly Select (issue 19: common modifiers, no silent drops) sets a
//! selection and hands a poly object up: its output is the polygon form of
//! the stack below it. The corpus holds none (public files: Cloetta's
//! Week2LongAxe.max, whose vertex total then equals Max's Mesh Totals;
//! docs/evaluation.md), so this test writes one, as those files store it
//! (no local data, the sub-object level chunk at object level), into the
//! stack of Kenjis_chair's ChamferBox001 (Editable Poly → TurboSmooth →
//! Bend). Right above the Editable Poly the TurboSmooth still takes the
//! polygons below and the mesh is the one without it; above the TurboSmooth
//! it hands up TurboSmooth's quads (docs/evaluation.md, "TurboSmooth's
//! numbering"), never triangles.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/kenji-room/Kenjis_chair.max";
const NODE: &str = "ChamferBox001";
const POLY_SELECT: ClassId = ClassId(0x7ce5_206b, 0x3118_1505);
const OSM: u32 = 0x810;

fn with_poly_select(at: usize) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    let dll = e.add_dll("Poly Select (synthetic)", "polyselect.dlm");
    let class = e.add_class(dll, POLY_SELECT, OSM, "Poly Select");
    let body = e.add_object(
        class,
        vec![
            Chunk::leaf(0x0100, 0u32.to_le_bytes().to_vec()),
            Chunk::container(0x39bf, vec![Chunk::leaf(0x0100, Vec::new())]),
        ],
    );
    e.add_modifier(node, at, body, Chunk::container(0x2512, Vec::new()));
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn poly_select_hands_the_polygons_below_it_up() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let node = maxfs_tests::node_named(&plain.graph, NODE);
    let before = plain.mesh(node, 0).expect("a mesh").expect("evaluates");
    // 2 = right above the Editable Poly, below the TurboSmooth.
    let eval = with_poly_select(2);
    let node = maxfs_tests::node_named(&eval.graph, NODE);
    let (stack, _) = eval.modifier_stack(node).expect("a stack");
    let names: Vec<&str> = stack.iter().map(|a| a.name).collect();
    assert_eq!(names.len(), 3, "Poly Select is in the stack: {names:?}");
    assert!(names.contains(&"Poly Select"), "{names:?}");
    let after = eval
        .mesh(node, 0)
        .expect("a mesh")
        .unwrap_or_else(|e| panic!("under the TurboSmooth: {e}"));
    assert_eq!(after.vertices, before.vertices);
    assert_eq!(after.faces, before.faces);
    let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&eval);
    assert!(
        gaps.iter().all(|g| !g.class.contains("Poly Select")),
        "{gaps:?}"
    );
    // 1 = above the TurboSmooth: it hands up TurboSmooth's quads in Max's
    // numbering (`turbo_smooth::apply_poly`), each split along the same
    // diagonal as TurboSmooth's own triangles, the two pieces in the order
    // an Edit Poly above gives them: the same vertices, each quad's two
    // triangles swapped.
    let eval = with_poly_select(1);
    let node = maxfs_tests::node_named(&eval.graph, NODE);
    let above = eval
        .mesh(node, 0)
        .expect("a mesh")
        .unwrap_or_else(|e| panic!("above the TurboSmooth: {e}"));
    assert_eq!(above.vertices, before.vertices);
    assert_eq!(above.faces.len(), before.faces.len());
    for (ours, plain) in above.faces.chunks(2).zip(before.faces.chunks(2)) {
        assert_eq!(ours[0].v, plain[1].v);
        assert_eq!(ours[1].v, plain[0].v);
    }
}
