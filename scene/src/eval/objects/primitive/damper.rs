//! Damper (0x46aa537c, 0x712729f0), free-standing and without its boot, as
//! the public Max SDK sample `damper.cpp` builds it (the code here is ours).
//!
//! Old ParamBlock by index: 0 ends method (0 bound to two objects —
//! refused, 1 free), 1 free length, 2 renderable, 3/4 mount diameter and
//! length, 5/6 cylinder diameter and length, 7 cylinder sides (≥ 3), 8/9
//! bottom fillet and its segments, 10/11 top fillet and its segments, 12
//! inside diameter, 13 smooth cylinder, 14/15 piston diameter and length,
//! 16 piston sides (≥ 3), 17 smooth piston, 18 boot (refused when on:
//! not built here), 19–35 the boot's sizes and the dynamics, 36 mapping.
//!
//! Layout: the cylinder's rings (radius, height) — the bottom centre, the
//! mount's bottom and top rim, the cylinder's bottom edge (less the bottom
//! fillet), the bottom fillet's quarter arc, the top edge (less the top
//! fillet), the top fillet's arc, then (an inside diameter) down the bore
//! to the bottom fillet's height and its centre, or the top centre; then
//! the piston's four rings: centre and rim at `length − piston length`, rim
//! and centre at `length`. Each ring's point j sits at angle 2π·j / sides.
//! Faces: per ring gap and side (v4, v3, v1), (v1, v2, v4); the mount's
//! rings take material 0 (the mount's top, 0 only when it is wider than the
//! cylinder), the cylinder 1, the piston 2; smoothing groups per ring gap
//! as the sample sets them (1 / 2 / 4 alternating across the edges), 0 when
//! smoothing is off. Mapping: U = ring / (rings − 1), V = j / sides, one
//! extra texture vertex per ring at V = 0.999 closing the seam.

use crate::eval::error::EvalError;
use std::f64::consts::{FRAC_PI_2, TAU};

use super::{check_quads, Params};
use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};
use crate::typed::ClassId;

pub const DAMPER: ClassId = ClassId(0x46aa537c, 0x712729f0);

/// Sides and fillet segments beyond this are refused (damaged values).
const MAX_COUNT: i64 = 10_000;

fn count(p: &Params, i: usize, min: i64) -> Result<usize, EvalError> {
    super::hose::bounded_count(p, i, min, MAX_COUNT)
}

/// Rings as (radius, height), with the smoothing group of each gap to the
/// next ring (smoothing on).
type Rings = (Vec<(f64, f64)>, Vec<u32>);

/// The cylinder's rings and their smoothing groups.
fn cylinder_rings(p: &Params) -> Result<Rings, EvalError> {
    let rstud = p.float_or(3, 1.0) / 2.0;
    let lstud = p.float_or(4, 1.0);
    let rcyl = p.float_or(5, 1.0) / 2.0;
    let lcyl = p.float_or(6, 1.0);
    let f1n = count(p, 9, 0)?;
    let f2n = count(p, 11, 0)?;
    let f1 = p.float_or(8, 0.0).max(0.0);
    let f2 = p.float_or(10, 0.0).max(0.0);
    let inside = p.float_or(12, 0.0) / 2.0;
    let rings = 6 + f1n + f2n + if inside > 0.0 { 2 } else { 0 };
    let mut v = Vec::with_capacity(rings);
    v.push((0.0, 0.0));
    v.push((rstud, 0.0));
    v.push((rstud, lstud));
    v.push((if f1n == 0 { rcyl } else { rcyl - f1 }, lstud));
    for k in 1..=f1n {
        let a = k as f64 * FRAC_PI_2 / f1n as f64;
        v.push((f1 * a.sin() + rcyl - f1, lstud + f1 - f1 * a.cos()));
    }
    let top = lstud + lcyl;
    v.push((rcyl, if f2n == 0 { top } else { top - f2 }));
    for k in 1..=f2n {
        let a = k as f64 * FRAC_PI_2 / f2n as f64;
        v.push((rcyl - f2 + f2 * a.cos(), top - f2 + f2 * a.sin()));
    }
    v.push((inside, top));
    if inside > 0.0 {
        v.push((inside, lstud + f1));
        v.push((0.0, lstud + f1));
    }
    // Per gap i: 1, 2, 1, the bottom fillet 2, the wall 4, the top fillet
    // 2, the top 1, the bore 2, its floor 1.
    let groups = (0..rings - 1)
        .map(|i| match i {
            0 | 2 => 1,
            1 => 2,
            i if i < 3 + f1n => 2,
            i if i == 3 + f1n => 4,
            i if i < 4 + f1n + f2n => 2,
            i if i == 4 + f1n + f2n => 1,
            i if i == 5 + f1n + f2n => 2,
            _ => 1,
        })
        .collect();
    Ok((v, groups))
}

