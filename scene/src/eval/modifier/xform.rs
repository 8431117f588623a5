//! XForm (0x25215824, 0; "Cluster" in Max's early releases): moves, turns and
//! scales its input by its gizmo, which is how "Reset XForm" carries a node's
//! former rotation and scale into the stack. Reference 0 is the gizmo
//! controller (Position/Rotation/Scale, in mod-context space), reference 1
//! the centre (a position controller), as for the simple modifiers
//! (`simple_mod`).
//!
//! Each point p (object space, row vectors) goes to p · MC · G · MC⁻¹: into
//! mod-context space, by the gizmo's transform, back. Moving the gizmo by d
//! moves the geometry by d, turning it turns the geometry about the gizmo's
//! origin — the inverse of what a simple modifier's frame does with the same
//! controller (it maps object space *into* the gizmo). A centre off the
//! gizmo's origin is refused by name: whether Max turns about it before or
//! after the gizmo's own move is not measured on any file.

use super::{gizmo, Applied, ModContext};
use crate::eval::core::controller::Controller;
use crate::eval::core::math::Mat43;
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const XFORM: ClassId = ClassId(0x25215824, 0);

const GIZMO_SLOT: u32 = 0;
const CENTER_SLOT: u32 = 1;

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let tm = transform(m, cx)?;
    for v in &mut mesh.vertices {
        *v = tm.transform_point(*v);
    }
    Ok(())
}

/// Object space → object space at `cx.t`.
fn transform(m: &Applied, cx: &ModContext) -> Result<Mat43, EvalError> {
    let graph = &cx.eval.graph;
    let g = match pblock::reference(graph, m.object, GIZMO_SLOT) {
        None => Mat43::IDENTITY,
        Some(ctl) => {
            cx.eval
                .prs_tm(ctl, cx.t)
                .ok_or_else(|| match cx.eval.controller_error(ctl) {
                    Some(e) => e.inside("XForm gizmo controller"),
                    None => EvalError::not_evaluated("XForm gizmo controller"),
                })?
        }
    };
    if let Some(ctl) = pblock::reference(graph, m.object, CENTER_SLOT) {
        let c = match cx.eval.controller(ctl) {
            Some(Controller::Point3 { .. } | Controller::PositionXyz { .. }) => {
                cx.eval.position_at(Some(ctl), cx.t)
            }
            _ => {
                return Err(match cx.eval.controller_error(ctl) {
                    Some(e) => e.inside("XForm centre controller"),
                    None => EvalError::not_evaluated("XForm centre controller"),
                })
            }
        };
        if [c.0, c.1, c.2].iter().any(|x| *x != 0.0) {
            return Err(EvalError::not_evaluated_why(
                "XForm with its centre off the gizmo's origin",
                format!(
                    "centre ({}, {}, {}): whether Max turns about it before or after the gizmo's move is not measured",
                    c.0, c.1, c.2
                ),
            ));
        }
    }
    let mc = gizmo::mod_context_tm(m.mod_app)?;
    Ok(mc.then(&g).then(&gizmo::inverse(&mc, "mod-context TM")?))
}
