//! Edit Poly's Create (operation 56) and Target Weld (operation 59), whose
//! operands are stored in the operation's local data (0x0238):
//!
//! - Create: 0x0608 the number of polygons (u32), then per polygon 0x0610 =
//!   u32 0, u32 degree, degree vertex indices. Only polygons on existing
//!   vertices are seen (the leading 0; anything else is refused). The polygon
//!   is appended with material 0 and no smoothing group, as `MNMesh::NewFace`
//!   leaves them.
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
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// Create: the polygons its local data records, appended.
pub(super) fn create(poly: &mut PolyMesh, data: &[(u16, Vec<u8>)]) -> Result<(), EvalError> {
    let count = data
        .iter()
        .find(|(id, _)| *id == 0x0608)
        .map(|(_, p)| words(p, "0x0608"))
        .transpose()?
        .and_then(|w| (w.len() == 1).then(|| w[0] as usize))
        .ok_or_else(|| EvalError::malformed("", "Create without its polygon count (0x0608)"))?;
    let records: Vec<Vec<u32>> = data
        .iter()
        .filter(|(id, _)| *id == 0x0610)
        .map(|(_, p)| words(p, "0x0610"))
        .collect::<Result<_, _>>()?;
    if let Some((id, _)) = data.iter().find(|(id, _)| !matches!(id, 0x0608 | 0x0610)) {
        return Err(EvalError::not_evaluated(format!("Create record {id:#06x}")));
    }
    if records.len() != count {
        return Err(EvalError::malformed(
            "",
            format!("Create of {count} polygons stores {}", records.len()),
        ));
    }
    for w in records {
        if w.len() < 2 {
            return Err(EvalError::malformed("", "short Create polygon record"));
        }
        if w[0] != 0 {
            return Err(EvalError::not_evaluated(format!(
                "Create with {} new vertices",
                w[0]
            )));
        }
        let degree = w[1] as usize;
        let v = w[2..].to_vec();
        if v.len() != degree || degree < 3 {
            return Err(EvalError::malformed(
                "",
                format!("Create polygon of degree {degree} with {} corners", v.len()),
            ));
        }
        if let Some(&x) = v.iter().find(|&&x| x as usize >= poly.vertices.len()) {
            return Err(EvalError::malformed(
                "",
                format!("Create polygon on vertex {x} of {}", poly.vertices.len()),
            ));
        }
        // A map corner takes the map vertex a face already uses at that vertex.
        for m in &mut poly.maps {
            let mut corner = Vec::with_capacity(degree);
            for &x in &v {
                let t = poly
                    .faces
                    .iter()
                    .zip(&m.faces)
                    .find_map(|(f, mf)| f.v.iter().position(|&y| y == x).and_then(|k| mf.get(k)))
                    .copied()
                    .ok_or_else(|| {
                        EvalError::not_evaluated(format!(
                            "Create on vertex {x}, which no face maps in channel {}, is",
                            m.channel
                        ))
                    })?;
                corner.push(t);
            }
            m.faces.push(corner);
        }
        poly.faces.push(PolyFace::fan(v, 0, 0));
    }
    if let Some(list) = poly.edges.as_mut() {
        let mut seen: std::collections::HashSet<(u32, u32)> = list
            .iter()
            .map(|e| (e[0].min(e[1]), e[0].max(e[1])))
            .collect();
        let start = poly.faces.len() - count;
        for f in &poly.faces[start..] {
            let n = f.v.len();
            for j in 0..n {
                let (a, b) = (f.v[j], f.v[(j + 1) % n]);
                if seen.insert((a.min(b), a.max(b))) {
                    list.push([a, b]);
                }
            }
        }
    }
    poly.validate()
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
        // A map corner on a vertex no face maps: refused, not guessed.
        let mut m = half_square();
        let err = create(&mut m, &data).unwrap_err();
        assert!(err.to_string().contains("channel 1"), "{err}");
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
        let mut m = half_square();
        let err = create(
            &mut m,
            &[(0x0608, u32s(&[1])), (0x0610, u32s(&[2, 3, 0, 2, 3]))],
        )
        .unwrap_err();
        assert!(err.to_string().contains("2 new vertices"), "{err}");
    }

    /// Two unit quads 0-1-2-3 and 4-5-6-7 whose middle sides coincide (1≡4,
    /// 2≡7) but are not shared, and a triangle 5-8-6 beside them.
    fn split_quads() -> PolyMesh {
        let p = |x: f64, y: f64| Vec3(x, y, 0.0);
        PolyMesh {
            vertices: vec![
                p(0.0, 0.0),
                p(1.0, 0.0),
                p(1.0, 1.0),
                p(0.0, 1.0),
                p(1.0, 0.0),
                p(2.0, 0.0),
                p(2.0, 1.0),
                p(1.0, 1.0),
                p(2.0, 0.001),
            ],
            faces: vec![
                PolyFace::fan(vec![0, 1, 2, 3], 0, 0),
                PolyFace::fan(vec![4, 5, 6, 7], 0, 0),
                PolyFace::fan(vec![5, 8, 6], 0, 0),
            ],
            maps: Vec::new(),
            edges: None,
            normals: None,
        }
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
