//! The frame of Max's "simple" deforming modifiers (Bend, Taper and the other
//! `SimpleMod` family members): reference 0 is the gizmo controller, reference
//! 1 the gizmo centre (a position controller), reference 2 the parameter block.
//! The ModApp keeps the mod-context TM (0x2510) and the mod-context box
//! (0x2511), the bounding box of the modifier's input in mod-context space that
//! sizes the effect (Bend's radius, Taper's length).
//!
//! Max's `SimpleMod::CompMatrix` builds object → deform space as
//! mod-context TM · gizmo⁻¹ · centre⁻¹ (row vectors); the deformer then turns
//! its chosen axis onto Z. A missing gizmo or centre controller is identity,
//! as in Max; a controller that is present but not evaluated is an error.

use super::{gizmo, Applied, ModContext};
use crate::eval::core::controller::Controller;
use crate::eval::core::keys::Words;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::primitive::{block_params, Params};
use crate::typed::ClassId;

const GIZMO_SLOT: u32 = 0;
const CENTER_SLOT: u32 = 1;
const PBLOCK_SLOT: u32 = 2;
/// Mod-context box inside a ModApp: min corner, max corner (6 floats).
const MOD_CONTEXT_BOX: u16 = 0x2511;
/// Class of the old (pre-ParamBlock2) parameter block.
const OLD_PARAM_BLOCK: ClassId = ClassId(0x08, 0);

/// Where a simple modifier works: object ↔ deform space and the input's box.
#[derive(Debug, Clone, Copy)]
pub(super) struct Frame {
    /// Object space → gizmo space (before the axis turn).
    pub to_gizmo: Mat43,
    /// Gizmo space → object space.
    pub to_object: Mat43,
    /// Mod-context box: min and max corners.
    pub min: Vec3,
    pub max: Vec3,
}

impl Frame {
    /// The box's extent along `axis` (0 X, 1 Y, 2 Z) of mod-context space.
    pub fn extent(&self, axis: usize) -> f64 {
        self.max.to_array()[axis] - self.min.to_array()[axis]
    }

    /// Moves every vertex by `map`, given the point in deform space (the
    /// gizmo space followed by `axis`), back to object space.
    pub fn deform(
        &self,
        mesh: &mut Mesh,
        axis: &Mat43,
        map: impl Fn(Vec3) -> Vec3,
    ) -> Result<(), EvalError> {
        let inv_axis = gizmo::inverse(axis, "axis turn")?;
        let to_deform = self.to_gizmo.then(axis);
        let back = inv_axis.then(&self.to_object);
        for v in &mut mesh.vertices {
            *v = back.transform_point(map(to_deform.transform_point(*v)));
        }
        Ok(())
    }
}

/// The rotation that turns the modifier's axis (0 X, 1 Y, 2 Z) onto Z, as
/// Max's deformers build it: X by −90° about Y, Y by +90° about X.
pub(super) fn axis_to_z(axis: i64) -> Result<Mat43, EvalError> {
    match axis {
        0 => Ok(Mat43::rot_y(-std::f64::consts::FRAC_PI_2)),
        1 => Ok(Mat43::rot_x(std::f64::consts::FRAC_PI_2)),
        2 => Ok(Mat43::IDENTITY),
        a => Err(EvalError::malformed("", format!("axis {a}"))),
    }
}

/// The limits (lower, upper) when "limit effect" is on: the simple
/// deformers keep the switch at index `switch` and the lower and upper
/// limits at the two indices after it (3, 4, 5 in Bend, Skew, Stretch and
/// Twist; 5, 6, 7 in Taper).
pub(super) fn limits(p: &Params, switch: usize) -> Option<(f64, f64)> {
    p.flag(switch, false)
        .then(|| (p.float_or(switch + 1, 0.0), p.float_or(switch + 2, 0.0)))
}

/// The parameter values (reference 2) at `cx.t`, from an old ParamBlock or a
/// ParamBlock2 whose ids follow the old indices (Bend's).
pub(super) fn params(cx: &ModContext, m: &Applied) -> Result<Params, EvalError> {
    block_params(cx.eval, block(cx, m)?, cx.t)
}

