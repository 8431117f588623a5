//! An Edit Poly above a deformer (issue 19): a poly object passes its MNMesh
//! up the stack and a deformer moves its vertices in place, so the Edit Poly
//! replays its operations on the polygons below, moved. Before, such stacks
//! were refused ("Edit Poly above XForm … needs its input as polygons"; on
//! the public sweeps Kreslo.max's two bent Cylinders, displays.max's FFD).
//!
//! The corpus holds no deformer under an Edit Poly, so the test puts one
//! there through our writer: misc/Barrel.max's Cylinder001 (Cylinder → Edit
//! Poly: two Transforms and two Set Materials, whose replay is checked
//! against the selection sizes Max saved) gets an XForm *below* its Edit
//! Poly, the gizmo being the node's own Position/Rotation/Scale, a pure
//! translation t = (0.78, 0.78, 0). A translation moves the Transforms'
//! stored offsets along with the vertices, so Max's result is the saved
//! scene's mesh moved by t, vertex for vertex, with the same faces.

use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::node_index as index;
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/misc/Barrel.max";
const NODE: &str = "Cylinder001";
const XFORM: ClassId = ClassId(0x25215824, 0);

/// Barrel.max with an XForm between Cylinder001's base object and its Edit
/// Poly, its gizmo the node's own transform controller.
fn with_xform_below_the_edit_poly() -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    let gizmo = e.reference(node, 0);
    // Position 1: under the Edit Poly (0), right above the Cylinder; the
    // references in Max's sparse form, slot 0 the gizmo.
    e.add_modifier_with_refs(node, 1, XFORM, "XForm", "xform.dlm", &[0, 0, gizmo as i32]);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn an_edit_poly_replays_on_the_polygons_a_deformer_moved() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let n = index(&plain, NODE);
    let before = plain.mesh(n, 0).expect("a mesh").expect("evaluates");
    let g = plain.local_tm(n, 0);
    let t = g.transform_point(maxfs_scene::eval::Vec3(0.0, 0.0, 0.0));
    assert!(
        t.0.abs() + t.1.abs() > 1.0,
        "the gizmo moves the mesh, so the comparison says something: {t:?}"
    );

    let eval = with_xform_below_the_edit_poly();
    let ne = index(&eval, NODE);
    let names: Vec<&str> = eval
        .modifier_stack(ne)
        .expect("stack")
        .0
        .iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(
        names,
        ["Edit Poly", "XForm"],
        "the XForm is under the Edit Poly"
    );
    let after = match eval.mesh(ne, 0).expect("a mesh") {
        Ok(m) => m,
        Err(e) => panic!("the Edit Poly above the XForm is refused: {e}"),
    };
    assert_eq!(after.faces, before.faces, "same faces, materials, groups");
    assert_eq!(after.vertices.len(), before.vertices.len());
    let mut worst = 0.0f64;
    for (b, a) in before.vertices.iter().zip(&after.vertices) {
        let want = [b.0 + t.0, b.1 + t.1, b.2 + t.2];
        worst = worst.max(
            (want[0] - a.0)
                .abs()
                .max((want[1] - a.1).abs())
                .max((want[2] - a.2).abs()),
        );
    }
    assert!(worst <= 1e-5, "worst {worst}");
}
