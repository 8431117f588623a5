//! Edit Poly's Remove Vertex (49) and Remove Edge (50): the polygons around
//! a removed vertex, or on both sides of a removed edge, become one polygon
//! on their joint outline (Max's manual: "deletes selected vertices/edges and
//! combines the polygons that use them"); a vertex on only two edges is just
//! dropped from its two polygons. Remove Edge's record 0x1601 = 1 (Ctrl held)
//! also drops the removed edges' ends left on two edges.
//!
//! As MNMesh does, dead faces, edges and vertices go at the end and the
//! survivors keep their order (`CollapseDeadStructs`): the merged polygon
//! takes the lowest index of the faces it joins and starts at that face's
//! first corner left on the outline, running its way round. Which index and
//! first corner Max keeps is not pinned by any reference (no public replay
//! reaches one, docs/unseen-files.md); the counts are Max's (vertex, edge and
//! face counts the later operations recorded). The edges keep MNMesh's
//! numbering where no two edges become one (an edge dies, the survivors keep
//! their order and direction); where a dropped vertex joins its two edges
//! which index survives is not known and the numbering is dropped (a later
//! edge operation is refused by name). A merged polygon is triangulated in its
//! plane (a fan when convex, else ear clipping — Max's diagonals are not
//! derived, any triangulation of a flat polygon covers the same surface); one
//! not flat is refused by name. Map faces follow their corners when the
//! merged faces agree on the map vertex at every shared corner, else the
//! channel is left out (named).

use std::collections::{HashMap, HashSet};

use super::edit_poly_topo::{check_selection, remove_vertices as drop_vertices};
use super::unwrap_cache::{newell, planar};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// Operation ids (`epolyModButtonOp`).
pub(super) const OP_COLLAPSE_VERTEX: u32 = 16;
pub(super) const OP_REMOVE_VERTEX: u32 = 49;
pub(super) const OP_REMOVE_EDGE: u32 = 50;

/// Remove Edge's record beside the basics: Ctrl held (1) or not (0).
pub(super) const RECORD_REMOVE_EDGE_CTRL: u16 = 0x1601;

fn selected(sel: &[bool], i: usize) -> bool {
    sel.get(i).copied().unwrap_or(false)
}

/// Remove Vertex: each selected vertex, in index order. Returns the map
/// channels left out.
pub(super) fn remove_vertices(poly: &mut PolyMesh, sel: &[bool]) -> Result<Vec<i32>, EvalError> {
    check_selection(sel, poly.vertices.len(), "vertices")?;
    let mut gone = vec![false; poly.vertices.len()];
    let mut left = Vec::new();
    for v in (0..poly.vertices.len()).filter(|&v| selected(sel, v)) {
        let v = v as u32;
        let around = Around::of(poly, v);
        if around.faces.is_empty() {
            // A vertex no face uses: Remove deletes it.
            gone[v as usize] = true;
            continue;
        }
        if around.border {
            return Err(EvalError::not_evaluated_why(
                format!("removing vertex {v} on an open border"),
                "how Max joins a border vertex's polygons is not derived",
            ));
        }
        if around.neighbours.len() == 2 {
            drop_corner(poly, v, &around.faces, &mut left)?;
        } else {
            merge(poly, &around.faces, &mut left)
                .map_err(|e| e.inside(format!("removing vertex {v}")))?;
        }
        gone[v as usize] = true;
    }
    finish(poly, &gone)?;
    Ok(left)
}

