//! Edit Poly's Clone Edge (operation 64, a Shift-move of edges; the move
//! follows as a Transform): a selected edge inside the mesh (two faces) clones
//! nothing, and a selected border edge a → b (as its face runs it) grows a
//! wall quad [b, a, a', b'] whose far side a' → b' is a copy of the edge,
//! the copies appended in vertex index order, the wall after the faces (its
//! face's material, no smoothing group), its three new edges after the old
//! ones in walk order. The Transform Max records next moves the copies.
//!
//! Evidence (Buwaka/Level-editing-2, Max 2019; docs/max-format.md): on a
//! one-quad Plane three clones of single border edges give the sizes the
//! following operations recorded (6, 8, 10 vertices in the Transforms, 7 and
//! 10 edges in the next clones' selections, 10 vertices in the Weld's):
//! +2 vertices, +3 edges, +1 face each; a Box's inner edge 11 (Box013 of the
//! level files) leaves its 8 vertices (the Transform after holds 8 offsets),
//! and Door2–6's Box002 keeps its saved 356 / 536 / 180 after a clone of an
//! inner edge. The copies' order is the Welds': after the three clones
//! (edges 1 → 3, 3 → 2, 0 → 1 of the Plane, the copies moved down apart)
//! Max's first Weld (threshold 38.6) joins copies 5 and 7 and its second 4
//! and 9 (8 before the first weld), which only index order makes copies of
//! one corner each (3, then 1); the face's walk order welds neither. Not
//! pinned: the wall's first corner and its edges' order. Border edges that share a vertex
//! (whether Max joins their walls) are refused by name, as are map channels
//! (left out, named: what Max gives the copies is not derived).

use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

use super::edit_poly_topo::{check_selection, known_edges, side_faces};

/// Clones the selected edges (see the module); returns the map channels left
/// out.
pub(super) fn clone_edges(poly: &mut PolyMesh, sel: &[bool]) -> Result<Vec<i32>, EvalError> {
    let edges = known_edges(poly)?;
    check_selection(sel, edges.len(), "edges")?;
    let side_face = side_faces(poly);
    let mut walls = Vec::new();
    for (e, &[a, b]) in edges.iter().enumerate() {
        if !sel.get(e).copied().unwrap_or(false) {
            continue;
        }
        let there = (side_face.get(&(a, b)), side_face.get(&(b, a)));
        match there {
            // Inside the mesh: nothing to clone.
            (Some(_), Some(_)) => {}
            (Some(&(f, _)), None) => walls.push((e, a, b, f)),
            (None, Some(&(f, _))) => walls.push((e, b, a, f)),
            (None, None) => {
                return Err(EvalError::malformed(
                    "",
                    format!("edge {e} is no side of a face"),
                ))
            }
        }
    }
    if walls.is_empty() {
        return Ok(Vec::new());
    }
    let mut ends = std::collections::HashMap::new();
    for &(e, a, b, _) in &walls {
        for v in [a, b] {
            if let Some(other) = ends.insert(v, e) {
                return Err(EvalError::not_evaluated(format!(
                    "cloning border edges {other} and {e}, which share vertex {v} (whether Max joins their copies is not derived)"
                )));
            }
        }
    }
    let first_face = poly.faces.len();
    for &(_, a, b, f) in &walls {
        let at = u32::try_from(poly.vertices.len())
            .map_err(|_| EvalError::limit("vertices", u32::MAX))?;
        // The copies are appended in vertex index order.
        let (a2, b2) = if a < b { (at, at + 1) } else { (at + 1, at) };
        for v in [a.min(b), a.max(b)] {
            poly.vertices.push(poly.vertices[v as usize]);
        }
        let material = poly.faces[f].material;
        poly.faces
            .push(PolyFace::fan(vec![b, a, a2, b2], material, 0));
    }
    if let Some(list) = poly.edges.as_mut() {
        for w in &poly.faces[first_face..] {
            let (b, a, a2, b2) = (w.v[0], w.v[1], w.v[2], w.v[3]);
            list.extend([[a, a2], [a2, b2], [b2, b]]);
        }
    }
    let left: Vec<i32> = poly.maps.iter().map(|m| m.channel).collect();
    poly.maps.clear();
    poly.validate()?;
    Ok(left)
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
    fn a_border_edge_grows_a_wall_of_copies() {
        let mut m = grid();
        let before = m.clone();
        let edges = m.mn_edges().expect("edges").to_vec();
        // Edge 0 runs 0 → 1 on the left quad's bottom, a border.
        assert_eq!(edges[0], [0, 1]);
        let left = clone_edges(&mut m, &sel(7, &[0])).expect("clone");
        assert!(left.is_empty());
        assert_eq!(m.vertices.len(), 8);
        assert_eq!(m.vertices[6..], [Vec3(0.0, 0.0, 0.0), Vec3(1.0, 0.0, 0.0)]);
        assert_eq!(m.faces.len(), 3);
        assert_eq!(m.faces[2].v, [1, 0, 6, 7]);
        // Edge 6 runs 5 → 4 in its face: the copies still go 4 then 5.
        let mut m2 = grid();
        clone_edges(&mut m2, &sel(7, &[6])).expect("clone");
        assert_eq!(m2.vertices[6..], [m2.vertices[4], m2.vertices[5]]);
        assert_eq!(m2.faces[2].v, [4, 5, 7, 6]);
        assert_eq!(m.faces[2].smoothing, 0);
        assert_eq!(m.faces[..2], before.faces[..]);
        let e = m.edges.as_ref().expect("edges");
        assert_eq!(e.len(), 10);
        assert_eq!(e[7..], [[0, 6], [6, 7], [7, 1]]);
        assert_eq!(m.walked_edges().len(), 10);
    }

    #[test]
    fn inner_edges_clone_nothing_and_chains_are_refused() {
        let mut m = grid();
        let edges = m.mn_edges().expect("edges").to_vec();
        let inner = (0..edges.len())
            .find(|&e| {
                let [a, b] = edges[e];
                m.faces
                    .iter()
                    .filter(|f| f.v.contains(&a) && f.v.contains(&b))
                    .count()
                    == 2
            })
            .expect("the shared side");
        let before = m.clone();
        clone_edges(&mut m, &sel(7, &[inner])).expect("clone");
        assert_eq!(m, before);
        // Two border edges meeting at a corner.
        let err = clone_edges(&mut m, &sel(7, &[0, 3])).expect_err("chain");
        assert!(err.to_string().contains("share vertex"), "{err}");
        // A selection sized to another mesh, an unknown numbering.
        assert!(clone_edges(&mut grid(), &sel(5, &[0])).is_err());
        let mut unknown = grid();
        unknown.edges = None;
        assert!(clone_edges(&mut unknown, &sel(7, &[0])).is_err());
    }
}
