//! Edit Poly's Extrude Edge (operation 40) on open borders with no base width:
//! each selected border edge grows a wall quad out of the surface, along the
//! normal of the face it borders (the sum of those normals, unit, where two
//! selected edges meet), by the height.
//!
//! The border vertices keep their indices and move out: they are the new
//! border, which stays selected. Each, when first met taking the selected
//! edges in index order, gets an appended vertex at its old position, which
//! the faces around it take instead. Each edge (a → b as its face runs it)
//! appends the wall [b', a', a, b] with its face's material and no smoothing
//! group; the walls' new edges are numbered after the old ones in walk order.
//! Evidence, on Chair.max's LowerChairBody (three extrusions of closed border
//! loops, 20, 20 and 60 edges, height 1.1811): the sizes the modifier saved
//! (885 vertices, 1652 edges, 768 faces after five Connect Vertex); the
//! Transforms Max recorded after each extrusion move the loops' input indices
//! (a radial scale of the new border) and none of the appended ones; the
//! input box the Edit Poly above saved (0x2511) equals our output's to the
//! last float bit, which only this assignment gives (its lowest vertex
//! carries the third Transform's 9.5e-7 in z). The walls' corner order and
//! the edge numbering are not pinned by a reference.
//!
//! A single border edge (no selected neighbour) also gets, per end, a copy on
//! the border side that the other face there takes too (its corner cut in
//! two), and a triangle closing the wall's end: Key.max's one edge gave Max 4
//! vertices, 7 edges and 3 faces more (walls alone: 2, 3, 1), and the five
//! edges reaching the moved vertices are the ones its last saved edge
//! selection names (docs/max-format.md). An edge inside the mesh, a base
//! width, a vertex on three selected edges, an open chain of several edges or
//! a single edge's end elsewhere than on two faces is refused by name.

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

use super::edit_poly_topo::{check_selection, known_edges, required_normal, side_faces};

