//! Unwrap UVW: the edited texture map kept whole in the modifier's local data.

use crate::chunk::Chunk;
use crate::eval::error::EvalError;

use super::{records, vec_at};
use crate::eval::core::keys::Words;
use crate::eval::objects::mesh::{MapChannel, Mesh};
use crate::eval::objects::poly::{PolyMap, PolyMesh};

/// Unwrap UVW: its local data keeps the whole edited map — texture vertices 0x0860
/// (u32 count, 24-byte records starting u, v, w) and faces 0x0870 (u32 count, per
/// face: degree, texture vertex per corner, face index, material, flags, geometry
/// vertex per corner) — which replaces map channel 1 when the faces still match.
/// On a poly input the faces are polygons, each covering the triangles our poly
/// output made of it.
///
/// A mesh without faces has nothing to map and passes up as it came,
/// whatever the modifier stored: Academia2013Cohort3/Equipe1's Walls.max
/// keeps an Unwrap (its cache: 206 vertices of an earlier input) on an
/// empty Editable Poly, and Max's Mesh Totals (8,037 vertices) count that
/// node empty (docs/unseen-files.md, fourteenth sweep).
pub(super) fn apply(local: &[Chunk], own: &[Chunk], mesh: &mut Mesh) -> Result<(), EvalError> {
    if mesh.faces.is_empty() {
        return Ok(());
    }
    let (vertices, polygons) = stored(local, own)?;
    let n = polygons.len();
    let mut faces = Vec::with_capacity(mesh.faces.len());
    for (i, Polygon { v, t, .. }) in polygons.iter().enumerate() {
        // A polygon (the modifier's input was a poly mesh) covers the next
        // deg - 2 triangles of ours, split as the poly output splits it; each
        // triangle corner takes the texture vertex of the polygon corner on the
        // same geometry vertex.
        for _ in 0..v.len() - 2 {
            let f = faces.len();
            let Some(face) = mesh.faces.get(f) else {
                return Err(EvalError::malformed(
                    "",
                    format!(
                        "texture faces cover more than the {} mesh faces",
                        mesh.faces.len()
                    ),
                ));
            };
            let tf = corner_texture(v, t, face.v).ok_or_else(|| {
                EvalError::malformed(
                    "",
                    format!("texture face {i} is over other vertices than mesh face {f}"),
                )
            })?;
            faces.push(tf);
        }
    }
    if faces.len() != mesh.faces.len() {
        return Err(EvalError::malformed(
            "",
            format!(
                "{n} texture faces cover {} of {} mesh faces",
                faces.len(),
                mesh.faces.len()
            ),
        ));
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

/// Texture vertices read at most from an old Unwrap's 0x0270 (a damaged
/// length must not allocate much).
const MAX_OLD_RECORDS: usize = 1 << 22;

/// One stored polygon: geometry vertex and texture vertex per corner, its
/// material id and flags (on a triangle, bits 8–10 mark its edges 0–2
/// hidden: `HIDDEN_EDGES`).
pub(super) struct Polygon {
    pub v: Vec<u32>,
    pub t: Vec<u32>,
    pub material: u32,
    pub flags: u32,
}

/// The hidden-edge bits of a stored triangle's flags, edge k (corner k to
/// k + 1) at bit `HIDDEN_SHIFT + k`.
pub(super) const HIDDEN_SHIFT: u32 = 8;

/// The stored map: texture vertices 0x0860 and polygons 0x0870 of the
/// modifier's local data (`local`, Max 2008 on), or — in files of older
/// Unwraps, which keep one map in the modifier itself (`own`) and nothing of
/// it per node — texture vertices 0x0270 (20-byte records: u, v, w, influence,
/// flags) and polygons 0x0310, records as 0x0870's without the leading count.
pub(super) fn stored(
    local: &[Chunk],
    own: &[Chunk],
) -> Result<(Vec<[f32; 3]>, Vec<Polygon>), EvalError> {
    fn find(chunks: &[Chunk], id: u16) -> Option<&[u8]> {
        chunks.iter().find(|c| c.id == id).and_then(Chunk::payload)
    }
    let (vertices, p, counted) = match (find(local, 0x0860), find(local, 0x0870)) {
        (Some(v), Some(f)) => (records(v, 24, "texture vertices")?, f, true),
        (Some(_), None) => return Err(EvalError::malformed("", "no chunk 0x0870")),
        (None, _) => match (find(own, 0x0270), find(own, 0x0310)) {
            (Some(v), Some(f)) => {
                if v.len() % 20 != 0 || v.len() / 20 > MAX_OLD_RECORDS {
                    return Err(EvalError::malformed(
                        "texture vertices (0x0270)",
                        format!("{} bytes are not 20-byte records", v.len()),
                    ));
                }
                (v.chunks_exact(20).collect(), f, false)
            }
            _ => return Err(EvalError::malformed(
                "",
                "no texture vertices: neither 0x0860 in its local data nor 0x0270 in the modifier",
            )),
        },
    };
    let vertices: Vec<[f32; 3]> = vertices
        .into_iter()
        .map(|r| {
            let v = vec_at(r, 0);
            [v.0 as f32, v.1 as f32, v.2 as f32]
        })
        .collect();
    let (n, words, count) = if counted {
        if p.len() < 4 {
            return Err(EvalError::malformed("", "texture faces"));
        }
        let count = (p.len() - 4) / 4;
        let n = Words(p).u32(0) as usize;
        if n > count {
            return Err(EvalError::malformed(
                "",
                format!("{n} texture faces in {count} words"),
            ));
        }
        (Some(n), Words(&p[4..]), count)
    } else {
        (None, Words(p), p.len() / 4)
    };
    let mut at = 0;
    let mut polygons = Vec::with_capacity(n.unwrap_or(0));
    let mut i = 0;
    while n.map_or(at < count, |n| i < n) {
        i += 1;
        let i = i - 1;
        if at >= count {
            return Err(EvalError::malformed(
                "",
                format!("texture face {i} past the end"),
            ));
        }
        let deg = words.u32(at) as usize;
        // A deleted polygon (MN_DEAD, collapsed from the poly input) keeps a
        // record of no corners: its index, material and flags only.
        if deg == 0 && at + 4 <= count {
            at += 4;
            continue;
        }
        if deg < 3 || deg > count || at + 1 + 2 * deg + 3 > count {
            return Err(EvalError::malformed(
                "",
                format!("texture face {i} of degree {deg}"),
            ));
        }
        let t: Vec<u32> = (0..deg).map(|k| words.u32(at + 1 + k)).collect();
        if t.iter().any(|&x| x as usize >= vertices.len()) {
            return Err(EvalError::reference(
                "",
                format!("texture face {i} uses a missing vertex"),
            ));
        }
        let material = words.u32(at + 2 + deg);
        let flags = words.u32(at + 3 + deg);
        let v: Vec<u32> = (0..deg).map(|k| words.u32(at + 4 + deg + k)).collect();
        at += 1 + 2 * deg + 3;
        polygons.push(Polygon {
            v,
            t,
            material,
            flags,
        });
    }
    if at != count {
        return Err(EvalError::malformed(
            "",
            "bytes left after the texture faces",
        ));
    }
    Ok((vertices, polygons))
}

/// Unwrap UVW below a poly modifier (an Edit Poly above it): the stored
/// polygons must be the mesh's faces corner for corner, and channel 1 becomes
/// the stored map.
pub(super) fn apply_poly(
    local: &[Chunk],
    own: &[Chunk],
    poly: &mut PolyMesh,
) -> Result<(), EvalError> {
    if poly.faces.is_empty() {
        return Ok(());
    }
    let (vertices, polygons) = stored(local, own)?;
    if polygons.len() != poly.faces.len() {
        return Err(EvalError::malformed(
            "",
            format!(
                "{} texture faces for {} polygons",
                polygons.len(),
                poly.faces.len()
            ),
        ));
    }
    for (i, (p, f)) in polygons.iter().zip(&poly.faces).enumerate() {
        if p.v != f.v {
            return Err(EvalError::malformed(
                "",
                format!("texture face {i} is over other vertices than polygon {i}"),
            ));
        }
    }
    poly.maps.retain(|m| m.channel != 1);
    poly.maps.push(PolyMap {
        channel: 1,
        vertices,
        faces: polygons.into_iter().map(|p| p.t).collect(),
    });
    poly.maps.sort_by_key(|m| m.channel);
    poly.validate()
}

/// Texture vertices of a triangle cut from a polygon (geometry vertices `v`,
/// texture vertices `t` per corner). A polygon may pass a vertex twice (a hole
/// bridged to its outline), so the triangle's corners are placed on polygon
/// corners in cyclic order, as the triangulation keeps them; None when no such
/// placement exists or two placements disagree on the texture vertices.
fn corner_texture(v: &[u32], t: &[u32], tri: [u32; 3]) -> Option<[u32; 3]> {
    let at: Vec<Vec<usize>> = tri
        .iter()
        .map(|&x| (0..v.len()).filter(|&j| v[j] == x).take(8).collect())
        .collect();
    // a → b → c runs forward around the polygon: two of the three steps rise.
    let cyclic =
        |a: usize, b: usize, c: usize| [a < b, b < c, c < a].iter().filter(|&&x| x).count() == 2;
    let mut found: Option<[u32; 3]> = None;
    for &a in &at[0] {
        for &b in &at[1] {
            for &c in &at[2] {
                if !cyclic(a, b, c) {
                    continue;
                }
                let tf = [t[a], t[b], t[c]];
                match found {
                    Some(f) if f != tf => return None,
                    _ => found = Some(tf),
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::mesh::Face;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A quad 0 1 2 3 as our two triangles.
    fn quad() -> Mesh {
        let tri = |v: [u32; 3]| Face {
            v,
            smoothing: 0,
            material: 0,
            flags: 0,
        };
        Mesh {
            vertices: vec![crate::eval::core::math::Vec3(0.0, 0.0, 0.0); 4],
            faces: vec![tri([0, 1, 2]), tri([0, 2, 3])],
            ..Mesh::default()
        }
    }

    #[test]
    fn an_input_without_faces_passes_up_unmapped() {
        // Walls.max's Mur013: texture faces stored, the input empty.
        let mut tv = words(&[3]);
        for _ in 0..3 {
            tv.extend(words(&[0; 6]));
        }
        let local = vec![
            Chunk::leaf(0x0860, tv),
            Chunk::leaf(0x0870, words(&[1, 3, 0, 1, 2, 0, 0, 0, 0, 1, 2])),
        ];
        let mut empty = Mesh::default();
        apply(&local, &[], &mut empty).unwrap();
        assert_eq!(empty, Mesh::default());
        // Nothing stored at all: still nothing to map.
        apply(&[], &[], &mut empty).unwrap();
        assert_eq!(empty, Mesh::default());
        // A mesh with faces is mapped from the stored data as before.
        assert!(apply(&[], &[], &mut quad()).is_err());
    }

    #[test]
    fn records_of_deleted_polygons_are_skipped() {
        // A quad 0 1 2 3 (two triangles of ours) after a deleted polygon's
        // record, as an Editable Poly with a dead face stores them.
        let mut mesh = quad();
        let mut tv = words(&[4]);
        for i in 0..4u32 {
            tv.extend(words(&[(i as f32).to_bits(), 0, 0, 0, 0, 0]));
        }
        let mut tf = words(&[2, 0, 0, 0, 0]);
        tf.extend(words(&[4, 3, 2, 1, 0, 1, 0, 0, 0, 1, 2, 3]));
        let local = [Chunk::leaf(0x0860, tv), Chunk::leaf(0x0870, tf)];
        apply(&local, &[], &mut mesh).expect("unwrap");
        assert_eq!(mesh.maps[0].faces, [[3, 2, 1], [3, 1, 0]]);
    }

    #[test]
    fn an_old_unwrap_keeps_its_map_in_the_modifier() {
        // No 0x0860 per node: texture vertices 0x0270 (u, v, w, influence,
        // flags) and uncounted faces 0x0310 in the modifier's own chunks.
        let mut mesh = quad();
        let mut tv = Vec::new();
        for i in 0..4u32 {
            tv.extend(words(&[(i as f32).to_bits(), 0, 0, 0, 0]));
        }
        let mut tf = words(&[3, 3, 2, 1, 0, 1, 0, 0, 1, 2]);
        tf.extend(words(&[3, 3, 1, 0, 1, 1, 0, 0, 2, 3]));
        let own = [Chunk::leaf(0x0270, tv), Chunk::leaf(0x0310, tf)];
        let local = [Chunk::leaf(0x0210, Vec::new())];
        apply(&local, &own, &mut mesh).expect("unwrap");
        assert_eq!(mesh.maps[0].faces, [[3, 2, 1], [3, 1, 0]]);
        assert_eq!(mesh.maps[0].vertices[3], [3.0, 0.0, 0.0]);
        // Neither form: an error that names both chunks.
        let e = apply(&local, &[], &mut mesh).expect_err("no map");
        assert!(e.to_string().contains("0x0270"), "{e}");
    }

    #[test]
    fn triangles_of_polygons_that_pass_a_vertex_twice() {
        // Outline 0 1 2 3, bridged at vertex 0 to a hole 4 5 6: the polygon runs
        // 0 1 2 3 0 4 6 5 with vertex 0 at corners 0 and 4.
        let v = [0, 1, 2, 3, 0, 4, 6, 5];
        let t = [10, 11, 12, 13, 14, 15, 16, 17];
        assert_eq!(corner_texture(&v, &t, [1, 2, 3]), Some([11, 12, 13]));
        // Vertex 0 after 3 is corner 4; before 1 it is corner 0.
        assert_eq!(corner_texture(&v, &t, [3, 0, 4]), Some([13, 14, 15]));
        assert_eq!(corner_texture(&v, &t, [5, 0, 1]), Some([17, 10, 11]));
        // Against the polygon's order, or off it: no placement.
        assert_eq!(corner_texture(&v, &t, [3, 2, 1]), None);
        assert_eq!(corner_texture(&v, &t, [1, 2, 9]), None);
    }
}
