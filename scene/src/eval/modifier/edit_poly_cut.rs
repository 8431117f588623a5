//! Edit Poly's Cut (operation 35). Its local data (0x0238) holds the clicks
//! of one interactive cut as segments: 0x0840 = u32 n, then n start levels
//! (MNMesh selection levels: 1 vertex, 2 edge, 3 face), n start indices, n
//! start points, n end points and n view directions (Point3 each), all in
//! the modifier's object space; 0x0850 a u32 of unknown meaning, 2 on
//! RubberGrip and 0 on its copy RubberGrip001, whose cuts are otherwise the
//! same bytes and give the same saved sizes (only those two values are
//! accepted). Each segment after the first starts on the vertex the
//! one before ended on (Shotgun.max's RubberGrips: levels 2, 1, 1, 1 and
//! indices 12, 26, 27, 28, the vertices the segments before appended).
//!
//! Replayed: segments that start on a vertex or on a point of an edge and
//! run, face by face, to a point on a side or to a corner of a face. A point
//! on an edge splits it as Insert Vertex Edge does (`MNMesh::SplitEdge`: a
//! vertex appended, the edge keeps its first half, the second is appended),
//! the start's split first; each face is then split between the two corners
//! as Connect Vertex splits it (`edit_poly_edges::split_face`). A segment
//! whose end is on no face at its start crosses the side of one such face
//! where the recorded segment meets it, and goes on from the vertex made
//! there (Buwaka's cylinders: a cut across a top cap that Connect Vertex had
//! halved, from one rim vertex to the opposite one, adds the cap's centre as
//! vertex 108, which the next 14 Connect Vertex operations join to the rim;
//! the sizes they and the Chamfer Edge after them recorded are ours,
//! docs/max-format.md). Refused by name: a cut starting inside a face, a
//! segment that ends inside a face or leaves its faces through a vertex, and
//! split cuts (parameter 15).

use super::edit_poly_edges::{insert_vertices, split_face};
use crate::eval::core::keys::Words;
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// How far (relative to the edge's length) a recorded point may lie off the
/// edge it is taken to be on: the points are Max's f32 hits on its f32 mesh.
const ON_EDGE: f64 = 1e-4;

/// One recorded segment of a cut.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Segment {
    level: u32,
    index: u32,
    start: Vec3,
    end: Vec3,
}

/// Replays a Cut's recorded segments in order.
pub(super) fn cut(
    poly: &mut PolyMesh,
    data: &[(u16, Vec<u8>)],
    split: bool,
) -> Result<(), EvalError> {
    if split {
        return Err(EvalError::not_evaluated("a cut that splits the mesh"));
    }
    let segments = segments(data)?;
    let mut previous: Option<u32> = None;
    for (k, s) in segments.iter().enumerate() {
        let start = start_vertex(poly, s).map_err(|e| e.inside(format!("cut segment {k}")))?;
        // A segment after the first starts where the one before ended (the
        // record names that vertex).
        if let Some(p) = previous {
            if p != start {
                return Err(EvalError::malformed(
                    "",
                    format!(
                        "cut segment {k} starts at vertex {start}, the one before ended at {p}"
                    ),
                ));
            }
        }
        let end = cut_face(poly, start, s.end).map_err(|e| e.inside(format!("cut segment {k}")))?;
        previous = Some(end);
    }
    poly.validate()
}

/// The segments of record 0x0840; 0x0850 must be 0 or 2, other records are refused.
fn segments(data: &[(u16, Vec<u8>)]) -> Result<Vec<Segment>, EvalError> {
    let mut out = None;
    for (id, p) in data {
        match id {
            0x0840 => {
                let w = Words(p);
                let n = if p.len() >= 4 {
                    w.u32(0) as usize
                } else {
                    usize::MAX
                };
                if n > 1 << 20 || p.len() != 4 + 44 * n {
                    return Err(EvalError::malformed(
                        "",
                        format!("cut record 0x0840 of {} bytes", p.len()),
                    ));
                }
                let point = |at: usize| Vec3(w.f(at), w.f(at + 1), w.f(at + 2));
                let (levels, indices, starts, ends) = (1, 1 + n, 1 + 2 * n, 1 + 5 * n);
                out = Some(
                    (0..n)
                        .map(|i| Segment {
                            level: w.u32(levels + i),
                            index: w.u32(indices + i),
                            start: point(starts + 3 * i),
                            end: point(ends + 3 * i),
                        })
                        .collect::<Vec<_>>(),
                );
            }
            0x0850 if p.len() == 4 && matches!(Words(p).u32(0), 0 | 2) => {}
            _ => {
                return Err(EvalError::not_evaluated(format!(
                    "cut record {id:#06x} = {:02x?}",
                    &p[..p.len().min(16)]
                )))
            }
        }
    }
    out.ok_or_else(|| EvalError::malformed("", "Cut without its segments (0x0840)"))
}

