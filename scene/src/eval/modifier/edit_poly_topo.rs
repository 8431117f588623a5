//! Edit Poly operations that change the polygon mesh's topology: Delete Face,
//! Attach (the attached object's polygon mesh is stored in the operation's local
//! data) and Weld Vertex. Each works as MNMesh does: removed faces and vertices
//! are dropped and the survivors keep their order (`MNMesh::CollapseDeadStructs`),
//! attached vertices, faces, map data and specified normals are appended
//! after the mesh's own.

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMap, PolyMesh};
use crate::eval::objects::poly_normals::PolyNormals;

/// A selection saved with an operation must be sized to what it selects in the
/// mesh the operation saw (an empty selection is saved empty); otherwise the
/// replay has rebuilt a different mesh than Max did, which is this
/// evaluation's shortfall, not damage: the node is named as not evaluated.
pub(super) fn check_selection(sel: &[bool], n: usize, what: &str) -> Result<(), EvalError> {
    if !sel.is_empty() && sel.len() != n {
        return Err(EvalError::not_evaluated_why(
            format!(
                "the mesh it was recorded on (its selection has {} {what}, the replayed mesh {n})",
                sel.len()
            ),
            "the mesh rebuilt below it differs from the one Max recorded the operation on",
        ));
    }
    Ok(())
}

/// The indices of the `n` elements `sel` selects, once `check_selection`
/// passes (an empty selection selects none).
pub(super) fn selected_indices(
    sel: &[bool],
    n: usize,
    what: &str,
) -> Result<Vec<usize>, EvalError> {
    check_selection(sel, n, what)?;
    Ok((0..n).filter(|&i| selected(sel, i)).collect())
}

/// Every side of `faces` as a directed pair (a, b), a walking to b: an
/// edge (a, b) is on a face when (a, b) or (b, a) is among them.
pub(super) fn directed_sides<'a>(
    faces: impl IntoIterator<Item = &'a PolyFace>,
) -> std::collections::HashSet<(u32, u32)> {
    faces
        .into_iter()
        .flat_map(|f| {
            let n = f.v.len();
            (0..n).map(move |j| (f.v[j], f.v[(j + 1) % n]))
        })
        .collect()
}

fn selected(sel: &[bool], i: usize) -> bool {
    sel.get(i).copied().unwrap_or(false)
}

/// Deletes the selected faces (and their map faces). With `isolated` the vertices
/// only those faces used go too; vertices no face used before are kept either
/// way, as they are not the operation's doing.
pub(super) fn delete_faces(
    poly: &mut PolyMesh,
    sel: &[bool],
    isolated: bool,
) -> Result<(), EvalError> {
    check_selection(sel, poly.faces.len(), "faces")?;
    let used_before = poly.used_vertices();
    let keep: Vec<bool> = (0..poly.faces.len()).map(|i| !selected(sel, i)).collect();
    // Specified normals go with their faces (the pool keeps the rest).
    poly.retain_faces(&keep);
    // Edges left without a face die; the survivors keep their order. An edge
    // runs v1 → v2 as its first face (f1) walks it: one whose f1 went is
    // turned round to follow the face left (Table.max's Insert Vertex Edge
    // proportions after its Delete Face put the new vertices in one plane
    // only so).
    if let Some(edges) = poly.edges.as_mut() {
        let sides = directed_sides(&poly.faces);
        edges.retain(|e| sides.contains(&(e[0], e[1])) || sides.contains(&(e[1], e[0])));
        for e in edges.iter_mut() {
            if !sides.contains(&(e[0], e[1])) {
                e.swap(0, 1);
            }
        }
    }
    if isolated {
        let used_after = poly.used_vertices();
        let keep_v: Vec<bool> = used_before
            .iter()
            .zip(&used_after)
            .map(|(&before, &after)| after || !before)
            .collect();
        remove_vertices(poly, &keep_v);
    }
    Ok(())
}

