//! CAT legs in setup mode: CATLimbData2 limbs flagged ISLEG, solved by CAT's
//! own limb IK towards their foot platform (BoneData::GetIKValue,
//! LimbData2::GetIKTMs/GettmFKTarget/GettmIKTarget, PalmTrans2::ModifyIKTM and
//! GetIKValue), and the first toe segments on the foot (DigitSegTrans).
//!
//! The setup-mode case decoded here (docs/cat.md, "Legs"): IK/FK ratio 0,
//! the IK position past the foot (LimbIKPos = bones + 1), the foot's target
//! align 1, no up node, two one-segment bones, the platform within reach.
//! - IK target: the platform node's object TM moved by its length, turned
//!   180° about Y (GettmIKTarget).
//! - IK goal: the foot's setup matrix (translation × CAT units) applied to
//!   the IK target gives the foot's target frame; the ankle goal is that
//!   frame moved back by the foot's length along X (ModifyIKTM).
//! - FK: the first bone `setup · RotY(π) · CATParent` at the hub's origin,
//!   the next `setup · previous moved by its length`, the foot its setup
//!   rotation at the calf's tip (its setup translation is not applied).
//! - Thigh: its FK TM turned so its FK target direction (to the FK foot)
//!   points at the ankle goal, then turned in that plane by the law of
//!   cosines so the calf's length reaches the goal.
//! - Calf: its FK TM with the thigh's turn, re-expressed relative to the
//!   direction to the goal as it was relative to the FK goal, then aimed at
//!   the goal, at the thigh's tip.
//! - Foot: its target frame's rotation, aimed from the calf's tip at the
//!   target frame's origin.
//!
//! CAT rotations (`RotateMatrix(tm, AngAxis)`) turn left-handed; here every
//! turn is written right-handed with the angle negated.

use super::layers::LAYER_FLOAT;
use super::limb::{bone_data_of, layer_setup, BONE_DATA};
use super::records::{self, leaf, reference, u32_of};
use super::spine::{pb_object, pb_objects, Frame};
use super::{along_x, node_of, setup_in, with_origin, without_scale};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;

const LIMBFLAG_ISLEG: u32 = 1 << 2;
// LimbData2 references and parameter block ids.
const REF_IKFK_RATIO: u32 = 3;
const REF_LIMB_IK_POS: u32 = 4;
const REF_IK_TARGET: u32 = 5;
const REF_UP_NODE: u32 = 7;
const PB_HUB: u16 = 1;
const PB_COLLARBONE: u16 = 8;
const PB_PALM: u16 = 9;
const PB_BONES: u16 = 12;
/// BoneData parameter: the number of twist segments.
const PB_NUM_SEGMENTS: u16 = 7;
/// CLIP_FLAG_INHERIT_POS | ROT | SCL: the default layer inheritance.
const INHERIT_ALL: u32 = 0x0070_0000;
/// CATControl flags: the bone stretches in setup / animation mode.
pub(super) const CCFLAG_SETUP_STRETCHY: u32 = 1 << 3;
pub(super) const CCFLAG_ANIM_STRETCHY: u32 = 1 << 12;

/// A limb's bones (BoneData, world TM) and its foot (PalmTrans2, world TM).
pub(super) struct Leg {
    pub bones: Vec<(usize, Mat43)>,
    pub foot: (usize, Mat43),
    /// The IK target as the limb sees it (platform turned 180° about Y).
    pub target: Mat43,
}

fn bad(at: &str, what: &str) -> EvalError {
    EvalError::malformed(at.to_string(), what.to_string())
}

fn refuse(at: &str, why: String) -> EvalError {
    EvalError::not_evaluated_why(at.to_string(), why)
}

/// The setup value of a CATClipFloat (its chunk 8).
/// The layered floats (CATClipFloat) among the references of foot
/// controller `foot_ctl`'s reference 0: the first is the foot's "target
/// align", which both the setup leg and the animated IK leg read.
pub(super) fn foot_layer_floats(
    eval: &SceneEval,
    foot_ctl: usize,
) -> impl Iterator<Item = usize> + '_ {
    reference(eval, foot_ctl, 0)
        .and_then(|fpb| eval.graph.objects.get(fpb))
        .into_iter()
        .flat_map(|o| o.references.iter())
        .filter_map(|r| usize::try_from(r.target).ok())
        .filter(move |&l| records::class_of(eval, l) == Some(LAYER_FLOAT))
}

