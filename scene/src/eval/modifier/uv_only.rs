//! Modifiers that write one map channel and nothing else: texture coordinates
//! (UVW Map, Unwrap UVW, UVW Xform, Map Extender, MapScaler) or vertex colours (NeL
//! VertexTreePaint). When one cannot be evaluated the geometry below it is still
//! exactly Max's: the mesh is kept, the channel the modifier would have written
//! is removed (its old values would look valid but be wrong), and the mesh
//! records it in [`Mesh::missing_maps`] so coverage, errors.txt and the
//! exporters name the node, the modifier and the channel.

use super::map_extender::MAP_EXTENDER;
use super::map_scaler::{MAP_SCALER_OSM, MAP_SCALER_WSM};
use super::uvw_xform::{UVW_XFORM, UVW_XFORM2};
use super::vertex_tree_paint::VERTEX_TREE_PAINT;
use super::{gizmo, Applied, ModContext, LOCAL_DATA, UNWRAP_UVW, UVW_MAP};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{drop_unreferenced, Mesh, MissingMap};
use crate::eval::objects::poly::{PolyMap, PolyMesh};
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
        MAP_SCALER_WSM,
        MAP_SCALER_OSM,
        VERTEX_TREE_PAINT,
    ]
    .contains(&class)
}

/// The channel a UV-only modifier writes, when it can be read: UVW Map's
/// and UVW Xform's channel parameters, channel 1 for Unwrap UVW (the one its stored map
/// replaces, see `unwrap`), the stored channel of Map Extender's map, the
/// world-space MapScaler's channel parameter, the vertex-colour channel (0)
/// for VertexTreePaint.
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
        MAP_SCALER_WSM | MAP_SCALER_OSM => super::map_scaler::channel(m, cx),
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

/// Channel `channel` of `tri` set on `poly`'s polygons, where `tri` is what
/// a UV-only modifier outputs over `poly`'s own triangles (in polygon order,
/// as `PolyMesh::to_mesh` lays them out): each polygon corner takes the map
/// vertex its triangles give it (the first, where they hold equal values).
/// This is how the modifier's channel reaches
/// an Edit Poly above it without re-deriving Max's mapper on polygons; a
/// corner given two map vertices of different values (a seam through the
/// polygon's inside) is refused, as the polygon form is then not derived.
pub(super) fn over_polygons(
    poly: &mut PolyMesh,
    tri: &Mesh,
    channel: i32,
) -> Result<(), EvalError> {
    let map = tri
        .maps
        .iter()
        .find(|c| c.channel == channel)
        .ok_or_else(|| EvalError::malformed("", format!("no map channel {channel} to read")))?;
    let count: usize = poly.faces.iter().map(|f| f.tris.len()).sum();
    if tri.vertices.len() != poly.vertices.len()
        || tri.faces.len() != count
        || map.faces.len() != count
    {
        return Err(EvalError::malformed(
            "",
            format!(
                "{} vertices and {} triangles ({} map faces) over polygons of {} and {}",
                tri.vertices.len(),
                tri.faces.len(),
                map.faces.len(),
                poly.vertices.len(),
                count
            ),
        ));
    }
    let mut faces = Vec::with_capacity(poly.faces.len());
    let mut t = 0;
    for (fi, f) in poly.faces.iter().enumerate() {
        let mut corner = vec![None; f.v.len()];
        for tr in &f.tris {
            let (face, mf) = (&tri.faces[t], map.faces[t]);
            t += 1;
            for k in 0..3 {
                let c = tr[k];
                if f.v.get(c) != Some(&face.v[k]) {
                    return Err(EvalError::malformed(
                        format!("polygon {fi}"),
                        format!("triangle {} is not the polygon's", t - 1),
                    ));
                }
                let value = |i: u32| map.vertices.get(i as usize);
                match corner[c] {
                    // Two map vertices of one value (a mapper that numbers
                    // by triangle) give the polygon the same corner.
                    Some(x) if x != mf[k] && value(x) != value(mf[k]) => {
                        return Err(EvalError::not_evaluated(format!(
                            "map channel {channel} giving corner {c} of polygon {fi} two map \
                             vertices ({x} and {})",
                            mf[k]
                        )))
                    }
                    _ => corner[c] = Some(mf[k]),
                }
            }
        }
        let corners: Option<Vec<u32>> = corner.into_iter().collect();
        faces.push(corners.ok_or_else(|| {
            EvalError::malformed(format!("polygon {fi}"), "a corner in none of its triangles")
        })?);
    }
    if faces
        .iter()
        .flatten()
        .any(|&v| v as usize >= map.vertices.len())
    {
        return Err(EvalError::malformed(
            format!("map channel {channel}"),
            format!("a map face beyond its {} vertices", map.vertices.len()),
        ));
    }
    let mut out = PolyMap {
        channel,
        vertices: map.vertices.clone(),
        faces,
    };
    drop_unreferenced(&mut out.vertices, out.faces.iter_mut().flatten());
    poly.maps.retain(|m| m.channel != channel);
    let at = poly.maps.partition_point(|m| m.channel < channel);
    poly.maps.insert(at, out);
    Ok(())
}

/// Channel `channel` of `joined` (the modifier's triangle output joined into
/// polygons as Max converts a triangle mesh for an Edit Poly) set on `poly`,
/// the polygon form of the stack below: for a primitive whose triangle form
/// has vertices its polygons lack (a cylinder's cap centres). Only where the
/// two forms have the same vertices and polygons, corner for corner.
pub(super) fn from_joined(
    poly: &mut PolyMesh,
    joined: &PolyMesh,
    channel: i32,
) -> Result<(), EvalError> {
    let same = joined.vertices.len() == poly.vertices.len()
        && joined.faces.len() == poly.faces.len()
        && joined
            .faces
            .iter()
            .zip(&poly.faces)
            .all(|(a, b)| a.v == b.v);
    if !same {
        return Err(EvalError::not_evaluated(format!(
            "a polygon form of {} vertices and {} polygons where the mapped triangles join into \
             {} and {}",
            poly.vertices.len(),
            poly.faces.len(),
            joined.vertices.len(),
            joined.faces.len()
        )));
    }
    let map = joined
        .maps
        .iter()
        .find(|m| m.channel == channel)
        .ok_or_else(|| EvalError::malformed("", format!("no map channel {channel} to read")))?;
    poly.maps.retain(|m| m.channel != channel);
    let at = poly.maps.partition_point(|m| m.channel < channel);
    poly.maps.insert(at, map.clone());
    Ok(())
}
