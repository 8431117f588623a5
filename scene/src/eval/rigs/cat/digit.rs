//! CAT digits (CATDigitSegTrans) in setup mode: fingers on an arm's palm and
//! the segments after a digit's first (DigitSegTrans::CalcParentTransform,
//! ApplySetupOffset; CATNodeControl::ApplyChildOffset). A leg's first toe
//! segment takes its rotation from the IK target (leg.rs, `toe_world`).
//!
//! - Finger, first segment: `setup · P`, P = the palm (no scale) moved by
//!   (palm dimensions ⊙ the digit's root position, DigitData parameter 5)
//!   in its frame; the setup translation (× CAT units) applies in P.
//! - Later segments (fingers and toes): `setup · (previous segment moved by
//!   its length along X)`.
//!
//! Measured against Skin binds taken in the current setup pose (Sparky's
//! Minion_Rigged_Blank, docs/cat.md, "Digits").

use super::records::{self, reference};
use super::spine::{pb_point3, Frame};
use super::{along_x, anim_limb, collar, leg, setup_in, with_origin, without_scale};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

/// DigitData: a finger or toe and its root position on the palm.
const DIGIT_DATA: ClassId = ClassId(0x67e7_064d, 0x2827_1d66);
/// DigitData parameter: the digit's root on the palm, in palm dimensions.
const PB_ROOT_POS: u16 = 5;

/// A digit segment's parent node and that node's controller (both modes and
/// the toe's IK rule start from them).
pub(super) fn parent_of(
    eval: &SceneEval,
    node: usize,
    at: &str,
) -> Result<(usize, usize), EvalError> {
    let parent = eval
        .parent_node(node)
        .ok_or_else(|| refuse(at, "a digit segment without a parent"))?;
    let parent_ctl = eval
        .tm_controller(parent)
        .ok_or_else(|| EvalError::reference(at.to_string(), "its parent has no controller"))?;
    Ok((parent, parent_ctl))
}

/// Where a digit's first segment sits in its palm's (or foot's) frame: the
/// palm's dimensions ⊙ DigitData's root position.
pub(super) fn root_offset(
    eval: &SceneEval,
    ctl: usize,
    palm_ctl: usize,
    at: &str,
) -> Result<Vec3, EvalError> {
    let digit = reference(eval, ctl, 0)
        .and_then(|pb| reference(eval, pb, 0))
        .filter(|&d| records::class_of(eval, d) == Some(DIGIT_DATA))
        .ok_or_else(|| EvalError::malformed(at.to_string(), "no DigitData"))?;
    let root = reference(eval, digit, 0)
        .and_then(|pb| pb_point3(eval, pb, PB_ROOT_POS))
        .ok_or_else(|| EvalError::malformed(at.to_string(), "no digit root position"))?;
    let dims = records::cat_control(eval, palm_ctl)
        .dims
        .map(Vec3::from_f32)
        .ok_or_else(|| EvalError::malformed(at.to_string(), "a palm or foot without dimensions"))?;
    Ok(Vec3(dims.0 * root.0, dims.1 * root.1, dims.2 * root.2))
}

fn refuse(at: &str, why: impl Into<String>) -> EvalError {
    EvalError::not_evaluated_why(at.to_string(), why.into())
}

/// The world TM of a CAT node the digit hangs from (palm, foot or segment),
/// without scale; refused when CAT refuses it.
fn parent_world(eval: &SceneEval, node: usize, f: &Frame, t: i32) -> Result<Mat43, EvalError> {
    match eval.direct_world_at_depth(node, t, f.depth + 1, f.budget) {
        Some(r) => r.map(|m| without_scale(&m)),
        None => Err(EvalError::reference(
            format!("node {node}"),
            "a digit's parent is not a CAT bone",
        )),
    }
}

/// A digit segment's world TM in setup mode (module doc).
pub(super) fn world(
    eval: &SceneEval,
    node: usize,
    ctl: usize,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("CATDigitSegTrans {ctl}");
    let (parent, parent_ctl) = parent_of(eval, node, &at)?;
    match records::bone_class(eval, parent_ctl) {
        Some("PalmTrans2") => {
            let limb = collar::limb_of(eval, parent_ctl)
                .ok_or_else(|| EvalError::reference(at.clone(), "the palm has no CATLimbData2"))?;
            if leg::is_leg(eval, limb) {
                return leg::toe_world(eval, ctl, parent_ctl, limb, f, t);
            }
            let clip = records::plain_setup_clip(eval, ctl, &at, "a finger")?;
            let local = root_offset(eval, ctl, parent_ctl, &at)?;
            let palm = parent_world(eval, parent, f, t)?;
            let p = with_origin(&palm, palm.transform_point(local));
            Ok(setup_in(&clip.setup, f.cp.units).then(&p))
        }
        Some("CATDigitSegTrans") => {
            let clip = records::plain_setup_clip(eval, ctl, &at, "a digit segment")?;
            let len = anim_limb::length(eval, parent_ctl, &at)?;
            let prev = parent_world(eval, parent, f, t)?;
            let p = with_origin(&prev, along_x(&prev, len));
            Ok(setup_in(&clip.setup, f.cp.units).then(&p))
        }
        _ => Err(refuse(
            &at,
            "a digit segment not on a palm, foot or digit is not evaluated",
        )),
    }
}
