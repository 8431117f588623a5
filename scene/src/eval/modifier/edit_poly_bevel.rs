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
//! along both sides). On a group of adjacent faces (type 0) each border
//! side moves across its own cluster face (`group::outline`); along local
//! normals (type 1) a group's outline is refused by name.

use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

use super::edit_poly_extrude::{self as extrude, Known};
use super::edit_poly_extrude_group as group;

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
    if p.outline != 0.0 && p.kind == 1 {
        if let Some(c) = extrude::first_group(poly, sel)? {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "a bevel outline of {} of the group of faces {c:?} extruded along local normals (height {})",
                    p.outline as f32, p.height as f32
                ),
                "whether the outline vectors are taken before or after the vertices move apart is not pinned",
            ));
        }
    }
    let done = extrude::extrude(poly, sel, p.height, p.kind == 2, p.kind == 1, before, known)?;
    if p.outline != 0.0 {
        for (fi, old) in &done.faces {
            extrude::offset_border(poly, *fi, old, -p.outline)?;
        }
        for g in &done.groups {
            group::outline(poly, g, -p.outline)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::objects::poly::PolyFace;

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

    /// ccharri's Hand_and_Wrench.max (public, not in the corpus): Box001's
    /// Edit Poly bevels faces 24 and 27, two quads at 17° sharing a side,
    /// as a group (height 0.98388, outline −0.39355). `OLD` are their six
    /// corners before (our replay of the 105 operations before it, whose
    /// recorded sizes all match Max's); `MAX` Max's corners after it: the
    /// 3DS Max exported of the file (vertices 76–81 of Box001, in the node's
    /// space; the 76 vertices before them equal ours to 6e-5) minus the
    /// offsets the Transforms after the bevel record.
    #[test]
    fn a_group_outline_moves_each_border_side_across_its_own_face() {
        const OLD: [[f64; 3]; 6] = [
            [3.75672, 5.197735, 6.877625],
            [0.469454, 5.197735, 6.877625],
            [1.439875, 2.852098, 7.280825],
            [2.453391, 2.878965, 7.280825],
            [3.528107, 3.113523, 7.280825],
            [3.820984, 4.248131, 6.670462],
        ];
        const MAX: [[f64; 3]; 6] = [
            [3.4936754, 4.9904094, 8.0001110],
            [1.1095941, 4.9754519, 7.9136188],
            [1.7562468, 3.4122106, 8.1811544],
            [2.4606891, 3.4334289, 8.1958691],
            [3.2889452, 3.6223196, 8.2767848],
            [3.4861306, 4.4592003, 7.7419032],
        ];
        // The two faces, and a fan below giving each border side its other
        // face (the bevel walls a closed border only).
        let mut m = PolyMesh {
            vertices: OLD
                .iter()
                .map(|p| Vec3(p[0], p[1], p[2]))
                .chain([Vec3(2.0, 4.0, 0.0)])
                .collect(),
            ..PolyMesh::default()
        };
        m.faces.push(PolyFace::fan(vec![0, 1, 2, 3], 4, 0));
        m.faces.push(PolyFace::fan(vec![0, 3, 4, 5], 4, 0));
        for (a, b) in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)] {
            m.faces.push(PolyFace::fan(vec![b, a, 6], 0, 0));
        }
        let sel: Vec<bool> = (0..m.faces.len()).map(|f| f < 2).collect();
        let p = Params {
            kind: 0,
            height: f64::from(0.98388004_f32),
            outline: f64::from(-0.39355183_f32),
            unknown: None,
        };
        bevel(&mut m, &sel, p, None, &mut Known::default()).expect("bevel");
        // The border walked from face 0's first side: new vertex 7 + k is
        // the copy of old corner k.
        for (k, want) in MAX.iter().enumerate() {
            let got = m.vertices[7 + k];
            let off = (got.0 - want[0])
                .abs()
                .max((got.1 - want[1]).abs())
                .max((got.2 - want[2]).abs());
            assert!(off < 1e-4, "corner {k}: {got:?}, Max {want:?}");
        }
        // The group's faces now run over the copies; the old corners stay.
        assert_eq!(m.faces[0].v, vec![7, 8, 9, 10]);
        assert_eq!(m.vertices[0], Vec3(OLD[0][0], OLD[0][1], OLD[0][2]));
    }

    #[test]
    fn group_outlines_and_unknown_values_are_refused_by_name() {
        // The square and the triangle share the side 1–2: one group, along
        // local normals.
        let err = bevel(
            &mut square(),
            &[true, true],
            Params {
                kind: 1,
                ..params(1.0, -0.5)
            },
            None,
            &mut Known::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with(
                "a bevel outline of -0.5 of the group of faces [0, 1] extruded along local \
                 normals (height 1) is not evaluated"
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
