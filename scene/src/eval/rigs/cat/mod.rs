//! CAT rigs (Max's Character Animation Technologies plug-in): the CATParent
//! node and the bones its CATParentTrans drives. Every CAT bone controller is
//! a Matrix3 controller that returns the bone's world TM from its parent's,
//! so CAT nodes plug into `direct_world` (rig_transform.rs) like Biped parts.
//!
//! What is evaluated (docs/cat.md has the rules and the measured numbers):
//! - the CATParent node: its CATParentTrans returns its Position/Rotation/
//!   Scale (reference 1) under its parent;
//! - in setup mode (CATParentTrans chunk 4 = 0), a root hub, foot platform or
//!   IK target (its node has no CAT parent; its layer controller flagged
//!   HAS_TRANSFORM): its
//!   world TM is its setup matrix, translation scaled by the CAT units, in
//!   the frame of the CATParent node without scale.
//!
//! - in setup mode, a procedural spine's links and its tip hub (spine.rs),
//!   collarbones (collar.rs), arms whose setup-mode IK goal already holds
//!   in their FK pose (limb.rs), legs solved by CAT's limb IK towards their
//!   foot platforms and the first toe segments (leg.rs), fingers and later
//!   digit segments (digit.rs), extra bones on a hub or on another extra
//!   bone, and foot platforms and IK targets (the root-hub rule).
//!
//! - in animation mode (anim.rs, anim_limb.rs), root hubs, extra bones on
//!   hubs or extra bones, procedural spines with their tip hubs, collarbones, FK limbs
//!   with palms and fingers, legs in IK with their foot platforms, from
//!   each bone's animation layers blended (layers.rs).
//!
//! Everything else is refused with the reason, never placed at identity:
//! in animation mode CATMotion layers, blended or arm IK, toes, IK targets
//! (anim.rs and anim_limb.rs list them); limbs outside the
//! decoded IK case, FK spines, extra bones on other parents.

pub mod anim;
pub mod anim_limb;
pub mod collar;
pub mod digit;
pub mod layers;
pub mod leg;
pub mod limb;
pub mod records;
pub mod spine;
pub mod view;

use std::cell::Cell;

use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use records::{CatMode, CatParent, ClipMatrix};

/// How many CAT evaluations may nest (a CATParent under a CAT bone of
/// another rig); deeper is a cycle in damaged data.
const MAX_DEPTH: usize = 16;

// CATControl flags (its chunk 1 → 1 → 2): limits change the setup result.
const CNCFLAG_IMPOSE_LIMITS: u32 = (1 << 21) | (1 << 22) | (1 << 23);

/// Whether `ctl` is a CAT controller this module answers for.
pub fn is_cat_controller(eval: &SceneEval, ctl: usize) -> bool {
    records::bone_class(eval, ctl).is_some()
        || records::class_of(eval, ctl) == Some(records::CAT_PARENT_TRANS)
}

/// The world TM of `node` (transform controller `ctl`) at `t` when `ctl` is a
/// CAT controller: None for other controllers, else the TM or why not.
pub fn world(
    eval: &SceneEval,
    node: usize,
    ctl: usize,
    t: i32,
    depth: usize,
    budget: &Cell<u32>,
) -> Option<Result<Mat43, EvalError>> {
    if let Some(cp) = records::cat_parent(eval, ctl) {
        return Some(cp.and_then(|cp| cat_parent_world(eval, node, &cp, t, depth, budget)));
    }
    let class = records::bone_class(eval, ctl)?;
    Some(bone_world(eval, node, ctl, class, t, depth, budget))
}