/// The setup value (chunk 8) of layered float `idx`, when it is one and finite.
fn layer_float(eval: &SceneEval, idx: usize) -> Option<f64> {
    (records::class_of(eval, idx) == Some(LAYER_FLOAT))
        .then(|| u32_of(leaf(eval.chunks(idx), 8)))
        .flatten()
        .map(|b| f64::from(f32::from_bits(b)))
        .filter(|v| v.is_finite())
}

/// Whether `limb` is a CATLimbData2 flagged as a leg.
pub(super) fn is_leg(eval: &SceneEval, limb: usize) -> bool {
    u32_of(leaf(eval.chunks(limb), 1)).is_some_and(|f| f & LIMBFLAG_ISLEG != 0)
}

/// `m`'s rotation rows turned right-handed by `angle` about `axis` (row
/// vectors), translation kept; `m` unchanged for a null axis.
fn turn(m: &Mat43, axis: Vec3, angle: f64) -> Mat43 {
    let l = axis.len();
    if l.is_nan() || l <= 0.0 || !angle.is_finite() {
        return *m;
    }
    let k = axis.scale(1.0 / l);
    let (s, c) = angle.sin_cos();
    let rot = |v: Vec3| {
        v.scale(c)
            .plus(k.cross(v).scale(s))
            .plus(k.scale(k.dot(v) * (1.0 - c)))
    };
    Mat43([rot(m.0[0]), rot(m.0[1]), rot(m.0[2]), m.0[3]])
}

fn acos(c: f64) -> f64 {
    c.clamp(-1.0, 1.0).acos()
}

/// `m` turned the shortest way so its X row points along `dir`.
fn aim(m: &Mat43, dir: Vec3) -> Mat43 {
    let x = m.0[0].normalized();
    let d = dir.normalized();
    turn(m, x.cross(d), acos(x.dot(d)))
}

/// The rotation part of `a · b⁻¹` for orthonormal rotations (rows).
fn rot_delta(a: &Mat43, b: &Mat43) -> Mat43 {
    let bt = |v: Vec3| Vec3(v.dot(b.0[0]), v.dot(b.0[1]), v.dot(b.0[2]));
    Mat43([bt(a.0[0]), bt(a.0[1]), bt(a.0[2]), Vec3::default()])
}

/// The world TM of a node whose controller CAT evaluates (a hub or
/// platform): refused when CAT refuses it.
fn cat_world(eval: &SceneEval, node: usize, f: &Frame, t: i32) -> Result<Mat43, EvalError> {
    match eval.direct_world_at_depth(node, t, f.depth + 1, f.budget) {
        Some(r) => r,
        None => Err(EvalError::not_evaluated_why(
            format!("node {node}"),
            "a CAT limb's hub or IK target is not a CAT bone",
        )),
    }
}

/// The limb's IK target as its bones solve towards it (GettmIKTarget): the
/// target node's object TM, moved by its length along X, turned 180° about Y.
pub(super) fn ik_target(
    eval: &SceneEval,
    limb: usize,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("CATLimbData2 {limb}");
    let node = reference(eval, limb, REF_IK_TARGET)
        .ok_or_else(|| EvalError::reference(at.clone(), "a limb without an IK target node"))?;
    let ctl = eval
        .tm_controller(node)
        .filter(|&c| {
            matches!(
                records::bone_class(eval, c),
                Some("CATFootTrans2" | "IKTarget Trans")
            )
        })
        .ok_or_else(|| {
            EvalError::reference(
                at.clone(),
                "the IK target is neither a foot platform nor an IKTarget",
            )
        })?;
    let len = records::cat_control(eval, ctl)
        .dims
        .map(|d| f64::from(d[0]))
        .filter(|l| l.is_finite())
        .ok_or_else(|| bad(&at, "an IK target without dimensions"))?;
    let w = eval.offset_tm(node).then(&cat_world(eval, node, f, t)?);
    let w = with_origin(&w, along_x(&w, len));
    Ok(Mat43::rot_y(std::f64::consts::PI).then(&without_scale(&w)))
}

/// One limb bone: its BoneData, setup matrix, layer flags and length.
struct Bone {
    data: usize,
    setup: Mat43,
    flags: u32,
    length: f64,
}

