//! NeL VertexTreePaint (nel_vertex_tree_paint, Ryzom Core's
//! plugin_max/nel_vertex_tree_paint): vertex colours painted per geometry
//! vertex, which the wind-tree vertex program reads as bend weight (red) and
//! phases (green, blue). Facts from the plug-in's sources (vertex_tree_paint.h
//! and .cpp, `SaveLocalData`, `ModifyObject`, `SetCache`):
//!
//! - Local data (0x2512): 0x0100 version (i32, 1), 0x0120 colour list: i32
//!   count, then one COLORREF (u32, red in the low byte, then green, blue)
//!   per geometry vertex.
//! - On evaluation the list is resized to the input's vertex count (black
//!   for vertices it lacks, extra entries unused); the vertex-colour channel
//!   (0) gains one map vertex per geometry vertex, colour byte / 255, and
//!   every face corner is pointed at its geometry vertex's. The channel's
//!   earlier map vertices stay, unreferenced; without a channel 0 the input
//!   first gets one of a single black vertex.

use crate::chunk::Chunk;
use crate::eval::core::keys::Words;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{MapChannel, Mesh};
use crate::typed::ClassId;

use super::ModContext;

/// NeL VertexTreePaint (`VERTEX_TREE_PAINT_CLASS_ID`), an object-space modifier.
pub const VERTEX_TREE_PAINT: ClassId = ClassId(0x40c7005e, 0x2a95082c);

const VERSION: u16 = 0x0100;
const COLOUR_LIST: u16 = 0x0120;
/// The only local-data version the plug-in writes (`currentVersion`).
const KNOWN_VERSION: i32 = 1;

/// Colours read at most (a damaged count must not allocate much).
const MAX_COLOURS: usize = 1 << 22;

/// The colours stored in local data `local` (0x2512), RGB bytes per
/// geometry vertex. No local data, or no colour list in it, is what the
/// plug-in loads as no colours (every vertex black).
pub fn colours(local: Option<&Chunk>) -> Result<Vec<[u8; 3]>, EvalError> {
    let Some(local) = local else {
        return Ok(Vec::new());
    };
    let chunks = super::local_chunks(local)?;
    if let Some(c) = chunks.iter().find(|c| c.id == VERSION) {
        let p = super::payload(c)?;
        if p.len() != 4 {
            return Err(EvalError::malformed(
                "version (0x0100)",
                format!("{} bytes, not 4", p.len()),
            ));
        }
        let v = Words(p).i32(0);
        if v != KNOWN_VERSION {
            return Err(EvalError::not_evaluated(format!("local data version {v}")));
        }
    }
    let Some(list) = chunks.iter().find(|c| c.id == COLOUR_LIST) else {
        return Ok(Vec::new());
    };
    let p = super::payload(list)?;
    if p.len() < 4 {
        return Err(EvalError::malformed(
            "colour list (0x0120)",
            format!("{} bytes cannot hold a count", p.len()),
        ));
    }
    let n = Words(p).i32(0);
    let count = usize::try_from(n)
        .map_err(|_| EvalError::malformed("colour list (0x0120)", format!("count {n}")))?;
    if count > MAX_COLOURS {
        return Err(EvalError::limit("colour list (0x0120)", MAX_COLOURS));
    }
    if count * 4 != p.len() - 4 {
        return Err(EvalError::malformed(
            "colour list (0x0120)",
            format!("{} bytes for {count} colours", p.len() - 4),
        ));
    }
    Ok(p[4..].chunks_exact(4).map(|c| [c[0], c[1], c[2]]).collect())
}

/// Paints `mesh`'s vertex-colour channel with the stored colours. Refused
/// above a recomputed Boolean: the colours follow Max's vertex order of the
/// Boolean result, which this evaluation does not reproduce.
pub(super) fn apply(
    local: Option<&Chunk>,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    let colours = colours(local)?;
    if !cx.max_order {
        return Err(EvalError::not_evaluated_why(
            "its vertex colours",
            "on a Boolean: they follow Max's vertex order of the Boolean result, which this evaluation does not reproduce",
        ));
    }
    paint(&colours, mesh)
}

