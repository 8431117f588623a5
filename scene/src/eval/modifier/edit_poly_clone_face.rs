//! Edit Poly's Clone Face (operation 65, a Shift-move of faces cloned as an
//! element; the move follows as a Transform): the selected faces' vertices,
//! each once, get copies appended in vertex index order (the order Clone
//! Edge's copies are pinned to, `edit_poly_clone`), and each selected face,
//! in face order, a copy on those vertices appended after the faces (same
//! material, smoothing group and triangulation). The originals stay.
//!
//! Evidence and what is not pinned: docs/max-format.md, "Clone Face". Map
//! channels leave the mesh, named (what Max gives the copies is not
//! derived), and so does MNMesh's edge numbering.

use std::collections::BTreeMap;

use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

use super::edit_poly_topo::check_selection;

/// Clones the selected faces (see the module); returns the map channels left
/// out.
pub(super) fn clone_faces(poly: &mut PolyMesh, sel: &[bool]) -> Result<Vec<i32>, EvalError> {
    check_selection(sel, poly.faces.len(), "faces")?;
    let chosen: Vec<usize> = (0..poly.faces.len())
        .filter(|&f| sel.get(f).copied().unwrap_or(false))
        .collect();
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    let mut copy: BTreeMap<u32, u32> = chosen
        .iter()
        .flat_map(|&f| poly.faces[f].v.iter().map(|&v| (v, 0)))
        .collect();
    let base =
        u32::try_from(poly.vertices.len()).map_err(|_| EvalError::limit("vertices", u32::MAX))?;
    for (k, (v, c)) in copy.iter_mut().enumerate() {
        *c = base
            .checked_add(u32::try_from(k).map_err(|_| EvalError::limit("vertices", u32::MAX))?)
            .ok_or_else(|| EvalError::limit("vertices", u32::MAX))?;
        let p = *poly
            .vertices
            .get(*v as usize)
            .ok_or_else(|| EvalError::malformed("", format!("face corner {v} is no vertex")))?;
        poly.vertices.push(p);
    }
    for &f in &chosen {
        let face = &poly.faces[f];
        let cloned = PolyFace {
            v: face.v.iter().map(|v| copy[v]).collect(),
            tris: face.tris.clone(),
            material: face.material,
            smoothing: face.smoothing,
        };
        poly.faces.push(cloned);
    }
    poly.edges = None;
    let left: Vec<i32> = poly.maps.iter().map(|m| m.channel).collect();
    poly.maps.clear();
    poly.validate()?;
    Ok(left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;

    /// Two quads sharing the side 1–4, and a triangle apart.
    fn mesh() -> PolyMesh {
        let p = |x: f64, y: f64| Vec3(x, y, 0.0);
        PolyMesh {
            vertices: vec![
                p(0.0, 0.0),
                p(1.0, 0.0),
                p(2.0, 0.0),
                p(0.0, 1.0),
                p(1.0, 1.0),
                p(2.0, 1.0),
                p(5.0, 5.0),
            ],
            faces: vec![
                PolyFace::fan(vec![4, 3, 0, 1], 1, 2),
                PolyFace::fan(vec![1, 2, 5, 4], 3, 4),
                PolyFace::fan(vec![2, 6, 5], 0, 1),
            ],
            ..PolyMesh::default()
        }
    }

    #[test]
    fn copies_follow_in_vertex_then_face_order() {
        let mut m = mesh();
        let left = clone_faces(&mut m, &[true, true, false]).expect("clone");
        assert!(left.is_empty());
        // Vertices 0–5 copied to 7–12 in index order.
        assert_eq!(m.vertices.len(), 13);
        assert_eq!(m.vertices[7..], m.vertices[..6]);
        assert_eq!(m.faces.len(), 5);
        assert_eq!(m.faces[3].v, [11, 10, 7, 8]);
        assert_eq!(m.faces[4].v, [8, 9, 12, 11]);
        assert_eq!((m.faces[4].material, m.faces[4].smoothing), (3, 4));
        assert_eq!(m.faces[3].tris, m.faces[0].tris);
        // The originals stay.
        assert_eq!(m.faces[..3], mesh().faces[..]);
    }

    #[test]
    fn nothing_selected_changes_nothing_and_bad_selections_are_errors() {
        let mut m = mesh();
        clone_faces(&mut m, &[false, false, false]).expect("none");
        assert_eq!(m, mesh());
        assert!(clone_faces(&mut mesh(), &[true; 5]).is_err());
    }
}
