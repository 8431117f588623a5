//! The Boolean modifier of Max 2024+ on the corpus (max2024-rico).
//!
//! - Can.max's Can: Cylinder → Edit Poly → Boolean (the can minus Box002, a
//!   captured box whose own stack chamfers its four vertical edges and holds
//!   an empty Boolean modifier) → Edit Poly (one Attach) → Unwrap UVW. The
//!   whole node is compared with the FBX the author exported from the scene
//!   (ref/max2024-rico/Can.fbx): every FBX vertex is one of ours and every
//!   one of ours lies on the FBX surface (world space); the Boolean adds no
//!   open edge to its input (the can is open at its deleted bottom cap).
//! - Shotgun.max's Shell and Shell001 (one instanced modifier): the
//!   operation of Cylinder003 (0) has no reference in the corpus (the Shells
//!   are not in the FBX, and the Edit Poly above, whose input the Unwrap UVW
//!   caches, caps, insets, extrudes and chamfers Max's triangulation of the
//!   result — refused by name too): refused by name.

use std::collections::HashMap;

use maxfs_scene::eval::core::memo::Stack;
use maxfs_scene::eval::modifier::boolean_mod;
use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::SceneEval;
use maxfs_tests::{corpus_dir, corpus_eval, node_index as node};

use crate::eval_fbx::{diagonal, fbx_world_vertices, load_fbx, worst_nearest};

