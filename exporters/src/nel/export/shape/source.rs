//! The mesh a node shows: its base object with the modifier stack applied by
//! the scene layer (`SceneEval::modifier_stack` / `modifier::apply`), in
//! object space. A base object or modifier the scene layer cannot evaluate
//! makes the node an error naming it, so that no node is exported with
//! geometry Max would not show. The Skin modifier is left out, as the plug-in
//! disables it while exporting (export_mesh.cpp `enableSkinModifier`). The
//! Morpher is refused: its blend shapes are not built.

use maxfs_scene::eval::mesh::Mesh;
use maxfs_scene::eval::{boolean, modifier};

use super::super::Context;

/// Class name and id of an object, for messages.
pub fn class_label(ctx: &Context, obj: usize) -> String {
    match ctx.graph.objects.get(obj).and_then(|o| o.class.as_ref()) {
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
/// a modifier to leave out (the Skin).
pub fn node_mesh(ctx: &Context, node: usize, skip: Option<usize>) -> Result<Mesh, String> {
    let (stack, base) = ctx
        .eval
        .modifier_stack(node)
        .ok_or("the node has no object")?;
    // The base object at time 0, where the export scripts run the plug-in.
    let mut mesh = match ctx.eval.base_mesh(node) {
        Some(Ok(m)) => m,
        Some(Err(e)) => return Err(format!("object {}: {e}", class_label(ctx, base))),
        None => {
            return Err(format!(
                "object class {} is not evaluated",
                class_label(ctx, base)
            ))
        }
    };
    let stack: Vec<_> = stack
        .into_iter()
        .filter(|a| Some(a.object) != skip)
        .collect();
    // Index-based edits on a Boolean result were made for Max's triangulation,
    // not ours: refuse them rather than edit the wrong vertices.
    let base_is_boolean = ctx
        .graph
        .objects
        .get(base)
        .and_then(|o| o.class.as_ref())
        .is_some_and(|c| c.class_id == boolean::BOOLEAN);
    boolean::refuse_index_edits(&stack, base_is_boolean)?;
    // The plug-in turns a Morpher's channels into blend shapes (CMeshMorpher),
    // which this exporter does not build: the frame-0 geometry alone would
    // drop them silently.
    if let Some(m) = stack.iter().find(|a| a.class == modifier::MORPHER) {
        return Err(format!(
            "modifier {}: blend shapes (CMeshMorpher) are not exported",
            class_label(ctx, m.object)
        ));
    }
    let cx = modifier::ModContext {
        eval: &ctx.eval,
        node: Some(node),
        t: 0,
    };
    for applied in stack.iter().rev() {
        modifier::apply(applied, &mut mesh, &cx)?;
    }
    Ok(mesh)
}
