//! A modifier switched off in Max's stack (its base-modifier container 0x39bf
//! holds an empty 0x0110) passes its input through: Max's saved Mesh Totals
//! leave it out on every public file that has one (docs/unseen-files.md,
//! fourth sweep). The corpus has none, so Kenjis_chair.max's TurboSmooth is
//! switched off through the project's writer and the node must then be what
//! Max's stack without that modifier gives.

use maxfs_scene::eval::{SceneEval, Stack};
use maxfs_tests::rewrite::SceneEdit;

const CHAIR: &str = "max/kenji-room/Kenjis_chair.max";

#[test]
fn a_switched_off_turbosmooth_leaves_the_stack_below_it() {
    let mut e = SceneEdit::open(CHAIR);
    let node = e.node("ChamferBox001");
    let derived = e.reference(node, 1);
    let ts = e.graph.objects[derived]
        .references
        .iter()
        .filter_map(|r| usize::try_from(r.target).ok())
        .find(|&o| {
            e.graph.objects[o]
                .class
                .as_ref()
                .is_some_and(|c| c.name == "TurboSmooth")
        })
        .expect("ChamferBox001 has a TurboSmooth");

    let before = SceneEval::from_document(
        maxfs_scene::Document::open(&maxfs_tests::corpus_dir().join(CHAIR)).expect("opens"),
    )
    .expect("scene");
    let full = before.mesh(node, 0).expect("a mesh").expect("evaluates");
    let without = before
        .mesh_with(node, 0, Stack::Without(ts))
        .expect("a mesh")
        .expect("evaluates");
    assert!(
        full.vertices.len() > without.vertices.len(),
        "TurboSmooth adds vertices"
    );

    e.put_nested_leaf(ts, &[0x39bf], 0x0110, Vec::new());
    let off = SceneEval::from_document(e.finish()).expect("edited scene");
    let (stack, _) = off.modifier_stack(node).expect("a stack");
    assert!(
        stack.iter().all(|m| m.object != ts),
        "the switched-off TurboSmooth is not applied"
    );
    assert!(
        stack.iter().any(|m| m.name == "Bend"),
        "the Bend above it still is"
    );
    let mesh = off.mesh(node, 0).expect("a mesh").expect("evaluates");
    assert_eq!(mesh.vertices, without.vertices);
    assert_eq!(mesh.faces.len(), without.faces.len());
}
