//! Edit Poly's Flip Face (operation 30, `MNMesh::FlipFaceNormals` of the
//! selected faces): each selected polygon's corners go from (0, 1, …, n−1)
//! to (0, n−1, …, 1), as the SDK documents `MNFace::Flip` ("0 remains
//! start"), its diagonals and its map faces following the corners. Checked
//! on Buwaka's level.max Plane001 (docs/unseen-files.md): its Edit Poly
//! clones all 187 polygons and flips the copies, and the Unwrap UVW above
//! caches every copy in this order.
//!
//! Not derived: which way MNMesh then runs the edges of a flipped polygon
//! (v1 → v2 is set by an edge's first face, which `MNEdge` may swap for
//! the other or invert), so the edge numbering is dropped and a later edge
//! operation is refused by name. Specified normals are left out by the
//! caller, named, like every operation that reshapes faces.

use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

use super::edit_poly_topo::check_selection;

/// Flips the selected faces (see the module).
pub(super) fn flip_faces(poly: &mut PolyMesh, sel: &[bool]) -> Result<(), EvalError> {
    check_selection(sel, poly.faces.len(), "faces")?;
    let chosen: Vec<usize> = (0..poly.faces.len())
        .filter(|&f| sel.get(f).copied().unwrap_or(false))
        .collect();
    if chosen.is_empty() {
        return Ok(());
    }
    for &f in &chosen {
        let face = &mut poly.faces[f];
        let n = face.v.len();
        flip(&mut face.v);
        // Corner k is now corner (n − k) mod n; each triangle keeps its
        // corners, wound the other way.
        let at = |k: usize| (n - k % n) % n;
        for t in &mut face.tris {
            *t = [at(t[0]), at(t[2]), at(t[1])];
        }
        for m in &mut poly.maps {
            flip(m.face_mut(f)?);
        }
    }
    poly.edges = None;
    poly.validate()
}

/// (0, 1, …, n−1) → (0, n−1, …, 1).
fn flip<T>(corners: &mut [T]) {
    if let Some((_, rest)) = corners.split_first_mut() {
        rest.reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::PolyMap;

    /// A quad split 0–2 and a triangle, with one map channel.
    fn mesh() -> PolyMesh {
        PolyMesh {
            maps: vec![PolyMap {
                channel: 1,
                vertices: vec![[0.0; 3]; 5],
                faces: vec![vec![0, 1, 2, 3], vec![1, 4, 2]],
            }],
            edges: Some(vec![[0, 1], [1, 2], [2, 3], [3, 0], [1, 4], [4, 2]]),
            ..PolyMesh::planar(
                &[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (2.0, 0.0)],
                &[(&[0, 1, 2, 3], 2, 1), (&[1, 4, 2], 0, 0)],
            )
        }
    }

    /// The signed area of face `f`'s triangles (counter-clockwise positive).
    fn area(m: &PolyMesh, f: usize) -> f64 {
        let face = &m.faces[f];
        face.tris
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|k| m.vertices[face.v[k] as usize]);
                ((b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)) / 2.0
            })
            .sum()
    }

    #[test]
    fn corner_zero_stays_and_the_rest_run_back() {
        let mut m = mesh();
        flip_faces(&mut m, &[true, false]).expect("flip");
        assert_eq!(m.faces[0].v, [0, 3, 2, 1]);
        assert_eq!(m.maps[0].faces[0], [0, 3, 2, 1]);
        // The diagonal stays 0–2 (corners 0 and 2 again), both triangles
        // now wound clockwise: the quad's area turns negative.
        assert_eq!(m.faces[0].tris, [[0, 2, 3], [0, 1, 2]]);
        assert!((area(&m, 0) + 1.0).abs() < 1e-12);
        // The triangle is not selected.
        assert_eq!(m.faces[1], mesh().faces[1]);
        assert!(m.edges.is_none());
        assert_eq!((m.faces[0].material, m.faces[0].smoothing), (2, 1));
    }

    #[test]
    fn flipping_twice_gives_the_faces_back() {
        let mut m = mesh();
        flip_faces(&mut m, &[true, true]).expect("flip");
        assert_eq!(m.faces[1].v, [1, 2, 4]);
        assert!((area(&m, 1) + 0.5).abs() < 1e-12);
        flip_faces(&mut m, &[true, true]).expect("flip back");
        assert_eq!(m.faces, mesh().faces);
        assert_eq!(m.maps, mesh().maps);
    }

    #[test]
    fn no_selection_keeps_the_numbering_and_a_bad_one_is_an_error() {
        let mut m = mesh();
        flip_faces(&mut m, &[false, false]).expect("none");
        assert_eq!(m, mesh());
        flip_faces(&mut m, &[]).expect("empty");
        assert_eq!(m, mesh());
        assert!(flip_faces(&mut mesh(), &[true; 3]).is_err());
    }
}
