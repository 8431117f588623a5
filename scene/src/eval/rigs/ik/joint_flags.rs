//! The IKControl axis flags of a HI or IK Limb chain's solved joints, and the
//! refusal of those the solve does not apply. Neither solver does joint
//! limits (the IK system clamps their result into them, SDK `IKSolver`
//! `DoesJointLimitsButRoot`/`DoesRootJointLimits`) nor sliding joints, and
//! the knee path and the start joint's frame move every rotation axis; what
//! Max shows when a file sets these is the IK system's (not public), so such
//! a chain is named, not solved as if the flags were off.
//!
//! Block layout (inferred from stored values, not from a document; see
//! [`super::chain`]): six groups of five parameters — active,
//! lower-limited, upper-limited, lower, upper — for position X, Y, Z
//! (0–14) and rotation X, Y, Z (15–29).

use crate::eval::core::pblock::{ParamBlock2, Value};
use crate::eval::EvalError;

/// Rotation X, Y, Z "active" flags.
const ROT_ACTIVE: [u16; 3] = [15, 20, 25];
/// Position X, Y, Z "active" flags (a sliding joint).
const POS_ACTIVE: [u16; 3] = [0, 5, 10];
/// Lower- and upper-limited flags of position X, Y, Z and rotation X, Y, Z.
const LIMITED: [u16; 12] = [1, 2, 6, 7, 11, 12, 16, 17, 21, 22, 26, 27];

/// One joint's flags (None: the parameter is missing or not a Boolean).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JointFlags {
    pub rot_active: [Option<bool>; 3],
    pub pos_active: [Option<bool>; 3],
    pub limited: [Option<bool>; 12],
}

impl JointFlags {
    /// Max's defaults, the flags of every joint of the measured files:
    /// rotation active, position inactive, nothing limited.
    pub const DEFAULT: JointFlags = JointFlags {
        rot_active: [Some(true); 3],
        pos_active: [Some(false); 3],
        limited: [Some(false); 12],
    };

    /// The flags of an IKControl block.
    pub fn read(b: &ParamBlock2) -> JointFlags {
        let flag = |id: u16| match b.param(id).map(|p| &p.value) {
            Some(Value::Bool(a)) => Some(*a),
            _ => None,
        };
        JointFlags {
            rot_active: ROT_ACTIVE.map(flag),
            pos_active: POS_ACTIVE.map(flag),
            limited: LIMITED.map(flag),
        }
    }

    /// Refuses a solved joint (`role`: "start" or "middle") whose flags the
    /// solve would not apply: a limited axis, an active position axis, or
    /// an inactive rotation axis when `rotation` is checked (the IK Limb
    /// middle joint's axes are checked by [`super::limb::middle_axes`],
    /// with its own reason).
    pub fn check(&self, role: &str, rotation: bool) -> Result<(), EvalError> {
        let unread = self.pos_active.contains(&None)
            || self.limited.contains(&None)
            || (rotation && self.rot_active.contains(&None));
        let what = if unread {
            format!("IK chain whose {role} joint's axis flags (IKControl 0–29) are not read")
        } else if let Some(i) = self.limited.iter().position(|l| *l == Some(true)) {
            let axis = [
                "position X",
                "position Y",
                "position Z",
                "rotation X",
                "rotation Y",
            ]
            .get(i / 2)
            .copied()
            .unwrap_or("rotation Z");
            let side = if i % 2 == 0 { "lower" } else { "upper" };
            format!("IK chain whose {role} joint has a {side} limit on {axis}")
        } else if self.pos_active.contains(&Some(true)) {
            format!("IK chain whose {role} joint slides (a position axis active)")
        } else if rotation && self.rot_active.contains(&Some(false)) {
            let n = self.rot_active.iter().filter(|a| **a == Some(true)).count();
            format!("IK chain whose {role} joint has {n} active rotation axes")
        } else {
            return Ok(());
        };
        Err(EvalError::not_evaluated_why(
            what,
            "the HI and IK Limb solves turn every rotation axis of the start and \
             middle joints and apply no limits or sliding; what Max shows with \
             these flags is the IK system's (not public)",
        ))
    }
}