/// Delete Edge: the faces on any selected edge (MNMesh's numbering) go, as
/// Delete Face would delete them. The SDK sample's `PolyOpDeleteEdge::Do` is
/// `PolyOpDeleteFace::Do` with the faces flagged from the edges
/// (`PropegateComponentFlags` from edges to faces) instead of selected.
pub(super) fn delete_edges(
    poly: &mut PolyMesh,
    sel: &[bool],
    isolated: bool,
) -> Result<(), EvalError> {
    let edges = poly.mn_edges()?;
    check_selection(sel, edges.len(), "edges")?;
    let chosen: std::collections::HashSet<(u32, u32)> = edges
        .iter()
        .enumerate()
        .filter(|&(i, _)| selected(sel, i))
        .map(|(_, e)| (e[0].min(e[1]), e[0].max(e[1])))
        .collect();
    let faces: Vec<bool> = poly
        .faces
        .iter()
        .map(|f| {
            let n = f.v.len();
            (0..n).any(|j| {
                let (a, b) = (f.v[j], f.v[(j + 1) % n]);
                chosen.contains(&(a.min(b), a.max(b)))
            })
        })
        .collect();
    delete_faces(poly, &faces, isolated)
}

/// Delete Vertex: the faces on any selected vertex go as Delete Face would
/// delete them, and the selected vertices with them (used or not); with
/// `isolated`, so do the vertices only those faces used. The SDK sample's
/// `PolyOpDeleteVertex::Do`.
pub(super) fn delete_vertices(
    poly: &mut PolyMesh,
    sel: &[bool],
    isolated: bool,
) -> Result<(), EvalError> {
    check_selection(sel, poly.vertices.len(), "vertices")?;
    let used_before = poly.used_vertices();
    let faces: Vec<bool> = poly
        .faces
        .iter()
        .map(|f| f.v.iter().any(|&v| selected(sel, v as usize)))
        .collect();
    delete_faces(poly, &faces, false)?;
    let used_after = poly.used_vertices();
    let keep: Vec<bool> = (0..poly.vertices.len())
        .map(|v| !selected(sel, v) && (used_after[v] || !used_before[v] || !isolated))
        .collect();
    remove_vertices(poly, &keep);
    Ok(())
}

/// Drops the vertices not kept, renumbering faces to the survivors (in order).
pub(super) fn remove_vertices(poly: &mut PolyMesh, keep: &[bool]) {
    let mut new_index = vec![u32::MAX; poly.vertices.len()];
    let mut next = 0u32;
    for (i, &k) in keep.iter().enumerate() {
        if k {
            new_index[i] = next;
            next += 1;
        }
    }
    let mut k = keep.iter();
    poly.vertices.retain(|_| *k.next().unwrap_or(&true));
    for f in &mut poly.faces {
        for v in &mut f.v {
            *v = new_index[*v as usize];
        }
    }
    for e in poly.edges.iter_mut().flatten() {
        *e = e.map(|v| new_index[v as usize]);
    }
    // An edge on a dropped vertex: the numbering no longer follows the mesh.
    if poly
        .edges
        .as_ref()
        .is_some_and(|edges| edges.iter().flatten().any(|&v| v == u32::MAX))
    {
        poly.edges = None;
    }
}

/// Appends an attached polygon mesh. Map channels are joined channel by
/// channel; a channel only one side has would need Max's default map faces for
/// the other and is refused.
pub(super) fn attach(poly: &mut PolyMesh, other: PolyMesh) -> Result<(), EvalError> {
    let mut ours: Vec<i32> = poly.maps.iter().map(|m| m.channel).collect();
    let mut theirs: Vec<i32> = other.maps.iter().map(|m| m.channel).collect();
    ours.sort_unstable();
    theirs.sort_unstable();
    if ours != theirs {
        return Err(EvalError::not_evaluated_why(
            format!("attaching a mesh with map channels {theirs:?} to one with {ours:?}"),
            "the default map faces Max gives the side lacking a channel are not built",
        ));
    }
    let base =
        u32::try_from(poly.vertices.len()).map_err(|_| EvalError::limit("vertices", u32::MAX))?;
    // The attached mesh's edges follow the mesh's own, when both are known.
    poly.edges = match (poly.edges.take(), &other.edges) {
        (Some(mut ours), Some(theirs)) => {
            ours.extend(theirs.iter().map(|e| e.map(|v| v + base)));
            Some(ours)
        }
        _ => None,
    };
    // Specified normals: the side without any takes none on its corners.
    poly.normals = match (poly.normals.take(), other.normals) {
        (None, None) => None,
        (ours, theirs) => {
            let mut ours = ours
                .unwrap_or_else(|| PolyNormals::unspecified(poly.faces.iter().map(|f| f.v.len())));
            ours.append(theirs.unwrap_or_else(|| {
                PolyNormals::unspecified(other.faces.iter().map(|f| f.v.len()))
            }))?;
            Some(ours)
        }
    };
    poly.vertices.extend(other.vertices);
    for mut f in other.faces {
        for v in &mut f.v {
            *v += base;
        }
        poly.faces.push(f);
    }
    for om in other.maps {
        let Some(m) = poly.maps.iter_mut().find(|m| m.channel == om.channel) else {
            continue;
        };
        let mbase = u32::try_from(m.vertices.len())
            .map_err(|_| EvalError::limit("map vertices", u32::MAX))?;
        m.vertices.extend(om.vertices);
        m.faces.extend(
            om.faces
                .into_iter()
                .map(|f| f.into_iter().map(|x| x + mbase).collect::<Vec<_>>()),
        );
    }
    poly.validate()
}

