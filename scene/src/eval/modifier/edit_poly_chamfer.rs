//! Edit Poly's Chamfer Edge (operation 34), for the variant independent
//! references pin: Max 2015+'s quad chamfer, 2 segments, tension 1, closed,
//! of a loop of edges that is the whole border of one face (the "cap"), every
//! loop vertex having one more edge (Mug.max: the bottom ring of a cylinder;
//! Can.max: a top rim), or of one edge (`edit_poly_chamfer_edge`); and the
//! quad chamfer of 5 segments, tension 0.5, of every edge of a box
//! (`edit_poly_chamfer_corner`: level.max's Box038).
//! A standard chamfer (closed) is `edit_poly_chamfer_cap_standard`'s for a
//! face's border, `edit_poly_chamfer_ring`'s for a ring, or for edges
//! sharing no vertex `edit_poly_chamfer_edge_standard`'s.
//! The Unwrap UVW above Mug's Edit Poly saved its input (every vertex position
//! and polygon, in Max's order) and the FBX holds the same positions and the
//! corner normals; this module reproduces both.
//!
//! What Max builds, as read there. Each loop vertex C becomes five vertices on
//! the quadratic Bézier from A (C moved into the cap so that it lies `amount`
//! from both of the cap's sides there, as Inset does) through the control
//! point C to B (C moved `amount` along its unselected edge, or onto its far
//! end when it is shorter: Can's), at t = 0, ¼, ½,
//! ¾, 1 — four rows, two on each face of the chamfered edge, where the record
//! says "2 segments". C itself goes (vertices after it move down).
//! Numbering: first, over the selected edges in index order and each edge's
//! v1 then v2 when not yet met, the vertices at t = ½, 1, ¾; then, over the
//! cap's corners in order, those at t = 0, ¼. The cap takes the A row, every
//! other face the B row; then per face in face order and per chamfered side
//! (a → b) of it in corner order, two quads are appended: [P0(b), P0(a),
//! P1(a), P1(b)] and [P1(b), P1(a), H(a), H(b)], where P0, P1 are the face's
//! rows (A, t = ¼ on the cap; B, t = ¾ elsewhere) and H is t = ½. Each quad
//! takes its face's material; smoothing groups are the union of the two
//! faces' (the FBX normals are smooth across every row; that the cap's group
//! joins is not seen, as Mug deletes its cap).
//!
//! Map channels: how Max fills them is not derived (Mug's Unwrap UVW
//! replaces channel 1), so they leave the mesh, named by the caller.
//! Any other variant or configuration is refused naming what differs.

use std::collections::HashMap;

use super::edit_poly_topo::{newell_normal, remove_vertices, selected_indices};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// The chamfer's recorded parameters.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Params {
    pub amount: f64,
    pub segments: i32,
    /// 0 standard, 1 quad.
    pub kind: i32,
    pub tension: f64,
    pub open: bool,
    /// The Max 2015+ parameters past tension (110 …, id and value as stored).
    pub others: Vec<(u32, [u8; 4])>,
}

/// The later parameters as Mug and every other corpus chamfer stores them:
/// invert 0, quad intersections 1, smooth 0, smooth threshold 30°, then
/// 118 = 0, 122 = 2, 123 = 0.5, 124 = 0, 125 = 0.5 (meaning not known).
const SEEN: [(u32, [u8; 4]); 9] = [
    (110, [0, 0, 0, 0]),
    (111, [1, 0, 0, 0]),
    (112, [0, 0, 0, 0]),
    (113, 30f32.to_le_bytes()),
    (118, [0, 0, 0, 0]),
    (122, [2, 0, 0, 0]),
    (123, 0.5f32.to_le_bytes()),
    (124, [0, 0, 0, 0]),
    (125, 0.5f32.to_le_bytes()),
];

