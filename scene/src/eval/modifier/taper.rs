//! Taper (0x20, 0): scales the input across its axis by a factor that grows
//! along it.
//!
//! Old ParamBlock (reference 2), by index: 0 amount, 1 curve, 2 primary axis
//! (0 X, 1 Y, 2 Z), 3 effect axes (0 the first, 1 the second, 2 both of the two
//! other axes, in deform space), 4 symmetry, 5 limit effect, 6 lower limit,
//! 7 upper limit. In deform space (the primary axis turned onto Z) a point at
//! height z, with u = z / length (length: the mod-context box's extent along
//! the primary axis; z clamped to the limits when they are on; |u| with
//! symmetry), has its effect coordinates scaled by
//! 1 + amount·u + curve·u·(1 − u) (Max's `TaperDeformer`). A flat box tapers
//! nothing.

use super::simple_mod::{self, axis_to_z};
use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;

/// A taper in deform space.
#[derive(Debug, Clone, Copy)]
pub(super) struct Taper {
    pub amount: f64,
    pub curve: f64,
    pub length: f64,
    /// Scale x, scale y.
    pub effect: (bool, bool),
    pub symmetry: bool,
    pub limits: Option<(f64, f64)>,
}

impl Taper {
    pub fn map(&self, p: Vec3) -> Vec3 {
        if self.length == 0.0 {
            return p;
        }
        let z = match self.limits {
            Some((lo, _)) if p.2 < lo => lo,
            Some((_, hi)) if p.2 > hi => hi,
            _ => p.2,
        };
        let mut u = z / self.length;
        if self.symmetry && u < 0.0 {
            u = -u;
        }
        let f = 1.0 + u * self.amount + self.curve * u * (1.0 - u);
        let (sx, sy) = self.effect;
        Vec3(
            if sx { p.0 * f } else { p.0 },
            if sy { p.1 * f } else { p.1 },
            p.2,
        )
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = simple_mod::old_block_params(cx, m)?;
    let naxis = p.int_or(2, 2);
    let effect = match p.int_or(3, 2) {
        0 => (true, false),
        1 => (false, true),
        2 => (true, true),
        e => return Err(EvalError::malformed("", format!("effect axis {e}"))),
    };
    let frame = simple_mod::frame(cx, m)?;
    let axis = axis_to_z(naxis)?;
    let taper = Taper {
        amount: p.float_or(0, 0.0),
        curve: p.float_or(1, 0.0),
        length: frame.extent(naxis as usize),
        effect,
        symmetry: p.flag(4, false),
        limits: simple_mod::limits(&p, 5),
    };
    frame.deform(mesh, &axis, |q| taper.map(q))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taper() -> Taper {
        Taper {
            amount: 1.0,
            curve: 0.0,
            length: 10.0,
            effect: (true, true),
            symmetry: false,
            limits: None,
        }
    }

    #[test]
    fn zero_amount_and_curve_is_identity() {
        let t = Taper {
            amount: 0.0,
            ..taper()
        };
        let q = Vec3(1.0, -2.0, 7.0);
        assert_eq!(t.map(q), q);
        let flat = Taper {
            length: 0.0,
            ..taper()
        };
        assert_eq!(flat.map(q), q);
    }

    #[test]
    fn amount_scales_linearly_and_curve_bulges() {
        let t = taper();
        // At the base nothing moves; at the top (u = 1) the amount doubles.
        assert_eq!(t.map(Vec3(1.0, 2.0, 0.0)), Vec3(1.0, 2.0, 0.0));
        assert_eq!(t.map(Vec3(1.0, 2.0, 10.0)), Vec3(2.0, 4.0, 10.0));
        let c = Taper {
            amount: 0.0,
            curve: 1.0,
            ..taper()
        };
        // The curve is 0 at both ends and largest halfway: 1 + ¼.
        assert_eq!(c.map(Vec3(4.0, 0.0, 10.0)), Vec3(4.0, 0.0, 10.0));
        assert_eq!(c.map(Vec3(4.0, 0.0, 5.0)), Vec3(5.0, 0.0, 5.0));
        let x_only = Taper {
            effect: (true, false),
            ..taper()
        };
        assert_eq!(x_only.map(Vec3(1.0, 2.0, 10.0)), Vec3(2.0, 2.0, 10.0));
    }

    #[test]
    fn symmetry_and_limits() {
        let sym = Taper {
            symmetry: true,
            ..taper()
        };
        assert_eq!(
            sym.map(Vec3(1.0, 1.0, -5.0)),
            sym.map(Vec3(1.0, 1.0, 5.0)).plus(Vec3(0.0, 0.0, -10.0))
        );
        let lim = Taper {
            limits: Some((0.0, 5.0)),
            ..taper()
        };
        // Beyond the upper limit the factor stays the limit's.
        assert_eq!(lim.map(Vec3(2.0, 0.0, 9.0)), Vec3(3.0, 0.0, 9.0));
        assert_eq!(lim.map(Vec3(2.0, 0.0, -3.0)), Vec3(2.0, 0.0, -3.0));
    }
}
