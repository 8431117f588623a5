//! Triangle meshes of Editable Mesh objects (GeomBuffers 0x08fe): vertices, faces
//! with smoothing groups and material ids, and map channels.

use serde::Serialize;

use crate::chunk::Chunk;

use super::keys::Words;
use super::math::Vec3;

/// Editable Mesh class id.
pub const EDITABLE_MESH: crate::typed::ClassId = crate::typed::ClassId(0xe44f10b3, 0);
/// Derived objects hold the base object in their last reference.
const GEOM_BUFFERS: u16 = 0x08fe;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Face {
    pub v: [u32; 3],
    pub smoothing: u32,
    pub material: u16,
    /// Edge visibility and other low flag bits.
    pub flags: u16,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapChannel {
    /// 0 = vertex colour, 1.. = texture channels.
    pub channel: i32,
    pub vertices: Vec<[f32; 3]>,
    pub faces: Vec<[u32; 3]>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Mesh {
    pub vertices: Vec<Vec3>,
    pub faces: Vec<Face>,
    pub maps: Vec<MapChannel>,
}

/// A u32 count followed by `count` records of `size` bytes, exactly.
fn counted<'a>(p: &'a [u8], size: usize, what: &str) -> Result<(usize, &'a [u8]), String> {
    if p.len() < 4 {
        return Err(format!("{what}: {} bytes cannot hold a count", p.len()));
    }
    let n = Words(p).u32(0) as usize;
    let body = &p[4..];
    if n.checked_mul(size) != Some(body.len()) {
        return Err(format!(
            "{what}: count {n} × {size} bytes does not match the {} bytes stored",
            body.len()
        ));
    }
    Ok((n, body))
}

fn vertices(p: &[u8]) -> Result<Vec<Vec3>, String> {
    let (_, body) = counted(p, 12, "vertices (0x0914)")?;
    Ok(body
        .chunks_exact(12)
        .map(|r| {
            let w = Words(r);
            Vec3(w.f(0), w.f(1), w.f(2))
        })
        .collect())
}

fn faces(p: &[u8], nverts: usize) -> Result<Vec<Face>, String> {
    let (_, body) = counted(p, 20, "faces (0x0912)")?;
    body.chunks_exact(20)
        .enumerate()
        .map(|(i, r)| {
            let w = Words(r);
            let v = [w.u32(0), w.u32(1), w.u32(2)];
            if v.iter().any(|&x| x as usize >= nverts) {
                return Err(format!("face {i} uses vertex {v:?} of {nverts}"));
            }
            let f = w.u32(4);
            Ok(Face {
                v,
                smoothing: w.u32(3),
                material: (f >> 16) as u16,
                flags: (f & 0xffff) as u16,
            })
        })
        .collect()
}

/// Decodes the GeomBuffers of an Editable Mesh object.
pub fn editable_mesh(object: &[Chunk]) -> Result<Mesh, String> {
    let geom = object
        .iter()
        .find(|c| c.id == GEOM_BUFFERS)
        .ok_or("no GeomBuffers (0x08fe) chunk")?;
    let leaf = |id: u16| {
        geom.children()
            .iter()
            .find(|c| c.id == id)
            .and_then(Chunk::payload)
    };
    let vertices = vertices(leaf(0x0914).ok_or("no vertex chunk 0x0914")?)?;
    let faces = faces(leaf(0x0912).ok_or("no face chunk 0x0912")?, vertices.len())?;
    let mut maps = Vec::new();
    let mut channel = None;
    let mut mverts: Option<Vec<[f32; 3]>> = None;
    for c in geom.children() {
        match (c.id, c.payload()) {
            (0x0959, Some(p)) if p.len() == 4 => channel = Some(Words(p).i32(0)),
            (0x2394, Some(p)) => {
                let (_, body) = counted(p, 12, "map vertices (0x2394)")?;
                mverts = Some(
                    body.chunks_exact(12)
                        .map(|r| {
                            let w = Words(r);
                            [w.f(0) as f32, w.f(1) as f32, w.f(2) as f32]
                        })
                        .collect(),
                );
            }
            (0x2396, Some(p)) => {
                let (_, body) = counted(p, 12, "map faces (0x2396)")?;
                let verts = mverts.take().unwrap_or_default();
                let mf: Vec<[u32; 3]> = body
                    .chunks_exact(12)
                    .map(|r| {
                        let w = Words(r);
                        [w.u32(0), w.u32(1), w.u32(2)]
                    })
                    .collect();
                if mf.iter().flatten().any(|&i| i as usize >= verts.len()) {
                    return Err("map face index beyond the map vertices".into());
                }
                maps.push(MapChannel {
                    channel: channel.take().unwrap_or(1),
                    vertices: verts,
                    faces: mf,
                });
            }
            _ => {}
        }
    }
    Ok(Mesh {
        vertices,
        faces,
        maps,
    })
}