/// Chamfers the selected edges. `edges` is MNMesh's edge numbering as far as
/// it is known (a prefix of it after extrusions, which append); the
/// selection is sized to the whole edge count. Returns the map channels it
/// removed.
pub(super) fn chamfer_edges(
    poly: &mut PolyMesh,
    sel: &[bool],
    edges: &[[u32; 2]],
    p: &Params,
    unpinned: &mut super::edit_poly_chamfer_standard_corner::Unpinned,
) -> Result<Vec<i32>, EvalError> {
    let variant = |why: String| Err(EvalError::not_evaluated(why));
    // A standard chamfer, closed: the ring replay (`edit_poly_chamfer_ring`)
    // or, for edges sharing no vertex, the one-edge replay
    // (`edit_poly_chamfer_edge_standard`) takes it or refuses it by name.
    // Its tension is the quad chamfer's (Max's help); the doors' Box003
    // records 0.5 and has the profile of 1. Values outside the dialog's
    // range (0 … 1) are refused.
    let standard = p.kind == 0 && !p.open && (0.0..=1.0).contains(&p.tension);
    if p.kind != 1 && !standard {
        return variant(format!(
            "a chamfer of type {} (only quad, or standard with tension 0 … 1, closed)",
            p.kind
        ));
    }
    let checked_quad = p.segments == 2 && p.tension == 1.0;
    let corner_quad = p.segments == 5 && p.tension == 0.5;
    if !standard && (p.open || !(checked_quad || corner_quad)) {
        return variant(format!(
            "a quad chamfer with {} segments, tension {}{} (only 2 segments, tension 1, \
             closed, or 5 segments, tension 0.5 at a box's corners are checked against Max)",
            p.segments,
            p.tension as f32,
            if p.open { ", open" } else { "" }
        ));
    }
    for (id, v) in &p.others {
        if !SEEN.contains(&(*id, *v)) {
            return variant(format!("a chamfer with parameter {id} = {v:02x?}"));
        }
    }
    if !p.amount.is_finite() || p.amount <= 0.0 {
        return Err(EvalError::malformed(
            "",
            format!("chamfer amount {}", p.amount),
        ));
    }
    let count = poly.walked_edges().len();
    let chosen = selected_indices(sel, count, "edges")?;
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    let picked: Vec<[u32; 2]> = chosen
        .iter()
        .map(|&e| {
            edges.get(e).copied().ok_or_else(|| {
                EvalError::malformed(
                    "",
                    format!(
                        "edge {e} is beyond the {} edges whose numbering is known",
                        edges.len()
                    ),
                )
            })
        })
        .collect::<Result<_, _>>()?;
    if !standard && super::edit_poly_chamfer_corner::has_corner(&picked) {
        return super::edit_poly_chamfer_corner::chamfer_corners(
            poly, &picked, p.amount, p.segments, p.tension,
        );
    }
    if !standard && !checked_quad {
        return variant(format!(
            "a quad chamfer with {} segments, tension {} (only 2 segments, tension 1, closed, \
             or 5 segments, tension 0.5 at a box's corners are checked against Max)",
            p.segments, p.tension as f32
        ));
    }
    if standard {
        // Corners where three or more chamfered edges meet (a box's twelve
        // edges): `edit_poly_chamfer_standard_corner`, whose numbering is
        // ours (the caller lets it go only where nothing reads it).
        if super::edit_poly_chamfer_standard_corner::has_corner(&picked) {
            return super::edit_poly_chamfer_standard_corner::chamfer_corners_standard(
                poly, &picked, p.amount, p.segments, unpinned,
            );
        }
        if !disjoint(&picked) {
            // The whole border of one face (`edit_poly_chamfer_cap_standard`),
            // pinned with one segment; else a closed ring between two rings
            // of faces.
            if let Ok(shape) = Loop::find(poly, &picked) {
                if p.segments != 1 {
                    return variant(format!(
                        "a standard chamfer of a face's border with {} segments (only 1 \
                         segment is checked against Max)",
                        p.segments
                    ));
                }
                return super::edit_poly_chamfer_cap_standard::chamfer_cap_standard(
                    poly, &shape, &picked, p.amount,
                );
            }
            return super::edit_poly_chamfer_ring::chamfer_ring(
                poly, &picked, p.amount, p.segments,
            );
        }
        // Edges sharing no vertex, one by one in edge order (as the quad
        // chamfer's below; the order across edges is not derived).
        let mut removed = Vec::new();
        for e in picked {
            removed.extend(
                super::edit_poly_chamfer_edge_standard::chamfer_one_edge_standard(
                    poly, e, p.amount, p.segments,
                )?,
            );
        }
        removed.sort_unstable();
        removed.dedup();
        return Ok(removed);
    }
    if let [e] = picked[..] {
        return super::edit_poly_chamfer_edge::chamfer_one_edge(poly, e, p.amount);
    }
    if disjoint(&picked) {
        // Edges sharing no vertex (Can's Box002: a box's four vertical
        // edges) are chamfered one by one, in edge order: the geometry is
        // each edge's own; the order of the appended vertices and faces
        // across edges is not derived (nothing after the chamfer in the
        // corpus addresses them; the saved sizes are still checked).
        let mut removed = Vec::new();
        for e in picked {
            removed.extend(super::edit_poly_chamfer_edge::chamfer_one_edge(
                poly, e, p.amount,
            )?);
        }
        removed.sort_unstable();
        removed.dedup();
        return Ok(removed);
    }
    let shape = Loop::find(poly, &picked)?;
    let (a_of, b_of) = shape.points(poly, p.amount)?;
    let at = |v: u32| poly.vertices[v as usize];
    let cap = &poly.faces[shape.cap].v;
    let bezier = |c: u32, t: f64| quadratic_bezier(a_of[&c], at(c), b_of[&c], t);

    // New vertices (rows 0 A, 1 ¼, 2 ½, 3 ¾, 4 B), in Max's order.
    let mut row: HashMap<(u32, usize), u32> = HashMap::new();
    let mut next_index =
        u32::try_from(poly.vertices.len()).map_err(|_| EvalError::limit("vertices", u32::MAX))?;
    let mut added = Vec::new();
    let mut push = |c: u32, k: usize, added: &mut Vec<Vec3>| {
        row.insert((c, k), next_index);
        next_index += 1;
        added.push(bezier(c, k as f64 / 4.0));
    };
    let mut met = std::collections::HashSet::new();
    for e in &picked {
        for &c in e {
            if met.insert(c) {
                for k in [2, 4, 3] {
                    push(c, k, &mut added);
                }
            }
        }
    }
    for &c in cap {
        for k in [0, 1] {
            push(c, k, &mut added);
        }
    }
    poly.vertices.extend(added);
    let r = |c: u32, k: usize| row[&(c, k)];

    // Faces take their new corners, then the strips are appended.
    let on_loop = |v: u32| a_of.contains_key(&v);
    let chamfered: std::collections::HashSet<(u32, u32)> = picked
        .iter()
        .map(|e| (e[0].min(e[1]), e[0].max(e[1])))
        .collect();
    let cap_sg = poly.faces[shape.cap].smoothing;
    let mut strips = Vec::new();
    for (fi, f) in poly.faces.iter_mut().enumerate() {
        let rows = if fi == shape.cap { [0, 1] } else { [4, 3] };
        let old = f.v.clone();
        let m = old.len();
        for v in f.v.iter_mut() {
            if on_loop(*v) {
                *v = r(*v, rows[0]);
            }
        }
        for j in 0..m {
            let (a, b) = (old[j], old[(j + 1) % m]);
            if !chamfered.contains(&(a.min(b), a.max(b))) {
                continue;
            }
            let sg = f.smoothing
                | if fi == shape.cap {
                    shape.side_sg[&(a.min(b), a.max(b))]
                } else {
                    cap_sg
                };
            let quads = [
                vec![r(b, rows[0]), r(a, rows[0]), r(a, rows[1]), r(b, rows[1])],
                vec![r(b, rows[1]), r(a, rows[1]), r(a, 2), r(b, 2)],
            ];
            for q in quads {
                strips.push(PolyFace::fan(q, f.material, sg));
            }
        }
    }
    poly.faces.extend(strips);
    let removed: Vec<i32> = poly.maps.iter().map(|m| m.channel).collect();
    poly.maps.clear();
    poly.edges = None;
    let keep: Vec<bool> = (0..poly.vertices.len() as u32)
        .map(|v| !on_loop(v))
        .collect();
    remove_vertices(poly, &keep);
    poly.validate()?;
    Ok(removed)
}

