//! `json/skin.json`: per skinned node, every Skin and Physique of its stack
//! with its bones and per-vertex (bone, weight) pairs, the two modifiers in
//! one shape (Physique's after the plug-in's link → bone rules and top-4
//! normalisation; Skin's as stored).

use serde::Serialize;

use super::{node_skinnings, SkinKind};
use crate::eval::core::transform::SceneEval;

/// One skinned node.
#[derive(Debug, Serialize)]
pub struct SkinnedNode {
    pub index: usize,
    pub name: String,
    /// Top of the stack first.
    pub modifiers: Vec<SkinningView>,
}

/// One Skin or Physique modifier of a node.
#[derive(Debug, Serialize)]
pub struct SkinningView {
    /// "Skin" or "Physique".
    pub class: &'static str,
    /// Object index of the modifier.
    pub modifier: usize,
    /// Why the data cannot be read (then `bones` and `vertices` are empty).
    pub error: Option<String>,
    /// Bones by index: node index and name (null for a removed bone).
    pub bones: Vec<BoneView>,
    /// Per vertex of the mesh below the modifier: [bone index, weight] pairs.
    pub vertices: Vec<Vec<(u32, f32)>>,
}

#[derive(Debug, Serialize)]
pub struct BoneView {
    pub node: Option<usize>,
    pub name: Option<String>,
}

/// Every node with a Skin or Physique, in node order.
pub fn view(eval: &SceneEval) -> Vec<SkinnedNode> {
    let graph = &*eval.graph;
    graph
        .nodes()
        .filter_map(|(o, n)| {
            let modifiers: Vec<SkinningView> = node_skinnings(eval, o.index)
                .into_iter()
                .map(|(kind, modifier, s)| {
                    let class = match kind {
                        SkinKind::Skin => "Skin",
                        SkinKind::Physique => "Physique",
                    };
                    match s {
                        Ok(s) => SkinningView {
                            class,
                            modifier,
                            error: None,
                            bones: s
                                .bones
                                .iter()
                                .map(|b| BoneView {
                                    node: b.node,
                                    name: b.node.map(|i| graph.node_name(i).to_string()),
                                })
                                .collect(),
                            vertices: s.vertices,
                        },
                        Err(e) => SkinningView {
                            class,
                            modifier,
                            error: Some(e.to_string()),
                            bones: Vec::new(),
                            vertices: Vec::new(),
                        },
                    }
                })
                .collect();
            (!modifiers.is_empty()).then(|| SkinnedNode {
                index: o.index,
                name: n.name.clone(),
                modifiers,
            })
        })
        .collect()
}