/// The leg's bones and foot in setup mode (module doc).
pub(super) fn solve(eval: &SceneEval, limb: usize, f: &Frame, t: i32) -> Result<Leg, EvalError> {
    use records::*;
    let at = format!("CATLimbData2 {limb}");
    if !is_leg(eval, limb) {
        return Err(bad(&at, "not a leg"));
    }
    let pb = reference(eval, limb, 0).ok_or_else(|| bad(&at, "no parameter block"))?;
    if pb_object(eval, pb, PB_COLLARBONE).is_some_and(|c| records::bone_class(eval, c).is_some()) {
        return Err(refuse(
            &at,
            "a leg with a collarbone is not evaluated".into(),
        ));
    }
    let foot_ctl = pb_object(eval, pb, PB_PALM)
        .filter(|&c| records::bone_class(eval, c) == Some("PalmTrans2"))
        .ok_or_else(|| refuse(&at, "a leg without a foot (ankle) is not evaluated".into()))?;
    let hub_ctl = pb_object(eval, pb, PB_HUB)
        .filter(|&c| records::bone_class(eval, c) == Some("HubTrans"))
        .ok_or_else(|| bad(&at, "no hub"))?;
    // The limb's layered values, at their setup values (setup mode).
    let value = |slot: u32, what: &str| {
        reference(eval, limb, slot)
            .and_then(|l| layer_float(eval, l))
            .ok_or_else(|| bad(&at, &format!("no {what} setup value")))
    };
    let ratio = value(REF_IKFK_RATIO, "IK/FK ratio")?;
    let ik_pos = value(REF_LIMB_IK_POS, "IK position")?;
    let mut bones = Vec::new();
    for data in pb_objects(eval, pb, PB_BONES).ok_or_else(|| bad(&at, "no bones"))? {
        if records::class_of(eval, data) != Some(BONE_DATA) {
            return Err(bad(&at, "a bone that is not a CATBoneData"));
        }
        let dpb = reference(eval, data, 0).ok_or_else(|| bad(&at, "bone without parameters"))?;
        let segs = pb_object(eval, dpb, PB_NUM_SEGMENTS);
        if segs != Some(1) {
            return Err(refuse(
                &format!("CATBoneData {data}"),
                format!("a limb bone with {segs:?} twist segments is not evaluated"),
            ));
        }
        let (setup, flags) = layer_setup(eval, data)?;
        let length = records::cat_control(eval, data)
            .dims
            .map(|d| f64::from(d[0]))
            .filter(|l| l.is_finite() && *l > 0.0)
            .ok_or_else(|| bad(&at, "a bone without dimensions"))?;
        bones.push(Bone {
            data,
            setup,
            flags,
            length,
        });
    }
    if ratio != 0.0 || bones.len() != 2 || ik_pos != 3.0 {
        return Err(refuse(
            &at,
            format!(
                "a leg with IK/FK ratio {ratio}, {} bones and IK position {ik_pos} (only ratio 0, \
                 two bones, IK through the foot are evaluated)",
                bones.len()
            ),
        ));
    }
    if reference(eval, limb, REF_UP_NODE).is_some() {
        return Err(refuse(&at, "a leg with an up node is not evaluated".into()));
    }
    let align = foot_layer_floats(eval, foot_ctl)
        .find_map(|l| layer_float(eval, l))
        .ok_or_else(|| bad(&at, "the foot has no target align setup value"))?;
    if align != 1.0 {
        return Err(refuse(
            &at,
            format!("a foot with target align {align} (only 1 is evaluated)"),
        ));
    }
    let (foot_setup, foot_flags) = layer_setup(eval, foot_ctl)?;
    let foot_len = records::cat_control(eval, foot_ctl)
        .dims
        .map(|d| f64::from(d[0]))
        .filter(|l| l.is_finite())
        .ok_or_else(|| bad(&at, "a foot without dimensions"))?;
    let first = CLIP_LIMB_ROOT_RULES;
    let other = CLIP_HAS_TRANSFORM | (CLIP_SETUP_RULES & !CLIP_LIMB_ROOT_RULES);
    for (i, b) in bones.iter().enumerate() {
        let expect = if i == 0 { first } else { 0 };
        if b.flags & (first | other) != expect {
            return Err(refuse(
                &format!("CATBoneData {}", b.data),
                format!(
                    "a leg bone with layer flags {:#010x} is not evaluated",
                    b.flags
                ),
            ));
        }
    }
    if foot_flags & (first | other) != 0 {
        return Err(refuse(
            &format!("PalmTrans2 {foot_ctl}"),
            format!("a foot with layer flags {foot_flags:#010x} is not evaluated"),
        ));
    }
    // FK, from the hub's origin. The first bone's setup translation is
    // applied in its original parent's frame turned 180° about Y
    // (SETUP_INHERITS_POS_FROM_PARENT, BoneData::ApplySetupOffset).
    let hub_node = node_of(eval, hub_ctl).ok_or_else(|| bad(&at, "hub without node"))?;
    let hub = without_scale(&cat_world(eval, hub_node, f, t)?);
    let flip = Mat43::rot_y(std::f64::consts::PI);
    let cp = with_origin(&without_scale(&f.cp_world), hub.0[3]);
    let mut parent = flip.then(&cp);
    let mut fk = Vec::new();
    for (i, b) in bones.iter().enumerate() {
        let setup = setup_in(&b.setup, f.cp.units);
        let w = if i == 0 {
            let offset = flip.then(&hub).transform_vector(setup.0[3]);
            let w = with_origin(&setup, Vec3::default()).then(&parent);
            with_origin(&w, w.0[3].plus(offset))
        } else {
            setup.then(&parent)
        };
        parent = with_origin(&w, along_x(&w, b.length));
        fk.push(w);
    }
    // The IK goal (ModifyIKTM, target align 1).
    let target = ik_target(eval, limb, f, t)?;
    let foot_target = setup_in(&foot_setup, f.cp.units).then(&target);
    let datas: Vec<usize> = bones.iter().map(|b| b.data).collect();
    let lengths: Vec<f64> = bones.iter().map(|b| b.length).collect();
    ik_solve(
        &at,
        &IkInput {
            fk: &fk,
            datas: &datas,
            lengths: &lengths,
            foot: (foot_ctl, foot_len),
            foot_target,
            target,
            stretchy: all_stretchy(eval, &datas, CCFLAG_SETUP_STRETCHY),
        },
    )
}

