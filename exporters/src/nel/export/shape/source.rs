//! The mesh a node shows: its base object with the modifier stack applied by
//! the scene layer (`SceneEval::modifier_stack` / `modifier::apply`), in
//! object space. A base object or modifier the scene layer cannot evaluate
//! makes the node an error naming it, so that no node is exported with
//! geometry Max would not show. The Skin modifier is left out, as the plug-in
//! disables it while exporting (export_mesh.cpp `enableSkinModifier`). A
//! Morpher is refused except where its blend shapes are built (the single
//! `CMesh` path, `node_mesh_morphed`).

use std::sync::Arc;

use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::{modifier, Stack};

use super::super::Context;
use crate::error::{ExportError, ExportResult};

/// Class name and id of an object, for messages.
pub fn class_label(ctx: &Context, obj: usize) -> String {
    match ctx.graph.class(obj) {
        Some(c) => format!("{} ({:#x}, {:#x})", c.name, c.class_id.0, c.class_id.1),
        None => format!("object {obj} (no class)"),
    }
}

/// The modifiers between a node and its base object, top of the stack first.
pub fn modifiers(ctx: &Context, node: usize) -> Vec<usize> {
    ctx.eval
        .modifier_stack(node)
        .map(|(stack, _)| stack.iter().map(|a| a.object).collect())
        .unwrap_or_default()
}

/// The node's mesh in object space, or why it cannot be evaluated. `skip` is
/// a modifier to leave out (the Skin). The mesh comes from the scene's memo, so
/// the .shape, the .ig, glTF and the JSON views share one evaluation.
pub fn node_mesh(ctx: &Context, node: usize, skip: Option<usize>) -> ExportResult<Arc<Mesh>> {
    mesh_at_zero(ctx, node, skip, false)
}

/// `node_mesh` for a caller that builds the Morpher's blend shapes itself:
/// the mesh with the Morpher at its time-0 weights.
pub fn node_mesh_morphed(
    ctx: &Context,
    node: usize,
    skip: Option<usize>,
) -> ExportResult<Arc<Mesh>> {
    mesh_at_zero(ctx, node, skip, true)
}

fn mesh_at_zero(
    ctx: &Context,
    node: usize,
    skip: Option<usize>,
    morpher_ok: bool,
) -> ExportResult<Arc<Mesh>> {
    let (stack, base) = ctx
        .eval
        .modifier_stack(node)
        .ok_or_else(|| ExportError::refused("the node has no object"))?;
    // The base object at time 0, where the export scripts run the plug-in.
    match ctx.eval.base_mesh(node) {
        Some(Ok(_)) => {}
        Some(Err(e)) => {
            return Err(ExportError::from(e).within(format!("object {}", class_label(ctx, base))))
        }
        // A shape under a modifier that makes a mesh of it (Extrude, Lathe,
        // an Edit Poly …) is a mesh object to the plug-in: export what the
        // stack gives, or name the modifier that fails.
        None if stack
            .iter()
            .any(|a| Some(a.object) != skip && modifier::meshes_a_shape(a.class)) => {}
        None => {
            // A spline Max does not render (a helper, a linked block head) is evaluated as a
            // shape but holds no faces: say so, not "not evaluated".
            use maxfs_scene::eval::core::coverage::{base_object_coverage, MeshCoverage};
            let what = match base_object_coverage(ctx.eval, node) {
                MeshCoverage::NotGeometry => {
                    "is not geometry (a spline without Enable In Renderer, a helper or a linked block's head): no mesh"
                }
                // glTF shows the rendered tube; what the plug-in's mesh
                // conversion makes of a spline is not checked against it.
                MeshCoverage::Evaluated => {
                    "is a rendered spline: its tube is not exported as a NeL shape (the plug-in's \
                     conversion of splines is not verified)"
                }
                // The evaluation below names the shape's or a modifier's
                // failure.
                MeshCoverage::Object(_) | MeshCoverage::Modifiers(_) => "",
            };
            if !what.is_empty() {
                return Err(ExportError::refused(format!(
                    "object class {} {what}",
                    class_label(ctx, base)
                )));
            }
        }
    }
    // The plug-in turns a Morpher's channels into blend shapes (CMeshMorpher),
    // which this exporter does not build: the frame-0 geometry alone would
    // drop them silently.
    if let Some(m) = stack
        .iter()
        .find(|a| !morpher_ok && a.class == modifier::MORPHER && Some(a.object) != skip)
    {
        return Err(ExportError::refused(format!(
            "modifier {}: blend shapes (CMeshMorpher) are not exported",
            class_label(ctx, m.object)
        )));
    }
    let request = skip.map_or(Stack::Full, Stack::Without);
    // No mesh at all: the base object is of a class the scene layer does not
    // build (Foliage, Wall, TextPlus …); name it, as glTF does.
    ctx.eval
        .mesh_with(node, 0, request)
        .ok_or_else(|| {
            ExportError::refused(format!(
                "object class {} is not evaluated",
                class_label(ctx, base)
            ))
        })?
        .map_err(ExportError::from)
}
