//! Ripple (0x45, 0): concentric waves about the gizmo's Z axis, one of Max's
//! "simple" modifiers (gizmo and centre as in `simple_mod`, no axis choice).
//!
//! Old ParamBlock (reference 2), by index (Max SDK sample `sinwave.cpp`,
//! public): 0 amplitude 1, 1 amplitude 2, 2 wave length, 3 phase, 4 decay
//! (clamped at 0). In gizmo space a point at distance r from the Z axis
//! (r measured in the XY plane) moves along Z by
//! a · sin(2π (r / wave length + phase)) · e^(−decay · r), a wave length of 0
//! counting as 1e-7. With two different amplitudes, a blends from
//! amplitude 1 on the X axis to amplitude 2 on the Y axis: u = 2·min(θ, π − θ)/π
//! with θ the angle of the point (its full 3D vector, as Max measures it) from
//! +X, smoothed as u²(3 − 2u), a = amp1·(1 − u) + amp2·u; a point at the
//! origin takes amplitude 1.

use super::simple_mod;
use super::{Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;

/// Max's floor for a zero wave length.
const MIN_WAVE_LENGTH: f64 = 1e-7;

/// A ripple in gizmo space.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ripple {
    pub amp1: f64,
    pub amp2: f64,
    pub wave_length: f64,
    pub phase: f64,
    pub decay: f64,
}

/// The offset along Z of a point at distance `d` from the wave's origin
/// (Ripple's radius, Wave's Y): a · sin(2π (d / wave length + phase)) ·
/// e^(−decay · |d|), a zero wave length counting as Max's floor. Ripple
/// and Wave (`sinwave.cpp`) share it.
pub(super) fn sine_offset(a: f64, d: f64, wave_length: f64, phase: f64, decay: f64) -> f64 {
    let wave = if wave_length == 0.0 {
        MIN_WAVE_LENGTH
    } else {
        wave_length
    };
    a * (std::f64::consts::TAU * (d / wave + phase)).sin() * (-decay * d.abs()).exp()
}

fn smoothstep(u: f64) -> f64 {
    let u = u.clamp(0.0, 1.0);
    u * u * (3.0 - 2.0 * u)
}

impl Ripple {
    /// The amplitude at `p`: amplitude 1 along X, 2 along Y.
    fn amplitude(&self, p: Vec3) -> f64 {
        if self.amp1 == self.amp2 {
            return self.amp1;
        }
        let len = p.len();
        if len == 0.0 {
            return self.amp1;
        }
        let mut u = (p.0 / len).clamp(-1.0, 1.0).acos() / std::f64::consts::PI;
        if u > 0.5 {
            u = 1.0 - u;
        }
        let u = smoothstep(2.0 * u);
        self.amp1 * (1.0 - u) + self.amp2 * u
    }

    pub fn map(&self, p: Vec3) -> Vec3 {
        let a = self.amplitude(p);
        let r = (p.0 * p.0 + p.1 * p.1).sqrt();
        let dz = sine_offset(a, r, self.wave_length, self.phase, self.decay);
        Vec3(p.0, p.1, p.2 + dz)
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = simple_mod::old_block_params(cx, m)?;
    let ripple = Ripple {
        amp1: p.float_or(0, 0.0),
        amp2: p.float_or(1, 0.0),
        wave_length: p.float_or(2, 50.0),
        phase: p.float_or(3, 0.0),
        decay: p.float_or(4, 0.0).max(0.0),
    };
    let frame = simple_mod::frame(cx, m)?;
    frame.deform(mesh, &Mat43::IDENTITY, |q| ripple.map(q))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ripple(amp1: f64, amp2: f64) -> Ripple {
        Ripple {
            amp1,
            amp2,
            wave_length: 10.0,
            phase: 0.0,
            decay: 0.0,
        }
    }

    #[test]
    fn crests_and_nodes_follow_the_wave_length() {
        let r = ripple(2.0, 2.0);
        // sin(2π·r/λ): zero at r = 0 and λ/2, crest at λ/4, trough at 3λ/4.
        assert!(r.map(Vec3(0.0, 0.0, 1.0)).2 == 1.0);
        assert!((r.map(Vec3(5.0, 0.0, 1.0)).2 - 1.0).abs() < 1e-12);
        assert!((r.map(Vec3(0.0, 2.5, 1.0)).2 - 3.0).abs() < 1e-12);
        assert!((r.map(Vec3(-7.5, 0.0, 0.0)).2 + 2.0).abs() < 1e-12);
        // Only Z moves; the height of the point does not enter r.
        let q = r.map(Vec3(1.5, 2.0, 40.0));
        assert_eq!((q.0, q.1), (1.5, 2.0));
        assert!((q.2 - 40.0 - 2.0 * (std::f64::consts::TAU * 0.25).sin()).abs() < 1e-12);
        // A phase of ½ inverts the wave; decay damps it with distance.
        let p = Ripple { phase: 0.5, ..r };
        assert!((p.map(Vec3(2.5, 0.0, 0.0)).2 + 2.0).abs() < 1e-12);
        let d = Ripple { decay: 0.1, ..r };
        assert!((d.map(Vec3(2.5, 0.0, 0.0)).2 - 2.0 * (-0.25f64).exp()).abs() < 1e-12);
    }

    #[test]
    fn two_amplitudes_blend_from_x_to_y() {
        let r = ripple(1.0, 3.0);
        assert_eq!(r.amplitude(Vec3(5.0, 0.0, 0.0)), 1.0);
        assert_eq!(r.amplitude(Vec3(-5.0, 0.0, 0.0)), 1.0);
        assert!((r.amplitude(Vec3(0.0, 5.0, 0.0)) - 3.0).abs() < 1e-12);
        assert!((r.amplitude(Vec3(0.0, -5.0, 0.0)) - 3.0).abs() < 1e-12);
        // 45°: u = ½, smoothstep ½ → the mean.
        assert!((r.amplitude(Vec3(1.0, 1.0, 0.0)) - 2.0).abs() < 1e-12);
        assert_eq!(r.amplitude(Vec3::default()), 1.0);
        assert!(r.map(Vec3(2.5, 0.0, 0.0)).2 > 0.99);
        assert!(r.map(Vec3(0.0, 2.5, 0.0)).2 > 2.99);
    }
}
