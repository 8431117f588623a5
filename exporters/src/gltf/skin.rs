//! glTF skins from Max's Skin modifier: the mesh below the Skin in its bind
//! pose, JOINTS_0 / WEIGHTS_0 per vertex, and a `skin` whose joints are the
//! bone nodes, so the bones' sampled animation moves the mesh in a viewer.
//!
//! The bind is the one Skin stored: each bone's node TM when it was added
//! (ISkin::GetBoneInitTM) and the mesh's TM when it was skinned
//! (GetSkinInitTM). Vertices are written in world space at that bind
//! (mesh init TM · object-space vertex), so a joint's inverse bind matrix is
//! the inverse of its stored bone TM, and glTF's
//! `Σ w · jointWorld(t) · IBM · v` is exactly the blend the Skin modifier
//! computes (scene/src/eval/modifier/skin_deform.rs).
//!
//! A skinned mesh ignores its node's transform in glTF, so it sits on its own
//! root node `<name>_skin` without a transform; the Max node stays in the
//! hierarchy (its children and animation are unchanged) without a mesh.
//!
//! A Skin is written as such only when glTF can reproduce Max's result: the
//! Skin is the top of the stack (anything above it would act on the deformed
//! mesh), the stack below it does not change over time, every weighted bone
//! has a node and a stored TM, every vertex has weight, the joints share a
//! root, and no joint carries a shear glTF cannot store. Otherwise the node is
//! exported as before (its mesh deformed at frame 0) with a warning naming
//! the reason.

use std::collections::BTreeMap;

use gltf_json as json;
use json::Index;
use maxfs_scene::eval::core::transform::invert;
use maxfs_scene::eval::modifier::skin::{self, Skin};
use maxfs_scene::eval::{Mat43, Stack};

use super::axes::{decompose, metres, to_gltf};
use super::build::Builder;
use super::geometry;

/// glTF vertices carry at most 4 influences in JOINTS_0 / WEIGHTS_0.
const MAX_INFLUENCES: usize = 4;
/// Frames probed at most per joint for shear (long takes are strided).
const MAX_TRS_PROBES: i64 = 2000;

/// A skinned mesh ready to be placed: its mesh, the Max nodes of its joints
/// (in joint order), their inverse bind matrices (column-major, glTF axes,
/// metres) and the closest common root of the joints.
pub(super) struct Skinned {
    pub mesh: Index<json::Mesh>,
    pub joints: Vec<usize>,
    pub ibm: Vec<[f32; 16]>,
    pub skeleton: usize,
}

/// Why a node's Skin is not written as a glTF skin.
#[derive(Debug, thiserror::Error)]
enum Refused {
    #[error("modifiers above the Skin ({0}) act on the deformed mesh")]
    Above(String),
    #[error("the mesh below the Skin does not evaluate ({0})")]
    Below(String),
    #[error("the mesh below the Skin changes over time (at tick {0})")]
    Animated(i32),
    #[error("Skin holds weights for {skin} vertices, the mesh below it has {mesh}")]
    Count { skin: usize, mesh: usize },
    #[error("no initial mesh TM (ModApp 0x0010)")]
    NoMeshInit,
    #[error("vertex {0} has no weight")]
    Unweighted(usize),
    #[error("vertex {0} uses Skin bone {1}, which has no node or stored TM")]
    NoBone(usize, u32),
    #[error("joint {0:?} has no common root with joint {1:?}")]
    NoCommonRoot(String, String),
    #[error("joint {0:?} has a shear glTF's TRS cannot store (at tick {1})")]
    Shear(String, i32),
    #[error("no Skin bone has a node and a stored TM")]
    NoJoints,
    #[error("{0} joints: more than JOINTS_0 can index")]
    TooMany(usize),
}

/// The glTF skin of `node`, or None when the node has no Skin (then the
/// caller exports its mesh as usual) or when its Skin cannot be written as a
/// glTF skin (then a warning says why and the caller bakes the mesh).
/// `max_nodes` are the glTF nodes 0..n in order, `parent` their glTF parents.
#[inline(never)]
pub(super) fn skinned(
    b: &mut Builder,
    node: usize,
    name: &str,
    max_nodes: &[usize],
    parent: &[Option<usize>],
) -> Option<Skinned> {
    let skin = match skin::node_skin(b.eval, node)? {
        Ok(s) => s,
        // Decode errors surface through the baked mesh's own evaluation.
        Err(_) => return None,
    };
    // The whole stack must evaluate at all; otherwise the baked path names why.
    if !matches!(b.eval.mesh(node, 0), Some(Ok(_))) {
        return None;
    }
    match plan(b, node, &skin, max_nodes, parent) {
        Ok(p) => write(b, node, name, p),
        Err(why) => {
            b.approximate(format!(
                "{name}: Skin exported as its mesh deformed at frame 0, not as a glTF skin: {why}"
            ));
            None
        }
    }
}

