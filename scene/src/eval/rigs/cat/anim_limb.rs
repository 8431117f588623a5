//! CAT limbs in animation mode (docs/cat.md, "Animation mode: limbs"):
//! collarbones, limb bones (CATBoneSegTrans over their CATBoneData), palms
//! and ankles (PalmTrans2), the fingers on an arm's palm and the foot
//! platforms, each from its one animation layer (a Position/Rotation/
//! Scale, or the platform's CATHDPivotTrans) applied to the parent frame
//! CAT builds for it (CATClipMatrix3::GetTransformation with one absolute
//! layer: `layer · parent`):
//!
//! - collarbone: the hub turned a quarter turn about Y towards the limb's
//!   side (CollarBoneTrans, as in setup mode);
//! - first limb bone: the limb's hub frame at the collarbone's end (or at
//!   the hub's origin without one), turned 180° about Y (BoneData::
//!   CalcInheritance) — measured: not the collarbone's frame; later bones:
//!   the previous bone moved by its segment's length along X;
//! - palm/ankle: its layer's rotation at the last bone's end (PalmTrans2::
//!   CalcWorldTransform keeps the position);
//! - a finger's first segment: the palm moved by (palm dimensions ⊙ the
//!   digit's root position) in its frame (DigitSegTrans::
//!   CalcParentTransform); later segments: the previous one moved by its
//!   length;
//! - a foot platform at the scene root: its layer value is its world TM.
//!
//! FK holds for IK/FK ratio 1 (the limb's LayerFloat, its layers blended at
//! `t`); a limb at ratio 0 is solved by CAT's two-bone IK (leg.rs) from
//! that FK pose towards the palm's (foot's) layer applied to its IK target
//! (a leg's platform, an arm's IKTarget node, whose layer value is its
//! world TM). A leg's toe at ratio 0 takes its rotation from the IK target
//! as in setup mode (`layer · RotZ(π/2) · IK target`, at the foot moved by
//! the digit's root offset and the layer's translation). Blended ratios,
//! twist segments, layers with scale, bones that do not inherit all of
//! their parent's animation, toes of a leg in FK and stretching legs are
//! refused by name.

use super::anim;
use super::collar;
use super::limb::{bone_data_of, limb_data_of, BONE_DATA};
use super::records::{self, leaf, reference, u32_of};
use super::spine::{pb_object, pb_objects, Frame};
use super::{along_x, node_of, with_origin, without_scale};
use crate::eval::core::math::Mat43;
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

use super::layers::LAYER_FLOAT;
// LimbData2 references and parameter ids.
const REF_RETARGETING: u32 = 2;
const REF_IKFK_RATIO: u32 = 3;
const REF_LIMB_IK_POS: u32 = 4;
const REF_UP_NODE: u32 = 7;
/// CATHDPivotTrans: a platform's layer, a PRS turning about a pivot.
const HD_PIVOT_TRANS: ClassId = ClassId(0x6e34_1cba, 0x6f9c_52ca);
const PB_HUB: u16 = 1;
const PB_COLLARBONE: u16 = 8;
const PB_PALM: u16 = 9;
const PB_BONES: u16 = 12;
/// BoneData parameter: the number of twist segments.
const PB_NUM_SEGMENTS: u16 = 7;
/// CATControl flags CNCFLAG_INHERIT_ANIM_POS | ROT | SCL.
const INHERIT_ANIM_ALL: u32 = 0x0E00_0000;
/// Layer flags CLIP_FLAG_INHERIT_POS | ROT | SCL.
const CLIP_INHERIT_ALL: u32 = 0x0070_0000;
/// A layer's axes must keep unit length within this (no scale). Keyed
/// scales this close to 1 are f32 round-off of a unit scale (Sparky's
/// Robo_Buddy_Neutral left thigh 0.99998 / 1.00002, LD33's right calf
/// 1.00001 / 0.99999): the layer's axes are taken without them.
const UNIT_SCALE: f64 = 1e-4;

fn refuse(at: &str, why: impl Into<String>) -> EvalError {
    EvalError::not_evaluated_why(at.to_string(), why.into())
}

