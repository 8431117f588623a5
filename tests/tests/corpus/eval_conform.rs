//! The Conform modifier (modifier/conform.rs) on Shotgun.max, against what
//! 3ds Max recorded apart from our evaluation:
//!
//! - Connection (Box → Edit Poly: Delete Face → Conform, shrink wrap along
//!   the vertex normals onto MainBody and Stock, standoff 0.025 → Edit Poly:
//!   7 Transforms → Unwrap UVW): the stack's own evaluation
//!   (`Stack::Replayed`, no cache standing in) equals, vertex for vertex,
//!   the positions the Unwrap UVW at the top cached of its input — Max's
//!   result of the Conform and the Transforms above it — and ShotgunAnimated.fbx
//!   (this revision of the scene) in world space; the node now has smoothing
//!   groups of its own stack and lacks nothing;
//! - RubberGrip and RubberGrip001, whose Conforms use settings not evaluated
//!   (the axis method; another shrink-wrap direction), stay refused naming
//!   them.
//!
//! Tolerance: the rule lands every vertex within 3.0e-4 object units of
//! Max's (4.9e-4 world units, 0.02 % of the node's size; the standoff is
//! 0.025). The residual is not noise: rays that meet MainBody's flat bottom
//! straight on stop 1.0e-4 (object units) short of Max's, rays along x 0 to
//! 3e-4, the cause not derived (docs/evaluation.md).

use maxfs_scene::eval::Stack;
use maxfs_scene::settings;
use maxfs_tests::{corpus_dir, corpus_eval, node_index as node, unwrap_cache};

use crate::eval_fbx::{diagonal, load_fbx};

/// Largest distance from Max's cached position, object units.
const CACHE_TOLERANCE: f64 = 3.5e-4;

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt()
}

#[test]
fn connection_conform_equals_the_unwrap_cache_and_the_fbx() {
    let eval = corpus_eval("max/max2024-rico/Shotgun.max");
    let o = node(&eval, "Connection");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let names: Vec<&str> = stack.iter().map(|a| a.name).collect();
    assert_eq!(
        names,
        ["Unwrap UVW", "Edit Poly", "Conform", "Edit Poly"],
        "Connection's stack"
    );
    let local = stack[0]
        .mod_app
        .and_then(|a| a.children().iter().find(|c| c.id == 0x2512))
        .expect("Unwrap local data");
    let (cache, polys) = unwrap_cache(local);
    let mesh = eval
        .mesh_with(o, 0, Stack::Replayed)
        .expect("a mesh object")
        .unwrap_or_else(|e| panic!("Connection: {e}"));
    assert_eq!(mesh.vertices.len(), cache.len(), "vertices");
    // The Conform moved them: most by more than a tenth of a unit.
    let input = maxfs_scene::eval::modifier::edit_poly_output(&eval, o, 3, 0).expect("input");
    let moved = input
        .vertices
        .iter()
        .zip(&cache)
        .filter(|(v, c)| distance(v.to_array(), **c) > 0.1)
        .count();
    assert!(moved > 40, "{moved} vertices moved");
    let worst = mesh
        .vertices
        .iter()
        .zip(&cache)
        .map(|(v, c)| distance(v.to_array(), *c))
        .fold(0.0, f64::max);
    eprintln!(
        "Connection: {} vertices, worst {worst:.2e} from the Unwrap cache",
        cache.len()
    );
    assert!(worst < CACHE_TOLERANCE, "worst {worst}");
    // Topology: Max's polygons, each our triangles' corners.
    let corners: usize = polys.iter().map(|(v, _)| v.len() - 2).sum();
    assert_eq!(mesh.faces.len(), corners, "triangles");
    // Smoothing groups from the Box through the Edit Polys, nothing missing.
    assert!(mesh.faces.iter().all(|f| f.smoothing != 0));
    assert!(mesh.missing_parts.is_empty(), "{:?}", mesh.missing_parts);
    let full = eval.mesh(o, 0).expect("a mesh object").expect("evaluates");
    assert!(full.missing_parts.is_empty(), "{:?}", full.missing_parts);

    // The FBX of this revision, per vertex index in world space.
    let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
    let fbx = load_fbx(
        &corpus_dir().join("ref/max2024-rico/ShotgunAnimated.fbx"),
        unit.metres_per_unit,
    );
    let fnode = fbx
        .nodes
        .iter()
        .find(|n| n.element.name.as_ref() == "Connection")
        .expect("FBX node");
    let fm = fnode.mesh.as_ref().expect("FBX mesh");
    assert_eq!(fm.num_vertices, mesh.vertices.len(), "FBX vertices");
    let theirs: Vec<[f64; 3]> = fm
        .vertices
        .iter()
        .map(|v| {
            let w = ufbx::transform_position(&fnode.geometry_to_world, *v);
            [w.x, w.y, w.z]
        })
        .collect();
    let tm = eval.object_tm(o, 0);
    let worst_fbx = mesh
        .vertices
        .iter()
        .zip(&theirs)
        .map(|(v, t)| distance(tm.transform_point(*v).to_array(), *t))
        .fold(0.0, f64::max);
    let size = diagonal(&theirs);
    eprintln!("Connection: worst {worst_fbx:.2e} from the FBX (size {size:.3})");
    assert!(
        worst_fbx < 2.0 * CACHE_TOLERANCE * tm.0[0].len(),
        "FBX worst {worst_fbx}"
    );
}

#[test]
fn rubber_grip_conforms_are_refused_by_setting() {
    let eval = corpus_eval("max/max2024-rico/Shotgun.max");
    for (name, setting) in [
        ("RubberGrip", "method 0"),
        ("RubberGrip001", "shrink direction 0"),
    ] {
        let err = match eval
            .mesh_with(node(&eval, name), 0, Stack::Replayed)
            .expect("a mesh object")
        {
            Ok(_) => panic!("{name} evaluates: update this test"),
            Err(e) => e.to_string(),
        };
        assert!(
            err.contains("Conform") && err.contains(setting),
            "{name}: {err}"
        );
    }
}
