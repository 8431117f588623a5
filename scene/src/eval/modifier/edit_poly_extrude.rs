//! Edit Poly operations built on face-cluster extrusion: Inset, Extrude Face
//! and the extrusion Max 2017+ records for a Shift-move of faces (operation 91,
//! its move following as a Transform).
//!
//! Topology, as decoded from Max's own caches (the geometry Unwrap UVW saves of
//! its input and the FBX of the same scenes, PictureFrame.max): each selected
//! face's corners get new vertices, appended in corner order; the face keeps
//! its index and takes the new corners; for each side j a quad
//! [v(j), v(j+1), new(j+1), new(j)] is appended, in corner order, with the
//! face's material and no smoothing group (the FBX normals of extruded walls
//! are flat where a shared group would have smoothed them with the face).
//! Map channels: each corner's map vertex is copied for the new corner, and
//! the side quad's map face runs over the old and the copied map vertices (the
//! walls' texture is stretched from the border, as in Max).
//!
//! A cluster of several adjacent faces extruded as a group follows the same
//! rule along its border (`edit_poly_extrude_group`), moved as one or along
//! local normals; Inset of such a cluster is refused.

use std::collections::HashMap;

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

use super::edit_poly_extrude_group::{self as group, Group};
use super::edit_poly_topo::{check_selection, required_normal};

/// What an extrusion made: per one-face cluster (in order) its new corners,
/// and the clusters of several faces extruded as groups.
pub(super) struct Extruded {
    /// (face, its vertices before the extrusion) per extruded face.
    pub faces: Vec<(usize, Vec<u32>)>,
    pub groups: Vec<Group>,
}

/// The selected faces as clusters (each face its own when `by_polygon`),
/// ordered by their lowest face.
fn face_clusters(
    poly: &PolyMesh,
    sel: &[bool],
    by_polygon: bool,
) -> Result<Vec<Vec<usize>>, EvalError> {
    check_selection(sel, poly.faces.len(), "faces")?;
    let chosen: Vec<usize> = (0..poly.faces.len())
        .filter(|&i| sel.get(i).copied().unwrap_or(false))
        .collect();
    if by_polygon {
        return Ok(chosen.into_iter().map(|f| vec![f]).collect());
    }
    Ok(group::clusters(poly, &chosen))
}

/// What stays known of MNMesh's numbering through extrusions, which only
/// append: the edge list as it last was known (those edges keep their
/// indices; Mug.max's Chamfer Edge after an Inset and an extrusion selects
/// among them), and per face an extrusion made the side its loop started at.
#[derive(Debug, Default)]
pub(super) struct Known {
    pub prefix: Option<Vec<[u32; 2]>>,
    pub starts: HashMap<usize, usize>,
    /// The faces the last move extrusion (operation 91) selected, until its
    /// end record (92) names them again.
    pub moved: Option<Vec<usize>>,
}

/// MNMesh's edge numbering before an extrusion, as far as it is known: the
/// whole list, or only the edges earlier extrusions kept (they keep their
/// indices and every edge an extrusion adds comes after them, so the lowest
/// of them is the lowest of all wherever a face has one).
#[derive(Debug, Clone, Copy)]
pub(super) enum Numbering<'a> {
    Whole(&'a [[u32; 2]]),
    Prefix(&'a [[u32; 2]]),
}

impl Numbering<'_> {
    /// The position in `sides` of the side with the lowest edge index; None
    /// when only a prefix is known and no side is in it.
    pub(super) fn lowest(&self, sides: &[(u32, u32)]) -> Result<Option<usize>, EvalError> {
        let (Self::Whole(edges) | Self::Prefix(edges)) = *self;
        let index: HashMap<(u32, u32), usize> = edges
            .iter()
            .enumerate()
            .map(|(i, e)| ((e[0].min(e[1]), e[0].max(e[1])), i))
            .collect();
        let mut best: Option<(usize, usize)> = None;
        for (j, &(a, b)) in sides.iter().enumerate() {
            match index.get(&(a.min(b), a.max(b))) {
                Some(&i) if best.is_none_or(|(k, _)| i < k) => best = Some((i, j)),
                Some(_) => {}
                None if matches!(self, Self::Whole(_)) => {
                    return Err(EvalError::malformed(
                        "",
                        format!("side {a}-{b} is not in the edge list"),
                    ))
                }
                None => {}
            }
        }
        Ok(best.map(|(_, j)| j))
    }
}

