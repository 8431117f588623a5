//! The mesh a node shows, as far as the scene layer can evaluate it: the base
//! object of its modifier stack, refused (with the reason) when the object
//! class or a modifier on top of it is not evaluated, so that no node is
//! exported with geometry Max would not show.

use maxfs_scene::eval::mesh::Mesh;
use maxfs_scene::typed::schema::{DERIVED_OSM, DERIVED_WSM};

use super::super::Context;

/// Derived objects followed at most (damaged files can loop).
const MAX_STACK: usize = 256;

/// Class name and id of an object, for messages.
pub fn class_label(ctx: &Context, obj: usize) -> String {
    match ctx.graph.objects.get(obj).and_then(|o| o.class.as_ref()) {
        Some(c) => format!("{} ({:#x}, {:#x})", c.name, c.class_id.0, c.class_id.1),
        None => format!("object {obj} (no class)"),
    }
}

/// The modifiers between a node and its base object, top of the stack first.
pub fn modifiers(ctx: &Context, node: usize) -> Vec<usize> {
    let g = ctx.graph;
    let mut out = Vec::new();
    let Some(mut cur) = g
        .objects
        .get(node)
        .and_then(|o| o.references.iter().find(|r| r.slot == 1))
        .and_then(|r| usize::try_from(r.target).ok())
    else {
        return out;
    };
    for _ in 0..MAX_STACK {
        let Some(o) = g.objects.get(cur) else {
            break;
        };
        if !matches!(o.chunk_id, DERIVED_OSM | DERIVED_WSM) {
            break;
        }
        let refs: Vec<(u32, usize)> = o
            .references
            .iter()
            .filter_map(|r| Some((r.slot, usize::try_from(r.target).ok()?)))
            .collect();
        let Some(&(last_slot, base)) = refs.iter().max_by_key(|(s, _)| *s) else {
            break;
        };
        out.extend(
            refs.iter()
                .filter(|(s, _)| *s != last_slot)
                .map(|&(_, m)| m),
        );
        cur = base;
    }
    out
}

/// The node's mesh in object space, or why it cannot be evaluated. `skip` is
/// a modifier to leave out (the Skin, which the plug-in disables on export).
pub fn node_mesh(ctx: &Context, node: usize, skip: Option<usize>) -> Result<Mesh, String> {
    let obj = ctx.eval.node_object(node).ok_or("the node has no object")?;
    let mesh = match ctx.eval.base_mesh(node) {
        Some(Ok(m)) => m,
        Some(Err(e)) => return Err(format!("object {}: {e}", class_label(ctx, obj))),
        None => {
            return Err(format!(
                "object class {} is not evaluated",
                class_label(ctx, obj)
            ))
        }
    };
    if let Some(m) = modifiers(ctx, node).into_iter().find(|&m| Some(m) != skip) {
        return Err(format!("modifier {} is not evaluated", class_label(ctx, m)));
    }
    Ok(mesh)
}
