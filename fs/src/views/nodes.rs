//! `nodes.json`: the node hierarchy — names, parents, children, flags and the
//! object-offset transform, object colour and layer stored on each node — merged by node index with the
//! evaluated transforms (local and world matrices at t = 0, object offset,
//! hidden/frozen, transform controller class).

use serde::Serialize;
use serde_json::Value;

use maxfs_scene::eval::render::object_colour;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Typed;

use crate::json::{self, f32s_value};

#[derive(Serialize)]
struct Node<'a> {
    index: usize,
    name: &'a str,
    class: Option<&'a str>,
    /// Storage index of the parent node (the scene root node for top-level nodes).
    parent: Option<u32>,
    parent_name: Option<&'a str>,
    children: Vec<usize>,
    flags: Option<String>,
    version: Option<u32>,
    /// Object offset relative to the node: position, rotation quaternion, scale + scale axis.
    offset_position: Option<Value>,
    offset_rotation: Option<Value>,
    offset_scale: Option<Value>,
    /// The node's own object (wireframe) colour, 8-bit RGB.
    wire_colour: Option<[u8; 3]>,
    /// The node shows its layer's colour instead of its own.
    colour_by_layer: bool,
    /// The colour 3ds Max shows for the node (its own or its layer's).
    object_colour: Option<[u8; 3]>,
    /// The scene layer the node is on.
    layer: Option<Layer>,
    /// Evaluated (absent when the evaluation failed; see `evaluation_error`).
    #[serde(flatten)]
    transform: Option<super::eval::Transform>,
}

#[derive(Serialize)]
struct Layer {
    name: Option<String>,
    colour: Option<[u8; 3]>,
}

pub fn render(typed: &Typed, eval: Result<&SceneEval, &str>) -> Vec<u8> {
    let g = match &typed.scene {
        Ok(g) => g,
        Err(e) => return super::error_json(&e.to_string()),
    };
    let transforms = eval
        .map_err(str::to_string)
        .and_then(|e| super::eval::transforms(e).map_err(|e| e.message().to_string()));
    let (mut transforms, evaluation_error) = match transforms {
        Ok(t) => (t, None),
        Err(e) => (Default::default(), Some(e)),
    };
    let name_of = |i: u32| -> Option<&str> {
        let o = g.objects.get(i as usize)?;
        match &o.node {
            Some(n) => Some(n.name.as_str()),
            None => o.class.as_ref().map(|c| c.name.as_str()),
        }
    };
    let mut children: std::collections::HashMap<u32, Vec<usize>> = Default::default();
    for (o, n) in g.nodes() {
        if let Some(p) = n.parent {
            children.entry(p).or_default().push(o.index);
        }
    }
    let nodes: Vec<Node> = g
        .nodes()
        .map(|(o, n)| {
            let layer = eval.ok().and_then(|e| object_colour::layer(e, o.index));
            Node {
                index: o.index,
                name: &n.name,
                class: o.class.as_ref().map(|c| c.name.as_str()),
                parent: n.parent,
                parent_name: n.parent.and_then(name_of),
                children: children.get(&(o.index as u32)).cloned().unwrap_or_default(),
                flags: n.flags.map(json::id32),
                version: n.version,
                offset_position: n.offset_position.as_ref().map(|v| f32s_value(v)),
                offset_rotation: n.offset_rotation.as_ref().map(|v| f32s_value(v)),
                offset_scale: n.offset_scale.as_ref().map(|v| f32s_value(v)),
                wire_colour: n.wire_colour,
                colour_by_layer: n.colour_by_layer,
                object_colour: object_colour::shown(n, layer.as_ref()).map(|c| c.0),
                layer: layer.map(|l| Layer {
                    name: l.name,
                    colour: l.colour,
                }),
                transform: transforms.remove(&o.index),
            }
        })
        .collect();
    #[derive(Serialize)]
    struct Out<'a> {
        nodes: Vec<Node<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        evaluation_error: Option<String>,
    }
    json::to_bytes(&Out {
        nodes,
        evaluation_error,
    })
}
