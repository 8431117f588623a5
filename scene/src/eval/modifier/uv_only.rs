//! Modifiers that write one map channel and nothing else: texture coordinates
//! (UVW Map, Unwrap UVW, UVW Xform, Map Extender) or vertex colours (NeL
//! VertexTreePaint). When one cannot be evaluated the geometry below it is still
//! exactly Max's: the mesh is kept, the channel the modifier would have written
//! is removed (its old values would look valid but be wrong), and the mesh
//! records it in [`Mesh::missing_maps`] so coverage, errors.txt and the
//! exporters name the node, the modifier and the channel.

use super::map_extender::MAP_EXTENDER;
use super::uvw_xform::{UVW_XFORM, UVW_XFORM2};
use super::vertex_tree_paint::VERTEX_TREE_PAINT;
use super::{gizmo, Applied, ModContext, LOCAL_DATA, UNWRAP_UVW, UVW_MAP};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Mesh, MissingMap};
use crate::typed::ClassId;

/// Whether `class` changes one map channel only (texture coordinates or
/// vertex colours).
pub fn is_uv_only(class: ClassId) -> bool {
    [
        UVW_MAP,
        UNWRAP_UVW,
        UVW_XFORM,
        UVW_XFORM2,
        MAP_EXTENDER,
        VERTEX_TREE_PAINT,
    ]
    .contains(&class)
}

/// The channel a UV-only modifier writes, when it can be read: UVW Map's
/// and UVW Xform's channel parameters, channel 1 for Unwrap UVW (the one its stored map
/// replaces, see `unwrap`), the stored channel of Map Extender's map, the
/// vertex-colour channel (0) for VertexTreePaint.
pub(super) fn channel(m: &Applied, cx: &ModContext) -> Option<i32> {
    match m.class {
        UNWRAP_UVW => Some(1),
        VERTEX_TREE_PAINT => Some(0),
        MAP_EXTENDER => super::map_extender::channel(
            m.mod_app
                .and_then(|a| a.children().iter().find(|c| c.id == LOCAL_DATA)),
        ),
        UVW_MAP => super::uvw_map::channel(&gizmo::params(cx, m, 1).ok()?).ok(),
        UVW_XFORM | UVW_XFORM2 => super::uvw_xform::channel(m, cx),
        _ => None,
    }
}

/// Applies the outcome of UV-only modifier `m` failing with `error`: its
/// channel (every channel when it is unknown) leaves the mesh, which records
/// why.
pub(super) fn failed(m: &Applied, mesh: &mut Mesh, cx: &ModContext, error: &EvalError) {
    let channel = channel(m, cx);
    match channel {
        Some(c) => mesh.maps.retain(|x| x.channel != c),
        None => mesh.maps.clear(),
    }
    let reason = match error {
        EvalError::Modifier {
            source: Some(s), ..
        } => s.to_string(),
        EvalError::Modifier { source: None, .. } => "its class is not evaluated".to_string(),
        e => e.to_string(),
    };
    mesh.missing_maps.push(MissingMap {
        channel,
        modifier: m.name.to_string(),
        reason,
    });
}
