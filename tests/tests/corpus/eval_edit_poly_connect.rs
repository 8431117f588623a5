//! Edit Poly's Connect Edge and the edge numbering of a Box's polygon form,
//! against 3ds Max's own records in Table.max (Box → Edit Poly: Delete Face,
//! 2 × Connect Edge, 3 × (Insert Vertex Edge + Connect Vertex), moves, 4 ×
//! Connect Vertex, moves, Chamfer Edge, … → Symmetry → Smooth → Edit Poly →
//! Unwrap UVW). No reference holds the mesh between those operations, so
//! these are the invariants Max's records pin:
//!
//! - every operation's recorded selection is sized to the mesh the replay
//!   gives before it (vertices for Connect Vertex, faces for Delete Face,
//!   edges otherwise): 14 selections through the Chamfer Edge (43 edges),
//!   whose replay eval_edit_poly_chamfer.rs checks;
//! - the first Insert Vertex Edge's six (edge, proportion) records land in
//!   one plane (y = const) on the Box's face-walk numbering only with the
//!   edges the Delete Face left turned to follow their remaining face.

use maxfs_scene::eval::modifier::{edit_poly_operation_selection, edit_poly_output_after};
use maxfs_tests::{corpus_eval, node_index as node};

#[test]
fn table_replays_to_the_sizes_max_recorded_before_its_chamfer() {
    let eval = corpus_eval("max/max2024-rico/Table.max");
    let o = node(&eval, "Table");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let at = stack
        .iter()
        .rposition(|m| m.name == "Edit Poly")
        .expect("an Edit Poly");
    let mut connects = 0;
    let mut checked = 0;
    for k in 0.. {
        let (name, sel) = edit_poly_operation_selection(&eval, o, at, k).expect("operation");
        let poly = edit_poly_output_after(&eval, o, at, 0, k).unwrap_or_else(|e| panic!("{e}"));
        let n = if name.contains("Connect Vertex") {
            poly.vertices.len()
        } else if name.contains("Delete Face") {
            poly.faces.len()
        } else {
            poly.walked_edges().len()
        };
        if sel != 0 {
            assert_eq!(sel, n, "before operation {k}, {name}");
            checked += 1;
        }
        if name.contains("Connect Edge") {
            connects += 1;
        }
        if name.contains("Chamfer Edge") {
            assert_eq!((k, n), (17, 43));
            break;
        }
    }
    assert_eq!((connects, checked), (2, 14));
    // After the two Connect Edges (12 vertices) and the first Insert Vertex
    // Edge: its six new vertices share y.
    let poly = edit_poly_output_after(&eval, o, at, 0, 4).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(poly.vertices.len(), 18);
    let ys: Vec<f64> = poly.vertices[12..].iter().map(|v| v.1).collect();
    let (lo, hi) = ys
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &y| {
            (l.min(y), h.max(y))
        });
    assert!(hi - lo < 1e-5, "the ring's y spread {ys:?}");
    // The Connect Edges cut the top face across the middle of its long sides
    // (vertices 8, 9 halve the Box's width, vertex 1 at its +X end), then the
    // right half across the middle (10, 11).
    let x: Vec<f64> = poly.vertices[8..12].iter().map(|v| v.0).collect();
    let (x0, x1) = (poly.vertices[0].0, poly.vertices[1].0);
    let mid = (x0 + x1) / 2.0;
    let quarter = (mid + x1) / 2.0;
    for (got, want) in x.iter().zip([mid, mid, quarter, quarter]) {
        assert!((got - want).abs() < 1e-5 * (x1 - x0), "{x:?}");
    }
}
