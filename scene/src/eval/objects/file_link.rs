//! File Link Manager objects (linked AutoCAD / Revit drawings).
//!
//! A linked drawing's block becomes a hierarchy: a `LinkComposite` node per
//! block instance (`Block:door`), nested blocks below it, and the block's
//! entities as ordinary child nodes (the doors of sohaibshams' Exterior
//! Project: SplineShapes named `Layer:Door1`). The composite's own chunks
//! hold only references (a ParamBlock, a LinkLeaf, a Link Transform, a
//! SortKey), no mesh, and 3ds Max's Mesh Totals count none for it: 1.max
//! totals 520 vertices and 780 faces, exactly its 65 other meshes, beside 30
//! such block heads (docs/unseen-files.md). A composite without child
//! nodes is not known to be empty and stays refused by name.

use crate::eval::core::transform::SceneEval;
use crate::typed::ClassId;

pub const LINK_COMPOSITE: ClassId = ClassId(0x608b_1c8f, 0x2f0b_0d2d);

/// Whether `node` is a linked block's head: a LinkComposite whose block
/// content is its child nodes, with no geometry of its own.
pub fn is_block_head(eval: &SceneEval, node: usize) -> bool {
    let composite = eval
        .node_object(node)
        .and_then(|o| eval.graph.objects.get(o))
        .and_then(|o| o.class.as_ref())
        .is_some_and(|c| c.class_id == LINK_COMPOSITE);
    composite && eval.has_child_nodes(node)
}