fn cat_parent_world(
    eval: &SceneEval,
    node: usize,
    cp: &CatParent,
    t: i32,
    depth: usize,
    budget: &Cell<u32>,
) -> Result<Mat43, EvalError> {
    let at = format!("CATParentTrans {}", cp.controller);
    let prs = cp.prs.and_then(|c| eval.prs_tm(c, t)).ok_or_else(|| {
        EvalError::reference(at.clone(), "reference 1 is not a Position/Rotation/Scale")
    })?;
    match eval.parent_node(node) {
        Some(p) => {
            if depth >= MAX_DEPTH {
                return Err(EvalError::limit(format!("{at}: CAT nesting"), MAX_DEPTH));
            }
            Ok(prs.then(&eval.world_tm_at_depth(p, t, depth + 1, budget)))
        }
        None => Ok(prs),
    }
}

/// The node a controller drives as its transform (a CATParentTrans, a
/// hub or bone controller).
pub(super) fn node_of(eval: &SceneEval, cpt: usize) -> Option<usize> {
    eval.graph
        .objects
        .iter()
        .enumerate()
        .filter(|(_, o)| o.node.is_some())
        .map(|(i, _)| i)
        .find(|&i| eval.tm_controller(i) == Some(cpt))
}

/// Why a class's setup-mode TM is not evaluated here (None: the root-hub
/// rule applies).
fn refusal(eval: &SceneEval, node: usize, class: &str) -> Option<String> {
    let cat_parent = eval
        .parent_node(node)
        .and_then(|p| eval.tm_controller(p))
        .and_then(|c| records::bone_class(eval, c));
    Some(match class {
        "HubTrans" | "CATFootTrans2" | "IKTarget Trans" if cat_parent.is_none() => return None,
        "HubTrans" => format!(
            "hub under a {} bone: a spine's tip hub follows CATSpineData2, not decoded",
            cat_parent.unwrap_or("CAT")
        ),
        "CATBoneSegTrans" => {
            "limb bone: placed by its CATBoneData/CATLimbData2 (FK/IK limb), not decoded".into()
        }
        "CATSpineTrans2" => {
            "spine bone: placed by CATSpineData2 between its base and tip hubs, not decoded".into()
        }
        "CATBoneData" => "limb bone data, not decoded".into(),
        "CATFootTrans2" | "IKTarget Trans" => {
            "its CalcWorldTransform override (IK target pivot) is not decoded".into()
        }
        _ => "its setup rule relative to its parent (the parent's child offset and the \
              class's own override) is not decoded"
            .into(),
    })
}

fn bone_world(
    eval: &SceneEval,
    node: usize,
    ctl: usize,
    class: &str,
    t: i32,
    depth: usize,
    budget: &Cell<u32>,
) -> Result<Mat43, EvalError> {
    let layer = records::layer_trans(eval, ctl);
    // The rig's mode first: in animation mode nothing here is decoded. Limb
    // and spine links, without a layer controller, name their rig through
    // their CATControl record.
    let owner = match layer.map(|l| records::clip_matrix(eval, l)).transpose()? {
        Some(clip) => Some(clip.cat_parent_trans),
        None => records::cat_control(eval, ctl).cat_parent_trans,
    };
    if let Some(Ok(cp)) = owner.and_then(|o| records::cat_parent(eval, o)) {
        if let CatMode::Animation(m) = cp.mode {
            return animation_world(eval, node, ctl, class, &cp, m, t, depth, budget);
        }
    }
    if let Some(r) = setup_rule(eval, node, ctl, class, t, depth, budget) {
        return r;
    }
    if let Some(why) = refusal(eval, node, class) {
        return Err(EvalError::not_evaluated_why("CAT bone", why));
    }
    let layer = layer.ok_or_else(|| {
        EvalError::reference(
            format!("{class} {ctl}"),
            "no CATClipMatrix3 layer controller",
        )
    })?;
    let clip = records::clip_matrix(eval, layer)?;
    let cp = match records::cat_parent(eval, clip.cat_parent_trans) {
        Some(r) => r?,
        None => {
            return Err(EvalError::reference(
                format!("CATClipMatrix3 {layer}"),
                "chunk 14 is not a CATParentTrans",
            ))
        }
    };
    check_root_hub(eval, ctl, &clip)?;
    if depth >= MAX_DEPTH {
        return Err(EvalError::limit(
            format!("{class} {ctl}: CAT nesting"),
            MAX_DEPTH,
        ));
    }
    let cpw = cat_parent_world_of(eval, &cp, t, depth, budget)?;
    Ok(setup_in(&clip.setup, cp.units).then(&without_scale(&cpw)))
}

