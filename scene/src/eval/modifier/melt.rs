//! Melt (0x36d04fa5, 0x500727b3): sags the input towards the bottom of its
//! box and spreads it outwards, one of Max's "simple" modifiers (frame as in
//! `simple_mod`; no axis turn: the deformer reads its axis itself).
//!
//! Old ParamBlock (reference 2) by index (public Max SDK sample `melt.cpp`,
//! version 4): 0 amount, 1 confine (unused by the deformer), 2 spread (%),
//! 3 a floor offset (×0.1; no user interface), 4 solidity preset (0 ice 2,
//! 1 glass 12, 2 jelly 0.4, 3 plastic 0.7, 4 custom: 5), 5 custom
//! solidity, 6 axis (0 Z, 1 Y, 2 X: the axis the input melts along), 7
//! negative axis. With the mod-context box B, its centre c and half its
//! largest extent s, a point p (in gizmo space) is first pushed out across
//! the axis: each cross component w = p − c gains sign(w)·|w·s/|p − c||·
//! amount/100·spread/100. Points below B's bottom + floor along the axis stay
//! there; the others drop by amount/100 · (r + max(0, R − r)/solidity), r
//! their distance from the axis line through c after the push and R that of
//! B's top corner, clamped at B's bottom and bottom + floor (negative axis:
//! rise, clamped at the top). The sample's singularity guards are kept: a
//! point at c counts as one at c + (1, 1, 1) for the push, and one at the
//! gizmo origin as (1, 1, 1).

