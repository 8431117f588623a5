//! Bend (0x10, 0): bends the input around the gizmo's axis.
//!
//! ParamBlock2 (reference 2), by id: 0 angle (degrees), 1 direction (degrees,
//! about the bend axis), 2 axis (0 X, 1 Y, 2 Z), 3 limit effect, 4 lower
//! limit, 5 upper limit. In deform space (gizmo space with the axis turned onto
//! Z, then turned by the direction about Z) a point at height z goes on a
//! circle of radius r = length / angle, length being the mod-context box's
//! extent along the axis, or upper − lower with limits: it turns by z / r about
//! Y around the line x = r. With limits, points below the lower or above the
//! upper limit follow the limit's plane rigidly (Max's `BendDeformer`). An
//! angle under 1e-4 rad is no bend.

use super::simple_mod::{self, axis_to_z};
use super::{Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;

/// Angles under this (radians) bend nothing (Max skips the singularity).
const MIN_ANGLE: f64 = 1e-4;

/// A bend in deform space.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bend {
    /// Radius; 0 for no bend.
    r: f64,
    /// (lower, upper, rigid map below, rigid map above) with limits on.
    limits: Option<(f64, f64, Mat43, Mat43)>,
}

impl Bend {
    /// `angle` in radians; `length` the box extent along the axis (used
    /// without limits).
    pub fn new(angle: f64, length: f64, limits: Option<(f64, f64)>) -> Bend {
        let len = limits.map_or(length, |(lo, hi)| hi - lo);
        let r = if angle.abs() < MIN_ANGLE {
            0.0
        } else {
            len / angle
        };
        let free = Bend { r, limits: None };
        let limits = limits.map(|(lo, hi)| {
            let (above, below) = if hi - lo == 0.0 {
                (angle, angle)
            } else {
                (angle * hi / (hi - lo), angle * lo / (hi - lo))
            };
            (lo, hi, free.rigid_at(hi, above), free.rigid_at(lo, below))
        });
        Bend { r, limits }
    }

    /// The rigid map of the plane z = `z`: turned by `angle` about Y through
    /// (0, 0, z), then moved to where the bend takes (0, 0, z).
    fn rigid_at(&self, z: f64, angle: f64) -> Mat43 {
        let pivot = Vec3(0.0, 0.0, z);
        let bent = self.map(pivot);
        Mat43::translation(pivot.scale(-1.0))
            .then(&Mat43::rot_y(angle))
            .then(&Mat43::translation(pivot))
            .then(&Mat43::translation(bent.minus(pivot)))
    }

    /// A deform-space point bent.
    pub fn map(&self, p: Vec3) -> Vec3 {
        if let Some((lo, hi, above, below)) = &self.limits {
            if p.2 < *lo {
                return below.transform_point(p);
            }
            if p.2 > *hi {
                return above.transform_point(p);
            }
        }
        if self.r == 0.0 {
            return p;
        }
        let r = self.r;
        let (s, c) = (std::f64::consts::PI - p.2 / r).sin_cos();
        Vec3(r * c + r - p.0 * c, p.1, r * s - p.0 * s)
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = simple_mod::params(cx, m)?;
    let angle = p.float_or(0, 0.0).to_radians();
    let dir = p.float_or(1, 0.0).to_radians();
    let naxis = p.int_or(2, 2);
    let limits = simple_mod::limits(&p, 3);
    let frame = simple_mod::frame(cx, m)?;
    let axis = axis_to_z(naxis)?.then(&Mat43::rot_z(dir));
    let bend = Bend::new(angle, frame.extent(naxis as usize), limits);
    frame.deform(mesh, &axis, |q| bend.map(q))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        a.minus(b).len() < 1e-9
    }

    #[test]
    fn zero_angle_is_identity() {
        let b = Bend::new(0.0, 10.0, None);
        let q = Vec3(1.0, 2.0, 3.0);
        assert_eq!(b.map(q), q);
        assert_eq!(Bend::new(0.5 * MIN_ANGLE, 10.0, None).map(q), q);
        let b = Bend::new(0.0, 10.0, Some((-1.0, 4.0)));
        assert!(close(b.map(q), q));
        assert!(close(b.map(Vec3(1.0, 2.0, 9.0)), Vec3(1.0, 2.0, 9.0)));
    }

    #[test]
    fn axis_keeps_its_length_on_an_arc() {
        // A 90° bend of a 10-long axis: the top lands on the quarter circle of
        // radius 20/π around x = r, its tangent turned by 90°.
        let angle = std::f64::consts::FRAC_PI_2;
        let b = Bend::new(angle, 10.0, None);
        let r = 10.0 / angle;
        assert!(close(b.map(Vec3(0.0, 0.0, 0.0)), Vec3(0.0, 0.0, 0.0)));
        assert!(close(b.map(Vec3(0.0, 0.0, 10.0)), Vec3(r, 0.0, r)));
        // A point off the axis keeps its distance from the arc.
        assert!(close(b.map(Vec3(1.0, 5.0, 10.0)), Vec3(r, 5.0, r - 1.0)));
        // A full turn closes the circle.
        let full = Bend::new(2.0 * std::f64::consts::PI, 10.0, None);
        assert!(close(full.map(Vec3(0.0, 0.0, 10.0)), Vec3(0.0, 0.0, 0.0)));
    }

    #[test]
    fn limits_continue_rigidly_and_continuously() {
        let b = Bend::new(1.0, 99.0, Some((-2.0, 3.0)));
        let free = Bend::new(1.0, 5.0, None);
        // Inside the limits the bend is the one of length upper − lower.
        let q = Vec3(0.3, 0.1, 1.0);
        assert!(close(b.map(q), free.map(q)));
        for (z, eps) in [(3.0, 1e-7), (-2.0, -1e-7)] {
            let x = Vec3(0.7, -0.4, z);
            let inside = b.map(Vec3(x.0, x.1, z - eps));
            let outside = b.map(Vec3(x.0, x.1, z + eps));
            assert!(
                inside.minus(outside).len() < 1e-6,
                "{z}: {inside:?} {outside:?}"
            );
        }
        // Beyond a limit, distances are kept (a rigid motion).
        let (p, q) = (Vec3(0.0, 0.0, 4.0), Vec3(1.0, 2.0, 7.0));
        assert!((b.map(p).minus(b.map(q)).len() - p.minus(q).len()).abs() < 1e-9);
        let (p, q) = (Vec3(0.0, 0.0, -4.0), Vec3(1.0, 2.0, -7.0));
        assert!((b.map(p).minus(b.map(q)).len() - p.minus(q).len()).abs() < 1e-9);
    }
}
