//! UVW Map's projections, per face corner, in the gizmo's map space (see
//! `uvw_map::map_to_object` for its extent per type).
//!
//! - planar: u, v = ½ + ½·(x, y); w = 0.
//! - cylindrical: u = the angle around the gizmo's z axis / 2π + ½ (the seam
//!   on map −x), v = z + ½, w = 0; with cap, a face whose normal is mostly
//!   along z is mapped planar instead, u = x + ½ and v = y + ½ on both caps
//!   (unlike box mapping, the −z cap's u is not mirrored: danshaub's
//!   Chair.max against the authors' Chair.FBX, the bottom caps of six
//!   boxes, 72 corners each).
//! - spherical: u as cylindrical, v = latitude / π + ½, w = 0.
//! - shrink wrap: the sphere unrolled around its +z pole (azimuthal
//!   equidistant): the −z pole becomes the map's inscribed circle.
//! - box: each face is mapped planar along the dominant axis of its normal,
//!   u mirrored on the +y, −x and −z sides so that each reads unmirrored from
//!   outside (the Box primitive's own generated mapping does the same).
//! - face: each triangle takes three corners of the unit square, the square's
//!   diagonal on its hidden edge; of two triangles sharing that edge the later
//!   takes the other half, so a quad shows the whole map.
//! - XYZ to UVW: the object-space position.
//!
//! A wrapping face (cylindrical or spherical) whose corners' u span more than
//! ½ crosses the seam: its corners above ½ move down by 1 (as the game
//! files exported from Level2-Bridge's cylindrical map hold them). A corner on the axis
//! (no angle) takes the mean u of the face's other corners.
//!
//! Topology: planar and XYZ keep the geometry's (one texture vertex per
//! vertex, as before); the others one texture vertex per (geometry vertex,
//! value): corners share a texture vertex wherever the value is the same, and
//! split at seams, box sides, caps and face mapping's squares.

use std::collections::HashMap;
use std::f64::consts::{PI, TAU};

use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::objects::mesh::{MapChannel, Mesh};

/// The mapping types of UVW Map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Projection {
    Planar,
    Cylindrical { cap: bool },
    Spherical,
    ShrinkWrap,
    Box,
    Face,
    Xyz,
}

/// Edge visibility bits of a face: AB, BC, CA.
const EDGE_BITS: [u16; 3] = [1, 2, 4];
/// The unit square's corners, counter-clockwise from the origin.
const SQUARE: [[f64; 2]; 4] = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];

/// The texture vertices and faces of `mesh` under `projection` (`to_map`
/// takes object space to map space; `finish` applies tile and flip).
///
/// `leads`, one per face, names the first corner of the polygon each
/// triangle comes from when the input is polygons (an MNMesh): Max maps a
/// polygon at once, its corners across a wrapping seam following that first
/// corner (guardTower.max's and torch.max's FBX), where on triangles the
/// corners above ½ move down.
pub(super) fn map(
    mesh: &Mesh,
    to_map: &Mat43,
    projection: Projection,
    leads: Option<&[u32]>,
    finish: impl Fn(Vec3) -> [f32; 3],
) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let q: Vec<Vec3> = mesh
        .vertices
        .iter()
        .map(|&v| to_map.transform_point(v))
        .collect();
    // Planar and XYZ mapping depend on the position alone: Max gives them the
    // geometry's own topology, one texture vertex per vertex.
    if matches!(projection, Projection::Planar | Projection::Xyz) {
        let vertices = q
            .iter()
            .map(|&x| {
                finish(if projection == Projection::Planar {
                    planar(x)
                } else {
                    x
                })
            })
            .collect();
        return (vertices, mesh.faces.iter().map(|f| f.v).collect());
    }
    let at = |i: u32| q.get(i as usize).copied().unwrap_or(Vec3(0.0, 0.0, 0.0));
    let mut index: HashMap<(u32, [u32; 3]), u32> = HashMap::new();
    let mut vertices: Vec<[f32; 3]> = Vec::new();
    let mut faces = Vec::with_capacity(mesh.faces.len());
    let second_halves = match projection {
        Projection::Face => second_halves(mesh),
        _ => Vec::new(),
    };
    for (i, f) in mesh.faces.iter().enumerate() {
        let p = f.v.map(at);
        let uvw = match projection {
            Projection::Face => face(f.flags, second_halves.get(i).copied().unwrap_or(false)),
            _ => {
                // The side a face takes is read from its object-space normal
                // carried into map space as a vector (UVWMapper::MainAxis:
                // `tm.VectorTransform(n)`), not from the mapped triangle:
                // a gizmo flattened along one axis favours that axis.
                let o = f.v.map(|i| {
                    mesh.vertices
                        .get(i as usize)
                        .copied()
                        .unwrap_or(Vec3(0.0, 0.0, 0.0))
                });
                let normal = to_map.transform_vector(o[1].minus(o[0]).cross(o[2].minus(o[0])));
                let lead = leads.and_then(|l| l.get(i)).map(|&v| at(v));
                corners(&p, normal, projection, lead)
            }
        };
        let tv = std::array::from_fn(|k| {
            let value = finish(uvw[k]);
            let key = (f.v[k], value.map(f32::to_bits));
            *index.entry(key).or_insert_with(|| {
                vertices.push(value);
                (vertices.len() - 1) as u32
            })
        });
        faces.push(tv);
    }
    (vertices, faces)
}

