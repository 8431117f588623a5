//! Edit Poly's Create (operation 56) and Target Weld (operation 59), whose
//! operands are stored in the operation's local data (0x0238):
//!
//! - Create (the SDK sample's `LocalCreateData` and `PolyOpCreate::Do`):
//!   0x0600 u32 n and n Point3 new vertices (absent when none), appended in
//!   order; 0x0608 the number of polygons (u32), then per polygon 0x0610 =
//!   u32 its index among them, u32 degree, degree vertex indices. Each
//!   polygon is made as `MNMesh::CreateFace` makes it: appended with material
//!   0 and no smoothing group; a side whose edge already has faces on both
//!   sides, or whose one face already runs it the same way, fails the face,
//!   which is then tried reversed and, failing again, skipped. A map corner
//!   takes the map vertex a face already uses at that vertex, or a new map
//!   vertex (1, 1, 1) when none does (the SDK's `CreateFace` notes).
//! - Target Weld: 0x06c0 u32 n and n source vertices, 0x06c4 u32 n and n
//!   targets. The pairs weld in order, each on the mesh the one before left:
//!   the source goes and the survivors close up (its faces take the target),
//!   and the target keeps its place. A side joining the two collapses; a face
//!   left with two corners dies. Recorded by Edit Poly release 2 (Max
//!   2019.0) the other way round: the source keeps its index, moved onto the
//!   target, and the target goes (Buwaka's Box013 and Box019: only so do
//!   the pairs of successive welds, each its own operation, name vertices a
//!   few units apart, and a Transform after them move one end of a box).
//!
//! Both decoded against what the Unwrap UVW above Chair.max's LowerChairBody
//! saved of its input (every vertex and polygon, in order).

use super::edit_poly_topo::{merge_corners, Refan};
use crate::eval::core::keys::Words;
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// Create: the vertices and polygons its local data records, appended.
pub(super) fn create(poly: &mut PolyMesh, data: &[(u16, Vec<u8>)]) -> Result<(), EvalError> {
    if let Some((id, _)) = data
        .iter()
        .find(|(id, _)| !matches!(id, 0x0600 | 0x0608 | 0x0610))
    {
        return Err(EvalError::not_evaluated(format!("Create record {id:#06x}")));
    }
    let new_vertices = match data.iter().find(|(id, _)| *id == 0x0600) {
        None => Vec::new(),
        Some((_, p)) => points(p)?,
    };
    let count = match data.iter().find(|(id, _)| *id == 0x0608) {
        None => 0,
        Some((_, p)) => {
            let w = words(p, "0x0608")?;
            match w.as_slice() {
                [n] => *n as usize,
                _ => {
                    return Err(EvalError::malformed(
                        "",
                        "Create polygon count of more than a word",
                    ))
                }
            }
        }
    };
    let records: Vec<Vec<u32>> = data
        .iter()
        .filter(|(id, _)| *id == 0x0610)
        .map(|(_, p)| words(p, "0x0610"))
        .collect::<Result<_, _>>()?;
    if records.len() != count {
        return Err(EvalError::malformed(
            "",
            format!("Create of {count} polygons stores {}", records.len()),
        ));
    }
    // Each record names its slot (Max loads it there).
    let mut polygons: Vec<Option<Vec<u32>>> = vec![None; count];
    for w in records {
        let [index, degree, v @ ..] = w.as_slice() else {
            return Err(EvalError::malformed("", "short Create polygon record"));
        };
        let degree = *degree as usize;
        if v.len() != degree || degree < 3 {
            return Err(EvalError::malformed(
                "",
                format!("Create polygon of degree {degree} with {} corners", v.len()),
            ));
        }
        match polygons.get_mut(*index as usize) {
            Some(slot @ None) => *slot = Some(v.to_vec()),
            _ => {
                return Err(EvalError::malformed(
                    "",
                    format!("Create polygon index {index} of {count} (beyond or twice)"),
                ))
            }
        }
    }
    poly.vertices.extend(new_vertices);
    for v in polygons.into_iter().flatten() {
        if let Some(&x) = v.iter().find(|&&x| x as usize >= poly.vertices.len()) {
            return Err(EvalError::malformed(
                "",
                format!("Create polygon on vertex {x} of {}", poly.vertices.len()),
            ));
        }
        let mut seen = v.clone();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != v.len() {
            return Err(EvalError::not_evaluated(format!(
                "Create of polygon {v:?}, which repeats a vertex,"
            )));
        }
        let reversed: Vec<u32> = v.iter().rev().copied().collect();
        let Some(v) = [v, reversed].into_iter().find(|v| fits(poly, v)) else {
            // Neither way round: MNMesh makes no face.
            continue;
        };
        add_face(poly, v)?;
    }
    poly.validate()
}

