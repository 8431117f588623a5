//! CAT's procedural spine in setup mode (CATSpineData2 with its CATSpineTrans2
//! links and the hub at its tip), as the plug-in evaluates it (SpineData2::
//! EvalSpine, SpineTrans2::CalcRotTM/CalcPosTM; docs/cat.md):
//!
//! - base anchor = the spine's base transform (translation × CAT units) · the
//!   base hub's world TM; tip anchor = the base anchor moved along its length
//!   axis by the summed link lengths, turned to the CATParent's rotation (the
//!   tip hub inherits rotation from the CATParent) and then its setup matrix
//!   applied there;
//! - each link's rotation = its setup rotation · the base anchor's rotation
//!   slerped towards the tip anchor's by the link's stored rotation weight,
//!   the links chained end to end (child offset = the link's length along X);
//! - the chain is then swung about the base: each link's world rotation turns
//!   by (its stored position weight × the angle between the base's length axis
//!   — blended with the chain's end direction by the AbsRel value — and the
//!   base → tip anchor direction), the links re-chained;
//! - the tip hub keeps the CATParent's rotation with its setup rotation and
//!   sits at the last link's end.
//!
//! The weights are the ones the plug-in cached and saved with each link
//! (SpineTrans2 chunks 2 and 3), not re-derived from the weight curve.

use std::cell::Cell;

use super::records::{self, leaf, reference, u32_of, CatParent};
use super::{setup_in, without_scale};
use crate::eval::core::math::{Mat43, Quat, Vec3};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

/// CATSpineData2: a spine's links, hubs, base transform and weight curve.
pub const SPINE_DATA2: ClassId = ClassId(0x1d47_3a0e, 0x3b15_1c9d);
/// SpineTrans2 save chunks: the cached position and rotation weights.
const LINK_POS_WEIGHT: u16 = 2;
const LINK_ROT_WEIGHT: u16 = 3;
// SpineData2 parameter block ids.
const PB_HUB_BASE: u16 = 1;
const PB_HUB_TIP: u16 = 2;
const PB_LINKS: u16 = 10;
const PB_BASE_TRANSFORM: u16 = 14;
/// SpineTrans2 parameter block: the link's setup matrix (TYPE_MATRIX3).
const PB_TM_SETUP: u16 = 2;
/// SpineData2 flags (its chunk 1): an FK spine evaluates like limb bones.
const SPINEFLAG_FKSPINE: u32 = 1 << 1;
/// ParamBlock2 type of a Matrix3 parameter.
const TYPE_MATRIX3: u16 = 20;
/// ParamBlock2 parameter type of a Point3.
const TYPE_POINT3: u16 = 3;
/// ParamBlock2 record header bytes before the value (Max 6+ records).
const RECORD_HEADER: usize = 15;
/// The cosine above which the plug-in treats the swing as zero (ACOS_LIMIT).
const ACOS_LIMIT: f64 = 0.999_999_98;
/// Links a spine may have before it counts as damaged data.
const MAX_LINKS: usize = 256;

/// One decoded link.
struct Link {
    ctl: usize,
    setup: Mat43,
    length: f64,
    rot_weight: f64,
    pos_weight: f64,
}

/// A decoded procedural spine.
struct Spine {
    base_hub: usize,
    tip_hub: usize,
    base_transform: Mat43,
    abs_rel: f64,
    links: Vec<Link>,
}

/// The ParamBlock2 record `id` of object `pb`: (type word, value bytes).
fn pb_record(eval: &SceneEval, pb: usize, id: u16) -> Option<(u16, &[u8])> {
    eval.chunks(pb).iter().find_map(|c| {
        let p = c.payload()?;
        if c.id != 0x100e || p.len() < RECORD_HEADER {
            return None;
        }
        (u16::from_le_bytes([p[0], p[1]]) == id)
            .then(|| (u16::from_le_bytes([p[2], p[3]]), &p[RECORD_HEADER..]))
    })
}

fn pb_matrix(eval: &SceneEval, pb: usize, id: u16) -> Option<Mat43> {
    let (ty, v) = pb_record(eval, pb, id)?;
    let m = (ty == TYPE_MATRIX3)
        .then(|| v.get(..48))
        .flatten()
        .and_then(crate::eval::modifier::skin::matrix3)?;
    m.rows()
        .iter()
        .flatten()
        .all(|x| x.is_finite())
        .then_some(m)
}

