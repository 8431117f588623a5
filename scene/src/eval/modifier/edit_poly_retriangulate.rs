//! Edit Poly's Retriangulate (operation 29): Max recomputes the diagonals of
//! the selected polygons (`MNMesh::RetriangulateFace`); the polygons, their
//! corners and the edge list stay. Which diagonals Max picks is not derived
//! (its convex triangulation is not public), so the operation is evaluated
//! only where the diagonals cannot change the surface: every selected
//! polygon planar (as the Unwrap UVW cache's planarity test, within 1e-4 of
//! its size) and strictly convex. There any triangulation covers the same
//! flat region, and the polygon keeps ours (a fan from corner 0); the
//! triangle list is not claimed to be Max's. Other polygons are refused by
//! name.

use super::edit_poly_topo::check_selection;
use super::unwrap_cache::{newell, planar};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

/// Retriangulate: checks that the selected polygons' surface does not depend
/// on their diagonals.
pub(super) fn retriangulate(poly: &PolyMesh, sel: &[bool]) -> Result<(), EvalError> {
    check_selection(sel, poly.faces.len(), "faces")?;
    for (fi, f) in poly.faces.iter().enumerate() {
        if !sel.get(fi).copied().unwrap_or(false) || f.v.len() <= 3 {
            continue;
        }
        let p: Vec<Vec3> =
            f.v.iter()
                .map(|&v| {
                    poly.vertices.get(v as usize).copied().ok_or_else(|| {
                        EvalError::malformed("", format!("face {fi}: vertex {v} out of range"))
                    })
                })
                .collect::<Result<_, _>>()?;
        if !planar(&p) || !convex(&p) {
            return Err(EvalError::not_evaluated_why(
                format!("a retriangulation of face {fi} ({} corners)", p.len()),
                "it is not planar and convex, and Max's diagonals are not derived",
            ));
        }
    }
    Ok(())
}

/// Whether every corner turns the way the polygon's normal does, none
/// straight or back.
pub(super) fn convex(p: &[Vec3]) -> bool {
    let n = newell(p);
    let k = p.len();
    let scale = n.len();
    if scale <= 0.0 {
        return false;
    }
    (0..k).all(|j| {
        let (a, b, c) = (p[(j + k - 1) % k], p[j], p[(j + 1) % k]);
        b.minus(a).cross(c.minus(b)).dot(n) > 1e-9 * scale * scale.sqrt()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::PolyFace;

    fn quad(z2: f64, v3: (f64, f64)) -> PolyMesh {
        let p = |x: f64, y: f64, z: f64| Vec3(x, y, z);
        PolyMesh {
            vertices: vec![
                p(0.0, 0.0, 0.0),
                p(2.0, 0.0, 0.0),
                p(2.0, 2.0, z2),
                p(v3.0, v3.1, 0.0),
            ],
            faces: vec![PolyFace::fan(vec![0, 1, 2, 3], 0, 0)],
            maps: Vec::new(),
            edges: None,
            normals: None,
        }
    }

    #[test]
    fn retriangulate_keeps_planar_convex_polygons_and_refuses_others() {
        assert!(retriangulate(&quad(0.0, (0.0, 2.0)), &[true]).is_ok());
        // Not selected: nothing to check.
        assert!(retriangulate(&quad(1.0, (0.0, 2.0)), &[false]).is_ok());
        // Bent out of its plane: the diagonal changes the surface.
        let e = retriangulate(&quad(1.0, (0.0, 2.0)), &[true]).expect_err("bent");
        assert!(e.to_string().contains("face 0 (4 corners)"), "{e}");
        // Concave (corner 3 pushed in past the diagonal 0–2).
        assert!(retriangulate(&quad(0.0, (1.5, 0.5)), &[true]).is_err());
        // A selection not sized to the mesh.
        assert!(retriangulate(&quad(0.0, (0.0, 2.0)), &[true, true, true]).is_err());
        // The id the dispatch uses names this operation.
        use super::super::edit_poly_records::{op_name, OP_RETRIANGULATE};
        assert_eq!(op_name(OP_RETRIANGULATE), "operation Retriangulate (29)");
    }
}
