//! ChamferCyl ((0x7b9a546e, 0x21a446a1); Extended Primitives), built as the
//! public Max SDK sample `chcyl.cpp` builds it (the code here is ours), on
//! Capsule's layout (`capsule.rs`, [`domed_mesh`]).
//!
//! Old ParamBlock by index (ParamBlock2 ids in the same order): 0 radius,
//! 1 height, 2 fillet, 3 height segments, 4 fillet segments, 5 sides
//! (3…200), 6 cap segments, 7 smooth, 8 slice on (refused), 9/10 slice
//! from / to, 11 generate mapping. Max keeps the fillet within the radius
//! and half the height.
//!
//! Layout: the top centre (0, 0, h), then per level a ring of `sides`
//! points from +X counter-clockwise: `cap segments` flat rings out to
//! radius − fillet, `fillet segments` rings on the quarter circle of the
//! fillet (angle k·90° / fillet segments from the top), the side's height
//! segments, the bottom mirrored, the bottom centre (0, 0, 0). Faces and
//! texture faces follow Max's walk (shared with Capsule); material 0
//! everywhere. Smoothing when smooth: group 3 (4) everywhere with more than
//! one fillet segment; with one, the caps group 3, the fillet bands group 4
//! (8), the side group 5 (16). With the real-world map size on (a flag
//! outside the parameter block, `real_world.rs`) the caps' planar mapping is
//! in scene units (r + x, r + y), the side's U runs over the circumference
//! 2π·radius and V over the straight side's height, |height| − 2·fillet
//! (`chcyl.cpp`'s `usePhysUVs`).

use super::capsule::{domed_mesh, Domed, SideScale};
use super::Params;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;
use std::f64::consts::FRAC_PI_2;

pub const CHAMFER_CYL: ClassId = ClassId(0x7b9a546e, 0x21a446a1);

pub fn chamfer_cyl_mesh(p: &Params) -> Result<Mesh, EvalError> {
    if p.flag(8, false) {
        return Err(EvalError::not_evaluated("a sliced ChamferCyl"));
    }
    let radius = p.float_or(0, 0.0).max(0.0);
    let height = p.float_or(1, 0.0);
    let mut fillet = p.float_or(2, 0.0).max(0.0);
    if ![radius, height, fillet].iter().all(|x| x.is_finite()) {
        return Err(EvalError::malformed("", "a parameter is not finite"));
    }
    let llsegs = p.int_or(3, 1).clamp(1, 200) as usize;
    let csegs = p.int_or(4, 1).clamp(1, 200) as usize;
    let sides = p.int_or(5, 12).clamp(3, 200) as usize;
    let capsegs = p.int_or(6, 1).clamp(1, 200) as usize;
    let smooth = p.flag(7, true);
    fillet = fillet.min(radius).min(height.abs() / 2.0);
    let flat = radius - fillet;
    let sideedge = capsegs + csegs;
    let step = FRAC_PI_2 / csegs as f64;
    let rings = (1..=sideedge)
        .map(|ix| {
            if ix <= capsegs {
                (flat * ix as f64 / capsegs as f64, 0.0)
            } else {
                let iy = ix - capsegs;
                let a = step * iy as f64;
                let depth = if iy == csegs {
                    fillet
                } else {
                    fillet * (1.0 - a.cos())
                };
                (flat + fillet * a.sin(), depth)
            }
        })
        .collect();
    let lastlevel = 2 * sideedge + llsegs;
    let lowerside = lastlevel - sideedge;
    let band = move |clevel: usize| {
        if !smooth {
            0
        } else if csegs > 1 || clevel < capsegs || clevel >= lastlevel - capsegs {
            4
        } else if clevel < sideedge || clevel >= lowerside {
            8
        } else {
            16
        }
    };
    domed_mesh(&Domed {
        sides,
        segments: llsegs,
        rings,
        height,
        radius,
        mapping: p.flag(11, true),
        real_world: p.real_world().then_some(SideScale {
            side_u: f64::from(2.0f32) * std::f64::consts::PI * radius,
            side_v: height.abs() - 2.0 * fillet,
        }),
        band_group: &band,
        fan_group: if smooth { 4 } else { 0 },
    })
}

