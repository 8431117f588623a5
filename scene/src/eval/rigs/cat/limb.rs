//! CAT arms in setup mode (CATLimbData2 with its CATBoneSegTrans/CATBoneData
//! bones and PalmTrans2 palm), when the limb's IK agrees with its FK pose.
//!
//! FK (BoneData::CalcInheritance, CATNodeControl::CalcInheritance and
//! CATClipMatrix3::ApplySetupVal): the first bone takes the CATParent's
//! rotation, flipped about Y (SETUP_INHERITS_ROT_FROM_CATPARENT +
//! SETUP_FLIPROT_FROM_CATPARENT), at its parent's child point (the
//! collarbone's end), then its setup rotation: `setup · RotY(π) · CATParent`;
//! each later bone is `setup · previous bone moved by its length along X`;
//! the palm is its setup rotation at the last bone's end.
//!
//! CAT solves a limb with IK even in setup mode unless its IK/FK ratio (the
//! limb's LayerFloat, setup value) is 1. Its IK solution is not evaluated
//! here; the FK pose is returned only when the IK goal it would solve for
//! already holds in it: the limb's IK target (its setup matrix under the
//! CATParent, HAS_TRANSFORM) sits at the FK palm's end and, turned 180°
//! about Y, has the FK palm's rotation, within [`IK_AGREEMENT`]; otherwise,
//! and for limbs with twist segments, the bones stay refused by name. Legs
//! go to leg.rs, which solves CAT's IK.

use super::collar::{self, LIMB_DATA2};
use super::records::{self, reference};
use super::spine::Frame;
use super::{setup_in, without_scale};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

/// CATBoneData: a limb bone's setup and FK/IK data.
pub const BONE_DATA: ClassId = ClassId(0x1f78_1be7, 0x1970_7e49);
// LimbData2 flags (chunk 1) and parameter block ids.
const LIMBFLAG_ISARM: u32 = 1 << 1;
const PB_COLLARBONE: u16 = 8;
const PB_PALM: u16 = 9;
const PB_BONES: u16 = 12;
/// LimbData2 reference: the IK/FK ratio layer (CATClipFloat; reference 2
/// is the retargeting layer).
const REF_IKFK_RATIO: u32 = 3;
/// LimbData2 reference: the IK target node.
const REF_IK_TARGET: u32 = 5;
/// BoneData parameter: the number of twist segments.
const PB_NUM_SEGMENTS: u16 = 7;
/// The IK goal must hold in the FK pose within this fraction of the limb's
/// length (position) and this rotation element difference.
pub const IK_AGREEMENT: f64 = 1e-4;

/// A limb part (its BoneData or palm controller) and its world TM.
type Posed = (usize, Mat43);

/// One limb bone: its BoneData's setup matrix and length.
struct Bone {
    data: usize,
    setup: Mat43,
    flags: u32,
    length: f64,
}

pub(super) fn layer_setup(eval: &SceneEval, ctl: usize) -> Result<(Mat43, u32), EvalError> {
    let layer = records::layer_trans(eval, ctl).ok_or_else(|| {
        EvalError::reference(format!("CAT controller {ctl}"), "no CATClipMatrix3")
    })?;
    let clip = records::clip_matrix(eval, layer)?;
    Ok((clip.setup, clip.flags))
}

/// The BoneData of a limb segment (segment → parameter block → reference 0).
pub fn bone_data_of(eval: &SceneEval, seg: usize) -> Option<usize> {
    let pb = reference(eval, seg, 0)?;
    reference(eval, pb, 0).filter(|&d| records::class_of(eval, d) == Some(BONE_DATA))
}

pub(super) fn limb_of_bone_data(eval: &SceneEval, data: usize) -> Option<usize> {
    let pb = reference(eval, data, 0)?;
    reference(eval, pb, 0).filter(|&l| records::class_of(eval, l) == Some(LIMB_DATA2))
}

/// The CATLimbData2 of a limb segment or palm controller of class `class`:
/// a palm names its limb directly, a segment through its BoneData.
pub(super) fn limb_data_of(eval: &SceneEval, ctl: usize, class: &str) -> Option<usize> {
    match class {
        "PalmTrans2" => collar::limb_of(eval, ctl),
        _ => bone_data_of(eval, ctl).and_then(|d| limb_of_bone_data(eval, d)),
    }
}

fn max_rot_diff(a: &Mat43, b: &Mat43) -> f64 {
    (0..3)
        .flat_map(|r| (0..3).map(move |c| (r, c)))
        .map(|(r, c)| (a.rows()[r][c] - b.rows()[r][c]).abs())
        .fold(0.0, f64::max)
}

