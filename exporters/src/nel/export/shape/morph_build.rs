//! Morpher blend shapes on a `CMesh` (export_mesh.cpp `buildMeshMorph`,
//! `buildBaseMeshInterface`): every Morpher channel with a target node
//! (modifier reference 101 + i) becomes a `CBlendShape` named after the
//! target, whose deltas are the target's mesh build minus the node's, per
//! vertex-buffer vertex, and the mesh base lists the same names as animated
//! morph factors (default 0).
//!
//! The target goes through the same mesh build as the node (its own stack
//! and materials at time 0), in its own node space, or in the skinned
//! node's world frame (the node's TM) when the node is skinned. Deltas are
//! taken per face corner in the order `CMeshGeom::build` links corners to
//! vertex-buffer vertices; a position or normal delta counts when its
//! length exceeds 0.001, a UV or colour delta when its squared length
//! exceeds 0.0001, and only vertices with some delta are kept (`VertRefs`).
//! A target whose vertex or face count differs from the node's is skipped
//! by the plug-in with a message; here it is named as a gap.

use crate::error::ExportResult;
use maxfs_scene::eval::modifier::MORPHER;
use maxfs_scene::eval::objects::normals::Weighting;

use super::mesh_build::{self, MeshBuild};
use super::{material_build, source, TIME_ZERO};
use crate::nel::export::Context;
use crate::nel::shape::mesh::{BlendShape, MorphBase};
use crate::nel::stream::{RgbaF, Vec2, Vec3, F32};

/// The first target reference and the channel count (MR3 `101 + i`).
const TARGET_BASE: u32 = 101;
const CHANNELS: u32 = 100;
/// Thresholds of `buildMeshMorph`.
const POS_EPS: f32 = 0.001;
const SQ_EPS: f32 = 0.0001;

/// The node's Morpher (the topmost, its object index) and its targets as
/// (channel index, target node), in channel order.
pub fn morpher_targets(ctx: &Context, node: usize) -> Option<(usize, Vec<(u16, usize)>)> {
    let (stack, _) = ctx.eval.modifier_stack(node)?;
    let m = stack.iter().find(|a| a.class == MORPHER)?;
    let obj = ctx.graph.objects.get(m.object)?;
    let targets = (0..CHANNELS)
        .filter_map(|i| {
            obj.references
                .iter()
                .find(|r| r.slot == TARGET_BASE + i)
                .and_then(|r| usize::try_from(r.target).ok())
                .filter(|&t| ctx.graph.objects.get(t).is_some_and(|o| o.node.is_some()))
                .map(|t| (i as u16, t))
        })
        .collect();
    Some((m.object, targets))
}

/// The node's Morpher target nodes in channel order.
pub fn targets(ctx: &Context, node: usize) -> Vec<usize> {
    morpher_targets(ctx, node)
        .map(|(_, t)| t.into_iter().map(|x| x.1).collect())
        .unwrap_or_default()
}

/// `CMeshBase::_AnimatedMorph`: one name per target.
pub fn animated_morph(ctx: &Context, node: usize) -> Vec<MorphBase> {
    targets(ctx, node)
        .into_iter()
        .map(|t| MorphBase {
            name: ctx.graph.node_name(t).to_string(),
        })
        .collect()
}

/// The blend shapes of `node` whose mesh build is `base` and whose face
/// corners went to vertex-buffer vertices `corner_vb`. Targets that cannot
/// be used are left out here and named by [`gaps`].
pub fn blend_shapes(
    ctx: &Context,
    node: usize,
    base: &MeshBuild,
    corner_vb: &[[u32; 3]],
    skinned: bool,
    weighting: Weighting,
) -> Vec<BlendShape> {
    targets(ctx, node)
        .into_iter()
        .filter_map(|target| {
            let t = target_build(ctx, node, target, skinned, weighting).ok()?;
            (t.vertices.len() == base.vertices.len() && t.faces.len() == base.faces.len())
                .then(|| blend_shape(ctx.graph.node_name(target).to_string(), base, &t, corner_vb))
        })
        .collect()
}

