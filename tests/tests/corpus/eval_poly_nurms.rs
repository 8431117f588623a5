//! An Editable Poly with its own "Use NURMS Subdivision" on (ParamBlock2 id
//! 0x17) shows Max its smoothed mesh, not the stored cage (the sixth sweep's
//! hat.max and sofa.max: cages of 269 and 1,768 vertices against Max's Mesh
//! Totals of 4,217 and 25,244; docs/unseen-files.md). The subdivision is not
//! built, so the object must be refused by name, never exported as its cage.
//! The corpus has no such object: CubesImageFormat's `B` is switched on
//! through the project's writer.

use maxfs_scene::eval::SceneEval;
use maxfs_tests::rewrite::SceneEdit;

const FILE: &str = "max/babylon/CubesImageFormat.max";

#[test]
fn an_editable_poly_with_nurms_subdivision_on_is_refused_by_name() {
    let mut e = SceneEdit::open(FILE);
    let node = e.node("B");
    let poly = e.reference(node, 1);
    let pb = e.reference(poly, 0);

    let before = SceneEval::from_document(
        maxfs_scene::Document::open(&maxfs_tests::corpus_dir().join(FILE)).expect("opens"),
    )
    .expect("scene");
    let cage = before.mesh(node, 0).expect("a mesh").expect("evaluates");
    assert_eq!(cage.vertices.len(), 64, "the stored cage");

    e.set_pb2_constant(pb, 0x17, &1u32.to_le_bytes());
    let on = SceneEval::from_document(e.finish()).expect("edited scene");
    let err = on
        .mesh(node, 0)
        .expect("a result")
        .expect_err("the cage is not what Max shows");
    let text = err.to_string();
    assert!(
        text.contains("Use NURMS Subdivision") && text.contains("not evaluated"),
        "{text}"
    );
}