/// The side an extrusion of `face` starts its loop at: the side whose edge
/// has the lowest index, when the numbering before the operation is known
/// (Max's extrusion walks the cluster's border from there: Mug.max's top cap,
/// whose side 0 was numbered last, starts at side 1, as Unwrap UVW's cache of
/// the result shows; PictureFrame.max's box faces at side 0), or when some of
/// its sides are edges earlier extrusions kept (Lantern.max's seven single-face
/// Insets on its lathe's polygons, the FBX of the scene numbering the new
/// corners of the second to the last from the side numbered first). After an
/// extrusion made the face, its new sides were numbered from its start, so
/// the next one starts there too (Mug's extrusion after its Inset). ccharri's
/// Rocket.max extrudes cylinder side quads after five Bevels from their lowest
/// kept side, as its 3DS export shows. Otherwise side 0, which nothing
/// confirms.
fn start_side(
    v: &[u32],
    face: usize,
    numbering: Option<Numbering>,
    known: &Known,
) -> Result<usize, EvalError> {
    let n = v.len();
    let sides: Vec<(u32, u32)> = (0..n).map(|j| (v[j], v[(j + 1) % n])).collect();
    let lowest = match numbering {
        Some(numbering) => numbering
            .lowest(&sides)
            .map_err(|e| e.inside(format!("face {face}")))?,
        None => None,
    };
    Ok(lowest.unwrap_or_else(|| known.starts.get(&face).copied().unwrap_or(0)))
}

/// The first cluster of more than one selected face, if any.
pub(super) fn first_group(poly: &PolyMesh, sel: &[bool]) -> Result<Option<Vec<usize>>, EvalError> {
    Ok(face_clusters(poly, sel, false)?
        .into_iter()
        .find(|c| c.len() > 1))
}

/// Extrudes the selected faces with zero height: the new vertices sit on the
/// old ones. `before` is MNMesh's edge list before the operation, when known.
pub(super) fn extrude_faces(
    poly: &mut PolyMesh,
    sel: &[bool],
    by_polygon: bool,
    before: Option<&[[u32; 2]]>,
    known: &mut Known,
) -> Result<Extruded, EvalError> {
    let clusters = face_clusters(poly, sel, by_polygon)?;
    let prefix = known.prefix.clone();
    let numbering = match (before, &prefix) {
        (Some(edges), _) => Some(Numbering::Whole(edges)),
        (None, Some(edges)) => Some(Numbering::Prefix(edges)),
        (None, None) => None,
    };
    let mut out = Extruded {
        faces: Vec::new(),
        groups: Vec::new(),
    };
    for cluster in &clusters {
        if let [fi] = cluster[..] {
            out.faces
                .push((fi, extrude_one(poly, fi, numbering, known)?));
        } else {
            for f in cluster {
                known.starts.remove(f);
            }
            out.groups
                .push(group::extrude_group(poly, cluster, numbering)?);
        }
    }
    poly.validate()?;
    Ok(out)
}

/// Extrudes face `fi` alone; returns its vertices before.
fn extrude_one(
    poly: &mut PolyMesh,
    fi: usize,
    numbering: Option<Numbering>,
    known: &mut Known,
) -> Result<Vec<u32>, EvalError> {
    let old = poly.faces[fi].v.clone();
    let n = old.len();
    let start = start_side(&old, fi, numbering, known)?;
    known.starts.insert(fi, start);
    // Corners in the order the loop meets them.
    let order: Vec<usize> = (0..n).map(|k| (start + k) % n).collect();
    let base =
        u32::try_from(poly.vertices.len()).map_err(|_| EvalError::limit("vertices", u32::MAX))?;
    for &j in &order {
        let p = poly.vertices[old[j] as usize];
        poly.vertices.push(p);
    }
    let new: Vec<u32> = (0..n)
        .map(|j| base + ((j + n - start) % n) as u32)
        .collect();
    let material = poly.faces[fi].material;
    poly.faces[fi].v = new.clone();
    for &j in &order {
        let k = (j + 1) % n;
        poly.faces.push(PolyFace::fan(
            vec![old[j], old[k], new[k], new[j]],
            material,
            0,
        ));
    }
    for m in &mut poly.maps {
        let mf = m.face(fi)?.clone();
        let mbase = u32::try_from(m.vertices.len())
            .map_err(|_| EvalError::limit("map vertices", u32::MAX))?;
        for &j in &order {
            let t = *mf.get(j).ok_or_else(|| {
                EvalError::malformed(format!("map {}", m.channel), "damaged map face")
            })?;
            let uv = *m.vertices.get(t as usize).ok_or_else(|| {
                EvalError::malformed(format!("map {}", m.channel), "damaged map face")
            })?;
            m.vertices.push(uv);
        }
        let mnew: Vec<u32> = (0..n)
            .map(|j| mbase + ((j + n - start) % n) as u32)
            .collect();
        m.faces[fi] = mnew.clone();
        for &j in &order {
            let k = (j + 1) % n;
            m.faces.push(vec![mf[j], mf[k], mnew[k], mnew[j]]);
        }
    }
    Ok(old)
}