/// Remove Edge: each selected edge (MNMesh's numbering), in index order;
/// with `ctrl`, the removed edges' ends left on two edges are dropped too.
/// Returns the map channels left out.
pub(super) fn remove_edges(
    poly: &mut PolyMesh,
    sel: &[bool],
    ctrl: bool,
) -> Result<Vec<i32>, EvalError> {
    let edges = poly.mn_edges()?.to_vec();
    check_selection(sel, edges.len(), "edges")?;
    let mut left = Vec::new();
    let mut ends = Vec::new();
    for (e, &[a, b]) in edges.iter().enumerate() {
        if !selected(sel, e) {
            continue;
        }
        let fa = faces_running(poly, a, b);
        let fb = faces_running(poly, b, a);
        let (f1, f2) = match (fa.as_slice(), fb.as_slice()) {
            ([f1], [f2]) if f1 != f2 => (*f1, *f2),
            ([_], []) | ([], [_]) => {
                return Err(EvalError::not_evaluated_why(
                    format!("removing border edge {e}"),
                    "what Max does with an edge that has one face is not derived",
                ))
            }
            _ => {
                return Err(EvalError::not_evaluated_why(
                    format!("removing edge {e} ({a}–{b})"),
                    "it does not join two distinct faces",
                ))
            }
        };
        merge(poly, &[f1, f2], &mut left).map_err(|e2| e2.inside(format!("removing edge {e}")))?;
        ends.extend([a, b]);
    }
    let mut gone = vec![false; poly.vertices.len()];
    if ctrl {
        ends.sort_unstable();
        ends.dedup();
        for v in ends {
            let around = Around::of(poly, v);
            if around.neighbours.len() == 2 && !around.border && !around.faces.is_empty() {
                drop_corner(poly, v, &around.faces, &mut left)?;
                gone[v as usize] = true;
            }
        }
    }
    finish(poly, &gone)?;
    Ok(left)
}

/// Drops the vertices marked gone (faces no longer use them) and checks.
fn finish(poly: &mut PolyMesh, gone: &[bool]) -> Result<(), EvalError> {
    if gone.iter().any(|&g| g) {
        if poly
            .faces
            .iter()
            .any(|f| f.v.iter().any(|&v| gone[v as usize]))
        {
            return Err(EvalError::malformed(
                "",
                "a removed vertex is still a corner",
            ));
        }
        let keep: Vec<bool> = gone.iter().map(|g| !g).collect();
        drop_vertices(poly, &keep);
    }
    poly.validate()
}

/// The faces around a vertex, its neighbours, and whether it is on a border.
struct Around {
    faces: Vec<usize>,
    neighbours: HashSet<u32>,
    border: bool,
}

impl Around {
    fn of(poly: &PolyMesh, v: u32) -> Around {
        let mut faces = Vec::new();
        let mut sides: HashMap<(u32, u32), u32> = HashMap::new();
        let mut neighbours = HashSet::new();
        for (fi, f) in poly.faces.iter().enumerate() {
            let n = f.v.len();
            let mut uses = false;
            for j in 0..n {
                let (a, b) = (f.v[j], f.v[(j + 1) % n]);
                if a == v || b == v {
                    uses = true;
                    neighbours.insert(if a == v { b } else { a });
                    *sides.entry((a.min(b), a.max(b))).or_insert(0) += 1;
                }
            }
            if uses {
                faces.push(fi);
            }
        }
        let border = sides.values().any(|&n| n != 2);
        Around {
            faces,
            neighbours,
            border,
        }
    }
}

/// The faces whose corners run `a` then `b`.
fn faces_running(poly: &PolyMesh, a: u32, b: u32) -> Vec<usize> {
    super::edit_poly_topo::faces_walking(poly, a, b)
}

/// Drops vertex `v` (on two edges, a–v–b) from its faces: the two edges
/// become one, whose index is not known (the numbering is dropped).
fn drop_corner(
    poly: &mut PolyMesh,
    v: u32,
    faces: &[usize],
    left: &mut Vec<i32>,
) -> Result<(), EvalError> {
    for &fi in faces {
        let f = &poly.faces[fi];
        let n = f.v.len();
        if n <= 3 {
            return Err(EvalError::not_evaluated_why(
                format!("dropping vertex {v} from triangle {fi}"),
                "the face would be left with two corners",
            ));
        }
        let kept: Vec<usize> = (0..n).filter(|&c| f.v[c] != v).collect();
        if kept.len() != n - 1 {
            return Err(EvalError::not_evaluated(format!(
                "dropping vertex {v}, a corner of face {fi} twice"
            )));
        }
        let corners: Vec<(usize, usize)> = kept.iter().map(|&c| (fi, c)).collect();
        let loop_v: Vec<u32> = kept.iter().map(|&c| f.v[c]).collect();
        let (material, smoothing) = (f.material, f.smoothing);
        let tris = triangulated(poly, &loop_v, fi)?;
        map_faces(poly, fi, &corners, &[fi], left);
        poly.faces[fi] = PolyFace {
            v: loop_v,
            tris,
            material,
            smoothing,
        };
    }
    poly.edges = None;
    Ok(())
}

