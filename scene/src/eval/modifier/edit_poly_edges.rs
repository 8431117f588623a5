//! Edit Poly operations that select edges by MNMesh's edge numbering
//! (`PolyMesh::edges`) or add edges: Insert Vertex Edge (`MNMesh::SplitEdge`
//! per recorded edge and proportion) and Connect Vertex (a face with two
//! selected corners that no side joins is split by a new edge between them).
//! Both append what they create, as MNMesh does: the new vertex and the new
//! half of a split edge after the existing ones, the connecting edge and the
//! second part of a split face likewise.

use super::edit_poly_topo::check_selection;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// Splits each recorded edge at its proportion from the edge's first vertex,
/// in record order (an edge a previous split made may be split again): a new
/// vertex is appended, the edge keeps its first half (v1 → new) and the second
/// half (new → v2) is appended as a new edge; every face on the edge takes the
/// new vertex between the two corners, the triangle on that side being split
/// in two. Map channels get one new map vertex per distinct pair of map
/// vertices on the edge's sides, interpolated the same way (not verified: no
/// corpus reference reaches these maps).
pub(super) fn insert_vertices(
    poly: &mut PolyMesh,
    inserts: &[(u32, f64)],
) -> Result<(), EvalError> {
    for &(e, t) in inserts {
        if !t.is_finite() {
            return Err(EvalError::malformed(
                "",
                format!("proportion {t} on edge {e}"),
            ));
        }
        let edges = poly.mn_edges()?;
        let [a, b] = *edges
            .get(e as usize)
            .ok_or_else(|| EvalError::malformed("", format!("edge {e} of {}", edges.len())))?;
        let pa = poly.vertices[a as usize];
        let pb = poly.vertices[b as usize];
        let nv = u32::try_from(poly.vertices.len())
            .map_err(|_| EvalError::limit("vertices", u32::MAX))?;
        poly.vertices.push(pa.plus(pb.minus(pa).scale(t)));
        let mut on_edge = 0;
        // Per map channel, the map vertex made for each (start, end) map pair.
        // Keyed in the edge's direction, so both faces on an unbroken map edge
        // share the new map vertex.
        let mut made: Vec<Vec<((u32, u32), u32)>> = vec![Vec::new(); poly.maps.len()];
        for fi in 0..poly.faces.len() {
            let f = &poly.faces[fi];
            let n = f.v.len();
            let Some(j) = (0..n).find(|&j| {
                let (x, y) = (f.v[j], f.v[(j + 1) % n]);
                (x, y) == (a, b) || (x, y) == (b, a)
            }) else {
                continue;
            };
            on_edge += 1;
            let forward = f.v[j] == a;
            insert_corner(&mut poly.faces[fi], j, nv)?;
            for (mi, m) in poly.maps.iter_mut().enumerate() {
                let mf = m.face(fi)?;
                // The map vertices at the edge's v1 and v2 on this side.
                let (x, y) = (mf[j], mf[(j + 1) % n]);
                let key = if forward { (x, y) } else { (y, x) };
                let mv = match made[mi].iter().find(|(k, _)| *k == key) {
                    Some(&(_, mv)) => mv,
                    None => {
                        let (px, py) = (m.vertices[key.0 as usize], m.vertices[key.1 as usize]);
                        let mv = u32::try_from(m.vertices.len())
                            .map_err(|_| EvalError::limit("map vertices", u32::MAX))?;
                        let s = t as f32;
                        m.vertices
                            .push([0, 1, 2].map(|k| px[k] + (py[k] - px[k]) * s));
                        made[mi].push((key, mv));
                        mv
                    }
                };
                m.faces[fi].insert(j + 1, mv);
            }
        }
        if on_edge == 0 {
            return Err(EvalError::malformed(
                "",
                format!("edge {e} ({a}, {b}) is on no face"),
            ));
        }
        let edges = poly
            .edges
            .as_mut()
            .ok_or_else(|| EvalError::malformed("", "edge list lost"))?;
        edges[e as usize] = [a, nv];
        edges.push([nv, b]);
    }
    poly.validate()
}

