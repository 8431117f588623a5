//! The NeL view of a skinned node (nel_mesh_lib/export_skinning.cpp): the
//! skeleton the shape is bound to, bone ids in the order `buildSkeleton` gives
//! them, and per vertex the 4 heaviest bones, renormalised, as `buildSkinning`
//! keeps them. Shared by the shape builder (skinned meshes) and the .skel export.

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::modifier::physique;
use maxfs_scene::eval::modifier::skin::Skin;
use maxfs_scene::eval::Mat43;
use maxfs_scene::graph::SceneGraph;
use maxfs_scene::typed::ClassId;

use super::Context;

/// NL3D_MESH_SKINNING_MAX_MATRIX.
pub const MAX_MATRIX: usize = 4;
/// Bipslave and Biped body (COM) TM controllers: their transforms come from
/// Character Studio's own solver, which is not evaluated.
pub const BIPED_SLAVE: ClassId = ClassId(0x9154, 0);
pub const BIPED_BODY: ClassId = ClassId(0x9156, 0);
/// The deepest hierarchy followed; deeper is a cycle in damaged data.
const MAX_DEPTH: usize = 4096;

/// One bone of a NeL skeleton, in id order.
#[derive(Debug, Clone, PartialEq)]
pub struct SkelBone {
    pub node: usize,
    /// `CBoneBase::Name`: the node name, "_Second" appended to a repeated name.
    pub name: String,
    /// Id of the father bone, -1 for the root.
    pub father: i32,
}

/// A skeleton as `buildSkeleton` walks it: depth-first from the root, children
/// in the order Max lists them (storage order).
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    pub root: usize,
    pub bones: Vec<SkelBone>,
}

impl Skeleton {
    /// The bone id of a node (`TInodePtrInt` lookup).
    pub fn id_of(&self, node: usize) -> Option<u32> {
        self.bones
            .iter()
            .position(|b| b.node == node)
            .and_then(|i| u32::try_from(i).ok())
    }
}

/// `CMesh::CSkinWeight`: matrix ids into the skeleton, weights summing to 1,
/// heaviest first; unused slots are (0, 0.0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SkinWeight {
    pub matrix_id: [u32; MAX_MATRIX],
    pub weight: [f32; MAX_MATRIX],
}

/// What the shape builder needs to skin a node's mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinBinding {
    /// The skinned node.
    pub node: usize,
    /// The skeleton of `getSkeletonRootBone` (top ancestor of the first bone
    /// a vertex uses); matrix ids index its bones.
    pub skeleton: Skeleton,
    /// `CMeshBuild::BonesNames`: the raw node name of each skeleton bone, by id
    /// (unlike the .skel names, repeated names are not suffixed).
    pub bone_names: Vec<String>,
    /// One entry per vertex of the object below the Skin modifier, in vertex
    /// order; the shape builder must check the count against its mesh
    /// (the exporter reports "InvalidSkeleton" when they differ).
    pub weights: Vec<SkinWeight>,
    /// The Skin's stored bind pose (bone node TM when added) per skeleton id,
    /// for the bones the Skin lists; `addSkeletonBindPos`.
    pub bind_pos: Vec<Option<Mat43>>,
    /// The decoded Skin modifier (bones in Skin order, raw weights, mesh init TM).
    pub skin: Skin,
}

fn is_root_node(graph: &SceneGraph, i: usize) -> bool {
    graph.class(i).is_some_and(|c| c.class_id == ClassId(2, 0))
}

/// The parent node of a node, None at the top (below the scene root).
pub fn parent(graph: &SceneGraph, node: usize) -> Option<usize> {
    let p = graph.objects.get(node)?.node.as_ref()?.parent? as usize;
    (p != node && !is_root_node(graph, p) && graph.objects.get(p).is_some_and(|o| o.node.is_some()))
        .then_some(p)
}

/// `getRoot`: the ancestor just below the scene root.
pub fn top_ancestor(graph: &SceneGraph, node: usize) -> usize {
    let mut cur = node;
    for _ in 0..MAX_DEPTH {
        match parent(graph, cur) {
            Some(p) => cur = p,
            None => break,
        }
    }
    cur
}

/// Children of every node, in storage order.
pub fn children(graph: &SceneGraph) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); graph.objects.len()];
    for i in 0..graph.objects.len() {
        if let Some(p) = parent(graph, i) {
            out[p].push(i);
        }
    }
    out
}

/// `buildSkeleton` from `root`: ids depth-first, names made unique the
/// exporter's way.
pub fn skeleton(graph: &SceneGraph, root: usize) -> Skeleton {
    let kids = children(graph);
    let mut bones: Vec<SkelBone> = Vec::new();
    let mut names = std::collections::HashSet::new();
    // (node, father id); an explicit stack keeps deep rigs off the call stack.
    let mut stack = vec![(root, -1i32)];
    let mut seen = vec![false; graph.objects.len()];
    while let Some((node, father)) = stack.pop() {
        if seen.get(node).copied().unwrap_or(true) {
            continue;
        }
        seen[node] = true;
        let id = bones.len() as i32;
        let mut name = graph.node_name(node).to_string();
        if !names.insert(name.clone()) {
            name.push_str("_Second");
        }
        bones.push(SkelBone { node, name, father });
        if let Some(k) = kids.get(node) {
            stack.extend(k.iter().rev().map(|&c| (c, id)));
        }
    }
    Skeleton { root, bones }
}

