//! Edit Poly's Cap (operation 9; its record holds the edge selection only):
//! every border loop holding a selected edge is closed by one new polygon
//! (`MNMesh::FillInBorders` on the loops `MNMeshBorder` finds). No vertex
//! or edge is made: the loop's edges, one-sided before, get the cap as their
//! second face, so MNMesh's edge numbering (v1 → v2 as the first face walks
//! it) stays as it was, and so does a known prefix of it after extrusions.
//!
//! - The polygon runs the loop against its faces (`MNMeshBorder`'s order,
//!   public: edge j + 1 ends where edge j starts), so its normal points out.
//! - A loop starts at its lowest-numbered edge e (v1 → v2 as its face walks
//!   it); the cap's corners are v2, v1, then on against the faces. Caps are
//!   appended after the faces in the order of those edges. Not pinned by any
//!   file (see docs/max-format.md): Buwaka's Door8 Light up constrains the
//!   first corner (not on the cap's arc past its start) and agrees.
//! - Material 0, no smoothing group (`MNMesh::NewFace`'s defaults, as
//!   Create takes them); not pinned.
//! - Triangulation: a planar cap is ear-clipped in its plane (a fan from
//!   corner 0 when convex; any triangulation of a planar simple polygon
//!   covers the same surface); a cap that is not planar is fanned from
//!   corner 0 (`MNFace::MakePoly`) and, if it reaches the Edit Poly's output
//!   unchanged and still not planar (or moved out of the shape it was cut
//!   for), its triangulation is named as not Max's ([`Made::left_in`]).
//! - Map channels are left out, named: whether the cap reuses the border's
//!   map vertices or gets its own is not derived.
//!
//! Refused by name: a selected edge with faces on both sides, a border that
//! passes a vertex twice, an edge beyond the known numbering.
//!
//! Evidence: the sizes Max recorded after caps (docs/max-format.md, Cap
//! row): +1 face per loop, vertices and edges unchanged; Door8's one
//! selected edge of a 95-edge loop capping the whole loop.

use super::edit_poly_retriangulate::convex;
use super::edit_poly_topo::selected_indices;
use super::unwrap_cache::{planar, triangulate};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::MissingPart;
use crate::eval::objects::poly::{PolyFace, PolyMesh};
use std::collections::{HashMap, HashSet};