/// Inserts vertex `nv` after corner `j` of `f`; the triangle holding side
/// (j, j + 1) is split into (j, new, k) and (new, j + 1, k), k its third
/// corner.
fn insert_corner(f: &mut PolyFace, j: usize, nv: u32) -> Result<(), EvalError> {
    let n = f.v.len();
    let (s, e) = (j, (j + 1) % n);
    let ti = f
        .tris
        .iter()
        .position(|t| (0..3).any(|k| t[k] == s && t[(k + 1) % 3] == e))
        .ok_or_else(|| EvalError::malformed("", "a face side in none of its triangles"))?;
    let t = f.tris[ti];
    let k = (0..3).find(|&k| t[k] == s).unwrap_or(0);
    let third = t[(k + 2) % 3];
    // Corners after j move up by one; the new corner is j + 1.
    let up = |c: usize| if c > j { c + 1 } else { c };
    let mut tris: Vec<[usize; 3]> = f.tris.iter().map(|t| t.map(up)).collect();
    tris[ti] = [up(s), j + 1, up(third)];
    tris.push([j + 1, up(e), up(third)]);
    f.v.insert(j + 1, nv);
    f.tris = tris;
    Ok(())
}

/// Connects selected vertices across the faces they share: a face with exactly
/// two selected corners that no side joins is split along the new edge between
/// them, appended to the edge list. With i < j those corners, the part from
/// corner j round to corner i keeps the face's index, and the part from i to j
/// is appended as a new face with the same material and smoothing — read off
/// Shotgun.max's Shell, whose Delete Face after two rings of Insert Vertex
/// Edge + Connect Vertex then removes the middle band of its cylinder, leaving
/// the two pieces its next Edit Poly caps twice (the other way round it would
/// remove the bottom band and leave the bottom cap floating). The kept part
/// starts at the face's first corner (0‥i, j‥), the new one at corner i, as
/// Table.max's Unwrap UVW cache shows (all 258 polygons at Max's index from
/// Max's first corner). A face with more
/// than two selected corners is refused (the order in which Max cuts it is not
/// known).
pub(super) fn connect_vertices(poly: &mut PolyMesh, sel: &[bool]) -> Result<(), EvalError> {
    check_selection(sel, poly.vertices.len(), "vertices")?;
    let is = |v: u32| sel.get(v as usize).copied().unwrap_or(false);
    let nf = poly.faces.len();
    for fi in 0..nf {
        let f = &poly.faces[fi];
        let n = f.v.len();
        let corners: Vec<usize> = (0..n).filter(|&c| is(f.v[c])).collect();
        if corners.len() < 2 {
            continue;
        }
        if corners.len() > 2 {
            return Err(EvalError::malformed(
                "",
                format!(
                    "face {fi} has {} selected corners (only two are evaluated)",
                    corners.len()
                ),
            ));
        }
        let (i, j) = (corners[0], corners[1]);
        if j == i + 1 || (i == 0 && j == n - 1) {
            continue;
        }
        split_face(poly, fi, i, j)?;
    }
    poly.validate()
}

