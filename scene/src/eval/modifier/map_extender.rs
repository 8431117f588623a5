//! Map Extender (mapext198m3.dlm, "Map extender plug-in", UBI Soft Romania):
//! a modifier with no settings of its own whose computed map is saved flat
//! in its per-node local data (seed S003 l.845–847, l.862). Evaluating it is
//! replaying that map: the channel it names takes the stored texture
//! vertices and faces, verbatim, when the stored faces are as many as the
//! mesh's at the modifier's place in the stack; otherwise it is refused and
//! the UV-only rule (`uv_only`) keeps the geometry and names the channel.
//!
//! Local data (0x2512, a container or a leaf holding a chunk stream):
//! 0x03e8 u32 texture vertex count, 0x03e9 Point3 per texture vertex,
//! 0x03ea u32 face count, 0x03eb three u32 texture vertices per face,
//! 0x03f3 i32 map channel. Its other chunks (0x03ec edge flags,
//! 0x03ed–0x03fa selections and named sets, 0x044c) carry no mapping and
//! are not read.

use crate::chunk::Chunk;
use crate::eval::core::keys::Words;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{MapChannel, Mesh};
use crate::typed::ClassId;

use super::ModContext;

/// Map Extender (mapext198m3.dlm), an object-space modifier.
pub const MAP_EXTENDER: ClassId = ClassId(0x2ec82081, 0x045a6271);

const VERTEX_COUNT: u16 = 0x03e8;
const VERTICES: u16 = 0x03e9;
const FACE_COUNT: u16 = 0x03ea;
const FACES: u16 = 0x03eb;
const CHANNEL: u16 = 0x03f3;

/// Max's map channels: alpha (−2), illumination (−1), vertex colour (0) and
/// texture channels 1..=99 (MAX_MESHMAPS = 100).
const CHANNELS: std::ops::RangeInclusive<i32> = -2..=99;

/// Records read at most per list (a damaged count must not allocate much).
const MAX_RECORDS: usize = 1 << 22;

/// The map a Map Extender stored for one node.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMap {
    pub channel: i32,
    pub vertices: Vec<[f32; 3]>,
    pub faces: Vec<[u32; 3]>,
}

/// The payload of the first chunk `id` among `chunks`, which must be a leaf.
fn leaf<'a>(chunks: &'a [Chunk], id: u16, what: &str) -> Result<&'a [u8], EvalError> {
    let c = chunks
        .iter()
        .find(|c| c.id == id)
        .ok_or_else(|| EvalError::malformed("", format!("no {what} ({id:#06x})")))?;
    c.payload().ok_or_else(|| {
        EvalError::malformed(format!("{what} ({id:#06x})"), "a container, not a value")
    })
}

/// A chunk holding exactly one 32-bit word.
fn word(chunks: &[Chunk], id: u16, what: &str) -> Result<u32, EvalError> {
    let p = leaf(chunks, id, what)?;
    if p.len() != 4 {
        return Err(EvalError::malformed(
            format!("{what} ({id:#06x})"),
            format!("{} bytes, not 4", p.len()),
        ));
    }
    Ok(Words(p).u32(0))
}

/// `count` 12-byte records in chunk `id`, exactly.
fn twelve<'a>(
    chunks: &'a [Chunk],
    id: u16,
    count: u32,
    what: &str,
) -> Result<std::slice::ChunksExact<'a, u8>, EvalError> {
    let p = leaf(chunks, id, what)?;
    let n = count as usize;
    if n > MAX_RECORDS {
        return Err(EvalError::limit(format!("{what} ({id:#06x})"), MAX_RECORDS));
    }
    if n * 12 != p.len() {
        return Err(EvalError::malformed(
            format!("{what} ({id:#06x})"),
            format!("{} bytes for the {n} 12-byte records counted", p.len()),
        ));
    }
    Ok(p.chunks_exact(12))
}

/// The channel the stored map is for (0x03f3), when it can be read: what
/// the UV-only rule removes when the map itself cannot be applied.
pub(super) fn channel(local: Option<&Chunk>) -> Option<i32> {
    let chunks = super::local_chunks(local?).ok()?;
    let c = word(&chunks, CHANNEL, "map channel").ok()? as i32;
    CHANNELS.contains(&c).then_some(c)
}

/// Decodes the stored map of local data `local` (0x2512).
pub fn stored(local: Option<&Chunk>) -> Result<StoredMap, EvalError> {
    let local = local.ok_or_else(|| EvalError::malformed("", "no local data (0x2512)"))?;
    let chunks = super::local_chunks(local)?;
    let channel = word(&chunks, CHANNEL, "map channel")? as i32;
    if !CHANNELS.contains(&channel) {
        return Err(EvalError::malformed(
            "map channel (0x03f3)",
            format!("{channel} is not a Max map channel (−2 to 99)"),
        ));
    }
    let nv = word(&chunks, VERTEX_COUNT, "texture vertex count")?;
    let vertices: Vec<[f32; 3]> = twelve(&chunks, VERTICES, nv, "texture vertices")?
        .map(|r| {
            let w = Words(r);
            [0, 1, 2].map(|k| f32::from_bits(w.u32(k)))
        })
        .collect();
    let nf = word(&chunks, FACE_COUNT, "texture face count")?;
    let mut faces = Vec::with_capacity(nf.min(MAX_RECORDS as u32) as usize);
    for (i, r) in twelve(&chunks, FACES, nf, "texture faces")?.enumerate() {
        let w = Words(r);
        let f = [0, 1, 2].map(|k| w.u32(k));
        if let Some(&t) = f.iter().find(|&&t| t >= nv) {
            return Err(EvalError::reference(
                format!("texture face {i}"),
                format!("texture vertex {t} of {nv}"),
            ));
        }
        faces.push(f);
    }
    Ok(StoredMap {
        channel,
        vertices,
        faces,
    })
}

