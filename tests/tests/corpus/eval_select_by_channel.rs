//! Select By Channel (chaninfo.dlu) only selects: it sets a vertex selection
//! from a stored channel and passes its input up. The independent check is
//! Max's own: radobaychev's bookshelf.max (two Plane → Shell → Select By
//! Channel stacks, docs/unseen-files.md, fourteenth sweep) has the totals
//! Max saved (260 vertices, 408 faces) once it passes its input through. The
//! corpus holds none, so this test writes one, as that file stores it (the
//! base modifier chunk, no local data), into the stack of Kenjis_chair's
//! ChamferBox001 (Editable Poly → TurboSmooth → Bend). On top the mesh is the
//! one without it; under the Bend its selection (not read) is live for the
//! Bend, which is refused by name rather than bending every vertex.

use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/kenji-room/Kenjis_chair.max";
const NODE: &str = "ChamferBox001";
const SELECT_BY_CHANNEL: ClassId = ClassId(0x31f9_c666, 0x03b4_a588);

fn with_select_by_channel(at: usize) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    e.add_bare_modifier(
        node,
        at,
        "chaninfo.dlu",
        SELECT_BY_CHANNEL,
        "Select By Channel",
    );
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn select_by_channel_passes_its_input_and_leaves_a_selection_live() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let node = maxfs_tests::node_named(&plain.graph, NODE);
    let before = plain.mesh(node, 0).expect("a mesh").expect("evaluates");

    let top = with_select_by_channel(0);
    let node = maxfs_tests::node_named(&top.graph, NODE);
    let (stack, _) = top.modifier_stack(node).expect("a stack");
    assert_eq!(stack.first().map(|a| a.name), Some("Select By Channel"));
    let after = top
        .mesh(node, 0)
        .expect("a mesh")
        .expect("on top it passes");
    assert_eq!(after.vertices, before.vertices);
    assert_eq!(after.faces, before.faces);
    assert_eq!(after.maps, before.maps);
    let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&top);
    assert!(
        gaps.iter().all(|g| !g.class.contains("Select By Channel")),
        "{gaps:?}"
    );

    // Between the Bend and the TurboSmooth: the Bend acts on its selection.
    let under = with_select_by_channel(1);
    let node = maxfs_tests::node_named(&under.graph, NODE);
    let err = match under.mesh(node, 0).expect("a mesh") {
        Ok(_) => panic!("the Bend on Select By Channel's selection evaluated"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("selection that Select By Channel leaves live"),
        "{err}"
    );
}
