//! Edit Poly's Bevel (operation 32): the selected faces extruded by the
//! height (parameter 39) as Extrude Face extrudes them, by the type
//! (parameter 38: 0 group, 1 local normal, 2 by polygon), then their new
//! border moved in its plane by the outline (parameter 40). Max 2016+ also
//! records parameter 121, seen only as 1.0 (as Extrude Face's 120).
//!
//! Only an outline of 0 is replayed: the bevel is then the extrusion, and
//! its results are checked against Max's (docs/max-format.md, "Bevel"). How
//! Max moves the border by an outline is checked against nothing of Max's,
//! so a non-zero outline is refused by name.

use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

use super::edit_poly_extrude::{self as extrude, Known};

/// A Bevel's parameters as recorded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Params {
    /// 0 group, 1 local normal, 2 by polygon.
    pub kind: i32,
    pub height: f64,
    pub outline: f64,
    /// Parameter 121 (Max 2016+), when recorded.
    pub unknown: Option<f64>,
}

/// Bevels the selected faces; returns the map channels left out (those of
/// a group extrusion, named by the caller). `before` is MNMesh's edge list
/// before the operation, when known.
pub(super) fn bevel(
    poly: &mut PolyMesh,
    sel: &[bool],
    p: Params,
    before: Option<&[[u32; 2]]>,
    known: &mut Known,
) -> Result<Vec<i32>, EvalError> {
    if !(0..=2).contains(&p.kind) {
        return Err(EvalError::malformed("", format!("bevel type {}", p.kind)));
    }
    if let Some(x) = p.unknown.filter(|&x| x != 1.0) {
        return Err(EvalError::not_evaluated(format!("parameter 121 = {x}")));
    }
    if p.outline != 0.0 {
        let faces = sel.iter().filter(|&&s| s).count();
        return Err(EvalError::not_evaluated_why(
            format!(
                "a bevel outline of {} ({faces} faces, height {}, type {})",
                p.outline as f32,
                p.height as f32,
                p.kind
            ),
            "how Max moves the bevelled border in its plane is not checked against any result of Max's",
        ));
    }
    extrude::extrude(poly, sel, p.height, p.kind == 2, p.kind == 1, before, known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::objects::poly::PolyFace;

    /// A unit square in z = 0 beside a triangle.
    fn square() -> PolyMesh {
        let p = |x: f64, y: f64| Vec3(x, y, 0.0);
        PolyMesh {
            vertices: vec![
                p(0.0, 0.0),
                p(1.0, 0.0),
                p(1.0, 1.0),
                p(0.0, 1.0),
                p(2.0, 0.0),
            ],
            faces: vec![
                PolyFace::fan(vec![0, 1, 2, 3], 2, 1),
                PolyFace::fan(vec![1, 4, 2], 3, 1),
            ],
            ..PolyMesh::default()
        }
    }

    fn params(height: f64, outline: f64) -> Params {
        Params {
            kind: 0,
            height,
            outline,
            unknown: Some(1.0),
        }
    }

    #[test]
    fn without_an_outline_a_bevel_is_the_extrusion() {
        let mut bevelled = square();
        bevel(
            &mut bevelled,
            &[true, false],
            params(1.5, 0.0),
            None,
            &mut Known::default(),
        )
        .expect("bevel");
        let mut extruded = square();
        extrude::extrude(
            &mut extruded,
            &[true, false],
            1.5,
            false,
            false,
            None,
            &mut Known::default(),
        )
        .expect("extrude");
        assert_eq!(bevelled, extruded);
        assert_eq!(bevelled.vertices[5], Vec3(0.0, 0.0, 1.5));
        assert_eq!(bevelled.faces.len(), 2 + 4);
    }

    #[test]
    fn outlines_and_unknown_values_are_refused_by_name() {
        let err = bevel(
            &mut square(),
            &[true, false],
            params(1.0, -0.5),
            None,
            &mut Known::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("a bevel outline of -0.5 (1 faces, height 1, type 0) is not evaluated"),
            "{err}"
        );
        let odd = Params {
            unknown: Some(0.5),
            ..params(1.0, 0.0)
        };
        assert!(bevel(
            &mut square(),
            &[true, false],
            odd,
            None,
            &mut Known::default()
        )
        .is_err());
        let bad = Params {
            kind: 3,
            ..params(1.0, 0.0)
        };
        assert!(bevel(
            &mut square(),
            &[true, false],
            bad,
            None,
            &mut Known::default()
        )
        .is_err());
        // Nothing changed by a refusal.
        let mut m = square();
        let _ = bevel(
            &mut m,
            &[true, false],
            params(1.0, 0.25),
            None,
            &mut Known::default(),
        );
        assert_eq!(m, square());
    }
}
