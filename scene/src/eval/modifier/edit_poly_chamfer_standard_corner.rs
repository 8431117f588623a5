//! Edit Poly's standard Chamfer Edge (type 0, closed) of 1 segment where
//! three or more chamfered edges meet at a vertex: a box's twelve edges
//! (containerBody.max's Box004 / 007 / 010, Gold.max's six Boxes), the usual
//! hard-surface bevel.
//!
//! The rule, one vertex C at a time. The face corners around C, in the order
//! in which each face's side C → next leads to the next face, are cut by the
//! k chamfered edges at C into k sectors. Every sector gets its own point:
//!
//! - a sector of one face corner (both its sides chamfered) gets
//!   C + amount · (u + v), u and v the unit directions of its two sides: the
//!   point where the strips' borders on that face cross, each border the line
//!   `amount` from its edge — taken only at right angles, where that is also
//!   the point `amount` from both sides (the two readings part elsewhere and
//!   no reference says which Max keeps);
//! - a sector of two faces gets the slide along the unchamfered edge between
//!   them (`slide`: `amount` along it, onto its far end when it is shorter;
//!   right angles only, as the ring chamfer);
//! - at a vertex with one chamfered edge the one sector of three faces gets a
//!   point on each of its two unchamfered edges, the middle face taking both
//!   (the one-edge rule, `edit_poly_chamfer_edge_standard`).
//!
//! Each face takes its sector's point in place of C; each chamfered edge
//! v1 → v2 (f1 walking it v1 → v2, f2 the other face) becomes the quad
//! [P(f1, v2), P(f1, v1), P(f2, v1), P(f2, v2)] (the ring chamfer's strip of
//! 1 segment); at each vertex with k ≥ 3 the k sector points make the corner
//! polygon, run against the strips' ends (so the mesh stays closed and
//! consistently wound). A box so gets 24 vertices, 48 edges, 26 faces (8 of
//! them triangles): the sizes containerBody's Edit Poly saved and, through
//! four TurboSmooth steps, Gold's Mesh Totals (docs/unseen-files.md).
//!
//! Not pinned, ours: the vertex numbering (C keeps its index for its first
//! sector's point, the others are appended), the order of the new faces
//! (corner polygons, then strips, as Gold's edge selections suggest), the
//! new polygons' material ids and smoothing groups (f1's material, the union
//! of the faces' groups). Hence the caller (`edit_poly`) lets the result go
//! only where nothing reads those indices, and names the material ids and
//! smoothing groups as left out.
//! Map channels leave the mesh, named by the caller, as for every chamfer.

use std::collections::{HashMap, HashSet};

use super::edit_poly_chamfer::slide;
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// What this replay could not pin, for the caller to act on.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Unpinned {
    /// Why the vertex and face numbering is ours, not Max's (Some once this
    /// replay ran).
    pub numbering: Option<String>,
    /// Why the new polygons' material ids and smoothing groups are ours.
    pub faces: Option<String>,
}

/// Whether some vertex has three or more of the `picked` edges.
pub(super) fn has_corner(picked: &[[u32; 2]]) -> bool {
    let mut meeting: HashMap<u32, usize> = HashMap::new();
    picked.iter().flatten().any(|&c| {
        let n = meeting.entry(c).or_default();
        *n += 1;
        *n >= 3
    })
}

/// One face corner at a chamfered vertex, in the walk around it.
#[derive(Debug, Clone, Copy)]
struct Corner {
    face: usize,
    /// The far ends of the face's sides before and after C.
    prev: u32,
    next: u32,
}