/// Extrude Face: each one-face cluster moves along its face's normal by
/// `height`, each group (type "group") along its faces' average normal, each
/// group of type "local normal" vertex by vertex (`group::local_moves`).
/// Returns what the extrusion made.
pub(super) fn extrude(
    poly: &mut PolyMesh,
    sel: &[bool],
    height: f64,
    by_polygon: bool,
    local_normals: bool,
    before: Option<&[[u32; 2]]>,
    known: &mut Known,
) -> Result<Extruded, EvalError> {
    let done = extrude_faces(poly, sel, by_polygon, before, known)?;
    for (fi, old) in &done.faces {
        let d = required_normal(poly, old, format_args!("face {old:?}"))?.scale(height);
        for &v in &poly.faces[*fi].v.clone() {
            let p = &mut poly.vertices[v as usize];
            *p = p.plus(d);
        }
    }
    for g in &done.groups {
        if local_normals {
            for (v, d) in group::local_moves(poly, g, height)? {
                let p = &mut poly.vertices[v as usize];
                *p = p.plus(d);
            }
            continue;
        }
        let d = g.normal.clone()?.scale(height);
        for &v in &g.vertices {
            let p = &mut poly.vertices[v as usize];
            *p = p.plus(d);
        }
    }
    Ok(done)
}

/// Inset: each face's new corners move inwards in the face's plane so that
/// every new side is parallel to the old one at distance `amount` (the miter
/// point of the two neighbouring sides' inward normals n1, n2:
/// amount · (n1 + n2) / (1 + n1·n2)).
pub(super) fn inset(
    poly: &mut PolyMesh,
    sel: &[bool],
    amount: f64,
    by_polygon: bool,
    before: Option<&[[u32; 2]]>,
    known: &mut Known,
) -> Result<(), EvalError> {
    if !by_polygon {
        if let Some(c) = first_group(poly, sel)? {
            return Err(EvalError::not_evaluated(format!(
                "an inset of the group of faces {c:?}"
            )));
        }
    }
    let done = extrude_faces(poly, sel, by_polygon, before, known)?;
    for (fi, old) in &done.faces {
        offset_border(poly, *fi, old, amount)?;
    }
    Ok(())
}

/// Moves face `fi`'s corners (extruded from `old`) in the plane of `old` so
/// that every side is parallel to its old one at distance `amount` inwards
/// (negative: outwards): the miter point of the two neighbouring sides'
/// inward normals n1, n2, amount · (n1 + n2) / (1 + n1·n2). This is the
/// SDK's outline direction (`MNFaceClusters::GetOutlineVectors`: "moving
/// along them moves the cluster's border edges by one unit", √2 long at a
/// right angle), reversed.
pub(super) fn offset_border(
    poly: &mut PolyMesh,
    fi: usize,
    old: &[u32],
    amount: f64,
) -> Result<(), EvalError> {
    let nrm = required_normal(poly, old, format_args!("face {old:?}"))?;
    let corners: Vec<Vec3> = old.iter().map(|&i| poly.vertices[i as usize]).collect();
    let moves = miter_moves(&corners, |_| Ok(nrm), amount, || format!("face {fi}"))?;
    let new = poly.faces[fi].v.clone();
    for (&v, d) in new.iter().zip(moves) {
        let p = &mut poly.vertices[v as usize];
        *p = p.plus(d);
    }
    Ok(())
}