/// Replaces the stored map's channel of `mesh` with the stored map. Refused
/// (the caller applies the UV-only rule) when the stored faces are not as
/// many as the mesh's, or when the mesh's face order is not Max's (above a
/// recomputed Boolean): the map has no geometry vertices to check against,
/// so only a mesh of Max's own triangles can take it.
pub(super) fn apply(
    local: Option<&Chunk>,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    let map = stored(local)?;
    if !cx.max_order {
        return Err(EvalError::not_evaluated_why(
            format!("its stored map (channel {})", map.channel),
            "on a Boolean: the map follows the faces of Max's triangulation of the Boolean result, which this evaluation does not reproduce",
        ));
    }
    if map.faces.len() != mesh.faces.len() {
        return Err(EvalError::not_evaluated_why(
            format!("its stored map (channel {})", map.channel),
            format!(
                "it has {} faces, the mesh at its place in the stack {}",
                map.faces.len(),
                mesh.faces.len()
            ),
        ));
    }
    mesh.maps.retain(|m| m.channel != map.channel);
    mesh.maps.push(MapChannel {
        channel: map.channel,
        vertices: map.vertices,
        faces: map.faces,
    });
    mesh.maps.sort_by_key(|m| m.channel);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// Local data for two faces over four texture vertices, channel `ch`.
    fn local(ch: i32) -> Vec<Chunk> {
        let verts: Vec<u32> = (0..4)
            .flat_map(|i| [(i as f32 * 0.25).to_bits(), 0.5f32.to_bits(), 0])
            .collect();
        vec![
            Chunk::leaf(VERTEX_COUNT, words(&[4])),
            Chunk::leaf(VERTICES, words(&verts)),
            Chunk::leaf(FACE_COUNT, words(&[2])),
            Chunk::leaf(FACES, words(&[0, 1, 2, 0, 2, 3])),
            Chunk::leaf(0x03ec, words(&[7, 7])),
            Chunk::leaf(CHANNEL, words(&[ch as u32])),
        ]
    }

    #[test]
    fn container_and_leaf_forms_read_alike() {
        let c = Chunk::container(0x2512, local(2));
        let l = Chunk::leaf(0x2512, chunk::write(&local(2)));
        let a = stored(Some(&c)).expect("container form");
        assert_eq!(a, stored(Some(&l)).expect("leaf form"));
        assert_eq!(a.channel, 2);
        assert_eq!(a.faces, [[0, 1, 2], [0, 2, 3]]);
        assert_eq!(a.vertices[3], [0.75, 0.5, 0.0]);
        assert_eq!(channel(Some(&l)), Some(2));
    }

    #[test]
    fn damaged_maps_are_typed_errors() {
        use crate::eval::error::EvalErrorKind as K;
        let with = |id: u16, p: Vec<u8>| {
            let mut l = local(1);
            l.iter_mut().find(|c| c.id == id).expect("chunk").body = chunk::Body::Leaf(p.into());
            Chunk::container(0x2512, l)
        };
        let cases = [
            (with(VERTEX_COUNT, words(&[5])), K::Malformed, "0x03e9"),
            (with(VERTEX_COUNT, words(&[u32::MAX])), K::Limit, "0x03e9"),
            (
                with(FACES, words(&[0, 1, 2, 0, 2, 4])),
                K::Reference,
                "texture face 1",
            ),
            (with(FACES, words(&[0, 1, 2])), K::Malformed, "0x03eb"),
            (with(CHANNEL, words(&[100])), K::Malformed, "0x03f3"),
            (with(CHANNEL, vec![1, 0]), K::Malformed, "0x03f3"),
            (
                Chunk::container(0x2512, local(1)[1..].to_vec()),
                K::Malformed,
                "0x03e8",
            ),
            (
                Chunk::leaf(0x2512, vec![0xe8, 0x03, 9, 0]),
                K::Malformed,
                "0x2512",
            ),
        ];
        for (c, kind, text) in cases {
            let e = stored(Some(&c)).expect_err(text);
            assert_eq!(e.kind(), kind, "{e}");
            assert!(e.to_string().contains(text), "{e}");
        }
        assert!(stored(None).is_err());
        assert_eq!(channel(Some(&with(CHANNEL, words(&[u32::MAX - 5])))), None);
    }
}
