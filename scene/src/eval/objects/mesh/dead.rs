//! Deleted vertices and faces an Editable Poly keeps until Max collapses them
//! (MNMesh's MN_DEAD flag). Max saves them in place, so the indices of the
//! live ones stay put: a dead vertex as its flags word alone (no position), a
//! dead face with no corners and its flags in the extra word, while each map
//! channel keeps that face's old map face. Seen in Max 2017 to 2024 files of
//! several unrelated projects (docs/unseen-files.md). They are removed here
//! and the indices renumbered, as MNMesh::CollapseDeadStructs does, so what
//! is built is the mesh Max shows.

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;

use super::{Cursor, MnBuffers, Poly, PolyMapData};

/// MNVert / MNFace flag of a deleted element (mnmesh.h).
pub(super) const MN_DEAD: u32 = 1 << 1;

/// Poly vertex records (0x0100): a count, then per vertex its flags and, unless
/// it is dead, its position. `None` marks a dead vertex.
pub(super) fn poly_vertices(p: &[u8]) -> Result<Vec<Option<Vec3>>, EvalError> {
    let mut c = Cursor { p, at: 0 };
    let n = c.u32("poly vertex count (0x0100)")? as usize;
    // Each vertex takes at least its 4-byte flags word.
    if n > p.len() / 4 {
        return Err(EvalError::malformed(
            "poly vertices (0x0100)",
            format!("count {n} cannot fit in {} bytes", p.len()),
        ));
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let flags = c
            .u32("flags")
            .map_err(|e| e.inside(format!("poly vertices (0x0100): count {n}, vertex {i}")))?;
        if flags & MN_DEAD != 0 {
            out.push(None);
            continue;
        }
        let xyz = c
            .take(12, "position")
            .map_err(|e| e.inside(format!("poly vertices (0x0100): count {n}, vertex {i}")))?;
        let f = |k: usize| {
            f64::from(f32::from_le_bytes([
                xyz[k],
                xyz[k + 1],
                xyz[k + 2],
                xyz[k + 3],
            ]))
        };
        out.push(Some(Vec3(f(0), f(4), f(8))));
    }
    if c.at != p.len() {
        return Err(EvalError::malformed(
            "poly vertices (0x0100)",
            format!("{} bytes left after {n} vertices", p.len() - c.at),
        ));
    }
    Ok(out)
}

/// Drops dead vertices, dead polygons (empty corner lists) and the map faces
/// of dead polygons, renumbering the corners. A live polygon on a dead vertex
/// is an error.
pub(super) fn collapse(
    vertices: Vec<Option<Vec3>>,
    mut polys: Vec<Poly>,
    mut maps: Vec<PolyMapData>,
) -> Result<MnBuffers, EvalError> {
    if polys.iter().any(|p| p.v.is_empty()) {
        let live: Vec<bool> = polys.iter().map(|p| !p.v.is_empty()).collect();
        for m in &mut maps {
            let mut i = 0;
            m.faces.retain(|_| {
                i += 1;
                live[i - 1]
            });
        }
        polys.retain(|p| !p.v.is_empty());
    }
    let kept: Vec<Vec3> = vertices.iter().flatten().copied().collect();
    let renumber = renumbering(&vertices);
    if let Some(renumber) = &renumber {
        for (i, p) in polys.iter_mut().enumerate() {
            for x in &mut p.v {
                *x = renumber
                    .get(*x as usize)
                    .copied()
                    .flatten()
                    .ok_or_else(|| {
                        EvalError::malformed(
                            format!("poly face {i}"),
                            format!("corner {x} is a deleted vertex"),
                        )
                    })?;
            }
        }
    }
    Ok((kept, polys, maps, renumber))
}

