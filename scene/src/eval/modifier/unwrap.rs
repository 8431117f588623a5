//! Unwrap UVW: the edited texture map kept whole in the modifier's local data.

use crate::chunk::Chunk;

use super::super::keys::Words;
use super::super::mesh::{MapChannel, Mesh};
use super::{records, vec_at};

/// Unwrap UVW: its local data keeps the whole edited map — texture vertices 0x0860
/// (u32 count, 24-byte records starting u, v, w) and faces 0x0870 (u32 count, per
/// face: degree, texture vertex per corner, face index, material, flags, geometry
/// vertex per corner) — which replaces map channel 1 when the faces still match.
pub(super) fn apply(local: &[Chunk], mesh: &mut Mesh) -> Result<(), String> {
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