/// Splits face `fi` along a new edge between its corners `i` < `j` (not
/// neighbours): corners 0‥i, j‥ keep the face's index, i‥j are appended as a new
/// face with the same material and smoothing (returned), both in the face's
/// corner order; map faces alike; the new edge is appended to the edge list.
pub(super) fn split_face(
    poly: &mut PolyMesh,
    fi: usize,
    i: usize,
    j: usize,
) -> Result<usize, EvalError> {
    let f = &poly.faces[fi];
    let n = f.v.len();
    if !(i < j && j < n) {
        return Err(EvalError::malformed(
            "",
            format!("splitting face {fi} of {n} corners at {i}, {j}"),
        ));
    }
    // The kept part starts at the face's first corner, as Table's Unwrap
    // cache shows.
    let keep: Vec<usize> = (0..=i).chain(j..n).collect();
    let rest: Vec<usize> = (i..=j).collect();
    let (va, vb) = (f.v[i], f.v[j]);
    let (material, smoothing) = (f.material, f.smoothing);
    let pick = |corners: &[usize], of: &[u32]| corners.iter().map(|&c| of[c]).collect::<Vec<_>>();
    let first = PolyFace::fan(pick(&keep, &f.v), material, smoothing);
    let second = PolyFace::fan(pick(&rest, &f.v), material, smoothing);
    poly.faces[fi] = first;
    poly.faces.push(second);
    for m in &mut poly.maps {
        let mf = m.face(fi)?.clone();
        m.faces[fi] = pick(&keep, &mf);
        m.faces.push(pick(&rest, &mf));
    }
    if let Some(edges) = poly.edges.as_mut() {
        edges.push([va, vb]);
    }
    Ok(poly.faces.len() - 1)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;

    /// Two unit quads sharing the edge 1–4 (vertices 0 1 2 / 3 4 5 in a 2×1
    /// grid), edges numbered as `FillInMesh` walks them: 0 (0,1), 1 (1,4),
    /// 2 (4,3), 3 (3,0), 4 (1,2), 5 (2,5), 6 (5,4).
    pub(in crate::eval::modifier) fn grid() -> PolyMesh {
        let mut m = PolyMesh {
            vertices: (0..6)
                .map(|i| Vec3(f64::from(i % 3), f64::from(i / 3), 0.0))
                .collect(),
            faces: vec![
                PolyFace::fan(vec![0, 1, 4, 3], 0, 1),
                PolyFace::fan(vec![1, 2, 5, 4], 0, 1),
            ],
            maps: Vec::new(),
            edges: None,
            normals: None,
        };
        m.edges = Some(m.walked_edges());
        m
    }

    #[test]
    fn split_edges_append_vertices_and_halves() {
        let mut m = grid();
        // Edge 1 is 1 → 4 (shared), edge 6 is 5 → 4.
        insert_vertices(&mut m, &[(1, 0.25), (6, 0.5)]).expect("splits");
        assert_eq!(m.vertices[6], Vec3(1.0, 0.25, 0.0));
        assert_eq!(m.vertices[7], Vec3(1.5, 1.0, 0.0));
        assert_eq!(m.faces[0].v, [0, 1, 6, 4, 3]);
        assert_eq!(m.faces[1].v, [1, 2, 5, 7, 4, 6]);
        let edges = m.edges.as_ref().expect("edges");
        assert_eq!(edges[1], [1, 6]);
        assert_eq!(edges[6], [5, 7]);
        assert_eq!(&edges[7..], [[6, 4], [7, 4]]);
        m.validate().expect("valid");
        assert_eq!(m.to_mesh().expect("mesh").faces.len(), 3 + 4);
        // An edge beyond the list, a mesh without a known numbering.
        assert!(insert_vertices(&mut m, &[(99, 0.5)]).is_err());
        m.edges = None;
        assert!(insert_vertices(&mut m, &[(0, 0.5)]).is_err());
    }

    #[test]
    fn connect_splits_faces_between_two_selected_corners() {
        let mut m = grid();
        insert_vertices(&mut m, &[(0, 0.5), (4, 0.5)]).expect("splits");
        // New vertices 6 on 0–1 and 7 on 1–2; connecting 6, 7 and 4.
        let mut sel = vec![false; 8];
        for v in [4, 6, 7] {
            sel[v] = true;
        }
        connect_vertices(&mut m, &sel).expect("connects");
        assert_eq!(m.faces.len(), 4);
        assert_eq!(m.faces[0].v, [0, 6, 4, 3]);
        assert_eq!(m.faces[2].v, [6, 1, 4]);
        assert_eq!(m.faces[1].v, [1, 7, 4]);
        assert_eq!(m.faces[3].v, [7, 2, 5, 4]);
        assert_eq!(m.edges.as_ref().map(Vec::len), Some(9 + 2));
        let total = m.walked_edges().len();
        assert_eq!(total, 11);
        // Three selected corners on one face (0, 4 and 6 on face 0) are
        // refused.
        let mut sel = vec![false; 8];
        for v in [0, 4, 6] {
            sel[v] = true;
        }
        assert!(connect_vertices(&mut m, &sel).is_err());
    }
}
