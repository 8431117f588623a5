//! The export properties of every node of a scene, decoded once.

use super::*;

/// Decoded export properties of every object of a scene, indexed like
/// `SceneGraph::objects`; non-node objects get the defaults.
#[derive(Debug, Clone, Default)]
pub struct SceneProperties {
    nodes: Vec<Option<NodeProperties>>,
    default: NodeProperties,
}

/// The object a node shows, under any modifier stack (derived objects keep
/// their base object in their last reference).
pub(super) fn base_object(graph: &SceneGraph, node: &SceneObject) -> Option<usize> {
    let mut cur = node
        .references
        .iter()
        .find(|r| r.slot == 1)
        .and_then(|r| usize::try_from(r.target).ok())?;
    for _ in 0..512 {
        let o = graph.objects.get(cur)?;
        if !matches!(o.chunk_id, DERIVED_OSM | DERIVED_WSM) {
            return Some(cur);
        }
        cur = o
            .references
            .iter()
            .filter(|r| r.target >= 0)
            .max_by_key(|r| r.slot)
            .and_then(|r| usize::try_from(r.target).ok())?;
    }
    None
}

impl SceneProperties {
    /// Decodes every node; only nodes carrying NeL AppData (node or object) cost
    /// more than a default value.
    pub fn of(graph: &SceneGraph) -> SceneProperties {
        let nodes = graph
            .objects
            .iter()
            .map(|o| {
                o.node.as_ref()?;
                let obj = base_object(graph, o).and_then(|i| graph.objects.get(i));
                let has_nel = o.appdata.iter().any(is_nel)
                    || obj.is_some_and(|ob| ob.appdata.iter().any(is_nel));
                Some(if has_nel {
                    NodeProperties::decode(o, obj)
                } else {
                    NodeProperties::default()
                })
            })
            .collect();
        SceneProperties {
            nodes,
            default: NodeProperties::default(),
        }
    }

    /// The properties of object `idx` (defaults for non-nodes and bad indices).
    pub fn node(&self, idx: usize) -> &NodeProperties {
        self.nodes
            .get(idx)
            .and_then(Option::as_ref)
            .unwrap_or(&self.default)
    }

    /// Whether `idx` is a node (has decoded properties of its own).
    pub fn is_node(&self, idx: usize) -> bool {
        matches!(self.nodes.get(idx), Some(Some(_)))
    }
}
