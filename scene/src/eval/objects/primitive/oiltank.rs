//! OilTank ((0x210e642a, 0x22f11ef8); Extended Primitives), built as the
//! public Max SDK sample `oiltnk.cpp` builds it (the code here is ours), on
//! Capsule's layout (`capsule.rs`, [`domed_mesh`]).
//!
//! Old ParamBlock by index: 0 radius, 1 cap height, 2 height, 3 height
//! measures the centres (1) or the whole tank (0), 4 blend, 5 sides
//! (3…200), 6 height segments (1…200), 7 smooth, 8 slice on (refused),
//! 9/10 slice from / to, 11 generate mapping. Max first keeps the cap
//! height within [0.025·radius, 0.99·min(radius, height / 2)] and the blend
//! within (height − 2·cap height) / 2 (`FixCapLimits`, `FixBlendLimits`).
//!
//! Each dome is a spherical cap of radius R = (r² + c²) / 2c spanning
//! θ = atan(2rc / (r² − c²)) in ⌊sides / 3⌋ rings of equal angle; with a
//! blend the last ring stops at θ − α (α = acos(1 − blend / 2r²)) and one
//! more ring of radius r sits at depth c + blend. Smoothing: group 3 (4)
//! everywhere with a blend; without one the cylinder's bands get group 4
//! (8), the domes group 3. A zero radius is an empty mesh, as in Max.

use super::capsule::{domed_mesh, Domed};
use super::Params;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const OIL_TANK: ClassId = ClassId(0x210e642a, 0x22f11ef8);

pub fn oil_tank_mesh(p: &Params) -> Result<Mesh, EvalError> {
    if p.flag(8, false) {
        return Err(EvalError::not_evaluated("a sliced OilTank"));
    }
    let r = p.float_or(0, 0.0).max(0.0);
    let centres = p.flag(3, false);
    let stored_h = p.float_or(2, 0.0);
    let mut cap = p.float_or(1, 0.0);
    let mut blend = p.float_or(4, 0.0);
    if ![r, stored_h, cap, blend].iter().all(|x| x.is_finite()) {
        return Err(EvalError::malformed("", "a parameter is not finite"));
    }
    // FixCapLimits, then FixBlendLimits (each with the other's current value).
    let whole = |cap: f64| stored_h.abs() + if centres { 2.0 * cap } else { 0.0 };
    let maxh = (whole(cap) / 2.0).min(r) * 0.99;
    if cap > maxh {
        cap = maxh;
    }
    if cap < 0.025 * r {
        cap = 0.025 * r;
    }
    let maxb = (whole(cap) - 2.0 * cap) / 2.0;
    if blend > maxb {
        blend = maxb;
    }
    let sides = p.int_or(5, 12).clamp(3, 200) as usize;
    let segments = p.int_or(6, 1).clamp(1, 200) as usize;
    let smooth = p.flag(7, true);
    if r == 0.0 {
        return Ok(Mesh::default());
    }
    let height = stored_h + if centres { 2.0 * cap } else { 0.0 };
    let capsegs = sides / 3;
    let csegs = usize::from(blend > 0.0);
    let sideedge = capsegs + csegs;
    let (r2, c2) = (r * r, cap * cap);
    let tnkrad = (r2 + c2) / (2.0 * cap);
    let theta = (2.0 * r * cap / (r2 - c2)).atan();
    let alpha = (1.0 - blend / (2.0 * r2)).acos();
    let tangle = theta / capsegs as f64;
    let chrad = tnkrad * (theta - alpha).sin();
    let chz = tnkrad * (1.0 - (theta - alpha).cos());
    let rings = (1..=sideedge)
        .map(|ix| {
            if ix <= capsegs {
                if capsegs == sideedge || ix < capsegs {
                    let a = tangle * ix as f64;
                    (tnkrad * a.sin(), tnkrad * (1.0 - a.cos()))
                } else {
                    (chrad, chz)
                }
            } else {
                (r, cap + blend)
            }
        })
        .collect();
    let (lowerside, group) = (segments + sideedge, if smooth { 4 } else { 0 });
    let band = move |clevel: usize| {
        if !smooth {
            0
        } else if blend > 0.0 || clevel < sideedge || clevel >= lowerside {
            4
        } else {
            8
        }
    };
    domed_mesh(&Domed {
        sides,
        segments,
        rings,
        height,
        radius: r,
        mapping: p.flag(11, true),
        real_world: None,
        band_group: &band,
        fan_group: group,
    })
}

