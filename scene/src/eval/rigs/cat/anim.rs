//! CAT rigs in animation mode (CATParentTrans chunk 4 ≠ 0), for the cases
//! measured against FBX takes of public rigs (docs/cat.md, "Animation
//! mode"): each bone's animation layers are Position/Rotation/Scale
//! controllers (CATClipMatrix3 references 0..n) whose blend (layers.rs) is
//! the bone's TM relative to what it inherits, translation in scene units
//! (not CAT units):
//!
//! - a root hub (a HubTrans whose node hangs from the scene root): its layer value is
//!   its world TM; the CATParent node does not carry the rig in animation
//!   mode;
//! - an extra bone (ArbBone) on a hub: `layer · hub` (the hub's origin, its
//!   axes without scale); on another extra bone: `layer · (that bone moved
//!   by its length along X)` (mod.rs, `arb_parent`);
//! - a procedural spine: its tip anchor is the tip hub's layer value
//!   applied at the base anchor moved by the spine's length (spine.rs), the
//!   links follow the setup-mode procedure towards it, and the tip hub
//!   takes the anchor's rotation at the last link's end.
//!
//! Limbs, collarbones, fingers and foot platforms are anim_limb.rs's.
//! Everything else in animation mode — CATMotion layers, IK targets, extra
//! bones on limb or other bones, layer flags other than the inheritance ones, a
//! spine tip hub scaled by its layer — is refused by name.

use super::records::{self, ClipMatrix};
use crate::eval::core::math::Mat43;
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;

/// Layer flags whose animation-mode meaning is not decoded.
const UNDECODED_FLAGS: u32 = records::CLIP_RELATIVE_TO_SETUPPOSE
    | records::CLIP_SETUPPOSE_CONTROLLER
    | records::CLIP_KEYFREEFORM
    | records::CLIP_DISABLE_LAYERS;

/// The value at `t` of CATClipMatrix3 `layer`, its animation layers
/// blended (layers.rs): the bone's TM relative to what it inherits.
/// Refused for a layer that is not a Position/Rotation/Scale, undecoded
/// flags or layer kinds.
pub fn layer_value(eval: &SceneEval, layer: usize, t: i32) -> Result<Mat43, EvalError> {
    let clip = records::clip_matrix(eval, layer)?;
    check_layers(&clip)?;
    let at = format!("CATClipMatrix3 {layer}");
    super::layers::matrix_value(eval, &clip, t, |prs| {
        eval.prs_tm(prs, t).ok_or_else(|| {
            EvalError::not_evaluated_why(
                at.clone(),
                "an animation layer that is not a Position/Rotation/Scale is not evaluated",
            )
        })
    })
}

/// The layer flags decoded in animation mode (the layer count and kinds
/// are layers.rs's).
pub(super) fn check_layers(clip: &ClipMatrix) -> Result<(), EvalError> {
    let at = format!("CATClipMatrix3 {}", clip.object);
    if clip.flags & UNDECODED_FLAGS != 0 {
        return Err(EvalError::not_evaluated_why(
            at,
            format!(
                "layer flags {:#010x} (relative-to-setup, setup controller, key-freeform or \
                 disabled layers) are not evaluated in animation mode",
                clip.flags
            ),
        ));
    }
    Ok(())
}

/// A root hub in animation mode: its layer value is its world TM.
pub(super) fn root_hub_world(
    eval: &SceneEval,
    node: usize,
    ctl: usize,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("HubTrans {ctl}");
    // Its parent is the scene root (a node without a parent) in the measured
    // takes; a hub linked under another node is not measured.
    if eval
        .parent_node(node)
        .is_some_and(|p| eval.parent_node(p).is_some())
    {
        return Err(EvalError::not_evaluated_why(
            at,
            "a root hub linked to another node is not evaluated in animation mode",
        ));
    }
    let layer = records::layer_trans(eval, ctl)
        .ok_or_else(|| EvalError::reference(at, "no CATClipMatrix3"))?;
    layer_value(eval, layer, t)
}

/// An extra bone in animation mode: `layer · parent`, the parent frame
/// `mod::arb_parent` gives (a hub, or an extra bone moved to its end, without
/// scale).
pub(super) fn arb_on_parent(
    eval: &SceneEval,
    ctl: usize,
    parent_world: &Mat43,
    t: i32,
) -> Result<Mat43, EvalError> {
    let layer = records::layer_trans(eval, ctl)
        .ok_or_else(|| EvalError::reference(format!("ArbBone {ctl}"), "no CATClipMatrix3"))?;
    Ok(layer_value(eval, layer, t)?.then(parent_world))
}
