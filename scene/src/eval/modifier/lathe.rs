//! Lathe (0xb0, 0; "surface of revolution"): a shape's polylines turned
//! about an axis, as the public Max SDK sample `surfrev.cpp` builds the mesh
//! (the code is ours).
//!
//! References: 0 the axis (a PRS controller, read relative to identity),
//! 1 the old ParamBlock, by index: 0 degrees (0…360), 1 segments (3…10000),
//! 2 cap start, 3 cap end, 4 cap type (0 morph, 1 grid — refused), 5 weld
//! core, 6 output (1 mesh; patch and NURBS refused), 7 generate mapping,
//! 8 flip normals, 9 generate material ids, 10 use shape ids, 11 smooth.
//!
//! With A = axis · mod-context TM⁻¹, level k of `segments` is the polylines'
//! points (organised as for capping) moved by A⁻¹ · RotZ(k / segments ·
//! degrees) · A; a full 360° has `segments` levels and wraps, less has one
//! more. Max decides the winding from the first level: the mesh is "inverse"
//! when a point off the axis (its distance from the axis above the core
//! threshold, min(width / 100, 0.01) of its polyline, the width being its
//! larger extent across the axis) lands at z > 0 of object space, flipped by
//! "flip normals". The SDK sample measures x alone in axis space, which is 0
//! for every point when the axis lies along the shape's X ("Direction X"):
//! Max welds such a core (displays.max, below), so the distance is radial. Side faces per level, polyline and segment:
//! (v1, v2, v4), (v1, v4, v3) when inverse, else (v1, v4, v2), (v1, v3, v4),
//! material 2 (or the shape's), smoothing as Extrude's. Caps (under 360°,
//! closed polylines): the start cap (material 1) turned over when inverse,
//! the end cap (material 0) when not. "Weld core" merges every level's copy
//! of a point on the axis into the first level's, drops the faces that
//! collapse and the vertices no face uses.

use super::extrude::{cap, cap_mapping, length_u, organized, side_material, SideGroups};
use super::{gizmo, Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};
use crate::eval::objects::primitive::block_params;
use crate::eval::objects::shape::PolyLine;
use crate::typed::ClassId;

pub const LATHE: ClassId = ClassId(0xb0, 0);

const AXIS_SLOT: u32 = 0;
const PBLOCK_SLOT: u32 = 1;
/// Mesh vertices a lathe may make at most.
const MAX_VERTICES: usize = 1 << 23;

/// Lathe's settings (the axis already composed with the mod-context TM).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub axis: Mat43,
    pub degrees: f64,
    pub segments: usize,
    pub cap_start: bool,
    pub cap_end: bool,
    pub weld_core: bool,
    pub mapping: bool,
    pub flip_normals: bool,
    pub material_ids: bool,
    pub shape_ids: bool,
    pub smooth: bool,
}

fn settings(m: &Applied, cx: &ModContext) -> Result<Settings, EvalError> {
    let graph = &cx.eval.graph;
    let pb = crate::eval::core::pblock::reference(graph, m.object, PBLOCK_SLOT)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 1)"))?;
    let is_pb2 = crate::eval::core::pblock::is_param_block2(graph, pb);
    if is_pb2 {
        return Err(EvalError::not_evaluated_why(
            "a ParamBlock2 Lathe",
            "its ids are not known",
        ));
    }
    let p = block_params(cx.eval, pb, cx.t)?;
    match p.int_or(6, 1) {
        1 => {}
        o => {
            return Err(EvalError::not_evaluated(format!(
                "output type {o} (patch / NURBS)"
            )))
        }
    }
    if p.int_or(4, 0) != 0 {
        return Err(EvalError::not_evaluated_why(
            "grid capping",
            "Max's grid capper is not public",
        ));
    }
    let axis_ctl = match crate::eval::core::pblock::reference(graph, m.object, AXIS_SLOT) {
        None => Mat43::IDENTITY,
        Some(ctl) => cx
            .eval
            .prs_tm(ctl, cx.t)
            .ok_or_else(|| EvalError::not_evaluated("the axis controller"))?,
    };
    let mc = gizmo::mod_context_tm(m.mod_app)?;
    let degrees = p.float_or(0, 360.0);
    if !degrees.is_finite() {
        return Err(EvalError::malformed("", format!("{degrees} degrees")));
    }
    Ok(Settings {
        axis: axis_ctl.then(&gizmo::inverse(&mc, "mod-context TM")?),
        degrees: degrees.clamp(0.0, 360.0),
        segments: p.int_or(1, 16).clamp(3, 10_000) as usize,
        cap_start: p.flag(2, true),
        cap_end: p.flag(3, true),
        weld_core: p.flag(5, false),
        mapping: p.flag(7, false),
        flip_normals: p.flag(8, false),
        material_ids: p.flag(9, true),
        shape_ids: p.flag(10, false),
        smooth: p.flag(11, true),
    })
}

