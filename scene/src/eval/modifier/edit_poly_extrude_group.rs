//! Extrusion of a cluster of adjacent faces as one group (Edit Poly's Extrude
//! Face, type "group"): the cluster's border gets walls, its inner vertices
//! stay shared and move with it.
//!
//! The rule generalises the one-face extrusion read off Max's caches
//! (`edit_poly_extrude`): the border is walked as the cluster's faces run
//! their sides (a → b inside a face, on to the border side leaving b),
//! starting at the border side with the lowest edge index when MNMesh's
//! numbering is known (else at the first border side of the lowest cluster
//! face). Each border vertex gets a new vertex, appended in walk order; every
//! cluster face takes the new vertices in place of the border ones; for each
//! border side a → b a wall [a, b, b', a'] is appended in walk order with the
//! material of the cluster face owning the side and no smoothing group.
//! Checked only by counts: Sword.max's 14-quad strip (30 border vertices)
//! gives the vertex and face selection sizes Max recorded after it. The
//! loops' order when a cluster has several borders, an open border and a
//! vertex met twice on the border are refused. A local-normal extrusion
//! moves the vertices one by one (`local_moves`, checked against an Unwrap
//! UVW cache).
//!
//! Map channels follow the one-face rule along the border (`group_map`).

use std::collections::{HashMap, HashSet};

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

use super::edit_poly_extrude::Numbering;
use super::edit_poly_topo::{newell_normal, newell_vector, required_normal};

/// What a group extrusion made of one cluster.
pub(super) struct Group {
    /// The cluster's vertices after the extrusion (new border vertices and
    /// inner ones), each once: what the extrusion moves.
    pub vertices: Vec<u32>,
    /// The cluster faces' normals weighted by their areas, summed and
    /// normalised, taken before the extrusion; an error when they cancel out
    /// (a closed band), raised only by a group-type move.
    pub normal: Result<Vec3, EvalError>,
    /// The cluster's faces (their indices are kept by the extrusion).
    pub faces: Vec<usize>,
    /// The new border vertices in walk order, each with the cluster face
    /// whose side leaves it (the sides run as their faces run them): what
    /// an outline moves.
    pub border: Vec<(u32, usize)>,
}

