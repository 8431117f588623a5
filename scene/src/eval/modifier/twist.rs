//! Twist (0x90, 0): turns the input about its axis by an angle that grows
//! along it.
//!
//! Old ParamBlock (reference 2), by index: 0 angle (degrees), 1 bias (−100 to
//! 100), 2 axis (0 X, 1 Y, 2 Z), 3 limit effect, 4 lower limit, 5 upper limit.
//! In deform space (the axis turned onto Z) a point at height z (clamped to the
//! limits when they are on) turns about Z by a = angle · z / height, height
//! being the mod-context box's extent along the axis; with a bias b ≠ 0 by
//! a = ±angle · |z / height|^e, e = ln(β) / ln(½), β = 1 − (b + 100) / 200
//! kept in [1e-5, 1 − 1e-5], the sign of z (Max's `TwistDeformer`). The turn
//! takes (x, y) to (x·cos a + y·sin a, −x·sin a + y·cos a). A flat box or a
//! zero angle twists nothing.

use super::simple_mod::{self, axis_to_z};
use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;

/// A twist in deform space.
#[derive(Debug, Clone, Copy)]
pub(super) struct Twist {
    /// Radians; 0 when the box is flat.
    angle: f64,
    height: f64,
    /// Bias exponent, when a bias is set.
    exponent: Option<f64>,
    limits: Option<(f64, f64)>,
}

impl Twist {
    pub fn new(angle: f64, height: f64, bias: f64, limits: Option<(f64, f64)>) -> Twist {
        let exponent = (bias != 0.0).then(|| {
            let beta = (1.0 - (bias + 100.0) / 200.0).clamp(1e-5, 0.99999);
            beta.ln() / 0.5f64.ln()
        });
        Twist {
            angle: if height == 0.0 { 0.0 } else { angle },
            height,
            exponent,
            limits,
        }
    }

    pub fn map(&self, p: Vec3) -> Vec3 {
        if self.angle == 0.0 {
            return p;
        }
        let z = match self.limits {
            Some((lo, _)) if p.2 < lo => lo,
            Some((_, hi)) if p.2 > hi => hi,
            _ => p.2,
        };
        let a = match self.exponent {
            Some(e) => {
                let u = z / self.height;
                let a = self.angle * u.abs().powf(e);
                if u < 0.0 {
                    -a
                } else {
                    a
                }
            }
            None => z * self.angle / self.height,
        };
        let (s, c) = a.sin_cos();
        Vec3(c * p.0 + s * p.1, -s * p.0 + c * p.1, p.2)
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = simple_mod::old_block_params(cx, m)?;
    let naxis = p.int_or(2, 2);
    let frame = simple_mod::frame(cx, m)?;
    let axis = axis_to_z(naxis)?;
    let twist = Twist::new(
        p.float_or(0, 0.0).to_radians(),
        frame.extent(naxis as usize),
        p.float_or(1, 0.0),
        simple_mod::limits(&p, 3),
    );
    frame.deform(mesh, &axis, |q| twist.map(q))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        a.minus(b).len() < 1e-9
    }

    #[test]
    fn zero_angle_or_flat_box_is_identity() {
        let q = Vec3(1.0, 2.0, 3.0);
        assert_eq!(Twist::new(0.0, 10.0, 0.0, None).map(q), q);
        assert_eq!(Twist::new(1.0, 0.0, 0.0, None).map(q), q);
    }

    #[test]
    fn turn_grows_linearly_and_keeps_radius_and_height() {
        let half = std::f64::consts::PI;
        let t = Twist::new(half, 10.0, 0.0, None);
        // At the base nothing turns; at the top a half turn; halfway a quarter.
        assert!(close(t.map(Vec3(1.0, 0.0, 0.0)), Vec3(1.0, 0.0, 0.0)));
        assert!(close(t.map(Vec3(1.0, 0.0, 10.0)), Vec3(-1.0, 0.0, 10.0)));
        assert!(close(t.map(Vec3(1.0, 0.0, 5.0)), Vec3(0.0, -1.0, 5.0)));
        let q = Vec3(0.3, -0.7, 2.5);
        let r = t.map(q);
        assert!((r.0.hypot(r.1) - q.0.hypot(q.1)).abs() < 1e-12 && r.2 == q.2);
    }

    #[test]
    fn bias_and_limits() {
        let angle = 1.0;
        // A bias keeps both ends (u = 0, u = 1) and bends the law between them:
        // positive bias turns less in the middle.
        let plain = Twist::new(angle, 10.0, 0.0, None);
        let biased = Twist::new(angle, 10.0, 50.0, None);
        let top = Vec3(1.0, 0.0, 10.0);
        assert!(close(plain.map(top), biased.map(top)));
        let mid = Vec3(1.0, 0.0, 5.0);
        let turned = |p: Vec3| (-p.1).atan2(p.0);
        assert!(turned(biased.map(mid)) < turned(plain.map(mid)));
        // β = 0.25 gives the exponent 2: a quarter of the angle halfway.
        assert!((turned(biased.map(mid)) - 0.25 * angle).abs() < 1e-12);
        // Limits hold the turn of the limit beyond it.
        let lim = Twist::new(angle, 10.0, 0.0, Some((0.0, 5.0)));
        assert!(close(
            lim.map(Vec3(1.0, 0.0, 9.0)),
            Vec3(mid.0, 0.0, 9.0).plus(lim.map(mid)).minus(mid)
        ));
    }
}
