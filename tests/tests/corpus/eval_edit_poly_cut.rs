//! Edit Poly's Cut (operation 35) on Shotgun.max's RubberGrip and its copy
//! RubberGrip001 (Plane 4 × 4 → Edit Poly: 11 Transforms, a Cut of four
//! segments, Transforms → Conform → Shell → Edit Polys → Unwrap UVW), against
//! what 3ds Max recorded apart from our replay:
//!
//! - the cut's own record: its first segment starts on edge 12 at a point
//!   that lies on that edge under our Plane numbering, and each later segment
//!   starts on the vertex the one before appended (26, 27, 28), at the point
//!   recorded;
//! - the Edit Poly's saved sizes (30 vertices, 49 edges, 20 faces) and the
//!   vertex count of the Transform after the Cut (30);
//! - the Unwrap UVW at the top of the stack, whose cache keeps the Edit
//!   Poly's 20 polygons first and in order (RubberGrip: on vertices 0–29;
//!   RubberGrip001, which kept the Shell's other side: reversed, each vertex
//!   18 on): each of ours is the cached polygon's corner loop; on
//!   RubberGrip, whose stack between keeps first corners, from the same
//!   corner too, except the last segment's new part (face 19: Max's start
//!   there is not derived).

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::modifier::{edit_poly_output, edit_poly_output_after};
use maxfs_tests::{corpus_eval, le_words as words, node_index as node, unwrap_cache};

use crate::eval_edit_poly_chamfer::{local, saved_sizes, transform_counts};

/// The cut's segments as recorded (0x0238 → 0x0840): level, index, start, end.
fn cut_record(local: &Chunk) -> Vec<(u32, u32, [f64; 3], [f64; 3])> {
    let mut op = None;
    for c in local.children() {
        if c.id == 0x0230 {
            op = c.payload().map(|p| words(p)[0]);
        } else if c.id == 0x0238 && op == Some(35) {
            let p = c
                .children()
                .iter()
                .find(|x| x.id == 0x0840)
                .and_then(Chunk::payload)
                .expect("cut record");
            let w = words(p);
            let n = w[0] as usize;
            let f = |i: usize| f64::from(f32::from_bits(w[i]));
            let point = |at: usize| [f(at), f(at + 1), f(at + 2)];
            return (0..n)
                .map(|i| {
                    (
                        w[1 + i],
                        w[1 + n + i],
                        point(1 + 2 * n + 3 * i),
                        point(1 + 5 * n + 3 * i),
                    )
                })
                .collect();
        }
    }
    panic!("no Cut");
}

/// `a` and `b` are the same corner loop, whatever corner each starts on.
fn same_loop(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && (0..a.len()).any(|r| (0..a.len()).all(|k| a[(k + r) % a.len()] == b[k]))
}

fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() < 1e-6)
}

#[test]
fn rubber_grip_cuts_match_max_record_sizes_and_unwrap_cache() {
    let eval = corpus_eval("max/max2024-rico/Shotgun.max");
    // RubberGrip's Edit Poly above the Shell deleted its inner side and
    // RubberGrip001's its outer one: there the cache holds the inner copies,
    // corners reversed, each vertex 18 on (the Shell's 30 outer vertices
    // come first, of which the 12 not on the border went with their faces).
    for (name, offset, reversed) in [("RubberGrip", 0, false), ("RubberGrip001", 18, true)] {
        let o = node(&eval, name);
        let (stack, _) = eval.modifier_stack(o).expect("stack");
        let at = stack.len() - 1;
        let lower = local(&eval, o, at);
        let counts = transform_counts(lower);
        let cut = 11;
        assert_eq!(counts[cut], None, "{name}: operation {cut} is the Cut");
        let before = edit_poly_output_after(&eval, o, at, 0, cut).expect("before the cut");
        let after = edit_poly_output_after(&eval, o, at, 0, cut + 1).expect("after the cut");
        // Segment 0 starts on edge 12, which under our numbering holds the
        // recorded point; the vertices appended lie at the recorded points
        // and each later segment starts on the one before's end.
        let record = cut_record(lower);
        assert_eq!(record.len(), 4);
        let edges = before.edges.as_ref().expect("numbering");
        let [a, b] = edges[record[0].1 as usize];
        let (pa, pb) = (before.vertices[a as usize], before.vertices[b as usize]);
        let t = (record[0].2[0] - pa.0) / (pb.0 - pa.0);
        let on = [
            pa.0 + t * (pb.0 - pa.0),
            pa.1 + t * (pb.1 - pa.1),
            pa.2 + t * (pb.2 - pa.2),
        ];
        assert!(close(on, record[0].2), "{name}: {on:?} {:?}", record[0].2);
        let n0 = before.vertices.len();
        for (k, s) in record.iter().enumerate() {
            let v = after.vertices[n0 + k];
            assert!(close([v.0, v.1, v.2], s.2), "{name}: start {k}");
            let e = after.vertices[n0 + k + 1];
            assert!(close([e.0, e.1, e.2], s.3), "{name}: end {k}");
            if k > 0 {
                assert_eq!((s.0, s.1 as usize), (1, n0 + k), "{name}: segment {k}");
            }
        }
        // Max's counts: the Transform after the Cut, the saved sizes.
        assert_eq!(counts[cut + 1], Some(after.vertices.len() as u32));
        let out = edit_poly_output(&eval, o, at, 0).expect("the Edit Poly");
        let ours = [
            out.vertices.len(),
            out.walked_edges().len(),
            out.faces.len(),
        ];
        let saved: Vec<usize> = saved_sizes(lower).iter().map(|&n| n as usize).collect();
        assert_eq!(ours.as_slice(), saved.as_slice(), "{name}");
        assert_eq!(ours, [30, 49, 20]);
        // The Unwrap UVW's cache: our 20 polygons, in order.
        let (_, cached) = unwrap_cache(local(&eval, o, 0));
        for (i, f) in out.faces.iter().enumerate() {
            let mut v: Vec<u32> = f.v.iter().map(|&x| x + offset).collect();
            if reversed {
                v.reverse();
            }
            assert!(
                same_loop(&v, &cached[i].0),
                "{name}: face {i} {:?} cached {:?}",
                f.v,
                cached[i].0
            );
            if !reversed && i != 19 {
                assert_eq!(v, cached[i].0, "{name}: face {i}'s first corner");
            }
        }
    }
}