/// The length of a CAT bone (its dimensions' X, scene units).
pub(super) fn length(eval: &SceneEval, ctl: usize, at: &str) -> Result<f64, EvalError> {
    records::cat_control(eval, ctl)
        .dims
        .map(|d| f64::from(d[0]))
        .filter(|l| l.is_finite())
        .ok_or_else(|| EvalError::malformed(at.to_string(), "a CAT bone without dimensions"))
}

/// The length of a limb bone: its (one) segment's dimensions, which place
/// the segment's children (CATNodeControl::ApplyChildOffset); the
/// BoneData's own saved dimensions can differ (Sparky's Robot calves:
/// 32.278 against the segment's 32.195, the FBX follows the segment).
fn bone_length(eval: &SceneEval, data: usize, at: &str) -> Result<f64, EvalError> {
    let seg = eval
        .graph
        .nodes()
        .filter_map(|(o, _)| eval.tm_controller(o.index))
        .find(|&c| {
            records::bone_class(eval, c) == Some("CATBoneSegTrans")
                && bone_data_of(eval, c) == Some(data)
        })
        .ok_or_else(|| {
            EvalError::reference(at.to_string(), "a limb bone without a segment node")
        })?;
    length(eval, seg, at)
}

/// The value of controller `ctl`'s one animation layer at `t`, when the
/// bone inherits its parent's animation fully and the layer has no scale.
fn plain_layer(eval: &SceneEval, ctl: usize, t: i32, what: &str) -> Result<Mat43, EvalError> {
    let at = format!("{what} {ctl}");
    let cc = records::cat_control(eval, ctl);
    if cc
        .flags
        .is_some_and(|f| f & INHERIT_ANIM_ALL != INHERIT_ANIM_ALL)
    {
        return Err(refuse(
            &at,
            format!(
                "a {what} that does not inherit all of its parent's animation (CATControl flags \
                 {:#010x}) is not evaluated in animation mode",
                cc.flags.unwrap_or(0)
            ),
        ));
    }
    let layer = records::layer_trans(eval, ctl)
        .ok_or_else(|| EvalError::reference(at.clone(), "no CATClipMatrix3"))?;
    let clip = records::clip_matrix(eval, layer)?;
    if clip.flags & (CLIP_INHERIT_ALL | records::CLIP_HAS_TRANSFORM) != CLIP_INHERIT_ALL {
        return Err(refuse(
            &at,
            format!(
                "a {what} with layer flags {:#010x} (not inheriting position, rotation and \
                 scale, or with a transform) is not evaluated in animation mode",
                clip.flags
            ),
        ));
    }
    let v = anim::layer_value(eval, layer, t)?;
    let axes = [v.0[0].len(), v.0[1].len(), v.0[2].len()];
    if axes.iter().any(|l| (l - 1.0).abs() > UNIT_SCALE) {
        return Err(refuse(
            &at,
            format!(
                "a {what} whose animation layer scales it (axes {:.6}, {:.6}, {:.6} at tick {t}) \
                 is not evaluated (no reference)",
                axes[0], axes[1], axes[2]
            ),
        ));
    }
    Ok(without_scale(&v))
}

/// The value at `t` of a CATClipFloat, its layers blended (layers.rs),
/// when its flags are the plain inheritance ones.
fn layer_float(eval: &SceneEval, lf: usize, t: i32, at: &str) -> Result<f64, EvalError> {
    if records::class_of(eval, lf) != Some(LAYER_FLOAT) {
        return Err(EvalError::reference(at.to_string(), "not a LayerFloat"));
    }
    let flags = u32_of(leaf(eval.chunks(lf), 3)).unwrap_or(0);
    if flags & !CLIP_INHERIT_ALL != 0 {
        return Err(refuse(
            at,
            format!("a layered float with flags {flags:#010x} is not evaluated (plain layers are)"),
        ));
    }
    super::layers::float_value(eval, lf, t)
}

/// The limb's IK/FK ratio at `t` (LimbData2 reference 3).
pub(super) fn ikfk_ratio(eval: &SceneEval, limb: usize, t: i32) -> Result<f64, EvalError> {
    let at = format!("CATLimbData2 {limb}");
    let lf = reference(eval, limb, REF_IKFK_RATIO)
        .ok_or_else(|| EvalError::reference(at.clone(), "no IK/FK ratio (reference 3)"))?;
    layer_float(eval, lf, t, &at)
}

