//! Modifier stacks: a derived object (0x2032 object-space, 0x2033 world-space)
//! holds its modifiers in references 0..n−1 (0 = top of the stack) and the object
//! they modify in its last reference; its chunks hold one ModApp container 0x2500
//! per modifier, in the same order, with the modifier's per-node data in 0x2512.
//!
//! Evaluated here: Edit Mesh (its MeshDelta), Unwrap UVW (its stored texture
//! vertices and faces), and the selection-only modifiers, which leave the mesh as
//! it is. Any other modifier is an error naming it — dropping a modifier silently
//! would export the wrong geometry.

use crate::chunk::Chunk;
use crate::typed::ClassId;

use super::keys::Words;
use super::math::Vec3;
use super::mesh::{Face, MapChannel, Mesh};

pub const EDIT_MESH: ClassId = ClassId(0x50, 0);
pub const UNWRAP_UVW: ClassId = ClassId(0x02df2e3a, 0x72ba4e1f);
/// Mesh Select only passes a selection up the stack.
const SELECTION_ONLY: [ClassId; 1] = [ClassId(0x73d8ff93, 0)];

/// ModApp container, its local-data child, and the Edit Mesh delta.
const MOD_APP: u16 = 0x2500;
const LOCAL_DATA: u16 = 0x2512;
const MESH_DELTA: u16 = 0x4000;

/// Records decoded at most per list (a damaged count must not allocate much).
const MAX_RECORDS: usize = 1 << 22;

/// One modifier of a stack: its scene object, class and ModApp container.
#[derive(Debug, Clone, Copy)]
pub struct Applied<'a> {
    pub object: usize,
    pub class: ClassId,
    pub name: &'a str,
    pub mod_app: Option<&'a Chunk>,
}

/// The ModApp containers of a derived object, in modifier order.
pub fn mod_apps(derived: &[Chunk]) -> Vec<&Chunk> {
    derived.iter().filter(|c| c.id == MOD_APP).collect()
}

/// Applies one modifier to `mesh` (object space).
pub fn apply(m: &Applied, mesh: &mut Mesh) -> Result<(), String> {
    let what = || format!("modifier {} ({:#x}, {:#x})", m.name, m.class.0, m.class.1);
    if SELECTION_ONLY.contains(&m.class) {
        return Ok(());
    }
    let local = m
        .mod_app
        .and_then(|a| a.children().iter().find(|c| c.id == LOCAL_DATA));
    if m.class == EDIT_MESH {
        let delta = local
            .and_then(|l| l.children().iter().find(|c| c.id == MESH_DELTA))
            .ok_or_else(|| format!("{}: no MeshDelta (0x4000)", what()))?;
        return edit_mesh(delta.children(), mesh).map_err(|e| format!("{}: {e}", what()));
    }
    if m.class == UNWRAP_UVW {
        let local = local.ok_or_else(|| format!("{}: no local data", what()))?;
        return unwrap(local.children(), mesh).map_err(|e| format!("{}: {e}", what()));
    }
    Err(format!("{} is not evaluated", what()))
}

/// A u32 count and `size`-byte records, exactly.
fn records<'a>(p: &'a [u8], size: usize, what: &str) -> Result<Vec<&'a [u8]>, String> {
    if p.len() < 4 {
        return Err(format!("{what}: {} bytes", p.len()));
    }
    let n = Words(p).u32(0) as usize;
    if n > MAX_RECORDS || n * size != p.len() - 4 {
        return Err(format!(
            "{what}: {n} records of {size} bytes in {}",
            p.len()
        ));
    }
    Ok(p[4..].chunks_exact(size).collect())
}

fn u32_at(r: &[u8], i: usize) -> u32 {
    Words(r).u32(i)
}

fn vec_at(r: &[u8], i: usize) -> Vec3 {
    let w = Words(r);
    Vec3(w.f(i), w.f(i + 1), w.f(i + 2))
}

/// A bit array container (0x2700: u32 bit count, then the bits LSB first).
fn bits(c: &Chunk) -> Result<Vec<bool>, String> {
    let p = c
        .children()
        .iter()
        .find(|x| x.id == 0x2700)
        .and_then(Chunk::payload)
        .ok_or("bit array without 0x2700")?;
    if p.len() < 4 {
        return Err("short bit array".into());
    }
    let n = Words(p).u32(0) as usize;
    if n.div_ceil(8) > p.len() - 4 {
        return Err(format!("bit array of {n} bits in {} bytes", p.len()));
    }
    Ok((0..n).map(|i| p[4 + i / 8] >> (i % 8) & 1 != 0).collect())
}