/// What `plan` settles before anything is written.
struct Plan {
    bind: std::sync::Arc<maxfs_scene::eval::objects::mesh::Mesh>,
    mesh_init: Mat43,
    /// Joint order: glTF node index (position in `max_nodes`) per joint.
    joints: Vec<usize>,
    /// Per joint, the bone's stored TM.
    init: Vec<Mat43>,
    /// Per vertex, up to 4 (joint, weight), weights summing to 1.
    weights: Vec<Vec<(u16, f32)>>,
    skeleton: usize,
}

fn node_name(b: &Builder, node: usize) -> String {
    b.eval.graph.node_name(node).to_string()
}

#[inline(never)]
fn plan(
    b: &Builder,
    node: usize,
    skin: &Skin,
    max_nodes: &[usize],
    parent: &[Option<usize>],
) -> Result<Plan, Refused> {
    let eval = b.eval;
    let mods = skin::modifiers(eval, node);
    let above: Vec<String> = mods
        .iter()
        .take_while(|m| m.modifier != skin.modifier)
        .map(|m| {
            eval.graph
                .class(m.modifier)
                .map_or_else(|| "?".to_string(), |c| c.name.clone())
        })
        .collect();
    if !above.is_empty() {
        return Err(Refused::Above(above.join(", ")));
    }
    let below = |t: i32| match eval.mesh_with(node, t, Stack::Without(skin.modifier)) {
        Some(Ok(m)) => Ok(m),
        Some(Err(e)) => Err(Refused::Below(e.to_string())),
        None => Err(Refused::Below("no mesh".into())),
    };
    let bind = below(0)?;
    if skin.vertices.len() != bind.vertices.len() {
        return Err(Refused::Count {
            skin: skin.vertices.len(),
            mesh: bind.vertices.len(),
        });
    }
    // glTF has one bind mesh: a stack below the Skin that moves over the
    // timeline (a Morpher, animated modifier parameters) cannot be carried.
    let time = b.scale.time;
    for t in [time.start, (time.start + time.end) / 2, time.end] {
        if t == 0 {
            continue;
        }
        let m = below(t)?;
        if m.vertices != bind.vertices || m.faces.len() != bind.faces.len() {
            return Err(Refused::Animated(t));
        }
    }
    let mesh_init = skin.mesh_init_tm.ok_or(Refused::NoMeshInit)?;
    let index: BTreeMap<usize, usize> =
        max_nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut joints: Vec<usize> = Vec::new();
    let mut init: Vec<Mat43> = Vec::new();
    let mut joint_of: Vec<Option<u16>> = Vec::with_capacity(skin.bones.len());
    for bone in &skin.bones {
        let (Some(n), Some(tm), Some(&g)) = (
            bone.node,
            bone.init_tm,
            bone.node.and_then(|n| index.get(&n)),
        ) else {
            joint_of.push(None);
            continue;
        };
        let j = match joints.iter().position(|&x| x == g) {
            Some(j) => j,
            None => {
                if b.residual.contains_key(&n) {
                    return Err(Refused::Shear(node_name(b, n), 0));
                }
                joints.push(g);
                init.push(tm);
                joints.len() - 1
            }
        };
        joint_of.push(Some(
            u16::try_from(j).map_err(|_| Refused::TooMany(skin.bones.len()))?,
        ));
    }
    let mut weights = Vec::with_capacity(skin.vertices.len());
    for (v, inf) in skin.vertices.iter().enumerate() {
        // Skin's own weights by joint (a bone listed twice adds up).
        let mut by_joint: Vec<(u16, f64)> = Vec::new();
        for &(bone, w) in inf {
            if !(w.is_finite() && w > 0.0) {
                continue;
            }
            let j = joint_of
                .get(bone as usize)
                .copied()
                .flatten()
                .ok_or(Refused::NoBone(v, bone))?;
            match by_joint.iter_mut().find(|(x, _)| *x == j) {
                Some(e) => e.1 += f64::from(w),
                None => by_joint.push((j, f64::from(w))),
            }
        }
        weights.push(top_weights(by_joint).ok_or(Refused::Unweighted(v))?);
    }
    if joints.is_empty() {
        return Err(Refused::NoJoints);
    }
    check_trs(b, &joints, max_nodes, parent)?;
    let skeleton = common_root(&joints, parent).map_err(|(a, c)| {
        Refused::NoCommonRoot(
            node_name(b, max_nodes[joints[a]]),
            node_name(b, max_nodes[joints[c]]),
        )
    })?;
    Ok(Plan {
        bind,
        mesh_init,
        joints,
        init,
        weights,
        skeleton,
    })
}

