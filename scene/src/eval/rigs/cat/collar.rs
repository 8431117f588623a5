//! CAT collarbones (CATCollarBone) in setup mode: the collarbone hangs from
//! its hub's origin (a hub's children start there, not at its length
//! offset), its parent frame turned a quarter turn about Y towards the
//! limb's side (CollarBoneTrans::CalcParentTransform: PreRotateY(π/2 · LMR),
//! LMR −1 left, 0 middle, +1 right, from the limb's flags), then its setup
//! matrix applied (translation × CAT units): `world = setup · RotY · hub`.
//! Measured on LD33 against the Skin binds (docs/cat.md).

use super::records::{self, leaf, reference, u32_of};
use super::spine::Frame;
use super::{setup_in, without_scale};
use crate::eval::core::math::Mat43;
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

/// CATLimbData2: a limb's bones, IK target and side flags.
pub const LIMB_DATA2: ClassId = ClassId(0x6e42_53a3, 0x7ffa_3373);
// LimbData2 flags (its chunk 1).
const LIMBFLAG_LEFT: u32 = 1 << 3;
const LIMBFLAG_MIDDLE: u32 = 1 << 4;
const LIMBFLAG_RIGHT: u32 = 1 << 5;

/// The limb a collarbone belongs to: its block's reference 0.
pub(super) fn limb_of(eval: &SceneEval, ctl: usize) -> Option<usize> {
    let pb = reference(eval, ctl, 0)?;
    reference(eval, pb, 0).filter(|&l| records::class_of(eval, l) == Some(LIMB_DATA2))
}

/// The limb's side: −1 left, 0 middle, +1 right (LimbData2::GetLMR).
pub fn lmr(eval: &SceneEval, limb: usize) -> Option<f64> {
    let f = u32_of(leaf(eval.chunks(limb), 1))?;
    match (f & LIMBFLAG_LEFT, f & LIMBFLAG_MIDDLE, f & LIMBFLAG_RIGHT) {
        (0, 0, r) if r != 0 => Some(1.0),
        (0, m, 0) if m != 0 => Some(0.0),
        (l, 0, 0) if l != 0 => Some(-1.0),
        _ => None,
    }
}

pub(super) fn world(
    eval: &SceneEval,
    node: usize,
    ctl: usize,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    use records::*;
    let at = format!("CATCollarBone {ctl}");
    let clip = plain_setup_clip(eval, ctl, &at, "a collarbone")?;
    let parent = eval
        .parent_node(node)
        .ok_or_else(|| EvalError::reference(at.clone(), "no parent node"))?;
    let parent_is_hub = eval
        .tm_controller(parent)
        .is_some_and(|p| bone_class(eval, p) == Some("HubTrans"));
    if !parent_is_hub {
        return Err(EvalError::not_evaluated_why(
            at,
            "a collarbone whose parent is not a hub is not evaluated",
        ));
    }
    let side = limb_of(eval, ctl)
        .and_then(|l| lmr(eval, l))
        .ok_or_else(|| EvalError::reference(at.clone(), "no CATLimbData2 side flags"))?;
    let hub = without_scale(&eval.world_tm_at_depth(parent, t, f.depth + 1, f.budget));
    let turn = Mat43::rot_y(std::f64::consts::FRAC_PI_2 * side);
    Ok(setup_in(&clip.setup, f.cp.units).then(&turn).then(&hub))
}