/// Welds selected vertices closer than `threshold`, as Edit Poly's Weld Vertex
/// does: two vertices weld when both are on an open border or when an edge
/// joins them (the edge collapses). Taking the selected vertices in index
/// order, each absorbs the later ones it welds with; the pair moves to its
/// midpoint and the absorbed vertex is dropped. A face that loses corners
/// drops their map corners too and is triangulated again as a fan (which
/// diagonals Max picks then is not known); one left with fewer than three
/// corners is deleted, as Max kills degenerate faces.
pub(super) fn weld(poly: &mut PolyMesh, sel: &[bool], threshold: f64) -> Result<(), EvalError> {
    check_selection(sel, poly.vertices.len(), "vertices")?;
    if !threshold.is_finite() || threshold < 0.0 {
        return Err(EvalError::malformed(
            "",
            format!("weld threshold {threshold}"),
        ));
    }
    let mut uses = std::collections::HashMap::new();
    for f in &poly.faces {
        for j in 0..f.v.len() {
            let (a, b) = (f.v[j], f.v[(j + 1) % f.v.len()]);
            *uses.entry((a.min(b), a.max(b))).or_insert(0u32) += 1;
        }
    }
    let mut border = vec![false; poly.vertices.len()];
    for (&(a, b), &n) in &uses {
        if n == 1 {
            border[a as usize] = true;
            border[b as usize] = true;
        }
    }
    let candidates: Vec<usize> = (0..poly.vertices.len())
        .filter(|&i| selected(sel, i))
        .collect();
    let mut target: Vec<u32> = (0..poly.vertices.len() as u32).collect();
    let mut gone = vec![false; poly.vertices.len()];
    let t2 = threshold * threshold;
    for (ci, &i) in candidates.iter().enumerate() {
        if gone[i] {
            continue;
        }
        for &j in &candidates[ci + 1..] {
            if gone[j] {
                continue;
            }
            let joined = uses.contains_key(&(i as u32, j as u32));
            if !(joined || border[i] && border[j]) {
                continue;
            }
            let d = poly.vertices[j].minus(poly.vertices[i]);
            if d.dot(d) <= t2 {
                let mid = poly.vertices[i].plus(poly.vertices[j]).scale(0.5);
                poly.vertices[i] = mid;
                gone[j] = true;
                target[j] = i as u32;
            }
        }
    }
    merge_corners(
        poly,
        |v| target[v as usize],
        Refan::Changed,
        "welding pinches face {fi} (a vertex twice), which",
    )?;
    let keep: Vec<bool> = gone.iter().map(|g| !g).collect();
    remove_vertices(poly, &keep);
    poly.validate()
}

/// Max's edge list of `poly`, copied for a replay that edits the mesh;
/// refused (not damage) when the operations before left a numbering this
/// replay does not derive.
pub(super) fn known_edges(poly: &PolyMesh) -> Result<Vec<[u32; 2]>, EvalError> {
    poly.mn_edges()
        .map(<[[u32; 2]]>::to_vec)
        .map_err(|_| EvalError::not_evaluated("Max's edge numbering of the mesh is not known"))
}

