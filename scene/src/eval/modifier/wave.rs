//! Wave (0x47, 0): parallel waves along the gizmo's Y, moving points along
//! its Z — the linear sibling of Ripple (same frame and parameters).
//!
//! Old ParamBlock (reference 2) by index (public Max SDK sample
//! `sinwave.cpp`, `LinWaveOMod`): 0 amplitude 1, 1 amplitude 2, 2 wave
//! length, 3 phase, 4 decay (clamped at 0). In gizmo space a point (x, y, z)
//! moves along Z by a · sin(2π (y / wave length + phase)) · e^(−decay · |y|)
//! (a wave length of 0 counting as 1e-7), the amplitude blending from
//! amplitude 1 on the gizmo's Y axis to amplitude 2 at the sides:
//! u = (2x / w)², a = amp1 · (1 − u) + amp2 · u, w the mod-context box's
//! width along X; a zero width leaves the input as it is.

use super::ripple::sine_offset;
use super::simple_mod;
use super::{Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const WAVE: ClassId = ClassId(0x47, 0);

#[derive(Debug, Clone, Copy)]
pub(super) struct Wave {
    pub amp1: f64,
    pub amp2: f64,
    pub wave_length: f64,
    pub phase: f64,
    pub decay: f64,
    /// The mod-context box's width along X.
    pub width: f64,
}

impl Wave {
    pub fn map(&self, p: Vec3) -> Vec3 {
        if self.width == 0.0 {
            return p;
        }
        let u = (2.0 * p.0 / self.width).abs().powi(2);
        let a = self.amp1 * (1.0 - u) + self.amp2 * u;
        let dz = sine_offset(a, p.1, self.wave_length, self.phase, self.decay);
        Vec3(p.0, p.1, p.2 + dz)
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = simple_mod::old_block_params(cx, m)?;
    let frame = simple_mod::frame(cx, m)?;
    let wave = Wave {
        amp1: p.float_or(0, 0.0),
        amp2: p.float_or(1, 0.0),
        wave_length: p.float_or(2, 50.0),
        phase: p.float_or(3, 0.0),
        decay: p.float_or(4, 0.0).max(0.0),
        width: frame.extent(0),
    };
    frame.deform(mesh, &Mat43::IDENTITY, |q| wave.map(q))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wave(amp1: f64, amp2: f64) -> Wave {
        Wave {
            amp1,
            amp2,
            wave_length: 8.0,
            phase: 0.0,
            decay: 0.0,
            width: 10.0,
        }
    }

    #[test]
    fn crests_run_along_y_and_amplitudes_blend_across_x() {
        let w = wave(2.0, 2.0);
        assert_eq!(w.map(Vec3(3.0, 0.0, 1.0)), Vec3(3.0, 0.0, 1.0));
        assert!((w.map(Vec3(0.0, 2.0, 1.0)).2 - 3.0).abs() < 1e-12);
        assert!((w.map(Vec3(4.0, 6.0, 0.0)).2 + 2.0).abs() < 1e-12);
        // Amplitude 1 on the axis, amplitude 2 at the box's sides (x = ±w/2).
        let b = wave(1.0, 3.0);
        assert!((b.map(Vec3(0.0, 2.0, 0.0)).2 - 1.0).abs() < 1e-12);
        assert!((b.map(Vec3(5.0, 2.0, 0.0)).2 - 3.0).abs() < 1e-12);
        assert!((b.map(Vec3(-2.5, 2.0, 0.0)).2 - 1.5).abs() < 1e-12);
        // Phase ½ inverts; decay damps with |y|; a flat box is no wave.
        let p = Wave { phase: 0.5, ..w };
        assert!((p.map(Vec3(0.0, 2.0, 0.0)).2 + 2.0).abs() < 1e-12);
        let d = Wave { decay: 0.5, ..w };
        assert!((d.map(Vec3(0.0, -2.0, 0.0)).2 + 2.0 * (-1.0f64).exp()).abs() < 1e-12);
        let flat = Wave { width: 0.0, ..w };
        assert_eq!(flat.map(Vec3(0.0, 2.0, 0.0)), Vec3(0.0, 2.0, 0.0));
    }
}
