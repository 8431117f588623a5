//! XForm (issue 19, "Reset XForm" stacks). The corpus holds none, so the test
//! puts one through our writer on a real scene: babylon/CartoonHouses.max's
//! Object009, with the gizmo controller shared with node rdc004's
//! Position/Rotation/Scale (rotated, scaled non-uniformly: 62.6 / 100 / 100;
//! its transform matches Babylon's glTF in `eval_babylon`). The rule stated
//! in `modifier/xform.rs`: every point p goes to p · G (identity mod-context
//! TM), G being that controller's value. It was measured on public files
//! outside the corpus (docs/unseen-files.md, sixth sweep: T800's nine XForm
//! parts stack into one arm with p · G and fall apart with p · G⁻¹).

use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::node_index;
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/babylon/CartoonHouses.max";
const MESH_NODE: &str = "Object009";
const GIZMO_NODE: &str = "rdc004";
const XFORM: ClassId = ClassId(0x25215824, 0);

/// CartoonHouses with an XForm on top of Object009's stack whose gizmo is
/// rdc004's transform controller and whose centre is `centre` (a node's
/// position controller) or none.
fn edited(centre_of: Option<&str>) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(MESH_NODE);
    let gizmo = e.reference(e.node(GIZMO_NODE), 0);
    // References (slot, target pairs after a leading word): 0 the gizmo, 1
    // the centre when one is given.
    let mut refs = vec![0i32, 0, gizmo as i32];
    if let Some(name) = centre_of {
        let prs = e.reference(e.node(name), 0);
        refs.extend([1, e.reference(prs, 0) as i32]);
    }
    e.add_modifier_with_refs(node, 0, XFORM, "XForm", "xform.dlm", &refs);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn xform_moves_turns_and_scales_the_mesh_by_its_gizmo() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let before = plain
        .mesh(node_index(&plain, MESH_NODE), 0)
        .expect("a mesh")
        .expect("evaluates");
    let g = plain.local_tm(node_index(&plain, GIZMO_NODE), 0);
    let eval = edited(None);
    let after = eval
        .mesh(node_index(&eval, MESH_NODE), 0)
        .expect("a mesh")
        .expect("the XForm evaluates");
    assert_eq!(after.vertices.len(), before.vertices.len());
    assert_eq!(after.faces, before.faces, "XForm keeps the faces");
    let size = before
        .vertices
        .iter()
        .map(|v| v.0.abs().max(v.1.abs()).max(v.2.abs()))
        .fold(0.0, f64::max)
        * 100.0;
    let mut worst = 0.0f64;
    for (b, a) in before.vertices.iter().zip(&after.vertices) {
        let want = g.transform_point(*b);
        worst = worst.max(
            (want.0 - a.0)
                .abs()
                .max((want.1 - a.1).abs())
                .max((want.2 - a.2).abs()),
        );
    }
    assert!(worst <= 1e-5 * size, "worst {worst} of {size}");
    // The gizmo is not the identity: the check above says something.
    let moved = before
        .vertices
        .iter()
        .zip(&after.vertices)
        .any(|(b, a)| (b.0 - a.0).abs() + (b.1 - a.1).abs() + (b.2 - a.2).abs() > 1.0);
    assert!(moved, "rdc004's transform moves the mesh");
}

#[test]
fn a_centre_off_the_gizmo_origin_is_refused_by_name() {
    // rdc004's own position is far from the origin.
    let eval = edited(Some(GIZMO_NODE));
    let err = match eval.mesh(node_index(&eval, MESH_NODE), 0) {
        Some(Err(e)) => e.to_string(),
        Some(Ok(_)) => panic!("evaluated with a centre whose rule is not measured"),
        None => panic!("no mesh"),
    };
    assert!(err.contains("centre"), "{err}");
    assert!(err.contains("XForm"), "{err}");
}
