//! Edit Poly's quad chamfer of every edge of a box-like mesh, corners where
//! three chamfered edges meet at right angles: level.max's Box038 (a Box's
//! 12 edges, 5 segments, tension 0.5, quad intersections). Read off the
//! Unwrap UVW cache above its Shell → Edit Poly (Chamfer, Cut): Max's own
//! positions (each through the Shell, whose two halves undo to the Edit
//! Poly's surface) and polygons, in Max's order (docs/unseen-files.md,
//! "Chamfer of a box's twelve edges" and "Quad chamfer at box corners").
//!
//! What Max builds, in units of the amount `a` along the three edges' unit
//! directions at a corner C (into the box; `n` = segments, profile
//! parameters k / 2n):
//!
//! - per corner, its centre C + ⅜a(e₁ + e₂ + e₃), then per chamfered edge
//!   (direction e) a row of n, u = k / 2n: C + a((1 − 1.5u + 0.5u²)e +
//!   (0.25 + 0.5u²)(e′ + e″));
//! - per face corner (face f, corner C, previous corner P, next N), a block
//!   of n × n, vertex n·j + i at s = i / 2n, t = j / 2n: the point
//!   C + a(x e_P + y e_N + z e_O) with x = (1 − s)² + st/2 + st² − s²t,
//!   y = (1 − t)² + st/2 + s²t − st², z = s² + t² + st/2 − st² − s²t (e_O
//!   the edge off the face). Its column i = n is the row of the edge C → N,
//!   its row j = n that of C → P, (n, n) the centre.
//!
//! Numbering: the corners' blocks of 1 + 3n first, corners in order of first
//! meeting over the selected edges in index order (v1 then v2), the rows in
//! the corner's cyclic edge order (a face's side leaving C, then the side
//! leaving C of the face that runs that edge into C), from its lowest-index
//! edge; then the face corners' blocks, face by face, corner by corner, all
//! after the old vertices, which stay on no face (blockout 3–5's Box025, a
//! Box with this chamfer alone, saved 736 = 8 + 728 vertices; level's Box038
//! dropped them at the Delete Face after its Cut, so its cache numbers the
//! chamfer's vertex i + 8 as i). Polygons: each face keeps its index
//! with its corners' block origins, starting at its second corner (the
//! cache's triangles split every other quad on its 0–2 diagonal, the faces
//! on 1–3); then per face and corner the n × n quads [G(i, j), G(i, j + 1),
//! G(i + 1, j + 1), G(i + 1, j)], j outer; then per face and side a → b the
//! half strip next to it, quads [G_b(0, k), G_a(k, 0), G_a(k + 1, 0),
//! G_b(0, k + 1)], k = 0 … n − 1 (no vertex along the long strips). Every new
//! quad takes its face's material.
//!
//! Not pinned (nothing holds them: Box038's cache has no smoothing groups,
//! and the Shell and Unwrap replace the map): smoothing groups — the half
//! strips take their two faces' union as Mug's loop chamfer does, a corner's
//! quads the union of its three faces'; map channels leave the mesh, named by
//! the caller, as for every chamfer. Segments other than 5, tensions other
//! than 0.5, corners not at right angles or not convex, edges not longer
//! than twice the amount, meshes with an unchamfered edge: refused by name.

use std::collections::{HashMap, HashSet};

use super::edit_poly_topo::newell_normal;
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// Whether three or more of `picked` meet at one vertex (this module's
/// configuration rather than a loop's or single edges').
pub(super) fn has_corner(picked: &[[u32; 2]]) -> bool {
    let mut meeting: HashMap<u32, usize> = HashMap::new();
    for &c in picked.iter().flatten() {
        *meeting.entry(c).or_default() += 1;
    }
    meeting.values().any(|&n| n >= 3)
}