/// A bone of a rig in animation mode (anim.rs): root hubs, extra bones on
/// hubs and procedural spines with their tip hubs; the rest refused by name.
#[allow(clippy::too_many_arguments)]
fn animation_world(
    eval: &SceneEval,
    node: usize,
    ctl: usize,
    class: &str,
    cp: &CatParent,
    mode: u32,
    t: i32,
    depth: usize,
    budget: &Cell<u32>,
) -> Result<Mat43, EvalError> {
    if depth >= MAX_DEPTH {
        return Err(EvalError::limit(
            format!("{class} {ctl}: CAT nesting"),
            MAX_DEPTH,
        ));
    }
    let refuse = |what: &str| {
        Err(EvalError::not_evaluated_why(
            format!("CAT rig {:?} in animation mode", cp.name),
            format!("CATMode {mode}: {what} not evaluated"),
        ))
    };
    if records::cat_control(eval, ctl)
        .flags
        .is_some_and(|f| f & CNCFLAG_IMPOSE_LIMITS != 0)
    {
        return refuse("bone limits (CNCFLAG_IMPOSE_*) are");
    }
    let parent = eval
        .parent_node(node)
        .filter(|&p| eval.parent_node(p).is_some());
    let parent_class = parent
        .and_then(|p| eval.tm_controller(p))
        .and_then(|c| records::bone_class(eval, c));
    // The frame the rig's animation-mode bones are placed in.
    let anim_frame = || -> Result<spine::Frame, EvalError> {
        Ok(spine::Frame {
            cp,
            cp_world: cat_parent_world_of(eval, cp, t, depth, budget)?,
            depth,
            budget,
            animation: true,
        })
    };
    match (class, parent_class) {
        ("HubTrans", None) => anim::root_hub_world(eval, node, ctl, t),
        ("CATFootTrans2" | "IKTarget Trans", None) => {
            anim_limb::platform_world(eval, node, ctl, class, t)
        }
        ("HubTrans", Some("CATSpineTrans2")) | ("CATSpineTrans2", _) => {
            let frame = anim_frame()?;
            if class == "CATSpineTrans2" {
                return spine::link_world(eval, ctl, &frame, t);
            }
            let parent_ctl = parent.and_then(|p| eval.tm_controller(p));
            match parent_ctl.and_then(|p| spine::tip_hub_world(eval, ctl, p, &frame, t)) {
                Some(r) => r,
                None => refuse("a hub under a spine link without a CATSpineData2 is"),
            }
        }
        ("ArbBone", Some("HubTrans" | "ArbBone")) => {
            let at = format!("ArbBone {ctl}");
            let parent = arb_parent(eval, node, &at, |p| {
                eval.direct_world_at_depth(p, t, depth + 1, budget)
            })?;
            anim::arb_on_parent(eval, ctl, &parent, t)
        }
        ("ArbBone", _) => refuse("an extra bone not on a hub or another extra bone is"),
        ("HubTrans", _) => refuse("a hub under a limb or extra bone is"),
        ("CATCollarBone" | "CATBoneSegTrans" | "PalmTrans2" | "CATDigitSegTrans", _) => {
            let frame = anim_frame()?;
            match class {
                "CATCollarBone" => anim_limb::collar_world(eval, node, ctl, &frame, t),
                "CATDigitSegTrans" => anim_limb::digit_world(eval, node, ctl, &frame, t),
                _ => anim_limb::limb_world(eval, ctl, class, &frame, t),
            }
        }
        _ => refuse(&format!("a {class}'s animation layers are")),
    }
}