/// The targets of `node`'s Morpher that give no blend shape, with why (the
/// plug-in skips a target whose vertex or face count differs, with a
/// message).
pub fn gaps(ctx: &Context, node: usize) -> Vec<String> {
    let Ok(base) = source::node_mesh_morphed(ctx, node, super::skin_modifier(ctx, node)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for target in targets(ctx, node) {
        let name = ctx.graph.node_name(target);
        match source::node_mesh_morphed(ctx, target, None) {
            Err(e) => out.push(format!("morph target {name:?} not built: {e}")),
            Ok(t) if t.vertices.len() != base.vertices.len() || t.faces.len() != base.faces.len() => {
                out.push(format!(
                    "morph target {name:?}: {} vertices and {} faces, the node has {} and {} (skipped, as the plug-in does)",
                    t.vertices.len(),
                    t.faces.len(),
                    base.vertices.len(),
                    base.faces.len()
                ))
            }
            Ok(_) => {}
        }
    }
    out
}

fn target_build(
    ctx: &Context,
    node: usize,
    target: usize,
    skinned: bool,
    weighting: Weighting,
) -> ExportResult<MeshBuild> {
    let mesh = source::node_mesh_morphed(ctx, target, None)?;
    let mats = material_build::build_materials(ctx, target);
    let mut space = ctx.eval.offset_tm(target);
    if skinned {
        space = space.then(&ctx.eval.world_tm(node, TIME_ZERO));
    }
    mesh_build::build(&mesh, &space, &mats, false, weighting)
}

fn sub3(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn norm3(a: [f32; 3]) -> f32 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

fn rgbaf(c: &crate::nel::stream::Rgba) -> [f32; 4] {
    [c.r, c.g, c.b, c.a].map(|x| f32::from(x) / 255.0)
}

/// One `CBlendShape`, as `buildMeshMorph` fills and compacts it.
fn blend_shape(
    name: String,
    base: &MeshBuild,
    target: &MeshBuild,
    corner_vb: &[[u32; 3]],
) -> BlendShape {
    let n = corner_vb
        .iter()
        .flatten()
        .max()
        .map_or(0, |&m| m as usize + 1);
    let mut pos = vec![[0f32; 3]; n];
    let mut norm = vec![[0f32; 3]; n];
    let mut uv = vec![[0f32; 2]; n];
    let mut col = vec![[0f32; 4]; n];
    let mut refs = vec![u32::MAX; n];
    let (mut any_pos, mut any_norm, mut any_uv, mut any_col) = (false, false, false, false);
    for (fi, (bf, tf)) in base.faces.iter().zip(&target.faces).enumerate() {
        for k in 0..3 {
            let Some(&vb) = corner_vb.get(fi).map(|c| &c[k]) else {
                continue;
            };
            let i = vb as usize;
            let (bc, tc) = (&bf.corners[k], &tf.corners[k]);
            let at =
                |m: &MeshBuild, v: u32| m.vertices.get(v as usize).copied().unwrap_or_default();
            let d = sub3(at(target, tc.vertex), at(base, bc.vertex));
            if norm3(d) > POS_EPS {
                pos[i] = d;
                refs[i] = vb;
                any_pos = true;
            }
            let d = sub3(tc.normal, bc.normal);
            if norm3(d) > POS_EPS {
                norm[i] = d;
                refs[i] = vb;
                any_norm = true;
            }
            let d = [tc.uvs[0][0] - bc.uvs[0][0], tc.uvs[0][1] - bc.uvs[0][1]];
            if d[0] * d[0] + d[1] * d[1] > SQ_EPS {
                uv[i] = d;
                refs[i] = vb;
                any_uv = true;
            }
            let (a, b) = (rgbaf(&tc.color), rgbaf(&bc.color));
            let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]];
            if d.iter().map(|x| x * x).sum::<f32>() > SQ_EPS {
                col[i] = d;
                refs[i] = vb;
                any_col = true;
            }
        }
    }
    let kept: Vec<usize> = (0..n).filter(|&i| refs[i] != u32::MAX).collect();
    let pick = |on: bool| if on { kept.clone() } else { Vec::new() };
    BlendShape {
        version: 1,
        name,
        delta_pos: pick(any_pos)
            .into_iter()
            .map(|i| Vec3::from(pos[i]))
            .collect(),
        delta_norm: pick(any_norm)
            .into_iter()
            .map(|i| Vec3::from(norm[i]))
            .collect(),
        delta_uv: pick(any_uv)
            .into_iter()
            .map(|i| Vec2 {
                u: F32::from_f32(uv[i][0]),
                v: F32::from_f32(uv[i][1]),
            })
            .collect(),
        delta_col: pick(any_col)
            .into_iter()
            .map(|i| RgbaF {
                r: F32::from_f32(col[i][0]),
                g: F32::from_f32(col[i][1]),
                b: F32::from_f32(col[i][2]),
                a: F32::from_f32(col[i][3]),
            })
            .collect(),
        delta_tg_space: Some(Vec::new()),
        vert_refs: kept.iter().map(|&i| refs[i]).collect(),
    }
}