/// Chamfers `picked` (Max's v1, v2 per edge, in index order) by `amount`
/// with 1 segment; returns the map channels removed.
pub(super) fn chamfer_corners_standard(
    poly: &mut PolyMesh,
    picked: &[[u32; 2]],
    amount: f64,
    segments: i32,
    unpinned: &mut Unpinned,
) -> Result<Vec<i32>, EvalError> {
    let refuse = |why: String| {
        Err(EvalError::not_evaluated(format!(
            "a standard chamfer of {} edges {why} (only 1 segment, right angles, and sectors \
             of at most one unchamfered edge where chamfered edges meet are evaluated)",
            picked.len()
        )))
    };
    if segments != 1 {
        return refuse(format!(
            "of {segments} segments with a corner where 3 or more chamfered edges meet (the \
             corner's rows are not derived)"
        ));
    }
    let key = |a: u32, b: u32| (a.min(b), a.max(b));
    let chamfered: HashSet<(u32, u32)> = picked.iter().map(|e| key(e[0], e[1])).collect();
    if chamfered.len() != picked.len() {
        return Err(EvalError::malformed("", "an edge selected twice"));
    }
    // Which face walks a → b (None when more than one does).
    let mut walking: HashMap<(u32, u32), Option<usize>> = HashMap::new();
    for (fi, f) in poly.faces.iter().enumerate() {
        let n = f.v.len();
        for j in 0..n {
            walking
                .entry((f.v[j], f.v[(j + 1) % n]))
                .and_modify(|w| *w = None)
                .or_insert(Some(fi));
        }
    }
    let walker = |a: u32, b: u32| walking.get(&(a, b)).copied().flatten();
    let mut sides = Vec::new();
    for &[a, b] in picked {
        let (Some(f1), Some(f2)) = (walker(a, b), walker(b, a)) else {
            return refuse(format!("with edge {a}–{b} not between two faces"));
        };
        sides.push((f1, f2));
    }
    let mut order = Vec::new();
    let mut met = HashSet::new();
    for &c in picked.iter().flatten() {
        if met.insert(c) {
            order.push(c);
        }
    }
    let at = |v: u32| poly.vertices[v as usize];

    // Per vertex: its sectors (face corners, in the walk) and their points.
    struct Sector {
        corners: Vec<Corner>,
        points: Vec<Vec3>,
    }
    let mut sectors_of: HashMap<u32, Vec<Sector>> = HashMap::new();
    for &c in &order {
        let walk = walk_around(poly, c, &walker).map_err(|why| {
            EvalError::not_evaluated(format!(
                "a standard chamfer of {} edges at vertex {c} {why}",
                picked.len()
            ))
        })?;
        // Start right after a chamfered side.
        let Some(cut) = walk
            .iter()
            .position(|k| chamfered.contains(&key(c, k.prev)))
        else {
            return Err(EvalError::malformed("", "chamfered vertex off its edges"));
        };
        let mut sectors: Vec<Vec<Corner>> = Vec::new();
        for i in 0..walk.len() {
            let k = walk[(cut + i) % walk.len()];
            if chamfered.contains(&key(c, k.prev)) {
                sectors.push(Vec::new());
            }
            if let Some(s) = sectors.last_mut() {
                s.push(k);
            }
        }
        let k = sectors.len();
        let sizes: Vec<usize> = sectors.iter().map(Vec::len).collect();
        let fits = if k == 1 {
            sizes == [3]
        } else {
            sizes.iter().all(|&n| n <= 2) && walk.len() >= 3
        };
        if !fits {
            return refuse(format!(
                "with vertex {c} where {k} chamfered edges meet, its sectors of {sizes:?} faces"
            ));
        }
        let mut done = Vec::new();
        for s in sectors {
            let points = sector_points(c, &s, amount, &at).ok_or_else(|| {
                EvalError::not_evaluated(format!(
                    "a standard chamfer of {} edges at vertex {c} whose sides do not meet at \
                     right angles (or are no longer than the amount {}) where the \
                     chamfer's borders cross (which point Max keeps there is not derived)",
                    picked.len(),
                    amount as f32
                ))
            })?;
            done.push(Sector { corners: s, points });
        }
        sectors_of.insert(c, done);
    }

    // Numbering: C keeps its first sector's first point, the rest appended.
    let mut index: HashMap<u32, Vec<Vec<u32>>> = HashMap::new();
    let mut next =
        u32::try_from(poly.vertices.len()).map_err(|_| EvalError::limit("vertices", u32::MAX))?;
    let mut added = Vec::new();
    for &c in &order {
        let mut lists = Vec::new();
        for (si, s) in sectors_of[&c].iter().enumerate() {
            let mut ids = Vec::new();
            for (pi, p) in s.points.iter().enumerate() {
                if si == 0 && pi == 0 {
                    poly.vertices[c as usize] = *p;
                    ids.push(c);
                } else {
                    ids.push(next);
                    next = next
                        .checked_add(1)
                        .ok_or_else(|| EvalError::limit("vertices", u32::MAX))?;
                    added.push(*p);
                }
            }
            lists.push(ids);
        }
        index.insert(c, lists);
    }
    poly.vertices.extend(added);

    // What each face corner at a chamfered vertex becomes.
    let mut becomes: HashMap<(usize, u32), Vec<u32>> = HashMap::new();
    for &c in &order {
        for (s, ids) in sectors_of[&c].iter().zip(&index[&c]) {
            let n = s.corners.len();
            for (j, k) in s.corners.iter().enumerate() {
                let took = match (ids.len(), n) {
                    (1, _) => ids.clone(),
                    // The one-edge end: the first face the first point, the
                    // middle face both (its side before C first), the last
                    // face the second point.
                    _ if j == 0 => vec![ids[0]],
                    _ if j + 1 == n => vec![ids[ids.len() - 1]],
                    _ => ids.clone(),
                };
                becomes.insert((k.face, c), took);
            }
        }
    }
    let point_of = |f: usize, c: u32| -> Result<u32, EvalError> {
        match becomes.get(&(f, c)).map(Vec::as_slice) {
            Some(&[p]) => Ok(p),
            _ => Err(EvalError::malformed(
                "",
                format!("face {f} has no single chamfer point at {c}"),
            )),
        }
    };
    let mut strips = Vec::new();
    let mut mixed = 0usize;
    for (&[a, b], &(f1, f2)) in picked.iter().zip(&sides) {
        let (x, y) = (&poly.faces[f1], &poly.faces[f2]);
        if x.material != y.material {
            mixed += 1;
        }
        strips.push(PolyFace::fan(
            vec![
                point_of(f1, b)?,
                point_of(f1, a)?,
                point_of(f2, a)?,
                point_of(f2, b)?,
            ],
            x.material,
            x.smoothing | y.smoothing,
        ));
    }
    let mut corners = Vec::new();
    for &c in &order {
        let sectors = &sectors_of[&c];
        if sectors.len() < 3 {
            continue;
        }
        // Against the walk: each strip's end runs from the sector before it
        // to the one after.
        let ring: Vec<u32> = index[&c].iter().rev().flatten().copied().collect();
        let faces: Vec<&PolyFace> = sectors
            .iter()
            .flat_map(|s| &s.corners)
            .map(|k| &poly.faces[k.face])
            .collect();
        let material = faces.first().map_or(0, |f| f.material);
        if faces.iter().any(|f| f.material != material) {
            mixed += 1;
        }
        let smoothing = faces.iter().fold(0, |s, f| s | f.smoothing);
        let pts: Vec<Vec3> = ring.iter().map(|&v| poly.vertices[v as usize]).collect();
        if !planar(&pts) {
            return refuse(format!(
                "whose corner polygon at vertex {c} ({} points) is not planar (Max's \
                 diagonals not derived)",
                pts.len()
            ));
        }
        corners.push(PolyFace::fan(ring, material, smoothing));
    }
    for fi in 0..poly.faces.len() {
        let old = poly.faces[fi].v.clone();
        if !old.iter().any(|v| met.contains(v)) {
            continue;
        }
        let mut v = Vec::with_capacity(old.len() + 2);
        for &x in &old {
            if met.contains(&x) {
                let took = becomes.get(&(fi, x)).ok_or_else(|| {
                    EvalError::malformed("", format!("face {fi} left out of the walk at {x}"))
                })?;
                v.extend_from_slice(took);
            } else {
                v.push(x);
            }
        }
        let f = &poly.faces[fi];
        poly.faces[fi] = PolyFace::fan(v, f.material, f.smoothing);
    }
    unpinned.numbering = Some(format!(
        "its standard chamfer of {} edges with corners where 3 or more chamfered edges meet \
         numbers its new vertices and polygons in an order no reference pins",
        picked.len()
    ));
    unpinned.faces = Some(format!(
        "the standard chamfer's {} new polygons take material ids and smoothing groups no \
         reference pins{}",
        strips.len() + corners.len(),
        if mixed > 0 {
            format!(" ({mixed} of them between faces of two or more materials)")
        } else {
            String::new()
        }
    ));
    poly.faces.extend(corners);
    super::edit_poly_chamfer_edge::append_strips(poly, strips)
}

