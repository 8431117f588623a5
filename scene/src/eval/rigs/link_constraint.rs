//! The Link Constraint (biped-ld35 drives its skinned `B_*` bones with it):
//! reference 0 = a PRS controller holding the node's transform relative to the
//! active target, reference 2 = a ParamBlock2 whose node references are the
//! targets, reference 3 = its LinkTimeControl. The node's world TM is
//! `offset · target world` while a target is active.
//!
//! Without a target the link is inactive and the offset is relative to the
//! node's parent, as for a plain PRS: biped-ld35's PositionLocator (no target,
//! under the scene root) sits at its offset in the FBX of the same scenes.
//!
//! Several targets hand the node over in time: the block's parameter 0 is
//! the target table and parameter 2 the ticks at which each takes over (an
//! IntTab, read off with the `object_params` example; zhaoyuNo1's 机械臂.max:
//! 0, 4800, 12480 for three targets; not decoded here). How
//! the offset carries across a hand-over is not derived, so only links of
//! one target are evaluated and more are refused by name.

use crate::eval::core::math::Mat43;
use crate::eval::core::pblock;
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

/// Link Constraint (sc 0x9008).
pub const LINK_CONSTRAINT: ClassId = ClassId(0x873f_e764, 0xaabe_8601);

/// A decoded single-target Link Constraint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// The PRS controller of the offset from the target.
    pub offset: Option<usize>,
    /// The target node; None when the link has no target (the node's
    /// parent stands in).
    pub target: Option<usize>,
}

/// The link of controller `ctl`; None when it is not a Link Constraint.
pub fn decode(eval: &SceneEval, ctl: usize) -> Option<Result<Link, EvalError>> {
    let obj = eval.graph.objects.get(ctl)?;
    if obj.class.as_ref()?.class_id != LINK_CONSTRAINT {
        return None;
    }
    let offset = pblock::reference(&eval.graph, ctl, 0);
    let Some(pb) = pblock::reference(&eval.graph, ctl, 2) else {
        return Some(Err(EvalError::reference(
            format!("Link Constraint {ctl}"),
            "no parameter block (reference 2)",
        )));
    };
    let targets: Vec<usize> = eval
        .graph
        .objects
        .get(pb)
        .map(|o| {
            o.references
                .iter()
                .filter_map(|r| usize::try_from(r.target).ok())
                .filter(|&t| eval.graph.objects.get(t).is_some_and(|x| x.node.is_some()))
                .collect()
        })
        .unwrap_or_default();
    Some(match targets.as_slice() {
        [target] => Ok(Link {
            offset,
            target: Some(*target),
        }),
        [] => Ok(Link {
            offset,
            target: None,
        }),
        // Several targets are a hand-over over time, not damage.
        many => Err(EvalError::not_evaluated_why(
            format!("Link Constraint {ctl} with {} targets", many.len()),
            "how the node's offset carries across a hand-over is not derived",
        )),
    })
}

/// The offset from the target at `t` (identity when the offset controller is
/// absent, as Max creates it).
pub fn offset_tm(eval: &SceneEval, link: &Link, t: i32) -> Option<Mat43> {
    match link.offset {
        None => Some(Mat43::IDENTITY),
        Some(c) => eval.prs_tm(c, t),
    }
}