/// Caps the border loops through the selected edges (see the module).
/// `edges` is MNMesh's edge numbering as far as it is known (all of it, or
/// the prefix extrusions kept); the selection is sized to the whole edge
/// count. Returns the map channels left out.
pub(super) fn cap(
    poly: &mut PolyMesh,
    sel: &[bool],
    edges: &[[u32; 2]],
) -> Result<Vec<i32>, EvalError> {
    poly.validate()?;
    let count = poly.walked_edges().len();
    let chosen = selected_indices(sel, count, "edges")?;
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    let sides = sides(poly)?;
    // Border sides (no face walks them back), by their start vertex.
    let mut from: HashMap<u32, Vec<u32>> = HashMap::new();
    for &(a, b) in &sides {
        if !sides.contains(&(b, a)) {
            from.entry(a).or_default().push(b);
        }
    }
    let index: HashMap<(u32, u32), usize> = edges
        .iter()
        .enumerate()
        .map(|(i, &[a, b])| ((a.min(b), a.max(b)), i))
        .collect();
    let mut on_loop: HashSet<(u32, u32)> = HashSet::new();
    // (lowest known edge index, loop in the faces' direction from it).
    let mut loops: Vec<(usize, Vec<u32>)> = Vec::new();
    for &e in &chosen {
        let [a, b] = *edges.get(e).ok_or_else(|| {
            EvalError::not_evaluated(format!(
                "capping at edge {e}, beyond the {} edges whose numbering is known",
                edges.len()
            ))
        })?;
        // The border side as its face walks it.
        let (x, y) = match (sides.contains(&(a, b)), sides.contains(&(b, a))) {
            (true, false) => (a, b),
            (false, true) => (b, a),
            (true, true) => {
                return Err(EvalError::not_evaluated_why(
                    format!("capping at edge {e} ({a} – {b})"),
                    "it has a face on both sides, and what Max does with such a \
                     selected edge is not derived",
                ))
            }
            (false, false) => {
                return Err(EvalError::malformed(
                    "",
                    format!("edge {e} ({a} – {b}) is no side of a face"),
                ))
            }
        };
        if on_loop.contains(&(x, y)) {
            continue;
        }
        let walk = border_loop(&from, x, y, poly.vertices.len()).map_err(|v| {
            EvalError::not_evaluated_why(
                format!("capping the border through edge {e}"),
                format!(
                    "it passes vertex {v} more than once, and how Max closes it \
                     there is not derived"
                ),
            )
        })?;
        let n = walk.len();
        // Start at the loop's lowest-numbered edge (unknown numbers, past
        // the known prefix, are higher than any known one).
        let start = (0..n)
            .filter_map(|j| {
                let (p, q) = (walk[j], walk[(j + 1) % n]);
                index.get(&(p.min(q), p.max(q))).map(|&i| (i, j))
            })
            .min()
            .ok_or_else(|| EvalError::malformed("", "a border loop with no numbered edge"))?;
        for j in 0..n {
            on_loop.insert((walk[j], walk[(j + 1) % n]));
        }
        let walk: Vec<u32> = (0..n).map(|k| walk[(start.1 + k) % n]).collect();
        loops.push((start.0, walk));
    }
    loops.sort_by_key(|(lowest, _)| *lowest);
    for (_, walk) in loops {
        let v = cap_corners(&walk);
        let p = positions(poly, &v);
        let tris = if planar(&p) {
            triangulate(&p).ok_or_else(|| {
                EvalError::not_evaluated_why(
                    format!("a cap of {} corners folded over itself", v.len()),
                    "no triangulation lies inside its outline",
                )
            })?
        } else {
            PolyFace::fan(v.clone(), 0, 0).tris
        };
        poly.faces.push(PolyFace {
            v,
            tris,
            material: 0,
            smoothing: 0,
        });
    }
    let left: Vec<i32> = poly.maps.iter().map(|m| m.channel).collect();
    poly.maps.clear();
    poly.validate()?;
    Ok(left)
}

/// Every face side a → b as its face walks it; a side walked twice the same
/// way is a mesh whose border loops are not defined.
fn sides(poly: &PolyMesh) -> Result<HashSet<(u32, u32)>, EvalError> {
    let mut sides = HashSet::new();
    for (fi, f) in poly.faces.iter().enumerate() {
        let n = f.v.len();
        for j in 0..n {
            let s = (f.v[j], f.v[(j + 1) % n]);
            if !sides.insert(s) {
                return Err(EvalError::not_evaluated(format!(
                    "capping a mesh whose face {fi} walks side {} → {} as another face does",
                    s.0, s.1
                )));
            }
        }
    }
    Ok(sides)
}

/// The border loop through the border side x → y, in the faces' direction
/// from x; Err(vertex) where the border passes a vertex more than once.
fn border_loop(
    from: &HashMap<u32, Vec<u32>>,
    x: u32,
    y: u32,
    vertices: usize,
) -> Result<Vec<u32>, u32> {
    let mut walk = vec![x];
    let mut at = y;
    while at != x {
        match from.get(&at).map(Vec::as_slice) {
            Some([next]) if walk.len() <= vertices => {
                walk.push(at);
                at = *next;
            }
            _ => return Err(at),
        }
    }
    if from.get(&x).map_or(0, Vec::len) != 1 {
        return Err(x);
    }
    Ok(walk)
}

/// The cap's corners for a border loop [x, y, z, …, w] walked the faces' way
/// from its start edge x → y: [y, x, w, …, z], the loop the other way round.
fn cap_corners(walk: &[u32]) -> Vec<u32> {
    let n = walk.len();
    (0..n).map(|k| walk[(n + 1 - k) % n]).collect()
}