/// Whether `MNMesh::CreateFace` can add polygon `v` as it runs: no side's
/// edge has faces on both sides, nor one face running it the same way.
fn fits(poly: &PolyMesh, v: &[u32]) -> bool {
    let n = v.len();
    (0..n).all(|j| {
        let (a, b) = (v[j], v[(j + 1) % n]);
        let mut same = 0;
        let mut other = 0;
        for f in &poly.faces {
            let m = f.v.len();
            for k in 0..m {
                let (c, d) = (f.v[k], f.v[(k + 1) % m]);
                same += usize::from((c, d) == (a, b));
                other += usize::from((c, d) == (b, a));
            }
        }
        same == 0 && other <= 1
    })
}

/// Appends polygon `v`: its map faces, its face, its new edges.
fn add_face(poly: &mut PolyMesh, v: Vec<u32>) -> Result<(), EvalError> {
    for m in &mut poly.maps {
        let mut corner = Vec::with_capacity(v.len());
        for &x in &v {
            let used = poly
                .faces
                .iter()
                .zip(&m.faces)
                .find_map(|(f, mf)| f.v.iter().position(|&y| y == x).and_then(|k| mf.get(k)))
                .copied();
            let t = match used {
                Some(t) => t,
                None => {
                    let t = u32::try_from(m.vertices.len())
                        .map_err(|_| EvalError::limit("map vertices", u32::MAX))?;
                    m.vertices.push([1.0; 3]);
                    t
                }
            };
            corner.push(t);
        }
        m.faces.push(corner);
    }
    if let Some(list) = poly.edges.as_mut() {
        let n = v.len();
        for j in 0..n {
            let (a, b) = (v[j], v[(j + 1) % n]);
            if !list
                .iter()
                .any(|e| (e[0] == a && e[1] == b) || (e[0] == b && e[1] == a))
            {
                list.push([a, b]);
            }
        }
    }
    poly.faces.push(PolyFace::fan(v, 0, 0));
    Ok(())
}

/// Create's new vertices (0x0600): u32 n, then n Point3.
fn points(p: &[u8]) -> Result<Vec<Vec3>, EvalError> {
    let w = words(p, "0x0600")?;
    let n = w.first().copied().unwrap_or(0) as usize;
    if w.len() != 1 + 3 * n {
        return Err(EvalError::malformed(
            "",
            format!("Create record 0x0600 of {} bytes for {n} vertices", p.len()),
        ));
    }
    let f = Words(p);
    Ok((0..n)
        .map(|i| Vec3(f.f(1 + 3 * i), f.f(2 + 3 * i), f.f(3 + 3 * i)))
        .collect())
}

