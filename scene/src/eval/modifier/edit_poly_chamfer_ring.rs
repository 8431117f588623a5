//! Edit Poly's standard Chamfer Edge (type 0, closed) of a closed
//! ring of edges between two rings of faces, every ring vertex on exactly one
//! more edge on each side: Buwaka/Level-editing-2's domed cylinders (a
//! Cylinder's top rim, its cap cut into a fan by Connect Vertex, chamfered
//! with 22 segments).
//!
//! What Max builds, read off the Transforms recorded after the chamfer (one
//! offset per vertex: a scale in x of half the cylinder gives each moved
//! vertex's x before it) and the sizes Max saved. Each ring vertex C slides
//! along its other edge on each side (`slide`: `amount` along it, or onto
//! its far end when that edge is shorter): A on the side of the edges' f2
//! (the face running the edge v2 → v1), B on the side of their f1. The
//! profile is the quadratic Bézier A → (control C) → B at t = k / segments,
//! k = 0 … segments. Numbering: C keeps its index and becomes B (t = 1); the
//! A points are appended, then per ring vertex the inner points from t =
//! (segments − 1) / segments down to 1 / segments; ring vertices are taken
//! over the selected edges in index order, v1 then v2 when first met (the
//! order Mug's quad chamfer pins). The f2 faces take their A points, the f1
//! faces keep C (now B); per chamfered edge a → b (as its f1 face runs it)
//! the strip of quads [R_k(b), R_k(a), R_k−1(a), R_k−1(b)], k = segments … 1,
//! is appended, the half next to each face with its material and all with
//! the two faces' smoothing groups (as Mug's chamfer of 2 segments: two
//! quads per face).
//!
//! Not pinned: the A points' order (they coincide on the domes), the blocks
//! of the two ring vertices the first edge meets (v1 before v2 or in index
//! order: the Transforms move both alike), the strips' order, materials and
//! smoothing (no reference holds these meshes' faces).
//! Map channels leave the mesh, named by the caller, as for the quad chamfers.

use std::collections::{HashMap, HashSet};

