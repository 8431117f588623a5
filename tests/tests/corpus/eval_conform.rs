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
//! - RubberGrip (Plane → Edit Poly → Conform along the object's −z onto
//!   FrontBody → Shell, outer amount 0.007874 → Edit Polys → Unwrap UVW):
//!   (the Shell above now evaluates too: eval_shell.rs) each of the 30
//!   outer vertices the Unwrap
//!   cached, less the Transform offsets of the Edit Poly above the Shell,
//!   lies the Shell's outer amount from our Conform's vertex — which it
//!   would not without the rays' 1e-4 start up the object's z (the flat
//!   middle would be 1e-4 off);
//! - RubberGrip001, whose Conform uses shrink direction 0 (not evaluated),
//!   stays refused naming it.
//!
//! Tolerance: f32 positions (the cache) of a node 4 units across: 1e-6.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::Stack;
use maxfs_scene::settings;
use maxfs_tests::{corpus_dir, corpus_eval, node_index as node, unwrap_cache};

use crate::eval_fbx::{diagonal, fbx_world_vertices, load_fbx};

/// Largest distance from Max's cached position, object units.
const CACHE_TOLERANCE: f64 = 1e-6;

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
    let local = maxfs_tests::local_data(&stack[0]);
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
    let theirs = fbx_world_vertices(&fbx, "Connection").expect("FBX mesh of Connection");
    assert_eq!(theirs.len(), mesh.vertices.len(), "FBX vertices");
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

/// The Unwrap UVW local data of `stack[at]`'s modifier (an Edit Poly's or
/// an Unwrap's).
fn local_data<'a>(stack: &'a [maxfs_scene::eval::modifier::Applied<'a>], at: usize) -> &'a Chunk {
    maxfs_tests::local_data(&stack[at])
}

/// The sum of an Edit Poly's Transform offsets per vertex (0x0238 → 0x12c4:
/// one Point3 per vertex of its input).
fn transform_offsets(local: &Chunk, n: usize) -> Vec<[f64; 3]> {
    let mut out = vec![[0.0; 3]; n];
    for c in local.children().iter().filter(|c| c.id == 0x0238) {
        if let Some(p) = c
            .children()
            .iter()
            .find(|x| x.id == 0x12c4)
            .and_then(Chunk::payload)
        {
            for (i, b) in p.chunks_exact(12).take(n).enumerate() {
                for k in 0..3 {
                    let w = [b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]];
                    out[i][k] += f64::from(f32::from_le_bytes(w));
                }
            }
        }
    }
    out
}

#[test]
fn rubber_grip_conform_lies_the_shell_amount_from_the_cache() {
    let eval = corpus_eval("max/max2024-rico/Shotgun.max");
    let o = node(&eval, "RubberGrip");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let names: Vec<&str> = stack.iter().map(|a| a.name).collect();
    assert_eq!(
        names,
        [
            "Unwrap UVW",
            "Edit Poly",
            "Edit Poly",
            "Shell",
            "Conform",
            "Edit Poly"
        ],
        "RubberGrip's stack"
    );
    let conformed = eval
        .mesh_up_to(o, 4, 0)
        .expect("a mesh object")
        .unwrap_or_else(|e| panic!("RubberGrip up to its Conform: {e}"));
    assert_eq!(conformed.vertices.len(), 30);
    let (cache, _) = unwrap_cache(local_data(&stack, 0));
    // The Edit Poly right above the Shell moves the Shell's 60 vertices.
    let offsets = transform_offsets(local_data(&stack, 2), 60);
    let outer = 0.007874016;
    let mut worst = 0.0f64;
    for (i, v) in conformed.vertices.iter().enumerate() {
        let c = cache[i];
        let max = [0, 1, 2].map(|k| c[k] - offsets[i][k]);
        worst = worst.max((distance(v.to_array(), max) - outer).abs());
    }
    eprintln!("RubberGrip: 30 outer vertices, worst {worst:.2e} from the Shell's amount");
    assert!(worst < CACHE_TOLERANCE, "worst {worst}");
}

#[test]
fn rubber_grip001_conform_is_refused_by_its_direction() {
    let eval = corpus_eval("max/max2024-rico/Shotgun.max");
    let err = match eval
        .mesh_with(node(&eval, "RubberGrip001"), 0, Stack::Replayed)
        .expect("a mesh object")
    {
        Ok(_) => panic!("RubberGrip001 evaluates: update this test"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("Conform") && err.contains("shrink direction 0"),
        "{err}"
    );
}