/// The mesh of a Lathe applied to the polylines of a shape.
pub fn apply_to_shape(m: &Applied, lines: &[PolyLine], cx: &ModContext) -> Result<Mesh, EvalError> {
    let s = settings(m, cx)?;
    lathe(lines, &s)
}

/// Turns `lines` about the settings' axis.
pub fn lathe(lines: &[PolyLine], s: &Settings) -> Result<Mesh, EvalError> {
    let (hier, lines) = organized(lines);
    let levels = s.segments;
    let full = s.degrees == 360.0;
    let vert_levels = levels + usize::from(!full);
    let level_verts: usize = lines.iter().map(|l| l.pts.len()).sum();
    let verts = level_verts.saturating_mul(vert_levels);
    if verts > MAX_VERTICES {
        return Err(EvalError::malformed(
            "",
            format!("{level_verts} points × {vert_levels} levels"),
        ));
    }
    let radians = s.degrees.to_radians();
    let iaxis = gizmo::inverse(&s.axis, "axis")?;
    let tm = |level: usize| {
        iaxis
            .then(&Mat43::rot_z(level as f64 / levels as f64 * radians))
            .then(&s.axis)
    };
    // Per polyline: its core threshold in axis space, a hundredth of its
    // larger extent across the axis (x or y), at most 0.01.
    let thresholds: Vec<f64> = lines
        .iter()
        .map(|l| {
            let extent = |c: fn(Vec3) -> f64| {
                let (lo, hi) = l
                    .pts
                    .iter()
                    .map(|p| c(iaxis.transform_point(p.p)))
                    .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
                hi - lo
            };
            (extent(|v| v.0).max(extent(|v| v.1)) / 100.0).min(0.01)
        })
        .collect();
    let mut mesh = Mesh::default();
    let mut weld = vec![false; level_verts];
    let mut inverse = false;
    for level in 0..vert_levels {
        let m = tm(level);
        for (li, l) in lines.iter().enumerate() {
            for pt in &l.pts {
                let a = iaxis.transform_point(pt.p);
                let off_axis = a.0.hypot(a.1);
                if s.weld_core && level == 0 && off_axis < thresholds[li] {
                    weld[mesh.vertices.len()] = true;
                }
                let p = m.transform_point(pt.p);
                if level == 1 && !inverse && off_axis > thresholds[li] && p.2 > 0.0 {
                    inverse = true;
                }
                mesh.vertices.push(p);
            }
        }
    }
    if s.flip_normals {
        inverse = !inverse;
    }
    // Texture vertices: levels + 1 rows, each polyline's points and the
    // closing one, U along the polyline by length.
    let mut tverts: Vec<[f32; 3]> = Vec::new();
    let mut tfaces: Vec<[u32; 3]> = Vec::new();
    let level_tverts: usize = lines
        .iter()
        .map(|l| l.pts.len() + usize::from(l.closed))
        .sum();
    if s.mapping {
        for level in 0..=levels {
            let v = level as f64 / levels as f64;
            for l in &lines {
                tverts.extend(length_u(l).iter().map(|&u| [u as f32, v as f32, 0.0]));
            }
        }
    }
    // Side faces, level by level.
    let (mut base, mut tbase) = (0usize, 0usize);
    for _level in 0..levels {
        for l in &lines {
            let pieces = l.segments();
            let seg_verts = pieces + usize::from(!l.closed);
            let seg_tverts = pieces + 1;
            let mut groups = SideGroups::new(l.pts[0].smooth, pieces);
            for piece in 0..pieces {
                let v1 = base + piece;
                let v2 = base + (piece + 1) % seg_verts;
                let v3 = (v1 + level_verts) % verts;
                let v4 = (v2 + level_verts) % verts;
                let group = groups.next(piece, l.pts[piece].smooth);
                let smoothing = if s.smooth { group } else { 0 };
                let material = side_material(l, piece, s.shape_ids, s.material_ids);
                let face = |v: [usize; 3], flags: u16| Face {
                    v: v.map(|x| x as u32),
                    smoothing,
                    material,
                    flags,
                };
                let (tv1, tv2) = (tbase + piece, tbase + piece + 1);
                let (tv3, tv4) = (tv1 + level_tverts, tv2 + level_tverts);
                if inverse {
                    mesh.faces.push(face([v1, v2, v4], 0b011));
                    mesh.faces.push(face([v1, v4, v3], 0b110));
                    tfaces.push([tv1, tv2, tv4].map(|x| x as u32));
                    tfaces.push([tv1, tv4, tv3].map(|x| x as u32));
                } else {
                    mesh.faces.push(face([v1, v4, v2], 0b110));
                    mesh.faces.push(face([v1, v3, v4], 0b011));
                    tfaces.push([tv1, tv4, tv2].map(|x| x as u32));
                    tfaces.push([tv1, tv3, tv4].map(|x| x as u32));
                }
            }
            base += seg_verts;
            tbase += seg_tverts;
        }
    }
    if !s.mapping {
        tfaces.clear();
    }
    // Caps, under a full turn.
    if !full && lines.iter().any(|l| l.closed) {
        let mut first_of = Vec::with_capacity(lines.len());
        let mut acc = 0;
        for l in &lines {
            first_of.push(acc);
            acc += l.pts.len();
        }
        let profile = |v: u32| {
            let p = mesh_profile(&lines, v as usize % level_verts);
            (p.0, p.1)
        };
        for (start, wanted) in [(true, s.cap_start), (false, s.cap_end)] {
            if !wanted {
                continue;
            }
            let level = if start { 0 } else { levels };
            let flip = if start { inverse } else { !inverse };
            let material = if start && s.material_ids { 1 } else { 0 };
            let first_face = mesh.faces.len();
            let vertex = |li: usize, k: usize| (level * level_verts + first_of[li] + k) as u32;
            cap(&mut mesh, &lines, &hier, vertex, flip, material);
            if s.mapping {
                cap_mapping(&mesh, first_face, profile, &mut tverts, &mut tfaces);
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
    if s.weld_core && weld.iter().any(|&w| w) {
        weld_core(&mut mesh, &weld);
    }
    Ok(mesh)
}

/// The profile point of level vertex `k` (the organised polylines in order).
fn mesh_profile(lines: &[PolyLine], mut k: usize) -> Vec3 {
    for l in lines {
        if k < l.pts.len() {
            return l.pts[k].p;
        }
        k -= l.pts.len();
    }
    Vec3::default()
}

/// Merges the welded points of every level into the first level's, drops
/// collapsed faces (and their map faces) and unused vertices.
fn weld_core(mesh: &mut Mesh, weld: &[bool]) {
    let level_verts = weld.len();
    let redirect = |v: u32| {
        let k = v as usize % level_verts;
        if weld[k] {
            k as u32
        } else {
            v
        }
    };
    let mut keep = Vec::with_capacity(mesh.faces.len());
    for f in &mut mesh.faces {
        let v = f.v.map(redirect);
        let ok = v[0] != v[1] && v[1] != v[2] && v[0] != v[2];
        if ok {
            f.v = v;
        }
        keep.push(ok);
    }
    let mut k = keep.iter();
    mesh.faces.retain(|_| *k.next().unwrap_or(&false));
    for ch in &mut mesh.maps {
        let mut k = keep.iter();
        ch.faces.retain(|_| *k.next().unwrap_or(&false));
        // Texture vertices no face uses are dropped too, keeping the order.
        ch.drop_unused_vertices();
    }
    let mut used = vec![false; mesh.vertices.len()];
    for f in &mesh.faces {
        for &v in &f.v {
            used[v as usize] = true;
        }
    }
    let mut remap = vec![0u32; mesh.vertices.len()];
    let mut out = Vec::new();
    for (i, v) in mesh.vertices.iter().enumerate() {
        if used[i] {
            remap[i] = out.len() as u32;
            out.push(*v);
        }
    }
    mesh.vertices = out;
    for f in &mut mesh.faces {
        f.v = f.v.map(|v| remap[v as usize]);
    }
}