/// The vertex a segment starts on: the recorded vertex, or a new one where
/// the recorded point splits the recorded edge.
fn start_vertex(poly: &mut PolyMesh, s: &Segment) -> Result<u32, EvalError> {
    match s.level {
        1 if (s.index as usize) < poly.vertices.len() => Ok(s.index),
        1 => Err(EvalError::malformed(
            "",
            format!("start vertex {} of {}", s.index, poly.vertices.len()),
        )),
        2 => {
            let edges = poly.mn_edges()?;
            let [a, b] = *edges.get(s.index as usize).ok_or_else(|| {
                EvalError::malformed("", format!("start edge {} of {}", s.index, edges.len()))
            })?;
            let t = along(poly, a, b, s.start).ok_or_else(|| {
                EvalError::not_evaluated(format!(
                    "a cut starting off the inside of its edge {} ({a}, {b})",
                    s.index
                ))
            })?;
            split_at(poly, s.index, t)
        }
        3 => Err(EvalError::not_evaluated("a cut starting inside a face")),
        l => Err(EvalError::malformed("", format!("cut start level {l}"))),
    }
}

/// Where `p` lies on the inside of the side a → b, as the proportion from a;
/// None when it is off the side or at an end.
fn along(poly: &PolyMesh, a: u32, b: u32, p: Vec3) -> Option<f64> {
    let pa = *poly.vertices.get(a as usize)?;
    let pb = *poly.vertices.get(b as usize)?;
    let d = pb.minus(pa);
    let len2 = d.dot(d);
    if len2.is_nan() || len2 <= 0.0 {
        return None;
    }
    let t = p.minus(pa).dot(d) / len2;
    let off = p.minus(pa.plus(d.scale(t)));
    let inside = t > ON_EDGE && t < 1.0 - ON_EDGE;
    (off.dot(off).sqrt() <= ON_EDGE * len2.sqrt() && inside).then_some(t)
}

/// Splits edge `e` at proportion `t` from its first vertex; the new vertex.
fn split_at(poly: &mut PolyMesh, e: u32, t: f64) -> Result<u32, EvalError> {
    let nv =
        u32::try_from(poly.vertices.len()).map_err(|_| EvalError::limit("vertices", u32::MAX))?;
    insert_vertices(poly, &[(e, t)])?;
    Ok(nv)
}

/// Cuts from vertex `start` to point `end` across the faces in between, one
/// face at a time: while `end` is neither on a side nor at a corner of a face
/// at the current vertex, the recorded segment (start → end) must cross a
/// side of such a face, away from the current vertex, at a point inside that
/// side and ahead on the segment; that side's edge is split there (a vertex
/// appended), the face is split between the two corners, and the cut goes on
/// from the new vertex. It ends where `end` lies on a side (that edge split
/// as well) or at a corner of a face at the current vertex (the face split
/// there, no vertex added). Returns the end vertex.
fn cut_face(poly: &mut PolyMesh, start: u32, end: Vec3) -> Result<u32, EvalError> {
    let from = *poly
        .vertices
        .get(start as usize)
        .ok_or_else(|| EvalError::malformed("", format!("cut start vertex {start}")))?;
    let mut cur = start;
    let mut done = 0.0;
    // Each crossing splits a face: at most one per face the mesh had.
    for _ in 0..=poly.faces.len() {
        match step(poly, cur, from, end, done)? {
            Step::Side(fi, a, b) => {
                let at = edge_at(poly, a, b, end)?;
                return split_to_new_vertex(poly, fi, cur, at);
            }
            Step::Corner(fi, w) => {
                split_between(poly, fi, cur, w)?;
                return Ok(w);
            }
            Step::Cross(fi, a, b, s) => {
                let at = edge_at(poly, a, b, from.plus(end.minus(from).scale(s)))?;
                cur = split_to_new_vertex(poly, fi, cur, at)?;
                done = s;
            }
        }
    }
    Err(EvalError::malformed(
        "",
        "a cut crossing more sides than the mesh has faces",
    ))
}