use super::edit_poly_chamfer::slide;
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// Chamfers the closed ring `picked` (Max's v1, v2 per edge, in edge index
/// order) with `segments` rows of quads; returns the map channels removed.
pub(super) fn chamfer_ring(
    poly: &mut PolyMesh,
    picked: &[[u32; 2]],
    amount: f64,
    segments: i32,
) -> Result<Vec<i32>, EvalError> {
    let refuse = |why: String| {
        Err(EvalError::not_evaluated(format!(
            "a standard chamfer of {} edges {why} (only a closed ring between two rings of \
             faces, each ring vertex on one more edge per side, is checked against Max)",
            picked.len()
        )))
    };
    let s = usize::try_from(segments)
        .ok()
        .filter(|&s| (1..=1000).contains(&s))
        .ok_or_else(|| EvalError::malformed("", format!("chamfer segments {segments}")))?;
    let key = |a: u32, b: u32| (a.min(b), a.max(b));
    let ring: HashSet<(u32, u32)> = picked.iter().map(|e| key(e[0], e[1])).collect();
    if ring.len() != picked.len() {
        return Err(EvalError::malformed("", "an edge selected twice"));
    }
    // Per edge its f1 (runs v1 → v2) and f2.
    let mut f1 = Vec::new();
    let mut f2 = Vec::new();
    for &[a, b] in picked {
        let x = super::edit_poly_topo::faces_walking(poly, a, b);
        let y = super::edit_poly_topo::faces_walking(poly, b, a);
        let (&[x], &[y]) = (x.as_slice(), y.as_slice()) else {
            return refuse(format!(
                "with edge {a}–{b} on {} + {} faces",
                x.len(),
                y.len()
            ));
        };
        f1.push(x);
        f2.push(y);
    }
    // Corners where three or more chamfered edges meet (a box's 12 edges:
    // Gold's and containerBody's) get a corner polygon whose vertices and
    // numbering no reference holds: their saved sizes (24 vertices, 48 edges,
    // 26 faces) only count them (docs/unseen-files.md, "Chamfer of a box's
    // twelve edges").
    let mut meeting: HashMap<u32, usize> = HashMap::new();
    for &c in picked.iter().flatten() {
        *meeting.entry(c).or_default() += 1;
    }
    if let Some((c, n)) = meeting
        .iter()
        .filter(|(_, &n)| n >= 3)
        .min_by_key(|(&c, _)| c)
    {
        return refuse(format!(
            "with a corner at vertex {c} where {n} chamfered edges meet (the corner \
             polygon's vertices and numbering are not pinned)"
        ));
    }
    let sides: HashSet<usize> = f1.iter().chain(&f2).copied().collect();
    if sides.len() != 2 * picked.len() {
        return refuse("with a face on two of them".to_string());
    }
    // Ring vertices in order of first meeting; each on two ring edges.
    let mut order = Vec::new();
    let mut on: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, e) in picked.iter().enumerate() {
        for &c in e {
            let list = on.entry(c).or_default();
            if list.is_empty() {
                order.push(c);
            }
            list.push(i);
        }
    }
    if on.values().any(|l| l.len() != 2) || !connected(picked, &on) {
        return refuse("that are not one closed ring".to_string());
    }
    let mut neighbours: HashMap<u32, HashSet<u32>> = HashMap::new();
    for f in &poly.faces {
        let n = f.v.len();
        for j in 0..n {
            let (a, b) = (f.v[j], f.v[(j + 1) % n]);
            if on.contains_key(&a) {
                neighbours.entry(a).or_default().insert(b);
            }
            if on.contains_key(&b) {
                neighbours.entry(b).or_default().insert(a);
            }
        }
    }
    let at = |v: u32| poly.vertices[v as usize];
    // Per ring vertex the far ends of its side edges: the one edge at C
    // shared by its two f1 faces (B side), and by its two f2 faces (A side).
    let mut ends: HashMap<u32, (Vec3, Vec3)> = HashMap::new();
    for &c in &order {
        let near = &neighbours[&c];
        let off: Vec<u32> = near
            .iter()
            .copied()
            .filter(|&x| !ring.contains(&key(c, x)))
            .collect();
        if near.len() != 4 || off.len() != 2 {
            return refuse(format!("with ring vertex {c} on {} edges", near.len()));
        }
        let [i, j] = [on[&c][0], on[&c][1]];
        let shared = |p: usize, q: usize| {
            off.iter().copied().find(|&x| {
                let has = |f: usize| poly.faces[f].v.contains(&x) && poly.faces[f].v.contains(&c);
                has(p) && has(q)
            })
        };
        let (Some(b_end), Some(a_end)) = (shared(f1[i], f1[j]), shared(f2[i], f2[j])) else {
            return refuse(format!(
                "whose faces at ring vertex {c} do not keep to one side"
            ));
        };
        if a_end == b_end {
            return refuse(format!("with both sides of ring vertex {c} on one edge"));
        }
        let across: Vec<Vec3> = near
            .iter()
            .copied()
            .filter(|&x| ring.contains(&key(c, x)))
            .map(at)
            .collect();
        let place = |end: u32| {
            slide(at(c), at(end), &across, amount).ok_or_else(|| {
                EvalError::not_evaluated(format!(
                    "a chamfer whose ring vertex {c} does not meet its edge to {end} at right \
                     angles and that edge is longer than the amount"
                ))
            })
        };
        ends.insert(c, (place(a_end)?, place(b_end)?));
    }
    // Half the strip next to each face takes its material (Mug's quad chamfer
    // of 2 segments: two quads per face); an odd count splits no way seen.
    if s % 2 == 1
        && (0..picked.len()).any(|i| poly.faces[f1[i]].material != poly.faces[f2[i]].material)
    {
        return refuse(format!(
            "of {s} segment{} between faces of two materials",
            if s == 1 { "" } else { "s" }
        ));
    }

    // Rows: R_s = C's index (moved to B), R_0 = A, inner rows appended.
    let mut next =
        u32::try_from(poly.vertices.len()).map_err(|_| EvalError::limit("vertices", u32::MAX))?;
    let mut row: HashMap<(u32, usize), u32> = HashMap::new();
    let mut added = Vec::new();
    let bezier = |c: u32, k: usize| {
        let (a, b) = ends[&c];
        super::edit_poly_chamfer::quadratic_bezier(a, at(c), b, k as f64 / s as f64)
    };
    for &c in &order {
        row.insert((c, 0), next);
        next += 1;
        added.push(bezier(c, 0));
    }
    for &c in &order {
        for k in (1..s).rev() {
            row.insert((c, k), next);
            next = next
                .checked_add(1)
                .ok_or_else(|| EvalError::limit("vertices", u32::MAX))?;
            added.push(bezier(c, k));
        }
        row.insert((c, s), c);
    }
    let moved: Vec<(u32, Vec3)> = order.iter().map(|&c| (c, bezier(c, s))).collect();
    for (c, b) in moved {
        poly.vertices[c as usize] = b;
    }
    poly.vertices.extend(added);
    let r = |c: u32, k: usize| row[&(c, k)];
    let a_faces: HashSet<usize> = f2.iter().copied().collect();
    for (fi, f) in poly.faces.iter_mut().enumerate() {
        if a_faces.contains(&fi) {
            for v in f.v.iter_mut() {
                if on.contains_key(v) {
                    *v = r(*v, 0);
                }
            }
        }
    }
    let mut strips = Vec::new();
    for (i, &[a, b]) in picked.iter().enumerate() {
        let (x, y) = (&poly.faces[f1[i]], &poly.faces[f2[i]]);
        let sg = x.smoothing | y.smoothing;
        for k in (1..=s).rev() {
            let material = if 2 * k > s { x.material } else { y.material };
            strips.push(PolyFace::fan(
                vec![r(b, k), r(a, k), r(a, k - 1), r(b, k - 1)],
                material,
                sg,
            ));
        }
    }
    super::edit_poly_chamfer_edge::append_strips(poly, strips)
}