/// Why the faces around a vertex are not one closed fan.
#[derive(Debug)]
enum FanBreak {
    /// A face passes the vertex twice.
    Twice(usize),
    /// No face holds the vertex.
    OnNoFace,
    /// The walk meets the mesh's border (or an edge of more than two faces).
    Border,
    /// The walk does not come back to its first face.
    Open,
    /// The walk closes before it has met every face at the vertex.
    SeveralFans(usize),
}

impl std::fmt::Display for FanBreak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FanBreak::Twice(face) => write!(f, "where face {face} passes it twice"),
            FanBreak::OnNoFace => write!(f, "on no face"),
            FanBreak::Border => write!(
                f,
                "on the mesh's border (or on an edge of more than two faces)"
            ),
            FanBreak::Open => write!(f, "whose faces do not close into one fan"),
            FanBreak::SeveralFans(n) => write!(f, "where {n} faces meet in more than one fan"),
        }
    }
}

/// The face corners at `c` in walk order: from a face's side c → next to the
/// face walking next → c. An error (why) when the faces around `c` are not
/// one closed fan (a border, or more than one fan).
fn walk_around(
    poly: &PolyMesh,
    c: u32,
    walker: &impl Fn(u32, u32) -> Option<usize>,
) -> Result<Vec<Corner>, FanBreak> {
    let corner = |f: usize| -> Result<Corner, FanBreak> {
        let v = &poly.faces[f].v;
        let n = v.len();
        let mut at = v
            .iter()
            .enumerate()
            .filter(|(_, &x)| x == c)
            .map(|(j, _)| j);
        match (at.next(), at.next()) {
            (Some(j), None) => Ok(Corner {
                face: f,
                prev: v[(j + n - 1) % n],
                next: v[(j + 1) % n],
            }),
            _ => Err(FanBreak::Twice(f)),
        }
    };
    let total = poly.faces.iter().filter(|f| f.v.contains(&c)).count();
    let Some(first) = poly.faces.iter().position(|f| f.v.contains(&c)) else {
        return Err(FanBreak::OnNoFace);
    };
    let mut walk = vec![corner(first)?];
    loop {
        let last = walk[walk.len() - 1];
        let Some(f) = walker(last.next, c) else {
            return Err(FanBreak::Border);
        };
        if f == first {
            break;
        }
        if walk.len() > total {
            return Err(FanBreak::Open);
        }
        walk.push(corner(f)?);
    }
    if walk.len() != total {
        return Err(FanBreak::SeveralFans(total));
    }
    Ok(walk)
}