/// The face, and the corner it starts at, that runs each directed side
/// a → b of `poly` (a border side has no face the other way).
pub(super) fn side_faces(poly: &PolyMesh) -> std::collections::HashMap<(u32, u32), (usize, usize)> {
    let mut out = std::collections::HashMap::new();
    for (fi, f) in poly.faces.iter().enumerate() {
        let n = f.v.len();
        for j in 0..n {
            out.insert((f.v[j], f.v[(j + 1) % n]), (fi, j));
        }
    }
    out
}

/// Every face whose corners run `a` then `b`: one on each side of a manifold
/// edge, so a caller refuses other counts by name.
pub(super) fn faces_walking(poly: &PolyMesh, a: u32, b: u32) -> Vec<usize> {
    (0..poly.faces.len())
        .filter(|&f| {
            let v = &poly.faces[f].v;
            let n = v.len();
            (0..n).any(|j| v[j] == a && v[(j + 1) % n] == b)
        })
        .collect()
}

/// [`newell_normal`] where an operation needs one: a polygon without area
/// (named `at`, "face 3") gets an error instead.
pub(super) fn required_normal(
    poly: &PolyMesh,
    v: &[u32],
    at: impl std::fmt::Display,
) -> Result<Vec3, EvalError> {
    newell_normal(poly, v).ok_or_else(|| {
        EvalError::malformed("", format!("{at} has no area, so no normal to move along"))
    })
}

/// The unit normal of the polygon through `v` (Newell's); None for a polygon
/// without area, which the callers refuse naming the operation.
pub(super) fn newell_normal(poly: &PolyMesh, v: &[u32]) -> Option<Vec3> {
    let n = newell_vector(poly, v)?;
    let l = n.len();
    (l > 0.0 && l.is_finite()).then(|| n.scale(1.0 / l))
}

/// Newell's vector of the polygon through `v`: its normal times twice its
/// area. None when a corner is not a vertex of `poly`.
pub(super) fn newell_vector(poly: &PolyMesh, v: &[u32]) -> Option<Vec3> {
    let mut n = Vec3::default();
    for j in 0..v.len() {
        let (p, q) = (
            *poly.vertices.get(v[j] as usize)?,
            *poly.vertices.get(v[(j + 1) % v.len()] as usize)?,
        );
        n = n.plus(p.cross(q));
    }
    Some(n)
}

/// Keeps the corners `kept` (of `deg`) of face `fi` in every map channel,
/// as a weld keeps them of the geometric face.
/// When a face whose corners changed gets a new fan triangulation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Refan {
    /// Every face whose vertices changed (the weld).
    Changed,
    /// Only a face that lost corners (Target Weld keeps the others' triangles).
    Shrunk,
}

/// Renumbers every face's vertices through `map`, merging a corner equal to
/// the one before it (cyclically), dropping faces left with fewer than three
/// distinct corners, and refusing one that would use a vertex twice (`pinch`,
/// with `{fi}` standing for the face index). Map channels follow the corners.
pub(super) fn merge_corners(
    poly: &mut PolyMesh,
    map: impl Fn(u32) -> u32,
    refan: Refan,
    pinch: &str,
) -> Result<(), EvalError> {
    let mut keep_face = vec![true; poly.faces.len()];
    for (fi, f) in poly.faces.iter_mut().enumerate() {
        let mapped: Vec<u32> = f.v.iter().map(|&v| map(v)).collect();
        if mapped == f.v {
            continue;
        }
        let n = mapped.len();
        let kept: Vec<usize> = (0..n)
            .filter(|&c| mapped[c] != mapped[(c + n - 1) % n])
            .collect();
        let mut distinct: Vec<u32> = kept.iter().map(|&c| mapped[c]).collect();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() < 3 {
            keep_face[fi] = false;
            continue;
        }
        if distinct.len() != kept.len() {
            return Err(EvalError::not_evaluated(
                pinch.replace("{fi}", &fi.to_string()),
            ));
        }
        f.v = kept.iter().map(|&c| mapped[c]).collect();
        if refan == Refan::Changed || kept.len() != n {
            f.tris = (1..kept.len() - 1).map(|i| [0, i, i + 1]).collect();
            keep_map_corners(&mut poly.maps, fi, &kept, n)?;
        }
    }
    retain_faces(poly, &keep_face);
    Ok(())
}