/// The world TM of a node CAT evaluates; refused when CAT refuses it.
fn cat_world(eval: &SceneEval, node: usize, f: &Frame, t: i32) -> Result<Mat43, EvalError> {
    match eval.direct_world_at_depth(node, t, f.depth + 1, f.budget) {
        Some(r) => r,
        None => Err(refuse(
            &format!("node {}", eval.graph.node_name(node)),
            "a CAT limb's parent that is not a CAT bone is not evaluated",
        )),
    }
}

/// A collarbone in animation mode: `layer · RotY(π/2 · LMR) · hub`.
pub(super) fn collar_world(
    eval: &SceneEval,
    node: usize,
    ctl: usize,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("CATCollarBone {ctl}");
    let parent = eval
        .parent_node(node)
        .filter(|&p| {
            eval.tm_controller(p)
                .is_some_and(|c| records::bone_class(eval, c) == Some("HubTrans"))
        })
        .ok_or_else(|| {
            refuse(
                &at,
                "a collarbone whose parent is not a hub is not evaluated",
            )
        })?;
    let side = collar::limb_of(eval, ctl)
        .and_then(|l| collar::lmr(eval, l))
        .ok_or_else(|| EvalError::reference(at.clone(), "no CATLimbData2 side flags"))?;
    let hub = without_scale(&cat_world(eval, parent, f, t)?);
    let turn = Mat43::rot_y(std::f64::consts::FRAC_PI_2 * side);
    Ok(plain_layer(eval, ctl, t, "CATCollarBone")?
        .then(&turn)
        .then(&hub))
}

/// A limb's FK pose at `t`: its bones (BoneData, world TM) in order and its
/// palm (controller, world TM) if it has one.
struct FkLimb {
    bones: Vec<(usize, Mat43)>,
    palm: Option<(usize, Mat43)>,
}

fn fk_limb(eval: &SceneEval, limb: usize, f: &Frame, t: i32) -> Result<FkLimb, EvalError> {
    let at = format!("CATLimbData2 {limb}");
    let bad = |what: &str| EvalError::malformed(at.clone(), what.to_string());
    let pb = reference(eval, limb, 0).ok_or_else(|| bad("no parameter block"))?;
    // The first bone's parent: the limb's hub, at the collarbone's end (or
    // at the hub's origin for a limb without a collarbone). The collarbone's
    // own rotation does not pass to the limb (measured, docs/cat.md).
    let hub = pb_object(eval, pb, PB_HUB)
        .filter(|&c| records::bone_class(eval, c) == Some("HubTrans"))
        .ok_or_else(|| bad("no hub"))?;
    let hub_node = node_of(eval, hub).ok_or_else(|| bad("hub without node"))?;
    let hub_world = without_scale(&cat_world(eval, hub_node, f, t)?);
    let collar = pb_object(eval, pb, PB_COLLARBONE)
        .filter(|&c| records::bone_class(eval, c) == Some("CATCollarBone"));
    let start = match collar {
        Some(c) => {
            let n = node_of(eval, c).ok_or_else(|| bad("collarbone without node"))?;
            let w = without_scale(&cat_world(eval, n, f, t)?);
            along_x(&w, length(eval, c, &at)?)
        }
        None => hub_world.0[3],
    };
    let mut point_parent = with_origin(&hub_world, start);
    point_parent = Mat43::rot_y(std::f64::consts::PI).then(&point_parent);
    let mut bones = Vec::new();
    let datas = pb_objects(eval, pb, PB_BONES).ok_or_else(|| bad("no bones"))?;
    if datas.is_empty() {
        return Err(bad("no bones"));
    }
    for data in datas {
        if records::class_of(eval, data) != Some(BONE_DATA) {
            return Err(bad("a bone that is not a CATBoneData"));
        }
        let dpb = reference(eval, data, 0).ok_or_else(|| bad("bone without parameters"))?;
        let segs = pb_object(eval, dpb, PB_NUM_SEGMENTS);
        if segs != Some(1) {
            return Err(refuse(
                &format!("CATBoneData {data}"),
                format!("a limb bone with {segs:?} twist segments is not evaluated"),
            ));
        }
        let w = plain_layer(eval, data, t, "CATBoneData")?.then(&point_parent);
        point_parent = with_origin(&w, along_x(&w, bone_length(eval, data, &at)?));
        bones.push((data, w));
    }
    let palm = match pb_object(eval, pb, PB_PALM)
        .filter(|&c| records::bone_class(eval, c) == Some("PalmTrans2"))
    {
        Some(p) => {
            let w = plain_layer(eval, p, t, "PalmTrans2")?.then(&point_parent);
            Some((p, with_origin(&w, point_parent.0[3])))
        }
        None => None,
    };
    Ok(FkLimb { bones, palm })
}

