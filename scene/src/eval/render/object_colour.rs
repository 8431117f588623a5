//! A node's object colour: its own (wireframe) colour, or its layer's when
//! the node is set to take colour by layer. 3ds Max renders it where no
//! material is applied and where a material's colour is "by object"
//! (Autodesk Generic's Color By Object); its FBX export writes it as the
//! geometry's `Color`, which pinned the rule (docs/max-format.md, "Object
//! colour").

use maxfs_file::typed::ClassId;

use crate::eval::SceneEval;

/// The Base Layer class (a scene layer: name 0x1010, colour 0x1030).
pub const BASE_LAYER: ClassId = ClassId(0x7e98_58fe, 0x1dba_1df0);
/// The layer chunk holding its colour: red, green, blue and a zero byte.
const LAYER_COLOUR: u16 = 0x1030;

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
    let o = eval.graph.objects.get(node)?;
    let info = o.node.as_ref()?;
    if !info.colour_by_layer {
        return info.wire_colour.map(|c| (c, Source::Node));
    }
    let layer = o.references.iter().find_map(|r| {
        let t = usize::try_from(r.target).ok()?;
        (eval.graph.class(t)?.class_id == BASE_LAYER).then_some(t)
    })?;
    let p = eval
        .chunks(layer)
        .iter()
        .find(|c| c.id == LAYER_COLOUR)?
        .payload()?;
    match p {
        [r, g, b, _] => Some(([*r, *g, *b], Source::Layer(layer))),
        _ => None,
    }
}