/// The collapse's renumbering of stored vertices: each live one's index
/// among the live ones in order, None for a dead one; None when none is
/// dead (nothing moves).
pub(super) fn renumbering(vertices: &[Option<Vec3>]) -> Option<Vec<Option<u32>>> {
    let mut next = 0u32;
    let map: Vec<Option<u32>> = vertices
        .iter()
        .map(|v| {
            v.map(|_| {
                next += 1;
                next - 1
            })
        })
        .collect();
    map.iter().any(Option::is_none).then_some(map)
}

#[cfg(test)]
mod tests {
    use super::super::{editable_poly, POLY_CUTS, POLY_EXTRA, POLY_MATERIAL};
    use super::*;
    use crate::chunk::Chunk;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// Vertices 0 and 3 dead (flags alone), 1, 2, 4, 5 live at x = index.
    fn vertices() -> Chunk {
        let mut v = words(&[6]);
        for i in 0..6u32 {
            if i == 0 || i == 3 {
                v.extend(words(&[0x0001_0002]));
            } else {
                v.extend(words(&[0x0001_0000, (i as f32).to_bits(), 0, 0]));
            }
        }
        Chunk::leaf(0x0100, v)
    }

    /// A live triangle (1 2 4), a dead face keeping a degree-4 map face, and
    /// a live quad (1 2 5 4) cut along 0–2, material 3.
    fn geom(dead_corner: Option<u32>) -> Vec<Chunk> {
        let mut f = words(&[3, 3, 1, 2, dead_corner.unwrap_or(4)]);
        f.extend(0u16.to_le_bytes());
        f.extend(words(&[0]));
        f.extend(POLY_EXTRA.to_le_bytes());
        f.extend(words(&[2]));
        f.extend(words(&[4, 1, 2, 5, 4]));
        f.extend((POLY_MATERIAL | POLY_CUTS).to_le_bytes());
        f.extend(3u16.to_le_bytes());
        f.extend(words(&[0, 2]));
        let mut mverts = words(&[3]);
        for i in 0..3u32 {
            mverts.extend(words(&[(i as f32).to_bits(), 0, 0]));
        }
        vec![Chunk::container(
            0x08fe,
            vec![
                vertices(),
                Chunk::leaf(0x011a, f),
                Chunk::leaf(0x0120, words(&[2])),
                Chunk::leaf(0x0124, words(&[1])),
                Chunk::leaf(0x0128, mverts),
                Chunk::leaf(0x012b, words(&[3, 0, 1, 2, 4, 0, 1, 2, 2, 4, 2, 1, 0, 0])),
            ],
        )]
    }

    /// [`geom`] with MNFace's selection flag (MN_SEL, the extra word's bit 0)
    /// on the triangle when `tri`, on the quad when `quad`.
    fn selected(tri: bool, quad: bool) -> Vec<Chunk> {
        let mut f = words(&[3, 3, 1, 2, 4]);
        f.extend(POLY_EXTRA.to_le_bytes());
        f.extend(words(&[u32::from(tri)]));
        f.extend(words(&[0]));
        f.extend(POLY_EXTRA.to_le_bytes());
        // A dead face keeps whatever selection it had: it gives no triangle.
        f.extend(words(&[2 | 1]));
        f.extend(words(&[4, 1, 2, 5, 4]));
        f.extend((POLY_EXTRA | POLY_MATERIAL | POLY_CUTS).to_le_bytes());
        f.extend(words(&[u32::from(quad)]));
        f.extend(3u16.to_le_bytes());
        f.extend(words(&[0, 2]));
        let children = geom(None)[0]
            .children()
            .iter()
            .map(|c| {
                if c.id == 0x011a {
                    Chunk::leaf(0x011a, f.clone())
                } else {
                    c.clone()
                }
            })
            .collect();
        vec![Chunk::container(0x08fe, children)]
    }