/// A limb in IK (ratio 0) in animation mode: CAT's two-bone IK (leg.rs,
/// `ik_solve`) from the layers' FK pose towards the foot's (or palm's)
/// layer applied to the IK target (PalmTrans2::CalcPalmRelToIKTarget: in
/// animation mode the palm's layer value takes the place of its setup
/// matrix), in the case the setup-mode legs were measured in: LimbIKPos =
/// bones + 1, the palm's target align 1, no up node, no force feedback.
/// LimbData2 solves arms and legs alike; a leg's IK target is its platform,
/// an arm's an IKTarget node, and an arm's palm goes to the IK target
/// itself, without its layer (docs/cat.md, "Animation mode: limbs").
fn ik_limb(eval: &SceneEval, limb: usize, f: &Frame, t: i32) -> Result<FkLimb, EvalError> {
    let at = format!("CATLimbData2 {limb}");
    let fk = fk_limb(eval, limb, f, t)?;
    let value = |slot: u32, what: &str| {
        reference(eval, limb, slot)
            .ok_or_else(|| EvalError::reference(at.clone(), format!("no {what}")))
            .and_then(|lf| layer_float(eval, lf, t, &at))
    };
    let ik_pos = value(REF_LIMB_IK_POS, "IK position")?;
    // LimbData2::GetForceFeedback reads the retargeting layer.
    let feedback = value(REF_RETARGETING, "force feedback")?;
    let (foot_ctl, _) = fk
        .palm
        .ok_or_else(|| refuse(&at, "a limb without a palm or foot is not evaluated in IK"))?;
    let align = super::leg::foot_layer_floats(eval, foot_ctl)
        .next()
        .ok_or_else(|| EvalError::malformed(at.clone(), "the palm has no target align"))
        .and_then(|lf| layer_float(eval, lf, t, &at))?;
    let nbones = fk.bones.len() as f64;
    if ik_pos != nbones + 1.0 || align != 1.0 || feedback > 0.0 {
        return Err(refuse(
            &at,
            format!(
                "a limb in IK with IK position {ik_pos}, target align {align} and force \
                 feedback {feedback} at tick {t} is not evaluated (IK through the palm, align 1, \
                 no feedback are)"
            ),
        ));
    }
    if reference(eval, limb, REF_UP_NODE).is_some() {
        return Err(refuse(&at, "a limb with an up node is not evaluated"));
    }
    let target = super::leg::ik_target(eval, limb, f, t)?;
    // A leg's foot is animated relative to its platform (its layer lifts the
    // ankle off it); an arm's palm takes the IK target itself, as the setup-
    // mode arms' gate found (limb.rs, `ik_agrees`): measured, docs/cat.md.
    let foot_target = if super::leg::is_leg(eval, limb) {
        plain_layer(eval, foot_ctl, t, "PalmTrans2")?.then(&target)
    } else {
        target
    };
    let fk_tms: Vec<Mat43> = fk.bones.iter().map(|(_, w)| *w).collect();
    let datas: Vec<usize> = fk.bones.iter().map(|(d, _)| *d).collect();
    let lengths = datas
        .iter()
        .map(|&d| bone_length(eval, d, &at))
        .collect::<Result<Vec<_>, _>>()?;
    let leg = super::leg::ik_solve(
        &at,
        &super::leg::IkInput {
            fk: &fk_tms,
            datas: &datas,
            lengths: &lengths,
            foot: (foot_ctl, length(eval, foot_ctl, &at)?),
            foot_target,
            target,
            stretchy: super::leg::all_stretchy(eval, &datas, super::leg::CCFLAG_ANIM_STRETCHY),
        },
    )?;
    Ok(FkLimb {
        bones: leg.bones,
        palm: Some(leg.foot),
    })
}