/// Joins `faces` into one polygon on their outline, at the lowest index; the
/// others die (survivors keep their order), their shared edges with them.
fn merge(poly: &mut PolyMesh, faces: &[usize], left: &mut Vec<i32>) -> Result<(), EvalError> {
    let keep = *faces
        .iter()
        .min()
        .ok_or_else(|| EvalError::malformed("", "no faces to join"))?;
    let in_group: HashSet<usize> = faces.iter().copied().collect();
    // Every directed side of the group, with the (face, corner) it starts at.
    let mut sides: HashMap<(u32, u32), (usize, usize)> = HashMap::new();
    for &fi in faces {
        let f = &poly.faces[fi];
        let n = f.v.len();
        for j in 0..n {
            if sides.insert((f.v[j], f.v[(j + 1) % n]), (fi, j)).is_some() {
                return Err(EvalError::malformed(
                    "",
                    format!(
                        "side {}–{} run twice the same way",
                        f.v[j],
                        f.v[(j + 1) % n]
                    ),
                ));
            }
        }
    }
    // The outline: sides whose reverse is not in the group, from each start.
    let mut next: HashMap<u32, (u32, usize, usize)> = HashMap::new();
    let mut outline = 0;
    for (&(a, b), &(fi, j)) in &sides {
        if sides.contains_key(&(b, a)) {
            continue;
        }
        outline += 1;
        if next.insert(a, (b, fi, j)).is_some() {
            return Err(EvalError::not_evaluated_why(
                format!("joining faces {faces:?}"),
                format!("their outline passes vertex {a} twice"),
            ));
        }
    }
    let f = &poly.faces[keep];
    let n = f.v.len();
    let start = (0..n)
        .map(|j| f.v[j])
        .find(|&a| next.get(&a).is_some_and(|&(_, fi, _)| fi == keep))
        .ok_or_else(|| {
            EvalError::not_evaluated_why(
                format!("joining faces {faces:?}"),
                format!("face {keep} has no side on their outline"),
            )
        })?;
    let mut corners = Vec::new();
    let mut loop_v = Vec::new();
    let mut at = start;
    while let Some(&(b, fi, j)) = next.get(&at) {
        loop_v.push(at);
        corners.push((fi, j));
        at = b;
        if at == start || loop_v.len() > outline {
            break;
        }
    }
    if at != start || loop_v.len() != outline {
        return Err(EvalError::not_evaluated_why(
            format!("joining faces {faces:?}"),
            "their outline is not one loop (the joined polygon would have a hole)",
        ));
    }
    // A corner of the group that leaves the outline (a spur) is not joined.
    let on_loop: HashSet<u32> = loop_v.iter().copied().collect();
    for &fi in faces {
        if let Some(&v) = poly.faces[fi]
            .v
            .iter()
            .find(|v| !on_loop.contains(v) && !inner_vertex(poly, **v, &in_group))
        {
            return Err(EvalError::not_evaluated_why(
                format!("joining faces {faces:?}"),
                format!("vertex {v} is left inside the joined polygon"),
            ));
        }
    }
    let tris = triangulated(poly, &loop_v, keep)?;
    map_faces(poly, keep, &corners, faces, left);
    let (material, smoothing) = (poly.faces[keep].material, poly.faces[keep].smoothing);
    poly.faces[keep] = PolyFace {
        v: loop_v,
        tris,
        material,
        smoothing,
    };
    let dead: Vec<bool> = (0..poly.faces.len())
        .map(|fi| fi != keep && in_group.contains(&fi))
        .collect();
    let keep_faces: Vec<bool> = dead.iter().map(|d| !d).collect();
    poly.retain_faces(&keep_faces);
    // Edges: the sides inside the outline die, the rest keep their order and
    // direction (the joined face runs each the way its old face did).
    if let Some(edges) = poly.edges.as_mut() {
        edges.retain(|&[a, b]| !(sides.contains_key(&(a, b)) && sides.contains_key(&(b, a))));
    }
    Ok(())
}

