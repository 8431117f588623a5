//! CAT limbs in animation mode, FK (docs/cat.md, "Animation mode: limbs"):
//! collarbones, limb bones (CATBoneSegTrans over their CATBoneData), palms
//! and ankles (PalmTrans2) and the digits on an arm's palm, each from its
//! one animation layer (a Position/Rotation/Scale) applied to the parent
//! frame CAT builds for it (CATNodeControl::CalcParentTransform, then
//! CATClipMatrix3::GetTransformation with one absolute layer: `layer ·
//! parent`):
//!
//! - collarbone: the hub's origin turned a quarter turn about Y towards
//!   the limb's side (CollarBoneTrans, as in setup mode);
//! - first limb bone: its parent's child point (the collarbone's end, or
//!   the hub's origin for a limb without one) turned 180° about Y
//!   (BoneData::CalcInheritance); later bones: the previous bone moved by
//!   its length along X;
//! - palm/ankle: its layer's rotation at the last bone's end (PalmTrans2::
//!   CalcWorldTransform keeps the position);
//! - a finger's first segment: the palm moved by (palm dimensions ⊙ the
//!   digit's root position) in its frame (DigitSegTrans::
//!   CalcParentTransform); later segments: the previous one moved by its
//!   length.
//!
//! Only pure FK is evaluated: the limb's IK/FK ratio (its LayerFloat's one
//! layer, at `t`) must be 1. IK (ratio < 1), twist segments, layers with
//! scale, bones that do not inherit all of their parent's animation, toes
//! (their rotation follows the IK target) are refused by name.

use super::anim;
use super::collar::{self, LIMB_DATA2};
use super::limb::{bone_data_of, limb_of_bone_data, BONE_DATA};
use super::records::{self, leaf, reference, u32_of};
use super::spine::{pb_object, pb_objects, pb_point3, Frame};
use super::{node_of, without_scale};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

/// DigitData: a finger or toe and its root position on the palm.
const DIGIT_DATA: ClassId = ClassId(0x67e7_064d, 0x2827_1d66);
/// CATClipFloat ("LayerFloat").
const LAYER_FLOAT: ClassId = ClassId(0x4058_5238, 0x2503_240d);
// LimbData2 references and parameter ids.
const REF_IKFK_RATIO: u32 = 3;
const PB_HUB: u16 = 1;
const PB_COLLARBONE: u16 = 8;
const PB_PALM: u16 = 9;
const PB_BONES: u16 = 12;
/// BoneData parameter: the number of twist segments.
const PB_NUM_SEGMENTS: u16 = 7;
/// DigitData parameter: the digit's root on the palm, in palm dimensions.
const PB_ROOT_POS: u16 = 5;
const LIMBFLAG_ISLEG: u32 = 1 << 2;
/// CATControl flags CNCFLAG_INHERIT_ANIM_POS | ROT | SCL.
const INHERIT_ANIM_ALL: u32 = 0x0E00_0000;
/// Layer flags CLIP_FLAG_INHERIT_POS | ROT | SCL.
const CLIP_INHERIT_ALL: u32 = 0x0070_0000;
/// A layer's axes must keep unit length within this (no scale).
const UNIT_SCALE: f64 = 1e-5;

fn refuse(at: &str, why: impl Into<String>) -> EvalError {
    EvalError::not_evaluated_why(at.to_string(), why.into())
}

fn with_origin(m: &Mat43, p: Vec3) -> Mat43 {
    let mut m = *m;
    m.0[3] = p;
    m
}

fn along_x(m: &Mat43, len: f64) -> Vec3 {
    m.0[3].plus(m.0[0].scale(len))
}

/// The length of a CAT bone (its dimensions' X, scene units).
fn length(eval: &SceneEval, ctl: usize, at: &str) -> Result<f64, EvalError> {
    records::cat_control(eval, ctl)
        .dims
        .map(|d| f64::from(d[0]))
        .filter(|l| l.is_finite())
        .ok_or_else(|| EvalError::malformed(at.to_string(), "a CAT bone without dimensions"))
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
    let scaled = (0..3).any(|r| (v.0[r].len() - 1.0).abs() > UNIT_SCALE);
    if scaled {
        return Err(refuse(
            &at,
            format!("a {what} whose animation layer scales it is not evaluated (no reference)"),
        ));
    }
    Ok(v)
}