#[cfg(test)]
mod tests {
    //! Invariants: Max's counts from the stated layout, a closed outward
    //! surface, the dome points on the cap sphere, the blend ring on the
    //! radius, the stored cap height at the top.
    use super::*;
    use crate::eval::core::pblock::Value;
    use crate::eval::objects::surface_checks::{closed, signed_volume};

    fn params(cap: f32, blend: f32, sides: i32, segs: i32) -> Params {
        Params::from_values(vec![
            Value::Float(4.0),
            Value::Float(cap),
            Value::Float(20.0),
            Value::Int(0),
            Value::Float(blend),
            Value::Int(sides),
            Value::Int(segs),
            Value::Int(1),
            Value::Int(0),
            Value::Float(0.0),
            Value::Float(0.0),
            Value::Int(1),
        ])
    }

    #[test]
    fn oil_tank_counts_domes_and_blend() {
        for (blend, sides, segs) in [(0.0, 12, 1), (0.0, 9, 3), (1.0, 12, 2), (0.5, 18, 1)] {
            let m = oil_tank_mesh(&params(2.0, blend, sides, segs)).expect("mesh");
            let (s, l) = (sides as usize, segs as usize);
            let edge = s / 3 + usize::from(blend > 0.0);
            assert_eq!(
                m.vertices.len(),
                2 + s * (2 * edge + l - 1),
                "{blend}/{sides}/{segs}"
            );
            assert_eq!(m.faces.len(), 2 * s * (l + 2 * edge - 1));
            assert!(closed(&m), "closed");
            let v = signed_volume(&m);
            assert!(v > 0.0 && v < std::f64::consts::PI * 16.0 * 20.0, "{v}");
            let top = m.vertices.iter().map(|p| p.2).fold(f64::MIN, f64::max);
            assert_eq!(top, 20.0);
            // The dome sphere: radius (r² + c²) / 2c = 5, centre 5 below the top.
            let tnk = (16.0 + 4.0) / 4.0;
            let dome: Vec<_> = m.vertices.iter().filter(|p| p.2 > 18.0 + 1e-9).collect();
            assert!(!dome.is_empty());
            for p in dome {
                let d = (p.0 * p.0 + p.1 * p.1 + (p.2 - (20.0 - tnk)).powi(2)).sqrt();
                assert!((d - tnk).abs() < 1e-9, "{p:?} off the dome");
            }
            if blend > 0.0 {
                // The blend ring: radius r at depth cap + blend.
                let z = 20.0 - 2.0 - blend as f64;
                assert!(m.vertices.iter().any(|p| (p.2 - z).abs() < 1e-9
                    && ((p.0 * p.0 + p.1 * p.1).sqrt() - 4.0).abs() < 1e-9));
            }
            m.check_map_faces().expect("map faces");
        }
    }

    #[test]
    fn limits_and_empty_tank() {
        // A cap height above the radius is kept at 0.99 of it.
        let m = oil_tank_mesh(&params(10.0, 0.0, 12, 1)).expect("mesh");
        let below = m
            .vertices
            .iter()
            .filter(|p| p.2 >= 20.0 - 3.96 - 1e-6)
            .count();
        assert_eq!(below, 1 + 12 * 4, "the pole and the dome's 4 rings");
        assert!(oil_tank_mesh(&params(2.0, 0.0, 12, 1)).is_ok());
        assert!(oil_tank_mesh(&Params::from_values(vec![
            Value::Float(0.0),
            Value::Float(1.0),
            Value::Float(5.0),
        ]))
        .expect("empty")
        .vertices
        .is_empty());
    }
}