#[cfg(test)]
mod tests {
    //! Invariants: Max's counts from the stated layout (vertices
    //! 2 + sides·(2·(cap + fillet segments) + height segments − 1), faces
    //! 2·sides·(2·(cap + fillet segments) + height segments − 1)), a closed
    //! outward surface, the overall size equal to radius and height, the
    //! fillet points on the fillet's circle.
    use super::*;
    use crate::eval::core::pblock::Value;
    use crate::eval::objects::surface_checks::{closed, signed_volume};
    use std::f64::consts::PI;

    #[allow(clippy::too_many_arguments)]
    fn values(r: f32, h: f32, f: f32, hs: i32, fs: i32, sides: i32, cs: i32) -> Vec<Value> {
        vec![
            Value::Float(r),
            Value::Float(h),
            Value::Float(f),
            Value::Int(hs),
            Value::Int(fs),
            Value::Int(sides),
            Value::Int(cs),
            Value::Int(1),
            Value::Int(0),
            Value::Float(0.0),
            Value::Float(0.0),
            Value::Int(1),
        ]
    }

    #[allow(clippy::too_many_arguments)]
    fn params(r: f32, h: f32, f: f32, hs: i32, fs: i32, sides: i32, cs: i32) -> Params {
        Params::from_values(values(r, h, f, hs, fs, sides, cs))
    }

    #[test]
    fn chamfer_cyl_counts_shape_and_mapping() {
        for (hs, fs, sides, cs) in [(1, 1, 12, 1), (3, 2, 8, 2), (2, 4, 5, 1), (1, 1, 3, 3)] {
            let m = chamfer_cyl_mesh(&params(5.0, 8.0, 1.5, hs, fs, sides, cs)).expect("mesh");
            let (s, e) = (sides as usize, (cs + fs) as usize);
            let l = hs as usize;
            assert_eq!(
                m.vertices.len(),
                2 + s * (2 * e + l - 1),
                "{hs}/{fs}/{sides}/{cs}"
            );
            assert_eq!(m.faces.len(), 2 * s * (2 * e + l - 1));
            assert!(closed(&m), "closed");
            let v = signed_volume(&m);
            assert!(v > 0.0 && v < PI * 25.0 * 8.0, "{v}");
            let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
            for p in &m.vertices {
                for (k, x) in [p.0, p.1, p.2].into_iter().enumerate() {
                    lo[k] = lo[k].min(x);
                    hi[k] = hi[k].max(x);
                }
            }
            assert_eq!((lo[2], hi[2]), (0.0, 8.0));
            assert!((hi[0] - 5.0).abs() < 1e-12, "the radius on +X");
            // Fillet points: on the circle of radius 1.5 centred at (3.5, ·, 6.5)
            // (top) or (3.5, ·, 1.5) (bottom) in their meridian plane.
            for p in &m.vertices {
                let rho = (p.0 * p.0 + p.1 * p.1).sqrt();
                if rho > 3.5 + 1e-9 && (p.2 > 6.5 + 1e-9 || p.2 < 1.5 - 1e-9) {
                    let zc = if p.2 > 4.0 { 6.5 } else { 1.5 };
                    let d = ((rho - 3.5).powi(2) + (p.2 - zc).powi(2)).sqrt();
                    assert!((d - 1.5).abs() < 1e-9, "{p:?} off the fillet");
                }
            }
            m.check_map_faces().expect("map faces");
            assert_eq!(m.maps[0].faces.len(), m.faces.len());
        }
    }

