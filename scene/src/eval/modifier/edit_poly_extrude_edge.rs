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
//! the edge numbering are not pinned by a reference. An edge inside the mesh,
//! a base width, a vertex on three selected edges or an open chain (Max adds
//! more at its ends: Key.max) is refused by name.

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

use super::edit_poly_topo::{check_selection, required_normal};

/// Extrudes the selected border edges by `height` (width 0 only).
pub(super) fn extrude_border_edges(
    poly: &mut PolyMesh,
    sel: &[bool],
    height: f64,
    width: f64,
) -> Result<(), EvalError> {
    let edges = poly
        .mn_edges()
        .map_err(|_| EvalError::not_evaluated("Max's edge numbering of the mesh is not known"))?
        .to_vec();
    check_selection(sel, edges.len(), "edges")?;
    if width != 0.0 {
        return Err(EvalError::not_evaluated(format!(
            "a base width ({width}) is not replayed"
        )));
    }
    // The face that runs each side a → b.
    let mut side_face = std::collections::HashMap::new();
    for (fi, f) in poly.faces.iter().enumerate() {
        let n = f.v.len();
        for j in 0..n {
            side_face.insert((f.v[j], f.v[(j + 1) % n]), (fi, j));
        }
    }
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
    // An open chain's ends make more than walls: Key.max's one border edge
    // gave Max 4 vertices, 7 edges and 3 faces more (its Transforms' offset
    // counts, its saved sizes), where walls alone give 2, 3 and 1.
    if let Some(v) = order.iter().find(|v| uses.get(v) == Some(&1)) {
        return Err(EvalError::not_evaluated(format!(
            "the selected edges end at vertex {v} (an open chain); only closed loops are replayed, what Max adds at a chain's ends is not derived"
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
    for (v, p) in moved {
        poly.vertices[v as usize] = p;
    }
    let inner = |x: u32| new_of.get(&x).copied().unwrap_or(x);
    for f in &mut poly.faces {
        for v in &mut f.v {
            *v = inner(*v);
        }
    }
    let first_new_face = poly.faces.len();
    for &(a, b, fi, _) in &walls {
        let material = poly.faces[fi].material;
        poly.faces
            .push(PolyFace::fan(vec![inner(b), inner(a), a, b], material, 0));
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
    }
    // The selected edges stay the (outer) border; the others on a moved vertex
    // follow the faces inwards; the walls' new sides are appended in walk order.
    if let Some(list) = poly.edges.as_mut() {
        for (i, e) in list.iter_mut().enumerate() {
            if !sel.get(i).copied().unwrap_or(false) {
                *e = e.map(inner);
            }
        }
        let mut seen: std::collections::HashSet<(u32, u32)> = list
            .iter()
            .map(|e| (e[0].min(e[1]), e[0].max(e[1])))
            .collect();
        for f in &poly.faces[first_new_face..] {
            let n = f.v.len();
            for j in 0..n {
                let (a, b) = (f.v[j], f.v[(j + 1) % n]);
                if seen.insert((a.min(b), a.max(b))) {
                    list.push([a, b]);
                }
            }
        }
    }
    poly.validate()
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
