//! Extrude (0xa0, 0): a shape's polylines swept along its local +Z, as the
//! public Max SDK sample `extrude.cpp` builds the mesh (the code is ours).
//!
//! Old ParamBlock (reference 0) by index: 0 amount, 1 segments, 2 cap start,
//! 3 cap end, 4 cap type (0 morph, 1 grid), 5 output (0 patch, 1 mesh,
//! 2 NURBS), 6 generate mapping, 7 generate material ids, 8 use shape ids,
//! 9 smooth. Layout: the polylines organised as for capping (outlines
//! counter-clockwise, holes clockwise); per polyline, per level
//! (z = base + level / segments · |amount|, base = min(amount, 0)), its points.
//! Side faces first: per polyline, per level, per segment (v1 = point i,
//! v2 = point i + 1, v3 / v4 the same a level up) the triangles (v1, v2, v4)
//! with edges 0 and 1 visible and (v1, v4, v3) with edges 1 and 2, material
//! 2 (or the segment's own with "use shape ids"), smoothing groups 1, 2, 4
//! cycling at every point that is not smooth. Then the start cap (facing −Z,
//! material 0) and the end cap (+Z, material 1) — "morph" caps over the
//! region's own points; grid capping, patch and NURBS output are refused.
//! Mapping: per polyline and level, one texture vertex per point (and one
//! more closing a closed polyline) at U = length along the polyline / its
//! length, V = level / segments; each cap maps its points' XY box onto 0..1.

use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};
use crate::eval::objects::primitive::block_params;
use crate::eval::objects::shape::organize::Hierarchy;
use crate::eval::objects::shape::{organize, triangulate::triangulate, PolyLine};
use crate::typed::ClassId;

pub const EXTRUDE: ClassId = ClassId(0xa0, 0);

/// Max's limit on the extrusion amount.
const MAX_AMOUNT: f64 = 1_000_000.0;
/// Most segments accepted (damaged values).
const MAX_SEGMENTS: i64 = 10_000;
/// Mesh vertices an extrusion may make at most.
const MAX_VERTICES: usize = 1 << 23;

/// Extrude's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub amount: f64,
    pub segments: usize,
    pub cap_start: bool,
    pub cap_end: bool,
    pub mapping: bool,
    pub material_ids: bool,
    pub shape_ids: bool,
    pub smooth: bool,
}