/// Extrudes the selected border edges by `height` (width 0 only).
pub(super) fn extrude_border_edges(
    poly: &mut PolyMesh,
    sel: &[bool],
    height: f64,
    width: f64,
) -> Result<(), EvalError> {
    let edges = known_edges(poly)?;
    check_selection(sel, edges.len(), "edges")?;
    if width != 0.0 {
        return Err(EvalError::not_evaluated(format!(
            "a base width ({width}) is not replayed"
        )));
    }
    let side_face = side_faces(poly);
    let chosen: Vec<usize> = (0..edges.len())
        .filter(|&i| sel.get(i).copied().unwrap_or(false))
        .collect();
    let mut walls = Vec::with_capacity(chosen.len());
    for &e in &chosen {
        let [a, b] = edges[e];
        if side_face.contains_key(&(b, a)) {
            return Err(EvalError::not_evaluated(format!(
                "edge {e} is inside the mesh; only open borders are replayed"
            )));
        }
        let &(fi, j) = side_face
            .get(&(a, b))
            .ok_or_else(|| EvalError::malformed("", format!("edge {e} is no side of a face")))?;
        walls.push((a, b, fi, j));
    }
    let mut new_of = std::collections::HashMap::new();
    let mut order = Vec::new();
    let mut uses = std::collections::HashMap::new();
    for &(a, b, _, _) in &walls {
        for v in [a, b] {
            *uses.entry(v).or_insert(0u32) += 1;
            if let std::collections::hash_map::Entry::Vacant(e) = new_of.entry(v) {
                let at = u32::try_from(poly.vertices.len() + order.len())
                    .map_err(|_| EvalError::limit("vertices", u32::MAX))?;
                e.insert(at);
                order.push(v);
            }
        }
    }
    if let Some((v, _)) = uses.iter().find(|(_, &n)| n > 2) {
        return Err(EvalError::not_evaluated(format!(
            "three or more selected edges meet at vertex {v}; only closed loops are replayed"
        )));
    }
    // An edge alone (both ends on no other selected edge) gets a triangle
    // at each end (`end_cut`); longer open chains are not seen in the corpus.
    if let Some(&(a, b, _, _)) = walls
        .iter()
        .find(|(a, b, _, _)| (uses[a] == 1) != (uses[b] == 1))
    {
        let v = if uses[&a] == 1 { a } else { b };
        return Err(EvalError::not_evaluated(format!(
            "the selected edges end at vertex {v} (an open chain of more than one edge); only closed loops and single edges are replayed"
        )));
    }
    let mut ends = Vec::new();
    for &(a, b, fi, _) in &walls {
        if uses[&a] == 1 {
            for v in [a, b] {
                ends.push(end_cut(poly, v, fi)?);
            }
        }
    }
    let mut cut_faces = std::collections::HashSet::new();
    if let Some(e) = ends.iter().find(|e| !cut_faces.insert(e.other)) {
        return Err(EvalError::not_evaluated(format!(
            "face {} holds two single edges' ends; only one end per face is replayed",
            e.other
        )));
    }
    // Direction per vertex: the sum of its walls' face normals, unit.
    let mut dir: std::collections::HashMap<u32, Vec3> = std::collections::HashMap::new();
    for &(a, b, fi, _) in &walls {
        let nrm = required_normal(poly, &poly.faces[fi].v, format_args!("face {fi}"))?;
        for v in [a, b] {
            let d = dir.entry(v).or_default();
            *d = d.plus(nrm);
        }
    }
    // The appended vertex takes the input position and the input's faces; the
    // input index moves out and is the new border.
    let mut moved = Vec::with_capacity(order.len());
    for &v in &order {
        let d = dir.get(&v).copied().unwrap_or_default();
        let l = d.len();
        if !(l > 1e-12 && l.is_finite()) {
            return Err(EvalError::malformed(
                "",
                format!("the walls at vertex {v} have no common direction"),
            ));
        }
        let p = poly.vertices[v as usize];
        poly.vertices.push(p);
        moved.push((v, p.plus(d.scale(height / l))));
    }
    // A single edge's ends also get a copy on the border side (after all the
    // face-side copies, in the same order; not pinned: none moves later).
    let mut border_of = std::collections::HashMap::new();
    for e in &ends {
        let at = u32::try_from(poly.vertices.len())
            .map_err(|_| EvalError::limit("vertices", u32::MAX))?;
        poly.vertices.push(poly.vertices[e.v as usize]);
        border_of.insert(e.v, at);
    }
    for (v, p) in moved {
        poly.vertices[v as usize] = p;
    }
    let inner = |x: u32| new_of.get(&x).copied().unwrap_or(x);
    for f in &mut poly.faces {
        for v in &mut f.v {
            *v = inner(*v);
        }
    }
    // The other face at an end takes both copies: its corner is cut between
    // the side it shares with the extruded edge's face and its border side.
    for e in &ends {
        let g = &mut poly.faces[e.other];
        let (f, b) = (inner(e.v), border_of[&e.v]);
        let pair = if e.shared_before { [f, b] } else { [b, f] };
        let mut v = g.v.clone();
        v.splice(e.corner..=e.corner, pair);
        *g = PolyFace::fan(v, g.material, g.smoothing);
    }
    let first_new_face = poly.faces.len();
    for &(a, b, fi, _) in &walls {
        let material = poly.faces[fi].material;
        poly.faces
            .push(PolyFace::fan(vec![inner(b), inner(a), a, b], material, 0));
    }
    // The end triangles [v, then round as the wall and the cut face leave
    // room]: the wall runs v → v' at b and v' → v at a (its side [b', a', a,
    // b]), the triangle the other way, closed by the new border side.
    for e in &ends {
        let (f, b) = (inner(e.v), border_of[&e.v]);
        let material = poly.faces[e.face].material;
        let v = if e.shared_before {
            vec![e.v, b, f]
        } else {
            vec![e.v, f, b]
        };
        poly.faces.push(PolyFace::fan(v, material, 0));
    }
    for m in &mut poly.maps {
        // The outer corners copy the map vertices of the side they came from.
        let mut outer = std::collections::HashMap::new();
        for &(a, b, fi, j) in &walls {
            let mf = m.face(fi)?;
            let deg = mf.len();
            if deg != poly.faces[fi].v.len() {
                return Err(EvalError::malformed(
                    format!("map {}", m.channel),
                    "damaged map face",
                ));
            }
            let (ma, mb) = (mf[j], mf[(j + 1) % deg]);
            for (v, t) in [(a, ma), (b, mb)] {
                if let std::collections::hash_map::Entry::Vacant(e) = outer.entry(v) {
                    let uv = *m.vertices.get(t as usize).ok_or_else(|| {
                        EvalError::malformed(format!("map {}", m.channel), "damaged map face")
                    })?;
                    e.insert(
                        u32::try_from(m.vertices.len())
                            .map_err(|_| EvalError::limit("map vertices", u32::MAX))?,
                    );
                    m.vertices.push(uv);
                }
            }
            m.faces.push(vec![mb, ma, outer[&a], outer[&b]]);
        }
        // An end: the cut face repeats its map vertex for both copies, the
        // triangle runs over the wall's outer one, the face's and the cut
        // face's (all at one place while the width is 0; not verified).
        for e in &ends {
            let damaged = || EvalError::malformed(format!("map {}", m.channel), "damaged map face");
            let g = m
                .face(e.other)?
                .get(e.corner)
                .copied()
                .ok_or_else(damaged)?;
            let fj = poly.faces[e.face]
                .v
                .iter()
                .position(|&x| x == new_of[&e.v])
                .ok_or_else(damaged)?;
            let f = m.face(e.face)?.get(fj).copied().ok_or_else(damaged)?;
            m.face_mut(e.other)?.insert(e.corner, g);
            let o = outer[&e.v];
            m.faces.push(if e.shared_before {
                vec![o, g, f]
            } else {
                vec![o, f, g]
            });
        }
    }
    // The selected edges stay the (outer) border; the others on a moved vertex
    // follow the faces inwards; the walls' new sides are appended in walk order.
    if let Some(list) = poly.edges.as_mut() {
        for (i, e) in list.iter_mut().enumerate() {
            if !sel.get(i).copied().unwrap_or(false) {
                *e = e.map(inner);
            }
        }
        // A single edge's end: the cut face's border side goes to the border
        // copy.
        for e in &ends {
            let (f, b) = (inner(e.v), border_of[&e.v]);
            let g = &poly.faces[e.other].v;
            let n = g.len();
            // The cut face's border side runs from or to the border copy.
            let k = g.iter().position(|&x| x == b).unwrap_or(0);
            let far = if e.shared_before {
                g[(k + 1) % n]
            } else {
                g[(k + n - 1) % n]
            };
            for x in list.iter_mut() {
                if x.contains(&f) && x.contains(&far) {
                    *x = x.map(|y| if y == f { b } else { y });
                }
            }
        }
        let mut seen: std::collections::HashSet<(u32, u32)> = list
            .iter()
            .map(|e| (e[0].min(e[1]), e[0].max(e[1])))
            .collect();
        let mut new_edges = Vec::new();
        for f in &poly.faces[first_new_face..] {
            let n = f.v.len();
            for j in 0..n {
                let (a, b) = (f.v[j], f.v[(j + 1) % n]);
                if seen.insert((a.min(b), a.max(b))) {
                    new_edges.push([a, b]);
                }
            }
        }
        // A cut side runs as the cut face (the older one) runs it.
        for e in &ends {
            let (f, b) = (inner(e.v), border_of[&e.v]);
            for x in &mut new_edges {
                if *x == [f, b] || *x == [b, f] {
                    *x = if e.shared_before { [f, b] } else { [b, f] };
                }
            }
        }
        // With single edges, the sides from a moved vertex to its copies come
        // first (Key.max's last edge selection, below); else walk order.
        if !ends.is_empty() {
            let copy = |x: u32, y: u32| new_of.get(&x) == Some(&y) || border_of.get(&x) == Some(&y);
            new_edges.sort_by_key(|&[x, y]| !(copy(x, y) || copy(y, x)));
        }
        list.extend(new_edges);
    }
    poly.validate()
}

