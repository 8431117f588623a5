//! The IK Limb solver (`"IKLimb"`) as far as it is measured: a three-joint
//! chain whose goal sits on the preferred pose's end joint with a zero swivel
//! angle and no VH target. There Max's manual says the solver turns the
//! initial chain plane onto the target plane (the same plane), so the joints
//! keep their preferred angles — the HI computation gives the same pose, and
//! a Skin bind taken with an IK Limb chain on (SkinningPractice/Start.max of a
//! public repository) equals it. Any other goal, swivel or chain length is
//! refused by name: no reference pins the solver there (docs/ik.md).

use super::primitives::P3;
use crate::eval::error::EvalError;

/// The solver name IKChainControl stores for the IK Limb solver.
pub const LIMB_SOLVER: &str = "IKLimb";

/// Largest goal distance from the preferred end joint, as a share of the
/// chain's length (upper + lower bone), at which an IK Limb chain evaluates.
/// The measured file's goal sat 2.2·10⁻⁸ of its chain from it.
pub const AT_PREFERRED: f64 = 1e-4;

/// Whether an IK Limb chain evaluates at one time: `preferred_end` is the end
/// joint at the preferred angles and `goal` the goal, both in chain-root
/// space; `length` the sum of the two bone lengths; `swivel` the swivel angle
/// at that time; `vh_target` whether a VH target sets the plane.
pub fn verified(
    preferred_end: P3,
    goal: P3,
    length: f64,
    swivel: f32,
    vh_target: bool,
) -> Result<(), EvalError> {
    let why = |w: String| Err(EvalError::not_evaluated_why("IKLimb solve", w));
    if vh_target {
        return why("with a VH target (only the preferred pose is verified)".into());
    }
    if swivel != 0.0 {
        return why(format!(
            "at swivel angle {swivel} (only the preferred pose, swivel 0, is verified)"
        ));
    }
    let d = [
        f64::from(goal.x) - f64::from(preferred_end.x),
        f64::from(goal.y) - f64::from(preferred_end.y),
        f64::from(goal.z) - f64::from(preferred_end.z),
    ];
    let d = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    // `!(a <= b)` also refuses NaN distances and lengths.
    if !(length > 0.0 && d <= AT_PREFERRED * length) {
        return why(format!(
            "with the goal {d:.4} from the preferred pose's end joint ({:.1e} of the \
             chain; only the preferred pose, within {AT_PREFERRED:.0e}, is verified)",
            d / length
        ));
    }
    Ok(())
}

/// Why an IK Limb chain of `joints` joints (not 3) is refused.
pub fn joint_count(joints: usize) -> EvalError {
    EvalError::not_evaluated_why(
        format!("IKLimb chain of {joints} joints"),
        "the IK Limb solver takes 3; what Max shows for such a chain (FK or preferred \
         angles) is not measured",
    )
}