/// The world TMs of an arm's bones (in order) and its palm, FK.
fn fk_arm(
    eval: &SceneEval,
    limb: usize,
    f: &Frame,
    t: i32,
) -> Result<(Vec<Posed>, Posed), EvalError> {
    let at = format!("CATLimbData2 {limb}");
    let bad = |what: &str| EvalError::malformed(at.clone(), what.to_string());
    let flags =
        records::u32_of(records::leaf(eval.chunks(limb), 1)).ok_or_else(|| bad("no flags"))?;
    if flags & LIMBFLAG_ISARM == 0 {
        return Err(EvalError::not_evaluated_why(
            at,
            "a leg (IK towards its foot platform) is not evaluated",
        ));
    }
    let pb = reference(eval, limb, 0).ok_or_else(|| bad("no parameter block"))?;
    let collar_ctl = super::spine::pb_object(eval, pb, PB_COLLARBONE)
        .filter(|&c| records::bone_class(eval, c) == Some("CATCollarBone"))
        .ok_or_else(|| {
            EvalError::not_evaluated_why(at.clone(), "an arm without a collarbone is not evaluated")
        })?;
    let palm_ctl = super::spine::pb_object(eval, pb, PB_PALM)
        .filter(|&c| records::bone_class(eval, c) == Some("PalmTrans2"))
        .ok_or_else(|| bad("no palm"))?;
    let mut bones = Vec::new();
    for data in super::spine::pb_objects(eval, pb, PB_BONES).ok_or_else(|| bad("no bones"))? {
        if records::class_of(eval, data) != Some(BONE_DATA) {
            return Err(bad("a bone that is not a CATBoneData"));
        }
        let dpb = reference(eval, data, 0).ok_or_else(|| bad("bone without parameters"))?;
        let segs = super::spine::pb_object(eval, dpb, PB_NUM_SEGMENTS);
        if segs != Some(1) {
            return Err(EvalError::not_evaluated_why(
                format!("CATBoneData {data}"),
                format!("a limb bone with {segs:?} twist segments is not evaluated"),
            ));
        }
        let (setup, flags) = layer_setup(eval, data)?;
        let length = records::cat_control(eval, data)
            .dims
            .map(|d| f64::from(d[0]))
            .filter(|l| l.is_finite())
            .ok_or_else(|| bad("a bone without dimensions"))?;
        bones.push(Bone {
            data,
            setup,
            flags,
            length,
        });
    }
    if bones.is_empty() {
        return Err(bad("no bones"));
    }
    use records::*;
    let first_flags = CLIP_LIMB_ROOT_RULES;
    let refused_flags = CLIP_HAS_TRANSFORM | (CLIP_SETUP_RULES & !CLIP_LIMB_ROOT_RULES);
    let no_trans = |m: &Mat43| m.0[3].len() == 0.0;
    // The collarbone's end: its child point along X.
    let collar_node =
        super::node_of(eval, collar_ctl).ok_or_else(|| bad("collarbone without node"))?;
    let collar = eval.world_tm_at_depth(collar_node, t, f.depth + 1, f.budget);
    let collar_len = records::cat_control(eval, collar_ctl)
        .dims
        .map(|d| f64::from(d[0]))
        .ok_or_else(|| bad("collarbone without dimensions"))?;
    let mut point = collar.0[3].plus(without_scale(&collar).0[0].scale(collar_len));
    let mut prev: Option<Mat43> = None;
    let mut out = Vec::new();
    for (i, b) in bones.iter().enumerate() {
        let expect = if i == 0 { first_flags } else { 0 };
        let inherit = first_flags | refused_flags;
        if b.flags & inherit != expect || !no_trans(&b.setup) {
            return Err(EvalError::not_evaluated_why(
                format!("CATBoneData {}", b.data),
                format!(
                    "a limb bone with layer flags {:#010x} or a setup translation is not evaluated",
                    b.flags
                ),
            ));
        }
        let parent = match prev {
            None => {
                let mut cp = without_scale(&f.cp_world);
                cp.0[3] = point;
                Mat43::rot_y(std::f64::consts::PI).then(&cp)
            }
            Some(p) => {
                let mut p = p;
                p.0[3] = point;
                p
            }
        };
        let w = setup_in(&b.setup, f.cp.units).then(&parent);
        point = w.0[3].plus(w.0[0].scale(b.length));
        prev = Some(w);
        out.push((b.data, w));
    }
    let (palm_setup, palm_flags) = layer_setup(eval, palm_ctl)?;
    if palm_flags & (first_flags | refused_flags) != 0 || !no_trans(&palm_setup) {
        return Err(EvalError::not_evaluated_why(
            format!("PalmTrans2 {palm_ctl}"),
            format!(
                "a palm with layer flags {palm_flags:#010x} or a setup translation is not evaluated"
            ),
        ));
    }
    let mut last = prev.ok_or_else(|| bad("no bones"))?;
    last.0[3] = point;
    let palm = setup_in(&palm_setup, f.cp.units).then(&last);
    Ok((out, (palm_ctl, palm)))
}