type P = [f64; 3];

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: P, b: P) -> P {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Distance from `p` to triangle `t`.
fn to_triangle(p: P, t: &[P; 3]) -> f64 {
    let n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
    let nn = dot(n, n);
    if nn > 0.0 {
        // Inside the prism over the triangle: the distance to its plane.
        let inside = (0..3).all(|i| {
            let (a, b) = (t[i], t[(i + 1) % 3]);
            dot(cross(sub(b, a), sub(p, a)), n) >= 0.0
        });
        if inside {
            return dot(sub(p, t[0]), n).abs() / nn.sqrt();
        }
    }
    (0..3)
        .map(|i| {
            let (a, b) = (t[i], t[(i + 1) % 3]);
            let ab = sub(b, a);
            let l = dot(ab, ab);
            let s = if l > 0.0 {
                (dot(sub(p, a), ab) / l).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let q = [a[0] + s * ab[0], a[1] + s * ab[1], a[2] + s * ab[2]];
            dot(sub(p, q), sub(p, q)).sqrt()
        })
        .fold(f64::INFINITY, f64::min)
}

/// The FBX node's triangles in world space (ufbx's triangulation).
fn fbx_world_triangles(scene: &ufbx::Scene, name: &str) -> Vec<[P; 3]> {
    let n = scene
        .nodes
        .iter()
        .find(|n| n.element.name.as_ref() == name)
        .expect("FBX node");
    let mesh = n.mesh.as_ref().expect("FBX mesh");
    let mut out = Vec::new();
    let mut idx = vec![0u32; mesh.max_face_triangles * 3];
    for &f in mesh.faces.iter() {
        let k = ufbx::triangulate_face(&mut idx, mesh, f) as usize;
        for t in idx[..3 * k].chunks_exact(3) {
            out.push([0, 1, 2].map(|j| {
                let v = mesh.vertices[mesh.vertex_indices[t[j] as usize] as usize];
                let w = ufbx::transform_position(&n.geometry_to_world, v);
                [w.x, w.y, w.z]
            }));
        }
    }
    out
}

/// Edges used by one face only, vertices welded by position (1e-6 of
/// `size`): (count, total length).
fn open_edges(m: &Mesh, size: f64) -> (usize, f64) {
    let q = |i: u32| {
        let v = m.vertices[i as usize].to_array();
        v.map(|x| (x / (size * 1e-6)).round() as i64)
    };
    let mut uses: HashMap<([i64; 3], [i64; 3]), i32> = HashMap::new();
    for f in &m.faces {
        for e in 0..3 {
            let (a, b) = (q(f.v[e]), q(f.v[(e + 1) % 3]));
            if a == b {
                continue;
            }
            // +1 one way, −1 the other: a shared edge cancels.
            if a < b {
                *uses.entry((a, b)).or_default() += 1;
            } else {
                *uses.entry((b, a)).or_default() -= 1;
            }
        }
    }
    let mut n = 0;
    let mut len = 0.0;
    for ((a, b), u) in uses {
        if u != 0 {
            n += u.unsigned_abs() as usize;
            let d: f64 = (0..3)
                .map(|i| ((a[i] - b[i]) as f64 * size * 1e-6).powi(2))
                .sum::<f64>()
                .sqrt();
            len += d * f64::from(u.unsigned_abs());
        }
    }
    (n, len)
}

fn stack_index(eval: &SceneEval, o: usize, name: &str) -> usize {
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    stack
        .iter()
        .position(|m| m.name == name)
        .expect("modifier on the stack")
}

#[test]
fn can_minus_its_captured_box_matches_the_fbx() {
    let eval = corpus_eval("max/max2024-rico/Can.max");
    let o = node(&eval, "Can");
    let at = stack_index(&eval, o, "Boolean");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let ops = boolean_mod::operands(&eval, stack[at].object).expect("operands");
    let list: Vec<_> = ops
        .iter()
        .map(|p| (p.name.as_str(), p.kind, p.operation))
        .collect();
    assert_eq!(list, [("", 0, 0), ("Box002", 1, 2)]);

    // The whole stack as we evaluate it, without stand-ins: the node's own
    // mesh is the Unwrap UVW's cache, as the Unwrap's map does not fit our
    // triangles (eval_unwrap_cache.rs checks that one).
    let mesh = eval
        .mesh_up_to(o, 0, 0)
        .expect("a mesh object")
        .unwrap_or_else(|e| panic!("Can: {e}"));
    let tm = eval.object_tm(o, 0);
    let ours: Vec<P> = mesh
        .vertices
        .iter()
        .map(|v| tm.transform_point(*v).to_array())
        .collect();
    let scene = load_fbx(&corpus_dir().join("ref/max2024-rico/Can.fbx"), 0.0254);
    let theirs = fbx_world_vertices(&scene, "Can").expect("FBX mesh");
    let tris = fbx_world_triangles(&scene, "Can");
    let size = diagonal(&theirs);
    let fbx_to_ours = worst_nearest(&theirs, &ours);
    let ours_to_surface = ours
        .iter()
        .map(|p| {
            tris.iter()
                .map(|t| to_triangle(*p, t))
                .fold(f64::INFINITY, f64::min)
        })
        .fold(0.0, f64::max);
    eprintln!(
        "Can: {} FBX vertices, {} ours ({} triangles); FBX → ours worst {fbx_to_ours:.2e}, \
         ours → FBX surface worst {ours_to_surface:.2e}, of size {size:.3}; missing maps {:?}",
        theirs.len(),
        ours.len(),
        mesh.faces.len(),
        mesh.missing_maps
            .iter()
            .map(|m| (m.channel, m.modifier.as_str()))
            .collect::<Vec<_>>()
    );
    assert!(fbx_to_ours < 1e-5 * size, "an FBX vertex is not ours");
    // The Boolean keeps only the result's corners and its operands' own
    // vertices, as Max's does: the FBX's 296 vertices and triangles, where
    // the splitting left 825 vertices and 1,630 triangles.
    assert_eq!(ours.len(), theirs.len(), "vertex count");
    assert_eq!(mesh.faces.len(), tris.len(), "triangle count");
    assert!(
        ours_to_surface < 1e-5 * size,
        "a vertex of ours is off the FBX"
    );

    // The cut is closed: the Boolean leaves its input's open border (the
    // deleted bottom cap) as the only one.
    let input = eval.mesh_up_to(o, at + 1, 0).expect("mesh").expect("input");
    let output = eval.mesh_up_to(o, at, 0).expect("mesh").expect("output");
    let (ni, li) = open_edges(&input, size);
    let (no, lo) = open_edges(&output, size);
    eprintln!("open edges: input {ni} ({li:.4}), Boolean result {no} ({lo:.4})");
    assert!(ni > 0, "the input is open at its bottom");
    assert!((li - lo).abs() < 1e-5 * size, "open border {li} → {lo}");
}

#[test]
fn shotgun_shells_are_refused_by_name() {
    let eval = corpus_eval("max/max2024-rico/Shotgun.max");
    for name in ["Shell", "Shell001"] {
        let o = node(&eval, name);
        // The stack's own evaluation (the Unwrap UVW's cache stands in for
        // it in the node's mesh: eval_unwrap_cache.rs).
        let err = match eval
            .mesh_with(o, 0, Stack::Replayed)
            .expect("a mesh object")
        {
            Ok(_) => panic!("{name} evaluates: update this test"),
            Err(e) => e.to_string(),
        };
        assert!(
            err.contains("modifier Boolean")
                && err.contains("Cylinder003")
                && err.contains("operation 0"),
            "{name}: {err}"
        );
    }
}
