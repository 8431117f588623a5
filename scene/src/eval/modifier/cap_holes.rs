//! Cap Holes (0x470a1d7a, 0x53955c31): closes every hole of the mesh — a loop
//! of open edges (edges of one face) — with triangles between the loop's own
//! vertices, no vertex added: n − 2 triangles per hole of n edges.
//!
//! ParamBlock2 in reference 0, by id (the MaxScript property order; Gate.max
//! stores 1, 0, 0, the documented defaults): 0 smooth new faces (one
//! smoothing group, unused elsewhere, on every new face), 1 smooth with old
//! faces, 2 all new edges visible (off: only the hole's own edges are
//! visible, the diagonals between them hidden, so an Edit Poly above reads
//! each cap as one polygon).
//!
//! What is evaluated, and why the rest is refused:
//! - Each loop is projected onto its Newell plane and cut into triangles by
//!   ear clipping (`shape::triangulate`). Measured on Gate.max (Line001: a
//!   Lathe of 6 segments, 36 quads with two 6-edge holes, under an Edit
//!   Poly): the Edit Poly recorded 38 faces in its input, so each cap is one
//!   polygon once joined across hidden edges (no vertex added, diagonals
//!   hidden). Which diagonals Max chooses is not verified (no reference
//!   exports a cap's triangles), so the count and the vertices are Max's,
//!   the diagonals ours.
//! - Smooth with old faces (groups taken from the faces bordering the hole)
//!   is refused: no reference shows which faces take which groups.
//! - A loop passing a vertex twice (two holes touching at a corner) is
//!   refused: how Max splits it into loops is not known.
//! - Map channels: a new face takes, at each corner, the map vertex the
//!   bordering old face uses there, so a cap continues its border's mapping.

use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::eval::objects::primitive::{block_params, Params};
use crate::eval::objects::shape::triangulate::triangulate;
use crate::typed::ClassId;
use std::collections::HashMap;

pub const CAP_HOLES: ClassId = ClassId(0x470a_1d7a, 0x5395_5c31);

/// Edge visibility bits of a face: edge v0-v1, v1-v2, v2-v0.
const ALL_EDGES: u16 = 0b111;

/// The settings the result depends on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Smooth new faces: one group no old face uses on every new face.
    pub smooth_new: bool,
    /// All new edges visible: diagonals too.
    pub all_visible: bool,
}