/// Channel 0 of `mesh` after the plug-in's `ModifyObject` with `colours`.
fn paint(colours: &[[u8; 3]], mesh: &mut Mesh) -> Result<(), EvalError> {
    let old = mesh
        .maps
        .iter()
        .position(|m| m.channel == 0)
        .map(|i| mesh.maps.remove(i));
    let mut vertices = old.map_or_else(|| vec![[0.0; 3]], |m| m.vertices);
    let nv = mesh.vertices.len();
    let Ok(base) = u32::try_from(vertices.len()) else {
        return Err(EvalError::limit("vertex-colour map vertices", u32::MAX));
    };
    if u32::try_from(vertices.len() + nv).is_err() {
        return Err(EvalError::limit("vertex-colour map vertices", u32::MAX));
    }
    vertices.extend((0..nv).map(|v| {
        let c = colours.get(v).copied().unwrap_or([0; 3]);
        c.map(|x| f32::from(x) / 255.0)
    }));
    let mut faces = Vec::with_capacity(mesh.faces.len());
    for (i, f) in mesh.faces.iter().enumerate() {
        if let Some(&v) = f.v.iter().find(|&&v| v as usize >= nv) {
            return Err(EvalError::reference(
                format!("face {i}"),
                format!("vertex {v} of {nv}"),
            ));
        }
        faces.push(f.v.map(|v| base + v));
    }
    mesh.maps.push(MapChannel {
        channel: 0,
        vertices,
        faces,
    });
    mesh.maps.sort_by_key(|m| m.channel);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk;
    use crate::eval::error::EvalErrorKind as K;

    fn list(n: i32, colours: &[u32]) -> Chunk {
        let mut p = n.to_le_bytes().to_vec();
        for c in colours {
            p.extend(c.to_le_bytes());
        }
        Chunk::leaf(COLOUR_LIST, p)
    }

    fn local(extra: Vec<Chunk>) -> Chunk {
        let mut c = vec![Chunk::leaf(VERSION, 1i32.to_le_bytes().to_vec())];
        c.extend(extra);
        Chunk::container(0x2512, c)
    }

    #[test]
    fn colourrefs_are_red_in_the_low_byte() {
        let l = local(vec![list(2, &[0x00c0_8040, 0xff00_00ff])]);
        assert_eq!(
            colours(Some(&l)).expect("colours"),
            [[0x40, 0x80, 0xc0], [0xff, 0, 0]]
        );
        // The leaf form (a chunk stream as the payload) reads alike.
        let leaf = Chunk::leaf(0x2512, chunk::write(l.children()));
        assert_eq!(colours(Some(&leaf)), colours(Some(&l)));
        // No local data, or no list: no colours (the plug-in's black).
        assert_eq!(colours(None).expect("none"), Vec::<[u8; 3]>::new());
        assert_eq!(
            colours(Some(&local(vec![]))).expect("empty"),
            Vec::<[u8; 3]>::new()
        );
    }

    #[test]
    fn every_corner_takes_its_vertex_colour() {
        use crate::eval::core::math::Vec3;
        use crate::eval::objects::mesh::Face;
        let tri = |v: [u32; 3]| Face {
            v,
            smoothing: 0,
            material: 0,
            flags: 0,
        };
        // A quad of four vertices with a vertex-colour channel of two
        // vertices; three colours stored (the fourth vertex is black).
        let mut mesh = Mesh {
            vertices: vec![Vec3(0.0, 0.0, 0.0); 4],
            faces: vec![tri([0, 1, 2]), tri([0, 2, 3])],
            maps: vec![MapChannel {
                channel: 0,
                vertices: vec![[1.0; 3], [0.5; 3]],
                faces: vec![[0, 1, 0], [1, 1, 1]],
            }],
            ..Mesh::default()
        };
        paint(&[[255, 0, 0], [0, 51, 0], [0, 0, 102]], &mut mesh).expect("paints");
        let c = &mesh.maps[0];
        // The old map vertices stay (unreferenced), one new one per vertex.
        assert_eq!(c.vertices.len(), 6);
        assert_eq!(c.vertices[..2], [[1.0; 3], [0.5; 3]]);
        assert_eq!(
            c.vertices[2..],
            [[1.0, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.4], [0.0; 3]]
        );
        assert_eq!(c.faces, [[2, 3, 4], [2, 4, 5]]);
        // Without a channel 0: one black vertex first, then the colours.
        mesh.maps.clear();
        paint(&[], &mut mesh).expect("paints");
        assert_eq!(mesh.maps[0].vertices, [[0.0; 3]; 5]);
        assert_eq!(mesh.maps[0].faces, [[1, 2, 3], [1, 3, 4]]);
    }

    #[test]
    fn damaged_lists_are_typed_errors() {
        let cases = [
            (local(vec![list(3, &[1, 2])]), K::Malformed),
            (local(vec![list(-1, &[])]), K::Malformed),
            (local(vec![list(i32::MAX, &[])]), K::Limit),
            (
                local(vec![Chunk::leaf(COLOUR_LIST, vec![1, 0])]),
                K::Malformed,
            ),
            (
                local(vec![Chunk::container(COLOUR_LIST, vec![])]),
                K::Malformed,
            ),
            (
                Chunk::container(
                    0x2512,
                    vec![Chunk::leaf(VERSION, 2i32.to_le_bytes().to_vec())],
                ),
                K::NotEvaluated,
            ),
            (Chunk::leaf(0x2512, vec![1, 2, 3]), K::Malformed),
        ];
        for (c, kind) in cases {
            let e = colours(Some(&c)).expect_err("damaged");
            assert_eq!(e.kind(), kind, "{e}");
        }
    }
}