/// The value at `t` of a CATClipFloat with one layer (a float controller).
fn layer_float(eval: &SceneEval, lf: usize, t: i32, at: &str) -> Result<f64, EvalError> {
    if records::class_of(eval, lf) != Some(LAYER_FLOAT) {
        return Err(EvalError::reference(at.to_string(), "not a LayerFloat"));
    }
    let layers = u32_of(leaf(eval.chunks(lf), 1));
    let flags = u32_of(leaf(eval.chunks(lf), 3)).unwrap_or(0);
    if layers != Some(1) || flags & !CLIP_INHERIT_ALL != 0 {
        return Err(refuse(
            at,
            format!(
                "a layered float with {layers:?} layers and flags {flags:#010x} is not evaluated \
                 (one plain layer is)"
            ),
        ));
    }
    let sub = reference(eval, lf, 0);
    let v = eval.float_at(sub, t, f64::NAN);
    if v.is_finite() {
        Ok(v)
    } else {
        Err(refuse(
            at,
            "a layered float whose layer is not a float controller is not evaluated",
        ))
    }
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
    let ratio = ikfk_ratio(eval, limb, t)?;
    // Written so that NaN refuses too.
    if !(ratio >= 1.0) {
        return Err(refuse(
            &at,
            format!(
                "a limb in IK (IK/FK ratio {ratio} at tick {t}) is not evaluated in animation \
                 mode; pure FK (ratio 1) is"
            ),
        ));
    }
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
        point_parent = with_origin(&w, along_x(&w, length(eval, data, &at)?));
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

/// A limb bone segment or palm in animation mode (FK).
pub(super) fn limb_world(
    eval: &SceneEval,
    ctl: usize,
    class: &str,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("{class} {ctl}");
    let limb = match class {
        "PalmTrans2" => collar::limb_of(eval, ctl),
        _ => bone_data_of(eval, ctl).and_then(|d| limb_of_bone_data(eval, d)),
    }
    .filter(|&l| records::class_of(eval, l) == Some(LIMB_DATA2))
    .ok_or_else(|| EvalError::reference(at.clone(), "no CATLimbData2"))?;
    let fk = fk_limb(eval, limb, f, t)?;
    if class == "PalmTrans2" {
        return fk
            .palm
            .filter(|(p, _)| *p == ctl)
            .map(|(_, w)| w)
            .ok_or_else(|| EvalError::reference(at, "not its limb's palm"));
    }
    let data =
        bone_data_of(eval, ctl).ok_or_else(|| EvalError::reference(at.clone(), "no BoneData"))?;
    fk.bones
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
    let parent = eval
        .parent_node(node)
        .ok_or_else(|| refuse(&at, "a digit segment without a parent"))?;
    let parent_ctl = eval
        .tm_controller(parent)
        .ok_or_else(|| EvalError::reference(at.clone(), "its parent has no controller"))?;
    let parent_world = match records::bone_class(eval, parent_ctl) {
        Some("PalmTrans2") => {
            let limb = collar::limb_of(eval, parent_ctl)
                .ok_or_else(|| EvalError::reference(at.clone(), "the palm has no CATLimbData2"))?;
            if u32_of(leaf(eval.chunks(limb), 1)).is_some_and(|fl| fl & LIMBFLAG_ISLEG != 0) {
                return Err(refuse(
                    &at,
                    "a toe (its rotation follows the leg's IK target, DigitSegTrans::\
                     ApplySetupOffset) is not evaluated in animation mode",
                ));
            }
            let digit = reference(eval, ctl, 0)
                .and_then(|pb| reference(eval, pb, 0))
                .filter(|&d| records::class_of(eval, d) == Some(DIGIT_DATA))
                .ok_or_else(|| EvalError::malformed(at.clone(), "no DigitData"))?;
            let root = reference(eval, digit, 0)
                .and_then(|pb| pb_point3(eval, pb, PB_ROOT_POS))
                .ok_or_else(|| EvalError::malformed(at.clone(), "no digit root position"))?;
            let dims = records::cat_control(eval, parent_ctl)
                .dims
                .map(Vec3::from_f32)
                .ok_or_else(|| EvalError::malformed(at.clone(), "a palm without dimensions"))?;
            let palm = without_scale(&cat_world(eval, parent, f, t)?);
            let local = Vec3(dims.0 * root.0, dims.1 * root.1, dims.2 * root.2);
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