/// The points of one sector at `c` (face corners in walk order, the first
/// after a chamfered side, the last before one), or None where the rule is
/// not pinned (no right angle, a side no longer than the amount).
fn sector_points(
    c: u32,
    s: &[Corner],
    amount: f64,
    at: &impl Fn(u32) -> Vec3,
) -> Option<Vec<Vec3>> {
    let p = at(c);
    match s {
        [k] => {
            let u = at(k.prev).minus(p);
            let v = at(k.next).minus(p);
            let (lu, lv) = (u.len(), v.len());
            if !(lu > amount && lv > amount) || (u.dot(v) / (lu * lv)).abs() >= 1e-4 {
                return None;
            }
            Some(vec![p
                .plus(u.scale(amount / lu))
                .plus(v.scale(amount / lv))])
        }
        [a, b] => {
            // The unchamfered edge between them: a's next, b's prev.
            (a.next == b.prev).then_some(())?;
            slide(p, at(a.next), &[at(a.prev), at(b.next)], amount).map(|x| vec![x])
        }
        [a, m, b] => {
            (a.next == m.prev && m.next == b.prev && a.prev == b.next).then_some(())?;
            let across = [at(a.prev)];
            Some(vec![
                slide(p, at(a.next), &across, amount)?,
                slide(p, at(m.next), &across, amount)?,
            ])
        }
        _ => None,
    }
}