/// What a cut from vertex `cur` towards `end` meets first.
enum Step {
    /// `end` lies on side (a, b) of face fi (at `cur`, not touching it).
    Side(usize, u32, u32),
    /// `end` is corner w of face fi, not next to `cur` there.
    Corner(usize, u32),
    /// The segment crosses side (a, b) of face fi at proportion s of it.
    Cross(usize, u32, u32, f64),
}

fn step(poly: &PolyMesh, cur: u32, from: Vec3, end: Vec3, done: f64) -> Result<Step, EvalError> {
    let seg = end.minus(from);
    let len = seg.dot(seg).sqrt();
    let mut cross: Option<(usize, u32, u32, f64)> = None;
    let mut ambiguous = false;
    for (fi, f) in poly.faces.iter().enumerate() {
        let n = f.v.len();
        let Some(k) = f.v.iter().position(|&x| x == cur) else {
            continue;
        };
        for j in 0..n {
            let (a, b) = (f.v[j], f.v[(j + 1) % n]);
            if a == cur || b == cur {
                continue;
            }
            if along(poly, a, b, end).is_some() {
                return Ok(Step::Side(fi, a, b));
            }
            // A corner not next to `cur` in the face.
            let next = |d: usize| f.v[(k + d) % n];
            let pa = poly.vertices[a as usize];
            if a != next(1) && a != next(n - 1) && dist(pa, end) <= ON_EDGE * len {
                return Ok(Step::Corner(fi, a));
            }
            if let Some(s) = crossing(from, end, pa, poly.vertices[b as usize]) {
                if s > done + ON_EDGE && s < 1.0 - ON_EDGE {
                    match cross {
                        Some((_, x, y, s0)) if (x, y) != (a, b) && (x, y) != (b, a) => {
                            if (s - s0).abs() <= ON_EDGE {
                                ambiguous = true;
                            } else if s < s0 {
                                cross = Some((fi, a, b, s));
                            }
                        }
                        Some(_) => {}
                        None => cross = Some((fi, a, b, s)),
                    }
                }
            }
        }
    }
    match cross {
        Some(_) if ambiguous => Err(EvalError::not_evaluated(
            "a cut segment crossing two sides at one point",
        )),
        Some((fi, a, b, s)) => Ok(Step::Cross(fi, a, b, s)),
        None => Err(EvalError::not_evaluated(
            "a cut segment that ends inside a face, or leaves its faces through a vertex or \
             off their sides",
        )),
    }
}

fn dist(a: Vec3, b: Vec3) -> f64 {
    let d = a.minus(b);
    d.dot(d).sqrt()
}

/// Where segment from → end crosses side a → b inside it (away from its
/// ends): the proportion along the segment, when the two lines meet (within
/// the tolerance of the recorded f32 points).
fn crossing(from: Vec3, end: Vec3, a: Vec3, b: Vec3) -> Option<f64> {
    let d1 = end.minus(from);
    let d2 = b.minus(a);
    let r = from.minus(a);
    let (aa, bb, cc) = (d1.dot(d1), d1.dot(d2), d2.dot(d2));
    let (dd, ee) = (d1.dot(r), d2.dot(r));
    let den = aa * cc - bb * bb;
    if den.is_nan() || den <= 1e-12 * aa * cc {
        return None;
    }
    let s = (bb * ee - cc * dd) / den;
    let t = (aa * ee - bb * dd) / den;
    if !(t > ON_EDGE && t < 1.0 - ON_EDGE) {
        return None;
    }
    let p = from.plus(d1.scale(s));
    let q = a.plus(d2.scale(t));
    (dist(p, q) <= ON_EDGE * cc.sqrt()).then_some(s)
}