fn settings(m: &Applied, cx: &ModContext) -> Result<Settings, EvalError> {
    let pb = crate::eval::core::pblock::reference(&cx.eval.graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let is_pb2 = crate::eval::core::pblock::is_param_block2(&cx.eval.graph, pb);
    if is_pb2 {
        return Err(EvalError::not_evaluated_why(
            "a ParamBlock2 Extrude",
            "its ids are not known",
        ));
    }
    let p = block_params(cx.eval, pb, cx.t)?;
    match p.int_or(5, 1) {
        1 => {}
        0 => return Err(EvalError::not_evaluated("patch output")),
        o => return Err(EvalError::not_evaluated(format!("output type {o}"))),
    }
    if p.int_or(4, 0) != 0 {
        return Err(EvalError::not_evaluated_why(
            "grid capping",
            "Max's grid capper is not public",
        ));
    }
    let amount = p.float_or(0, 0.0);
    if !amount.is_finite() {
        return Err(EvalError::malformed("", format!("amount {amount}")));
    }
    let segments = p.int_or(1, 1);
    if segments > MAX_SEGMENTS {
        return Err(EvalError::malformed("", format!("{segments} segments")));
    }
    Ok(Settings {
        amount: amount.clamp(-MAX_AMOUNT, MAX_AMOUNT),
        segments: segments.max(1) as usize,
        cap_start: p.flag(2, true),
        cap_end: p.flag(3, true),
        mapping: p.flag(6, false),
        material_ids: p.flag(7, true),
        shape_ids: p.flag(8, false),
        smooth: p.flag(9, true),
    })
}

/// The mesh of an Extrude applied to the polylines of a shape.
pub fn apply_to_shape(m: &Applied, lines: &[PolyLine], cx: &ModContext) -> Result<Mesh, EvalError> {
    let s = settings(m, cx)?;
    extrude(lines, &s)
}

/// Extrudes `lines` (object space of the shape) with settings `s`.
pub fn extrude(lines: &[PolyLine], s: &Settings) -> Result<Mesh, EvalError> {
    let (hier, lines) = organized(lines);
    let levels = s.segments;
    let level_verts: usize = lines.iter().map(|l| l.pts.len()).sum();
    if level_verts.saturating_mul(levels + 1) > MAX_VERTICES {
        return Err(EvalError::malformed(
            "",
            format!("{level_verts} points × {} levels", levels + 1),
        ));
    }
    let z_size = s.amount.abs();
    let base_z = s.amount.min(0.0);
    let z = |level: usize| base_z + level as f64 / levels as f64 * z_size;
    let mut mesh = Mesh::default();
    let mut tverts: Vec<[f32; 3]> = Vec::new();
    let mut tfaces: Vec<[u32; 3]> = Vec::new();
    // Vertices (and side texture vertices), polyline by polyline.
    let mut first_vertex = Vec::with_capacity(lines.len());
    for l in &lines {
        first_vertex.push(mesh.vertices.len());
        if s.mapping {
            let u = length_u(l);
            for level in 0..=levels {
                let v = level as f64 / levels as f64;
                tverts.extend(u.iter().map(|&u| [u as f32, v as f32, 0.0]));
            }
        }
        for level in 0..=levels {
            let dz = Vec3(0.0, 0.0, z(level));
            mesh.vertices.extend(l.pts.iter().map(|p| p.p.plus(dz)));
        }
    }
    // Side faces.
    let (mut base_vert, mut base_tvert) = (0u32, 0u32);
    for l in &lines {
        let pieces = l.segments() as u32;
        let seg_verts = pieces + u32::from(!l.closed);
        let seg_tverts = pieces + 1;
        for _level in 0..levels {
            let mut groups = SideGroups::new(l.pts[0].smooth, pieces as usize);
            for piece in 0..pieces {
                let v1 = base_vert + piece;
                let v2 = base_vert + (piece + 1) % seg_verts;
                let (v3, v4) = (v1 + seg_verts, v2 + seg_verts);
                let group = groups.next(piece as usize, l.pts[piece as usize].smooth);
                let smoothing = if s.smooth { group } else { 0 };
                let material = side_material(l, piece as usize, s.shape_ids, s.material_ids);
                mesh.faces.push(Face {
                    v: [v1, v2, v4],
                    smoothing,
                    material,
                    flags: 0b011,
                });
                mesh.faces.push(Face {
                    v: [v1, v4, v3],
                    smoothing,
                    material,
                    flags: 0b110,
                });
                if s.mapping {
                    let tv1 = base_tvert + piece;
                    let (tv2, tv3) = (tv1 + 1, tv1 + seg_tverts);
                    tfaces.push([tv1, tv2, tv2 + seg_tverts]);
                    tfaces.push([tv1, tv2 + seg_tverts, tv3]);
                }
            }
            base_vert += seg_verts;
            base_tvert += seg_tverts;
        }
        base_vert += seg_verts;
        base_tvert += seg_tverts;
    }
    // Caps: start (level 0, facing −Z), then end (top level, facing +Z).
    if lines.iter().any(|l| l.closed) {
        for (start, wanted, material) in [(true, s.cap_start, 0u16), (false, s.cap_end, 1u16)] {
            if !wanted {
                continue;
            }
            let level = if start { 0 } else { levels };
            let first_face = mesh.faces.len();
            let vertex =
                |li: usize, k: usize| (first_vertex[li] + level * lines[li].pts.len() + k) as u32;
            let material = if s.material_ids { material } else { 0 };
            cap(&mut mesh, &lines, &hier, vertex, start, material);
            if s.mapping {
                let at = |v: u32| {
                    let p = mesh.vertices[v as usize];
                    (p.0, p.1)
                };
                cap_mapping(&mesh, first_face, at, &mut tverts, &mut tfaces);
            }
        }
    }
    if s.mapping {
        mesh.maps.push(MapChannel {
            channel: 1,
            vertices: tverts,
            faces: tfaces,
        });
    }
    Ok(mesh)
}

/// Morph caps over the organised polylines' own points: each outline with
/// its holes triangulated in the shape's XY plane (counter-clockwise seen
/// from +Z), turned over when `flip`; `vertex(line, point)` is the mesh
/// vertex of a polyline point on the capped level.
pub(crate) fn cap(
    mesh: &mut Mesh,
    lines: &[PolyLine],
    hier: &Hierarchy,
    vertex: impl Fn(usize, usize) -> u32,
    flip: bool,
    material: u16,
) {
    let first = mesh.faces.len();
    for (outer, holes) in hier.regions() {
        let ring = |li: usize| -> (Vec<(f64, f64)>, Vec<u32>) {
            let l = &lines[li];
            (
                l.pts.iter().map(|p| (p.p.0, p.p.1)).collect(),
                (0..l.pts.len()).map(|k| vertex(li, k)).collect(),
            )
        };
        let (outer_pts, mut ids) = ring(outer);
        let mut hole_pts = Vec::new();
        for &h in &holes {
            let (p, i) = ring(h);
            hole_pts.push(p);
            ids.extend(i);
        }
        for t in triangulate(&outer_pts, &hole_pts) {
            let v = [ids[t[0]], ids[t[1]], ids[t[2]]];
            mesh.faces.push(Face {
                v: if flip { [v[0], v[2], v[1]] } else { v },
                smoothing: 0,
                material,
                flags: 0,
            });
        }
    }
    mark_outline_edges(mesh, first);
}

/// The polylines that have points, organised as for capping (outlines,
/// then their holes): the order Extrude and Lathe lay their vertices in.
pub(super) fn organized(lines: &[PolyLine]) -> (Hierarchy, Vec<PolyLine>) {
    let lines: Vec<PolyLine> = lines
        .iter()
        .filter(|l| !l.pts.is_empty())
        .cloned()
        .collect();
    organize(&lines)
}

/// U of each side texture vertex along polyline `l` (its points, and one
/// more closing a closed polyline): the length travelled over the whole
/// length, the last exactly 1. Extrude and Lathe map their sides alike.
pub(super) fn length_u(l: &PolyLine) -> Vec<f64> {
    let tex_pts = l.pts.len() + usize::from(l.closed);
    let total = l.length();
    let mut u = Vec::with_capacity(tex_pts);
    let mut cum = 0.0;
    for tp in 0..tex_pts {
        if tp == tex_pts - 1 {
            u.push(1.0);
        } else {
            if tp > 0 {
                cum += l.pts[tp].p.minus(l.pts[tp - 1].p).len();
            }
            u.push(if total > 0.0 { cum / total } else { 0.0 });
        }
    }
    u
}

/// Material of the side faces of segment `piece` of `l`: 2, or the
/// segment's own with "use shape ids"; 0 without "generate material ids"
/// (Extrude's and Lathe's rule).
pub(super) fn side_material(
    l: &PolyLine,
    piece: usize,
    shape_ids: bool,
    material_ids: bool,
) -> u16 {
    if !material_ids {
        0
    } else if shape_ids {
        l.pts[piece].material
    } else {
        2
    }
}

/// Smoothing groups of the side faces along one polyline, as Extrude and
/// Lathe give them: each corner (non-smooth) point starts the next group of
/// 2 and 4 in turn, and group 1 joins the faces on both sides of a smooth
/// first point so a closed outline's seam stays smooth.
pub(super) struct SideGroups {
    sm: u32,
    first_smooth: bool,
    pieces: usize,
}

impl SideGroups {
    pub(super) fn new(first_smooth: bool, pieces: usize) -> SideGroups {
        SideGroups {
            sm: 0,
            first_smooth,
            pieces,
        }
    }

    /// The group of segment `piece`, whose start point is smooth or not.
    pub(super) fn next(&mut self, piece: usize, this_smooth: bool) -> u32 {
        if piece > 0 && !this_smooth {
            self.sm += 1;
            if self.sm > 2 {
                self.sm = 1;
            }
        }
        let mut group = 1u32 << self.sm;
        if self.sm == 0 {
            self.sm += 1;
        }
        if piece == 1 && this_smooth {
            group |= 1;
        }
        if piece + 1 == self.pieces && self.first_smooth {
            group |= 1;
        }
        group
    }
}

/// Cap edges on the outline are visible, the diagonals inside are not: an
/// edge is an outline edge when its two vertices are neighbours on a ring,
/// i.e. when no other cap face uses it.
fn mark_outline_edges(mesh: &mut Mesh, first: usize) {
    use std::collections::HashMap;
    let mut count: HashMap<(u32, u32), u32> = HashMap::new();
    let key = |a: u32, b: u32| if a < b { (a, b) } else { (b, a) };
    for f in &mesh.faces[first..] {
        for e in 0..3 {
            *count.entry(key(f.v[e], f.v[(e + 1) % 3])).or_default() += 1;
        }
    }
    for f in &mut mesh.faces[first..] {
        let mut flags = 0;
        for e in 0..3 {
            if count.get(&key(f.v[e], f.v[(e + 1) % 3])) == Some(&1) {
                flags |= 1 << e;
            }
        }
        f.flags = flags;
    }
}

/// Max's `MakeMeshCapTexture`: the cap's vertices (in vertex order) get new
/// texture vertices mapping their box in the cap's plane (`at`: a vertex's
/// coordinates there) onto 0..1.
pub(super) fn cap_mapping(
    mesh: &Mesh,
    first: usize,
    at: impl Fn(u32) -> (f64, f64),
    tverts: &mut Vec<[f32; 3]>,
    tfaces: &mut Vec<[u32; 3]>,
) {
    let faces = &mesh.faces[first..];
    let mut used: Vec<u32> = faces.iter().flat_map(|f| f.v).collect();
    used.sort_unstable();
    used.dedup();
    let (mut lo, mut hi) = ((f64::MAX, f64::MAX), (f64::MIN, f64::MIN));
    for &v in &used {
        let p = at(v);
        lo = (lo.0.min(p.0), lo.1.min(p.1));
        hi = (hi.0.max(p.0), hi.1.max(p.1));
    }
    let scale = |d: f64| if d > 0.0 { 1.0 / d } else { 0.0 };
    let (sx, sy) = (scale(hi.0 - lo.0), scale(hi.1 - lo.1));
    let base = tverts.len() as u32;
    for &v in &used {
        let p = at(v);
        tverts.push([((p.0 - lo.0) * sx) as f32, ((p.1 - lo.1) * sy) as f32, 0.0]);
    }
    let index = |v: u32| base + used.binary_search(&v).unwrap_or(0) as u32;
    for f in faces {
        tfaces.push([index(f.v[0]), index(f.v[1]), index(f.v[2])]);
    }
}