pub fn damper_mesh(p: &Params) -> Result<Mesh, EvalError> {
    if p.int_or(0, 1) == 0 {
        return Err(EvalError::not_evaluated("a Damper bound to objects"));
    }
    if p.flag(18, false) {
        return Err(EvalError::not_evaluated("a Damper's boot"));
    }
    let length = p.float_or(1, 0.0);
    let ns = count(p, 7, 3)?;
    let nr = count(p, 16, 3)?;
    let (stud, stud_groups) = cylinder_rings(p)?;
    let rod_r = p.float_or(14, 1.0) / 2.0;
    let rod_base = length - p.float_or(15, 1.0);
    let rod = [
        (0.0, rod_base),
        (rod_r, rod_base),
        (rod_r, length),
        (0.0, length),
    ];
    check_quads(stud.len() * ns + rod.len() * nr)?;
    let smooth_cyl = p.flag(13, false);
    let smooth_rod = p.flag(17, false);
    let mapping = p.flag(36, false);
    let mount_wider = p.float_or(3, 1.0) > p.float_or(5, 1.0);
    let nverts = stud.len() * ns + rod.len() * nr;
    let mut mesh = Mesh::default();
    let mut tv = Vec::new();
    let mut seam = Vec::new();
    for (rings, n) in [(&stud[..], ns), (&rod[..], nr)] {
        for (i, &(r, z)) in rings.iter().enumerate() {
            let u = i as f64 / (rings.len() - 1) as f64;
            for j in 0..n {
                let a = j as f64 / n as f64;
                let (s, c) = (a * TAU).sin_cos();
                mesh.vertices.push(Vec3(r * c, r * s, z));
                tv.push([u as f32, a as f32, 0.0]);
            }
            seam.push([u as f32, 0.999, 0.0]);
        }
    }
    let mut tf = Vec::new();
    // (first vertex, rings, sides, first seam vertex, group per gap, material per gap)
    let stud_parts = (0, stud.len(), ns, nverts);
    let rod_parts = (stud.len() * ns, rod.len(), nr, nverts + stud.len());
    for (part, (base, rings, n, seam0)) in [stud_parts, rod_parts].into_iter().enumerate() {
        let last = n - 1;
        for i in 0..rings - 1 {
            let (group, material) = if part == 0 {
                let m = match i {
                    0 | 1 => 0,
                    2 if mount_wider => 0,
                    _ => 1,
                };
                (
                    if smooth_cyl {
                        stud_groups.get(i).copied().unwrap_or(0)
                    } else {
                        0
                    },
                    m,
                )
            } else {
                let g = if i == 1 { 2 } else { 1 };
                (if smooth_rod { g } else { 0 }, 2)
            };
            for j in 0..n {
                let v1 = base + i * n + j;
                let v2 = if j < last { v1 + 1 } else { v1 - last };
                let (v3, v4) = (v1 + n, v2 + n);
                let v5 = if j < last { v2 } else { seam0 + i };
                let v6 = if j < last { v4 } else { seam0 + i + 1 };
                for (v, t) in [([v4, v3, v1], [v6, v3, v1]), ([v1, v2, v4], [v1, v5, v6])] {
                    mesh.faces.push(Face {
                        v: v.map(|x| x as u32),
                        smoothing: group,
                        material,
                        flags: 0b011,
                    });
                    tf.push(t.map(|x| x as u32));
                }
            }
        }
    }
    if mapping {
        tv.extend(seam);
        mesh.maps.push(MapChannel {
            channel: 1,
            vertices: tv,
            faces: tf,
        });
    }
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    //! The sample's counts and ring layout, worked by hand.
    use super::*;
    use crate::eval::core::pblock::Value;

    /// all shape.max's Damper001 parameters (boot off, no fillets, no bore).
    fn params(extra: &[(usize, Value)]) -> Params {
        let mut v = vec![
            Value::Int(1),
            Value::Float(30.400808),
            Value::Int(1),
            Value::Float(17.926634),
            Value::Float(3.0400808),
            Value::Float(35.853268),
            Value::Float(18.240486),
            Value::Int(8),
            Value::Float(0.0),
            Value::Int(0),
            Value::Float(0.0),
            Value::Int(0),
            Value::Float(0.0),
            Value::Int(1),
            Value::Float(8.963317),
            Value::Float(15.200404),
            Value::Int(8),
            Value::Int(1),
            Value::Int(0),
        ];
        v.extend((19..36).map(|_| Value::Float(0.0)));
        v.push(Value::Int(1));
        for (i, x) in extra {
            v[*i] = x.clone();
        }
        Params::from_values(v)
    }

    #[test]
    fn counts_follow_the_rings() {
        // Cylinder: 6 rings of 8; piston: 4 rings of 8.
        let m = damper_mesh(&params(&[])).unwrap();
        assert_eq!(m.vertices.len(), 6 * 8 + 4 * 8);
        assert_eq!(m.faces.len(), 5 * 16 + 3 * 16);
        assert_eq!(m.maps[0].vertices.len(), 80 + 6 + 4);
        // Fillets and a bore add their rings.
        let p = params(&[
            (8, Value::Float(1.0)),
            (9, Value::Int(3)),
            (10, Value::Float(1.0)),
            (11, Value::Int(2)),
            (12, Value::Float(20.0)),
        ]);
        let m = damper_mesh(&p).unwrap();
        assert_eq!(m.vertices.len(), (6 + 3 + 2 + 2) * 8 + 4 * 8);
        // Boot and bound ends are refused.
        assert!(damper_mesh(&params(&[(18, Value::Int(1))])).is_err());
        assert!(damper_mesh(&params(&[(0, Value::Int(0))])).is_err());
    }

    #[test]
    fn rings_sit_on_the_stated_radii_and_heights() {
        let m = damper_mesh(&params(&[])).unwrap();
        let (rs, ls, rc, lc) = (17.926634 / 2.0, 3.0400808, 35.853268 / 2.0, 18.240486);
        let want = [
            (0.0, 0.0),
            (rs, 0.0),
            (rs, ls),
            (rc, ls),
            (rc, ls + lc),
            (0.0, ls + lc),
            (0.0, 30.400808 - 15.200404),
            (8.963317 / 2.0, 30.400808 - 15.200404),
            (8.963317 / 2.0, 30.400808),
            (0.0, 30.400808),
        ];
        for (ring, (r, z)) in want.iter().enumerate() {
            for j in 0..8 {
                let v = m.vertices[ring * 8 + j];
                let f64_close = |a: f64, b: f64| (a - b).abs() < 1e-5;
                assert!(
                    f64_close(v.0.hypot(v.1), *r) && f64_close(v.2, *z),
                    "{ring} {j}: {v:?}"
                );
            }
        }
        // Materials: mount 0, cylinder 1 (the mount is narrower), piston 2.
        assert!(m.faces[..32].iter().all(|f| f.material == 0));
        assert!(m.faces[32..80].iter().all(|f| f.material == 1));
        assert!(m.faces[80..].iter().all(|f| f.material == 2));
        // Smoothing on: gaps 1, 2, 1, 4, 1 for the cylinder.
        let groups: Vec<u32> = (0..5).map(|i| m.faces[i * 16].smoothing).collect();
        assert_eq!(groups, [1, 2, 1, 4, 1]);
    }

    #[test]
    fn fillets_run_quarter_arcs_between_the_edges() {
        let p = params(&[(8, Value::Float(2.0)), (9, Value::Int(2))]);
        let (rings, _) = cylinder_rings(&p).unwrap();
        let rc = 35.853268 / 2.0;
        let ls = 3.0400808;
        // Edge ring pulled in by the fillet, the arc's end on the wall
        // (the parameters are stored in single precision).
        let near =
            |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 1e-5 && (a.1 - b.1).abs() < 1e-5;
        assert!(near(rings[3], (rc - 2.0, ls)), "{:?}", rings[3]);
        assert!(near(rings[5], (rc, ls + 2.0)), "{:?}", rings[5]);
        // The arc's middle: 45° round the fillet's centre (rc − 2, ls + 2).
        let h = std::f64::consts::FRAC_1_SQRT_2 * 2.0;
        assert!(
            near(rings[4], (rc - 2.0 + h, ls + 2.0 - h)),
            "{:?}",
            rings[4]
        );
    }
}
