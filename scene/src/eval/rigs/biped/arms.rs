//! Figure-mode world TMs of the clavicles, upper arms and forearms, fitted on
//! biped/RabbitSkin's Skin bind pose, agreeing with seed §11's rules and
//! checked on both arms of biped/SeanConway_Character (the stored mesh TMs
//! of its Skin's ModApps on the Biped Objects):
//!
//! - Arm structure (0x0010) and arm pose (0x006a) come in two halves, right
//!   first; each side reads its own half. Structure half: \[1\] upper arm and
//!   \[2\] forearm length, \[5\] clavicle length, \[6\], \[7\] the clavicle's two
//!   angles, [8..10] the clavicle's offset.
//! - **Clavicle**: at the spine's un-tilted end (`chains`) plus, in the last
//!   spine link's frame,
//!   (−\[9\], −\[8\], \[10\]) on the left and (\[9\], \[8\], −\[10\]) on the right (the
//!   left half stores (−x, −y, z)). Its axes relative to that frame are B, the
//!   half turn about (1, 0, 1)/√2 (X along the pelvis Z, i.e. sideways), the
//!   right side mirrored through the pelvis XY plane (S·B·S, S = diag(1, 1, −1)).
//!   Seed §11's general form, Rx(−a)·Rz(−ε)·B(b) on the last spine link
//!   (column form), B(b) the half turn about (cos φ, 0, sin φ) with
//!   φ = π/4 + b/2: at a tick the arm keys' deltas a = \[9\], b = \[10\] turn
//!   it so (biped-ld35/Player.max 88000–102400 against its FBX, every
//!   frame); the structure's own angles \[6\], \[7\] are zero in the corpus
//!   and other values are not evaluated.
//! - **Upper arm**: at the clavicle's end (\[5\] along its X), axes relative to
//!   the pelvis `Rx(π)·Qᵀ·Ry(π)` on the left and `Ry(π)·Qᵀ·Rx(π)` on the right
//!   (column form, seed §11), Q the matrix of the pose half's quaternion [2..5].
//! - **Forearm**: the elbow hinge `Rz(elbow − π)` in the upper arm frame, the
//!   elbow's interior angle at pose half \[0\], at the upper arm's end (\[1\]
//!   along its X).
//!
//! Each side reads its own halves, whether or not the left mirrors the right
//! (biped/SeanConway_Character's arms differ in length and pose: its left
//! arm matches the Skin's stored mesh TMs of its Biped Objects); only a left
//! clavicle whose words do not mirror the right's is refused (see
//! `left_clavicle_mirrors_right`).
//!
//! Hands and fingers: `extremities`.

use super::chains;
use super::figure::{half, pose_quat, with_position, Pose};
use super::Rig;
use crate::eval::core::math::{Mat43, Quat, Vec3};
use crate::eval::error::EvalError;

const ARM_STRUCTURE: &str = "0x0010";

/// One side's arm pose record in `at` (a half of 0x006a).
pub(super) fn arm_pose(at: &Pose, left: bool) -> Result<&[f32], EvalError> {
    at.chains.arms[usize::from(left)]
        .as_deref()
        .map_err(Clone::clone)
}

fn diag(x: f64, y: f64, z: f64) -> Mat43 {
    Mat43::scaling(Vec3(x, y, z))
}

fn rotation_only(m: &Mat43) -> Mat43 {
    with_position(m, Vec3::default())
}

/// How far a left clavicle word may differ from the mirrored right one and
/// still be the same clavicle.
const SYMMETRY_TOLERANCE: f32 = 1e-5;

/// Each side reads its own halves: biped/SeanConway_Character's left arm
/// (its own upper arm and forearm lengths \[1\], \[2\], elbow, upper arm, hand and
/// finger quaternions, finger structure) matches the Skin's stored mesh TMs
/// of all its 19 Biped Objects so. Its clavicle words mirror the right's,
/// like every corpus rig's, so a left clavicle whose structure words
/// [5..10] do not mirror the right's (\[5\], \[6\], \[7\], \[10\] equal, \[8\], \[9\]
/// negated) is the one case not measured: refused by name.
fn left_clavicle_mirrors_right(rig: &Rig) -> Result<(), EvalError> {
    let (l, r) = (
        half(rig, ARM_STRUCTURE, true)?,
        half(rig, ARM_STRUCTURE, false)?,
    );
    let near = |a: f32, b: f32| (a - b).abs() <= SYMMETRY_TOLERANCE;
    let same = |i: usize, sign: f32| matches!((l.get(i), r.get(i)), (Some(&a), Some(&b)) if near(a, sign * b));
    if [5, 6, 7, 10].iter().all(|&i| same(i, 1.0)) && same(8, -1.0) && same(9, -1.0) {
        Ok(())
    } else {
        Err(EvalError::not_evaluated(
            "left clavicle not the mirror of the right (arm structure 0x0010 [5..10])",
        ))
    }
}