pub(super) fn keep_map_corners(
    maps: &mut [PolyMap],
    fi: usize,
    kept: &[usize],
    deg: usize,
) -> Result<(), EvalError> {
    for m in maps.iter_mut() {
        let mf = m.face_mut(fi)?;
        if mf.len() != deg {
            return Err(EvalError::malformed(
                format!("map {}", m.channel),
                "damaged map face",
            ));
        }
        *mf = kept.iter().map(|&c| mf[c]).collect();
    }
    Ok(())
}

/// Drops the faces `keep` marks false, in the mesh, every map channel and
/// the specified normals.
pub(super) fn retain_faces(poly: &mut PolyMesh, keep: &[bool]) {
    poly.retain_faces(keep);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::objects::poly::PolyMap;

    /// Two unit quads side by side that do not share their middle edge: 0-1-2-3
    /// and 4-5-6-7, with 1≡4 and 2≡7 in position.
    fn split_quads() -> PolyMesh {
        PolyMesh {
            maps: vec![PolyMap {
                channel: 1,
                vertices: vec![[0.0; 3]; 8],
                faces: vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]],
            }],
            ..PolyMesh::planar(
                &[
                    (0.0, 0.0),
                    (1.0, 0.0),
                    (1.0, 1.0),
                    (0.0, 1.0),
                    (1.0, 0.0),
                    (2.0, 0.0),
                    (2.0, 1.0),
                    (1.0, 1.0),
                ],
                &[(&[0, 1, 2, 3], 1, 0), (&[4, 5, 6, 7], 2, 0)],
            )
        }
    }

    #[test]
    fn delete_edge_deletes_the_faces_on_its_edges() {
        // Three quads in a row sharing edges 1-2 and 4-5: 0-1-2-3, 1-4-5-2, 4-6-7-5.
        let mut m = PolyMesh::planar(
            &[
                (0.0, 0.0),
                (1.0, 0.0),
                (1.0, 1.0),
                (0.0, 1.0),
                (2.0, 0.0),
                (2.0, 1.0),
                (3.0, 0.0),
                (3.0, 1.0),
            ],
            &[
                (&[0, 1, 2, 3], 1, 0),
                (&[1, 4, 5, 2], 2, 0),
                (&[4, 6, 7, 5], 3, 0),
            ],
        );
        // Without MNMesh's numbering the edge selection means nothing.
        let err = delete_edges(&mut m.clone(), &[true], true).unwrap_err();
        assert!(err.to_string().contains("numbering"), "{err}");
        let edges = m.walked_edges();
        let e = edges
            .iter()
            .position(|e| (e[0].min(e[1]), e[0].max(e[1])) == (4, 5))
            .expect("edge 4-5");
        m.set_edges(edges.clone()).expect("edges");
        let mut sel = vec![false; edges.len()];
        sel[e] = true;
        // Both faces on 4-5 go; vertices 4 to 7 with them.
        let mut keep = m.clone();
        delete_edges(&mut m, &sel, true).expect("delete edge");
        assert_eq!(m.faces.len(), 1);
        assert_eq!(m.faces[0].v, [0, 1, 2, 3]);
        assert_eq!(m.vertices.len(), 4);
        // Kept isolated vertices stay where they were.
        delete_edges(&mut keep, &sel, false).expect("delete edge");
        assert_eq!(keep.vertices.len(), 8);
        assert_eq!(keep.faces.len(), 1);
        // A selection sized unlike the edges is damage.
        assert!(delete_edges(&mut keep, &[true; 2], true).is_err());
    }

    #[test]
    fn delete_vertex_deletes_it_and_the_faces_on_it() {
        // Two quads sharing 1-2 (0-1-2-3, 1-4-5-2) and an unused vertex 6.
        let p = |x: f64, y: f64| Vec3(x, y, 0.0);
        let two = PolyMesh::planar(
            &[
                (0.0, 0.0),
                (1.0, 0.0),
                (1.0, 1.0),
                (0.0, 1.0),
                (2.0, 0.0),
                (2.0, 1.0),
                (5.0, 5.0),
            ],
            &[(&[0, 1, 2, 3], 1, 0), (&[1, 4, 5, 2], 2, 0)],
        );
        // Vertex 4: the second quad goes; 5 (left alone) with it, 6 (never
        // used) stays.
        let mut m = two.clone();
        let sel = [false, false, false, false, true, false, false];
        delete_vertices(&mut m, &sel, true).expect("delete");
        assert_eq!(m.faces.len(), 1);
        assert_eq!(
            m.vertices,
            [
                p(0.0, 0.0),
                p(1.0, 0.0),
                p(1.0, 1.0),
                p(0.0, 1.0),
                p(5.0, 5.0)
            ]
        );
        // Keeping isolated vertices, only the selected one goes.
        let mut m = two.clone();
        delete_vertices(&mut m, &sel, false).expect("delete");
        assert_eq!(m.vertices.len(), 6);
        assert_eq!(m.faces[0].v, [0, 1, 2, 3]);
        // An unused selected vertex goes too.
        let mut m = two.clone();
        let sel = [false, false, false, false, false, false, true];
        delete_vertices(&mut m, &sel, false).expect("delete");
        assert_eq!((m.vertices.len(), m.faces.len()), (6, 2));
        assert!(delete_vertices(&mut m, &[true; 2], true).is_err());
    }

    #[test]
    fn weld_joins_coincident_border_vertices_and_keeps_order() {
        let mut m = split_quads();
        weld(&mut m, &[true; 8], 0.01).expect("weld");
        assert_eq!(m.vertices.len(), 6);
        assert_eq!(m.faces[1].v, vec![1, 4, 5, 2]);
        // An unselected vertex does not weld.
        let mut m = split_quads();
        let mut sel = [true; 8];
        sel[7] = false;
        weld(&mut m, &sel, 0.01).expect("weld");
        assert_eq!(m.vertices.len(), 7);
        assert!(weld(&mut split_quads(), &[true; 3], 0.01).is_err());
    }

    #[test]
    fn weld_collapses_a_short_edge_and_kills_the_face_it_flattens() {
        // Quad 0-1-2-3 whose side 1–2 is 1e-4 long, and triangle 1-4-2 on it.
        let p = |x: f64, y: f64| Vec3(x, y, 0.0);
        let mut m = PolyMesh::planar(
            &[(0.0, 0.0), (1.0, 0.0), (1.0, 1e-4), (0.0, 1.0), (2.0, 0.0)],
            &[(&[0, 1, 2, 3], 0, 0), (&[1, 4, 2], 0, 0)],
        );
        weld(&mut m, &[true; 5], 1e-3).expect("weld");
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.faces.len(), 1);
        assert_eq!(m.faces[0].v, vec![0, 1, 2]);
        assert_eq!(m.faces[0].tris, vec![[0, 1, 2]]);
        assert_eq!(m.vertices[1], p(1.0, 5e-5));
        // Beyond the threshold nothing welds.
        let mut far = split_quads();
        weld(&mut far, &[true; 8], -1.0).expect_err("negative threshold");
    }

    #[test]
    fn delete_drops_faces_maps_and_isolated_vertices() {
        let mut m = split_quads();
        delete_faces(&mut m, &[true, false], true).expect("delete");
        assert_eq!(m.faces.len(), 1);
        assert_eq!(m.faces[0].v, vec![0, 1, 2, 3]);
        assert_eq!(m.faces[0].material, 2);
        assert_eq!(m.maps[0].faces, vec![vec![4, 5, 6, 7]]);
        assert_eq!(m.vertices.len(), 4);
        let mut m = split_quads();
        delete_faces(&mut m, &[true, false], false).expect("delete");
        assert_eq!(m.vertices.len(), 8);
    }

    #[test]
    fn attach_appends_and_offsets() {
        let mut m = split_quads();
        attach(&mut m, split_quads()).expect("attach");
        assert_eq!(m.vertices.len(), 16);
        assert_eq!(m.faces[3].v, vec![12, 13, 14, 15]);
        assert_eq!(m.maps[0].faces[2], vec![8, 9, 10, 11]);
        let mut other = split_quads();
        other.maps.clear();
        assert!(attach(&mut m, other).is_err());
    }
}