/// Chamfers `picked` (Max's v1, v2 per edge, in edge index order), every
/// edge of a box-like mesh; returns the map channels removed.
pub(super) fn chamfer_corners(
    poly: &mut PolyMesh,
    picked: &[[u32; 2]],
    amount: f64,
    segments: i32,
    tension: f64,
) -> Result<Vec<i32>, EvalError> {
    let refuse = |why: String| {
        Err(EvalError::not_evaluated(format!(
            "a quad chamfer of {} edges {why} (only every edge of a box, 5 segments, tension \
             0.5, is checked against Max: corners where three edges meet at right angles)",
            picked.len()
        )))
    };
    if segments != 5 || tension != 0.5 {
        return refuse(format!(
            "with corners where three meet, {segments} segments, tension {}",
            tension as f32
        ));
    }
    let n = 5usize;
    let key = |a: u32, b: u32| (a.min(b), a.max(b));
    // Edge rank by index (picked is in index order).
    let mut rank: HashMap<(u32, u32), usize> = HashMap::new();
    for (i, e) in picked.iter().enumerate() {
        if rank.insert(key(e[0], e[1]), i).is_some() {
            return Err(EvalError::malformed("", "an edge selected twice"));
        }
    }
    // Directed sides → face; every side of every face chamfered.
    let mut side_face: HashMap<(u32, u32), usize> = HashMap::new();
    for (fi, f) in poly.faces.iter().enumerate() {
        let m = f.v.len();
        for j in 0..m {
            let (a, b) = (f.v[j], f.v[(j + 1) % m]);
            if !rank.contains_key(&key(a, b)) {
                return refuse(format!("leaving face {fi}'s side {a}–{b} unchamfered"));
            }
            if side_face.insert((a, b), fi).is_some() {
                return refuse(format!("with side {a} → {b} on two faces"));
            }
        }
    }
    for e in picked {
        if !side_face.contains_key(&(e[0], e[1])) || !side_face.contains_key(&(e[1], e[0])) {
            return refuse(format!("with edge {}–{} not between two faces", e[0], e[1]));
        }
    }
    // Corners in order of first meeting.
    let mut order = Vec::new();
    let mut seen = HashSet::new();
    for e in picked {
        for &c in e {
            if seen.insert(c) {
                order.push(c);
            }
        }
    }
    let at = |v: u32| poly.vertices[v as usize];
    let next_in = |f: usize, c: u32| {
        let v = &poly.faces[f].v;
        v.iter()
            .position(|&x| x == c)
            .map(|j| (v[(j + v.len() - 1) % v.len()], v[(j + 1) % v.len()]))
    };
    // Per corner: its three far ends in cyclic order, from the lowest edge.
    let mut around: HashMap<u32, [u32; 3]> = HashMap::new();
    for &c in &order {
        let mut far: Vec<u32> = side_face
            .keys()
            .filter(|&&(a, _)| a == c)
            .map(|&(_, b)| b)
            .collect();
        if far.len() != 3 {
            return refuse(format!("with corner {c} on {} edges", far.len()));
        }
        far.sort_by_key(|&x| rank[&key(c, x)]);
        let mut cycle = vec![far[0]];
        while cycle.len() < 3 {
            let x = cycle[cycle.len() - 1];
            // The face running x → c leaves c by its next side.
            let Some((_, next)) = side_face.get(&(x, c)).and_then(|&g| next_in(g, c)) else {
                return Err(EvalError::malformed("", "a face lost its corner"));
            };
            cycle.push(next);
        }
        let cycle = [cycle[0], cycle[1], cycle[2]];
        let mut sorted = cycle;
        sorted.sort_unstable();
        far.sort_unstable();
        if sorted[..] != far[..] {
            return refuse(format!("whose faces at corner {c} do not close around it"));
        }
        // Right angles, room for both ends' rows.
        let dirs = cycle.map(|x| at(x).minus(at(c)));
        for (i, d) in dirs.iter().enumerate() {
            let l = d.len();
            if l.is_nan() || l <= 2.0 * amount {
                return refuse(format!(
                    "with edge {c}–{} not longer than twice the amount",
                    cycle[i]
                ));
            }
            let o = dirs[(i + 1) % 3];
            if (d.dot(o) / (l * o.len())).abs() >= 1e-4 {
                return refuse(format!("whose edges at corner {c} are not at right angles"));
            }
        }
        around.insert(c, cycle);
    }
    let unit = |c: u32, x: u32| at(x).minus(at(c)).normalized();
    // Convex corners: the edge off each face points into the solid.
    for (fi, f) in poly.faces.iter().enumerate() {
        let nrm = newell_normal(poly, &f.v)
            .ok_or_else(|| EvalError::malformed("", format!("face {fi} has no area")))?
            .normalized();
        for &c in &f.v {
            let Some((p, q)) = next_in(fi, c) else {
                return Err(EvalError::malformed("", "a face lost its corner"));
            };
            let Some(&o) = around[&c].iter().find(|&&x| x != p && x != q) else {
                return refuse(format!("with face {fi} folded at corner {c}"));
            };
            let turn = unit(c, q).cross(unit(c, p)).dot(nrm);
            if unit(c, o).dot(nrm) > -0.9999 || turn <= 0.0 {
                return refuse(format!("with a corner {c} that is not convex"));
            }
        }
    }

    // New vertices in Max's order.
    let mut added: Vec<Vec3> = Vec::new();
    let index = |p: Vec3, added: &mut Vec<Vec3>| -> Result<u32, EvalError> {
        let i = poly.vertices.len() + added.len();
        added.push(p);
        u32::try_from(i).map_err(|_| EvalError::limit("vertices", u32::MAX))
    };
    let twice = 2.0 * n as f64;
    let mut centre: HashMap<u32, u32> = HashMap::new();
    let mut row: HashMap<(u32, u32), u32> = HashMap::new();
    for &c in &order {
        let e = around[&c].map(|x| unit(c, x));
        let pc = at(c);
        let sum = e[0].plus(e[1]).plus(e[2]);
        centre.insert(c, index(pc.plus(sum.scale(0.375 * amount)), &mut added)?);
        for (r, &x) in around[&c].iter().enumerate() {
            let others = e[(r + 1) % 3].plus(e[(r + 2) % 3]);
            for k in 0..n {
                let u = k as f64 / twice;
                let p = pc
                    .plus(e[r].scale(amount * (1.0 - 1.5 * u + 0.5 * u * u)))
                    .plus(others.scale(amount * (0.25 + 0.5 * u * u)));
                let i = index(p, &mut added)?;
                if k == 0 {
                    row.insert((c, x), i);
                }
            }
        }
    }
    // Per (face, corner position) the block's first index.
    let mut block: HashMap<(usize, usize), u32> = HashMap::new();
    for (fi, f) in poly.faces.iter().enumerate() {
        let m = f.v.len();
        for q in 0..m {
            let (c, nx, pv) = (f.v[q], f.v[(q + 1) % m], f.v[(q + m - 1) % m]);
            let Some(&o) = around[&c].iter().find(|&&x| x != nx && x != pv) else {
                return Err(EvalError::malformed("", "a face lost its corner"));
            };
            let (ep, en, eo) = (unit(c, pv), unit(c, nx), unit(c, o));
            for j in 0..n {
                for i in 0..n {
                    let (s, t) = (i as f64 / twice, j as f64 / twice);
                    let x = (1.0 - s).powi(2) + s * t / 2.0 + s * t * t - s * s * t;
                    let y = (1.0 - t).powi(2) + s * t / 2.0 + s * s * t - s * t * t;
                    let z = s * s + t * t + s * t / 2.0 - s * t * t - s * s * t;
                    let p = at(c)
                        .plus(ep.scale(amount * x))
                        .plus(en.scale(amount * y))
                        .plus(eo.scale(amount * z));
                    let idx = index(p, &mut added)?;
                    if i == 0 && j == 0 {
                        block.insert((fi, q), idx);
                    }
                }
            }
        }
    }
    poly.vertices.extend(added);

    // G(i, j) of face f's block at corner position q.
    let n32 = n as u32;
    let g = |fi: usize, q: usize, i: usize, j: usize| -> u32 {
        let v = &poly.faces[fi].v;
        let m = v.len();
        let (c, nx, pv) = (v[q], v[(q + 1) % m], v[(q + m - 1) % m]);
        match (i == n, j == n) {
            (false, false) => block[&(fi, q)] + n32 * j as u32 + i as u32,
            (true, false) => row[&(c, nx)] + j as u32,
            (false, true) => row[&(c, pv)] + i as u32,
            (true, true) => centre[&c],
        }
    };
    let faces_at = |c: u32| -> u32 {
        around[&c]
            .iter()
            .filter_map(|&x| side_face.get(&(c, x)))
            .fold(0, |acc, &f| acc | poly.faces[f].smoothing)
    };
    let mut quads = Vec::new();
    for (fi, f) in poly.faces.iter().enumerate() {
        for q in 0..f.v.len() {
            let sg = faces_at(f.v[q]);
            for j in 0..n {
                for i in 0..n {
                    quads.push(PolyFace::fan(
                        vec![
                            g(fi, q, i, j),
                            g(fi, q, i, j + 1),
                            g(fi, q, i + 1, j + 1),
                            g(fi, q, i + 1, j),
                        ],
                        f.material,
                        sg,
                    ));
                }
            }
        }
    }
    for (fi, f) in poly.faces.iter().enumerate() {
        let m = f.v.len();
        for qa in 0..m {
            let qb = (qa + 1) % m;
            let beyond = side_face[&(f.v[qb], f.v[qa])];
            let sg = f.smoothing | poly.faces[beyond].smoothing;
            for k in 0..n {
                quads.push(PolyFace::fan(
                    vec![
                        g(fi, qb, 0, k),
                        g(fi, qa, k, 0),
                        g(fi, qa, k + 1, 0),
                        g(fi, qb, 0, k + 1),
                    ],
                    f.material,
                    sg,
                ));
            }
        }
    }
    let firsts: Vec<Vec<u32>> = (0..poly.faces.len())
        .map(|fi| {
            let m = poly.faces[fi].v.len();
            (0..m).map(|q| block[&(fi, (q + 1) % m)]).collect()
        })
        .collect();
    for (f, v) in poly.faces.iter_mut().zip(firsts) {
        *f = PolyFace::fan(v, f.material, f.smoothing);
    }
    super::edit_poly_chamfer_edge::append_strips(poly, quads)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// level.max's Box038 as its Edit Poly receives it (Max's Box: faces
    /// bottom, top, then the sides; MNMesh's 12 edges in Max's order).
    fn box038() -> (PolyMesh, Vec<[u32; 2]>) {
        let (x, y, z) = (552.7172, 549.0332, 624.6334);
        let vertices = [
            (-x, -y, 0.0),
            (x, -y, 0.0),
            (-x, y, 0.0),
            (x, y, 0.0),
            (-x, -y, z),
            (x, -y, z),
            (-x, y, z),
            (x, y, z),
        ]
        .map(|(a, b, c)| Vec3(a, b, c))
        .to_vec();
        let faces = [
            ([0, 2, 3, 1], 1),
            ([4, 5, 7, 6], 0),
            ([0, 1, 5, 4], 4),
            ([1, 3, 7, 5], 3),
            ([3, 2, 6, 7], 5),
            ([2, 0, 4, 6], 2),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, (v, m))| PolyFace::fan(v.to_vec(), m, 2 << i))
        .collect();
        let edges = vec![
            [0, 2],
            [2, 3],
            [3, 1],
            [1, 0],
            [4, 5],
            [5, 7],
            [7, 6],
            [6, 4],
            [1, 5],
            [4, 0],
            [3, 7],
            [2, 6],
        ];
        let poly = PolyMesh {
            vertices,
            faces,
            maps: Vec::new(),
            edges: Some(edges.clone()),
            normals: None,
        };
        (poly, edges)
    }

    const AMOUNT: f64 = 15.058954;

    /// Max's own vertices, from the Unwrap UVW cache above Box038's Shell
    /// (level.max, Buwaka's Level-editing set): each the Shell's outer copy
    /// i plus (inner copy i + 754 − outer) / 2.5, which undoes its offsets
    /// of 1 out and 1.5 in. Corner 0's block (centre, rows along its edges
    /// 0–2, 0–4, 0–1), corner 2's and 3's first, face 0's block at corner 0,
    /// and some later ones; numbered as the cache does, 8 below the
    /// chamfer's.
    const MAX_VERTICES: [(usize, [f64; 3]); 52] = [
        (0, [-547.0700, -543.3861, 5.6471]),
        (1, [-548.9524, -533.9742, 3.7647]),
        (2, [-548.8771, -536.1578, 3.8400]),
        (3, [-548.6512, -538.1908, 4.0659]),
        (4, [-548.2748, -540.0731, 4.4424]),
        (5, [-547.7477, -541.8049, 4.9695]),
        (6, [-548.9524, -545.2684, 15.0590]),
        (7, [-548.8771, -545.1932, 12.8754]),
        (8, [-548.6512, -544.9673, 10.8424]),
        (9, [-548.2748, -544.5908, 8.9601]),
        (10, [-547.7477, -544.0637, 7.2283]),
        (11, [-537.6582, -545.2684, 3.7647]),
        (12, [-539.8418, -545.1931, 3.8400]),
        (13, [-541.8748, -544.9673, 4.0659]),
        (14, [-543.7571, -544.5908, 4.4424]),
        (15, [-545.4888, -544.0637, 4.9695]),
        (16, [-547.0700, 543.3861, 5.6471]),
        (17, [-548.9524, 533.9742, 3.7647]),
        (22, [-537.6582, 545.2684, 3.7647]),
        (27, [-548.9524, 545.2684, 15.0590]),
        (32, [547.0700, 543.3861, 5.6471]),
        (128, [-537.6582, -533.9742, 0.0000]),
        (129, [-540.5194, -533.9742, 0.1506]),
        (130, [-543.0795, -533.9742, 0.6024]),
        (131, [-545.3383, -533.9742, 1.3553]),
        (132, [-547.2959, -533.9742, 2.4094]),
        (133, [-537.6583, -536.8354, 0.1506]),
        (134, [-540.4442, -536.7601, 0.3464]),
        (135, [-542.9590, -536.6548, 0.8132]),
        (136, [-545.2027, -536.5192, 1.5511]),
        (137, [-547.1755, -536.3537, 2.5600]),
        (138, [-537.6583, -539.3955, 0.6024]),
        (139, [-540.3388, -539.2751, 0.8132]),
        (140, [-542.7783, -539.0944, 1.2650]),
        (141, [-544.9769, -538.8533, 1.9577]),
        (142, [-546.9346, -538.5522, 2.8913]),
        (143, [-537.6582, -541.6543, 1.3553]),
        (144, [-540.2032, -541.5188, 1.5511]),
        (145, [-542.5373, -541.2928, 1.9577]),
        (146, [-544.6606, -540.9766, 2.5751]),
        (147, [-546.5731, -540.5701, 3.4033]),
        (148, [-537.6582, -543.6120, 2.4094]),
        (149, [-540.0376, -543.4915, 2.5600]),
        (150, [-542.2361, -543.2505, 2.8913]),
        (151, [-544.2540, -542.8891, 3.4033]),
        (152, [-546.0912, -542.4073, 4.0960]),
        (153, [-537.6582, 533.9742, 0.0000]),
        (203, [537.6582, -533.9742, 0.0000]),
        (228, [-537.6582, -533.9742, 624.6334]),
        (353, [537.6582, -549.0332, 15.0590]),
        (500, [549.8259, 543.2505, 614.1524]),
        (727, [-548.6211, 542.4072, 618.0074]),
    ];

    /// Max's polygons at Max's index, from the same cache (two triangles per
    /// quad, split on its 0–2 diagonal; the Cut after the chamfer moved face
    /// 2 to the end, so the cache's polygon k ≥ 2 is the chamfer's k + 1;
    /// vertices numbered as the cache does, 8 below the chamfer's).
    const MAX_POLYGONS: [(usize, [u32; 4], u16); 13] = [
        (0, [153, 178, 203, 128], 1),
        (1, [253, 278, 303, 228], 0),
        (3, [453, 478, 503, 428], 3),
        (5, [653, 678, 703, 628], 2),
        (6, [128, 133, 134, 129], 1),
        (29, [151, 14, 15, 152], 1),
        (30, [152, 15, 0, 5], 1),
        (31, [153, 158, 159, 154], 1),
        (605, [727, 122, 112, 127], 2),
        (606, [153, 128, 129, 158], 1),
        (610, [173, 132, 1, 17], 1),
        (650, [373, 332, 11, 54], 4),
        (725, [648, 707, 123, 27], 2),
    ];

    fn params() -> (f64, i32, f64) {
        (AMOUNT, 5, 0.5)
    }

    #[test]
    fn a_box_with_every_edge_chamfered_matches_level_box038() {
        let (mut poly, edges) = box038();
        let (a, s, t) = params();
        chamfer_corners(&mut poly, &edges, a, s, t).expect("replayed");
        // Box025's saved 736 vertices: the old 8, on no face, and 728 new
        // (Box038's cache: 1,508 = 2 × (728 + 26 of the Cut) through the
        // Shell); the 726 faces Box038's Edit Poly saved (its Cut adds none).
        assert_eq!(poly.vertices.len(), 736);
        assert!(poly.faces.iter().all(|f| f.v.iter().all(|&v| v >= 8)));
        assert_eq!(poly.faces.len(), 726);
        assert_eq!(poly.walked_edges().len(), 1452);
        for (i, p) in MAX_VERTICES {
            let i = i + 8;
            let d = poly.vertices[i].minus(Vec3(p[0], p[1], p[2])).len();
            assert!(d < 3e-4, "vertex {i}: {:?} against {p:?}", poly.vertices[i]);
        }
        for (k, v, m) in MAX_POLYGONS {
            let v = v.map(|c| c + 8);
            assert_eq!(
                (poly.faces[k].v.as_slice(), poly.faces[k].material),
                (&v[..], m)
            );
        }
        assert!(poly.faces[6..].iter().all(|f| f.v.len() == 4));
        // A strip half takes its two faces' groups, a corner block its three.
        assert_eq!(poly.faces[606].smoothing, 2 | 64);
        assert_eq!(poly.faces[6].smoothing, 2 | 8 | 64);
    }

    #[test]
    fn other_boxes_are_refused_by_name() {
        let refused =
            |poly: &mut PolyMesh, edges: &[[u32; 2]], s: i32, t: f64| match chamfer_corners(
                poly, edges, AMOUNT, s, t,
            ) {
                Err(EvalError::NotEvaluated { what, .. }) => what,
                other => panic!("{other:?}"),
            };
        let (mut poly, edges) = box038();
        let why = refused(&mut poly.clone(), &edges, 3, 0.5);
        assert!(why.contains("3 segments, tension 0.5"), "{why}");
        let why = refused(&mut poly.clone(), &edges, 5, 1.0);
        assert!(why.contains("5 segments, tension 1"), "{why}");
        let why = refused(&mut poly.clone(), &edges[1..], 5, 0.5);
        assert!(why.contains("side 0–2 unchamfered"), "{why}");
        // A sheared top: no right angles at its corners.
        poly.vertices[7].0 += 40.0;
        let why = refused(&mut poly, &edges, 5, 0.5);
        assert!(why.contains("not at right angles"), "{why}");
    }
}
