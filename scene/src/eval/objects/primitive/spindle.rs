//! Spindle ((0x130b141b, 0x4b35afe); Extended Primitives),
//! built as the public Max SDK sample `spind.cpp` builds it (the code here
//! is ours), on Capsule's layout (`capsule.rs`, [`domed_mesh`]).
//!
//! Old ParamBlock by index: 0 radius, 1 cap height, 2 height, 3 height
//! measures the centres (1) or the whole spindle (0), 4 blend, 5 sides
//! (3…200), 6 cap segments (1…200), 7 height segments (1…200), 8 smooth,
//! 9 slice on (refused), 10/11 slice from / to, 12 generate mapping. Max
//! first keeps the cap height within half the height and the blend within
//! (height − 2·cap height) / 2 (`FixSCapLimits`, `FixSBlendLimits`).
//!
//! Each end is a cone of `cap segments + 1` rings: the first of radius 0.01
//! at the tip's height, then evenly out to the radius over the cap height;
//! with a blend the last ring stops `blend` short along the cone's side
//! (radius r − blend·cos θ, depth c − blend·sin θ, θ = atan(c / r)) and one
//! more ring of radius r sits at depth c + blend. Smoothing: group 3 (4)
//! everywhere with a blend; without one the tip fans get group 5 (16), the
//! cones 3 (4), the cylinder 4 (8).

use super::capsule::{domed_mesh, Domed};
use super::Params;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const SPINDLE: ClassId = ClassId(0x130b141b, 0x4b35afe);

pub fn spindle_mesh(p: &Params) -> Result<Mesh, EvalError> {
    if p.flag(9, false) {
        return Err(EvalError::not_evaluated("a sliced Spindle"));
    }
    let r = p.float_or(0, 0.0).max(0.0);
    let centres = p.flag(3, false);
    let stored_h = p.float_or(2, 0.0);
    let mut cap = p.float_or(1, 0.0);
    let mut blend = p.float_or(4, 0.0);
    if ![r, stored_h, cap, blend].iter().all(|x| x.is_finite()) {
        return Err(EvalError::malformed("", "a parameter is not finite"));
    }
    // FixSCapLimits, then FixSBlendLimits (each with the other's current value).
    let whole = |cap: f64| stored_h.abs() + if centres { 2.0 * cap } else { 0.0 };
    let hh = whole(cap) / 2.0;
    if cap > hh {
        cap = hh;
    }
    let maxb = (whole(cap) - 2.0 * cap) / 2.0;
    if blend > maxb {
        blend = maxb;
    }
    let sides = p.int_or(5, 12).clamp(3, 200) as usize;
    let capsegs = p.int_or(6, 1).clamp(1, 200) as usize + 1;
    let segments = p.int_or(7, 1).clamp(1, 200) as usize;
    let smooth = p.flag(8, true);
    let height = stored_h + if centres { 2.0 * cap } else { 0.0 };
    let csegs = usize::from(blend > 0.0);
    let sideedge = capsegs + csegs;
    let deltah = cap / (capsegs - 1) as f64;
    let deltar = (r - 0.01) / (capsegs - 1) as f64;
    let theta = (cap / r).atan();
    let (chrad, chz) = (r - blend * theta.cos(), cap - blend * theta.sin());
    let rings = (1..=sideedge)
        .map(|ix| {
            if ix <= capsegs {
                let incap = capsegs == sideedge || ix < capsegs;
                if ix == 1 {
                    (0.01, 0.0)
                } else if incap {
                    (0.01 + deltar * (ix - 1) as f64, deltah * (ix - 1) as f64)
                } else {
                    (chrad, chz)
                }
            } else {
                (r, cap + blend)
            }
        })
        .collect();
    let lowerside = segments + sideedge;
    let band = move |clevel: usize| {
        if !smooth {
            0
        } else if blend > 0.0 {
            4
        } else if clevel == 0 {
            16
        } else if clevel < sideedge || clevel >= lowerside {
            4
        } else {
            8
        }
    };
    let fan = match (smooth, blend > 0.0) {
        (false, _) => 0,
        (true, true) => 4,
        (true, false) => 16,
    };
    domed_mesh(&Domed {
        sides,
        segments,
        rings,
        height,
        radius: r,
        mapping: p.flag(12, true),
        real_world: None,
        band_group: &band,
        fan_group: fan,
    })
}

#[cfg(test)]
mod tests {
    //! Invariants: Max's counts from the stated layout, a closed outward
    //! surface, the cone rings on the cone (radius linear in depth), the tip
    //! ring of radius 0.01, the blend ring on the radius.
    use super::*;
    use crate::eval::core::pblock::Value;
    use crate::eval::objects::surface_checks::{closed, signed_volume};

    fn params(blend: f32, sides: i32, csegs: i32, segs: i32) -> Params {
        Params::from_values(vec![
            Value::Float(4.0),
            Value::Float(3.0),
            Value::Float(20.0),
            Value::Int(0),
            Value::Float(blend),
            Value::Int(sides),
            Value::Int(csegs),
            Value::Int(segs),
            Value::Int(1),
            Value::Int(0),
            Value::Float(0.0),
            Value::Float(0.0),
            Value::Int(1),
        ])
    }

    #[test]
    fn spindle_counts_cones_and_blend() {
        for (blend, sides, csegs, segs) in [(0.0, 12, 1, 1), (0.0, 9, 3, 2), (1.0, 12, 2, 1)] {
            let m = spindle_mesh(&params(blend, sides, csegs, segs)).expect("mesh");
            let (s, l) = (sides as usize, segs as usize);
            let edge = csegs as usize + 1 + usize::from(blend > 0.0);
            assert_eq!(m.vertices.len(), 2 + s * (2 * edge + l - 1));
            assert_eq!(m.faces.len(), 2 * s * (l + 2 * edge - 1));
            assert!(closed(&m), "closed");
            assert!(signed_volume(&m) > 0.0, "outward");
            let top = m.vertices.iter().map(|p| p.2).fold(f64::MIN, f64::max);
            assert_eq!(top, 20.0);
            // The tip ring: radius 0.01 at the top.
            assert!(m.vertices[1..=s]
                .iter()
                .all(|p| p.2 == 20.0 && (p.0.hypot(p.1) - 0.01).abs() < 1e-12));
            // Cone rings: radius 0.01 + (4 − 0.01)·depth / 3 down the cap.
            for p in m.vertices.iter().filter(|p| p.2 > 17.0 && p.2 < 20.0) {
                let depth = 20.0 - p.2;
                if blend == 0.0 {
                    assert!((p.0.hypot(p.1) - (0.01 + 3.99 * depth / 3.0)).abs() < 1e-9);
                }
            }
            if blend > 0.0 {
                let z = 20.0 - 3.0 - blend as f64;
                assert!(m
                    .vertices
                    .iter()
                    .any(|p| (p.2 - z).abs() < 1e-9 && (p.0.hypot(p.1) - 4.0).abs() < 1e-9));
            }
            m.check_map_faces().expect("map faces");
        }
    }
}