/// The moves that put every side of the closed loop `corners` parallel to
/// itself at distance `amount` inwards, side j (corner j to j + 1) across
/// the plane of normal `side_normal(j)` (the loop running counter-clockwise
/// about it): at each corner the miter point of its two sides' unit inward
/// normals n1, n2, amount · (n1 + n2) / (1 + n1·n2), which moves both sides
/// by `amount`. `at` names the loop in errors.
pub(super) fn miter_moves(
    corners: &[Vec3],
    side_normal: impl Fn(usize) -> Result<Vec3, EvalError>,
    amount: f64,
    at: impl Fn() -> String,
) -> Result<Vec<Vec3>, EvalError> {
    let n = corners.len();
    let inward: Vec<Vec3> = (0..n)
        .map(|j| {
            let side = side_normal(j)?.cross(corners[(j + 1) % n].minus(corners[j]));
            let l = side.len();
            if l > 0.0 {
                Ok(side.scale(1.0 / l))
            } else {
                Err(EvalError::malformed(
                    at(),
                    format!("side {j} has no length"),
                ))
            }
        })
        .collect::<Result<_, EvalError>>()?;
    (0..n)
        .map(|j| {
            let (a, b) = (inward[(j + n - 1) % n], inward[j]);
            let denom = 1.0 + a.dot(b);
            if denom.abs() < 1e-9 {
                Err(EvalError::malformed(at(), "a corner folds back on itself"))
            } else {
                Ok(a.plus(b).scale(amount / denom))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::PolyMap;

    fn square() -> PolyMesh {
        PolyMesh {
            maps: vec![PolyMap {
                channel: 1,
                vertices: vec![
                    [0.0; 3],
                    [1.0, 0.0, 0.0],
                    [1.0; 3],
                    [0.0, 1.0, 0.0],
                    [2.0, 0.0, 0.0],
                ],
                faces: vec![vec![0, 1, 2, 3], vec![1, 4, 2]],
            }],
            ..PolyMesh::planar(
                &[(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0), (3.0, 0.0)],
                &[(&[0, 1, 2, 3], 7, 1), (&[1, 4, 2], 3, 1)],
            )
        }
    }

    #[test]
    fn inset_appends_corners_and_side_quads_in_corner_order() {
        let mut m = square();
        inset(
            &mut m,
            &[true, false],
            0.5,
            false,
            None,
            &mut Known::default(),
        )
        .expect("inset");
        assert_eq!(m.vertices.len(), 9);
        assert_eq!(m.faces[0].v, [5, 6, 7, 8]);
        assert_eq!(m.faces[2].v, [0, 1, 6, 5]);
        assert_eq!(m.faces[5].v, [3, 0, 5, 8]);
        assert!(m.faces[2..]
            .iter()
            .all(|f| f.material == 7 && f.smoothing == 0));
        assert_eq!(m.vertices[5], Vec3(0.5, 0.5, 0.0));
        assert_eq!(m.vertices[7], Vec3(1.5, 1.5, 0.0));
        assert_eq!(m.maps[0].faces[0], [5, 6, 7, 8]);
        assert_eq!(m.maps[0].faces[3], [1, 2, 7, 6]);
        assert_eq!(m.maps[0].vertices[7], [1.0; 3]);
    }

    #[test]
    fn inset_by_polygon_insets_adjacent_faces_each_on_its_own() {
        // The square and the triangle share side 1–2: a group inset of both
        // is refused, by polygon each face takes its own new corners, the
        // square's first.
        let mut m = square();
        inset(
            &mut m,
            &[true, true],
            0.5,
            true,
            None,
            &mut Known::default(),
        )
        .expect("inset");
        assert_eq!(m.vertices.len(), 12);
        assert_eq!(m.faces.len(), 9);
        assert_eq!(m.faces[0].v, [5, 6, 7, 8]);
        assert_eq!(m.faces[1].v, [9, 10, 11]);
        assert_eq!(m.faces[6].v, [1, 4, 10, 9]);
        assert_eq!(m.vertices[6], Vec3(1.5, 0.5, 0.0));
        // Side 1–2 of the triangle (x = 2) is 0.5 away from its new side.
        assert!((m.vertices[11].0 - 2.5).abs() < 1e-12);
        assert!((m.vertices[9].0 - 2.5).abs() < 1e-12);
    }

    #[test]
    fn inset_keeps_sides_parallel_at_the_distance() {
        // A triangle: each new side is 0.1 inside its old one.
        let p = |x: f64, y: f64| Vec3(x, y, 0.0);
        let mut m = PolyMesh {
            vertices: vec![p(0.0, 0.0), p(4.0, 0.0), p(1.0, 3.0)],
            faces: vec![PolyFace::fan(vec![0, 1, 2], 0, 0)],
            maps: Vec::new(),
            edges: None,
            normals: None,
        };
        inset(&mut m, &[true], 0.1, false, None, &mut Known::default()).expect("inset");
        for j in 0..3 {
            let (a, b) = (m.vertices[j], m.vertices[(j + 1) % 3]);
            let inward = Vec3(0.0, 0.0, 1.0).cross(b.minus(a)).normalized();
            for new in [m.vertices[3 + j], m.vertices[3 + (j + 1) % 3]] {
                assert!((new.minus(a).dot(inward) - 0.1).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn extrude_moves_along_the_normal_and_refuses_open_groups() {
        let mut m = square();
        extrude(
            &mut m,
            &[true, false],
            -2.0,
            false,
            false,
            None,
            &mut Known::default(),
        )
        .expect("extrude");
        assert_eq!(m.vertices[5], Vec3(0.0, 0.0, -2.0));
        // A face without area has no normal: an error, not a guess.
        let mut flat = square();
        flat.vertices[2] = Vec3(1.0, 1.0, 0.0);
        flat.vertices[3] = Vec3(1.0, 1.0, 0.0);
        flat.vertices[1] = Vec3(2.0, 2.0, 0.0);
        assert!(extrude(
            &mut flat,
            &[true, false],
            1.0,
            false,
            false,
            None,
            &mut Known::default()
        )
        .is_err());
        assert!(inset(
            &mut square(),
            &[true, false, true],
            0.1,
            false,
            None,
            &mut Known::default()
        )
        .is_err());
        // Two selected faces sharing an edge form one group, here with an
        // open border (walls not derived); an inset of a group is refused.
        assert!(inset(
            &mut square(),
            &[true, true],
            0.1,
            false,
            None,
            &mut Known::default()
        )
        .is_err());
        assert!(extrude(
            &mut square(),
            &[true, true],
            1.0,
            false,
            false,
            None,
            &mut Known::default()
        )
        .is_err());
        let mut m = square();
        extrude(
            &mut m,
            &[true, true],
            1.0,
            true,
            false,
            None,
            &mut Known::default(),
        )
        .expect("by polygon");
        assert_eq!(m.vertices.len(), 5 + 4 + 3);
        assert_eq!(m.faces.len(), 2 + 4 + 3);
    }

    #[test]
    fn the_loop_starts_at_the_lowest_numbered_side() {
        // Side 1 (1 → 2) numbered first: the new corners and walls start there.
        let mut m = square();
        let edges = [[1, 2], [0, 1], [2, 3], [3, 0], [1, 4], [4, 2]];
        let mut known = Known::default();
        extrude_faces(&mut m, &[true, false], false, Some(&edges), &mut known).expect("extrude");
        assert_eq!(m.faces[0].v, [8, 5, 6, 7]);
        assert_eq!(m.faces[2].v, [1, 2, 6, 5]);
        assert_eq!(m.maps[0].faces[0], [8, 5, 6, 7]);
        // The next extrusion of the face, numbering unknown, starts there too.
        extrude_faces(
            &mut m,
            &[true, false, false, false, false, false],
            false,
            None,
            &mut known,
        )
        .expect("again");
        assert_eq!(m.faces[0].v, [12, 9, 10, 11]);
        assert_eq!(known.starts[&0], 1);
    }

    #[test]
    fn a_later_extrusion_starts_at_its_lowest_side_among_the_kept_edges() {
        // Two single-face insets in a row, as Lantern.max's lathe records
        // them: after the first, only the edges it kept are numbered, and the
        // second face's side 2 → 1 (edge 0, shared with the first face) is
        // still the lowest, so its new corners start at vertex 2.
        let mut m = square();
        let edges = [[1, 2], [0, 1], [2, 3], [3, 0], [1, 4], [4, 2]];
        let mut known = Known {
            prefix: Some(edges.to_vec()),
            ..Known::default()
        };
        extrude_faces(&mut m, &[true, false], false, Some(&edges), &mut known).expect("first");
        assert_eq!(m.faces[0].v, [8, 5, 6, 7]);
        let second = [false, true, false, false, false, false];
        extrude_faces(&mut m, &second, false, None, &mut known).expect("second");
        assert_eq!(m.faces[1].v, [10, 11, 9]);
        assert_eq!(m.faces[6].v, [2, 1, 10, 9]);
        assert_eq!(m.vertices[9], m.vertices[2]);
        // With no side among the kept edges, a face keeps its own start.
        let mut lone = square();
        let mut known = Known {
            prefix: Some(vec![[0, 1], [2, 3]]),
            ..Known::default()
        };
        extrude_faces(&mut lone, &[false, true], false, None, &mut known).expect("lone");
        assert_eq!(lone.faces[1].v, [5, 6, 7]);
    }

    #[test]
    fn a_kept_prefix_orders_untouched_faces_and_not_extruded_ones() {
        // Side 1 (1 → 2) numbered first, then the numbering lost (an
        // extrusion of the triangle made new edges): the square, all of whose
        // sides are in the kept prefix, still starts at side 1.
        let mut m = square();
        let known_edges = vec![[1, 2], [0, 1], [2, 3], [3, 0], [1, 4], [4, 2]];
        let mut known = Known {
            prefix: Some(known_edges),
            ..Known::default()
        };
        extrude_faces(&mut m, &[true, false], false, None, &mut known).expect("extrude");
        assert_eq!(m.faces[0].v, [8, 5, 6, 7]);
        // Its new sides are not in the prefix: the start it took is kept.
        extrude_faces(
            &mut m,
            &[true, false, false, false, false, false],
            false,
            None,
            &mut known,
        )
        .expect("again");
        assert_eq!(m.faces[0].v, [12, 9, 10, 11]);
        // A side missing from the prefix was made after it, so it numbers
        // above every kept edge: the lowest kept side still starts the loop.
        let mut m = square();
        let mut known = Known {
            prefix: Some(vec![[1, 2], [0, 1]]),
            ..Known::default()
        };
        extrude_faces(&mut m, &[true, false], false, None, &mut known).expect("extrude");
        assert_eq!(m.faces[0].v, [8, 5, 6, 7]);
    }

    /// A 32-sided prism of radius 5.8 and height 10: bottom cap (face 0),
    /// band (faces 1–32), top cap (face 33).
    fn prism() -> PolyMesh {
        let n = 32u32;
        let mut vertices = Vec::new();
        for z in [0.0, 10.0] {
            for k in 0..n {
                let a = f64::from(k) * std::f64::consts::TAU / f64::from(n);
                vertices.push(Vec3(5.8 * a.cos(), 5.8 * a.sin(), z));
            }
        }
        let mut faces = vec![PolyFace::fan((0..n).rev().collect(), 1, 1)];
        for k in 0..n {
            let j = (k + 1) % n;
            faces.push(PolyFace::fan(vec![k, j, n + j, n + k], 2, 8));
        }
        faces.push(PolyFace::fan((n..2 * n).collect(), 1, 1));
        PolyMesh {
            vertices,
            faces,
            maps: Vec::new(),
            edges: None,
            normals: None,
        }
    }

    #[test]
    fn a_local_normal_band_keeps_each_face_plane_at_the_height() {
        // Buwaka's Door6 Cylinder001 (32 sides, radius 5.8): its band
        // extruded along local normals by 0.65743 (f32 0x3f284d56); the
        // Unwrap UVW above its Edit Poly holds the moved rim vertices at
        // (6.460611, 0, 0) and (4.5683417, 4.5683417, 0).
        // Its rim vertices (on two band faces each) move to where both faces'
        // planes are the height out; vertex 0 is at angle 0, vertex 4 at 45°.
        // (Which of the band's two border loops Max numbers first is not
        // known, so the band is moved here without its extrusion.)
        let m = prism();
        let g = Group {
            vertices: (0..64).collect(),
            normal: Ok(Vec3::default()),
            faces: (1..=32).collect(),
            border: Vec::new(),
        };
        let moves = group::local_moves(&m, &g, 0.6574300527572632).expect("moves");
        for (v, want) in [
            (0, Vec3(6.460611, 0.0, 0.0)),
            (4, Vec3(4.5683417, 4.5683417, 0.0)),
        ] {
            let (_, d) = moves[v];
            let got = m.vertices[v].plus(d);
            assert!(got.minus(want).len() < 1e-5, "vertex {v}: {got:?}");
        }
        // A vertex on three faces that are not coplanar is refused.
        let corner = Group {
            vertices: vec![0],
            normal: Ok(Vec3::default()),
            faces: vec![0, 1, 32],
            border: Vec::new(),
        };
        assert!(group::local_moves(&m, &corner, 1.0).is_err());
    }
}
