//! Edit Poly's Clone Face (operation 65, a Shift-move of faces cloned as an
//! element; the move follows as a Transform): the selected faces' vertices,
//! each once, get copies appended in the order the selected faces first use
//! them (face order, each face from corner 0), and each selected face, in
//! face order, a copy on those vertices appended after the faces (same
//! material, smoothing group and triangulation). The originals stay. The
//! copies' order is Max's in Buwaka's level.max Plane001 (the Unwrap UVWs
//! around its Edit Poly cache its input and output: 177 vertices, 187
//! faces cloned, the Transform after moves each copy by its own offset).
//!
//! Evidence and what is not pinned: docs/max-format.md, "Clone Face". Each
//! map channel gives the copies their originals' map faces on copied map
//! vertices (`clone_map`); MNMesh's edge numbering is no longer known.

use std::collections::HashMap;

use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

use super::edit_poly_topo::check_selection;

/// Clones the selected faces (see the module); every map channel follows,
/// so none is returned as left out.
pub(super) fn clone_faces(poly: &mut PolyMesh, sel: &[bool]) -> Result<Vec<i32>, EvalError> {
    check_selection(sel, poly.faces.len(), "faces")?;
    let chosen: Vec<usize> = (0..poly.faces.len())
        .filter(|&f| sel.get(f).copied().unwrap_or(false))
        .collect();
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    // Copies in the order the selected faces first use their vertices (face
    // order, each from corner 0).
    let base =
        u32::try_from(poly.vertices.len()).map_err(|_| EvalError::limit("vertices", u32::MAX))?;
    let mut copy: HashMap<u32, u32> = HashMap::new();
    for &f in &chosen {
        for &v in &poly.faces[f].v {
            if copy.contains_key(&v) {
                continue;
            }
            let p = *poly
                .vertices
                .get(v as usize)
                .ok_or_else(|| EvalError::malformed("", format!("face corner {v} is no vertex")))?;
            let c = base
                .checked_add(
                    u32::try_from(copy.len())
                        .map_err(|_| EvalError::limit("vertices", u32::MAX))?,
                )
                .ok_or_else(|| EvalError::limit("vertices", u32::MAX))?;
            copy.insert(v, c);
            poly.vertices.push(p);
        }
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
    for m in &mut poly.maps {
        clone_map(m, &chosen)?;
    }
    poly.edges = None;
    poly.validate()?;
    Ok(Vec::new())
}

/// The copies' map faces: each selected face's map face again, on copies of
/// its map vertices appended in the order the selected map faces first use
/// them (as the geometric copies), so each copy keeps its original's
/// coordinates corner by corner.
fn clone_map(
    m: &mut crate::eval::objects::poly::PolyMap,
    chosen: &[usize],
) -> Result<(), EvalError> {
    let mut copy: HashMap<u32, u32> = HashMap::new();
    let mut faces = Vec::with_capacity(chosen.len());
    for &f in chosen {
        let mf = m.face(f)?.clone();
        let mut cloned = Vec::with_capacity(mf.len());
        for t in mf {
            let c = match copy.get(&t) {
                Some(&c) => c,
                None => {
                    let uv = *m.vertices.get(t as usize).ok_or_else(|| {
                        EvalError::malformed(format!("map {}", m.channel), "damaged map face")
                    })?;
                    let c = u32::try_from(m.vertices.len())
                        .map_err(|_| EvalError::limit("map vertices", u32::MAX))?;
                    m.vertices.push(uv);
                    copy.insert(t, c);
                    c
                }
            };
            cloned.push(c);
        }
        faces.push(cloned);
    }
    m.faces.extend(faces);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two quads sharing the side 1–4, and a triangle apart.
    fn mesh() -> PolyMesh {
        PolyMesh::planar(
            &[
                (0.0, 0.0),
                (1.0, 0.0),
                (2.0, 0.0),
                (0.0, 1.0),
                (1.0, 1.0),
                (2.0, 1.0),
                (5.0, 5.0),
            ],
            &[
                (&[4, 3, 0, 1], 1, 2),
                (&[1, 2, 5, 4], 3, 4),
                (&[2, 6, 5], 0, 1),
            ],
        )
    }

    #[test]
    fn copies_follow_in_first_use_then_face_order() {
        let mut m = mesh();
        let left = clone_faces(&mut m, &[true, true, false]).expect("clone");
        assert!(left.is_empty());
        // Vertices copied as faces 0 then 1 first use them: 4, 3, 0, 1, then
        // 2, 5 to 7–12.
        assert_eq!(m.vertices.len(), 13);
        let order = [4, 3, 0, 1, 2, 5];
        for (k, &v) in order.iter().enumerate() {
            assert_eq!(m.vertices[7 + k], m.vertices[v]);
        }
        assert_eq!(m.faces.len(), 5);
        assert_eq!(m.faces[3].v, [7, 8, 9, 10]);
        assert_eq!(m.faces[4].v, [10, 11, 12, 7]);
        assert_eq!((m.faces[4].material, m.faces[4].smoothing), (3, 4));
        assert_eq!(m.faces[3].tris, m.faces[0].tris);
        // The originals stay.
        assert_eq!(m.faces[..3], mesh().faces[..]);
    }

    #[test]
    fn the_copies_keep_their_originals_map_coordinates() {
        use crate::eval::objects::poly::PolyMap;
        let mut m = mesh();
        let uv = |u: f32| [u, 0.5, 0.0];
        m.maps = vec![PolyMap {
            channel: 1,
            vertices: (0..8).map(|k| uv(k as f32 / 8.0)).collect(),
            // Faces 0 and 1 share map vertex 1 (at vertex 1) but not 4.
            faces: vec![vec![0, 3, 2, 1], vec![1, 4, 5, 6], vec![7, 7, 7]],
        }];
        let left = clone_faces(&mut m, &[true, true, false]).expect("clone");
        assert!(left.is_empty());
        m.validate().expect("valid");
        let map = &m.maps[0];
        // Map vertices copied in first use: 0, 3, 2, 1, then 4, 5, 6.
        assert_eq!(map.vertices.len(), 8 + 7);
        for (k, t) in [0usize, 3, 2, 1, 4, 5, 6].into_iter().enumerate() {
            assert_eq!(map.vertices[8 + k], map.vertices[t]);
        }
        assert_eq!(map.faces[3], [8, 9, 10, 11]);
        assert_eq!(map.faces[4], [11, 12, 13, 14]);
        assert_eq!(
            map.faces[..3],
            [vec![0, 3, 2, 1], vec![1, 4, 5, 6], vec![7, 7, 7]]
        );
    }

    #[test]
    fn nothing_selected_changes_nothing_and_bad_selections_are_errors() {
        let mut m = mesh();
        clone_faces(&mut m, &[false, false, false]).expect("none");
        assert_eq!(m, mesh());
        assert!(clone_faces(&mut mesh(), &[true; 5]).is_err());
    }
}