/// Where a chamfered vertex at `c` lands on its unchamfered edge to `far`:
/// `amount` along it, or `far` itself when the edge is no longer than that
/// (Can.max's rim and Table.max's corner: the new vertex lies on the far end,
/// a separate vertex). Only right angles between that edge and the chamfered
/// ones (ending at `across`) are seen below the clamp (Mug, Table): elsewhere
/// which distance Max keeps is not known, so None.
/// Whether no two of `edges` share a vertex.
fn disjoint(edges: &[[u32; 2]]) -> bool {
    let mut seen = std::collections::HashSet::new();
    edges.iter().flatten().all(|v| seen.insert(*v))
}

/// The chamfer profile: the quadratic Bézier from `a` through control `c` to
/// `b`, at `t` (shared by every chamfer replay).
pub(super) fn quadratic_bezier(a: Vec3, c: Vec3, b: Vec3, t: f64) -> Vec3 {
    a.scale((1.0 - t) * (1.0 - t))
        .plus(c.scale(2.0 * t * (1.0 - t)))
        .plus(b.scale(t * t))
}

/// The faces with a corner at vertex `c`, in face order.
pub(super) fn faces_at(poly: &PolyMesh, c: u32) -> Vec<usize> {
    (0..poly.faces.len())
        .filter(|&f| poly.faces[f].v.contains(&c))
        .collect()
}