/// A Point3 value (ParamBlock2 type 3: three f32), finite.
pub(super) fn pb_point3(eval: &SceneEval, pb: usize, id: u16) -> Option<Vec3> {
    let (ty, v) = pb_record(eval, pb, id)?;
    if ty != TYPE_POINT3 {
        return None;
    }
    let f = |i: usize| {
        v.get(i * 4..i * 4 + 4)
            .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
            .filter(|x| x.is_finite())
    };
    Some(Vec3(f(0)?, f(1)?, f(2)?))
}

/// An inline object index (a reference-kind constant of this file's blocks).
pub(super) fn pb_object(eval: &SceneEval, pb: usize, id: u16) -> Option<usize> {
    let (_, v) = pb_record(eval, pb, id)?;
    u32_of(Some(v)).and_then(|i| usize::try_from(i).ok())
}

/// A tab of inline object indices: count, then (flag byte, u32) per element.
pub(super) fn pb_objects(eval: &SceneEval, pb: usize, id: u16) -> Option<Vec<usize>> {
    let (_, v) = pb_record(eval, pb, id)?;
    let n = usize::try_from(u32_of(Some(v))?).ok()?;
    if n > MAX_LINKS {
        return None;
    }
    (0..n)
        .map(|i| {
            let at = 4 + i * 5 + 1;
            u32_of(v.get(at..at + 4)).and_then(|x| usize::try_from(x).ok())
        })
        .collect()
}

fn f32_chunk(eval: &SceneEval, idx: usize, id: u16) -> Option<f64> {
    u32_of(leaf(eval.chunks(idx), id)).map(|b| f64::from(f32::from_bits(b)))
}

/// The CATSpineData2 a link belongs to: its block's reference 0.
fn spine_of_link(eval: &SceneEval, link: usize) -> Option<usize> {
    let pb = reference(eval, link, 0)?;
    reference(eval, pb, 0).filter(|&s| records::class_of(eval, s) == Some(SPINE_DATA2))
}

fn decode(eval: &SceneEval, data: usize) -> Result<Spine, EvalError> {
    let at = format!("CATSpineData2 {data}");
    let bad = |what: &str| EvalError::malformed(at.clone(), what.to_string());
    if u32_of(leaf(eval.chunks(data), 1)).is_some_and(|f| f & SPINEFLAG_FKSPINE != 0) {
        return Err(EvalError::not_evaluated_why(
            at,
            "an FK spine (its links evaluate as limb bones) is not evaluated",
        ));
    }
    let pb = reference(eval, data, 0).ok_or_else(|| bad("no parameter block (reference 0)"))?;
    let base_hub = pb_object(eval, pb, PB_HUB_BASE).ok_or_else(|| bad("no base hub"))?;
    let tip_hub = pb_object(eval, pb, PB_HUB_TIP).ok_or_else(|| bad("no tip hub"))?;
    let base_transform =
        pb_matrix(eval, pb, PB_BASE_TRANSFORM).ok_or_else(|| bad("no base transform"))?;
    let abs_rel = reference(eval, data, 1)
        .and_then(|l| f32_chunk(eval, l, 8))
        .filter(|v| v.is_finite())
        .ok_or_else(|| bad("no AbsRel setup value (reference 1, chunk 8)"))?;
    let mut links = Vec::new();
    for ctl in pb_objects(eval, pb, PB_LINKS).ok_or_else(|| bad("no links (parameter 10)"))? {
        let at = format!("CATSpineTrans2 {ctl}");
        let lbad = |what: &str| EvalError::malformed(at.clone(), what.to_string());
        if records::bone_class(eval, ctl) != Some("CATSpineTrans2") {
            return Err(lbad("not a spine link"));
        }
        if records::layer_trans(eval, ctl).is_some() {
            return Err(EvalError::not_evaluated_why(
                at,
                "a spine link with its own layer controller is not evaluated",
            ));
        }
        let lpb = reference(eval, ctl, 0).ok_or_else(|| lbad("no parameter block"))?;
        let setup = pb_matrix(eval, lpb, PB_TM_SETUP).ok_or_else(|| lbad("no setup matrix"))?;
        let dims = records::cat_control(eval, ctl)
            .dims
            .ok_or_else(|| lbad("no dimensions"))?;
        let weight = |id| {
            f32_chunk(eval, ctl, id)
                .filter(|w| w.is_finite())
                .ok_or_else(|| lbad(&format!("no cached weight (chunk {id})")))
        };
        links.push(Link {
            ctl,
            setup,
            length: f64::from(dims[0]),
            rot_weight: weight(LINK_ROT_WEIGHT)?,
            pos_weight: weight(LINK_POS_WEIGHT)?,
        });
    }
    if links.is_empty() || !links.iter().all(|l| l.length.is_finite()) {
        return Err(bad("no links with finite lengths"));
    }
    Ok(Spine {
        base_hub,
        tip_hub,
        base_transform,
        abs_rel,
        links,
    })
}

