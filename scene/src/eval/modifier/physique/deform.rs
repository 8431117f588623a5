//! Physique deformation at a time: the decoded bones and weights with the
//! bind pose Physique stored (`frames`), blended as Skin blends
//! (`skin_deform::blend`): object space → world with the mesh TM at
//! initialisation, each bone's initial TM⁻¹ · TM at t, weighted, back into
//! the node's object space at t.

use super::{decode_modifier, Physique, PhysiqueError};
use crate::eval::core::math::Vec3;
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::eval::modifier::skin_deform;
use crate::eval::modifier::{Applied, ModContext};
use crate::eval::objects::mesh::Mesh;

/// Deforms `mesh` (object space, the result of the stack below Physique) by
/// the Physique modifier `m` of `cx.node` at `cx.t`.
pub fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let node = cx.node.ok_or_else(|| {
        EvalError::malformed("", "Physique is only evaluated on a node's own stack")
    })?;
    let p = decode_modifier(cx.eval, m.object, m.mod_app).map_err(EvalError::from)?;
    deform(cx.eval, node, &p, &mut mesh.vertices, cx.t)
}

/// Deforms `points` (the object-space vertices below the Physique of
/// `node`, one per vertex record) to tick `t`.
pub fn deform(
    eval: &SceneEval,
    node: usize,
    p: &Physique,
    points: &mut [Vec3],
    t: i32,
) -> Result<(), EvalError> {
    if p.weights.len() != points.len() {
        return Err(PhysiqueError::VertexCount {
            vertices: p.weights.len(),
            mesh: points.len(),
        }
        .into());
    }
    let skin = p.bound_skin().map_err(EvalError::from)?;
    skin_deform::blend(&skin, points, eval, node, t, "Physique")
}