/// Whether every bone's CATControl flags hold `flag` (a stretch flag).
pub(super) fn all_stretchy(eval: &SceneEval, datas: &[usize], flag: u32) -> bool {
    datas.iter().all(|&d| {
        records::cat_control(eval, d)
            .flags
            .is_some_and(|f| f & flag != 0)
    })
}

/// What CAT's two-bone leg IK works from (module doc): the FK thigh and
/// calf, their BoneData and lengths, the foot (controller, length), the
/// foot's target frame and the IK target.
pub(super) struct IkInput<'a> {
    pub fk: &'a [Mat43],
    pub datas: &'a [usize],
    pub lengths: &'a [f64],
    pub foot: (usize, f64),
    pub foot_target: Mat43,
    pub target: Mat43,
    /// Every bone stretches (CCFLAG_SETUP_STRETCHY in setup mode,
    /// CCFLAG_ANIM_STRETCHY in animation mode).
    pub stretchy: bool,
}

/// CAT's IK for a two-bone leg with target align 1 (module doc, steps 3–6):
/// the ankle goal is the foot target moved back by the foot's length; the
/// FK target is the FK calf's tip.
pub(super) fn ik_solve(at: &str, i: &IkInput) -> Result<Leg, EvalError> {
    let (fk, foot_target, foot_len) = (i.fk, i.foot_target, i.foot.1);
    if fk.len() != 2 || i.datas.len() != 2 || i.lengths.len() != 2 {
        return Err(refuse(
            at,
            format!("a leg with {} bones (two are evaluated)", fk.len()),
        ));
    }
    let fk_target = along_x(&fk[1], i.lengths[1]);
    let ankle = along_x(&foot_target, -foot_len);
    // Thigh.
    let p0 = fk[0].0[3];
    let to_goal = ankle.minus(p0);
    let d = to_goal.len();
    let ikv = to_goal.normalized();
    let fkv = fk_target.minus(p0).normalized();
    let (len0, len1) = (
        fk[1].0[3].minus(p0).len(),
        fk_target.minus(fk[1].0[3]).len(),
    );
    // Out of reach, a limb whose bones all stretch scales them
    // (LimbData2::IsLimbStretching, not decoded).
    if i.stretchy && d >= len0 + len1 {
        return Err(refuse(
            at,
            format!(
                "the ankle goal is {d:.4} from the hip, beyond the bones' reach ({len0:.4} + \
                 {len1:.4}) of a stretchy leg: CAT's limb stretch is not evaluated"
            ),
        ));
    }
    // CAT: AngAxis(ik × fk, acos(ik·fk)), a left-handed turn.
    let offset_axis = ikv.cross(fkv);
    let offset_angle = -acos(ikv.dot(fkv));
    let thigh = turn(&fk[0], offset_axis, offset_angle);
    let bv = thigh.0[0].normalized();
    let aim_angle = -acos(ikv.dot(bv));
    // BoneData::GetIKValue's reach cases (CAT turns left-handed by the
    // angle given, so each right-handed angle here is negated): beyond
    // reach the thigh aims at the goal; when the calf is longer than thigh
    // and goal together it aims away from it; else the law of cosines.
    let angle = if d >= len0 + len1 || len0 > d + len1 {
        -aim_angle
    } else if len1 > len0 + d {
        -(aim_angle + std::f64::consts::PI)
    } else {
        let desired = -acos((len0 * len0 + d * d - len1 * len1) / (2.0 * len0 * d));
        // CAT turns by −(desired − aim) left-handed.
        desired - aim_angle
    };
    let thigh = turn(&thigh, bv.cross(ikv), angle);
    let thigh = with_origin(&thigh, p0);
    // Calf.
    // The calf keeps its FK offset from the thigh's tip (its layer or setup
    // translation; BoneData::GetFKValue applies the local FK TM to the IK
    // parent), in the IK thigh's frame.
    let tip_fk = fk[0].0[3].plus(fk[0].0[0].scale(i.lengths[0]));
    let off = fk[1].0[3].minus(tip_fk);
    let local = Vec3(
        off.dot(fk[0].0[0]),
        off.dot(fk[0].0[1]),
        off.dot(fk[0].0[2]),
    );
    let knee = along_x(&thigh, i.lengths[0])
        .plus(thigh.0[0].scale(local.0))
        .plus(thigh.0[1].scale(local.1))
        .plus(thigh.0[2].scale(local.2));
    let calf_ik = turn(&fk[1], offset_axis, offset_angle);
    let ikv = ankle.minus(knee).normalized();
    let fkv = fk_target.minus(fk[1].0[3]).normalized();
    let delta = rot_delta(&fk[1], &aim(&fk[1], fkv));
    let calf = delta.then(&aim(&calf_ik, ikv));
    let calf = with_origin(&aim(&calf, ikv), knee);
    // Foot.
    let heel = along_x(&calf, i.lengths[1]);
    let foot = without_scale(&foot_target);
    let foot = with_origin(&aim(&foot, foot_target.0[3].minus(heel)), heel);
    Ok(Leg {
        bones: vec![(i.datas[0], thigh), (i.datas[1], calf)],
        foot: (i.foot.0, foot),
        target: i.target,
    })
}

