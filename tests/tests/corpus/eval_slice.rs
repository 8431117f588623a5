//! Slice (prims-greejesh/Robot.max: Sphere016, a legacy "remove bottom" on
//! polygons; no export of the scene exists, and the file's Mesh Totals also
//! count its 12 unevaluated Booleans). Checked by invariants computed here
//! from the input and the plane Max saved (the plane controller and the
//! ModApp's mod-context TM):
//! - every vertex of the input on the kept side stays, at its place;
//! - nothing is left on the removed side;
//! - the new vertices lie on the plane, one per visible input edge that
//!   crosses it (a polygon's hidden diagonals make none: Max slices the
//!   polygons, not the triangles), and the removed side's vertices are gone.

use std::collections::HashSet;

use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::modifier::slice::SLICE;
use maxfs_scene::eval::objects::primitive::block_params;
use maxfs_tests::{corpus_eval, named_nodes};

fn key(p: [f64; 3]) -> [i64; 3] {
    p.map(|x| (x * 1e6).round() as i64)
}

#[test]
fn sliced_sphere_keeps_its_top_and_cuts_visible_edges() {
    let eval = corpus_eval("max/prims-greejesh/Robot.max");
    let mut checked = 0;
    let nodes = named_nodes(&eval);
    for (node, name) in nodes {
        let Some((stack, _)) = eval.modifier_stack(node) else {
            continue;
        };
        let Some(m) = stack.iter().find(|m| m.class == SLICE) else {
            continue;
        };
        assert_eq!(stack.len(), 1, "{name}: the check assumes Slice alone");
        let pb = pblock::reference(&eval.graph, m.object, 0).expect("pblock");
        let kind = block_params(&eval, pb, 0).expect("params").int_or(0, 0);
        assert!(kind == 2 || kind == 3, "{name}: slice type {kind}");
        let ctl = pblock::reference(&eval.graph, m.object, 1).expect("plane");
        let plane = eval.prs_tm(ctl, 0).expect("PRS").rows();
        // Row-vector mod-context TM rows (object → mod-context space).
        let mc: Vec<f64> = m
            .mod_app
            .and_then(|a| a.children().iter().find(|c| c.id == 0x2510))
            .and_then(|c| c.payload())
            .map(|p| {
                p[..48]
                    .chunks_exact(4)
                    .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                    .collect()
            })
            .unwrap_or_else(|| vec![1., 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0.]);
        let to_mc = |p: [f64; 3]| -> [f64; 3] {
            std::array::from_fn(|c| p[0] * mc[c] + p[1] * mc[3 + c] + p[2] * mc[6 + c] + mc[9 + c])
        };
        // In mod-context space the plane passes through the controller's
        // origin with the controller's Z axis as normal.
        let origin = plane[3];
        let z = plane[2];
        let len = (z[0] * z[0] + z[1] * z[1] + z[2] * z[2]).sqrt();
        let sign = if kind == 2 { -1.0 } else { 1.0 };
        let n = z.map(|c| sign * c / len);
        let dist = |p: [f64; 3]| {
            let q = to_mc(p);
            (0..3).map(|a| n[a] * (q[a] - origin[a])).sum::<f64>()
        };
        let input = eval.base_mesh(node).unwrap().unwrap();
        let out = eval
            .mesh(node, 0)
            .unwrap()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let size = input.vertices.iter().map(|v| v.len()).fold(0.0, f64::max);
        let eps = 1e-4;
        let kept: HashSet<[i64; 3]> = input
            .vertices
            .iter()
            .filter(|v| dist(v.to_array()) > eps)
            .map(|v| key(v.to_array()))
            .collect();
        let removed = input
            .vertices
            .iter()
            .filter(|v| dist(v.to_array()) < -eps)
            .count();
        assert!(
            !kept.is_empty() && removed > 0,
            "{name}: the plane misses the mesh"
        );
        let outs: HashSet<[i64; 3]> = out.vertices.iter().map(|v| key(v.to_array())).collect();
        assert!(kept.is_subset(&outs), "{name}: a kept vertex moved or went");
        // Visible edges crossing the plane.
        let mut crossing = HashSet::new();
        for f in &input.faces {
            for k in 0..3 {
                if f.flags & (1 << k) == 0 {
                    continue;
                }
                let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
                let (da, db) = (
                    dist(input.vertices[a as usize].to_array()),
                    dist(input.vertices[b as usize].to_array()),
                );
                if (da > eps && db < -eps) || (da < -eps && db > eps) {
                    crossing.insert((a.min(b), a.max(b)));
                }
            }
        }
        let on_plane_input = input
            .vertices
            .iter()
            .filter(|v| dist(v.to_array()).abs() <= eps)
            .count();
        let mut new = 0;
        for v in &out.vertices {
            let d = dist(v.to_array());
            assert!(d > -eps, "{name}: vertex {v:?} below the plane by {d}");
            if !kept.contains(&key(v.to_array())) {
                assert!(
                    d.abs() <= eps,
                    "{name}: new vertex {v:?} off the plane by {d}"
                );
                new += 1;
            }
        }
        eprintln!(
            "{name}: {} → {} vertices, {} kept, {removed} removed, {new} on the plane ({} crossing visible edges, {on_plane_input} input vertices on it), size {size}",
            input.vertices.len(),
            out.vertices.len(),
            kept.len(),
            crossing.len()
        );
        assert_eq!(new, crossing.len() + on_plane_input, "{name}");
        checked += 1;
    }
    assert_eq!(checked, 1);
}
