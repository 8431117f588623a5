//! Edit Poly's Collapse Vertex (16): each group of selected vertices joined
//! by edges becomes one vertex at the group's centre (Max's manual: "collapses
//! groups of contiguous selected sub-objects by welding them to a vertex at
//! the selection center"); a selected vertex no selected neighbour joins stays
//! (all 14 public records of one selected vertex keep the count, and the 113
//! of two or more drop it by the count less one: docs/unseen-files.md).
//!
//! The group keeps its lowest index and the others go, later indices closing
//! up (MNMesh's `CollapseDeadStructs`); which index Max keeps is not pinned
//! (no public replay reaches a collapse). Faces lose the corners that fall
//! together as in a weld (`edit_poly_topo::merge_corners`): a face left with
//! fewer than three corners dies, one that would pass the new vertex twice
//! is refused by name. The edge numbering is kept (dead edges out, the
//! survivors in order) unless two edges become one, whose surviving index is
//! not known: then it is dropped and a later edge operation refused by name.

use super::edit_poly_topo::{check_selection, merge_corners, remove_vertices, Refan};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

/// Collapse Vertex on the selected vertices.
pub(super) fn collapse(poly: &mut PolyMesh, sel: &[bool]) -> Result<(), EvalError> {
    check_selection(sel, poly.vertices.len(), "vertices")?;
    let nv = poly.vertices.len();
    let is = |v: u32| sel.get(v as usize).copied().unwrap_or(false);
    // Union-find over the sides joining two selected vertices; the root is
    // always the lowest index.
    let mut root: Vec<u32> = (0..nv as u32).collect();
    fn find(root: &mut [u32], mut v: u32) -> u32 {
        while root[v as usize] != v {
            let up = root[root[v as usize] as usize];
            root[v as usize] = up;
            v = up;
        }
        v
    }
    for f in &poly.faces {
        let n = f.v.len();
        for j in 0..n {
            let (a, b) = (f.v[j], f.v[(j + 1) % n]);
            if is(a) && is(b) {
                let (ra, rb) = (find(&mut root, a), find(&mut root, b));
                let (lo, hi) = (ra.min(rb), ra.max(rb));
                root[hi as usize] = lo;
            }
        }
    }
    let target: Vec<u32> = (0..nv as u32).map(|v| find(&mut root, v)).collect();
    if target.iter().enumerate().all(|(v, &t)| t as usize == v) {
        return Ok(());
    }
    // Each group at its centre.
    let mut sum = vec![(Vec3::default(), 0usize); nv];
    for (v, &t) in target.iter().enumerate() {
        let s = &mut sum[t as usize];
        s.0 = s.0.plus(poly.vertices[v]);
        s.1 += 1;
    }
    for (v, &(s, k)) in sum.iter().enumerate() {
        if k > 1 {
            poly.vertices[v] = s.scale(1.0 / k as f64);
        }
    }
    let edges = poly.edges.take();
    merge_corners(
        poly,
        |v| target[v as usize],
        Refan::Shrunk,
        "collapsing pinches face {fi} (a vertex twice), which",
    )?;
    poly.edges = edges.and_then(|e| renumbered(poly, &e, &target));
    let keep: Vec<bool> = (0..nv).map(|v| target[v] as usize == v).collect();
    remove_vertices(poly, &keep);
    poly.validate()
}

/// The edge list after the collapse (vertices through `target`, before the
/// gone ones close up): edges inside a group die, the others keep their order
/// and direction, turned round where no face runs them so any more. None
/// when two edges became one (which index survives is not known).
fn renumbered(poly: &PolyMesh, edges: &[[u32; 2]], target: &[u32]) -> Option<Vec<[u32; 2]>> {
    let sides = super::edit_poly_topo::directed_sides(&poly.faces);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for e in edges {
        let [a, b] = e.map(|v| target.get(v as usize).copied().unwrap_or(v));
        if a == b {
            continue;
        }
        if !seen.insert((a.min(b), a.max(b))) {
            return None;
        }
        if sides.contains(&(a, b)) {
            out.push([a, b]);
        } else if sides.contains(&(b, a)) {
            out.push([b, a]);
        }
        // An edge no face keeps (of a face that died) dies with it.
    }
    let mut check = poly.clone();
    check.edges = None;
    check.set_edges(out.clone()).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::PolyFace;

    /// A 3 × 1 strip of unit quads: vertices 0–3 along y = 0, 4–7 along y = 1.
    fn strip() -> PolyMesh {
        let mut m = PolyMesh {
            vertices: (0..8)
                .map(|i| Vec3((i % 4) as f64, (i / 4) as f64, 0.0))
                .collect(),
            faces: vec![
                PolyFace::fan(vec![0, 1, 5, 4], 0, 0),
                PolyFace::fan(vec![1, 2, 6, 5], 1, 0),
                PolyFace::fan(vec![2, 3, 7, 6], 2, 0),
            ],
            ..PolyMesh::default()
        };
        let e = m.walked_edges();
        m.set_edges(e).expect("edges");
        m
    }

    fn euler(m: &PolyMesh) -> i64 {
        m.vertices.len() as i64 - m.walked_edges().len() as i64 + m.faces.len() as i64
    }

    #[test]
    fn a_selected_edge_collapses_to_its_middle_and_later_indices_close_up() {
        let mut m = strip();
        let mut sel = [false; 8];
        sel[1] = true;
        sel[2] = true;
        collapse(&mut m, &sel).expect("collapse");
        // 8 − (2 − 1) vertices; the middle quad loses a corner, a triangle.
        assert_eq!(m.vertices.len(), 7);
        assert_eq!(m.vertices[1], Vec3(1.5, 0.0, 0.0));
        assert_eq!(m.faces[1].v, vec![1, 5, 4]);
        assert_eq!(m.faces[2].v, vec![1, 2, 6, 5]);
        // The surface keeps its Euler characteristic (a disc: 1).
        assert_eq!(euler(&m), 1);
        // Edge 1–2 died; 5 − 1 … the others keep their order.
        let edges = m.edges.clone().expect("numbering kept");
        assert_eq!(edges.len(), 9);
        assert_eq!(edges[0], [0, 1]);
    }

    #[test]
    fn single_vertices_stay_and_a_collapsed_face_dies() {
        let mut m = strip();
        let mut sel = [false; 8];
        sel[0] = true;
        sel[2] = true;
        let before = m.clone();
        collapse(&mut m, &sel).expect("collapse");
        assert_eq!(m, before);
        // The whole middle quad: one vertex, the quad dies, the edges 1–5 and
        // 2–6 … fall together and the numbering is dropped.
        let mut m = strip();
        let mut sel = [false; 8];
        for v in [1, 2, 5, 6] {
            sel[v] = true;
        }
        collapse(&mut m, &sel).expect("collapse");
        assert_eq!(m.vertices.len(), 5);
        assert_eq!(m.faces.len(), 2);
        assert_eq!(m.vertices[1], Vec3(1.5, 0.5, 0.0));
        assert_eq!(m.faces[0].v, vec![0, 1, 3]);
        assert_eq!(m.faces[1].v, vec![2, 4, 1]);
        assert_eq!(euler(&m), 1);
        // A selection not sized to the mesh is an error.
        assert!(collapse(&mut strip(), &[true; 3]).is_err());
    }
}