/// The clavicle of one side.
pub fn clavicle(rig: &Rig, at: &Pose, left: bool) -> Result<Mat43, EvalError> {
    let pelvis = at.pelvis.clone()?;
    if left {
        left_clavicle_mirrors_right(rig)?;
    }
    let s = half(rig, ARM_STRUCTURE, left)?;
    let Some(&[a, b, oy, ox, oz]) = s.get(6..11).and_then(|v| <&[f32; 5]>::try_from(v).ok()) else {
        return Err(EvalError::malformed("", "arm structure (0x0010) too short"));
    };
    // At a tick the arm keys' clavicle deltas [9], [10] turn it, added to
    // the structure's angles [6], [7] (seed §11's limb record layout).
    let (da, db) = if at.chains.arms_keyed {
        let p = arm_pose(at, left)?;
        (
            p.get(9).map_or(0.0, |&v| f64::from(v)),
            p.get(10).map_or(0.0, |&v| f64::from(v)),
        )
    } else {
        (0.0, 0.0)
    };
    let (da, db) = (f64::from(a) + da, f64::from(b) + db);
    let spine = chains::spine_laid(rig, at)?;
    let (sx, sz) = if left { (-1.0, 1.0) } else { (1.0, -1.0) };
    let local = spine.end.transform_point(Vec3(
        sx * f64::from(ox),
        sx * f64::from(oy),
        sz * f64::from(oz),
    ));
    // Seed §11's Rx(−a)·B(b) (column form) on the un-tilted last spine
    // link, B(b) the half turn about (cos φ, 0, sin φ), φ = π/4 + b/2.
    let phi = std::f64::consts::FRAC_PI_4 + db / 2.0;
    let b = Mat43::rotation(Quat::from_axis_angle(
        Vec3(phi.cos(), 0.0, phi.sin()),
        std::f64::consts::PI,
    ))
    .then(&Mat43::rot_x(-da));
    let rel = if left {
        b
    } else {
        let m = diag(1.0, 1.0, -1.0);
        m.then(&b).then(&m)
    };
    // B is relative to the last spine link's (un-tilted) frame.
    let r = rel
        .then(&rotation_only(&spine.end))
        .then(&rotation_only(&pelvis));
    Ok(with_position(&r, pelvis.transform_point(local)))
}

/// The upper arm of one side.
pub fn upper_arm(rig: &Rig, at: &Pose, left: bool) -> Result<Mat43, EvalError> {
    let pelvis = at.pelvis.clone()?;
    let clavicle = clavicle(rig, at, left)?;
    let s = half(rig, ARM_STRUCTURE, left)?;
    let pose = arm_pose(at, left)?;
    let (Some(&length), Some(q)) = (s.get(5), pose.get(2..6)) else {
        return Err(EvalError::malformed("", "arm records too short"));
    };
    let q = pose_quat(q, "upper arm pose quaternion (0x006a)")?;
    // Q as a row-vector matrix holding the column matrix's entries: the rows
    // of the conjugate's rotation.
    let qm = Mat43::rotation(q.normalized().conjugate());
    // Row form of the column rule: transpose and reverse the product.
    let rel = if left {
        diag(-1.0, 1.0, -1.0).then(&qm).then(&diag(1.0, -1.0, -1.0))
    } else {
        diag(1.0, -1.0, -1.0).then(&qm).then(&diag(-1.0, 1.0, -1.0))
    };
    let r = rel.then(&rotation_only(&pelvis));
    let end = clavicle.transform_point(Vec3(f64::from(length), 0.0, 0.0));
    Ok(with_position(&r, end))
}

/// The forearm of one side: the elbow hinge at the upper arm's end.
pub fn forearm(rig: &Rig, at: &Pose, left: bool) -> Result<Mat43, EvalError> {
    let upper = upper_arm(rig, at, left)?;
    let s = half(rig, ARM_STRUCTURE, left)?;
    let pose = arm_pose(at, left)?;
    let (Some(&length), Some(&elbow)) = (s.get(1), pose.first()) else {
        return Err(EvalError::malformed("", "arm records too short"));
    };
    let r = Mat43::rot_z(f64::from(elbow) - std::f64::consts::PI).then(&rotation_only(&upper));
    let end = upper.transform_point(Vec3(f64::from(length), 0.0, 0.0));
    Ok(with_position(&r, end))
}