/// Map channel 1 as `Mesh::ApplyUVWMap(MAP_SPHERICAL)` builds it with an
/// identity map space, U and V tiling `tile` (W 1) and no flips: the call the
/// GeoSphere primitive makes for its generated mapping (SDK sample
/// gsphere.cpp; tiling 1, or 2π·r and π·r with the real-world map size on).
pub(crate) fn spherical_channel(mesh: &Mesh, tile: [f32; 2]) -> MapChannel {
    let (vertices, faces) = map(mesh, &Mat43::IDENTITY, Projection::Spherical, None, |x| {
        [
            (x.0 * f64::from(tile[0])) as f32,
            (x.1 * f64::from(tile[1])) as f32,
            x.2 as f32,
        ]
    });
    MapChannel {
        channel: 1,
        vertices,
        faces,
    }
}

/// The UVW of a face's three corners (`p` in map space; `normal` the face's
/// object-space normal as a map-space vector).
fn corners(p: &[Vec3; 3], normal: Vec3, projection: Projection, lead: Option<Vec3>) -> [Vec3; 3] {
    match projection {
        Projection::Planar => p.map(planar),
        Projection::Xyz => *p,
        Projection::Box => {
            let side = main_axis(normal);
            p.map(|x| box_side(x, side))
        }
        // Both caps planar as seen from +z: the −z cap is not mirrored as
        // box mapping's −z side is (danshaub's Chair.FBX, below).
        Projection::Cylindrical { cap: true } if matches!(main_axis(normal), 2 | 5) => {
            p.map(|x| box_side(x, 2))
        }
        Projection::Cylindrical { .. } => wrapped(p, lead, |x| Vec3(angle(x), x.2 + 0.5, 0.0)),
        Projection::Spherical => wrapped(p, lead, |x| {
            let r = x.len();
            let v = if r > 0.0 {
                (x.2 / r).clamp(-1.0, 1.0).asin() / PI + 0.5
            } else {
                0.5
            };
            Vec3(angle(x), v, 0.0)
        }),
        Projection::ShrinkWrap => p.map(shrink_wrap),
        Projection::Face => face(0, false),
    }
}

fn planar(x: Vec3) -> Vec3 {
    Vec3(0.5 + 0.5 * x.0, 0.5 + 0.5 * x.1, 0.0)
}

/// u around the z axis: 0 and 1 on map −x, ½ on +x.
fn angle(x: Vec3) -> f64 {
    x.1.atan2(x.0) / TAU + 0.5
}

/// Whether a point has no angle around the z axis.
fn on_axis(x: Vec3) -> bool {
    x.0 == 0.0 && x.1 == 0.0
}

/// `u` moved by a whole turn to within ½ of `u0`: how Max's mapper carries
/// a polygon's corners across a wrapping seam, after its first corner.
pub(crate) fn beside(u: f64, u0: f64) -> f64 {
    if u - u0 > 0.5 {
        u - 1.0
    } else if u0 - u > 0.5 {
        u + 1.0
    } else {
        u
    }
}