/// `m`'s rotation rows with its translation kept.
fn rotated(m: &Mat43, rows: [Vec3; 3]) -> Mat43 {
    Mat43([rows[0], rows[1], rows[2], m.0[3]])
}

/// `m` moved along its own X row by `len` (CATNodeControl::ApplyChildOffset).
fn child_point(m: &Mat43, len: f64) -> Vec3 {
    m.0[3].plus(m.0[0].scale(len))
}

/// The tip hub's rotation (setup rotation · the CATParent's, no scale) at
/// `pos`: the hub's setup-mode inheritance (SETUP_INHERITS_ROT_FROM_CATPARENT
/// only, the layer flags checked by the caller).
fn tip_rotation(setup: &Mat43, cp_world: &Mat43, units: f64, pos: Vec3) -> Mat43 {
    let mut cp = without_scale(cp_world);
    cp.0[3] = pos;
    setup_in(setup, units).then(&cp)
}

/// The tip hub's layer flags must select the one setup rule evaluated here.
pub(super) fn check_tip_flags(flags: u32, at: &str) -> Result<(), EvalError> {
    use records::*;
    let want = CLIP_SETUP_INHERITS_ROT_FROM_CATPARENT;
    let other = CLIP_HAS_TRANSFORM
        | CLIP_SETUP_INHERITS_POS_FROM_CATPARENT
        | CLIP_SETUP_FLIPROT_FROM_CATPARENT
        | CLIP_SETUP_INHERITS_POS_FROM_PARENT
        | CLIP_SETUPPOSE_CONTROLLER
        | CLIP_KEYFREEFORM
        | CLIP_DISABLE_LAYERS;
    if flags & want == 0 || flags & other != 0 {
        return Err(EvalError::not_evaluated_why(
            at.to_string(),
            format!("a spine's tip hub with layer flags {flags:#010x} is not evaluated"),
        ));
    }
    Ok(())
}

/// Everything a spine evaluation needs from outside the spine.
pub(super) struct Frame<'a> {
    pub cp: &'a CatParent,
    /// The CATParent node's world TM.
    pub cp_world: Mat43,
    pub depth: usize,
    pub budget: &'a Cell<u32>,
    /// The rig is in animation mode: the tip anchor follows the tip hub's
    /// animation layer (anim.rs) instead of its setup matrix.
    pub animation: bool,
}