/// Whether the edges, two at every vertex (`on`: vertex → its two edges),
/// form one closed ring rather than several: a walk from the first edge
/// comes back after visiting every edge (linear, whatever the selection).
fn connected(edges: &[[u32; 2]], on: &HashMap<u32, Vec<usize>>) -> bool {
    let Some(&[start, _]) = edges.first() else {
        return false;
    };
    let (mut edge, mut at) = (0usize, start);
    for walked in 1..=edges.len() {
        // Leave `at` by its other edge, to that edge's other end.
        let Some(&next) = on.get(&at).and_then(|l| l.iter().find(|&&e| e != edge)) else {
            return false;
        };
        edge = next;
        let [a, b] = edges[edge];
        at = if a == at { b } else { a };
        if edge == 0 {
            return walked == edges.len();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A square column: bottom ring 0–3 (z 0), top ring 4–7 (z 1), the top
    /// cut into a fan around 8 (0, 0, 1); the top ring is chamfered, its
    /// edges given as the side quads run them (v1 → v2 on the B side).
    fn column(fan: bool) -> (PolyMesh, Vec<[u32; 2]>) {
        let xy = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)];
        let mut vertices: Vec<Vec3> = xy.iter().map(|&(x, y)| Vec3(x, y, 0.0)).collect();
        vertices.extend(xy.iter().map(|&(x, y)| Vec3(x, y, 1.0)));
        vertices.push(Vec3(0.0, 0.0, 1.0));
        let mut faces = vec![PolyFace::fan(vec![3, 2, 1, 0], 0, 1)];
        for i in 0..4u32 {
            let j = (i + 1) % 4;
            faces.push(PolyFace::fan(vec![i, j, 4 + j, 4 + i], 2, 2));
        }
        if fan {
            for i in 0..4u32 {
                faces.push(PolyFace::fan(vec![4 + i, 4 + (i + 1) % 4, 8], 0, 4));
            }
        } else {
            faces.push(PolyFace::fan(vec![4, 5, 6, 7], 0, 4));
        }
        let poly = PolyMesh {
            vertices,
            faces,
            maps: Vec::new(),
            edges: None,
            normals: None,
        };
        (poly, vec![[5, 4], [6, 5], [7, 6], [4, 7]])
    }

    #[test]
    fn a_ring_between_a_fan_and_quads_becomes_rows_on_the_bezier() {
        let (mut poly, ring) = column(true);
        let before = 9 - poly.walked_edges().len() as i64 + 9;
        // The amount passes both side edges: A is the fan's centre, B the
        // bottom ring (each a vertex of its own).
        chamfer_ring(&mut poly, &ring, 2.0, 4).expect("replayed");
        assert_eq!(poly.vertices.len(), 9 + 4 + 4 * 3);
        assert_eq!(poly.faces.len(), 9 + 4 * 4);
        let euler =
            poly.vertices.len() as i64 - poly.walked_edges().len() as i64 + poly.faces.len() as i64;
        assert_eq!(euler, before, "still one closed surface");
        // C keeps its index at B; the A points come next, then per ring
        // vertex (5, 4, 6, 7 as the edges meet them) t = ¾, ½, ¼.
        assert_eq!(poly.vertices[4], Vec3(1.0, 1.0, 0.0));
        for a in 9..13 {
            assert_eq!(poly.vertices[a], Vec3(0.0, 0.0, 1.0));
        }
        let c4 = Vec3(1.0, 1.0, 1.0);
        let bezier = |t: f64| {
            Vec3(0.0, 0.0, 1.0)
                .scale((1.0 - t) * (1.0 - t))
                .plus(c4.scale(2.0 * t * (1.0 - t)))
                .plus(Vec3(1.0, 1.0, 0.0).scale(t * t))
        };
        for (i, t) in [0.75, 0.5, 0.25].into_iter().enumerate() {
            assert!(poly.vertices[16 + i].minus(bezier(t)).len() < 1e-12, "{t}");
        }
        // The side quads keep C (now B), the fan takes A.
        assert_eq!(poly.faces[1].v, [0, 1, 5, 4]);
        assert_eq!(poly.faces[5].v, [10, 9, 8]);
        // Every side is run once each way (a closed, consistently wound mesh).
        let mut runs = HashSet::new();
        for f in &poly.faces {
            for j in 0..f.v.len() {
                assert!(runs.insert((f.v[j], f.v[(j + 1) % f.v.len()])), "{f:?}");
            }
        }
        assert!(runs.iter().all(|&(a, b)| runs.contains(&(b, a))));
        // The first strip (edge 5 → 4): from the B row to the A row, the
        // half next to each face with its material.
        assert_eq!(poly.faces[9].v, [4, 5, 13, 16]);
        assert_eq!(poly.faces[12].v, [18, 15, 9, 10]);
        let mats: Vec<u16> = poly.faces[9..13].iter().map(|f| f.material).collect();
        assert_eq!(mats, [2, 2, 0, 0]);
        assert!(poly.faces[9..].iter().all(|f| f.smoothing == 6));
    }

    #[test]
    fn other_rings_are_refused_by_name() {
        let refused =
            |poly: &mut PolyMesh, ring: &[[u32; 2]], s: i32| match chamfer_ring(poly, ring, 2.0, s)
            {
                Err(EvalError::NotEvaluated { what, .. }) => what,
                other => panic!("{other:?}"),
            };
        let (mut poly, ring) = column(true);
        assert!(
            refused(&mut poly, &ring, 3).contains("of 3 segments between faces of two materials")
        );
        assert!(refused(&mut poly, &ring[..3], 4).contains("that are not one closed ring"));
        // One cap face holding the whole ring (Mug's loop, a quad chamfer's
        // configuration).
        let (mut poly, ring) = column(false);
        let why = refused(&mut poly, &ring, 4);
        assert!(why.contains("with a face on two of them"), "{why}");
    }

    #[test]
    fn a_box_with_every_edge_chamfered_is_refused_at_its_corners() {
        let mut poly = crate::eval::objects::poly::unit_cube();
        let edges = poly.edges.clone().expect("edges");
        let why = match chamfer_ring(&mut poly, &edges, 0.1, 1) {
            Err(EvalError::NotEvaluated { what, .. }) => what,
            other => panic!("{other:?}"),
        };
        assert!(
            why.contains("a standard chamfer of 12 edges with a corner at vertex 0 where 3"),
            "{why}"
        );
    }

    #[test]
    fn one_ring_is_connected_and_two_rings_are_not() {
        let on_of = |edges: &[[u32; 2]]| {
            let mut on: HashMap<u32, Vec<usize>> = HashMap::new();
            for (i, e) in edges.iter().enumerate() {
                for &v in e {
                    on.entry(v).or_default().push(i);
                }
            }
            on
        };
        let square = [[0, 1], [2, 1], [2, 3], [3, 0]];
        assert!(connected(&square, &on_of(&square)));
        let two = [[0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3]];
        assert!(!connected(&two, &on_of(&two)));
    }
}
