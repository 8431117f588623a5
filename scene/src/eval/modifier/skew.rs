//! Skew (0x6f3cc2aa, 0): shears the input along X of its deform space in
//! proportion to height, one of Max's "simple" modifiers (frame as in
//! `simple_mod`).
//!
//! Old ParamBlock (reference 2) by index (public Max SDK sample `skew.cpp`):
//! 0 amount, 1 direction (degrees), 2 axis (0 X, 1 Y, 2 Z), 3 limit effect,
//! 4 lower limit, 5 upper limit. Deform space: the axis turned onto Z, then
//! turned by the direction about Z. A point at height z (clamped to the limits
//! when on) moves along X by z · amount / length, length the mod-context box's
//! extent along the axis (upper − lower with limits; 0 counts as 1e-6).

use super::simple_mod::{self, axis_to_z};
use super::{Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const SKEW: ClassId = ClassId(0x6f3cc2aa, 0);

/// A skew in deform space.
#[derive(Debug, Clone, Copy)]
pub(super) struct Skew {
    pub per_height: f64,
    pub limits: Option<(f64, f64)>,
}

impl Skew {
    pub fn new(amount: f64, length: f64, limits: Option<(f64, f64)>) -> Skew {
        let len = match limits {
            Some((lo, hi)) => hi - lo,
            None => length,
        };
        let len = if len == 0.0 { 0.000001 } else { len };
        Skew {
            per_height: amount / len,
            limits,
        }
    }

    pub fn map(&self, p: Vec3) -> Vec3 {
        let z = match self.limits {
            Some((lo, _)) if p.2 < lo => lo,
            Some((_, hi)) if p.2 > hi => hi,
            _ => p.2,
        };
        Vec3(p.0 + z * self.per_height, p.1, p.2)
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = simple_mod::old_block_params(cx, m)?;
    let amount = p.float_or(0, 0.0);
    let dir = p.float_or(1, 0.0).to_radians();
    let naxis = p.int_or(2, 2);
    let limits = simple_mod::limits(&p, 3);
    let frame = simple_mod::frame(cx, m)?;
    let axis = axis_to_z(naxis)?.then(&Mat43::rot_z(dir));
    let skew = Skew::new(amount, frame.extent(naxis as usize), limits);
    frame.deform(mesh, &axis, |q| skew.map(q))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shear_grows_with_height_and_stops_at_limits() {
        let s = Skew::new(3.0, 6.0, None);
        assert_eq!(s.map(Vec3(1.0, 2.0, 0.0)), Vec3(1.0, 2.0, 0.0));
        assert_eq!(s.map(Vec3(1.0, 2.0, 6.0)), Vec3(4.0, 2.0, 6.0));
        assert_eq!(s.map(Vec3(1.0, 2.0, -2.0)), Vec3(0.0, 2.0, -2.0));
        let l = Skew::new(2.0, 100.0, Some((0.0, 4.0)));
        // Above the upper limit the offset stays that of the limit.
        assert_eq!(l.map(Vec3(0.0, 0.0, 10.0)), Vec3(2.0, 0.0, 10.0));
        assert_eq!(l.map(Vec3(0.0, 0.0, -1.0)), Vec3(0.0, 0.0, -1.0));
        // A flat input does not divide by zero.
        assert!(Skew::new(1.0, 0.0, None).map(Vec3(0.0, 0.0, 0.0)).0 == 0.0);
    }
}