use super::simple_mod;
use super::{Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const MELT: ClassId = ClassId(0x36d0_4fa5, 0x5007_27b3);

/// The solidity presets, by the index parameter 4 holds.
const SOLIDITY_PRESETS: [f64; 4] = [2.0, 12.0, 0.4, 0.7];

/// A melt in gizmo space.
#[derive(Debug, Clone, Copy)]
pub(super) struct Melt {
    pub min: Vec3,
    pub max: Vec3,
    /// amount / 100.
    pub bulge: f64,
    /// spread / 100.
    pub spread: f64,
    /// The floor offset / 10.
    pub floor: f64,
    pub solidity: f64,
    /// 0 melts along Z, 1 along Y, 2 along X.
    pub axis: i64,
    pub negative: bool,
}

/// Max's `sign` in the sample: −1 below zero, else 1.
fn sign(x: f64) -> f64 {
    if x < 0.0 {
        -1.0
    } else {
        1.0
    }
}

impl Melt {
    /// The indices of (melt axis, first and second cross axis) as the
    /// sample pairs them.
    fn axes(&self) -> (usize, usize, usize) {
        match self.axis {
            1 => (1, 0, 2),
            2 => (0, 2, 1),
            _ => (2, 0, 1),
        }
    }

    pub fn map(&self, p: Vec3) -> Vec3 {
        let c = self.min.plus(self.max).scale(0.5);
        let e = self.max.minus(self.min);
        let size = e.0.max(e.1).max(e.2) / 2.0;
        let pa = p.to_array();
        let ca = c.to_array();
        let mut w = p.minus(c).to_array();
        if w == [0.0; 3] {
            w = [1.0; 3];
        }
        let mut q = if pa == [0.0; 3] { [1.0; 3] } else { pa };
        let mfac = size / (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
        let (m, a, b) = self.axes();
        for k in [a, b] {
            q[k] = w[k] + sign(w[k]) * (w[k] * mfac).abs() * (self.bulge * self.spread) + ca[k];
        }
        let (lo, hi) = (self.min.to_array(), self.max.to_array());
        // Below the floor (tested on the input point) nothing sags.
        if pa[m] >= lo[m] + self.floor {
            let real_max = (hi[a] - ca[a]).hypot(hi[b] - ca[b]);
            let r = (q[a] - ca[a]).hypot(q[b] - ca[b]);
            let fall = (r + (real_max - r).max(0.0) / self.solidity) * self.bulge;
            if self.negative {
                q[m] += fall;
                q[m] = q[m].min(hi[m]).min(hi[m] + self.floor);
            } else {
                q[m] -= fall;
                q[m] = q[m].max(lo[m]).max(lo[m] + self.floor);
            }
        }
        Vec3(q[0], q[1], q[2])
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = simple_mod::old_block_params(cx, m)?;
    let preset = p.int_or(4, 0);
    let solidity = match usize::try_from(preset)
        .ok()
        .and_then(|i| SOLIDITY_PRESETS.get(i))
    {
        Some(s) => *s,
        None if preset == 4 => p.float_or(5, 1.0),
        None => {
            return Err(EvalError::malformed(
                "",
                format!("solidity preset {preset}"),
            ))
        }
    };
    let axis = p.int_or(6, 0);
    if !(0..=2).contains(&axis) {
        return Err(EvalError::malformed("", format!("axis {axis}")));
    }
    let frame = simple_mod::frame(cx, m)?;
    let melt = Melt {
        min: frame.min,
        max: frame.max,
        bulge: p.float_or(0, 0.0) / 100.0,
        spread: p.float_or(2, 0.0) / 100.0,
        floor: p.float_or(3, 0.0) / 10.0,
        solidity,
        axis,
        negative: p.flag(7, false),
    };
    frame.deform(mesh, &Mat43::IDENTITY, |q| melt.map(q))
}

#[cfg(test)]
mod tests {
    //! Expected values worked by hand from the sample's `MeltDeformer::Map`.
    use super::*;

    fn melt(bulge: f64, spread: f64) -> Melt {
        Melt {
            min: Vec3(-10.0, -10.0, 0.0),
            max: Vec3(10.0, 10.0, 20.0),
            bulge,
            spread,
            floor: 0.0,
            solidity: 2.0,
            axis: 0,
            negative: false,
        }
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        a.minus(b).len() < 1e-9
    }

    #[test]
    fn points_drop_by_their_distance_from_the_axis_and_the_rim_term() {
        // No spread: r is the input's distance from the centre line.
        let m = melt(0.5, 0.0);
        // R = |(10, 10)| = 14.142…; at r = 0 the drop is 0.5·R/2.
        let real_max = 200f64.sqrt();
        let got = m.map(Vec3(0.0, 0.0, 20.0));
        assert!(
            close(got, Vec3(0.0, 0.0, 20.0 - 0.5 * real_max / 2.0)),
            "{got:?}"
        );
        // At r = 5: drop 0.5·(5 + (R − 5)/2).
        let got = m.map(Vec3(3.0, 4.0, 18.0));
        let want = 18.0 - 0.5 * (5.0 + (real_max - 5.0) / 2.0);
        assert!(close(got, Vec3(3.0, 4.0, want)), "{got:?}");
        // Clamped at the box's bottom.
        let got = melt(5.0, 0.0).map(Vec3(3.0, 4.0, 2.0));
        assert!(close(got, Vec3(3.0, 4.0, 0.0)), "{got:?}");
        // Negative axis: rises, clamped at the top.
        let up = Melt {
            negative: true,
            ..melt(5.0, 0.0)
        };
        assert!(close(up.map(Vec3(3.0, 4.0, 2.0)), Vec3(3.0, 4.0, 20.0)));
    }

    #[test]
    fn spread_pushes_across_the_axis_by_the_box_size() {
        // c = (0, 0, 10), s = 10; p = (6, 8, 10): |p − c| = 10, mfac = 1,
        // x gains 6·0.5·0.2 = 0.6, y 8·0.1 = 0.8.
        let m = melt(0.5, 0.2);
        let got = m.map(Vec3(6.0, -8.0, 10.0));
        let (x, y) = (6.6, -8.8);
        let r = f64::hypot(x, y);
        let real_max = 200f64.sqrt();
        let z = 10.0 - 0.5 * (r + (real_max - r).max(0.0) / 2.0);
        assert!(close(got, Vec3(x, y, z)), "{got:?}");
    }

    #[test]
    fn below_the_floor_only_the_push_applies_and_axes_swap() {
        let m = Melt {
            floor: 1.0,
            ..melt(0.5, 0.2)
        };
        // z = 0.5 is under bottom + floor: no sag.
        let got = m.map(Vec3(6.0, 8.0, 0.5));
        let d = Vec3(6.0, 8.0, -9.5).len();
        let k = 1.0 + 10.0 / d * 0.1;
        assert!(close(got, Vec3(6.0 * k, 8.0 * k, 0.5)), "{got:?}");
        // Axis 2 melts along X (cross axes Z, Y).
        let mx = Melt {
            axis: 2,
            min: Vec3(0.0, -10.0, -10.0),
            max: Vec3(20.0, 10.0, 10.0),
            ..melt(0.5, 0.0)
        };
        let got = mx.map(Vec3(18.0, 4.0, 3.0));
        let real_max = 200f64.sqrt();
        let want = 18.0 - 0.5 * (5.0 + (real_max - 5.0) / 2.0);
        assert!(close(got, Vec3(want, 4.0, 3.0)), "{got:?}");
    }
}