fn settings(p: &Params) -> Result<Settings, EvalError> {
    if p.flag(1, false) {
        return Err(EvalError::not_evaluated("Smooth With Old Faces"));
    }
    Ok(Settings {
        smooth_new: p.flag(0, true),
        all_visible: p.flag(2, false),
    })
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let pb = crate::eval::core::pblock::reference(&cx.eval.graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let p = block_params(cx.eval, pb, cx.t)?;
    cap_holes(mesh, &settings(&p)?)
}

/// One open edge: its start and end vertex (in the old face's order), the
/// face and the face corner it starts at.
#[derive(Debug, Clone, Copy)]
struct Open {
    a: u32,
    b: u32,
    face: usize,
    corner: usize,
}

/// The holes of `mesh`, each the open edges of one loop in the old faces'
/// order (edge k ends where edge k + 1 starts).
fn holes(mesh: &Mesh) -> Result<Vec<Vec<Open>>, EvalError> {
    let mut count: HashMap<(u32, u32), u32> = HashMap::new();
    for f in &mesh.faces {
        for k in 0..3 {
            let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
            *count.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let mut open: Vec<Open> = Vec::new();
    for (i, f) in mesh.faces.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
            if a != b && count.get(&(a.min(b), a.max(b))) == Some(&1) {
                open.push(Open {
                    a,
                    b,
                    face: i,
                    corner: k,
                });
            }
        }
    }
    let mut from: HashMap<u32, usize> = HashMap::new();
    for (i, e) in open.iter().enumerate() {
        if from.insert(e.a, i).is_some() {
            return Err(EvalError::not_evaluated(format!(
                "a hole whose border passes vertex {} twice",
                e.a
            )));
        }
    }
    let mut used = vec![false; open.len()];
    let mut loops = Vec::new();
    for start in 0..open.len() {
        if used[start] {
            continue;
        }
        let mut ring = Vec::new();
        let mut i = start;
        while !used[i] {
            used[i] = true;
            ring.push(open[i]);
            i = match from.get(&open[i].b) {
                Some(&n) => n,
                None => {
                    return Err(EvalError::malformed(
                        "",
                        format!("open edge ending at vertex {} does not continue", open[i].b),
                    ))
                }
            };
        }
        if i != start {
            return Err(EvalError::malformed(
                "",
                "an open edge loop that does not close",
            ));
        }
        loops.push(ring);
    }
    Ok(loops)
}

/// Triangles (indices into `ring`) closing a loop of points, facing against
/// the loop's order (the old faces run along it, the cap must turn back).
fn cap_triangles(points: &[Vec3]) -> Result<Vec<[usize; 3]>, EvalError> {
    let n = points.len();
    if n < 3 {
        return Err(EvalError::malformed("", format!("a hole of {n} edges")));
    }
    // Newell normal of the loop; the cap runs the other way round.
    let mut normal = Vec3(0.0, 0.0, 0.0);
    for i in 0..n {
        let (p, q) = (points[i], points[(i + 1) % n]);
        normal = normal.plus(Vec3(
            (p.1 - q.1) * (p.2 + q.2),
            (p.2 - q.2) * (p.0 + q.0),
            (p.0 - q.0) * (p.1 + q.1),
        ));
    }
    let len = normal.len();
    if !(len > 0.0 && len.is_finite()) {
        return Err(EvalError::not_evaluated("a hole with no area"));
    }
    let w = normal.scale(-1.0 / len);
    let u = if w.0.abs() < 0.9 {
        Vec3(1.0, 0.0, 0.0)
    } else {
        Vec3(0.0, 1.0, 0.0)
    };
    let u = u.minus(w.scale(u.dot(w))).normalized();
    let v = w.cross(u);
    // Reversed loop: counter-clockwise about w, as the triangulation wants.
    let order: Vec<usize> = (0..n).rev().collect();
    let flat: Vec<(f64, f64)> = order
        .iter()
        .map(|&i| (points[i].dot(u), points[i].dot(v)))
        .collect();
    let tris = triangulate(&flat, &[]);
    if tris.len() != n - 2 {
        return Err(EvalError::not_evaluated(format!(
            "a hole of {n} edges that does not cut into {} triangles",
            n - 2
        )));
    }
    Ok(tris.into_iter().map(|t| t.map(|k| order[k])).collect())
}

/// Closes every hole of `mesh` (see the module documentation).
pub fn cap_holes(mesh: &mut Mesh, s: &Settings) -> Result<(), EvalError> {
    let loops = holes(mesh)?;
    if loops.is_empty() {
        return Ok(());
    }
    let group = if s.smooth_new {
        let used = mesh.faces.iter().fold(0u32, |g, f| g | f.smoothing);
        match (0..32).map(|b| 1u32 << b).find(|b| used & b == 0) {
            Some(b) => b,
            None => {
                return Err(EvalError::not_evaluated(
                    "Smooth New Faces on a mesh using all 32 smoothing groups",
                ))
            }
        }
    } else {
        0
    };
    for ring in loops {
        let n = ring.len();
        let points: Vec<Vec3> =
            ring.iter()
                .map(|e| {
                    mesh.vertices.get(e.a as usize).copied().ok_or_else(|| {
                        EvalError::malformed("", format!("vertex {} out of range", e.a))
                    })
                })
                .collect::<Result<_, _>>()?;
        let material = mesh.faces[ring[0].face].material;
        for t in cap_triangles(&points)? {
            // An edge of the triangle is the hole's when its corners are
            // neighbours on the loop.
            let mut flags = 0u16;
            for k in 0..3 {
                let (x, y) = (t[k], t[(k + 1) % 3]);
                if s.all_visible || (x + n - y) % n == 1 || (y + n - x) % n == 1 {
                    flags |= 1 << k;
                }
            }
            mesh.faces.push(Face {
                v: t.map(|k| ring[k].a),
                smoothing: group,
                material,
                flags: flags & ALL_EDGES,
            });
            for map in &mut mesh.maps {
                let corners = t.map(|k| {
                    let e = ring[k];
                    map.faces.get(e.face).map(|f| f[e.corner])
                });
                match corners {
                    [Some(a), Some(b), Some(c)] => map.faces.push([a, b, c]),
                    _ => {
                        return Err(EvalError::malformed(
                            "",
                            format!("map channel {} has fewer faces than the mesh", map.channel),
                        ))
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Value;

    fn face(v: [u32; 3]) -> Face {
        Face {
            v,
            smoothing: 1,
            material: 0,
            flags: ALL_EDGES,
        }
    }

    /// A box (8 corners, 12 triangles) with its top's two triangles removed.
    fn open_box() -> Mesh {
        let c = |x: f64, y: f64, z: f64| Vec3(x, y, z);
        let vertices = vec![
            c(0., 0., 0.),
            c(1., 0., 0.),
            c(1., 1., 0.),
            c(0., 1., 0.),
            c(0., 0., 1.),
            c(1., 0., 1.),
            c(1., 1., 1.),
            c(0., 1., 1.),
        ];
        let faces = [
            [0, 2, 1],
            [0, 3, 2],
            [0, 1, 5],
            [0, 5, 4],
            [1, 2, 6],
            [1, 6, 5],
            [2, 3, 7],
            [2, 7, 6],
            [3, 0, 4],
            [3, 4, 7],
        ]
        .into_iter()
        .map(face)
        .collect();
        Mesh {
            vertices,
            faces,
            ..Mesh::default()
        }
    }

    fn open_edges(mesh: &Mesh) -> usize {
        holes(mesh).map_or(usize::MAX, |l| l.iter().map(Vec::len).sum())
    }

    #[test]
    fn closes_a_square_hole_with_two_outward_triangles() {
        let mut m = open_box();
        assert_eq!(open_edges(&m), 4);
        cap_holes(
            &mut m,
            &Settings {
                smooth_new: true,
                all_visible: false,
            },
        )
        .unwrap();
        // Geometry invariants: closed, n − 2 new faces, no new vertex.
        assert_eq!((m.vertices.len(), m.faces.len()), (8, 12));
        assert_eq!(open_edges(&m), 0);
        for f in &m.faces[10..] {
            let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
            let n = b.minus(a).cross(c.minus(a));
            // The top's outward normal is +z.
            assert!(n.2 > 0.0, "{n:?}");
            assert_eq!(f.smoothing, 2, "lowest group the box does not use");
            // One diagonal hidden, the two hole edges visible.
            assert_eq!(f.flags.count_ones(), 2);
        }
    }

    #[test]
    fn refuses_smooth_with_old_faces() {
        let p = Params::from_values(vec![Value::Int(1), Value::Int(1), Value::Int(0)]);
        assert!(settings(&p).is_err());
    }
}
