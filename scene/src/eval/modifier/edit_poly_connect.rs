//! Edit Poly's Connect Edge (`IMNMeshUtilities8::ConnectEdges`): each selected
//! edge is divided into segments + 1 equal parts, and across every polygon
//! holding exactly two selected edges the new vertices are joined pairwise.
//!
//! Order, as MNMesh appends: the selected edges in index order are split one
//! after the other (`MNMesh::SplitEdge` per new vertex, from the edge's v1:
//! the edge keeps v1 → first new vertex, the rest are appended), then the
//! polygons in index order are cut, each connecting edge and the polygon part
//! it cuts off appended as Connect Vertex does (`edit_poly_edges`). Pinch and
//! slide move the new vertices off the even spacing in a way not derived here,
//! so only their zero values are evaluated; three or more selected edges on
//! one polygon (which Max joins through the polygon in an order not derived)
//! are refused.

use super::edit_poly_edges::{insert_vertices, split_face};
use super::edit_poly_topo::check_selection;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

/// Segments evaluated at most per edge (a damaged count must not allocate much).
const MAX_SEGMENTS: i32 = 1 << 12;

/// Connects the selected edges with `segments` new edges each.
pub(super) fn connect_edges(
    poly: &mut PolyMesh,
    sel: &[bool],
    segments: i32,
    pinch: i32,
    slide: i32,
) -> Result<(), EvalError> {
    if pinch != 0 || slide != 0 {
        return Err(EvalError::not_evaluated(format!(
            "connecting edges with pinch {pinch} and slide {slide}"
        )));
    }
    // Max raises a segment count below 1 to 1 before connecting.
    let segments = segments.max(1);
    if segments > MAX_SEGMENTS {
        return Err(EvalError::malformed("", format!("{segments} segments")));
    }
    let s = segments as usize;
    let count = poly.mn_edges()?.len();
    check_selection(sel, count, "edges")?;
    let chosen: Vec<usize> = (0..count)
        .filter(|&e| sel.get(e).copied().unwrap_or(false))
        .collect();
    if chosen.is_empty() {
        return Ok(());
    }
    let first_new = poly.vertices.len();
    // Per selected edge, its new vertices from its v1; the k-th split cuts the
    // remaining (appended) part at 1 / (s − k) of its length.
    let mut chains: Vec<Vec<u32>> = Vec::with_capacity(chosen.len());
    for &e in &chosen {
        let mut chain = Vec::with_capacity(s);
        let mut edge = e;
        for k in 0..s {
            let nv = u32::try_from(poly.vertices.len())
                .map_err(|_| EvalError::limit("vertices", u32::MAX))?;
            insert_vertices(poly, &[(edge as u32, 1.0 / (s - k + 1) as f64)])?;
            chain.push(nv);
            edge = poly.mn_edges()?.len() - 1;
        }
        chains.push(chain);
    }
    // The chain (selected edge) each new vertex belongs to, and its place in it.
    let mut owner = vec![None; poly.vertices.len() - first_new];
    for (ci, chain) in chains.iter().enumerate() {
        for (k, &v) in chain.iter().enumerate() {
            owner[v as usize - first_new] = Some((ci, k));
        }
    }
    let of = |v: u32| -> Option<(usize, usize)> {
        (v as usize)
            .checked_sub(first_new)
            .and_then(|i| owner.get(i).copied().flatten())
    };
    let nf = poly.faces.len();
    for fi in 0..nf {
        let mut on: Vec<usize> = poly.faces[fi]
            .v
            .iter()
            .filter_map(|&v| of(v).map(|(c, _)| c))
            .collect();
        on.sort_unstable();
        on.dedup();
        match on.len() {
            0 | 1 => continue,
            2 => {}
            n => {
                return Err(EvalError::not_evaluated(format!(
                    "connecting {n} edges of one polygon (face {fi})"
                )))
            }
        }
        let (a, b) = (&chains[on[0]], &chains[on[1]]);
        // Going round the face, one chain is met from its v1 end and the other
        // from its v2 end, or both the same way when the edges run opposite:
        // pair the vertices that face each other across the polygon.
        let corner =
            |poly: &PolyMesh, f: usize, v: u32| poly.faces[f].v.iter().position(|&x| x == v);
        let a_forward = if s > 1 {
            let i0 = corner(poly, fi, a[0]).unwrap_or(0);
            let i1 = corner(poly, fi, a[1]).unwrap_or(0);
            (i0 + 1) % poly.faces[fi].v.len() == i1
        } else {
            true
        };
        let b_forward = if s > 1 {
            let i0 = corner(poly, fi, b[0]).unwrap_or(0);
            let i1 = corner(poly, fi, b[1]).unwrap_or(0);
            (i0 + 1) % poly.faces[fi].v.len() == i1
        } else {
            true
        };
        let mut parts = vec![fi];
        for k in 0..s {
            let va = a[k];
            // Walking the face one way, a's k-th vertex faces b's k-th from the
            // other end of b when both chains run the same way round.
            let vb = if a_forward == b_forward {
                b[s - 1 - k]
            } else {
                b[k]
            };
            let (f, i, j) = parts
                .iter()
                .find_map(|&f| match (corner(poly, f, va), corner(poly, f, vb)) {
                    (Some(x), Some(y)) => Some((f, x.min(y), x.max(y))),
                    _ => None,
                })
                .ok_or_else(|| {
                    EvalError::malformed("", format!("face {fi}: connected vertices apart"))
                })?;
            let n = poly.faces[f].v.len();
            if j == i + 1 || (i == 0 && j == n - 1) {
                return Err(EvalError::malformed(
                    "",
                    format!("face {fi}: connecting two neighbouring corners"),
                ));
            }
            parts.push(split_face(poly, f, i, j)?);
        }
    }
    poly.validate()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;

    use super::super::edit_poly_edges::tests::grid;

    fn sel(n: usize, on: &[usize]) -> Vec<bool> {
        (0..n).map(|i| on.contains(&i)).collect()
    }

    #[test]
    fn one_segment_splits_the_face_between_the_midpoints() {
        let mut m = grid();
        // The bottom and top sides of the left quad.
        connect_edges(&mut m, &sel(7, &[0, 2]), 1, 0, 0).expect("connect");
        assert_eq!(m.vertices[6], Vec3(0.5, 0.0, 0.0));
        assert_eq!(m.vertices[7], Vec3(0.5, 1.0, 0.0));
        assert_eq!(m.faces.len(), 3);
        assert_eq!(m.faces[0].v, [0, 6, 7, 3]);
        assert_eq!(m.faces[2].v, [6, 1, 4, 7]);
        let edges = m.edges.as_ref().expect("edges");
        assert_eq!(edges.len(), 7 + 2 + 1);
        assert_eq!(edges[9], [6, 7]);
        assert_eq!(m.walked_edges().len(), 10);
    }

    #[test]
    fn segments_pair_the_vertices_across_the_face() {
        let mut m = grid();
        // Bottom (0 → 1) and top (4 → 3) of the left quad run opposite ways.
        connect_edges(&mut m, &sel(7, &[0, 2]), 3, 0, 0).expect("connect");
        assert_eq!(m.vertices.len(), 12);
        assert_eq!(m.faces.len(), 2 + 3);
        // Every connecting edge is vertical: its ends share x.
        let edges = m.edges.as_ref().expect("edges");
        assert_eq!(edges.len(), 7 + 6 + 3);
        for &[a, b] in &edges[13..] {
            let (pa, pb) = (m.vertices[a as usize], m.vertices[b as usize]);
            assert!((pa.0 - pb.0).abs() < 1e-12, "{pa:?} {pb:?}");
            assert!((pa.1 - pb.1).abs() == 1.0);
        }
        for f in &m.faces {
            assert!(f.v.len() == 4 || f.v.len() == 6, "{:?}", f.v);
        }
        m.validate().expect("valid");
    }

    #[test]
    fn unknown_variants_are_refused() {
        assert!(connect_edges(&mut grid(), &sel(7, &[0, 2]), 1, 10, 0).is_err());
        assert!(connect_edges(&mut grid(), &sel(7, &[0, 2]), 1, 0, -5).is_err());
        // Three selected sides of one quad.
        assert!(connect_edges(&mut grid(), &sel(7, &[0, 2, 3]), 1, 0, 0).is_err());
        // A selection sized to another mesh.
        assert!(connect_edges(&mut grid(), &sel(5, &[0]), 1, 0, 0).is_err());
        let mut unknown = grid();
        unknown.edges = None;
        assert!(connect_edges(&mut unknown, &sel(7, &[0, 2]), 1, 0, 0).is_err());
    }
}