/// The world TM of the CATParent node a rig's bones hang from.
fn cat_parent_world_of(
    eval: &SceneEval,
    cp: &CatParent,
    t: i32,
    depth: usize,
    budget: &Cell<u32>,
) -> Result<Mat43, EvalError> {
    let cp_node = node_of(eval, cp.controller).ok_or_else(|| {
        EvalError::reference(
            format!("CATParentTrans {}", cp.controller),
            "no node uses it as its transform controller",
        )
    })?;
    Ok(
        match world(eval, cp_node, cp.controller, t, depth + 1, budget) {
            Some(r) => r?,
            None => eval.world_tm_at_depth(cp_node, t, depth + 1, budget),
        },
    )
}

/// The setup-mode rules of spine links, a spine's tip hub and collarbones
/// (spine.rs, collar.rs); None for the other classes.
fn setup_rule(
    eval: &SceneEval,
    node: usize,
    ctl: usize,
    class: &str,
    t: i32,
    depth: usize,
    budget: &Cell<u32>,
) -> Option<Result<Mat43, EvalError>> {
    let parent_ctl = eval.parent_node(node).and_then(|p| eval.tm_controller(p));
    let applies = match class {
        "CATSpineTrans2" | "CATCollarBone" | "CATBoneSegTrans" | "PalmTrans2"
        | "CATDigitSegTrans" | "ArbBone" => true,
        "HubTrans" => {
            parent_ctl.is_some_and(|p| records::bone_class(eval, p) == Some("CATSpineTrans2"))
        }
        _ => false,
    };
    if !applies {
        return None;
    }
    Some((|| {
        if depth >= MAX_DEPTH {
            return Err(EvalError::limit(
                format!("{class} {ctl}: CAT nesting"),
                MAX_DEPTH,
            ));
        }
        let cpt = match records::layer_trans(eval, ctl) {
            Some(l) => Some(records::clip_matrix(eval, l)?.cat_parent_trans),
            None => records::cat_control(eval, ctl).cat_parent_trans,
        };
        let cp = match cpt.and_then(|c| records::cat_parent(eval, c)) {
            Some(r) => r?,
            None => {
                return Err(EvalError::reference(
                    format!("{class} {ctl}"),
                    "no CATParentTrans",
                ))
            }
        };
        let cp_world = cat_parent_world_of(eval, &cp, t, depth, budget)?;
        let frame = spine::Frame {
            cp: &cp,
            cp_world,
            depth,
            budget,
            animation: false,
        };
        match (class, parent_ctl) {
            ("CATSpineTrans2", _) => spine::link_world(eval, ctl, &frame, t),
            ("HubTrans", Some(p)) => {
                spine::tip_hub_world(eval, ctl, p, &frame, t).unwrap_or_else(|| {
                    Err(EvalError::not_evaluated_why(
                        "CAT bone",
                        "a hub under a spine link without a CATSpineData2",
                    ))
                })
            }
            ("CATBoneSegTrans" | "PalmTrans2", _) => limb::world(eval, ctl, class, &frame, t),
            ("CATDigitSegTrans", _) => digit::world(eval, node, ctl, &frame, t),
            ("ArbBone", _) => arb_world(eval, node, ctl, &frame, t),
            _ => collar::world(eval, node, ctl, &frame, t),
        }
    })())
}

/// An extra bone (ArbBone) in setup mode: ArbBoneTrans::CalcParentTransform
/// takes its parent's child point (CATNodeControl::ApplyChildOffset) — a
/// hub's origin (as for collarbones), another extra bone's end (its length
/// along X) — no setup inheritance flags, then the setup matrix:
/// `world = setup · parent`. Other parents are refused.
fn arb_world(
    eval: &SceneEval,
    node: usize,
    ctl: usize,
    f: &spine::Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("ArbBone {ctl}");
    let clip = records::plain_setup_clip(eval, ctl, &at, "an extra bone")?;
    let parent = arb_parent(eval, node, &at, |p| {
        eval.direct_world_at_depth(p, t, f.depth + 1, f.budget)
    })?;
    Ok(setup_in(&clip.setup, f.cp.units).then(&parent))
}

