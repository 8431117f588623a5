//! Squeeze (0x11d527a5, 0x3a5149a4): bulges the input along its Z axis and
//! pinches it across, one of Max's "simple" modifiers (frame as in
//! `simple_mod`; its axis is always the gizmo's Z).
//!
//! Old ParamBlock (reference 2) by index (public Max SDK sample, class
//! `SpindleMod`): 0 axial bulge amount, 1 its curve, 2 radial squeeze amount,
//! 3 its curve, 4 limit effect, 5 lower limit, 6 upper limit, 7 effect
//! balance (bias), 8 effect volume. With the mod-context box's half height
//! `len` and half its XY diagonal `r_max` (either zero: nothing moves), a
//! point at (x, y, z) in deform space has
//! - radial fall-off f = 1 / (1 + (√(x² + y²) / r_max)^curve),
//! - bulge b = vol·(1 + bias)·(|z| / len)·amount·f, Z scaled by 1 + b,
//! - s = |z| / len (|lower| / len below the lower limit, |upper| / len above
//!   the upper one, when limited), X and Y scaled by
//!   1 / (1 + |q|) + vol·(1 − bias)·(q / (1 + |q|))·s^curveQ (q the radial
//!   amount).

use super::simple_mod;
use super::{Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const SQUEEZE: ClassId = ClassId(0x11d5_27a5, 0x3a51_49a4);

/// A squeeze in deform space.
#[derive(Debug, Clone, Copy)]
pub(super) struct Squeeze {
    pub bulge: f64,
    pub bulge_curve: f64,
    pub squeeze: f64,
    pub squeeze_curve: f64,
    pub limits: Option<(f64, f64)>,
    pub bias: f64,
    pub volume: f64,
    /// Half the box's height and half its XY diagonal.
    pub half_height: f64,
    pub max_radius: f64,
}

impl Squeeze {
    pub fn map(&self, p: Vec3) -> Vec3 {
        let (len, r_max) = (self.half_height, self.max_radius);
        if len == 0.0 || r_max == 0.0 {
            return p;
        }
        let eff_r = p.0.hypot(p.1) / r_max;
        let falloff = 1.0 / (1.0 + eff_r.powf(self.bulge_curve));
        let bulge = self.volume * (1.0 + self.bias) * (p.2.abs() / len) * self.bulge * falloff;
        let z = match self.limits {
            Some((lo, _)) if p.2 < lo => lo,
            Some((_, hi)) if p.2 > hi => hi,
            _ => p.2,
        };
        let s = z.abs() / len;
        let q = self.squeeze;
        let across = 1.0 / (1.0 + q.abs())
            + self.volume * (1.0 - self.bias) * (q / (1.0 + q.abs())) * s.powf(self.squeeze_curve);
        Vec3(p.0 * across, p.1 * across, p.2 * (1.0 + bulge))
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = simple_mod::old_block_params(cx, m)?;
    let frame = simple_mod::frame(cx, m)?;
    let diagonal = Vec3(frame.extent(0), frame.extent(1), 0.0);
    let squeeze = Squeeze {
        bulge: p.float_or(0, 0.0),
        bulge_curve: p.float_or(1, 2.0),
        squeeze: p.float_or(2, 0.0),
        squeeze_curve: p.float_or(3, 2.0),
        limits: simple_mod::limits(&p, 4),
        bias: p.float_or(7, 0.0),
        volume: p.float_or(8, 1.0),
        half_height: 0.5 * frame.extent(2),
        max_radius: 0.5 * diagonal.len(),
    };
    frame.deform(mesh, &Mat43::IDENTITY, |q| squeeze.map(q))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SDK sample's defaults on a box 10 high and 6 × 8 across.
    fn defaults() -> Squeeze {
        Squeeze {
            bulge: 0.0,
            bulge_curve: 2.0,
            squeeze: 0.0,
            squeeze_curve: 2.0,
            limits: None,
            bias: 0.0,
            volume: 1.0,
            half_height: 5.0,
            max_radius: 5.0,
        }
    }

    #[test]
    fn the_defaults_and_a_flat_box_move_nothing() {
        let q = Vec3(1.0, -2.0, 3.0);
        assert_eq!(defaults().map(q), q);
        let flat = Squeeze {
            bulge: 1.0,
            squeeze: 1.0,
            half_height: 0.0,
            ..defaults()
        };
        assert_eq!(flat.map(q), q);
    }

    #[test]
    fn the_bulge_grows_with_height_and_falls_off_with_radius() {
        let s = Squeeze {
            bulge: 0.5,
            ..defaults()
        };
        // On the axis at the top (|z| / len = 1, fall-off 1): z · 1.5.
        assert_eq!(s.map(Vec3(0.0, 0.0, 5.0)), Vec3(0.0, 0.0, 7.5));
        assert_eq!(s.map(Vec3(0.0, 0.0, -5.0)), Vec3(0.0, 0.0, -7.5));
        // At the box's radius (eff_r 1) the fall-off halves it.
        let p = s.map(Vec3(3.0, 4.0, 5.0));
        assert!((p.2 - 5.0 * 1.25).abs() < 1e-12, "{p:?}");
        assert_eq!((p.0, p.1), (3.0, 4.0));
    }

    #[test]
    fn the_squeeze_pinches_the_middle_and_keeps_the_ends() {
        let s = Squeeze {
            squeeze: 1.0,
            squeeze_curve: 1.0,
            ..defaults()
        };
        // Middle (s = 0): 1 / (1 + 1) = ½; ends (s = 1): ½ + ½ = 1.
        assert_eq!(s.map(Vec3(2.0, 4.0, 0.0)), Vec3(1.0, 2.0, 0.0));
        assert_eq!(s.map(Vec3(2.0, 4.0, 5.0)), Vec3(2.0, 4.0, 5.0));
        // A limit holds the factor of the limit beyond it.
        let lim = Squeeze {
            limits: Some((-1.0, 0.0)),
            ..s
        };
        assert_eq!(lim.map(Vec3(2.0, 0.0, 4.0)), Vec3(1.0, 0.0, 4.0));
        let below = lim.map(Vec3(2.0, 0.0, -5.0));
        assert!(
            (below.0 - 1.2).abs() < 1e-12 && below.2 == -5.0,
            "{below:?}"
        );
    }

    #[test]
    fn bias_trades_squeeze_for_bulge() {
        let s = Squeeze {
            bulge: 1.0,
            squeeze: 1.0,
            squeeze_curve: 1.0,
            bias: 1.0,
            ..defaults()
        };
        // Bias +1: the bulge doubles (on the axis: z · 3), the squeeze's
        // second term vanishes (at the top the factor stays ½).
        assert_eq!(s.map(Vec3(0.0, 0.0, 5.0)), Vec3(0.0, 0.0, 15.0));
        let off = s.map(Vec3(0.0, 2.0, 5.0));
        assert_eq!(off.1, 1.0);
        // Radius 2 of 5: fall-off 1 / (1 + 0.4²).
        assert!((off.2 - 5.0 * (1.0 + 2.0 / 1.16)).abs() < 1e-12, "{off:?}");
    }
}