pub(super) fn slide(c: Vec3, far: Vec3, across: &[Vec3], amount: f64) -> Option<Vec3> {
    let d = far.minus(c);
    let l = d.len();
    if l.is_nan() || l <= 0.0 {
        return None;
    }
    if l <= amount {
        return Some(far);
    }
    let square = across.iter().all(|&x| {
        let e = x.minus(c);
        e.len() > 0.0 && (e.dot(d) / (e.len() * l)).abs() < 1e-4
    });
    square.then(|| c.plus(d.scale(amount / l)))
}

/// A point per loop vertex.
pub(super) type Points = HashMap<u32, Vec3>;

/// The one configuration evaluated: the chamfered edges are every side of one
/// face (the cap), each with another face beyond it that has no other
/// chamfered side, and each loop vertex has exactly one more edge.
pub(super) struct Loop {
    pub cap: usize,
    /// Per loop vertex, the far end of its unchamfered edge.
    pub other: HashMap<u32, u32>,
    /// Per chamfered edge (low, high), the smoothing groups of the face beyond
    /// the cap.
    pub side_sg: HashMap<(u32, u32), u32>,
}

impl Loop {
    pub(super) fn find(poly: &PolyMesh, picked: &[[u32; 2]]) -> Result<Loop, EvalError> {
        let refuse = |why: &str| {
            Err(EvalError::not_evaluated(format!(
                "a chamfer of {} edges {why} (only the whole border of one face, each loop \
                 vertex on one more edge, is checked against Max)",
                picked.len()
            )))
        };
        let key = |a: u32, b: u32| (a.min(b), a.max(b));
        let mut sides: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
        let mut degree: HashMap<u32, Vec<u32>> = HashMap::new();
        for (fi, f) in poly.faces.iter().enumerate() {
            let n = f.v.len();
            for j in 0..n {
                let (a, b) = (f.v[j], f.v[(j + 1) % n]);
                let s = sides.entry(key(a, b)).or_default();
                if s.is_empty() {
                    degree.entry(a).or_default().push(b);
                    degree.entry(b).or_default().push(a);
                }
                s.push(fi);
            }
        }
        let picked_keys: std::collections::HashSet<(u32, u32)> =
            picked.iter().map(|e| key(e[0], e[1])).collect();
        // The cap: the face holding every chamfered edge.
        let mut count: HashMap<usize, usize> = HashMap::new();
        for k in &picked_keys {
            let faces = sides.get(k).map_or(&[][..], Vec::as_slice);
            if faces.len() != 2 || faces[0] == faces[1] {
                return refuse("on the mesh's border");
            }
            for &f in faces {
                *count.entry(f).or_default() += 1;
            }
        }
        let Some(cap) = count
            .iter()
            .filter(|(_, &c)| c == picked_keys.len())
            .map(|(&f, _)| f)
            .min()
        else {
            return refuse("that do not all border one face");
        };
        let cap_v = &poly.faces[cap].v;
        if cap_v.len() != picked_keys.len() || count.iter().any(|(&f, &c)| f != cap && c != 1) {
            return refuse("that are not exactly one face's border");
        }
        let mut other = HashMap::new();
        let mut side_sg = HashMap::new();
        for &c in cap_v {
            let near: Vec<u32> = degree[&c]
                .iter()
                .copied()
                .filter(|&x| !picked_keys.contains(&key(c, x)))
                .collect();
            if near.len() != 1 {
                return refuse(&format!(
                    "with loop vertex {c} on {} other edges",
                    near.len()
                ));
            }
            other.insert(c, near[0]);
        }
        for k in &picked_keys {
            let f = sides[k].iter().copied().find(|&f| f != cap).unwrap_or(cap);
            side_sg.insert(*k, poly.faces[f].smoothing);
        }
        Ok(Loop {
            cap,
            other,
            side_sg,
        })
    }

