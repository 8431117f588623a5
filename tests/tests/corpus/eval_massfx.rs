//! MassFX Rigid Body (issue 19: no silent drops, common modifiers). The
//! modifier holds physics properties only; the simulation moves the node
//! (written into its controllers only by a bake), never the mesh. The
//! independent check is Max's own: two public files whose rigid bodies sit
//! on Editable Polys (cube game.max, chain.max; docs/unseen-files.md) have
//! vertex totals equal to their saved Mesh Totals once the rigid bodies pass
//! their input through. The corpus holds none, so this test writes one, as
//! those files store it (no local data), at each place of the stack of
//! Kenjis_chair's ChamferBox001 (Editable Poly → TurboSmooth → Bend): the
//! mesh must be the one without it, the TurboSmooth still taking the
//! polygons below.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/kenji-room/Kenjis_chair.max";
const NODE: &str = "ChamferBox001";
const RBODY: ClassId = ClassId(0x000a_750e, 0x0006_e6ba);
const OSM: u32 = 0x810;

fn with_rigid_body(at: usize) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    let dll = e.add_dll("MassFX (synthetic)", "MassFX.dlm");
    let class = e.add_class(dll, RBODY, OSM, "MassFX RBody");
    let body = e.add_object(
        class,
        vec![Chunk::container(
            0x39bf,
            vec![Chunk::leaf(0x0100, Vec::new())],
        )],
    );
    e.add_modifier(node, at, body, Chunk::container(0x2512, Vec::new()));
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn a_rigid_body_passes_its_input_through() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let node = maxfs_tests::node_named(&plain.graph, NODE);
    let before = plain.mesh(node, 0).expect("a mesh").expect("evaluates");
    // 0 = on top, 1 = between the Bend and the TurboSmooth, 2 = right above
    // the Editable Poly.
    for at in [0, 1, 2] {
        let eval = with_rigid_body(at);
        let node = maxfs_tests::node_named(&eval.graph, NODE);
        let (stack, _) = eval.modifier_stack(node).expect("a stack");
        let names: Vec<&str> = stack.iter().map(|a| a.name).collect();
        assert_eq!(names.len(), 3, "the rigid body is in the stack: {names:?}");
        let after = eval
            .mesh(node, 0)
            .expect("a mesh")
            .unwrap_or_else(|e| panic!("at {at}: {e}"));
        assert_eq!(after.vertices, before.vertices, "at {at}");
        assert_eq!(after.faces, before.faces, "at {at}");
        assert!(
            maxfs_scene::eval::core::coverage::scene_gaps(&eval)
                .iter()
                .all(|g| !g.class.contains("MassFX")),
            "at {at}"
        );
    }
}
