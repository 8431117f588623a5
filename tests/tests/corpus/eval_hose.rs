//! Robot.max's Hose (free, no export of the scene exists; Max's Mesh Totals
//! for the file include CSG Booleans we do not build as Max does, see
//! eval_mesh_totals). Checked against its stored parameters and the stated
//! layout (`primitive/hose.rs`): 3 segments of a round 8-sided section →
//! 4 rings + 2 centres = 34 vertices, 8 + 8 fan triangles and 3·16 side
//! triangles = 64 faces; a closed outward surface; every ring on the stored
//! radius (diameter / 2) scaled by the flex factor at its height, the ends
//! at z = 0 and the stored length.

use maxfs_scene::eval::objects::primitive::{params, HOSE};
use maxfs_tests::{corpus_eval, named_nodes};

#[test]
fn robot_hose_has_its_stored_shape() {
    let eval = corpus_eval("max/prims-greejesh/Robot.max");
    let mut seen = 0;
    for (node, name) in named_nodes(&eval) {
        let Some(obj) = eval.node_object(node) else {
            continue;
        };
        if eval.graph.objects[obj].class.as_ref().map(|c| c.class_id) != Some(HOSE) {
            continue;
        }
        let p = params(&eval, obj, 0).expect("params");
        let mesh = eval
            .base_mesh(node)
            .expect("a mesh")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((mesh.vertices.len(), mesh.faces.len()), (34, 64), "{name}");
        let closed = {
            let mut e = std::collections::HashMap::new();
            for f in &mesh.faces {
                for k in 0..3 {
                    *e.entry((f.v[k], f.v[(k + 1) % 3])).or_insert(0) += 1;
                }
            }
            e.iter()
                .all(|(&(a, b), &n)| n == 1 && e.get(&(b, a)) == Some(&1))
        };
        assert!(closed, "{name}: closed");
        let length = p.float(1).expect("length");
        let radius = p.float(6).expect("diameter") / 2.0;
        let (f1, f2, cycles, fd) = (
            p.float(21).expect("flex start"),
            p.float(22).expect("flex stop"),
            p.float(23).expect("cycles"),
            p.float(24).expect("flex diameter"),
        );
        assert!(p.flag(20, false), "{name}: the check covers the flex");
        for ring in 0..4 {
            let incr = ring as f64 / 3.0;
            let scale = if incr > f1 && incr < f2 {
                let here = (incr - f1) / (f2 - f1).max(0.01);
                1.0 + fd
                    * (1.0
                        - (std::f64::consts::TAU * cycles * here + std::f64::consts::FRAC_PI_2)
                            .sin())
            } else {
                1.0
            };
            for j in 0..8 {
                let v = mesh.vertices[ring * 8 + j];
                assert!(
                    (v.0.hypot(v.1) - radius * scale).abs() < 1e-4 * radius,
                    "{name}: ring {ring}"
                );
                assert!((v.2 - length * incr).abs() < 1e-9 * length.max(1.0));
            }
        }
        seen += 1;
    }
    assert_eq!(seen, 1);
}
