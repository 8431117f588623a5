//! Edit Poly's Bevel (operation 32): the selected faces extruded by the
//! height (parameter 39) as Extrude Face extrudes them, by the type
//! (parameter 38: 0 group, 1 local normal, 2 by polygon), then their new
//! border moved in its plane by the outline (parameter 40). Max 2016+ also
//! records parameter 121, seen only as 1.0 (as Extrude Face's 120).
//!
//! The outline moves each extruded face's new border in its plane along the
//! SDK's outline vectors (`MNFaceClusters::GetOutlineVectors`, "used in the
//! Bevel command mode", scaled so that each border edge moves by one unit):
//! every side parallel to its old one at the outline's distance, outwards
//! for a positive outline, as Inset moves it inwards
//! (`edit_poly_extrude::offset_border`). Checked on RicoBarrett's Desk.max
//! (Desk01, Desk02: a Box's face bevelled with height 0, outline −1.9685
//! and −0.3937; the Unwrap UVW above caches each corner moved by the outline
//! along both sides). An outline on a group of several faces (types 0 and
//! 1), whose border follows the cluster's normal, is refused by name.

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

/// Bevels the selected faces. `before` is MNMesh's edge list before the
/// operation, when known.
pub(super) fn bevel(
    poly: &mut PolyMesh,
    sel: &[bool],
    p: Params,
    before: Option<&[[u32; 2]]>,
    known: &mut Known,
) -> Result<(), EvalError> {
    if !(0..=2).contains(&p.kind) {
        return Err(EvalError::malformed("", format!("bevel type {}", p.kind)));
    }
    if let Some(x) = p.unknown.filter(|&x| x != 1.0) {
        return Err(EvalError::not_evaluated(format!("parameter 121 = {x}")));
    }
    if p.outline != 0.0 && p.kind != 2 {
        if let Some(c) = extrude::first_group(poly, sel)? {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "a bevel outline of {} of the group of faces {c:?} (height {}, type {})",
                    p.outline as f32, p.height as f32, p.kind
                ),
                "the outline vectors along a group's border (MNFaceClusters::GetOutlineVectors, \
                 from the cluster's normal) are not replayed",
            ));
        }
    }
    let done = extrude::extrude(poly, sel, p.height, p.kind == 2, p.kind == 1, before, known)?;
    if p.outline != 0.0 {
        for (fi, old) in &done.faces {
            extrude::offset_border(poly, *fi, old, -p.outline)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;

    /// A unit square in z = 0 beside a triangle.
    fn square() -> PolyMesh {
        PolyMesh::planar(
            &[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (2.0, 0.0)],
            &[(&[0, 1, 2, 3], 2, 1), (&[1, 4, 2], 3, 1)],
        )
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
    fn an_outline_moves_each_side_parallel_in_the_cap_plane() {
        // Desk02's case scaled: a rectangle's face bevelled with height 0
        // and outline −0.25 has each corner moved by 0.25 along both sides
        // (the Unwrap UVW cache of RicoBarrett's Desk.max: (±7.539, ±10.433)
        // → (±7.146, ±10.039) for −0.3937).
        let mut m = square();
        bevel(
            &mut m,
            &[true, false],
            params(0.0, -0.25),
            None,
            &mut Known::default(),
        )
        .expect("bevel");
        let cap: Vec<Vec3> = m.faces[0]
            .v
            .iter()
            .map(|&v| m.vertices[v as usize])
            .collect();
        let want = [(0.25, 0.25), (0.75, 0.25), (0.75, 0.75), (0.25, 0.75)];
        for (p, w) in cap.iter().zip(want) {
            assert!(
                (p.0 - w.0).abs() < 1e-12 && (p.1 - w.1).abs() < 1e-12,
                "{cap:?}"
            );
            assert_eq!(p.2, 0.0);
        }
        // A height lifts the cap first; a positive outline grows it, each
        // side (also the hypotenuse, at 45° corners) moving by the outline.
        let mut t = square();
        bevel(
            &mut t,
            &[false, true],
            Params {
                kind: 2,
                ..params(2.0, 0.1)
            },
            None,
            &mut Known::default(),
        )
        .expect("bevel");
        let cap: Vec<Vec3> = t.faces[1]
            .v
            .iter()
            .map(|&v| t.vertices[v as usize])
            .collect();
        assert!(cap.iter().all(|p| (p.2 - 2.0).abs() < 1e-12));
        // The triangle (1,0) (2,0) (1,1): its bottom side now at y = −0.1,
        // its left side at x = 0.9, its hypotenuse 0.1 farther out.
        let (a, b, c) = (cap[0], cap[1], cap[2]);
        assert!(
            (a.0 - 0.9).abs() < 1e-12 && (a.1 + 0.1).abs() < 1e-12,
            "{a:?}"
        );
        assert!((b.1 + 0.1).abs() < 1e-12, "{b:?}");
        assert!((c.0 - 0.9).abs() < 1e-12, "{c:?}");
        let off = |p: Vec3| (p.0 + p.1 - 2.0) / 2f64.sqrt();
        assert!((off(b) - 0.1).abs() < 1e-12 && (off(c) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn group_outlines_and_unknown_values_are_refused_by_name() {
        // The square and the triangle share the side 1–2: one group.
        let err = bevel(
            &mut square(),
            &[true, true],
            params(1.0, -0.5),
            None,
            &mut Known::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with(
                "a bevel outline of -0.5 of the group of faces [0, 1] (height 1, type 0) \
                 is not evaluated"
            ),
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
            &[true, true],
            params(1.0, 0.25),
            None,
            &mut Known::default(),
        );
        assert_eq!(m, square());
    }
}