/// Whether every face on vertex `v` is in `group` (a vertex the joined
/// polygon swallows: the removed vertex itself).
fn inner_vertex(poly: &PolyMesh, v: u32, group: &HashSet<usize>) -> bool {
    poly.faces
        .iter()
        .enumerate()
        .all(|(fi, f)| group.contains(&fi) || !f.v.contains(&v))
}

/// The new map face of polygon `fi`, corner by corner from `(face, corner)`;
/// a channel whose faces disagree at a shared vertex of the joined faces
/// (a seam) is left out, named by the caller.
fn map_faces(
    poly: &mut PolyMesh,
    fi: usize,
    corners: &[(usize, usize)],
    group: &[usize],
    left: &mut Vec<i32>,
) {
    let faces = &poly.faces;
    let on_loop: HashSet<u32> = corners
        .iter()
        .filter_map(|&(s, j)| faces.get(s).and_then(|f| f.v.get(j)).copied())
        .collect();
    let mut dropped = Vec::new();
    for (mi, m) in poly.maps.iter_mut().enumerate() {
        // The map vertex each face gives each geometric vertex.
        let mut at: HashMap<u32, u32> = HashMap::new();
        let mut seam = false;
        for &s in group {
            let (Some(f), Some(mf)) = (faces.get(s), m.faces.get(s)) else {
                seam = true;
                continue;
            };
            for (&v, &x) in f.v.iter().zip(mf) {
                if on_loop.contains(&v) && *at.entry(v).or_insert(x) != x {
                    seam = true;
                }
            }
        }
        let new: Option<Vec<u32>> = corners
            .iter()
            .map(|&(s, j)| m.faces.get(s).and_then(|mf| mf.get(j)).copied())
            .collect();
        match new {
            Some(new) if !seam => {
                if let Some(mf) = m.faces.get_mut(fi) {
                    *mf = new;
                }
            }
            _ => dropped.push(mi),
        }
    }
    for mi in dropped.into_iter().rev() {
        left.push(poly.maps.remove(mi).channel);
    }
}

/// The triangles of the polygon through `v` (corner indices): a fan when
/// flat and convex, ears when flat; one not flat is refused (its surface
/// depends on Max's diagonals, not derived).
fn triangulated(poly: &PolyMesh, v: &[u32], fi: usize) -> Result<Vec<[usize; 3]>, EvalError> {
    let p: Vec<Vec3> = v
        .iter()
        .map(|&x| {
            poly.vertices
                .get(x as usize)
                .copied()
                .ok_or_else(|| EvalError::malformed("", format!("vertex {x} out of range")))
        })
        .collect::<Result<_, _>>()?;
    let k = p.len();
    if k == 3 {
        return Ok(vec![[0, 1, 2]]);
    }
    let refuse = |why: &str| {
        EvalError::not_evaluated_why(
            format!("the joined polygon {fi} ({k} corners)"),
            format!("it is {why}, and Max's diagonals of it are not derived"),
        )
    };
    if !planar(&p) {
        return Err(refuse("not flat"));
    }
    if newell(&p).len() <= 0.0 {
        return Err(refuse("without area"));
    }
    // Ears in its plane, a fan from corner 0 when convex (the rule the
    // Unwrap caches' polygons are cut by).
    super::unwrap_cache::triangulate(&p).ok_or_else(|| refuse("not simple"))
}

#[cfg(test)]
#[path = "edit_poly_remove_tests.rs"]
mod tests;
