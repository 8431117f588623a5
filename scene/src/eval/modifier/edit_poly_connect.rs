//! Edit Poly's Connect Edge (`IMNMeshUtilities8::ConnectEdges`): each selected
//! edge is divided into segments + 1 equal parts, and across every polygon
//! holding exactly two selected edges the new vertices are joined pairwise.
//!
//! Order, as MNMesh appends: the selected edges in index order are split one
//! after the other (`MNMesh::SplitEdge` per new vertex, from the edge's v1:
//! the edge keeps v1 → first new vertex, the rest are appended), then the
//! polygons in index order are cut, each connecting edge and the polygon part
//! it cuts off appended as Connect Vertex does (`edit_poly_edges`). With one
//! segment, slide moves the cuts along their edges, the connections staying
//! parallel to their sides (`slide_fractions`), and pinch changes nothing
//! (blockout 3ds' Box001: pinch 100, the cut point as slide alone puts it);
//! with more segments pinch and slide move the new vertices off the even
//! spacing in a way not derived here, so only their zero values are
//! evaluated. Three or more selected edges on one polygon (which Max joins
//! through the polygon in an order not derived) are refused.

use super::edit_poly_edges::{insert_vertices, split_face};
use super::edit_poly_topo::selected_indices;
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
    // Max raises a segment count below 1 to 1 before connecting.
    let segments = segments.max(1);
    if segments > 1 && (pinch != 0 || slide != 0) {
        return Err(EvalError::not_evaluated(format!(
            "connecting edges with {segments} segments, pinch {pinch} and slide {slide}"
        )));
    }
    if !(-100..=100).contains(&slide) {
        return Err(EvalError::malformed("", format!("connect slide {slide}")));
    }
    if segments > MAX_SEGMENTS {
        return Err(EvalError::malformed("", format!("{segments} segments")));
    }
    let s = segments as usize;
    let count = poly.mn_edges()?.len();
    let chosen = selected_indices(sel, count, "edges")?;
    if chosen.is_empty() {
        return Ok(());
    }
    let first_new = poly.vertices.len();
    let slid = if slide != 0 {
        Some(slide_fractions(poly, &chosen, slide)?)
    } else {
        None
    };
    // Per selected edge, its new vertices from its v1; the k-th split cuts the
    // remaining (appended) part at 1 / (s − k) of its length.
    let mut chains: Vec<Vec<u32>> = Vec::with_capacity(chosen.len());
    for (ci, &e) in chosen.iter().enumerate() {
        let mut chain = Vec::with_capacity(s);
        let mut edge = e;
        for k in 0..s {
            let nv = u32::try_from(poly.vertices.len())
                .map_err(|_| EvalError::limit("vertices", u32::MAX))?;
            let t = match &slid {
                Some(t) => t[ci],
                None => 1.0 / (s - k + 1) as f64,
            };
            insert_vertices(poly, &[(edge as u32, t)])?;
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

/// Where one segment with `slide` cuts each chosen edge, from its v1: the
/// connections stay parallel to their sides. The lowest edge of each ring
/// (edges joined through polygons holding two of them) is cut at
/// 0.5 + slide / 200 from its v1; across a polygon the other edge is cut as
/// far along the polygon's walk from its far end. Pinned by two connections
/// in Buwaka/Level-editing-2 (Max 2019): blockout 3ds' Box001 (edges 2 and 5,
/// slide 35), where the Cut after it starts at the recorded point of vertex
/// 9, 0.325 from edge 5's v1, and blockout 8's Box019 (edges 4 and 6, slide
/// -53), whose connection in level.FBX runs across the top at one x.
fn slide_fractions(poly: &PolyMesh, chosen: &[usize], slide: i32) -> Result<Vec<f64>, EvalError> {
    let edges = poly.mn_edges()?;
    let at: std::collections::HashMap<(u32, u32), usize> = chosen
        .iter()
        .enumerate()
        .map(|(ci, &e)| {
            let [a, b] = edges[e];
            ((a.min(b), a.max(b)), ci)
        })
        .collect();
    // Per polygon with two chosen sides: (chosen index, walked from v1) each.
    let mut across: Vec<Vec<(usize, bool, bool)>> = vec![Vec::new(); chosen.len()];
    for f in &poly.faces {
        let n = f.v.len();
        let sides: Vec<(usize, bool)> = (0..n)
            .filter_map(|j| {
                let (a, b) = (f.v[j], f.v[(j + 1) % n]);
                at.get(&(a.min(b), a.max(b)))
                    .map(|&ci| (ci, edges[chosen[ci]][0] == a))
            })
            .collect();
        if let [(x, fx), (y, fy)] = sides[..] {
            across[x].push((y, fx, fy));
            across[y].push((x, fy, fx));
        }
    }
    let mut t: Vec<Option<f64>> = vec![None; chosen.len()];
    for start in 0..chosen.len() {
        if t[start].is_some() {
            continue;
        }
        t[start] = Some(0.5 + f64::from(slide) / 200.0);
        let mut todo = vec![start];
        while let Some(x) = todo.pop() {
            let tx = t[x].unwrap_or(0.5);
            for &(y, fx, fy) in &across[x] {
                // Along the polygon's walk: x is cut at w, y at 1 − w.
                let w = if fx { tx } else { 1.0 - tx };
                let ty = if fy { 1.0 - w } else { w };
                match t[y] {
                    None => {
                        t[y] = Some(ty);
                        todo.push(y);
                    }
                    Some(old) if (old - ty).abs() > 1e-9 => {
                        return Err(EvalError::not_evaluated(format!(
                            "a slid connection round a ring whose edges disagree (edge {})",
                            chosen[y]
                        )));
                    }
                    Some(_) => {}
                }
            }
        }
    }
    Ok(t.into_iter().map(|x| x.unwrap_or(0.5)).collect())
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
    fn one_slid_segment_stays_parallel_to_the_sides() {
        // Bottom 0 → 1 and top 4 → 3 of the left quad run opposite ways: the
        // lower edge (0) is cut at 0.5 + 30 / 200 from its v1, the top one as
        // far along the face's walk from its far end, so at the same x.
        let mut m = grid();
        connect_edges(&mut m, &sel(7, &[0, 2]), 1, 0, 30).expect("connect");
        assert!(
            (m.vertices[6].0 - 0.65).abs() < 1e-12,
            "{:?}",
            m.vertices[6]
        );
        assert!(
            (m.vertices[7].0 - 0.65).abs() < 1e-12,
            "{:?}",
            m.vertices[7]
        );
        assert_eq!(m.vertices[7].1, 1.0);
        // Pinch changes nothing with one segment.
        let mut pinched = grid();
        connect_edges(&mut pinched, &sel(7, &[0, 2]), 1, 100, 30).expect("connect");
        assert_eq!(pinched, m);
        // A ring across both quads (edges 0, 2 on the left, 4, 6 on the
        // right; 0 → 1, 1 → 2 at the bottom, 4 → 3, 5 → 4 at the top): each
        // connection stays vertical.
        let mut ring = grid();
        connect_edges(&mut ring, &sel(7, &[0, 2, 4, 6]), 1, 0, -40).expect("connect");
        let xs: Vec<f64> = ring.vertices[6..].iter().map(|v| v.0).collect();
        for (got, want) in xs.iter().zip([0.3, 0.3, 1.3, 1.3]) {
            assert!((got - want).abs() < 1e-12, "{xs:?}");
        }
    }

    #[test]
    fn unknown_variants_are_refused() {
        assert!(connect_edges(&mut grid(), &sel(7, &[0, 2]), 2, 10, 0).is_err());
        assert!(connect_edges(&mut grid(), &sel(7, &[0, 2]), 3, 0, -5).is_err());
        assert!(connect_edges(&mut grid(), &sel(7, &[0, 2]), 1, 0, 101).is_err());
        // Three selected sides of one quad.
        assert!(connect_edges(&mut grid(), &sel(7, &[0, 2, 3]), 1, 0, 0).is_err());
        // A selection sized to another mesh.
        assert!(connect_edges(&mut grid(), &sel(5, &[0]), 1, 0, 0).is_err());
        let mut unknown = grid();
        unknown.edges = None;
        assert!(connect_edges(&mut unknown, &sel(7, &[0, 2]), 1, 0, 0).is_err());
    }
}
