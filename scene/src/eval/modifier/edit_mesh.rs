//! Edit Mesh: the MeshDelta (0x4000) in the modifier's local data.

use crate::chunk::Chunk;
use crate::eval::error::EvalError;

use super::{bits, payload, records, u32_at, vec_at};
use crate::eval::core::keys::Words;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};

/// Face attribute bits of a MeshDelta face change (0x0220): edge visibility 0..2,
/// hidden 3, material id from bit 5; the apply mask uses bit 4 for the material.
const ATTRIB_EDGES: u32 = 0x7;
const ATTRIB_HIDDEN: u32 = 0x8;
const ATTRIB_MATID: u32 = 0x10;
const ATTRIB_MATID_SHIFT: u32 = 5;
/// Face flag bits: edges 0..2, hidden at bit 5 of Max's Face::flags.
const FACE_HIDDEN: u16 = 0x20;

/// Applies an Edit Mesh MeshDelta: created vertices are appended, then moves,
/// face corner remaps and attribute changes act on the input faces, created faces
/// are appended, and the deletion bit arrays (over input + created) go last with
/// the indices compacted. Map deltas set map vertex values; a map delta that
/// creates or rewires map faces is refused.
pub(super) fn apply(delta: &[Chunk], mesh: &mut Mesh) -> Result<(), EvalError> {
    let (nv, nf) = (mesh.vertices.len(), mesh.faces.len());
    let mut del_verts = Vec::new();
    let mut del_faces = Vec::new();
    let mut created_faces = Vec::new();
    let mut map_channel: Option<i32> = None;
    for c in delta {
        match c.id {
            0x0100 | 0x0110 => {
                let want = if c.id == 0x0100 { nv } else { nf };
                let p = payload(c)?;
                if p.len() != 4 || Words(p).u32(0) as usize != want {
                    return Err(EvalError::malformed(
                        "",
                        format!(
                            "delta made for {} {}, the stack below gives {want}",
                            if p.len() == 4 { Words(p).u32(0) } else { 0 },
                            if c.id == 0x0100 { "vertices" } else { "faces" }
                        ),
                    ));
                }
            }
            0x0130 => {
                for r in records(payload(c)?, 16, "created vertices")? {
                    mesh.vertices.push(vec_at(r, 1));
                }
            }
            0x0140 => {
                for r in records(payload(c)?, 16, "vertex moves")? {
                    let i = u32_at(r, 0) as usize;
                    let v = mesh
                        .vertices
                        .get_mut(i)
                        .ok_or_else(|| EvalError::malformed("", format!("move of vertex {i}")))?;
                    *v = v.plus(vec_at(r, 1));
                }
            }
            0x0208 => {
                for r in records(payload(c)?, 24, "created faces")? {
                    let flags = u32_at(r, 5);
                    created_faces.push(Face {
                        v: [u32_at(r, 1), u32_at(r, 2), u32_at(r, 3)],
                        smoothing: u32_at(r, 4),
                        material: (flags >> 16) as u16,
                        flags: (flags & 0xffff) as u16,
                    });
                }
            }
            0x0210 => {
                for r in records(payload(c)?, 20, "face remaps")? {
                    let i = u32_at(r, 0) as usize;
                    let mask = u32_at(r, 1);
                    let f = mesh
                        .faces
                        .get_mut(i)
                        .ok_or_else(|| EvalError::malformed("", format!("remap of face {i}")))?;
                    for k in 0..3 {
                        if mask & 1 << k != 0 {
                            f.v[k] = u32_at(r, 2 + k);
                        }
                    }
                }
            }
            0x0220 => {
                for r in records(payload(c)?, 12, "face changes")? {
                    let (i, mask, val) = (u32_at(r, 0) as usize, u32_at(r, 1), u32_at(r, 2));
                    let f = mesh
                        .faces
                        .get_mut(i)
                        .ok_or_else(|| EvalError::malformed("", format!("change of face {i}")))?;
                    let edges = (mask & ATTRIB_EDGES) as u16;
                    f.flags = (f.flags & !edges) | (val as u16 & edges);
                    if mask & ATTRIB_HIDDEN != 0 {
                        f.flags &= !FACE_HIDDEN;
                        if val & ATTRIB_HIDDEN != 0 {
                            f.flags |= FACE_HIDDEN;
                        }
                    }
                    if mask & ATTRIB_MATID != 0 {
                        f.material = (val >> ATTRIB_MATID_SHIFT) as u16;
                    }
                }
            }
            0x0170 => del_verts = bits(c)?,
            0x0270 => del_faces = bits(c)?,
            // Selection level and the vertex/face/edge selections.
            0x0300 | 0x0400 | 0x0410 | 0x0420 | 0x0430 => {}
            0x0320 => {
                let p = payload(c)?;
                if p.len() != 4 {
                    return Err(EvalError::malformed("", "map delta channel"));
                }
                let ch = Words(p).i32(0);
                if ch == 0 && !mesh.maps.iter().any(|m| m.channel == 0) {
                    // Max starts a missing colour channel white, one colour per vertex.
                    mesh.maps.push(MapChannel {
                        channel: 0,
                        vertices: vec![[1.0; 3]; nv],
                        faces: mesh.faces.iter().map(|f| f.v).collect(),
                    });
                }
                map_channel = Some(ch);
            }
            // Input map vertex and face counts of the map delta.
            0x0324 | 0x0328 => {}
            0x0330 => {
                let ch = map_channel.ok_or_else(|| {
                    EvalError::malformed("", "map vertex values before a channel")
                })?;
                let map = mesh
                    .maps
                    .iter_mut()
                    .find(|m| m.channel == ch)
                    .ok_or_else(|| {
                        EvalError::reference("", format!("map delta for missing channel {ch}"))
                    })?;
                for r in records(payload(c)?, 16, "map vertex values")? {
                    let i = u32_at(r, 0) as usize;
                    let v = vec_at(r, 1);
                    *map.vertices.get_mut(i).ok_or_else(|| {
                        EvalError::malformed("", format!("map {ch} vertex {i}"))
                    })? = [v.0 as f32, v.1 as f32, v.2 as f32];
                }
            }
            other => {
                return Err(EvalError::not_evaluated(format!(
                    "MeshDelta record {other:#06x}"
                )))
            }
        }
    }
    let nv_all = mesh.vertices.len() as u32;
    if created_faces.iter().flat_map(|f| f.v).any(|i| i >= nv_all) {
        return Err(EvalError::malformed("", "created face beyond the vertices"));
    }
    if mesh.faces.iter().flat_map(|f| f.v).any(|i| i >= nv_all) {
        return Err(EvalError::malformed(
            "",
            "remapped face beyond the vertices",
        ));
    }
    if !created_faces.is_empty() && !mesh.maps.is_empty() {
        return Err(EvalError::not_evaluated_why(
            "creating faces on a mesh with map channels",
            "map deltas",
        ));
    }
    mesh.faces.extend(created_faces);
    if del_faces.iter().any(|&d| d) {
        let keep: Vec<bool> = (0..mesh.faces.len())
            .map(|i| !del_faces.get(i).copied().unwrap_or(false))
            .collect();
        let mut k = keep.iter();
        mesh.faces.retain(|_| *k.next().unwrap_or(&true));
        for map in &mut mesh.maps {
            if map.faces.len() == keep.len() {
                let mut k = keep.iter();
                map.faces.retain(|_| *k.next().unwrap_or(&true));
            }
        }
    }
    if del_verts.iter().any(|&d| d) {
        let mut remap = Vec::with_capacity(mesh.vertices.len());
        let mut kept = Vec::with_capacity(mesh.vertices.len());
        for (i, v) in mesh.vertices.iter().enumerate() {
            remap.push(kept.len() as u32);
            if !del_verts.get(i).copied().unwrap_or(false) {
                kept.push(*v);
            }
        }
        for f in &mut mesh.faces {
            for c in &mut f.v {
                if del_verts.get(*c as usize).copied().unwrap_or(false) {
                    return Err(EvalError::malformed(
                        "",
                        "a kept face uses a deleted vertex",
                    ));
                }
                *c = remap[*c as usize];
            }
        }
        mesh.vertices = kept;
    }
    Ok(())
}