/// The clusters of `chosen` faces joined across shared sides, each in face
/// index order, ordered by their lowest face.
pub(super) fn clusters(poly: &PolyMesh, chosen: &[usize]) -> Vec<Vec<usize>> {
    let picked: HashSet<usize> = chosen.iter().copied().collect();
    let mut by_edge: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for &f in chosen {
        let v = &poly.faces[f].v;
        for j in 0..v.len() {
            let (a, b) = (v[j], v[(j + 1) % v.len()]);
            by_edge.entry((a.min(b), a.max(b))).or_default().push(f);
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut sorted = chosen.to_vec();
    sorted.sort_unstable();
    for &f0 in &sorted {
        if !seen.insert(f0) {
            continue;
        }
        let mut group = vec![f0];
        let mut stack = vec![f0];
        while let Some(f) = stack.pop() {
            let v = &poly.faces[f].v;
            for j in 0..v.len() {
                let (a, b) = (v[j], v[(j + 1) % v.len()]);
                for &g in &by_edge[&(a.min(b), a.max(b))] {
                    if picked.contains(&g) && seen.insert(g) {
                        group.push(g);
                        stack.push(g);
                    }
                }
            }
        }
        group.sort_unstable();
        out.push(group);
    }
    out
}

/// Extrudes one cluster of more than one face with zero height (see the
/// module doc); `before` is MNMesh's edge list before the operation, when
/// known.
pub(super) fn extrude_group(
    poly: &mut PolyMesh,
    cluster: &[usize],
    numbering: Option<Numbering>,
) -> Result<Group, EvalError> {
    // How many faces use each side, over the whole mesh.
    let mut users: HashMap<(u32, u32), usize> = HashMap::new();
    for f in &poly.faces {
        for j in 0..f.v.len() {
            let (a, b) = (f.v[j], f.v[(j + 1) % f.v.len()]);
            *users.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    let mut inner: HashMap<(u32, u32), usize> = HashMap::new();
    for &f in cluster {
        let v = &poly.faces[f].v;
        for j in 0..v.len() {
            let (a, b) = (v[j], v[(j + 1) % v.len()]);
            *inner.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    // Border sides a → b as the owning face runs them, by their start.
    let mut leaving: HashMap<u32, (u32, usize)> = HashMap::new();
    let mut order: Vec<(u32, u32)> = Vec::new();
    for &f in cluster {
        let v = &poly.faces[f].v;
        for j in 0..v.len() {
            let (a, b) = (v[j], v[(j + 1) % v.len()]);
            let key = (a.min(b), a.max(b));
            match (inner[&key], users[&key]) {
                (1, 2) => {}
                (2, 2) => continue,
                (1, 1) => {
                    return Err(EvalError::not_evaluated_why(
                        format!("a group extrusion of faces {cluster:?}"),
                        format!("side {a}-{b} is an open border, whose walls are not derived"),
                    ))
                }
                (_, n) => {
                    return Err(EvalError::malformed(
                        "",
                        format!("side {a}-{b} is used by {n} faces"),
                    ))
                }
            }
            if leaving.insert(a, (b, f)).is_some() {
                return Err(EvalError::not_evaluated_why(
                    format!("a group extrusion of faces {cluster:?}"),
                    format!("vertex {a} is met twice on the border, whose order is not derived"),
                ));
            }
            order.push((a, b));
        }
    }
    // The walk starts at the side with the lowest edge index when the
    // numbering is known, else at the first side in face order.
    let lowest = match numbering {
        Some(numbering) => numbering.lowest(&order)?,
        None => None,
    };
    let start = order
        .get(lowest.unwrap_or(0))
        .map(|&(a, _)| a)
        .ok_or_else(|| EvalError::malformed("", format!("faces {cluster:?} have no border")))?;
    let walk = walk_border(&leaving, start)?;
    if walk.len() != leaving.len() {
        // Which loop Max numbers first is not pinned by any reference
        // (Door6's band, the one measured, is renumbered by the Chamfer
        // after it).
        return Err(EvalError::not_evaluated_why(
            format!("a group extrusion of faces {cluster:?}"),
            format!(
                "its border is more than one loop ({} of {} sides in the first), whose order is not derived",
                walk.len(),
                leaving.len()
            ),
        ));
    }
    let normal = cluster_normal(poly, cluster);
    let base =
        u32::try_from(poly.vertices.len()).map_err(|_| EvalError::limit("vertices", u32::MAX))?;
    let mut new_of: HashMap<u32, u32> = HashMap::new();
    for (k, &v) in walk.iter().enumerate() {
        let p = poly.vertices[v as usize];
        poly.vertices.push(p);
        new_of.insert(v, base + k as u32);
    }
    for &a in &walk {
        let (b, f) = leaving[&a];
        let material = poly.faces[f].material;
        poly.faces.push(PolyFace::fan(
            vec![a, b, new_of[&b], new_of[&a]],
            material,
            0,
        ));
    }
    for m in &mut poly.maps {
        group_map(m, &poly.faces, cluster, &walk, &leaving)?;
    }
    let mut vertices = Vec::new();
    let mut met = HashSet::new();
    for &f in cluster {
        for c in &mut poly.faces[f].v {
            if let Some(&n) = new_of.get(c) {
                *c = n;
            }
            if met.insert(*c) {
                vertices.push(*c);
            }
        }
    }
    Ok(Group {
        vertices,
        normal,
        faces: cluster.to_vec(),
        border: walk.iter().map(|v| (new_of[v], leaving[v].1)).collect(),
    })
}

/// The border loop through `start`, each vertex followed by the end of the
/// border side leaving it (`leaving`: start → (end, its face)); an error
/// when the loop does not come back to `start`.
fn walk_border(leaving: &HashMap<u32, (u32, usize)>, start: u32) -> Result<Vec<u32>, EvalError> {
    let mut walk: Vec<u32> = Vec::with_capacity(leaving.len());
    let mut walked: HashSet<u32> = HashSet::new();
    let mut at = start;
    loop {
        if !walked.insert(at) {
            return Err(EvalError::malformed("", "the border does not close"));
        }
        walk.push(at);
        let Some(&(next, _)) = leaving.get(&at) else {
            return Err(EvalError::malformed("", "the border does not close"));
        };
        if next == start {
            return Ok(walk);
        }
        at = next;
    }
}

/// The map faces of a group extrusion, as the one-face extrusion's
/// (`edit_poly_extrude::extrude_one`) along the group's border: each map
/// vertex a cluster face has at a border vertex is copied (once per border
/// vertex and map vertex, in walk order and cluster face order), the cluster
/// faces take the copies, and each wall a → b runs over the owning face's
/// map vertices at a and b and their copies. Called with the walls appended
/// to `faces` and the cluster faces still on their old corners. Checked
/// against J-Way's Tank FBX (docs/evaluation.md, "Map channels of a group
/// extrusion").
fn group_map(
    m: &mut crate::eval::objects::poly::PolyMap,
    faces: &[PolyFace],
    cluster: &[usize],
    walk: &[u32],
    leaving: &HashMap<u32, (u32, usize)>,
) -> Result<(), EvalError> {
    let damaged = || EvalError::malformed(format!("map {}", m.channel), "damaged map face");
    // Per cluster face: geometric corner → its map vertex.
    let mut corner: HashMap<(usize, u32), u32> = HashMap::new();
    for &f in cluster {
        let mf = m.face(f)?;
        let v = &faces.get(f).ok_or_else(damaged)?.v;
        if mf.len() != v.len() {
            return Err(damaged());
        }
        for (&g, &t) in v.iter().zip(mf) {
            corner.insert((f, g), t);
        }
    }
    let mut copy: HashMap<(u32, u32), u32> = HashMap::new();
    for &a in walk {
        for &f in cluster {
            let Some(&t) = corner.get(&(f, a)) else {
                continue;
            };
            if copy.contains_key(&(a, t)) {
                continue;
            }
            let uv = *m.vertices.get(t as usize).ok_or_else(damaged)?;
            let n = u32::try_from(m.vertices.len())
                .map_err(|_| EvalError::limit("map vertices", u32::MAX))?;
            m.vertices.push(uv);
            copy.insert((a, t), n);
        }
    }
    for &a in walk {
        let (b, f) = leaving[&a];
        let (Some(&ta), Some(&tb)) = (corner.get(&(f, a)), corner.get(&(f, b))) else {
            return Err(damaged());
        };
        m.faces.push(vec![ta, tb, copy[&(b, tb)], copy[&(a, ta)]]);
    }
    for &f in cluster {
        let v = faces[f].v.clone();
        let mf = m.face_mut(f)?;
        for (t, g) in mf.iter_mut().zip(&v) {
            if let Some(&n) = copy.get(&(*g, *t)) {
                *t = n;
            }
        }
    }
    Ok(())
}

/// Where a local normal extrusion moves each of the group's vertices by
/// `height`: a vertex on one cluster face along that face's normal, a vertex
/// on two (n1, n2) to the point where both faces' planes are `height` out,
/// height · (n1 + n2) / (1 + n1·n2). Measured on Buwaka's Door6 Cylinder001
/// (a closed band of 32 faces, height 0.657): the Unwrap UVW above its Edit
/// Poly holds this point for all 34 new vertices that the operations after it
/// left in place, to 6e-5 (f32), where the normalised average of n1 and n2
/// is 3.2e-3 off on every one. A vertex on three or more faces that are not
/// coplanar (where the planes need not meet in one point) is refused.
pub(super) fn local_moves(
    poly: &PolyMesh,
    g: &Group,
    height: f64,
) -> Result<Vec<(u32, Vec3)>, EvalError> {
    let mut normals: HashMap<usize, Vec3> = HashMap::new();
    for &f in &g.faces {
        let n = newell_normal(poly, &poly.faces[f].v).ok_or_else(|| {
            EvalError::not_evaluated_why(
                format!("a local normal extrusion of faces {:?}", g.faces),
                format!("face {f} has no area, so no normal"),
            )
        })?;
        normals.insert(f, n);
    }
    let mut out = Vec::with_capacity(g.vertices.len());
    for &v in &g.vertices {
        let ns: Vec<Vec3> = g
            .faces
            .iter()
            .filter(|&&f| poly.faces[f].v.contains(&v))
            .map(|f| normals[f])
            .collect();
        let d = match ns[..] {
            [] => {
                return Err(EvalError::malformed(
                    "",
                    format!("vertex {v} is on no face of its group"),
                ))
            }
            [n] => n.scale(height),
            [a, b] => {
                let denom = 1.0 + a.dot(b);
                if denom < 1e-9 {
                    return Err(EvalError::malformed(
                        "",
                        format!("vertex {v}: its two faces fold back on each other"),
                    ));
                }
                a.plus(b).scale(height / denom)
            }
            [a, ref rest @ ..] => {
                if rest.iter().any(|n| n.minus(a).len() > 1e-9) {
                    return Err(EvalError::not_evaluated_why(
                        format!("a local normal extrusion of faces {:?}", g.faces),
                        format!(
                            "vertex {v} is on {} of its faces, not coplanar, whose move is not derived",
                            ns.len()
                        ),
                    ));
                }
                a.scale(height)
            }
        };
        out.push((v, d));
    }
    Ok(out)
}

/// The cluster's direction: its faces' unit normals summed and normalised.
/// A face without area adds nothing (a zero vector normalised stays zero):
/// weaponrack.max's walls of an Inset by 0, extruded with their face, give
/// the sizes and totals Max saved that way (docs/max-format.md, "Bevel").
fn cluster_normal(poly: &PolyMesh, cluster: &[usize]) -> Result<Vec3, EvalError> {
    // Each face's Newell vector is its normal times twice its area: the sum
    // weighs the faces by area (measured: ccharri's Hand_and_Wrench, below).
    let n = cluster
        .iter()
        .filter_map(|&f| newell_vector(poly, &poly.faces[f].v))
        .fold(Vec3::default(), Vec3::plus);
    let l = n.len();
    if l > 1e-12 && l.is_finite() {
        Ok(n.scale(1.0 / l))
    } else {
        Err(EvalError::malformed(
            "",
            format!("faces {cluster:?} have no average normal to extrude along"),
        ))
    }
}

/// Moves a group's new border inwards by `amount` (a Bevel's outline,
/// reversed): each border side parallel to itself at `amount` inwards
/// across its own cluster face (the side's inward normal in that face's
/// plane), each corner to the miter point of its two sides. Measured on
/// ccharri's Hand_and_Wrench.max, whose 3DS export holds a bevelled pair of
/// faces at an angle of 17°: the sides' own faces give Max's corners to the
/// export's precision, the cluster's normal misses by up to 0.09 for an
/// outline of 0.39. The inner vertices stay.
pub(super) fn outline(poly: &mut PolyMesh, g: &Group, amount: f64) -> Result<(), EvalError> {
    let corners: Vec<Vec3> = g
        .border
        .iter()
        .map(|&(v, _)| poly.vertices[v as usize])
        .collect();
    let side_normal = |j: usize| {
        let f = g.border[j].1;
        required_normal(poly, &poly.faces[f].v, format_args!("face {f}"))
    };
    let moves = super::edit_poly_extrude::miter_moves(&corners, side_normal, amount, || {
        format!("the border of faces {:?}", g.faces)
    })?;
    for (&(v, _), d) in g.border.iter().zip(moves) {
        let p = &mut poly.vertices[v as usize];
        *p = p.plus(d);
    }
    Ok(())
}

/// Edit Poly's Outline (operation 51, parameter 43): the border of each
/// cluster of selected faces moves outwards by `outline` (inwards when
/// negative) as a Bevel's outline moves it (`outline`): each border side
/// parallel to itself across its own face, each corner at the miter point
/// of its two sides; no vertex, edge or face is added, inner vertices stay.
/// A cluster whose border is more than one loop or passes a vertex twice,
/// or two clusters meeting at a vertex, are refused by name.
pub(super) fn outline_faces(
    poly: &mut PolyMesh,
    sel: &[bool],
    outline: f64,
) -> Result<(), EvalError> {
    let chosen = super::edit_poly_topo::selected_indices(sel, poly.faces.len(), "faces")?;
    let refused = |c: &[usize], why: String| {
        EvalError::not_evaluated_why(format!("an outline of the faces {c:?}"), why)
    };
    let mut moves: Vec<(u32, Vec3)> = Vec::new();
    let mut moved: HashSet<u32> = HashSet::new();
    for cluster in clusters(poly, &chosen) {
        let sides = super::edit_poly_topo::directed_sides(cluster.iter().map(|&f| &poly.faces[f]));
        // Border sides a → b as their face runs them, by their start.
        let mut leaving: HashMap<u32, (u32, usize)> = HashMap::new();
        for &f in &cluster {
            let v = &poly.faces[f].v;
            for j in 0..v.len() {
                let (a, b) = (v[j], v[(j + 1) % v.len()]);
                if sides.contains(&(b, a)) {
                    continue;
                }
                if leaving.insert(a, (b, f)).is_some() {
                    return Err(refused(
                        &cluster,
                        format!(
                            "vertex {a} is met twice on its border, whose moves are not derived"
                        ),
                    ));
                }
            }
        }
        let Some(&start) = leaving.keys().min() else {
            // A closed cluster (every side inner) has no border to move.
            continue;
        };
        let walk = walk_border(&leaving, start)?;
        if walk.len() != leaving.len() {
            return Err(refused(
                &cluster,
                format!(
                    "its border is more than one loop ({} of {} sides in the first), whose moves are not derived",
                    walk.len(),
                    leaving.len()
                ),
            ));
        }
        let corners: Vec<Vec3> = walk.iter().map(|&v| poly.vertices[v as usize]).collect();
        let side_normal = |j: usize| {
            let f = leaving[&walk[j]].1;
            required_normal(poly, &poly.faces[f].v, format_args!("face {f}"))
        };
        let d = super::edit_poly_extrude::miter_moves(&corners, side_normal, -outline, || {
            format!("the border of faces {cluster:?}")
        })?;
        for (&v, d) in walk.iter().zip(d) {
            if !moved.insert(v) {
                return Err(refused(
                    &cluster,
                    format!(
                        "vertex {v} is on the border of two clusters, whose moves are not derived"
                    ),
                ));
            }
            moves.push((v, d));
        }
    }
    for (v, d) in moves {
        let p = &mut poly.vertices[v as usize];
        *p = p.plus(d);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3 × 3 grid of unit squares in z = 0, faces row by row.
    fn grid() -> PolyMesh {
        let points: Vec<(f64, f64)> = (0..16).map(|i| ((i % 4) as f64, (i / 4) as f64)).collect();
        let quads: Vec<[u32; 4]> = (0..9u32)
            .map(|f| {
                let (x, y) = (f % 3, f / 3);
                let a = y * 4 + x;
                [a, a + 1, a + 5, a + 4]
            })
            .collect();
        let faces: Vec<(&[u32], u16, u32)> = quads.iter().map(|q| (&q[..], 0, 1)).collect();
        PolyMesh::planar(&points, &faces)
    }

    /// Outline moves a cluster's border sides parallel, outwards for a
    /// positive amount; a straight border through a vertex moves it
    /// straight out; nothing is added and the other vertices stay.
    #[test]
    fn outline_moves_each_clusters_border_sides_parallel() {
        let mut m = grid();
        let sel: Vec<bool> = (0..9).map(|f| f == 4).collect();
        outline_faces(&mut m, &sel, 0.25).expect("outline");
        let at = |m: &PolyMesh, i: usize| (m.vertices[i].0, m.vertices[i].1);
        assert_eq!(at(&m, 5), (0.75, 0.75));
        assert_eq!(at(&m, 6), (2.25, 0.75));
        assert_eq!(at(&m, 10), (2.25, 2.25));
        assert_eq!(at(&m, 9), (0.75, 2.25));
        assert_eq!(m.vertices.len(), 16);
        assert_eq!(m.faces.len(), 9);
        assert_eq!(at(&m, 0), (0.0, 0.0));
        // Two faces side by side: their shared side's ends move straight
        // out of the border, the far corners diagonally; inwards here.
        let mut two = grid();
        let sel: Vec<bool> = (0..9).map(|f| f == 4 || f == 5).collect();
        outline_faces(&mut two, &sel, -0.25).expect("outline");
        assert_eq!(at(&two, 6), (2.0, 1.25));
        assert_eq!(at(&two, 10), (2.0, 1.75));
        assert_eq!(at(&two, 5), (1.25, 1.25));
        assert_eq!(at(&two, 7), (2.75, 1.25));
        assert_eq!(at(&two, 11), (2.75, 1.75));
    }

    /// Two unit squares side by side in z = 0, and a floor below closing
    /// nothing: the strip's border is one loop of six sides.
    fn strip() -> PolyMesh {
        let p = |x: f64, y: f64| Vec3(x, y, 0.0);
        // 0 1 2 on y = 0, 3 4 5 on y = 1; a closed box would be more; the
        // border sides get a neighbour each from a fan of triangles under.
        let mut m = PolyMesh {
            vertices: vec![
                p(0.0, 0.0),
                p(1.0, 0.0),
                p(2.0, 0.0),
                p(0.0, 1.0),
                p(1.0, 1.0),
                p(2.0, 1.0),
                Vec3(1.0, 0.5, -1.0),
            ],
            faces: vec![
                PolyFace::fan(vec![0, 1, 4, 3], 2, 1),
                PolyFace::fan(vec![1, 2, 5, 4], 3, 1),
            ],
            maps: Vec::new(),
            edges: None,
            normals: None,
        };
        // Close the border with triangles to the apex 6 (reversed sides).
        for (a, b) in [(0, 1), (1, 2), (2, 5), (5, 4), (4, 3), (3, 0)] {
            m.faces.push(PolyFace::fan(vec![b, a, 6], 0, 0));
        }
        m
    }

    #[test]
    fn a_strip_gets_one_loop_of_walls_in_walk_order() {
        let mut m = strip();
        let cl = clusters(&m, &[0, 1]);
        assert_eq!(cl, [vec![0, 1]]);
        let g = extrude_group(&mut m, &cl[0], None).expect("group");
        // Walk from face 0's side 0: 0 → 1 → 2 → 5 → 4 → 3.
        assert_eq!(m.vertices.len(), 7 + 6);
        assert_eq!(m.faces[0].v, [7, 8, 11, 12]);
        assert_eq!(m.faces[1].v, [8, 9, 10, 11]);
        assert_eq!(m.faces[8].v, [0, 1, 8, 7]);
        assert_eq!(m.faces[9].v, [1, 2, 9, 8]);
        assert_eq!(m.faces[13].v, [3, 0, 7, 12]);
        assert_eq!(m.faces[8].material, 2);
        assert_eq!(m.faces[9].material, 3);
        assert!(m.faces[8..].iter().all(|f| f.smoothing == 0));
        assert_eq!(g.normal.expect("normal"), Vec3(0.0, 0.0, 1.0));
        assert_eq!(g.vertices.len(), 6);
        m.validate().expect("valid");
    }

    #[test]
    fn the_walls_take_the_owning_faces_map_vertices_and_their_copies() {
        use crate::eval::objects::poly::PolyMap;
        // Map: face 0 on map vertices 0 1 2 3, face 1 on 4 5 6 7 (a seam
        // along 1–4, where face 1's map vertices 4 and 7 sit elsewhere);
        // the eight triangles on map vertex 8.
        let mut m = strip();
        let uv = |u: f32, v: f32| [u, v, 0.0];
        let mut faces = vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]];
        faces.extend((0..6).map(|_| vec![8, 8, 8]));
        m.maps = vec![PolyMap {
            channel: 1,
            vertices: vec![
                uv(0.0, 0.0),
                uv(0.5, 0.0),
                uv(0.5, 0.5),
                uv(0.0, 0.5),
                uv(0.6, 0.0),
                uv(1.0, 0.0),
                uv(1.0, 0.5),
                uv(0.6, 0.5),
                uv(0.9, 0.9),
            ],
            faces,
        }];
        extrude_group(&mut m, &[0, 1], None).expect("group");
        m.validate().expect("valid");
        let map = &m.maps[0];
        // Copies in walk order (0, 1, 2, 5, 4, 3), at vertex 1 face 0's
        // then face 1's map vertex: 0, 1, 4, 5, 6, 2, 7, 3 → 9 … 16.
        let copied = [0u32, 1, 4, 5, 6, 2, 7, 3];
        assert_eq!(map.vertices.len(), 9 + copied.len());
        for (k, &t) in copied.iter().enumerate() {
            assert_eq!(map.vertices[9 + k], map.vertices[t as usize]);
        }
        assert_eq!(map.faces[0], [9, 10, 14, 16]);
        assert_eq!(map.faces[1], [11, 12, 13, 15]);
        // Walls 0 → 1 (face 0's), 1 → 2 (face 1's) … 4 → 3 (face 0's).
        assert_eq!(map.faces[8], [0, 1, 10, 9]);
        assert_eq!(map.faces[9], [4, 5, 12, 11]);
        assert_eq!(map.faces[12], [2, 3, 16, 14]);
        // The triangles outside keep theirs.
        assert_eq!(map.faces[2], [8, 8, 8]);
    }

    #[test]
    fn the_walk_starts_at_the_lowest_numbered_border_side() {
        let mut m = strip();
        // Side 2–5 numbered first.
        let mut edges = vec![[2, 5], [0, 1], [1, 4], [4, 3], [3, 0], [1, 2], [5, 4]];
        for (a, b) in [(0, 6), (1, 6), (2, 6), (5, 6), (4, 6), (3, 6)] {
            edges.push([a, b]);
        }
        extrude_group(&mut m, &[0, 1], Some(Numbering::Whole(&edges))).expect("group");
        // New vertices: 2, 5, 4, 3, 0, 1.
        assert_eq!(m.faces[1].v, [12, 7, 8, 9]);
        assert_eq!(m.faces[8].v, [2, 5, 8, 7]);
    }

    #[test]
    fn faces_without_area_add_nothing_to_the_direction() {
        // Face 1 flattened onto the line x = 1 (its corners 2 and 5 on 1 and
        // 4): no normal, so the group moves along face 0's alone.
        let mut m = strip();
        m.vertices[2] = Vec3(1.0, 0.0, 0.0);
        m.vertices[5] = Vec3(1.0, 1.0, 0.0);
        let g = extrude_group(&mut m, &[0, 1], None).expect("group");
        assert_eq!(g.normal.expect("normal"), Vec3(0.0, 0.0, 1.0));
        // Only faces without area: no direction, an error.
        let mut flat = strip();
        for v in &mut flat.vertices[..6] {
            v.1 = 0.0;
        }
        assert!(extrude_group(&mut flat, &[0, 1], None)
            .expect("group")
            .normal
            .is_err());
    }

    #[test]
    fn open_borders_and_borderless_selections_are_refused() {
        let mut open = strip();
        open.faces.truncate(2);
        assert!(extrude_group(&mut open, &[0, 1], None).is_err());
        // An inner face joined on all sides has no border of its own.
        let mut m = strip();
        let all: Vec<usize> = (0..m.faces.len()).collect();
        assert!(extrude_group(&mut m, &all, None).is_err());
    }
}