    /// Per loop vertex, A (moved into the cap so that it lies `amount` from
    /// both of the cap's sides there, as Inset does) and B (moved `amount`
    /// along its other edge, or onto its far end when that is shorter).
    pub(super) fn points(
        &self,
        poly: &PolyMesh,
        amount: f64,
    ) -> Result<(Points, Points), EvalError> {
        let at = |v: u32| poly.vertices[v as usize];
        let cap = &poly.faces[self.cap].v;
        let n = cap.len();
        let nrm = newell_normal(poly, cap)
            .ok_or_else(|| EvalError::malformed("", format!("the cap {cap:?} has no area")))?;

        // Per loop vertex: A (into the cap) and B (along its other edge).
        let mut a_of = HashMap::new();
        let mut b_of = HashMap::new();
        for j in 0..n {
            let (prev, c, next) = (cap[(j + n - 1) % n], cap[j], cap[(j + 1) % n]);
            let inward = |from: u32, to: u32| {
                let side = nrm.cross(at(to).minus(at(from)));
                let l = side.len();
                (l > 0.0).then(|| side.scale(1.0 / l))
            };
            let (Some(n1), Some(n2)) = (inward(prev, c), inward(c, next)) else {
                return Err(EvalError::malformed(
                    "",
                    format!("cap side at vertex {c} has no length"),
                ));
            };
            let denom = 1.0 + n1.dot(n2);
            if denom.abs() < 1e-9 {
                return Err(EvalError::malformed(
                    "",
                    format!("the cap folds back at vertex {c}"),
                ));
            }
            a_of.insert(c, at(c).plus(n1.plus(n2).scale(amount / denom)));
            let other = self.other[&c];
            let b = slide(at(c), at(other), &[at(prev), at(next)], amount).ok_or_else(|| {
                EvalError::not_evaluated(format!(
                    "a chamfer whose loop vertex {c} does not meet its other edge at right angles \
                     and that edge is longer than the amount"
                ))
            })?;
            b_of.insert(c, b);
        }
        Ok((a_of, b_of))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::unit_cube;

    fn params() -> Params {
        Params {
            amount: 0.25,
            segments: 2,
            kind: 1,
            tension: 1.0,
            open: false,
            others: SEEN.to_vec(),
        }
    }

    #[test]
    fn a_face_border_becomes_four_rows_of_quads() {
        let mut m = unit_cube();
        let edges = m.edges.clone().expect("edges");
        // The bottom face comes first: its border is the loop.
        let sel: Vec<bool> = (0..edges.len()).map(|e| e < 4).collect();
        chamfer_edges(&mut m, &sel, &edges, &params(), &mut Default::default()).expect("chamfer");
        assert_eq!(m.vertices.len(), 8 - 4 + 20);
        assert_eq!(m.faces.len(), 6 + 16);
        // The bottom's corners sit 0.25 inside, the sides' 0.25 up.
        let bottom: Vec<Vec3> = m.faces[0]
            .v
            .iter()
            .map(|&v| m.vertices[v as usize])
            .collect();
        assert!(bottom
            .iter()
            .all(|p| p.2 == 0.0 && (p.0 == 0.25 || p.0 == 0.75)));
        let side: Vec<Vec3> = m.faces[1]
            .v
            .iter()
            .map(|&v| m.vertices[v as usize])
            .collect();
        assert_eq!(side[0], Vec3(0.0, 0.0, 0.25));
        // The middle row: ¼ A + ½ C + ¼ B.
        let h = m.faces[7].v[2];
        assert!(
            m.vertices[h as usize]
                .minus(Vec3(0.0625, 0.9375, 0.0625))
                .len()
                < 1e-12
        );
        assert!(m.faces[6..].iter().all(|f| f.v.len() == 4));
        assert_eq!(m.faces[6].material, 0);
        assert_eq!(m.faces[14].material, 1);
        assert_eq!(m.faces[14].smoothing, 1 | 2);
        m.validate().expect("valid");
    }

    #[test]
    fn other_variants_are_refused() {
        let mut m = unit_cube();
        let edges = m.edges.clone().expect("edges");
        let sel: Vec<bool> = (0..edges.len()).map(|e| e < 4).collect();
        let three = Params {
            segments: 3,
            ..params()
        };
        assert!(chamfer_edges(
            &mut m.clone(),
            &sel,
            &edges,
            &three,
            &mut Default::default()
        )
        .is_err());
        let mut odd = params();
        odd.others[2] = (112, [1, 0, 0, 0]);
        assert!(
            chamfer_edges(&mut m.clone(), &sel, &edges, &odd, &mut Default::default()).is_err()
        );
        // Part of a border only.
        let part: Vec<bool> = (0..edges.len()).map(|e| e < 3).collect();
        let err = chamfer_edges(
            &mut m.clone(),
            &part,
            &edges,
            &params(),
            &mut Default::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("one face's border"), "{err}");
        // An edge whose number is not known.
        assert!(chamfer_edges(
            &mut m,
            &sel,
            &edges[..2],
            &params(),
            &mut Default::default()
        )
        .is_err());
    }
}