/// The parameter values of a modifier whose ParamBlock2 ids are not known
/// (Taper, Twist): an old ParamBlock only — reading a ParamBlock2 by guessed
/// ids could deform silently wrong.
pub(super) fn old_block_params(cx: &ModContext, m: &Applied) -> Result<Params, EvalError> {
    let pb = block(cx, m)?;
    let class = cx.eval.graph.class(pb);
    if class.is_none_or(|c| c.class_id != OLD_PARAM_BLOCK) {
        return Err(EvalError::malformed(
            "",
            format!(
                "parameter block {} is not an old ParamBlock; its ids are not known",
                class_name(cx, pb)
            ),
        ));
    }
    block_params(cx.eval, pb, cx.t)
}

fn block(cx: &ModContext, m: &Applied) -> Result<usize, EvalError> {
    pblock::reference(&cx.eval.graph, m.object, PBLOCK_SLOT).ok_or_else(|| {
        EvalError::reference("", format!("no parameter block (reference {PBLOCK_SLOT})"))
    })
}

/// The modifier's frame at `cx.t`.
pub(super) fn frame(cx: &ModContext, m: &Applied) -> Result<Frame, EvalError> {
    let graph = &cx.eval.graph;
    let gizmo_tm = match pblock::reference(graph, m.object, GIZMO_SLOT) {
        None => Mat43::IDENTITY,
        Some(ctl) => cx.eval.prs_tm(ctl, cx.t).ok_or_else(|| {
            EvalError::not_evaluated(format!("gizmo controller {}", class_name(cx, ctl)))
        })?,
    };
    let center = match pblock::reference(graph, m.object, CENTER_SLOT) {
        None => Mat43::IDENTITY,
        Some(ctl) => match cx.eval.controller(ctl) {
            Some(Controller::Point3 { .. } | Controller::PositionXyz { .. }) => {
                Mat43::translation(cx.eval.position_at(Some(ctl), cx.t))
            }
            _ => {
                return Err(match cx.eval.controller_error(ctl) {
                    Some(e) => e.inside("gizmo centre controller"),
                    None => EvalError::not_evaluated(format!(
                        "gizmo centre controller {}",
                        class_name(cx, ctl)
                    )),
                })
            }
        },
    };
    let mc = gizmo::mod_context_tm(m.mod_app)?;
    let to_object = center
        .then(&gizmo_tm)
        .then(&gizmo::inverse(&mc, "mod-context TM")?);
    let to_gizmo = gizmo::inverse(&to_object, "gizmo")?;
    let (min, max) = mod_context_box(m)?;
    Ok(Frame {
        to_gizmo,
        to_object,
        min,
        max,
    })
}

fn class_name(cx: &ModContext, obj: usize) -> String {
    let class = cx.eval.graph.class(obj).map_or("?", |c| c.name.as_str());
    format!("{class:?}")
}

/// The mod-context box (0x2511) of the ModApp; Max needs one to size the effect.
pub(super) fn mod_context_box(m: &Applied) -> Result<(Vec3, Vec3), EvalError> {
    let c = m
        .mod_app
        .and_then(|a| a.children().iter().find(|c| c.id == MOD_CONTEXT_BOX))
        .ok_or_else(|| EvalError::malformed("", "no mod-context box (0x2511)"))?;
    let p = c
        .payload()
        .ok_or_else(|| EvalError::malformed("", "mod-context box (0x2511) is a container"))?;
    if p.len() != 24 {
        return Err(EvalError::malformed(
            "mod-context box (0x2511)",
            format!("{} bytes, 24 expected", p.len()),
        ));
    }
    let w = Words(p);
    let min = Vec3(w.f(0), w.f(1), w.f(2));
    let max = Vec3(w.f(3), w.f(4), w.f(5));
    if !min
        .to_array()
        .iter()
        .chain(&max.to_array())
        .all(|x| x.is_finite())
    {
        return Err(EvalError::malformed(
            "",
            "mod-context box (0x2511) is not finite",
        ));
    }
    Ok((min, max))
}