/// Where a single extruded border edge ends at `v`: the other face there
/// (exactly one, holding the border side on at `v`) and how its corner is cut.
struct EndCut {
    v: u32,
    /// The extruded edge's face.
    face: usize,
    /// The other face at `v` and its corner there.
    other: usize,
    corner: usize,
    /// Whether the side this face shares with `face` comes before the corner
    /// (the border side after it).
    shared_before: bool,
}

/// The cut at `v`, an end of the border edge of face `face`: `v` must lie on
/// exactly one more face, which shares `face`'s other side at `v` and has a
/// border side at `v` (Key.max's ends, on a Plane's border); anything else
/// is refused.
fn end_cut(poly: &PolyMesh, v: u32, face: usize) -> Result<EndCut, EvalError> {
    let around: Vec<usize> = (0..poly.faces.len())
        .filter(|&i| poly.faces[i].v.contains(&v))
        .collect();
    let refuse = || {
        EvalError::not_evaluated(format!(
            "the single edge's end at vertex {v} lies on {} faces; only an end on two faces with one border side is replayed",
            around.len()
        ))
    };
    let &[x, y] = around.as_slice() else {
        return Err(refuse());
    };
    let other = if x == face { y } else { x };
    let g = &poly.faces[other].v;
    let n = g.len();
    let corner = g.iter().position(|&x| x == v).ok_or_else(refuse)?;
    if g.iter().filter(|&&x| x == v).count() != 1 {
        return Err(refuse());
    }
    let (prev, next) = (g[(corner + n - 1) % n], g[(corner + 1) % n]);
    let runs = |f: &[u32], p: u32, q: u32| {
        let m = f.len();
        (0..m).any(|j| f[j] == p && f[(j + 1) % m] == q)
    };
    let fv = &poly.faces[face].v;
    let shared_before = match (runs(fv, v, prev), runs(fv, next, v)) {
        (true, false) => true,
        (false, true) => false,
        _ => return Err(refuse()),
    };
    Ok(EndCut {
        v,
        face,
        other,
        corner,
        shared_before,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::{walk_edges, PolyMap};

    /// Unit quads 0-1-4-3 and 1-2-5-4 side by side in z = 0 (normal +z).
    fn strip() -> PolyMesh {
        let p = |x: f64, y: f64| Vec3(x, y, 0.0);
        let faces = vec![
            PolyFace::fan(vec![0, 1, 4, 3], 2, 1),
            PolyFace::fan(vec![1, 2, 5, 4], 3, 1),
        ];
        let edges = walk_edges(faces.iter().map(|f| f.v.as_slice()));
        PolyMesh {
            vertices: vec![
                p(0.0, 0.0),
                p(1.0, 0.0),
                p(2.0, 0.0),
                p(0.0, 1.0),
                p(1.0, 1.0),
                p(2.0, 1.0),
            ],
            faces,
            maps: vec![PolyMap {
                channel: 1,
                vertices: (0..6).map(|i| [i as f32, 0.0, 0.0]).collect(),
                faces: vec![vec![0, 1, 4, 3], vec![1, 2, 5, 4]],
            }],
            edges: Some(edges),
            normals: None,
        }
    }

    fn select(poly: &PolyMesh, sides: &[[u32; 2]]) -> Vec<bool> {
        poly.mn_edges()
            .expect("edges")
            .iter()
            .map(|e| sides.contains(e))
            .collect()
    }

    #[test]
    fn a_border_loop_moves_out_and_leaves_copies_behind() {
        let mut m = strip();
        // The whole border: edges 0 (0 → 1), 2 (4 → 3), 3 (3 → 0), 4 (1 → 2),
        // 5 (2 → 5), 6 (5 → 4); edge 1 (1 → 4) is inside.
        let sel = select(&m, &[[0, 1], [4, 3], [3, 0], [1, 2], [2, 5], [5, 4]]);
        extrude_border_edges(&mut m, &sel, 0.5, 0.0).expect("extrude");
        assert_eq!(m.vertices.len(), 12);
        // Input indices moved along the normal, copies at the old places in
        // the order the edges meet them (0, 1, 4, 3, 2, 5).
        assert_eq!(m.vertices[0], Vec3(0.0, 0.0, 0.5));
        assert_eq!(m.vertices[5], Vec3(2.0, 1.0, 0.5));
        assert_eq!(m.vertices[8], Vec3(1.0, 1.0, 0.0));
        assert_eq!(m.vertices[10], Vec3(2.0, 0.0, 0.0));
        assert_eq!(m.faces[0].v, [6, 7, 8, 9]);
        assert_eq!(m.faces[1].v, [7, 10, 11, 8]);
        assert_eq!(m.faces[2].v, [7, 6, 0, 1]);
        assert_eq!(m.faces[4].v, [6, 9, 3, 0]);
        assert_eq!(m.faces[7].v, [8, 11, 5, 4]);
        assert_eq!((m.faces[2].material, m.faces[7].material), (2, 3));
        assert_eq!(m.faces[2].smoothing, 0);
        // Map: the wall runs over the side's map vertices and their copies.
        assert_eq!(m.maps[0].faces[2], [1, 0, 6, 7]);
        assert_eq!(m.maps[0].vertices[7], [1.0, 0.0, 0.0]);
        // The selected edges stay the border; the rest follow the faces.
        let edges = m.mn_edges().expect("edges");
        assert_eq!(edges.len(), m.walked_edges().len());
        assert_eq!(edges[0], [0, 1]);
        assert_eq!(edges[1], [7, 8]);
    }

    #[test]
    fn an_open_chain_is_refused() {
        let mut m = strip();
        // The bottom border 0 → 1 → 2 ends at 0 and 2.
        let sel = select(&m, &[[0, 1], [1, 2]]);
        let err = extrude_border_edges(&mut m, &sel, 0.5, 0.0).unwrap_err();
        assert!(err.to_string().contains("open chain"), "{err}");
        assert_eq!(m, strip());
        // A single edge whose end is a corner of the mesh (on one face).
        let sel = select(&m, &[[0, 1]]);
        let err = extrude_border_edges(&mut m, &sel, 0.5, 0.0).unwrap_err();
        assert!(err.to_string().contains("lies on 1 faces"), "{err}");
        assert_eq!(m, strip());
    }

    /// Two columns by three rows of unit quads, vertices 3 per row.
    fn grid() -> PolyMesh {
        let mut faces = Vec::new();
        for r in 0..3u32 {
            for c in 0..2u32 {
                let v = 3 * r + c;
                faces.push(PolyFace::fan(vec![v, v + 1, v + 4, v + 3], 0, 1));
            }
        }
        let edges = walk_edges(faces.iter().map(|f| f.v.as_slice()));
        PolyMesh {
            vertices: (0..12)
                .map(|i| Vec3(f64::from(i % 3), f64::from(i / 3), 0.0))
                .collect(),
            maps: vec![PolyMap {
                channel: 1,
                vertices: (0..12).map(|i| [i as f32, 0.0, 0.0]).collect(),
                faces: faces.iter().map(|f| f.v.clone()).collect(),
            }],
            faces,
            edges: Some(edges),
            normals: None,
        }
    }

    #[test]
    fn a_single_border_edge_gets_a_triangle_at_each_end() {
        let mut m = grid();
        // Face 2 (3, 4, 7, 6) runs the left border 6 → 3.
        let sel = select(&m, &[[6, 3]]);
        extrude_border_edges(&mut m, &sel, 1.0, 0.0).expect("extrude");
        // Face-side copies 12 (of 6), 13 (of 3), border-side copies 14, 15;
        // the edge's vertices move along the face normal.
        assert_eq!(m.vertices.len(), 16);
        assert_eq!(m.vertices[3], Vec3(0.0, 1.0, 1.0));
        assert_eq!(m.vertices[6], Vec3(0.0, 2.0, 1.0));
        assert_eq!(m.vertices[13], Vec3(0.0, 1.0, 0.0));
        assert_eq!(m.vertices[15], Vec3(0.0, 1.0, 0.0));
        assert_eq!(m.faces[2].v, [13, 4, 7, 12]);
        // The other faces at the ends are cut between their two sides.
        assert_eq!(m.faces[0].v, [0, 1, 4, 13, 15]);
        assert_eq!(m.faces[4].v, [14, 12, 7, 10, 9]);
        assert_eq!(m.faces[0].tris.len(), 3);
        assert_eq!(m.faces[6].v, [13, 12, 6, 3]);
        assert_eq!(m.faces[7].v, [6, 12, 14]);
        assert_eq!(m.faces[8].v, [3, 15, 13]);
        assert_eq!((m.faces[7].smoothing, m.faces.len()), (0, 9));
        // One surface: every side run once, or once each way.
        let mut runs = std::collections::HashSet::new();
        for f in &m.faces {
            for j in 0..f.v.len() {
                assert!(runs.insert((f.v[j], f.v[(j + 1) % f.v.len()])));
            }
        }
        // +4 vertices, +7 edges (the four from 3 and 6 to their copies
        // first), +3 faces; the border edges at the ends go to the border
        // copies.
        let edges = m.mn_edges().expect("edges");
        assert_eq!(edges.len(), 17 + 7);
        assert_eq!(edges.len(), m.walked_edges().len());
        for e in &edges[17..21] {
            assert!(e.contains(&3) || e.contains(&6), "{e:?}");
        }
        assert!(edges.contains(&[15, 0]) && edges.contains(&[9, 14]));
        assert!(edges.contains(&[13, 15]) && edges.contains(&[14, 12]));
        // Map: the cut corner repeats its map vertex, the triangle uses the
        // wall's outer one.
        assert_eq!(m.maps[0].faces[0], [0, 1, 4, 3, 3]);
        assert_eq!(m.maps[0].faces[8][1..], [3, 3]);
        assert_eq!(m.maps[0].faces[8][0], m.maps[0].faces[6][3]);
    }

    #[test]
    fn inner_edges_widths_and_forks_are_refused() {
        let mut m = strip();
        let sel = select(&m, &[[1, 4]]);
        let err = extrude_border_edges(&mut m, &sel, 1.0, 0.0).unwrap_err();
        assert!(err.to_string().contains("inside the mesh"), "{err}");
        let mut m = strip();
        let sel = select(&m, &[[0, 1]]);
        let err = extrude_border_edges(&mut m, &sel, 1.0, 0.5).unwrap_err();
        assert!(err.to_string().contains("base width"), "{err}");
        // A selection sized to another mesh.
        assert!(extrude_border_edges(&mut strip(), &[true; 3], 1.0, 0.0).is_err());
        // Without Max's edge numbering the selection cannot be read.
        let mut m = strip();
        m.edges = None;
        assert!(extrude_border_edges(&mut m, &[true; 7], 1.0, 0.0).is_err());
    }
}
