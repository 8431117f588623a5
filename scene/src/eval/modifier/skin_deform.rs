//! Skin deformation at a time (linear blend skinning, as the Skin modifier does
//! it; Physique's blended-rigid form goes through the same `blend`): each object-space vertex goes to world space with the mesh's stored
//! initial TM, then through every bone's bind-to-current delta
//! (inverse initial bone TM · bone world TM at t) blended by its normalised
//! weights, and back into the node's object space at t, so that the mesh
//! placed by `object_tm(node, t)` lands on the deformed world positions.
//!
//! A bone whose transform (or an ancestor's) comes from a controller this
//! evaluation does not compute (Biped, CAT, …) makes the result an error that
//! names it: the identity such controllers evaluate to would give a plausible
//! but wrong mesh.

use super::{Applied, ModContext};
use crate::eval::core::coverage;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::transform::{invert, SceneEval};
use crate::eval::error::EvalError;
use crate::eval::modifier::skin::{self, Skin};
use crate::eval::objects::mesh::Mesh;

/// Bones named at most in an error message.
const NAMED: usize = 4;

/// Deforms `mesh` (object space, the result of the stack below the Skin) by the
/// Skin modifier `m` of `cx.node` at `cx.t`.
pub fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let node = cx
        .node
        .ok_or_else(|| EvalError::malformed("", "Skin is only evaluated on a node's own stack"))?;
    let skin = skin::decode_modifier(cx.eval, m.object, m.mod_app)?;
    if skin.vertices.len() != mesh.vertices.len() {
        return Err(EvalError::malformed(
            "",
            format!(
                "Skin holds weights for {} vertices, the mesh below it has {}",
                skin.vertices.len(),
                mesh.vertices.len()
            ),
        ));
    }
    blend(&skin, &mut mesh.vertices, cx.eval, node, cx.t, "Skin")
}

/// Linear blend skinning of `points` (object space of `node`, one per entry
/// of `skin.vertices`) from the skin's bind pose to the bones at `t`; `who`
/// names the modifier in errors. Shared by Skin and Physique, whose export
/// interfaces give the same bones, weights and bind TMs.
pub fn blend(
    skin: &Skin,
    points: &mut [Vec3],
    eval: &SceneEval,
    node: usize,
    t: i32,
    who: &str,
) -> Result<(), EvalError> {
    if skin.vertices.len() != points.len() {
        return Err(EvalError::malformed(
            who.to_string(),
            format!(
                "weights for {} vertices, {} points given",
                skin.vertices.len(),
                points.len()
            ),
        ));
    }
    let deltas = bone_deltas(skin, eval, t, who)?;
    let mesh_init = skin
        .mesh_init_tm
        .ok_or_else(|| EvalError::malformed(who.to_string(), "no initial mesh TM"))?;
    let to_object = invert(&eval.object_tm(node, t));
    for (v, (p, inf)) in points.iter_mut().zip(&skin.vertices).enumerate() {
        let sum: f64 = inf.iter().map(|&(_, w)| f64::from(w)).sum();
        // A vertex without weight stays where the stack below put it (Skin
        // leaves unassigned vertices alone).
        if inf.is_empty() || sum <= 0.0 {
            continue;
        }
        if !sum.is_finite() {
            return Err(EvalError::malformed(
                who.to_string(),
                format!("vertex {v} has non-finite weights"),
            ));
        }
        let world = mesh_init.transform_point(*p);
        let mut acc = Vec3::default();
        for &(bone, w) in inf {
            let d = deltas
                .get(bone as usize)
                .and_then(Option::as_ref)
                .ok_or_else(|| {
                    EvalError::reference(
                        who.to_string(),
                        format!("vertex {v} uses bone {bone}, which has no node"),
                    )
                })?;
            acc = acc.plus(d.transform_point(world).scale(f64::from(w) / sum));
        }
        *p = to_object.transform_point(acc);
    }
    Ok(())
}

/// Per bone: inverse initial TM · world TM at t (None for a bone slot
/// without a node or initial TM; it is an error only when a vertex uses it).
fn bone_deltas(
    skin: &Skin,
    eval: &SceneEval,
    t: i32,
    who: &str,
) -> Result<Vec<Option<Mat43>>, EvalError> {
    let mut blocked: Vec<String> = Vec::new();
    let used = used_bones(skin);
    let mut out = Vec::with_capacity(skin.bones.len());
    for (i, b) in skin.bones.iter().enumerate() {
        let (Some(node), Some(init)) = (b.node, b.init_tm) else {
            out.push(None);
            continue;
        };
        if used.get(i).copied().unwrap_or(false) {
            let gaps = coverage::tm_gaps_at(eval, node, t);
            if !gaps.is_empty() {
                let name = eval
                    .graph
                    .objects
                    .get(node)
                    .and_then(|o| o.node.as_ref())
                    .map_or("?", |n| n.name.as_str());
                blocked.push(format!("{name:?} ({})", gaps.join(", ")));
            }
        }
        out.push(Some(invert(&init).then(&eval.world_tm(node, t))));
    }
    if !blocked.is_empty() {
        let more = if blocked.len() > NAMED {
            format!(" and {} more", blocked.len() - NAMED)
        } else {
            String::new()
        };
        blocked.truncate(NAMED);
        return Err(EvalError::reference(
            format!("{who} bones whose transforms are not evaluated"),
            format!("{}{more}", blocked.join(", ")),
        ));
    }
    Ok(out)
}

/// Which Skin bones carry weight on some vertex.
fn used_bones(skin: &Skin) -> Vec<bool> {
    let mut used = vec![false; skin.bones.len()];
    for &(b, w) in skin.vertices.iter().flatten() {
        if w != 0.0 {
            if let Some(u) = used.get_mut(b as usize) {
                *u = true;
            }
        }
    }
    used
}
