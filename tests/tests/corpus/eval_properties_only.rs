//! Modifiers that only hold properties for a later stage (issue 19: no
//! silent drops, common modifiers): MassFX Rigid Body (physics; the
//! simulation moves the node, written into its controllers only by a bake)
//! and MAXtoA's Arnold Properties (render-time subdivision, displacement,
//! visibility). The independent check is Max's own: public files with them
//! (cube game.max, chain.max; nicolas-holst's seven Arnold visibility
//! scenes; docs/unseen-files.md) have vertex totals equal to their saved
//! Mesh Totals once they pass their input through. The corpus holds neither,
//! so this test writes each, as those files store it (no local data), at
//! each place of the stack of Kenjis_chair's ChamferBox001 (Editable Poly →
//! TurboSmooth → Bend): the mesh must be the one without it, the TurboSmooth
//! still taking the polygons below.

use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/kenji-room/Kenjis_chair.max";
const NODE: &str = "ChamferBox001";

/// (class, its plug-in file, its name) as the public files list them.
const KINDS: [(ClassId, &str, &str); 2] = [
    (
        ClassId(0x000a_750e, 0x0006_e6ba),
        "MassFX.dlm",
        "MassFX RBody",
    ),
    (
        ClassId(0x9753_1356, 0x9c8a_4d2e),
        "MAXtoA.dlr",
        "Arnold Properties",
    ),
];

fn with_modifier(kind: (ClassId, &str, &str), at: usize) -> SceneEval {
    let (id, file, name) = kind;
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    e.add_bare_modifier(node, at, file, id, name);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn properties_only_modifiers_pass_their_input_through() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let node = maxfs_tests::node_named(&plain.graph, NODE);
    let before = plain.mesh(node, 0).expect("a mesh").expect("evaluates");
    // 0 = on top, 1 = between the Bend and the TurboSmooth, 2 = right above
    // the Editable Poly.
    for (kind, at) in KINDS.iter().flat_map(|&k| [0, 1, 2].map(|at| (k, at))) {
        let eval = with_modifier(kind, at);
        let node = maxfs_tests::node_named(&eval.graph, NODE);
        let (stack, _) = eval.modifier_stack(node).expect("a stack");
        let names: Vec<&str> = stack.iter().map(|a| a.name).collect();
        assert_eq!(names.len(), 3, "{} is in the stack: {names:?}", kind.2);
        let after = eval
            .mesh(node, 0)
            .expect("a mesh")
            .unwrap_or_else(|e| panic!("{} at {at}: {e}", kind.2));
        assert_eq!(after.vertices, before.vertices, "{} at {at}", kind.2);
        assert_eq!(after.faces, before.faces, "{} at {at}", kind.2);
        let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&eval);
        assert!(
            gaps.iter().all(|g| !g.class.contains(kind.2)),
            "{} at {at}: {gaps:?}",
            kind.2
        );
    }
}

/// Hair and Fur (WSM) grows hair at render time and passes its mesh up: with
/// it passed through, deepdas007's "Grass and Fur.max" (25 / 32) and
/// cyllinder.max (110 / 216) equal Max's Mesh Totals in vertices and faces
/// (docs/unseen-files.md). As a world-space modifier it always sits on top
/// of the object-space stack, which is where this test writes it.
#[test]
fn hair_and_fur_passes_its_mesh_up() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let node = maxfs_tests::node_named(&plain.graph, NODE);
    let before = plain.mesh(node, 0).expect("a mesh").expect("evaluates");
    let kind = (
        ClassId(0x08d6_9a9a, 0x1c3b_cf66),
        "hairandfur.dlo",
        "Hair and Fur",
    );
    let eval = with_modifier(kind, 0);
    let node = maxfs_tests::node_named(&eval.graph, NODE);
    let after = eval
        .mesh(node, 0)
        .expect("a mesh")
        .unwrap_or_else(|e| panic!("Hair and Fur: {e}"));
    assert_eq!(after.vertices, before.vertices);
    assert_eq!(after.faces, before.faces);
    let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&eval);
    assert!(gaps.iter().all(|g| !g.class.contains("Hair")), "{gaps:?}");
}