fn payload(c: &Chunk) -> Result<&[u8], String> {
    c.payload()
        .ok_or_else(|| format!("chunk {:#06x} is a container", c.id))
}

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
fn edit_mesh(delta: &[Chunk], mesh: &mut Mesh) -> Result<(), String> {
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
                    return Err(format!(
                        "delta made for {} {}, the stack below gives {want}",
                        if p.len() == 4 { Words(p).u32(0) } else { 0 },
                        if c.id == 0x0100 { "vertices" } else { "faces" }
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
                        .ok_or_else(|| format!("move of vertex {i}"))?;
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
                        .ok_or_else(|| format!("remap of face {i}"))?;
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
                        .ok_or_else(|| format!("change of face {i}"))?;
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
                    return Err("map delta channel".into());
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
                let ch = map_channel.ok_or("map vertex values before a channel")?;
                let map = mesh
                    .maps
                    .iter_mut()
                    .find(|m| m.channel == ch)
                    .ok_or_else(|| format!("map delta for missing channel {ch}"))?;
                for r in records(payload(c)?, 16, "map vertex values")? {
                    let i = u32_at(r, 0) as usize;
                    let v = vec_at(r, 1);
                    *map.vertices
                        .get_mut(i)
                        .ok_or_else(|| format!("map {ch} vertex {i}"))? =
                        [v.0 as f32, v.1 as f32, v.2 as f32];
                }
            }
            other => return Err(format!("MeshDelta record {other:#06x} is not evaluated")),
        }
    }
    let nv_all = mesh.vertices.len() as u32;
    if created_faces.iter().flat_map(|f| f.v).any(|i| i >= nv_all) {
        return Err("created face beyond the vertices".into());
    }
    if mesh.faces.iter().flat_map(|f| f.v).any(|i| i >= nv_all) {
        return Err("remapped face beyond the vertices".into());
    }
    if !created_faces.is_empty() && !mesh.maps.is_empty() {
        return Err("created faces on a mesh with map channels (map deltas not evaluated)".into());
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
                    return Err("a kept face uses a deleted vertex".into());
                }
                *c = remap[*c as usize];
            }
        }
        mesh.vertices = kept;
    }
    Ok(())
}

/// Unwrap UVW: its local data keeps the whole edited map — texture vertices 0x0860
/// (u32 count, 24-byte records starting u, v, w) and faces 0x0870 (u32 count, per
/// face: degree, texture vertex per corner, face index, material, flags, geometry
/// vertex per corner) — which replaces map channel 1 when the faces still match.
fn unwrap(local: &[Chunk], mesh: &mut Mesh) -> Result<(), String> {
    let find = |id: u16| {
        local
            .iter()
            .find(|c| c.id == id)
            .and_then(Chunk::payload)
            .ok_or_else(|| format!("no chunk {id:#06x}"))
    };
    let vertices: Vec<[f32; 3]> = records(find(0x0860)?, 24, "texture vertices")?
        .into_iter()
        .map(|r| {
            let v = vec_at(r, 0);
            [v.0 as f32, v.1 as f32, v.2 as f32]
        })
        .collect();
    let p = find(0x0870)?;
    if p.len() < 4 {
        return Err("texture faces".into());
    }
    let n = Words(p).u32(0) as usize;
    if n != mesh.faces.len() {
        return Err(format!(
            "{n} texture faces for {} mesh faces",
            mesh.faces.len()
        ));
    }
    let words = Words(&p[4..]);
    let count = (p.len() - 4) / 4;
    let mut at = 0;
    let mut faces = Vec::with_capacity(n);
    for i in 0..n {
        if at >= count {
            return Err(format!("texture face {i} past the end"));
        }
        let deg = words.u32(at) as usize;
        if deg != 3 || at + 1 + 2 * deg + 3 > count {
            return Err(format!("texture face {i} of degree {deg}"));
        }
        let t = [words.u32(at + 1), words.u32(at + 2), words.u32(at + 3)];
        if t.iter().any(|&x| x as usize >= vertices.len()) {
            return Err(format!("texture face {i} uses a missing vertex"));
        }
        let v = [words.u32(at + 7), words.u32(at + 8), words.u32(at + 9)];
        if v != mesh.faces[i].v {
            return Err(format!("texture face {i} is over other vertices"));
        }
        faces.push(t);
        at += 1 + 2 * deg + 3;
    }
    if at != count {
        return Err("bytes left after the texture faces".into());
    }
    mesh.maps.retain(|m| m.channel != 1);
    mesh.maps.push(MapChannel {
        channel: 1,
        vertices,
        faces,
    });
    mesh.maps.sort_by_key(|m| m.channel);
    Ok(())
}