/// The positions of corners `v`; a corner past the vertices (never after
/// `validate`) is placed at NaN, which `Made::left_in` names.
fn positions(poly: &PolyMesh, v: &[u32]) -> Vec<Vec3> {
    v.iter()
        .map(|&i| {
            poly.vertices
                .get(i as usize)
                .copied()
                .unwrap_or(Vec3(f64::NAN, f64::NAN, f64::NAN))
        })
        .collect()
}

/// The caps an Edit Poly's operations made, to check at its output whether
/// their triangulation still covers Max's surface.
#[derive(Default)]
pub(super) struct Made {
    /// Each cap's corners and their positions when it was made.
    caps: Vec<(Vec<u32>, Vec<Vec3>)>,
}

impl Made {
    /// Notes the caps appended after face `first` by a Cap just replayed.
    pub(super) fn note(&mut self, poly: &PolyMesh, first: usize) {
        for f in poly.faces.iter().skip(first) {
            self.caps.push((f.v.clone(), positions(poly, &f.v)));
        }
    }

    /// What of the output's triangulation is not Max's: caps that reach it
    /// unchanged and are not planar now, or are planar but not convex and
    /// moved other than by an affine map since they were made (Max's
    /// diagonals, inside the outline then, may leave it; ours are the
    /// ear-clipped ones of that moment, or a fan).
    pub(super) fn left_in(&self, poly: &PolyMesh, modifier: &str) -> Option<MissingPart> {
        let faces: HashSet<&[u32]> = poly.faces.iter().map(|f| f.v.as_slice()).collect();
        let odd = self
            .caps
            .iter()
            .filter(|(v, _)| faces.contains(v.as_slice()))
            .filter(|(v, then)| {
                let now = positions(poly, v);
                now.iter().any(|p| p.0.is_nan())
                    || !planar(&now)
                    || !(convex(&now) || planar(then) && affine_image(then, &now))
            })
            .count();
        (odd > 0).then(|| MissingPart {
            part: "triangulation".to_string(),
            source: format!("modifier {modifier}"),
            reason: format!(
                "{odd} polygons its Cap made are not planar (or not convex and reshaped) \
                 and Max's diagonals are not derived (ours fan from corner 0)"
            ),
        })
    }
}

/// Whether the planar polygon `now` is `then` (planar too) mapped by one
/// affine map, within 1e-6 of its size: a triangulation inside `then`'s
/// outline is then inside `now`'s. Fitted by least squares in `then`'s plane.
fn affine_image(then: &[Vec3], now: &[Vec3]) -> bool {
    let k = then.len() as f64;
    let c = then
        .iter()
        .fold(Vec3(0.0, 0.0, 0.0), |s, p| s.plus(*p))
        .scale(1.0 / k);
    let far = then
        .iter()
        .map(|p| p.minus(c))
        .fold(
            Vec3(0.0, 0.0, 0.0),
            |a, b| if b.len() > a.len() { b } else { a },
        );
    let n = super::unwrap_cache::newell(then);
    if far.len() <= 0.0 || n.len() <= 0.0 {
        return false;
    }
    let u = far.normalized();
    let w = n.normalized().cross(u);
    let uv: Vec<[f64; 3]> = then
        .iter()
        .map(|p| [p.minus(c).dot(u), p.minus(c).dot(w), 1.0])
        .collect();
    // Normal equations (3 × 3) per output coordinate.
    let mut ata = [[0.0f64; 3]; 3];
    for r in &uv {
        for i in 0..3 {
            for j in 0..3 {
                ata[i][j] += r[i] * r[j];
            }
        }
    }
    let Some(inv) = invert3(ata) else {
        return false;
    };
    let size = now
        .iter()
        .map(|p| p.minus(now[0]).len())
        .fold(far.len(), f64::max);
    let coords: [fn(&Vec3) -> f64; 3] = [|p| p.0, |p| p.1, |p| p.2];
    coords.iter().all(|get| {
        let mut atb = [0.0f64; 3];
        for (r, p) in uv.iter().zip(now) {
            for i in 0..3 {
                atb[i] += r[i] * get(p);
            }
        }
        let m: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| inv[i][j] * atb[j]).sum())
            .collect();
        uv.iter()
            .zip(now)
            .all(|(r, p)| (r[0] * m[0] + r[1] * m[1] + r[2] * m[2] - get(p)).abs() <= 1e-6 * size)
    })
}