/// Target Weld: the (source, target) pairs its local data records.
pub(super) fn target_weld(
    poly: &mut PolyMesh,
    data: &[(u16, Vec<u8>)],
    source_stays: bool,
) -> Result<(), EvalError> {
    let list = |id: u16| -> Result<Vec<u32>, EvalError> {
        let p = data
            .iter()
            .find(|(x, _)| *x == id)
            .map(|(_, p)| p)
            .ok_or_else(|| EvalError::malformed("", format!("Target Weld without {id:#06x}")))?;
        let w = words(p, "Target Weld")?;
        match w.split_first() {
            Some((&n, rest)) if n as usize == rest.len() => Ok(rest.to_vec()),
            _ => Err(EvalError::malformed(
                "",
                format!("Target Weld record {id:#06x} of {} bytes", p.len()),
            )),
        }
    };
    if let Some((id, _)) = data.iter().find(|(id, _)| !matches!(id, 0x06c0 | 0x06c4)) {
        return Err(EvalError::not_evaluated(format!(
            "Target Weld record {id:#06x}"
        )));
    }
    let (sources, targets) = (list(0x06c0)?, list(0x06c4)?);
    if sources.len() != targets.len() {
        return Err(EvalError::malformed(
            "",
            format!(
                "Target Weld of {} sources and {} targets",
                sources.len(),
                targets.len()
            ),
        ));
    }
    if source_stays && sources.len() != 1 {
        // Release 2's 72 public records hold one pair each.
        return Err(EvalError::not_evaluated_why(
            format!(
                "a Target Weld of {} pairs recorded by Edit Poly release 2",
                sources.len()
            ),
            "only records of one pair are checked against Max at that release",
        ));
    }
    // Which edges this leaves and in what order is not derived.
    poly.edges = None;
    for (&s, &t) in sources.iter().zip(&targets) {
        if source_stays {
            let at = poly.vertices.get(t as usize).copied().ok_or_else(|| {
                EvalError::malformed(
                    "",
                    format!("Target Weld onto vertex {t} among {}", poly.vertices.len()),
                )
            })?;
            if let Some(p) = poly.vertices.get_mut(s as usize) {
                *p = at;
            }
            weld_pair(poly, t, s)?;
        } else {
            weld_pair(poly, s, t)?;
        }
    }
    poly.validate()
}

/// Welds vertex `s` onto `t`: faces on `s` take `t`, repeated corners merge,
/// faces left with fewer than three corners die, `s` goes.
fn weld_pair(poly: &mut PolyMesh, s: u32, t: u32) -> Result<(), EvalError> {
    let n = poly.vertices.len();
    if s as usize >= n || t as usize >= n || s == t {
        return Err(EvalError::malformed(
            "",
            format!("Target Weld of vertex {s} onto {t} among {n}"),
        ));
    }
    merge_corners(
        poly,
        |v| if v == s { t } else { v },
        Refan::Shrunk,
        "a Target Weld that pinches face {fi} (a vertex twice)",
    )?;
    poly.vertices.remove(s as usize);
    for f in &mut poly.faces {
        for v in &mut f.v {
            if *v > s {
                *v -= 1;
            }
        }
    }
    Ok(())
}