/// A wrapping projection with the seam and axis handling.
fn wrapped(p: &[Vec3; 3], lead: Option<Vec3>, f: impl Fn(Vec3) -> Vec3) -> [Vec3; 3] {
    let mut uvw = p.map(&f);
    let off: Vec<usize> = (0..3).filter(|&k| !on_axis(p[k])).collect();
    let (lo, hi) = off.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &k| {
        (lo.min(uvw[k].0), hi.max(uvw[k].0))
    });
    if let Some(u0) = lead.filter(|&r| !on_axis(r)).map(|r| f(r).0) {
        // A polygon's corners follow its first one across the seam.
        for &k in &off {
            uvw[k].0 = beside(uvw[k].0, u0);
        }
    } else if hi - lo > 0.5 {
        for &k in &off {
            if uvw[k].0 > 0.5 {
                uvw[k].0 -= 1.0;
            }
        }
    }
    if off.len() < 3 {
        let mean = if off.is_empty() {
            0.5
        } else {
            off.iter().map(|&k| uvw[k].0).sum::<f64>() / off.len() as f64
        };
        for k in (0..3).filter(|&k| on_axis(p[k])) {
            uvw[k].0 = mean;
        }
    }
    uvw
}

/// The dominant axis of `n`: 0 +x, 1 +y, 2 +z, 3 −x, 4 −y, 5 −z (ties to
/// the lower axis).
fn main_axis(n: Vec3) -> usize {
    let (ax, ay, az) = (n.0.abs(), n.1.abs(), n.2.abs());
    let (axis, value) = if ax >= ay && ax >= az {
        (0, n.0)
    } else if ay >= az {
        (1, n.1)
    } else {
        (2, n.2)
    };
    if value < 0.0 {
        axis + 3
    } else {
        axis
    }
}

/// Box mapping of one point on side `side` (see [`main_axis`]).
fn box_side(x: Vec3, side: usize) -> Vec3 {
    let (u, v) = match side {
        0 => (x.1, x.2),
        3 => (-x.1, x.2),
        1 => (-x.0, x.2),
        4 => (x.0, x.2),
        2 => (x.0, x.1),
        _ => (-x.0, x.1),
    };
    Vec3(0.5 + 0.5 * u, 0.5 + 0.5 * v, 0.0)
}

/// Shrink wrap: distance from the +z pole (0 there, ½ at the −z pole) along
/// the direction of the point's angle around z.
fn shrink_wrap(x: Vec3) -> Vec3 {
    let r = x.len();
    if r == 0.0 {
        return Vec3(0.5, 0.5, 0.0);
    }
    let rho = 0.5 * (x.2 / r).clamp(-1.0, 1.0).acos() / PI;
    let a = x.1.atan2(x.0);
    Vec3(0.5 + rho * a.cos(), 0.5 + rho * a.sin(), 0.0)
}

/// The first hidden edge of a face (0 AB, 1 BC, 2 CA), if any.
fn hidden_edge(flags: u16) -> Option<usize> {
    (0..3).find(|&e| flags & EDGE_BITS[e] == 0)
}

/// Per face: whether it is the later of two triangles sharing its hidden
/// edge (a quad's second half), which takes the square's other half.
fn second_halves(mesh: &Mesh) -> Vec<bool> {
    let mut by_edge: HashMap<(u32, u32), usize> = HashMap::new();
    for (i, f) in mesh.faces.iter().enumerate() {
        if let Some(h) = hidden_edge(f.flags) {
            by_edge.entry((f.v[h], f.v[(h + 1) % 3])).or_insert(i);
        }
    }
    mesh.faces
        .iter()
        .enumerate()
        .map(|(i, f)| {
            hidden_edge(f.flags).is_some_and(|h| {
                by_edge
                    .get(&(f.v[(h + 1) % 3], f.v[h]))
                    .is_some_and(|&g| g < i)
            })
        })
        .collect()
}

/// Face mapping: the corners after the first hidden edge take the square's
/// corners 0, 1, 2 (its diagonal on that edge), or 2, 3, 0 for the later
/// triangle of a pair sharing that edge, so a quad shows the whole square; a
/// face without a hidden edge takes corners 0, 1, 2 in corner order.
fn face(flags: u16, second: bool) -> [Vec3; 3] {
    let hidden = hidden_edge(flags).unwrap_or(2);
    let first = if second { 2 } else { 0 };
    let mut out = [Vec3(0.0, 0.0, 0.0); 3];
    for (i, c) in [(hidden + 1) % 3, (hidden + 2) % 3, hidden]
        .into_iter()
        .enumerate()
    {
        let q = SQUARE[(first + i) % 4];
        out[c] = Vec3(q[0], q[1], 0.0);
    }
    out
}

#[cfg(test)]
#[path = "uvw_project_tests.rs"]
mod tests;
