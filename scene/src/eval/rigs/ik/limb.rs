//! The IK Limb solver (`"IKLimb"`), after its public 3ds Max SDK sample
//! (maxsdk/samples/iksolvers/iklimb: class `0x31c2f677,0x2930d2b6`, internal
//! name `"IKLimb"` — the name IKChainControl stores). What that source fixes:
//!
//! - It takes the IK system's HI goal and its default zero plane map (it
//!   supplies none of its own), ignores joint limits, and solves a link chain
//!   of 3 links (a ball-jointed elbow: the middle joint's Z, Y, X) or of 0
//!   links (one bone); any other link count returns `bInvalidInitialValue`,
//!   and a failed solve is not copied back to the joints.
//! - With 3 links it is the computation of [`super::hi_limb::solve`] (seed
//!   000's HI limb text is this solver's algorithm, line for line): reset to
//!   the preferred angles, the initial triangle and frame, the goal clamped
//!   into the reachable shell, the swivel plane, the shoulder turned and the
//!   elbow bent about the initial plane normal, Euler XYZ written back.
//! - With 0 links it turns the start joint by the shortest rotation from the
//!   preferred bone direction to the goal direction ([`aim_goal`]): the
//!   zero map only builds a frame that the turn leaves as it found it, so it
//!   drops out of the result ([`any_normal`] stands in for it).
//!
//! Left to the IK system (core, not public) and refused by name here: what the
//! joints show when the solver refuses (chains of other than 2 or 3 joints, a
//! middle joint without all three rotation axes active), and the degenerate
//! goals where the solver hands a zero vector to the core's `Normalize` or
//! rotation builder (a goal on the start joint's pivot; a one-bone goal
//! straight behind the bone).

use super::primitives::{p3, P3};
use crate::eval::error::EvalError;

/// The solver name IKChainControl stores for the IK Limb solver.
pub const LIMB_SOLVER: &str = "IKLimb";

/// Why an IK Limb chain of `joints` joints (not 2 or 3) is refused.
pub fn joint_count(joints: usize) -> EvalError {
    EvalError::not_evaluated_why(
        format!("IKLimb chain of {joints} joints"),
        "the IK Limb solver solves one bone (2 joints) or a ball-jointed elbow (3); for \
         other chains it returns bInvalidInitialValue and what Max then shows is the IK \
         system's (not public)",
    )
}

/// Checks the middle joint's rotation axes (X, Y, Z; None where the flag was
/// not read): with one inactive the IK system folds it into its neighbour and
/// gives the solver fewer than 3 links, which it refuses
/// (`bInvalidInitialValue`); what Max then shows is the IK system's.
pub fn middle_axes(active: [Option<bool>; 3]) -> Result<(), EvalError> {
    if active.iter().all(|a| *a == Some(true)) {
        return Ok(());
    }
    let what = if active.contains(&None) {
        "IKLimb chain whose middle joint's rotation axis flags (IKControl 15, 20, 25) \
         are not read"
            .to_string()
    } else {
        let n = active.iter().filter(|a| **a == Some(true)).count();
        format!("IKLimb chain whose middle joint has {n} active rotation axes")
    };
    Err(EvalError::not_evaluated_why(
        what,
        "the IK Limb solver takes a middle joint with X, Y and Z active (3 links); \
         otherwise it returns bInvalidInitialValue and what Max shows is the IK \
         system's (not public)",
    ))
}

/// Refuses a goal on the start joint's pivot (`goal` in chain-root space):
/// its direction is the core's `Normalize` of a zero vector.
pub fn goal_off_pivot(goal: P3) -> Result<(), EvalError> {
    if goal.x == 0.0 && goal.y == 0.0 && goal.z == 0.0 {
        return Err(EvalError::not_evaluated_why(
            "IKLimb solve",
            "with the goal on the start joint's pivot (its direction is left to the \
             core's Normalize of a zero vector)",
        ));
    }
    Ok(())
}

/// Refuses the one-bone solve where its turn axis, the normalized cross
/// product of the preferred bone direction `bone` and the goal direction, is
/// zero while the turn is not (the goal straight behind the bone): the
/// rotation about a zero axis is the core's.
pub fn aim_goal(bone: P3, goal: P3) -> Result<(), EvalError> {
    goal_off_pivot(goal)?;
    let (b, g) = (bone.normalize(), goal.normalize());
    let axis = b.cross(g).normalize();
    let turn = super::primitives::acos_safe(b.dot(g));
    if axis.x == 0.0 && axis.y == 0.0 && axis.z == 0.0 && turn != 0.0 {
        return Err(EvalError::not_evaluated_why(
            "IKLimb solve",
            format!(
                "of one bone with the goal {turn:.4} rad from the bone and no turn axis \
                 (a rotation about a zero axis is left to the core)"
            ),
        ));
    }
    Ok(())
}

/// A unit vector perpendicular to `e` (zero for a zero `e`): the zero plane
/// map handed to the one-bone solve, whose result does not depend on which
/// perpendicular it gets (see the module text).
pub fn any_normal(e: P3) -> P3 {
    let (ax, ay, az) = (e.x.abs(), e.y.abs(), e.z.abs());
    let other = if ax <= ay && ax <= az {
        p3(1.0, 0.0, 0.0)
    } else if ay <= az {
        p3(0.0, 1.0, 0.0)
    } else {
        p3(0.0, 0.0, 1.0)
    };
    e.cross(other).normalize()
}
