//! A node's object colour: its own (wireframe) colour, or its layer's when
//! the node is set to take colour by layer. 3ds Max renders it where no
//! material is applied and where a material's colour is "by object"
//! (Autodesk Generic's Color By Object); its FBX export writes it as the
//! geometry's `Color`, which pinned the rule (docs/max-format.md, "Object
//! colour").

use maxfs_file::graph::NodeInfo;
use maxfs_file::typed::ClassId;

use crate::eval::SceneEval;

/// The Base Layer class (a scene layer: name 0x1010, colour 0x1030).
pub const BASE_LAYER: ClassId = ClassId(0x7e98_58fe, 0x1dba_1df0);
/// The layer chunks holding its name (8-bit text) and its colour (red,
/// green, blue and a zero byte).
const LAYER_NAME: u16 = 0x1010;
const LAYER_COLOUR: u16 = 0x1030;

/// A scene layer as a node sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// Its object index.
    pub object: usize,
    pub name: Option<String>,
    pub colour: Option<[u8; 3]>,
}

/// The layer node `node` is on (the Base Layer it references).
pub fn layer(eval: &SceneEval, node: usize) -> Option<Layer> {
    let o = eval.graph.objects.get(node)?;
    o.node.as_ref()?;
    let object = o.references.iter().find_map(|r| {
        let t = usize::try_from(r.target).ok()?;
        (eval.graph.class(t)?.class_id == BASE_LAYER).then_some(t)
    })?;
    let leaf = |id: u16| {
        eval.chunks(object)
            .iter()
            .find(|c| c.id == id)
            .and_then(|c| c.payload())
    };
    Some(Layer {
        object,
        name: leaf(LAYER_NAME).map(|p| String::from_utf8_lossy(p).into_owned()),
        colour: match leaf(LAYER_COLOUR) {
            Some([r, g, b, _]) => Some([*r, *g, *b]),
            _ => None,
        },
    })
}

/// Where a node's colour came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Node,
    /// The layer (object index) the node takes its colour from.
    Layer(usize),
}

/// The colour 3ds Max shows for `node`, 8-bit RGB, and where it comes from;
/// `None` when the colour it needs is not stored (or `node` is not a node).
pub fn object_colour(eval: &SceneEval, node: usize) -> Option<([u8; 3], Source)> {
    let info = eval.graph.objects.get(node)?.node.as_ref()?;
    let layer = info.colour_by_layer.then(|| layer(eval, node)).flatten();
    shown(info, layer.as_ref())
}

/// The colour a node with `info` on `layer` shows (for a reader that has
/// looked its layer up already).
pub fn shown(info: &NodeInfo, layer: Option<&Layer>) -> Option<([u8; 3], Source)> {
    if !info.colour_by_layer {
        return info.wire_colour.map(|c| (c, Source::Node));
    }
    let l = layer?;
    l.colour.map(|c| (c, Source::Layer(l.object)))
}
