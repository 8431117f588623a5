//! The classic Bevel Profile modifier (0x7a4202d0, 0x11961722): Max's help
//! describes it as the profile shape swept along the outline of the shape it
//! sits on, the roles of a Sweep with the path set. References: 0 an old
//! ParamBlock (six values, not decoded here), 1 the profile's node (a node,
//! not a shape object as the Sweep keeps), 2 a position / rotation / scale
//! controller.
//!
//! Not evaluated: no public file pins how the profile is placed along the
//! outline (InterierAR.max's three users sit among 24 unevaluated nodes, so
//! its Mesh Totals cannot isolate them, and no export ships beside it). The
//! refusal names the profile node, its shape and the block's values.

use super::{Applied, ModContext};
use crate::eval::core::pblock::{self, Value};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const BEVEL_PROFILE: ClassId = ClassId(0x7a42_02d0, 0x1196_1722);

/// Reference slot of the profile's node.
const PROFILE_SLOT: u32 = 1;

/// The refusal of Bevel Profile `m`, naming its profile and settings.
pub fn apply_to_shape(m: &Applied, cx: &ModContext) -> Result<Mesh, EvalError> {
    let g = &cx.eval.graph;
    let profile = match pblock::reference(g, m.object, PROFILE_SLOT) {
        None => "no profile node (reference 1)".to_string(),
        Some(node) => {
            let name = g
                .nodes()
                .find(|(o, _)| o.index == node)
                .map_or_else(|| format!("object {node}"), |(_, n)| n.name.clone());
            let class = cx
                .eval
                .node_object(node)
                .and_then(|o| g.objects.get(o))
                .and_then(|o| o.class.as_ref())
                .map_or("no object".to_string(), |c| c.name.clone());
            format!("profile {name} ({class})")
        }
    };
    let values = pblock::reference(g, m.object, 0)
        .and_then(|pb| pblock::param_block(cx.eval.chunks(pb)).ok())
        .map(|b| {
            b.iter()
                .map(|p| match &p.value {
                    Value::Float(f) => format!("{}={f}", p.index),
                    Value::Int(i) => format!("{}={i}", p.index),
                    v => format!("{}={v:?}", p.index),
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_else(|| "no parameter block".to_string());
    Err(EvalError::not_evaluated_why(
        format!("a Bevel Profile ({profile}; parameters {values})"),
        "how Max places the profile along the outline is not pinned by any reference",
    ))
}