/// The edge of side (a, b) and where `p` lies on it, from the edge's first vertex.
fn edge_at(poly: &PolyMesh, a: u32, b: u32, p: Vec3) -> Result<(u32, f64), EvalError> {
    let edges = poly.mn_edges()?;
    let e = edges
        .iter()
        .position(|&[x, y]| (x, y) == (a, b) || (x, y) == (b, a))
        .ok_or_else(|| EvalError::malformed("", format!("side ({a}, {b}) is in no edge")))?;
    let [v1, v2] = edges[e];
    let t =
        along(poly, v1, v2, p).ok_or_else(|| EvalError::malformed("", "cut end left its side"))?;
    let e = u32::try_from(e).map_err(|_| EvalError::limit("edges", u32::MAX))?;
    Ok((e, t))
}

/// Splits edge `et.0` at `et.1`, then face `fi` between `cur` and the new vertex.
fn split_to_new_vertex(
    poly: &mut PolyMesh,
    fi: usize,
    cur: u32,
    (e, t): (u32, f64),
) -> Result<u32, EvalError> {
    let nv = split_at(poly, e, t)?;
    split_between(poly, fi, cur, nv)?;
    Ok(nv)
}

/// Splits face `fi` between its corners at vertices `x` and `y`.
fn split_between(poly: &mut PolyMesh, fi: usize, x: u32, y: u32) -> Result<(), EvalError> {
    let f = &poly.faces[fi].v;
    let corner = |v: u32| f.iter().position(|&c| c == v);
    let (Some(i), Some(j)) = (corner(x), corner(y)) else {
        return Err(EvalError::malformed(
            "",
            format!("face {fi} lost a cut corner"),
        ));
    };
    let (lo, hi) = (i.min(j), i.max(j));
    let added = split_face(poly, fi, lo, hi)?;
    // Max's Cut turns both pieces a corner on from Connect Vertex's order:
    // each starts after one cut corner and ends on the other — the kept one
    // [hi + 1 ‥, 0 ‥ lo, hi], the new one [lo + 1 ‥ hi, lo] — and is a fan
    // from that first corner. Shotgun's RubberGrips pin it: their Unwrap
    // cache holds the cut cells so (e.g. [8, 3, 25, 26] and [4, 9, 26, 25]
    // from [3, 25, 4, 9, 26, 8]), and the Shell above moves their vertices
    // along normals that fit those diagonals only.
    turn(poly, fi, lo + 2)?;
    turn(poly, added, 1)?;
    Ok(())
}

