//! The Teapot of prims-pranto/Transition.max (no export of the scene exists).
//! 3ds Max's own Mesh Totals for the file (630 vertices, 1,152 faces) less its
//! four Planes (25 vertices and 32 faces each, evaluated and checked by
//! eval_mesh_totals) leave 530 vertices and 1,024 faces for the teapot at its
//! 4 segments: our mesh must have exactly those. Its shape is checked against
//! the radius saved in the file: Newell's data scaled by radius / 2 stands on
//! z = 0 and reaches the lid knob's pole at 3.15 · radius / 2.

use maxfs_scene::eval::objects::primitive::{params, TEAPOT};
use maxfs_tests::{corpus_eval, named_nodes};

#[test]
fn transition_teapot_has_max_totals_and_size() {
    let eval = corpus_eval("max/prims-pranto/Transition.max");
    let mut seen = 0;
    let nodes = named_nodes(&eval);
    for (node, name) in nodes {
        let Some((stack, base)) = eval.modifier_stack(node) else {
            continue;
        };
        let class = eval.graph.objects[base].class.as_ref().map(|c| c.class_id);
        if class != Some(TEAPOT) {
            continue;
        }
        assert!(stack.is_empty(), "{name}: the check assumes no modifier");
        let mesh = eval
            .mesh(node, 0)
            .expect("mesh")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            (mesh.vertices.len(), mesh.faces.len()),
            (630 - 4 * 25, 1152 - 4 * 32)
        );
        let p = params(&eval, base, 0).expect("params");
        let r = p.float(0).expect("radius");
        let top = mesh.vertices.iter().map(|v| v.2).fold(f64::MIN, f64::max);
        let bottom = mesh.vertices.iter().map(|v| v.2).fold(f64::MAX, f64::min);
        assert!(
            (top - 3.15 * r / 2.0).abs() < 1e-5 * r,
            "{name}: top {top}, radius {r}"
        );
        assert!(bottom.abs() < 1e-5 * r, "{name}: bottom {bottom}");
        // Generated mapping is on in the file: one map face per face.
        assert_eq!(
            mesh.maps.first().map(|m| m.faces.len()),
            Some(mesh.faces.len())
        );
        seen += 1;
    }
    assert_eq!(seen, 1);
}