/// The inverse of a 3 × 3 matrix, None when (nearly) singular.
fn invert3(m: [[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let cof =
        |r0: usize, r1: usize, c0: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
    let det = m[0][0] * cof(1, 2, 1, 2) - m[0][1] * cof(1, 2, 0, 2) + m[0][2] * cof(1, 2, 0, 1);
    let scale = m.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
    if !det.is_finite() || det.abs() <= 1e-12 * scale.powi(3) {
        return None;
    }
    let adj = [
        [cof(1, 2, 1, 2), -cof(0, 2, 1, 2), cof(0, 1, 1, 2)],
        [-cof(1, 2, 0, 2), cof(0, 2, 0, 2), -cof(0, 1, 0, 2)],
        [cof(1, 2, 0, 1), -cof(0, 2, 0, 1), cof(0, 1, 0, 1)],
    ];
    Some(adj.map(|row| row.map(|x| x / det)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An open box: five unit-cube quads facing out, the top (z = 1) open;
    /// edges in the face-walk order.
    fn open_box() -> PolyMesh {
        let vertices = (0..8)
            .map(|i| Vec3(f64::from(i & 1), f64::from((i >> 1) & 1), f64::from(i >> 2)))
            .collect();
        let faces = [
            [0, 2, 3, 1], // bottom, normal −z
            [0, 1, 5, 4], // front, −y
            [1, 3, 7, 5], // right, +x
            [3, 2, 6, 7], // back, +y
            [2, 0, 4, 6], // left, −x
        ]
        .into_iter()
        .map(|v| PolyFace::fan(v.to_vec(), 1, 1))
        .collect();
        let mut m = PolyMesh {
            vertices,
            faces,
            ..PolyMesh::default()
        };
        m.edges = Some(m.walked_edges());
        m
    }

    fn sel(n: usize, on: &[usize]) -> Vec<bool> {
        (0..n).map(|i| on.contains(&i)).collect()
    }

    fn edge_index(m: &PolyMesh, a: u32, b: u32) -> usize {
        m.mn_edges()
            .expect("edges")
            .iter()
            .position(|e| *e == [a, b] || *e == [b, a])
            .expect("edge")
    }

    #[test]
    fn one_selected_edge_closes_its_whole_loop_against_the_faces() {
        let mut m = open_box();
        let before = m.clone();
        let e = edge_index(&m, 4, 5);
        let n = m.walked_edges().len();
        let left = cap(&mut m, &sel(n, &[e]), &before.walked_edges()).expect("cap");
        assert!(left.is_empty());
        assert_eq!(m.vertices, before.vertices);
        assert_eq!(m.faces[..5], before.faces[..]);
        assert_eq!(m.faces.len(), 6);
        assert_eq!(m.edges, before.edges);
        // The top loop's edges: 5 (5 → 4 as the front walks it), 8 (7 → 5),
        // 10 (6 → 7), 11 (4 → 6); the cap starts at edge 5's end, runs it
        // backwards, then on against the faces.
        assert_eq!(e, 5);
        assert_eq!(m.mn_edges().expect("edges")[5], [5, 4]);
        let cap = &m.faces[5];
        assert_eq!(cap.v, [4, 5, 7, 6]);
        // Counter-clockwise seen from above: the normal points out (+z).
        let p = positions(&m, &cap.v);
        assert!(super::super::unwrap_cache::newell(&p).2 > 0.0);
        assert_eq!((cap.material, cap.smoothing, cap.tris.len()), (0, 0, 2));
        // Closed: every side has its opposite, Euler characteristic 2.
        let s = sides(&m).expect("sides");
        assert!(s.iter().all(|&(a, b)| s.contains(&(b, a))));
        assert_eq!(8 - m.walked_edges().len() as i64 + 6, 2);
    }

    #[test]
    fn what_is_not_derived_is_refused_by_name() {
        let m = open_box();
        let n = m.walked_edges().len();
        let edges = m.walked_edges();
        // An inner edge (bottom–front).
        let inner = edge_index(&m, 0, 1);
        let e = cap(&mut m.clone(), &sel(n, &[inner]), &edges).unwrap_err();
        assert!(e.to_string().contains("a face on both sides"), "{e}");
        // Beyond the known numbering.
        let top = edge_index(&m, 4, 5);
        let e = cap(&mut m.clone(), &sel(n, &[top]), &edges[..top]).unwrap_err();
        assert!(e.to_string().contains("beyond the"), "{e}");
        // A selection sized to another mesh.
        assert!(cap(&mut m.clone(), &sel(n + 1, &[top]), &edges).is_err());
        // Two open boxes sharing top corner 4: a border through it twice.
        let mut bow = m.clone();
        let shift = bow.vertices.len() as u32;
        for p in m.vertices.iter() {
            bow.vertices.push(p.minus(Vec3(1.0, 1.0, 2.0)).scale(-1.0));
        }
        for f in &m.faces {
            // A copy, its top corner 4 glued onto the first's 4.
            let v: Vec<u32> =
                f.v.iter()
                    .map(|&x| if x == 4 { 4 } else { x + shift })
                    .collect();
            bow.faces.push(PolyFace::fan(v, 1, 1));
        }
        let edges = bow.walked_edges();
        let n = edges.len();
        let top = edges
            .iter()
            .position(|e| *e == [5, 4] || *e == [4, 5])
            .expect("edge");
        let e = cap(&mut bow, &sel(n, &[top]), &edges).unwrap_err();
        assert!(e.to_string().contains("more than once"), "{e}");
    }

    #[test]
    fn an_unselected_mesh_is_unchanged_and_maps_are_named() {
        let mut m = open_box();
        let edges = m.walked_edges();
        let n = edges.len();
        assert!(cap(&mut m, &sel(n, &[]), &edges).expect("cap").is_empty());
        assert_eq!(m, open_box());
        m.maps.push(crate::eval::objects::poly::PolyMap {
            channel: 1,
            vertices: vec![[0.0; 3]],
            faces: m.faces.iter().map(|f| vec![0; f.v.len()]).collect(),
        });
        let top = edge_index(&m, 4, 5);
        assert_eq!(cap(&mut m, &sel(n, &[top]), &edges).expect("cap"), [1]);
        assert!(m.maps.is_empty());
    }

    #[test]
    fn a_cap_that_is_not_planar_is_named_when_it_reaches_the_output() {
        let mut m = open_box();
        m.vertices[7].2 = 1.5;
        let edges = m.walked_edges();
        let n = edges.len();
        let top = edge_index(&m, 4, 5);
        let mut made = Made::default();
        cap(&mut m, &sel(n, &[top]), &edges).expect("cap");
        made.note(&m, 5);
        let part = made.left_in(&m, "Edit Poly").expect("named");
        assert_eq!(part.part, "triangulation");
        // Moved flat again it covers the same square whatever the diagonal.
        m.vertices[7].2 = 1.0;
        assert!(made.left_in(&m, "Edit Poly").is_none());
        // Not convex, then scaled and moved (an affine map): still covered.
        let mut l = open_box();
        l.vertices[7] = Vec3(0.5, 0.5, 1.0);
        cap(&mut l, &sel(n, &[top]), &edges).expect("cap");
        let mut made_l = Made::default();
        made_l.note(&l, 5);
        assert!(!convex(&positions(&l, &l.faces[5].v)));
        for p in &mut l.vertices {
            *p = Vec3(2.0 * p.0 + 3.0, p.1 - 1.0, p.2 + 7.0);
        }
        assert!(made_l.left_in(&l, "Edit Poly").is_none());
        // Reshaped otherwise (the notch moved across): named.
        l.vertices[7].1 -= 1.5;
        assert!(made_l.left_in(&l, "Edit Poly").is_some());
        // Split by a later operation: the cap is no longer there.
        m.vertices[7].2 = 1.5;
        m.faces[5].v.reverse();
        assert!(made.left_in(&m, "Edit Poly").is_none());
    }
}