/// An extra bone's parent frame without scale, at the parent's child point:
/// a hub's origin, or an extra bone's end (its length along X). `world`
/// evaluates the parent node; other parents are refused.
pub(super) fn arb_parent(
    eval: &SceneEval,
    node: usize,
    at: &str,
    world: impl Fn(usize) -> Option<Result<Mat43, EvalError>>,
) -> Result<Mat43, EvalError> {
    let refused = || {
        EvalError::not_evaluated_why(
            at.to_string(),
            "an extra bone not on a hub or another extra bone is not evaluated",
        )
    };
    let parent = eval.parent_node(node).ok_or_else(refused)?;
    let parent_ctl = eval.tm_controller(parent).ok_or_else(refused)?;
    let class = records::bone_class(eval, parent_ctl).ok_or_else(refused)?;
    let offset = match class {
        "HubTrans" => 0.0,
        "ArbBone" => anim_limb::length(eval, parent_ctl, at)?,
        _ => return Err(refused()),
    };
    let w = match world(parent) {
        Some(r) => without_scale(&r?),
        None => {
            return Err(EvalError::reference(
                at.to_string(),
                "its parent is not a CAT bone",
            ))
        }
    };
    Ok(with_origin(&w, along_x(&w, offset)))
}

/// The root hub's setup rule holds only for these flags.
fn check_root_hub(eval: &SceneEval, ctl: usize, clip: &ClipMatrix) -> Result<(), EvalError> {
    use records::*;
    let at = format!("CATClipMatrix3 {}", clip.object);
    let refuse = |flag: &str| {
        Err(EvalError::not_evaluated_why(
            at.clone(),
            format!("{flag} (flags {:#010x}) is not evaluated", clip.flags),
        ))
    };
    if clip.flags & CLIP_HAS_TRANSFORM == 0 {
        return refuse("a root hub without HAS_TRANSFORM");
    }
    for (bit, name) in [
        (CLIP_SETUPPOSE_CONTROLLER, "an animated setup controller"),
        (
            CLIP_SETUP_INHERITS_POS_FROM_PARENT,
            "setup position from the parent",
        ),
        (CLIP_KEYFREEFORM, "key-freeform"),
        (CLIP_DISABLE_LAYERS, "disabled layers"),
    ] {
        if clip.flags & bit != 0 {
            return refuse(name);
        }
    }
    let ccflags = records::cat_control(eval, ctl).flags;
    if ccflags.is_some_and(|f| f & CNCFLAG_IMPOSE_LIMITS != 0) {
        return Err(EvalError::not_evaluated_why(
            format!("CAT controller {ctl}"),
            "bone limits (CNCFLAG_IMPOSE_*) are not evaluated",
        ));
    }
    Ok(())
}

/// The setup matrix with its translation from CAT units to scene units.
pub fn setup_in(setup: &Mat43, units: f64) -> Mat43 {
    let mut m = *setup;
    m.0[3] = m.0[3].scale(units);
    m
}

/// `m` with its origin moved to `p`, axes kept.
pub(super) fn with_origin(m: &Mat43, p: Vec3) -> Mat43 {
    let mut m = *m;
    m.0[3] = p;
    m
}

/// The point `len` along `m`'s X axis from its origin: a CAT bone's end,
/// where its children hang (CATNodeControl::ApplyChildOffset).
pub(super) fn along_x(m: &Mat43, len: f64) -> Vec3 {
    m.0[3].plus(m.0[0].scale(len))
}

/// `m` with each axis row normalized (Max's NoScale: CAT bones never inherit
/// the CATParent's scale, which the CAT units stand for).
pub fn without_scale(m: &Mat43) -> Mat43 {
    let mut out = *m;
    for r in 0..3 {
        let v: Vec3 = m.0[r];
        let l = v.len();
        if l > 0.0 && l.is_finite() {
            out.0[r] = v.scale(1.0 / l);
        }
    }
    out
}