/// The world TM of a leg's segment, foot or first toe segment.
pub(super) fn world(
    eval: &SceneEval,
    ctl: usize,
    class: &str,
    limb: usize,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let leg = solve(eval, limb, f, t)?;
    match class {
        "PalmTrans2" => Ok(leg.foot.1),
        _ => {
            let data = bone_data_of(eval, ctl)
                .ok_or_else(|| EvalError::reference(format!("{class} {ctl}"), "no BoneData"))?;
            leg.bones
                .iter()
                .find(|(d, _)| *d == data)
                .map(|(_, w)| *w)
                .ok_or_else(|| {
                    EvalError::reference(format!("{class} {ctl}"), "not among its leg's bones")
                })
        }
    }
}

/// A digit's first segment on a leg's foot (a toe), in setup mode
/// (DigitSegTrans::CalcParentTransform and ApplySetupOffset): at the foot's
/// origin moved by the foot's dimensions times the digit's root position (in
/// the foot's frame), rotated `setup · RotZ(π/2) · IK target` (the toe takes
/// its rotation from the leg's IK target, not from the foot). `foot_ctl` is
/// the foot's PalmTrans2, `limb` its leg (digit.rs checks both).
pub(super) fn toe_world(
    eval: &SceneEval,
    ctl: usize,
    foot_ctl: usize,
    limb: usize,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let at = format!("CATDigitSegTrans {ctl}");
    let local = super::digit::root_offset(eval, ctl, foot_ctl, &at)?;
    let (setup, flags) = layer_setup(eval, ctl)?;
    if flags & !INHERIT_ALL & !records::CLIP_RELATIVE_TO_SETUPPOSE != 0 {
        return Err(refuse(
            &at,
            format!("a toe with layer flags {flags:#010x} is not evaluated"),
        ));
    }
    let leg = solve(eval, limb, f, t)?;
    let foot = leg.foot.1;
    let offset = setup_in(&setup, f.cp.units).0[3];
    let origin = foot
        .transform_point(local)
        .plus(foot.transform_vector(offset));
    let mut rot = setup;
    rot.0[3] = Vec3::default();
    let w = rot
        .then(&Mat43::rot_z(std::f64::consts::FRAC_PI_2))
        .then(&leg.target);
    Ok(with_origin(&w, origin))
}