    #[test]
    fn smoothing_fillet_limit_and_slice() {
        let m = chamfer_cyl_mesh(&params(5.0, 8.0, 1.0, 1, 1, 6, 1)).expect("mesh");
        let groups: Vec<u32> = m.faces.iter().map(|f| f.smoothing).collect();
        // Top fan (cap), fillet band, side band, fillet band, bottom fan.
        assert_eq!(&groups[..6], &[4; 6]);
        assert_eq!(&groups[6..18], &[8; 12]);
        assert_eq!(&groups[18..30], &[16; 12]);
        assert_eq!(&groups[30..42], &[8; 12]);
        assert_eq!(&groups[42..], &[4; 6]);
        // A fillet beyond half the height is kept at it: the side collapses.
        let m = chamfer_cyl_mesh(&params(5.0, 2.0, 3.0, 1, 2, 6, 1)).expect("mesh");
        assert!(closed(&m));
        assert!(m
            .vertices
            .iter()
            .any(|p| (p.2 - 1.0).abs() < 1e-12
                && ((p.0 * p.0 + p.1 * p.1).sqrt() - 5.0).abs() < 1e-12));
        let mut v = values(5.0, 8.0, 1.0, 1, 1, 6, 1);
        v[8] = Value::Int(1);
        assert!(chamfer_cyl_mesh(&Params::from_values(v)).is_err());
    }

    /// `chcyl.cpp` with the real-world map size on: a cap corner's UV is
    /// (r + x, r + y) in scene units, and on the straight side U is the arc
    /// length r·angle from +X and V the height above the lower fillet's top
    /// (the side's V spans |height| − 2·fillet); the switch off gives the
    /// 0 … 1 mapping (the cap over the diameter, the side over 1).
    #[test]
    fn real_world_chamfer_cyl_maps_in_scene_units() {
        let (r, h, f) = (5.0f64, 8.0f64, 1.5f64);
        let plain = chamfer_cyl_mesh(&params(5.0, 8.0, 1.5, 2, 2, 8, 1)).expect("mesh");
        let m =
            chamfer_cyl_mesh(&params(5.0, 8.0, 1.5, 2, 2, 8, 1).with_real_world()).expect("mesh");
        assert_eq!((&m.vertices, &m.faces), (&plain.vertices, &plain.faces));
        let map = &m.maps[0];
        let (mut caps, mut sides) = (0, 0);
        for (face, tf) in m.faces.iter().zip(&map.faces) {
            let p = face.v.map(|i| m.vertices[i as usize]);
            let uv = tf.map(|t| map.vertices[t as usize]);
            if p.iter().all(|q| q.2 == h) || p.iter().all(|q| q.2 == 0.0) {
                caps += 1;
                for (q, t) in p.iter().zip(&uv) {
                    assert!((f64::from(t[0]) - (r + q.0)).abs() < 1e-5, "{q:?} {t:?}");
                    assert!((f64::from(t[1]) - (r + q.1)).abs() < 1e-5, "{q:?} {t:?}");
                }
            } else if p.iter().all(|q| {
                (q.0.hypot(q.1) - r).abs() < 1e-9 && q.2 >= f - 1e-9 && q.2 <= h - f + 1e-9
            }) {
                sides += 1;
                let angles = p.map(|q| q.1.atan2(q.0).rem_euclid(std::f64::consts::TAU));
                // The seam: corners at angle 0 of a face that wraps take 2π.
                let wraps = angles.iter().any(|&a| a > PI);
                for ((q, t), a) in p.iter().zip(&uv).zip(angles) {
                    let a = if wraps && a < 1e-9 {
                        std::f64::consts::TAU
                    } else {
                        a
                    };
                    assert!((f64::from(t[0]) - r * a).abs() < 1e-4, "{q:?} {t:?}");
                    assert!((f64::from(t[1]) - (q.2 - f)).abs() < 1e-5, "{q:?} {t:?}");
                }
            }
        }
        assert!(caps > 0 && sides > 0, "{caps} {sides}");
        let top = plain.maps[0]
            .vertices
            .iter()
            .map(|t| t[0])
            .fold(f32::MIN, f32::max);
        assert!(top <= 1.0 + 1e-6, "the switch off maps over 1 ({top})");
    }
}