/// Checks that glTF's TRS animation can carry every joint and its ancestors:
/// their local transform must be translation · rotation · scale at every
/// frame of the animation (Max's scale along rotated axes is a shear that
/// TRS drops, and the skin would follow the wrong bones).
fn check_trs(
    b: &Builder,
    joints: &[usize],
    max_nodes: &[usize],
    parent: &[Option<usize>],
) -> Result<(), Refused> {
    let mut todo: Vec<usize> = Vec::new();
    for &j in joints {
        let mut cur = Some(j);
        while let Some(c) = cur {
            if todo.contains(&c) || todo.len() > max_nodes.len() {
                break;
            }
            todo.push(c);
            cur = parent.get(c).copied().flatten();
        }
    }
    let time = b.scale.time;
    let step = time.ticks_per_frame.max(1);
    let (start, end) = (time.start.min(0), time.end.max(0));
    let frames = (i64::from(end) - i64::from(start)) / i64::from(step);
    let stride = (frames / MAX_TRS_PROBES + 1) as i32 * step;
    for &g in &todo {
        let n = max_nodes[g];
        let mut t = start;
        loop {
            let m = metres(to_gltf(&b.eval.local_tm(n, t)), b.scale.metres);
            if !decompose(&m).3 {
                return Err(Refused::Shear(node_name(b, n), t));
            }
            if t >= end {
                break;
            }
            t = t.saturating_add(stride).min(end);
        }
    }
    Ok(())
}

/// The 4 heaviest influences, heaviest first (ties: lower joint first),
/// divided by their sum; None when nothing carries weight.
fn top_weights(mut w: Vec<(u16, f64)>) -> Option<Vec<(u16, f32)>> {
    w.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    w.truncate(MAX_INFLUENCES);
    let sum: f64 = w.iter().map(|x| x.1).sum();
    if !(sum.is_finite() && sum > 0.0) {
        return None;
    }
    Some(w.into_iter().map(|(j, x)| (j, (x / sum) as f32)).collect())
}

/// The closest common root of the joints (an index into the glTF nodes): the
/// deepest node that is an ancestor of, or is, every joint. Err holds two
/// joints (positions in `joints`) under different roots.
fn common_root(joints: &[usize], parent: &[Option<usize>]) -> Result<usize, (usize, usize)> {
    let chain = |mut n: usize| {
        let mut c = vec![n];
        while let Some(p) = parent.get(n).copied().flatten() {
            if c.len() > parent.len() {
                break;
            }
            c.push(p);
            n = p;
        }
        c.reverse();
        c
    };
    let Some(&first) = joints.first() else {
        return Err((0, 0));
    };
    let mut common = chain(first);
    for (k, &j) in joints.iter().enumerate().skip(1) {
        let c = chain(j);
        let same = common.iter().zip(&c).take_while(|(a, b)| a == b).count();
        if same == 0 {
            return Err((0, k));
        }
        common.truncate(same);
    }
    common.last().copied().ok_or((0, 0))
}

/// A glTF-axes 3×4 matrix as a column-major MAT4.
fn mat4(m: &[[f64; 4]; 3]) -> [f32; 16] {
    let mut o = [0f32; 16];
    for c in 0..4 {
        for r in 0..3 {
            let v = m[r][c];
            o[c * 4 + r] = if v.is_finite() { v as f32 } else { 0.0 };
        }
    }
    o[15] = 1.0;
    o
}