/// A foot platform (CATFootTrans2) or an IK target (IKTarget Trans) at the
/// scene root in animation mode: as for a root hub, its one layer's value
/// is its world TM (FootTrans2 and IKTargTrans override nothing of
/// CATClipMatrix3's absolute layer). The layer is a CATHDPivotTrans (a PRS
/// turning about a pivot: `scale · T(−pivot) · rotation · T(position +
/// world-space pivot)`, HDPivotTrans::GetValue) or a plain PRS.
pub(super) fn platform_world(
    eval: &SceneEval,
    node: usize,
    ctl: usize,
    class: &str,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("{class} {ctl}");
    let what = if class == "IKTarget Trans" {
        "IK target"
    } else {
        "foot platform"
    };
    if eval
        .parent_node(node)
        .is_some_and(|p| eval.parent_node(p).is_some())
    {
        return Err(refuse(
            &at,
            format!("a {what} linked to another node is not evaluated in animation mode"),
        ));
    }
    let layer = records::layer_trans(eval, ctl)
        .ok_or_else(|| EvalError::reference(at.clone(), "no CATClipMatrix3"))?;
    let clip = records::clip_matrix(eval, layer)?;
    anim::check_layers(&clip)?;
    // The setup inheritance flags (bits 16..19) act in setup mode only
    // (CATNodeControl::CalcInheritance); check_layers refuses the others.
    let expect = CLIP_INHERIT_ALL | records::CLIP_HAS_TRANSFORM;
    if clip.flags & expect != expect {
        return Err(refuse(
            &at,
            format!(
                "a {what} with layer flags {:#010x} is not evaluated in animation mode",
                clip.flags
            ),
        ));
    }
    let value = super::layers::matrix_value(eval, &clip, t, |l| {
        if records::class_of(eval, l) == Some(HD_PIVOT_TRANS) {
            return hd_pivot_value(eval, l, t, &at);
        }
        eval.prs_tm(l, t).ok_or_else(|| {
            refuse(
                &at,
                format!(
                    "a {what} layer that is neither a CATHDPivotTrans nor a \
                     Position/Rotation/Scale is not evaluated"
                ),
            )
        })
    })?;
    if (0..3).any(|r| (value.0[r].len() - 1.0).abs() > UNIT_SCALE) {
        return Err(refuse(
            &at,
            format!("a {what} whose layer scales it is not evaluated (no reference)"),
        ));
    }
    Ok(without_scale(&value))
}

/// CATHDPivotTrans at `t`: references 0 = PRS, 1 = world-space pivot,
/// 2 = pivot (position controllers).
fn hd_pivot_value(eval: &SceneEval, hd: usize, t: i32, at: &str) -> Result<Mat43, EvalError> {
    use crate::eval::core::controller::Controller;
    let prs = reference(eval, hd, 0)
        .ok_or_else(|| EvalError::malformed(at.to_string(), "a CATHDPivotTrans without its PRS"))?;
    let (ws, pivot) = (reference(eval, hd, 1), reference(eval, hd, 2));
    let decoded = |c: Option<usize>| {
        matches!(
            c.and_then(|c| eval.controller(c)),
            Some(Controller::Point3 { .. })
        )
    };
    if !decoded(ws) || !decoded(pivot) {
        return Err(refuse(
            at,
            "a pivot layer whose pivots are not decoded position controllers",
        ));
    }
    let Some(Controller::Prs {
        position,
        rotation,
        scale,
    }) = eval.controller(prs)
    else {
        return Err(refuse(
            at,
            "a pivot layer whose first controller is not a Position/Rotation/Scale",
        ));
    };
    let pos = eval.position_at(*position, t).plus(eval.position_at(ws, t));
    let piv = eval.position_at(pivot, t);
    Ok(eval
        .scale_tm(*scale, t)
        .then(&Mat43::translation(piv.scale(-1.0)))
        .then(&eval.rotation_at(*rotation, t))
        .then(&Mat43::translation(pos)))
}