/// Whether the limb's IK goal already holds in its FK pose (module doc);
/// Err names why not.
fn ik_agrees(
    eval: &SceneEval,
    limb: usize,
    bones: &[Posed],
    palm: &Posed,
    f: &Frame,
) -> Result<(), EvalError> {
    let at = format!("CATLimbData2 {limb}");
    let ratio = reference(eval, limb, REF_IKFK_RATIO)
        .and_then(|l| records::u32_of(records::leaf(eval.chunks(l), 8)))
        .map(|b| f64::from(f32::from_bits(b)))
        .filter(|r| r.is_finite())
        .ok_or_else(|| EvalError::malformed(at.clone(), "no IK/FK ratio setup value"))?;
    if ratio >= 1.0 {
        return Ok(());
    }
    let target_node = reference(eval, limb, REF_IK_TARGET)
        .ok_or_else(|| EvalError::reference(at.clone(), "IK without an IK target node"))?;
    let target_ctl = eval
        .tm_controller(target_node)
        .filter(|&c| records::bone_class(eval, c) == Some("IKTarget Trans"))
        .ok_or_else(|| EvalError::reference(at.clone(), "the IK target is not an IKTarget"))?;
    let (setup, flags) = layer_setup(eval, target_ctl)?;
    use records::*;
    if flags & CLIP_HAS_TRANSFORM == 0 || flags & CLIP_SETUP_RULES != 0 {
        return Err(EvalError::not_evaluated_why(
            at,
            format!("setup-mode IK towards a target with layer flags {flags:#010x}"),
        ));
    }
    let target = setup_in(&setup, f.cp.units).then(&without_scale(&f.cp_world));
    let palm_len = records::cat_control(eval, palm.0)
        .dims
        .map(|d| f64::from(d[0]))
        .ok_or_else(|| EvalError::malformed(at.clone(), "palm without dimensions"))?;
    let tip: Vec3 = palm.1 .0[3].plus(palm.1 .0[0].scale(palm_len));
    let length: f64 = bones
        .windows(2)
        .map(|w| w[1].1 .0[3].minus(w[0].1 .0[3]).len())
        .sum::<f64>()
        + tip.minus(bones[bones.len() - 1].1 .0[3]).len();
    let off = tip.minus(target.0[3]).len();
    let turned = Mat43::rot_y(std::f64::consts::PI).then(&target);
    let rot = max_rot_diff(&turned, &palm.1);
    // Written so that NaN (damaged data) refuses too.
    let agrees = off <= IK_AGREEMENT * length && rot <= IK_AGREEMENT;
    if !agrees {
        return Err(EvalError::not_evaluated_why(
            at,
            format!(
                "setup-mode IK (IK/FK ratio {ratio}) towards a target {off:.3e} from the FK palm's \
                 end (rotation {rot:.1e}): the IK solve is not evaluated"
            ),
        ));
    }
    Ok(())
}

/// The world TM of limb segment `seg` or palm `palm` in setup mode.
pub(super) fn world(
    eval: &SceneEval,
    ctl: usize,
    class: &str,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("{class} {ctl}");
    let limb = limb_data_of(eval, ctl, class)
        .ok_or_else(|| EvalError::reference(at.clone(), "no CATLimbData2"))?;
    if super::leg::is_leg(eval, limb) {
        return super::leg::world(eval, ctl, class, limb, f, t);
    }
    let (bones, palm) = fk_arm(eval, limb, f, t)?;
    ik_agrees(eval, limb, &bones, &palm, f)?;
    if class == "PalmTrans2" {
        return Ok(palm.1);
    }
    let data =
        bone_data_of(eval, ctl).ok_or_else(|| EvalError::reference(at.clone(), "no BoneData"))?;
    bones
        .iter()
        .find(|(d, _)| *d == data)
        .map(|(_, w)| *w)
        .ok_or_else(|| EvalError::reference(at, "not among its limb's bones"))
}