#[inline(never)]
fn write(b: &mut Builder, node: usize, name: &str, p: Plan) -> Option<Skinned> {
    let s = geometry::streams(&p.bind, &p.mesh_init, b.weighting());
    if s.positions.is_empty() {
        return None;
    }
    let wide = p.joints.len() > usize::from(u8::MAX) + 1;
    let mut joints: Vec<[u16; 4]> = Vec::with_capacity(s.source.len());
    let mut weights: Vec<[f32; 4]> = Vec::with_capacity(s.source.len());
    for &v in &s.source {
        let inf = &p.weights[v as usize];
        let mut j = [0u16; 4];
        let mut w = [0f32; 4];
        for (k, &(jj, ww)) in inf.iter().enumerate() {
            j[k] = jj;
            w[k] = ww;
        }
        // Unused slots keep joint 0 with weight 0, as glTF 2.0 asks ("unused
        // joint values SHOULD be set to zero"); a repeated index is allowed
        // where its weight is zero.
        joints.push(j);
        weights.push(w);
    }
    let joints_acc = if wide {
        let bytes: Vec<u8> = joints
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let view = b.view(&bytes, Some(json::buffer::Target::ArrayBuffer));
        b.accessor(
            view,
            joints.len(),
            json::accessor::ComponentType::U16,
            json::accessor::Type::Vec4,
            None,
        )
    } else {
        let bytes: Vec<u8> = joints.iter().flatten().map(|&x| x as u8).collect();
        let view = b.view(&bytes, Some(json::buffer::Target::ArrayBuffer));
        b.accessor(
            view,
            joints.len(),
            json::accessor::ComponentType::U8,
            json::accessor::Type::Vec4,
            None,
        )
    };
    let weights_acc = b.floats(&weights, false, true);
    let mesh = b.write_mesh(
        node,
        name,
        s,
        &[
            (json::mesh::Semantic::Joints(0), joints_acc),
            (json::mesh::Semantic::Weights(0), weights_acc),
        ],
    )?;
    let ibm = p
        .init
        .iter()
        .map(|tm| mat4(&metres(to_gltf(&invert(tm)), b.scale.metres)))
        .collect();
    Some(Skinned {
        mesh,
        joints: p.joints,
        ibm,
        skeleton: p.skeleton,
    })
}

/// Writes the skins: one root node `<name>_skin` per skinned mesh, holding
/// the mesh and its `skin` (joints = the bone nodes, inverse bind matrices,
/// skeleton = the joints' closest common root). Returns the new root nodes,
/// to be listed in the scene after the Max roots.
#[inline(never)]
pub(super) fn place(
    b: &mut Builder,
    skinned: Vec<(String, Skinned)>,
    first_index: usize,
) -> (Vec<json::Node>, Vec<Index<json::Node>>) {
    let mut nodes = Vec::new();
    let mut roots = Vec::new();
    for (k, (name, s)) in skinned.into_iter().enumerate() {
        let data: Vec<[f32; 16]> = s.ibm;
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let view = b.view(&bytes, None);
        let ibm = b.accessor(
            view,
            data.len(),
            json::accessor::ComponentType::F32,
            json::accessor::Type::Mat4,
            None,
        );
        let skin = b.root.push(json::Skin {
            extensions: None,
            extras: Default::default(),
            inverse_bind_matrices: Some(ibm),
            joints: s.joints.iter().map(|&j| Index::new(j as u32)).collect(),
            name: Some(name.clone()),
            skeleton: Some(Index::new(s.skeleton as u32)),
        });
        nodes.push(json::Node {
            name: Some(format!("{name}_skin")),
            mesh: Some(s.mesh),
            skin: Some(skin),
            ..Default::default()
        });
        roots.push(Index::new((first_index + k) as u32));
    }
    (nodes, roots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_heaviest_normalised() {
        let w = top_weights(vec![(0, 0.1), (1, 0.4), (2, 0.2), (3, 0.1), (4, 0.2)]).expect("w");
        assert_eq!(w.iter().map(|x| x.0).collect::<Vec<_>>(), [1, 2, 4, 0]);
        let s: f32 = w.iter().map(|x| x.1).sum();
        assert!((s - 1.0).abs() < 1e-6);
        assert!(top_weights(vec![]).is_none());
        assert!(top_weights(vec![(0, 0.0)]).is_none());
    }

    #[test]
    fn closest_common_root() {
        // 0 ← 1 ← 2, 1 ← 3; 4 is another root.
        let parent = [None, Some(0), Some(1), Some(1), None];
        assert_eq!(common_root(&[2, 3], &parent), Ok(1));
        assert_eq!(common_root(&[2, 1], &parent), Ok(1));
        assert_eq!(common_root(&[2], &parent), Ok(2));
        assert_eq!(common_root(&[2, 4], &parent), Err((0, 1)));
    }
}