/// A limb bone segment or palm in animation mode (FK, or IK).
pub(super) fn limb_world(
    eval: &SceneEval,
    ctl: usize,
    class: &str,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("{class} {ctl}");
    let limb = limb_data_of(eval, ctl, class)
        .ok_or_else(|| EvalError::reference(at.clone(), "no CATLimbData2"))?;
    let ratio = ikfk_ratio(eval, limb, t)?;
    // Written so that NaN refuses too.
    let pose = if ratio >= 1.0 {
        fk_limb(eval, limb, f, t)?
    } else if ratio == 0.0 {
        ik_limb(eval, limb, f, t)?
    } else {
        return Err(refuse(
            &format!("CATLimbData2 {limb}"),
            format!(
                "a limb with IK/FK ratio {ratio} at tick {t} is not evaluated in animation mode \
                 (FK, ratio 1, and IK, ratio 0, are)"
            ),
        ));
    };
    if class == "PalmTrans2" {
        return pose
            .palm
            .filter(|(p, _)| *p == ctl)
            .map(|(_, w)| w)
            .ok_or_else(|| EvalError::reference(at, "not its limb's palm"));
    }
    let data =
        bone_data_of(eval, ctl).ok_or_else(|| EvalError::reference(at.clone(), "no BoneData"))?;
    pose.bones
        .iter()
        .find(|(d, _)| *d == data)
        .map(|(_, w)| *w)
        .ok_or_else(|| EvalError::reference(at, "not among its limb's bones"))
}

/// A digit segment in animation mode: on an arm's palm (module doc).
pub(super) fn digit_world(
    eval: &SceneEval,
    node: usize,
    ctl: usize,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("CATDigitSegTrans {ctl}");
    let (parent, parent_ctl) = super::digit::parent_of(eval, node, &at)?;
    let parent_world = match records::bone_class(eval, parent_ctl) {
        Some("PalmTrans2") => {
            let limb = collar::limb_of(eval, parent_ctl)
                .ok_or_else(|| EvalError::reference(at.clone(), "the palm has no CATLimbData2"))?;
            if super::leg::is_leg(eval, limb) {
                return toe_world(eval, ctl, parent, parent_ctl, limb, f, t);
            }
            let local = super::digit::root_offset(eval, ctl, parent_ctl, &at)?;
            let palm = without_scale(&cat_world(eval, parent, f, t)?);
            with_origin(&palm, palm.transform_point(local))
        }
        Some("CATDigitSegTrans") => {
            let w = without_scale(&cat_world(eval, parent, f, t)?);
            with_origin(&w, along_x(&w, length(eval, parent_ctl, &at)?))
        }
        _ => {
            return Err(refuse(
                &at,
                "a digit segment not on a palm or digit is not evaluated",
            ))
        }
    };
    Ok(plain_layer(eval, ctl, t, "CATDigitSegTrans")?.then(&parent_world))
}

/// A leg's first toe segment in animation mode, the leg in IK (ratio 0):
/// setup mode's rule (leg.rs, `toe_world`; DigitSegTrans::ApplySetupOffset)
/// with the toe's layer value in place of its setup matrix: rotation `layer
/// · RotZ(π/2) · IK target`, origin the foot moved by the digit's root
/// offset and by the layer's translation, both in the foot's frame. In FK
/// the toe blends towards the foot (not decoded): refused by name.
fn toe_world(
    eval: &SceneEval,
    ctl: usize,
    foot: usize,
    foot_ctl: usize,
    limb: usize,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("CATDigitSegTrans {ctl}");
    let ratio = ikfk_ratio(eval, limb, t)?;
    if ratio != 0.0 {
        return Err(refuse(
            &at,
            format!(
                "a toe of a leg with IK/FK ratio {ratio} at tick {t} is not evaluated in \
                 animation mode (its rotation blends from the IK target towards the foot; \
                 ratio 0 is evaluated)"
            ),
        ));
    }
    let local = super::digit::root_offset(eval, ctl, foot_ctl, &at)?;
    let layer = plain_layer(eval, ctl, t, "CATDigitSegTrans")?;
    let foot = without_scale(&cat_world(eval, foot, f, t)?);
    let target = super::leg::ik_target(eval, limb, f, t)?;
    let origin = foot
        .transform_point(local)
        .plus(foot.transform_vector(layer.0[3]));
    let mut rot = layer;
    rot.0[3] = crate::eval::core::math::Vec3::default();
    let w = rot
        .then(&Mat43::rot_z(std::f64::consts::FRAC_PI_2))
        .then(&target);
    Ok(with_origin(&w, origin))
}