/// Whether the points lie in one plane, within 1e-6 of their spread.
fn planar(pts: &[Vec3]) -> bool {
    if pts.len() <= 3 {
        return true;
    }
    let mut nrm = Vec3(0.0, 0.0, 0.0);
    let n = pts.len();
    for j in 0..n {
        let (a, b) = (pts[j], pts[(j + 1) % n]);
        nrm = nrm.plus(Vec3(
            (a.1 - b.1) * (a.2 + b.2),
            (a.2 - b.2) * (a.0 + b.0),
            (a.0 - b.0) * (a.1 + b.1),
        ));
    }
    let l = nrm.len();
    let size = pts
        .iter()
        .map(|q| q.minus(pts[0]).len())
        .fold(0.0, f64::max);
    if !(l > 0.0 && size > 0.0) {
        return false;
    }
    let nrm = nrm.scale(1.0 / l);
    pts.iter()
        .all(|q| q.minus(pts[0]).dot(nrm).abs() <= 1e-6 * size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::unit_cube;

    fn refused(r: Result<Vec<i32>, EvalError>) -> String {
        match r {
            Err(EvalError::NotEvaluated { what, .. }) => what,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_box_with_every_edge_chamfered_gets_a_triangle_at_each_corner() {
        let mut m = unit_cube();
        let edges = m.edges.clone().expect("edges");
        let mut unpinned = Unpinned::default();
        chamfer_corners_standard(&mut m, &edges, 0.1, 1, &mut unpinned).expect("replayed");
        // Max's saved sizes for a box (containerBody.max): 24 / 48 / 26.
        assert_eq!(m.vertices.len(), 24);
        assert_eq!(m.walked_edges().len(), 48);
        assert_eq!(m.faces.len(), 26);
        assert!(PolyMesh::is_closed_surface(&m));
        assert_eq!(m.vertices.len() as i64 - 48 + 26, 2);
        // Each new vertex is 0.1 from two of the box's faces (along both
        // edges of its face corner) and on the third: the strips' borders
        // are the lines 0.1 from their edges.
        for p in &m.vertices {
            let near = |x: f64| (x - 0.1).abs() < 1e-12 || (x - 0.9).abs() < 1e-12;
            let on = |x: f64| x == 0.0 || x == 1.0;
            let c = [p.0, p.1, p.2];
            assert_eq!(c.iter().filter(|&&x| near(x)).count(), 2, "{p:?}");
            assert_eq!(c.iter().filter(|&&x| on(x)).count(), 1, "{p:?}");
        }
        // The six faces stay quads 0.8 on a side, in their planes.
        for f in &m.faces[..6] {
            assert_eq!(f.v.len(), 4);
            let pts: Vec<Vec3> = f.v.iter().map(|&v| m.vertices[v as usize]).collect();
            assert!(planar(&pts));
            for j in 0..4 {
                let side = pts[(j + 1) % 4].minus(pts[j]).len();
                assert!((side - 0.8).abs() < 1e-12, "{side}");
            }
        }
        // Eight corner triangles (equilateral, side 0.1·√2), then twelve
        // strips 0.1·√2 wide and 0.8 long.
        let sides = |f: &PolyFace| -> Vec<f64> {
            let n = f.v.len();
            (0..n)
                .map(|j| {
                    m.vertices[f.v[(j + 1) % n] as usize]
                        .minus(m.vertices[f.v[j] as usize])
                        .len()
                })
                .collect()
        };
        let d = 0.1 * 2f64.sqrt();
        for f in &m.faces[6..14] {
            assert!(sides(f).iter().all(|s| (s - d).abs() < 1e-12), "{f:?}");
        }
        for f in &m.faces[14..] {
            let s = sides(f);
            assert_eq!(s.len(), 4);
            assert!(
                (s[0] - 0.8).abs() < 1e-12 && (s[1] - d).abs() < 1e-12,
                "{s:?}"
            );
        }
        // Corner triangles face out: their normal points away from the box.
        for f in &m.faces[6..14] {
            let p: Vec<Vec3> = f.v.iter().map(|&v| m.vertices[v as usize]).collect();
            let n = p[1].minus(p[0]).cross(p[2].minus(p[0]));
            let centre = p[0].plus(p[1]).plus(p[2]).scale(1.0 / 3.0);
            assert!(n.dot(centre.minus(Vec3(0.5, 0.5, 0.5))) > 0.0, "{f:?}");
        }
        // Strip materials and smoothing: f1's id, both faces' groups.
        assert!(m.faces[14..].iter().all(|f| f.smoothing.count_ones() == 2));
        assert!(unpinned.numbering.is_some());
        assert!(unpinned
            .faces
            .as_deref()
            .is_some_and(|w| w.contains("20 new polygons")));
    }

    #[test]
    fn a_top_face_border_and_one_vertical_edge_mix_corner_rules() {
        // The top's four edges and the vertical edge 1–5: corner 5 has three
        // chamfered edges, 4, 6, 7 two (a sector of two faces each), 1 one.
        let mut m = unit_cube();
        let mut picked = vec![[4, 5], [5, 6], [6, 7], [7, 4], [1, 5]];
        picked.sort_unstable();
        chamfer_corners_standard(&mut m, &picked, 0.1, 1, &mut Unpinned::default())
            .expect("replayed");
        assert!(PolyMesh::is_closed_surface(&m));
        // Corner 5: 3 points; 4, 6, 7: 2 each; 1: 2 (one-edge end).
        assert_eq!(m.vertices.len(), 8 - 5 + 3 + 2 * 3 + 2);
        // One corner triangle, five strips.
        assert_eq!(m.faces.len(), 6 + 1 + 5);
        let euler = m.vertices.len() as i64 - m.walked_edges().len() as i64 + m.faces.len() as i64;
        assert_eq!(euler, 2);
        // 0.1 below the top: the slides along the vertical edges at 4, 6, 7
        // and the two side faces' corner points at 5.
        let low = m
            .vertices
            .iter()
            .filter(|p| (p.2 - 0.9).abs() < 1e-12)
            .count();
        assert_eq!(low, 3 + 2);
    }

    #[test]
    fn what_the_rule_does_not_cover_is_refused_by_name() {
        let m = unit_cube();
        let edges = m.edges.clone().expect("edges");
        let why = refused(chamfer_corners_standard(
            &mut m.clone(),
            &edges,
            0.1,
            2,
            &mut Unpinned::default(),
        ));
        assert!(why.contains("of 2 segments with a corner"), "{why}");
        // A frustum (Gold.max's Box): no right angles at the top corners.
        let mut f = m.clone();
        for v in &mut f.vertices[4..] {
            v.0 = 0.1 + 0.8 * v.0;
        }
        let why = refused(chamfer_corners_standard(
            &mut f,
            &edges,
            0.1,
            1,
            &mut Unpinned::default(),
        ));
        assert!(why.contains("do not meet at right angles"), "{why}");
        // An amount past the sides.
        let why = refused(chamfer_corners_standard(
            &mut m.clone(),
            &edges,
            1.5,
            1,
            &mut Unpinned::default(),
        ));
        assert!(why.contains("no longer than the amount"), "{why}");
        // A box without its top: the top corners are on the border.
        let mut open = m.clone();
        open.faces.truncate(5);
        let why = refused(chamfer_corners_standard(
            &mut open,
            &[[0, 1], [3, 0], [0, 4]],
            0.1,
            1,
            &mut Unpinned::default(),
        ));
        assert!(why.contains("at vertex 4 on the mesh's border"), "{why}");
    }
}
