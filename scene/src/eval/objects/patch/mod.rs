//! RklPatch (NeL patch mesh) objects: the decoded patch model of the file layer
//! (`maxfs_file::rklpatch`), the NeL Edit Patch and NeL Paint modifiers that sit
//! directly on it (applied at the patch level, as Max does before any mesh
//! exists: their stored final patch, with Edit Patch's vertex mapper deltas on
//! top), and the tessellated surface as a `Mesh`.

mod tessellate;

use crate::eval::error::EvalError;
use std::sync::Arc;

use crate::eval::core::transform::SceneEval;
use crate::eval::modifier::Applied;
use crate::eval::objects::mesh::Mesh;
use crate::rklpatch::vert_mapper::CHUNK_EDIT_PATCH_DATA;
use crate::rklpatch::{
    PatchModData, PatchModKind, RklPatch, RklPatchError, VertMapper, NEL_EDIT_PATCH_CLASS,
    NEL_PAINT_CLASS, RKLPATCH_CLASS,
};
use crate::typed::TNode;

pub use tessellate::{tessellate, tessellate_with};

/// ModApp local data (0x2512), as in `modifier/`.
const LOCAL_DATA: u16 = 0x2512;

/// Whether object `obj` is an RklPatch.
pub fn is_rklpatch(eval: &SceneEval, obj: usize) -> bool {
    eval.graph
        .class(obj)
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

/// Which patch-level modifier an application is, if it is one.
pub fn patch_mod_kind(a: &Applied) -> Option<PatchModKind> {
    if a.class == NEL_EDIT_PATCH_CLASS {
        Some(PatchModKind::EditPatch)
    } else if a.class == NEL_PAINT_CLASS {
        Some(PatchModKind::Paint)
    } else {
        None
    }
}

/// The local data of a NeL Edit Patch / NeL Paint application (ModApp 0x2512 →
/// EDITPATCHDATA_CHUNK 0x1000).
fn mod_data<'a>(a: &Applied<'a>, kind: PatchModKind) -> Result<PatchModData<'a>, EvalError> {
    let local = a
        .mod_app
        .and_then(|m| m.children().iter().find(|c| c.id == LOCAL_DATA))
        .ok_or_else(|| EvalError::malformed("", "no local data (0x2512)"))?;
    let data = local
        .children()
        .iter()
        .find(|c| c.id == CHUNK_EDIT_PATCH_DATA)
        .ok_or_else(|| EvalError::malformed("", "no EditPatchData (0x1000)"))?;
    Ok(PatchModData::read(kind, data.children())?)
}

/// `EditPatchData::Apply` / `PaintPatchData::Apply` for data loaded from a file
/// (np_edit_patch_data.cpp, paint_data.cpp): without EPD_HASDATA the input
/// passes through; with it the output is the stored final patch (PatchMesh and
/// RPatchMesh), Edit Patch first moving the points its vertex mapper still maps
/// to the input's + delta (`UpdateAndApplyDeltas`, skipped for an input without
/// patches). Old-style change records (which Max replays), a damaged final
/// patch and mapper records that do not fit are refused.
fn apply_patch_mod(
    a: &Applied,
    kind: PatchModKind,
    input: RklPatch,
) -> Result<RklPatch, EvalError> {
    let data = mod_data(a, kind)?;
    if !data.has_data() {
        return Ok(input);
    }
    if let Some(old) = data.old_style() {
        return Err(old.into());
    }
    let mut out = data
        .final_patch()
        .map_err(|e| EvalError::from(e).inside("stored final patch"))?;
    out.rpo.rpo_version = input.rpo.rpo_version;
    if kind == PatchModKind::EditPatch && !input.patches.is_empty() {
        let m = data.vert_mapper()?;
        let moved = |pts: Vec<[u32; 3]>, inp: Vec<[u32; 3]>, table| {
            let input: Vec<[f32; 3]> = inp.iter().map(|p| p.map(f32::from_bits)).collect();
            let mut out: Vec<[f32; 3]> = pts.iter().map(|p| p.map(f32::from_bits)).collect();
            VertMapper::apply(table, &input, &mut out)?;
            Ok::<_, RklPatchError>(out.into_iter().map(|p| p.map(f32::to_bits)))
        };
        let vp = moved(
            out.verts.iter().map(|v| v.p).collect(),
            input.verts.iter().map(|v| v.p).collect(),
            &m.verts,
        )
        .map_err(|e| EvalError::from(e).inside("vertex mapper: vertices"))?;
        out.verts.iter_mut().zip(vp).for_each(|(v, p)| v.p = p);
        let cp = moved(
            out.vecs.iter().map(|v| v.p).collect(),
            input.vecs.iter().map(|v| v.p).collect(),
            &m.vecs,
        )
        .map_err(|e| EvalError::from(e).inside("vertex mapper: vectors"))?;
        out.vecs.iter_mut().zip(cp).for_each(|(v, p)| v.p = p);
    }
    Ok(out)
}

/// Applies one NeL Edit Patch or NeL Paint application to `patch`
/// (`EditPatchData::Apply` / `PaintPatchData::Apply` as above); errors name
/// the modifier.
pub fn apply_patch_modifier(a: &Applied, patch: RklPatch) -> Result<RklPatch, EvalError> {
    let kind = patch_mod_kind(a).ok_or_else(|| EvalError::Modifier {
        name: a.name.to_string(),
        class: a.class,
        source: None,
    })?;
    apply_patch_mod(a, kind, patch).map_err(|e| EvalError::Modifier {
        name: a.name.to_string(),
        class: a.class,
        source: Some(Box::new(e)),
    })
}

/// The patch model a node shows at the top of its patch-level stack: the
/// RklPatch base with the NeL Edit Patch and NeL Paint modifiers directly above
/// it applied bottom-up; also how many modifiers (from the top) remain for the mesh
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
        if patch_mod_kind(a).is_none() {
            break;
        }
        patch = apply_patch_modifier(a, patch)?;
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
