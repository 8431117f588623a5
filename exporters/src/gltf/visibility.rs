//! What 3ds Max does not show, carried by `KHR_node_visibility` (ratified by
//! Khronos; an importer without it shows everything, as before).
//!
//! Two stored states hide a node in Max:
//! - its hide flag (viewports and renders): the node's own, its children
//!   stay shown. The extension's `visible` hides a whole subtree, so a hidden
//!   node with children keeps its place and hands its mesh to a child node
//!   (`<name>_mesh`, identity transform) that is hidden alone. A hidden light
//!   still lights the scene in Max, so only meshes are hidden.
//! - its visibility track at 0 (renders): Max's default ("Inherit
//!   Visibility") hides the node's children with it, as the extension does.
//!   A fade (between 0 and 1) or a track that changes over time has no
//!   static glTF form: named, the node shown whole.

use std::collections::BTreeMap;

use gltf_json as json;
use json::Index;

use super::build::Builder;

pub(super) const EXTENSION: &str = "KHR_node_visibility";

/// Below this a visibility track renders nothing (f32 noise of a 0 key).
const NONE_RENDERED: f64 = 1e-6;

/// `visible: false` on a glTF node.
fn hide(node: &mut json::Node) {
    let ext = node.extensions.get_or_insert_with(Default::default);
    ext.others.insert(
        EXTENSION.to_string(),
        serde_json::json!({ "visible": false }),
    );
}

/// Hides, in the built node list, what Max does not show (see the module
/// doc). `max_nodes[i]` is glTF node `i`, `parent[i]` its Max parent's
/// position in `max_nodes`; `skins` maps a Max node to the
/// glTF node carrying its skinned mesh. Carrier nodes are appended, and
/// `b.mesh_node` records them for the morph-weight channels.
pub(super) fn apply(
    b: &mut Builder,
    max_nodes: &[usize],
    parent: &[Option<usize>],
    skins: &BTreeMap<usize, u32>,
) {
    use maxfs_scene::eval::core::coverage::{mesh_coverage, MeshCoverage};
    let mut used = false;
    // Max children: a light's or camera's own glTF child does not count.
    let mut has_child = vec![false; max_nodes.len()];
    for p in parent.iter().flatten() {
        if let Some(h) = has_child.get_mut(*p) {
            *h = true;
        }
    }
    for (i, &n) in max_nodes.iter().enumerate() {
        let name = b.eval.graph.node_name(n).to_string();
        let has_children = has_child[i];
        if b.eval.is_hidden(n) {
            if let Some(&s) = skins.get(&n) {
                hide(&mut b.root.nodes[s as usize]);
                used = true;
            } else if b.root.nodes[i].mesh.is_some() {
                if has_children {
                    let mesh = b.root.nodes[i].mesh.take();
                    let mut carrier = json::Node {
                        name: Some(format!("{name}_mesh")),
                        mesh,
                        ..Default::default()
                    };
                    hide(&mut carrier);
                    let at = b.root.nodes.len() as u32;
                    b.root.push(carrier);
                    b.root.nodes[i]
                        .children
                        .get_or_insert_with(Vec::new)
                        .push(Index::new(at));
                    b.mesh_node.insert(n, at);
                } else {
                    hide(&mut b.root.nodes[i]);
                }
                used = true;
            }
        }
        let Some(v) = b.eval.visibility(n, 0) else {
            continue;
        };
        let geometry = !matches!(mesh_coverage(b.eval, n), MeshCoverage::NotGeometry);
        // A light's or a childless helper's track changes nothing Max renders.
        if !geometry && !has_children {
            continue;
        }
        match v {
            Ok((v, true)) => b.approximate(format!(
                "{name}: animated visibility track (at frame 0: {v}) not exported (glTF shows the node throughout)"
            )),
            Ok((v, false)) if v < NONE_RENDERED => {
                hide(&mut b.root.nodes[i]);
                if let Some(&s) = skins.get(&n) {
                    hide(&mut b.root.nodes[s as usize]);
                }
                used = true;
                if has_children {
                    b.approximate(format!(
                        "{name}: visibility {v} hides its children too (Max's default Inherit Visibility; a child's own setting is not read)"
                    ));
                }
            }
            Ok((v, false)) if v < 1.0 && geometry => b.approximate(format!(
                "{name}: visibility {v} (a fade) not exported (glTF shows the node whole)"
            )),
            Ok(_) => {}
            Err(e) => b.approximate(format!("{name}: visibility track not evaluated: {e}")),
        }
    }
    if used && !b.root.extensions_used.iter().any(|e| e == EXTENSION) {
        b.root.extensions_used.push(EXTENSION.into());
    }
}