/// Whether a node's TM comes from Biped, and the controller class name if so.
pub fn biped_controller(ctx: &Context, node: usize) -> Option<String> {
    let ctl = ctx.eval.tm_controller(node)?;
    let c = ctx.graph.objects.get(ctl)?.class.as_ref()?;
    (c.class_id == BIPED_SLAVE || c.class_id == BIPED_BODY).then(|| c.name.clone())
}

/// `buildSkinning` for one vertex: the 4 heaviest influences (ties: the later
/// one is kept, as the exporter's multimap erases from its front), weights
/// divided by their sum, heaviest first.
pub fn nel_weights(influences: &[(u32, f32)]) -> Option<Vec<(u32, f32)>> {
    if influences.is_empty() {
        return None;
    }
    let mut v: Vec<(u32, f32)> = influences.to_vec();
    v.sort_by(|a, b| a.1.total_cmp(&b.1));
    let drop = v.len().saturating_sub(MAX_MATRIX);
    let kept = &v[drop..];
    let sum: f32 = kept.iter().map(|x| x.1).sum();
    Some(kept.iter().rev().map(|&(b, w)| (b, w / sum)).collect())
}

/// The skin binding of a node: None when it has no Skin or Physique
/// modifier; an error naming the problem when it cannot be exported.
pub fn node_skin(ctx: &Context, node: usize) -> Option<ExportResult<SkinBinding>> {
    // The topmost Skin or Physique (the modifier the shape export disables);
    // Physique comes decoded to the Skin shape, without Skin's bind poses.
    let (_, skin) = physique::node_skinning(ctx.eval, node)?;
    Some(
        skin.map_err(ExportError::from)
            .and_then(|s| binding(ctx, node, s)),
    )
}

/// The binding of `node` skinned by `skin` (a decoded Skin, or a Physique in
/// the Skin shape): both modifiers go through the same skeleton, bone id and
/// weight rules.
pub fn binding(ctx: &Context, node: usize, skin: Skin) -> ExportResult<SkinBinding> {
    let graph = ctx.graph;
    let first = skin
        .vertices
        .iter()
        .find_map(|v| v.first())
        .ok_or_else(|| ExportError::invalid("Skin: no vertex has a bone"))?;
    let first_node = skin
        .bones
        .get(first.0 as usize)
        .and_then(|b| b.node)
        .ok_or_else(|| ExportError::invalid("Skin: the first assigned bone has no node"))?;
    let skeleton = skeleton(graph, top_ancestor(graph, first_node));
    let bone_names = skeleton
        .bones
        .iter()
        .map(|b| graph.node_name(b.node).to_string())
        .collect();
    // Skin bone index -> skeleton id.
    let ids: Vec<Option<u32>> = skin
        .bones
        .iter()
        .map(|b| b.node.and_then(|n| skeleton.id_of(n)))
        .collect();
    let mut bind_pos = vec![None; skeleton.bones.len()];
    for (b, id) in skin.bones.iter().zip(&ids) {
        if let (Some(id), Some(tm)) = (id, b.init_tm) {
            if let Some(slot) = bind_pos.get_mut(*id as usize) {
                *slot = Some(tm);
            }
        }
    }
    let mut weights = Vec::with_capacity(skin.vertices.len());
    for (v, inf) in skin.vertices.iter().enumerate() {
        let kept = nel_weights(inf)
            .ok_or_else(|| ExportError::invalid(format!("vertex {v} has no weight")))?;
        let mut w = SkinWeight::default();
        for (k, &(bone, weight)) in kept.iter().enumerate() {
            let id = ids.get(bone as usize).copied().flatten().ok_or_else(|| {
                let bn = skin
                    .bones
                    .get(bone as usize)
                    .and_then(|b| b.node)
                    .map_or("<none>", |n| graph.node_name(n));
                ExportError::invalid(format!(
                    "invalid skeleton: vertex {v} uses bone {bn:?}, not under the skeleton root {:?}",
                    graph.node_name(skeleton.root)
                ))
            })?;
            if !weight.is_finite() {
                return Err(ExportError::invalid(format!(
                    "vertex {v}: weights sum to zero"
                )));
            }
            w.matrix_id[k] = id;
            w.weight[k] = weight;
        }
        weights.push(w);
    }
    Ok(SkinBinding {
        node,
        skeleton,
        bone_names,
        weights,
        bind_pos,
        skin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_heaviest_renormalised() {
        let w = nel_weights(&[(0, 0.1), (1, 0.4), (2, 0.2), (3, 0.1), (4, 0.2)]).expect("w");
        assert_eq!(w.len(), 4);
        assert_eq!(w[0].0, 1);
        // Ties keep the later one first (multimap reverse order).
        assert_eq!((w[1].0, w[2].0, w[3].0), (4, 2, 3));
        let s: f32 = w.iter().map(|x| x.1).sum();
        assert!((s - 1.0).abs() < 1e-6);
        assert!(nel_weights(&[]).is_none());
    }
}