fn words(p: &[u8], what: &str) -> Result<Vec<u32>, EvalError> {
    if !p.len().is_multiple_of(4) {
        return Err(EvalError::malformed(
            "",
            format!("{what} record of {} bytes", p.len()),
        ));
    }
    let w = Words(p);
    Ok((0..p.len() / 4).map(|i| w.u32(i)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::objects::poly::PolyMap;

    fn u32s(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// Triangle 0-1-2 of a unit square 0-1-2-3 (3 unused), mapped.
    fn half_square() -> PolyMesh {
        let p = |x: f64, y: f64| Vec3(x, y, 0.0);
        PolyMesh {
            vertices: vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)],
            faces: vec![PolyFace::fan(vec![0, 1, 2], 5, 1)],
            maps: vec![PolyMap {
                channel: 1,
                vertices: vec![[0.0; 3], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
                faces: vec![vec![0, 1, 2]],
            }],
            edges: None,
            normals: None,
        }
    }

    #[test]
    fn create_appends_the_recorded_polygon() {
        let mut m = half_square();
        m.maps.clear();
        let data = [(0x0608, u32s(&[1])), (0x0610, u32s(&[0, 3, 0, 2, 3]))];
        create(&mut m, &data).expect("create");
        assert_eq!(m.faces[1].v, [0, 2, 3]);
        assert_eq!((m.faces[1].material, m.faces[1].smoothing), (0, 0));
        // A map corner on a vertex no face maps takes a new map vertex
        // (1, 1, 1), as MNMesh::CreateFace's notes say.
        let mut m = half_square();
        create(&mut m, &data).expect("create");
        assert_eq!(m.maps[0].faces[1], [0, 2, 3]);
        assert_eq!(m.maps[0].vertices[3], [1.0; 3]);
        // Mapped corners take the map vertex a face uses there.
        let mut m = half_square();
        create(
            &mut m,
            &[(0x0608, u32s(&[1])), (0x0610, u32s(&[0, 3, 2, 1, 0]))],
        )
        .expect("create");
        assert_eq!(m.maps[0].faces[1], [2, 1, 0]);
    }

    #[test]
    fn damaged_or_unseen_create_records_are_errors() {
        let bad = [
            vec![(0x0608, u32s(&[2])), (0x0610, u32s(&[0, 3, 0, 2, 3]))],
            vec![(0x0608, u32s(&[1])), (0x0610, u32s(&[0, 4, 0, 2, 3]))],
            vec![(0x0608, u32s(&[1])), (0x0610, u32s(&[0, 3, 0, 2, 9]))],
            vec![(0x0608, u32s(&[1])), (0x0610, vec![0, 0, 0])],
            vec![(0x0610, u32s(&[0, 3, 0, 2, 3]))],
        ];
        for data in bad {
            let mut m = half_square();
            m.maps.clear();
            assert!(create(&mut m, &data).is_err(), "{data:?}");
        }
        // A polygon's index beyond the count, or twice, is damage.
        for data in [
            vec![(0x0608, u32s(&[1])), (0x0610, u32s(&[2, 3, 0, 2, 3]))],
            vec![
                (0x0608, u32s(&[2])),
                (0x0610, u32s(&[0, 3, 0, 2, 3])),
                (0x0610, u32s(&[0, 3, 0, 2, 3])),
            ],
            vec![(0x0600, u32s(&[2, 0, 0]))],
        ] {
            let mut m = half_square();
            assert!(create(&mut m, &data).is_err(), "{data:?}");
        }
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn create_appends_new_vertices_and_polygons_by_their_index() {
        let mut m = half_square();
        m.maps.clear();
        let mut verts = u32s(&[2]);
        verts.extend(f32s(&[2.0, 0.0, 0.0, 2.0, 1.0, 0.5]));
        // Polygon 1 is stored first: it is made second.
        let data = [
            (0x0600, verts),
            (0x0608, u32s(&[2])),
            (0x0610, u32s(&[1, 3, 0, 2, 3])),
            (0x0610, u32s(&[0, 4, 1, 4, 5, 2])),
        ];
        create(&mut m, &data).expect("create");
        assert_eq!(m.vertices.len(), 6);
        assert_eq!(m.vertices[5], Vec3(2.0, 1.0, 0.5));
        assert_eq!(m.faces[1].v, [1, 4, 5, 2]);
        assert_eq!(m.faces[2].v, [0, 2, 3]);
    }

    #[test]
    fn a_polygon_that_cannot_be_made_as_given_is_reversed_or_skipped() {
        // 0-1-2 runs 0→1; a polygon running 0→1 too is made reversed.
        let mut m = half_square();
        m.maps.clear();
        let data = [(0x0608, u32s(&[1])), (0x0610, u32s(&[0, 3, 0, 1, 3]))];
        create(&mut m, &data).expect("create");
        assert_eq!(m.faces[1].v, [3, 1, 0]);
        // Edge 0–1 has faces on both sides now: a third face on it is not made.
        let data = [(0x0608, u32s(&[1])), (0x0610, u32s(&[0, 3, 1, 0, 2]))];
        create(&mut m, &data).expect("create");
        assert_eq!(m.faces.len(), 2);
    }

    /// Two unit quads 0-1-2-3 and 4-5-6-7 whose middle sides coincide (1≡4,
    /// 2≡7) but are not shared, and a triangle 5-8-6 beside them.
    fn split_quads() -> PolyMesh {
        PolyMesh::planar(
            &[
                (0.0, 0.0),
                (1.0, 0.0),
                (1.0, 1.0),
                (0.0, 1.0),
                (1.0, 0.0),
                (2.0, 0.0),
                (2.0, 1.0),
                (1.0, 1.0),
                (2.0, 0.001),
            ],
            &[
                (&[0, 1, 2, 3], 0, 0),
                (&[4, 5, 6, 7], 0, 0),
                (&[5, 8, 6], 0, 0),
            ],
        )
    }

    #[test]
    fn target_weld_takes_the_target_and_closes_up() {
        let mut m = split_quads();
        // 4 onto 1; then (after 4 went) 6 ≡ old 7 onto 2.
        let data = [(0x06c0, u32s(&[2, 4, 6])), (0x06c4, u32s(&[2, 1, 2]))];
        target_weld(&mut m, &data, false).expect("weld");
        assert_eq!(m.vertices.len(), 7);
        assert_eq!(m.faces[1].v, [1, 4, 5, 2]);
        // Welding along a side collapses it; the triangle on it dies and the
        // target keeps its place.
        let mut m = split_quads();
        let data = [(0x06c0, u32s(&[1, 8])), (0x06c4, u32s(&[1, 5]))];
        target_weld(&mut m, &data, false).expect("weld");
        assert_eq!(m.faces.len(), 2);
        assert_eq!(m.vertices.len(), 8);
        assert_eq!(m.vertices[5], Vec3(2.0, 0.0, 0.0));
    }

    #[test]
    fn at_release_2_the_source_stays_and_the_target_goes() {
        // As Buwaka's Box013 (Max 2019): 3 → 17 then 1 → 16, each its own
        // operation, join a box's corners to the nearest corners of another
        // only if the first weld left 16 where it was (the target went).
        // Here 4 → 7, then 0 → 6: 6 is still the vertex it was.
        let mut m = split_quads();
        let weld = |m: &mut PolyMesh, s: u32, t: u32| {
            let data = [(0x06c0, u32s(&[1, s])), (0x06c4, u32s(&[1, t]))];
            target_weld(m, &data, true).expect("weld");
        };
        let (p7, p6) = (m.vertices[7], m.vertices[6]);
        weld(&mut m, 4, 7);
        assert_eq!(m.vertices.len(), 8);
        assert_eq!(m.vertices[4], p7);
        // 6 has not moved: the second pair names it as the first did.
        weld(&mut m, 0, 6);
        assert_eq!(m.vertices.len(), 7);
        assert_eq!(m.vertices[0], p6);
    }

    #[test]
    fn damaged_target_welds_are_errors() {
        let bad = [
            vec![(0x06c0, u32s(&[1, 4])), (0x06c4, u32s(&[2, 1, 2]))],
            vec![(0x06c0, u32s(&[2, 4])), (0x06c4, u32s(&[2, 1, 2]))],
            vec![(0x06c0, u32s(&[1, 4]))],
            vec![(0x06c0, u32s(&[1, 40])), (0x06c4, u32s(&[1, 1]))],
            vec![(0x06c0, u32s(&[1, 4])), (0x06c4, u32s(&[1, 4]))],
        ];
        for data in bad {
            assert!(
                target_weld(&mut split_quads(), &data, false).is_err(),
                "{data:?}"
            );
        }
    }
}
