//! RklPatch (NeL patch mesh) objects: the decoded patch model of the file layer
//! (`maxfs_file::rklpatch`), the NeL Edit Patch modifiers that sit directly on
//! it (their vertex mapper moves applied at the patch level, as Max does before
//! any mesh exists), and the tessellated surface as a `Mesh`.

mod tessellate;

use crate::eval::error::EvalError;
use std::sync::Arc;

use crate::eval::core::transform::SceneEval;
use crate::eval::modifier::Applied;
use crate::eval::objects::mesh::Mesh;
use crate::rklpatch::vert_mapper::{CHUNK_EDIT_PATCH_DATA, CHUNK_EPVM_DATA, CHUNK_VERTMAP};
use crate::rklpatch::{RklPatch, VertMapper, NEL_EDIT_PATCH_CLASS, RKLPATCH_CLASS};
use crate::typed::TNode;

pub use tessellate::{tessellate, tessellate_with};

/// ModApp local data (0x2512), as in `modifier/`.
const LOCAL_DATA: u16 = 0x2512;

/// Whether object `obj` is an RklPatch.
pub fn is_rklpatch(eval: &SceneEval, obj: usize) -> bool {
    eval.graph
        .objects
        .get(obj)
        .and_then(|o| o.class.as_ref())
        .is_some_and(|c| c.class_id == RKLPATCH_CLASS)
}

/// The typed chunk of object `obj` (its place in the Scene stream's typed tree).
fn typed_object(eval: &SceneEval, obj: usize) -> Option<&TNode> {
    eval.typed
        .stream("Scene")?
        .nodes
        .first()?
        .children()
        .get(obj)
}

/// The RklPatch model of base object `obj`, as stored.
pub fn base_patch(eval: &SceneEval, obj: usize) -> Result<RklPatch, EvalError> {
    let node = typed_object(eval, obj)
        .ok_or_else(|| EvalError::malformed("RklPatch", "object not in the typed Scene stream"))?;
    RklPatch::from_object(node.children()).map_err(|e| EvalError::from(e).inside("RklPatch"))
}

/// The decoded vertex mapper of a NeL Edit Patch modifier application.
pub fn edit_patch_mapper(a: &Applied) -> Result<VertMapper, EvalError> {
    let what = || format!("modifier {} ({:#x}, {:#x})", a.name, a.class.0, a.class.1);
    let local = a
        .mod_app
        .and_then(|m| m.children().iter().find(|c| c.id == LOCAL_DATA))
        .ok_or_else(|| EvalError::malformed(what().to_string(), "no local data (0x2512)"))?;
    let data = local
        .children()
        .iter()
        .find(|c| c.id == CHUNK_EDIT_PATCH_DATA)
        .ok_or_else(|| EvalError::malformed(what().to_string(), "no EditPatchData (0x1000)"))?;
    let map = data
        .children()
        .iter()
        .find(|c| c.id == CHUNK_VERTMAP)
        .and_then(|m| m.children().iter().find(|c| c.id == CHUNK_EPVM_DATA))
        .and_then(|c| c.payload())
        .ok_or_else(|| {
            EvalError::malformed(what().to_string(), "no vertex mapper (0x1130/0x1000)")
        })?;
    VertMapper::decode(map)
        .map_err(|e| EvalError::from(e).inside(format!("{}: vertex mapper", what())))
}

/// Applies one NeL Edit Patch's vertex and vector moves to `patch`
/// (`EPVertMapper::UpdateAndApplyDeltas`). Topology edits the modifier may
/// record are not read: a mapper whose tables do not fit the input is refused.
pub fn apply_edit_patch(a: &Applied, patch: &mut RklPatch) -> Result<(), EvalError> {
    let m = edit_patch_mapper(a)?;
    let what = || format!("modifier {} ({:#x}, {:#x})", a.name, a.class.0, a.class.1);
    let moved = |pts: &mut Vec<[u32; 3]>, table: &[crate::rklpatch::MapVert]| {
        let input: Vec<[f32; 3]> = pts.iter().map(|p| p.map(f32::from_bits)).collect();
        let mut out = input.clone();
        VertMapper::apply(table, &input, &mut out)?;
        *pts = out.iter().map(|p| p.map(f32::to_bits)).collect();
        Ok::<(), EvalError>(())
    };
    let mut vp: Vec<[u32; 3]> = patch.verts.iter().map(|v| v.p).collect();
    moved(&mut vp, &m.verts).map_err(|e| e.inside(format!("{}: vertices", what())))?;
    let mut cp: Vec<[u32; 3]> = patch.vecs.iter().map(|v| v.p).collect();
    moved(&mut cp, &m.vecs).map_err(|e| e.inside(format!("{}: vectors", what())))?;
    patch.verts.iter_mut().zip(vp).for_each(|(v, p)| v.p = p);
    patch.vecs.iter_mut().zip(cp).for_each(|(v, p)| v.p = p);
    Ok(())
}

/// The patch model a node shows at the top of its patch-level stack: the
/// RklPatch base with the NeL Edit Patch modifiers directly above it applied
/// bottom-up; also how many modifiers (from the top) remain for the mesh
/// level. None when the node's base object is not an RklPatch.
pub fn node_patch(
    eval: &SceneEval,
    node: usize,
) -> Option<Result<(Arc<RklPatch>, usize), EvalError>> {
    let (applied, base) = eval.modifier_stack(node)?;
    if !is_rklpatch(eval, base) {
        return None;
    }
    Some(patch_stack(eval, base, &applied))
}

/// See [`node_patch`]; `applied` is top first.
pub fn patch_stack(
    eval: &SceneEval,
    base: usize,
    applied: &[Applied],
) -> Result<(Arc<RklPatch>, usize), EvalError> {
    let mut patch = base_patch(eval, base)?;
    let mut rest = applied.len();
    for a in applied.iter().rev() {
        if a.class != NEL_EDIT_PATCH_CLASS {
            break;
        }
        apply_edit_patch(a, &mut patch)?;
        rest -= 1;
    }
    Ok((Arc::new(patch), rest))
}

/// The mesh of an RklPatch-based node: the patch stack, tessellated, then the
/// mesh-level modifiers above it.
pub fn stack_mesh(
    eval: &SceneEval,
    base: usize,
    applied: &[Applied],
    cx: &crate::eval::modifier::ModContext,
) -> Result<Mesh, EvalError> {
    let (patch, rest) = patch_stack(eval, base, applied)?;
    let mut mesh = tessellate(&patch)?;
    crate::eval::modifier::apply_stack(&applied[..rest], &mut mesh, cx)?;
    Ok(mesh)
}