/// The world TMs of a spine's links (in order) and of its tip hub.
fn evaluate(
    eval: &SceneEval,
    spine: &Spine,
    f: &Frame,
    t: i32,
) -> Result<(Vec<Mat43>, Mat43), EvalError> {
    let units = f.cp.units;
    let base_node = super::node_of(eval, spine.base_hub).ok_or_else(|| {
        EvalError::reference(format!("hub {}", spine.base_hub), "no node uses it")
    })?;
    // A refused base hub refuses the spine (world_tm would fall back to the
    // node's local chain).
    let base_world = match eval.direct_world_at_depth(base_node, t, f.depth + 1, f.budget) {
        Some(r) => r?,
        None => eval.world_tm_at_depth(base_node, t, f.depth + 1, f.budget),
    };
    let base_world = without_scale(&base_world);
    let tip_layer = records::layer_trans(eval, spine.tip_hub).ok_or_else(|| {
        EvalError::reference(format!("hub {}", spine.tip_hub), "no CATClipMatrix3")
    })?;
    let tip_clip = records::clip_matrix(eval, tip_layer)?;
    let base = setup_in(&spine.base_transform, units).then(&base_world);
    let total: f64 = spine.links.iter().map(|l| l.length).sum();
    let tip = if f.animation {
        animated_tip(eval, tip_layer, &base, total, t)?
    } else {
        check_tip_flags(tip_clip.flags, &format!("CATClipMatrix3 {tip_layer}"))?;
        tip_rotation(
            &tip_clip.setup,
            &f.cp_world,
            units,
            child_point(&base, total),
        )
    };
    // EvalSpineRotation: blended rotations, chained positions.
    let (qb, qt) = (Quat::from_rows(rows3(&base)), Quat::from_rows(rows3(&tip)));
    let mut at = base.0[3];
    let mut rotations = Vec::with_capacity(spine.links.len());
    for l in &spine.links {
        let blend = rotated(&Mat43::IDENTITY, qb.slerp(qt, l.rot_weight).to_rows());
        let setup_rot = Mat43([l.setup.0[0], l.setup.0[1], l.setup.0[2], Vec3::default()]);
        let mut w = setup_rot.then(&blend);
        w.0[3] = at;
        at = child_point(&w, l.length);
        rotations.push(w);
    }
    // EvalSpinePosition: swing the chain about the base towards the tip anchor.
    let to_end = at.minus(base.0[3]).normalized();
    let rel = base.0[0];
    let v1 = to_end
        .plus(rel.minus(to_end).scale(spine.abs_rel))
        .normalized();
    let v2 = tip.0[3].minus(base.0[3]).normalized();
    let cos = v1.dot(v2);
    let swing = (cos < ACOS_LIMIT).then(|| (v1.cross(v2).normalized(), cos.acos()));
    let mut at = base.0[3];
    let mut links = Vec::with_capacity(rotations.len());
    for (l, r) in spine.links.iter().zip(rotations) {
        let mut w = match swing {
            Some((axis, angle)) => r.then(&Mat43::rotation(Quat::from_axis_angle(
                axis,
                angle * l.pos_weight,
            ))),
            None => r,
        };
        w.0[3] = at;
        at = child_point(&w, l.length);
        links.push(w);
    }
    let mut tip_world = if f.animation {
        tip
    } else {
        tip_rotation(&tip_clip.setup, &f.cp_world, units, at)
    };
    tip_world.0[3] = at;
    Ok((links, tip_world))
}

/// The tip anchor in animation mode: the tip hub's layer value (rotation
/// and translation) applied at the base anchor moved along its X by the
/// spine's length. A layer that scales the hub is refused (not measured).
fn animated_tip(
    eval: &SceneEval,
    tip_layer: usize,
    base: &Mat43,
    total: f64,
    t: i32,
) -> Result<Mat43, EvalError> {
    let v = super::anim::layer_value(eval, tip_layer, t)?;
    if v.0[..3].iter().any(|r| (r.len() - 1.0).abs() > 1e-6) {
        return Err(EvalError::not_evaluated_why(
            format!("CATClipMatrix3 {tip_layer}"),
            "a spine's tip hub scaled by its animation layer is not evaluated",
        ));
    }
    let mut anchor = *base;
    anchor.0[3] = child_point(base, total);
    Ok(v.then(&anchor))
}

fn rows3(m: &Mat43) -> [Vec3; 3] {
    [m.0[0], m.0[1], m.0[2]]
}

/// The world TM of spine link `ctl` in setup mode.
pub(super) fn link_world(
    eval: &SceneEval,
    ctl: usize,
    f: &Frame,
    t: i32,
) -> Result<Mat43, EvalError> {
    let data = spine_of_link(eval, ctl)
        .ok_or_else(|| EvalError::reference(format!("CATSpineTrans2 {ctl}"), "no CATSpineData2"))?;
    let spine = decode(eval, data)?;
    let i = spine
        .links
        .iter()
        .position(|l| l.ctl == ctl)
        .ok_or_else(|| {
            EvalError::reference(
                format!("CATSpineTrans2 {ctl}"),
                "not among its spine's links",
            )
        })?;
    let (links, _) = evaluate(eval, &spine, f, t)?;
    links
        .get(i)
        .copied()
        .ok_or_else(|| EvalError::reference(format!("CATSpineTrans2 {ctl}"), "no link"))
}

/// The world TM of hub `ctl` at the tip of the spine whose last link is
/// `parent_ctl`; None when that parent is not a procedural spine's link.
pub(super) fn tip_hub_world(
    eval: &SceneEval,
    ctl: usize,
    parent_ctl: usize,
    f: &Frame,
    t: i32,
) -> Option<Result<Mat43, EvalError>> {
    let data = spine_of_link(eval, parent_ctl)?;
    Some(decode(eval, data).and_then(|spine| {
        if spine.tip_hub != ctl {
            return Err(EvalError::not_evaluated_why(
                format!("hub {ctl}"),
                "a hub under a spine link that is not the spine's tip hub",
            ));
        }
        evaluate(eval, &spine, f, t).map(|(_, tip)| tip)
    }))
}