/// Face `fi` starting at its corner `by` (modulo its degree), triangulated
/// as a fan from it; its map faces alike.
fn turn(poly: &mut PolyMesh, fi: usize, by: usize) -> Result<(), EvalError> {
    let f = poly
        .faces
        .get_mut(fi)
        .ok_or_else(|| EvalError::malformed("", format!("no face {fi}")))?;
    let by = by % f.v.len();
    let mut v = std::mem::take(&mut f.v);
    v.rotate_left(by);
    *f = PolyFace::fan(v, f.material, f.smoothing);
    for m in &mut poly.maps {
        m.face_mut(fi)?.rotate_left(by);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::modifier::edit_poly_edges::tests::grid;

    fn record(segments: &[(u32, u32, [f32; 3], [f32; 3])]) -> Vec<(u16, Vec<u8>)> {
        let mut w: Vec<u8> = Vec::new();
        let n = segments.len() as u32;
        w.extend(n.to_le_bytes());
        for s in segments {
            w.extend(s.0.to_le_bytes());
        }
        for s in segments {
            w.extend(s.1.to_le_bytes());
        }
        for s in segments {
            s.2.iter().for_each(|x| w.extend(x.to_le_bytes()));
        }
        for s in segments {
            s.3.iter().for_each(|x| w.extend(x.to_le_bytes()));
        }
        for _ in segments {
            [0f32, 0.0, 1.0]
                .iter()
                .for_each(|x| w.extend(x.to_le_bytes()));
        }
        vec![(0x0840, w), (0x0850, 2u32.to_le_bytes().to_vec())]
    }

    #[test]
    fn a_cut_across_two_quads_splits_each() {
        // Grid: quads [0 1 4 3] and [1 2 5 4]; edge 0 is 0 → 1, edge 2 is
        // 4 → 3, edge 5 is 2 → 5.
        let mut m = grid();
        let data = record(&[
            (2, 0, [0.5, 0.0, 0.0], [0.5, 1.0, 0.0]),
            (1, 7, [0.5, 1.0, 0.0], [1.5, 1.0, 0.0]),
        ]);
        // The second segment ends on the top side of the second quad (4 → 5
        // runs along y = 1), not a side of a face at vertex 7: refused.
        assert!(cut(&mut m.clone(), &data, false).is_err());
        let data = record(&[(2, 0, [0.5, 0.0, 0.0], [0.5, 1.0, 0.0])]);
        cut(&mut m, &data, false).expect("cut");
        assert_eq!(m.vertices.len(), 8);
        assert_eq!(m.vertices[6], Vec3(0.5, 0.0, 0.0));
        assert_eq!(m.vertices[7], Vec3(0.5, 1.0, 0.0));
        assert_eq!(m.faces.len(), 3);
        // [0, 6, 1, 4, 7, 3] split at 6 and 7: each piece starts after one
        // cut corner and ends on the other (Max's Cut, RubberGrip).
        assert_eq!(m.faces[0].v, [3, 0, 6, 7]);
        assert_eq!(m.faces[2].v, [1, 4, 7, 6]);
        assert_eq!(m.walked_edges().len(), 7 + 3);
        assert_eq!(m.edges.as_ref().map(Vec::len), Some(10));
        // Split cuts, a face start and a stray record are refused.
        assert!(cut(&mut grid(), &data, true).is_err());
        let face = record(&[(3, 0, [0.5, 0.5, 0.0], [0.5, 1.0, 0.0])]);
        assert!(cut(&mut grid(), &face, false).is_err());
        let mut stray = data.clone();
        stray.push((0x0860, vec![0; 4]));
        assert!(cut(&mut grid(), &stray, false).is_err());
        // A start point off its edge is refused.
        let off = record(&[(2, 0, [0.5, 0.2, 0.0], [0.5, 1.0, 0.0])]);
        assert!(cut(&mut grid(), &off, false).is_err());
    }

    #[test]
    fn a_segment_crossing_faces_splits_each_it_crosses() {
        // From vertex 0 to (2, 0.5) on side 2 → 5: crosses edge 1 → 4 at
        // (1, 0.25) (vertex 6), then ends on side 2 → 5 (vertex 7).
        let mut m = grid();
        cut(
            &mut m,
            &record(&[(1, 0, [0.0, 0.0, 0.0], [2.0, 0.5, 0.0])]),
            false,
        )
        .expect("cut");
        assert_eq!(m.vertices.len(), 8);
        assert_eq!(m.vertices[6], Vec3(1.0, 0.25, 0.0));
        assert_eq!(m.vertices[7], Vec3(2.0, 0.5, 0.0));
        let faces: Vec<&[u32]> = m.faces.iter().map(|f| f.v.as_slice()).collect();
        assert_eq!(
            faces,
            [&[4, 3, 0, 6][..], &[1, 2, 7, 6], &[1, 6, 0], &[5, 4, 6, 7]]
        );
        m.validate().expect("valid");
        // Ending on a corner (vertex 5) adds only the crossing's vertex.
        let mut m = grid();
        cut(
            &mut m,
            &record(&[(1, 0, [0.0, 0.0, 0.0], [2.0, 1.0, 0.0])]),
            false,
        )
        .expect("cut");
        assert_eq!(m.vertices.len(), 7);
        assert_eq!(m.vertices[6], Vec3(1.0, 0.5, 0.0));
        let faces: Vec<&[u32]> = m.faces.iter().map(|f| f.v.as_slice()).collect();
        assert_eq!(
            faces,
            [&[4, 3, 0, 6][..], &[1, 2, 5, 6], &[1, 6, 0], &[4, 6, 5]]
        );
        // Through a vertex (4, at (1, 1)) or off the mesh: refused.
        for end in [[2.0, 2.0, 0.0], [3.0, 0.5, 0.0]] {
            let e =
                cut(&mut grid(), &record(&[(1, 0, [0.0; 3], end)]), false).expect_err("refused");
            assert!(e.to_string().contains("not evaluated"), "{e}");
        }
    }
}
