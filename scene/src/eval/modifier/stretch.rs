//! Stretch (0x100b0, 0xbc2d21): lengthens the input along its axis while
//! squeezing it across, most at the middle — one of Max's "simple" modifiers
//! (frame as in `simple_mod`).
//!
//! Old ParamBlock (reference 2) by index (public Max SDK sample
//! `stretch.cpp`): 0 stretch, 1 amplify, 2 axis (0 X, 1 Y, 2 Z), 3 limit
//! effect, 4 lower limit, 5 upper limit. In deform space (the axis turned onto
//! Z), with the height range [lo, hi] the mod-context box's extent along the
//! axis (the limits when on) and h the point's normalised height (the limit's
//! when beyond it): stretch s ≥ 0 scales X and Y by f(h) and Z by s + 1,
//! s < 0 squashes (X, Y grow by amp·(−s) + 1 at the middle, Z scales by
//! −1 / (s − 1)); f is the parabola with f(0) = f(1) = 1 and f(½) the
//! middle's factor (1 / (amp·s + 1) when stretching), amp = amplify + 1, or
//! 1 / (1 − amplify) when negative. Beyond a limit, Z moves rigidly by the
//! limit's own displacement.

use super::simple_mod::{self, axis_to_z};
use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const STRETCH: ClassId = ClassId(0x100b0, 0xbc2d21);

#[derive(Debug, Clone, Copy)]
pub(super) struct Stretch {
    pub amount: f64,
    pub amplifier: f64,
    pub height: (f64, f64),
    pub limits: Option<(f64, f64)>,
}

impl Stretch {
    pub fn new(
        amount: f64,
        amplify: f64,
        height: (f64, f64),
        limits: Option<(f64, f64)>,
    ) -> Stretch {
        Stretch {
            amount,
            amplifier: if amplify >= 0.0 {
                amplify + 1.0
            } else {
                1.0 / (1.0 - amplify)
            },
            height: limits.unwrap_or(height),
            limits,
        }
    }

    pub fn map(&self, p: Vec3) -> Vec3 {
        let (lo, hi) = self.height;
        if self.amount == 0.0 || hi - lo == 0.0 {
            return p;
        }
        let z = match self.limits {
            Some((from, to)) if to - from == 0.0 => return p,
            Some((_, to)) if p.2 > to => to,
            Some((from, _)) if p.2 < from => from,
            _ => p.2,
        };
        let h = (z - lo) / (hi - lo);
        let (xy, zs) = if self.amount < 0.0 {
            (
                self.amplifier * -self.amount + 1.0,
                -1.0 / (self.amount - 1.0),
            )
        } else {
            (
                1.0 / (self.amplifier * self.amount + 1.0),
                self.amount + 1.0,
            )
        };
        let a = 4.0 * (1.0 - xy);
        let f = (a * h - a) * h + 1.0;
        let nz = match self.limits {
            Some((from, _)) if p.2 < from => p.2 + (zs - 1.0) * from,
            Some((_, to)) if p.2 > to => p.2 + (zs - 1.0) * to,
            _ => p.2 * zs,
        };
        Vec3(p.0 * f, p.1 * f, nz)
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = simple_mod::old_block_params(cx, m)?;
    let naxis = p.int_or(2, 2);
    let limits = simple_mod::limits(&p, 3);
    let frame = simple_mod::frame(cx, m)?;
    let axis = axis_to_z(naxis)?;
    let k = naxis.clamp(0, 2) as usize;
    let height = (frame.min.to_array()[k], frame.max.to_array()[k]);
    let s = Stretch::new(p.float_or(0, 0.0), p.float_or(1, 0.0), height, limits);
    frame.deform(mesh, &axis, |q| s.map(q))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stretch_keeps_the_ends_and_pinches_the_middle() {
        let s = Stretch::new(1.0, 0.0, (0.0, 10.0), None);
        // Z doubles; X, Y keep their size at both ends and halve at mid height.
        assert_eq!(s.map(Vec3(2.0, 4.0, 0.0)), Vec3(2.0, 4.0, 0.0));
        assert_eq!(s.map(Vec3(2.0, 4.0, 10.0)), Vec3(2.0, 4.0, 20.0));
        let m = s.map(Vec3(2.0, 4.0, 5.0));
        assert!((m.0 - 1.0).abs() < 1e-12 && (m.1 - 2.0).abs() < 1e-12 && m.2 == 10.0);
        // Amplify 1 doubles the middle's effect: 1 / (2·1 + 1).
        let a = Stretch::new(1.0, 1.0, (0.0, 10.0), None).map(Vec3(3.0, 0.0, 5.0));
        assert!((a.0 - 1.0).abs() < 1e-12);
        // Squash: Z shrinks by 1 / (1 − s), the middle grows by (−s)·amp + 1.
        let q = Stretch::new(-1.0, 0.0, (0.0, 10.0), None).map(Vec3(1.0, 0.0, 5.0));
        assert!((q.0 - 2.0).abs() < 1e-12 && (q.2 - 2.5).abs() < 1e-12);
        // Zero stretch or a flat range is the identity.
        assert_eq!(
            Stretch::new(0.0, 5.0, (0.0, 1.0), None).map(Vec3(1.0, 2.0, 3.0)),
            Vec3(1.0, 2.0, 3.0)
        );
        assert_eq!(
            Stretch::new(1.0, 0.0, (2.0, 2.0), None).map(Vec3(1.0, 2.0, 3.0)),
            Vec3(1.0, 2.0, 3.0)
        );
    }

    #[test]
    fn beyond_the_limits_z_moves_rigidly() {
        let s = Stretch::new(1.0, 0.0, (0.0, 100.0), Some((0.0, 4.0)));
        // Above the upper limit: the limit's displacement (4 · (2 − 1)) added.
        assert_eq!(s.map(Vec3(1.0, 0.0, 10.0)), Vec3(1.0, 0.0, 14.0));
        // Inside: scaled, and the height is normalised over the limits.
        let m = s.map(Vec3(1.0, 0.0, 2.0));
        assert!((m.0 - 0.5).abs() < 1e-12 && m.2 == 4.0);
    }
}