    #[test]
    fn selected_polygons_select_their_triangles() {
        // The triangle, then the quad's two triangles, as `editable_poly`
        // builds them; the dead face between gives none.
        for (tri, quad) in [(true, false), (false, true), (true, true), (false, false)] {
            let g = selected(tri, quad);
            let (m, _) = editable_poly(&g).expect("poly with a selection");
            let sel = super::super::poly_selected_triangles(g[0].children()).expect("selection");
            assert_eq!(sel.len(), m.faces.len());
            assert_eq!(sel, [tri, quad, quad], "{tri} {quad}");
        }
        // Per-face records (no 0x011a) keep their flags unread: refused.
        let err = super::super::poly_selected_triangles(&[vertices()]).unwrap_err();
        assert!(err.to_string().contains("per-face records"), "{err}");
    }

    /// The edges of [`geom`]'s two live polygons as stored (vertices 1, 2,
    /// 4, 5) with a dead edge (its flags alone) among them: every reader
    /// gives them renumbered as the vertices were collapsed, whether it
    /// reads the vertex chunk again or takes the renumbering of the buffers.
    #[test]
    fn edges_follow_the_vertex_collapse_in_every_reader() {
        let mut children = geom(None)[0].children().to_vec();
        let stored = [[1, 2], [2, 4], [4, 1], [2, 5], [5, 4]];
        let mut e = words(&[6]);
        for (i, [a, b]) in stored.into_iter().enumerate() {
            if i == 2 {
                e.extend(words(&[MN_DEAD]));
            }
            e.extend(words(&[0, a, b]));
        }
        children.push(Chunk::leaf(0x010a, e));
        let want = vec![[0, 1], [1, 2], [2, 0], [1, 3], [3, 2]];
        assert_eq!(
            super::super::mnmesh_edges(&children).expect("reads"),
            Some(want.clone())
        );
        let poly = super::super::mnmesh(&children).expect("poly");
        assert_eq!(poly.edges, Some(want.clone()));
        let object = [Chunk::container(0x08fe, children)];
        let (polys, edges) = super::super::editable_poly_edges(&object).expect("poly");
        assert_eq!(polys.len(), 2);
        assert_eq!(edges.expect("reads"), Some(want));
    }

    #[test]
    fn dead_vertices_and_faces_are_collapsed() {
        let (m, polys) = editable_poly(&geom(None)).expect("poly with dead parts");
        // Four live vertices, renumbered 1→0, 2→1, 4→2, 5→3.
        let xs: Vec<f64> = m.vertices.iter().map(|v| v.0).collect();
        assert_eq!(xs, [1.0, 2.0, 4.0, 5.0]);
        assert_eq!(polys.len(), 2);
        assert_eq!(polys[0].v, [0, 1, 2]);
        assert_eq!(polys[1].v, [0, 1, 3, 2]);
        assert_eq!(m.faces.len(), 3);
        assert_eq!(m.faces[1].v, [0, 1, 3]);
        assert_eq!(m.faces[1].material, 3);
        // The dead face's map face is dropped with it: the quad keeps its own.
        assert_eq!(m.maps[0].faces, [[0, 1, 2], [2, 1, 0], [0, 0, 2]]);
    }

    #[test]
    fn damaged_dead_records_are_errors() {
        let err = editable_poly(&geom(Some(3))).unwrap_err();
        assert!(
            err.to_string().contains("corner 3 is a deleted vertex"),
            "{err}"
        );
        // A vertex count the records do not fill, and leftover bytes.
        assert!(poly_vertices(&words(&[2, 2]))
            .unwrap_err()
            .to_string()
            .contains("vertex 1"));
        assert!(poly_vertices(&words(&[1, 2, 0]))
            .unwrap_err()
            .to_string()
            .contains("4 bytes left"));
        assert!(poly_vertices(&words(&[9]))
            .unwrap_err()
            .to_string()
            .contains("cannot fit"));
        // A face without corners that is not marked deleted.
        let mut f = words(&[1, 0]);
        f.extend(POLY_EXTRA.to_le_bytes());
        f.extend(words(&[0x20]));
        let err = super::super::poly_faces(&f, 4).unwrap_err();
        assert!(err.to_string().contains("not deleted"), "{err}");
    }
}
