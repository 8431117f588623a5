//! Shell (0x3b9b1a16, 0x6d84e8d0): gives a surface thickness. The input's
//! faces are kept as the outer surface moved out by the outer amount, a
//! reversed copy moved in by the inner amount is the inner surface, and every
//! open edge (an edge of one face) gets a rim of `segments` quads joining the
//! two, its rows evenly spaced.
//!
//! ParamBlock2 in reference 0, by id (the MaxScript property order, whose
//! value types the stored blocks match one for one): 0 inner amount, 1 outer
//! amount, 2 override material id, 3 material id, 4 override smoothing group,
//! 5 smoothing group, 6 edge mapping (0 copy, 1 none, 2 strip, 3
//! interpolate), 7 TV offset, 8 override inner material id, 9 inner material
//! id, 10/11 select edge/inner faces (selection only), 12 segments, 13
//! straighten corners, 14 auto smooth edge, 15 its angle (degrees).
//!
//! What is evaluated, and why the rest is refused:
//! - Each vertex moves along its angle-weighted vertex normal by the amount
//!   ([`directions`]); straighten corners on a bent input (it changes those
//!   directions) is refused.
//! - Material ids are carried (rim faces take the id of the face whose edge
//!   they close); the id overrides are refused.
//! - Rim smoothing: both options off, group 31 (Max's documented default);
//!   override, the stored group; auto smooth, neighbouring rim faces within
//!   the angle share a group no surface face uses (Max never smooths rim
//!   into surface) — which faces smooth together follows Max's rule, the
//!   group numbers are ours.
//! - Map channels with edge mapping "copy": inner faces reuse their face's
//!   map vertices, rim faces those of the edge they close. Other edge mapping
//!   modes on a mapped mesh are refused.
//! - A bevel spline (a reference beyond the parameter block) is refused.

use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::eval::objects::poly::{PolyFace, PolyMesh};
use crate::eval::objects::primitive::{block_params, Params};
use crate::typed::ClassId;

pub const SHELL: ClassId = ClassId(0x3b9b_1a16, 0x6d84_e8d0);

/// Segment counts beyond this are damaged data (Max's spinner stops at 100).
const MAX_SEGMENTS: i64 = 1000;
/// Faces meeting at a vertex count as coplanar within this angle (radians):
/// f32 coordinates leave normals a few 1e-7 apart.
const COPLANAR: f64 = 1e-3;
/// Group 31: rim faces when neither auto smooth nor an override is on.
const DEFAULT_RIM_GROUP: u32 = 1 << 30;

/// The settings the geometry depends on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub inner: f64,
    pub outer: f64,
    pub segments: usize,
    pub rim_smoothing: RimSmoothing,
    /// Straighten corners (13): changes the directions where faces bend.
    pub straighten: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RimSmoothing {
    /// Neighbouring rim faces within this angle (radians) smooth together.
    Auto(f64),
    /// These group bits on every rim face.
    Groups(u32),
}

fn settings(p: &Params) -> Result<Settings, EvalError> {
    let segments = p.int_or(12, 1);
    if !(1..=MAX_SEGMENTS).contains(&segments) {
        return Err(EvalError::malformed("", format!("{segments} segments")));
    }
    if p.flag(2, false) || p.flag(8, false) {
        return Err(EvalError::not_evaluated("a material id override"));
    }
    let rim_smoothing = if p.flag(14, true) {
        RimSmoothing::Auto(p.float_or(15, 45.0).to_radians())
    } else if p.flag(4, false) {
        let g = p.int_or(5, 0);
        if !(0..=32).contains(&g) {
            return Err(EvalError::malformed("", format!("smoothing group {g}")));
        }
        RimSmoothing::Groups(if g == 0 { 0 } else { 1 << (g - 1) })
    } else {
        RimSmoothing::Groups(DEFAULT_RIM_GROUP)
    };
    let (inner, outer) = (p.float(0)?, p.float(1)?);
    if !(inner.is_finite() && outer.is_finite()) {
        return Err(EvalError::malformed("", "amounts are not finite"));
    }
    Ok(Settings {
        inner,
        outer,
        segments: segments as usize,
        rim_smoothing,
        straighten: p.flag(13, false),
    })
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let s = read(m, cx, !mesh.maps.is_empty())?;
    *mesh = shell(mesh, &s)?;
    Ok(())
}

/// The Shell on the polygon form an Edit Poly above takes (see
/// [`shell_poly`]).
pub(super) fn apply_poly(
    m: &Applied,
    poly: &mut PolyMesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    let s = read(m, cx, !poly.maps.is_empty())?;
    *poly = shell_poly(poly, &s)?;
    Ok(())
}

/// The settings, refusing what is not evaluated: a bevel spline, and edge
/// mapping other than copy when the input is `mapped`.
fn read(m: &Applied, cx: &ModContext, mapped: bool) -> Result<Settings, EvalError> {
    let refs = &cx
        .eval
        .graph
        .objects
        .get(m.object)
        .ok_or_else(|| EvalError::malformed("", "no modifier object"))?
        .references;
    if refs.iter().any(|r| r.slot != 0 && r.target >= 0) {
        return Err(EvalError::not_evaluated(
            "a bevel spline (reference beyond the parameter block)",
        ));
    }
    let pb = crate::eval::core::pblock::reference(&cx.eval.graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let p = block_params(cx.eval, pb, cx.t)?;
    let s = settings(&p)?;
    if mapped && p.int_or(6, 0) != 0 {
        return Err(EvalError::not_evaluated_why(
            format!("edge mapping {} on a mapped mesh", p.int_or(6, 0)),
            "only copy",
        ));
    }
    Ok(s)
}

/// Each vertex's unit offset direction — the mean of the unit normals of the
/// triangles around it, each weighted by its angle at the vertex (Max's
/// vertex normal; on coplanar faces simply their normal) — and whether some
/// vertex joins faces that are not coplanar. Fitted to Shotgun's
/// RubberGrips: each outer vertex the Unwrap above cached lies the outer
/// amount from its input along this direction over Max's triangles (within
/// f32 noise, 5e-5 of the amount), where equal or area weights, or polygon
/// normals, miss by up to 0.07 (docs/evaluation.md, "Shell"). A vertex of
/// no face stays put.
fn directions(vertices: &[Vec3], tris: &[[u32; 3]]) -> Result<(Vec<Vec3>, bool), EvalError> {
    let mut sum = vec![Vec3(0.0, 0.0, 0.0); vertices.len()];
    let mut first: Vec<Option<Vec3>> = vec![None; vertices.len()];
    let mut bent = false;
    for t in tris {
        let p = t.map(|v| vertices[v as usize]);
        let n = p[1].minus(p[0]).cross(p[2].minus(p[0]));
        if n.len() == 0.0 || !n.len().is_finite() {
            continue;
        }
        let n = n.normalized();
        for k in 0..3 {
            let (x, y) = (p[(k + 1) % 3].minus(p[k]), p[(k + 2) % 3].minus(p[k]));
            let c = x.dot(y) / (x.len() * y.len());
            let angle = c.clamp(-1.0, 1.0).acos();
            let v = t[k] as usize;
            sum[v] = sum[v].plus(n.scale(angle));
            match first[v] {
                None => first[v] = Some(n),
                Some(d) if d.dot(n) >= COPLANAR.cos() => {}
                Some(_) => bent = true,
            }
        }
    }
    let mut out = Vec::with_capacity(vertices.len());
    for (v, (d, f)) in sum.into_iter().zip(&first).enumerate() {
        match f {
            None => out.push(Vec3(0.0, 0.0, 0.0)),
            Some(_) if d.len() > 1e-9 && d.len().is_finite() => out.push(d.normalized()),
            Some(_) => {
                return Err(EvalError::not_evaluated(format!(
                    "vertex {v}, whose faces' normals cancel out: Max's offset direction there"
                )))
            }
        }
    }
    Ok((out, bent))
}

/// The shelled mesh (see the module comment).
pub fn shell(mesh: &Mesh, s: &Settings) -> Result<Mesh, EvalError> {
    mesh.check_map_faces()?;
    let nv = mesh.vertices.len();
    if mesh
        .faces
        .iter()
        .flat_map(|f| f.v)
        .any(|v| v as usize >= nv)
    {
        return Err(EvalError::malformed(
            "",
            "a face uses a vertex beyond the mesh",
        ));
    }
    let tris: Vec<[u32; 3]> = mesh.faces.iter().map(|f| f.v).collect();
    let (dir, bent) = directions(&mesh.vertices, &tris)?;
    if bent && s.straighten {
        return Err(EvalError::not_evaluated(
            "straighten corners on faces that are not coplanar",
        ));
    }
    let open = open_sides(mesh.faces.iter().map(|f| &f.v[..]));
    let rim_rows = s.segments - 1;
    let grown = nv
        .checked_mul(2)
        .and_then(|x| x.checked_add(open.len().checked_mul(2 * rim_rows)?));
    if grown.is_none_or(|x| x > super::subdivide::MAX_ELEMENTS) {
        return Err(EvalError::malformed(
            format!("{} segments", s.segments),
            "too many vertices",
        ));
    }
    let mut vertices = Vec::with_capacity(grown.unwrap_or(0));
    for (v, d) in mesh.vertices.iter().zip(&dir) {
        vertices.push(v.plus(d.scale(s.outer)));
    }
    for (v, d) in mesh.vertices.iter().zip(&dir) {
        vertices.push(v.minus(d.scale(s.inner)));
    }
    // Row k (0 outer … segments inner) of vertex v; middle rows made once
    // per open-edge vertex.
    let mut middle: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let mut row = |v: u32, k: usize, vertices: &mut Vec<Vec3>| -> u32 {
        if k == 0 {
            return v;
        }
        if k == s.segments {
            return v + nv as u32;
        }
        let first = *middle.entry(v).or_insert_with(|| {
            let at = vertices.len() as u32;
            let (o, i) = (vertices[v as usize], vertices[v as usize + nv]);
            for r in 1..s.segments {
                vertices.push(o.plus(i.minus(o).scale(r as f64 / s.segments as f64)));
            }
            at
        });
        first + k as u32 - 1
    };
    let mut faces = mesh.faces.clone();
    for f in &mesh.faces {
        let fl = f.flags;
        faces.push(Face {
            v: [f.v[2], f.v[1], f.v[0]].map(|v| v + nv as u32),
            flags: (fl & !0b11) | ((fl & 1) << 1) | ((fl >> 1) & 1),
            ..*f
        });
    }
    let mut maps = mesh.maps.clone();
    for (out, m) in maps.iter_mut().zip(&mesh.maps) {
        for mf in &m.faces {
            out.faces.push([mf[2], mf[1], mf[0]]);
        }
    }
    let rim_start = faces.len();
    for &(fi, k) in &open {
        let f = mesh.faces[fi];
        let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
        for r in 0..s.segments {
            let (ar, br) = (row(a, r, &mut vertices), row(b, r, &mut vertices));
            let (an, bn) = (row(a, r + 1, &mut vertices), row(b, r + 1, &mut vertices));
            for (v, flags) in [([br, ar, an], 0b011), ([br, an, bn], 0b110)] {
                faces.push(Face {
                    v,
                    smoothing: 0,
                    material: f.material,
                    flags,
                });
            }
            for (out, m) in maps.iter_mut().zip(&mesh.maps) {
                let (ma, mb) = (m.faces[fi][k], m.faces[fi][(k + 1) % 3]);
                out.faces.push([mb, ma, ma]);
                out.faces.push([mb, ma, mb]);
            }
        }
    }
    let surface_groups = mesh.faces.iter().fold(0u32, |g, f| g | f.smoothing);
    let per_edge = 2 * s.segments;
    // Rim quads of one open edge are coplanar (a flat strip): one normal per
    // open edge, that of its first triangle.
    let ends: Vec<(u32, u32, Vec3)> = open
        .iter()
        .enumerate()
        .map(|(i, &(fi, k))| {
            let f = mesh.faces[fi];
            let [a, b, c] = faces[rim_start + i * per_edge]
                .v
                .map(|v| vertices[v as usize]);
            (
                f.v[k],
                f.v[(k + 1) % 3],
                b.minus(a).cross(c.minus(a)).normalized(),
            )
        })
        .collect();
    let bits = rim_groups(&ends, s, surface_groups)?;
    for (i, b) in bits.iter().enumerate() {
        for f in &mut faces[rim_start + i * per_edge..rim_start + (i + 1) * per_edge] {
            f.smoothing = *b;
        }
    }
    Ok(Mesh {
        vertices,
        faces,
        maps,
        ..Default::default()
    })
}

/// Smoothing groups of the rim of each open edge (its two input vertices
/// and its strip's normal), in `open`'s order.
fn rim_groups(
    open: &[(u32, u32, Vec3)],
    s: &Settings,
    surface: u32,
) -> Result<Vec<u32>, EvalError> {
    let angle = match s.rim_smoothing {
        RimSmoothing::Groups(g) => return Ok(vec![g; open.len()]),
        RimSmoothing::Auto(a) => a,
    };
    let free: Vec<u32> = (0..32)
        .map(|b| 1u32 << b)
        .filter(|b| surface & b == 0)
        .collect();
    if free.len() < 3 {
        return Err(EvalError::malformed(
            "auto smooth",
            "no smoothing groups left for the rim",
        ));
    }
    // Two open edges are neighbours when they share a vertex.
    let mut at_vertex: std::collections::HashMap<u32, Vec<usize>> = Default::default();
    for (i, &(a, b, _)) in open.iter().enumerate() {
        for v in [a, b] {
            at_vertex.entry(v).or_default().push(i);
        }
    }
    // Greedy colouring: an edge takes a free bit shared with every smooth
    // neighbour already coloured, and not used by a sharp one.
    let mut bits = vec![0u32; open.len()];
    for i in 0..open.len() {
        let (a, b, normal) = open[i];
        let mut smooth = 0u32;
        let mut sharp = 0u32;
        for v in [a, b] {
            for &j in at_vertex.get(&v).map_or(&[][..], |x| x) {
                if j == i || bits[j] == 0 {
                    continue;
                }
                if normal.dot(open[j].2) >= angle.cos() {
                    smooth |= bits[j];
                } else {
                    sharp |= bits[j];
                }
            }
        }
        bits[i] = if smooth != 0 && smooth & sharp == 0 {
            smooth
        } else {
            *free.iter().find(|&&b| b & sharp == 0).ok_or_else(|| {
                EvalError::malformed("auto smooth", "no smoothing group separates the rim")
            })?
        };
    }
    Ok(bits)
}

/// The Shell of a polygon mesh, numbered as Max's poly Shell numbers it
/// where Shotgun's RubberGrips pin it (their Unwrap UVW caches the result,
/// through an Edit Poly that moves vertices and deletes faces by index —
/// RubberGrip its inner side, RubberGrip001 its outer one): vertices outer
/// (each input vertex moved out, in order) then inner; faces the input's
/// (same corners and triangles) then their reversed copies (corner k is the
/// face's corner 2 − k, as the triangle path's [c, b, a]; pinned on quads),
/// then one rim quad [b, a, a', b'] per open side a → b, sides in face order
/// and each face's in corner order (pinned), triangulated from its corner 0
/// (not pinned: the rims of the RubberGrips are thin strips, their
/// diagonals change no direction there). Several segments are refused here: where
/// their rows' vertices go is not pinned. MNMesh's edge numbering after the
/// Shell is not derived (`edges` is left unknown).
pub fn shell_poly(poly: &PolyMesh, s: &Settings) -> Result<PolyMesh, EvalError> {
    poly.validate()?;
    if s.segments != 1 {
        return Err(EvalError::not_evaluated_why(
            format!("{} segments on polygons", s.segments),
            "where Max numbers the rim rows' vertices is not pinned",
        ));
    }
    let nv = poly.vertices.len();
    let tris: Vec<[u32; 3]> = poly
        .faces
        .iter()
        .flat_map(|f| f.tris.iter().map(|t| t.map(|c| f.v[c])))
        .collect();
    let (dir, bent) = directions(&poly.vertices, &tris)?;
    if bent && s.straighten {
        return Err(EvalError::not_evaluated(
            "straighten corners on faces that are not coplanar",
        ));
    }
    if nv.saturating_mul(2) > super::subdivide::MAX_ELEMENTS {
        return Err(EvalError::malformed("", "too many vertices"));
    }
    let mut vertices = Vec::with_capacity(2 * nv);
    for (v, d) in poly.vertices.iter().zip(&dir) {
        vertices.push(v.plus(d.scale(s.outer)));
    }
    for (v, d) in poly.vertices.iter().zip(&dir) {
        vertices.push(v.minus(d.scale(s.inner)));
    }
    let open = open_sides(poly.faces.iter().map(|f| &f.v[..]));
    // Corner k of a reversed copy is the face's corner 2 − k (mod degree).
    let reversed = |v: &[u32]| -> Vec<u32> {
        let n = v.len();
        (0..n).map(|k| v[(2 + n - k) % n]).collect()
    };
    let mut faces = poly.faces.clone();
    for f in &poly.faces {
        let n = f.v.len();
        let back = |c: usize| (2 + n - c) % n;
        faces.push(PolyFace {
            v: reversed(&f.v).into_iter().map(|v| v + nv as u32).collect(),
            tris: f
                .tris
                .iter()
                .map(|t| [back(t[0]), back(t[2]), back(t[1])])
                .collect(),
            ..f.clone()
        });
    }
    let mut maps = poly.maps.clone();
    for (out, m) in maps.iter_mut().zip(&poly.maps) {
        for mf in &m.faces {
            out.faces.push(reversed(mf));
        }
    }
    let rim_start = faces.len();
    let mut ends = Vec::with_capacity(open.len());
    for &(fi, k) in &open {
        let f = &poly.faces[fi];
        let n = f.v.len();
        let (a, b) = (f.v[k], f.v[(k + 1) % n]);
        let v = vec![b, a, a + nv as u32, b + nv as u32];
        let p = v.iter().map(|&x| vertices[x as usize]).collect::<Vec<_>>();
        ends.push((a, b, p[1].minus(p[0]).cross(p[2].minus(p[0])).normalized()));
        faces.push(PolyFace {
            v,
            tris: vec![[0, 1, 2], [0, 2, 3]],
            material: f.material,
            smoothing: 0,
        });
        for (out, m) in maps.iter_mut().zip(&poly.maps) {
            let (ma, mb) = (m.faces[fi][k], m.faces[fi][(k + 1) % n]);
            out.faces.push(vec![mb, ma, ma, mb]);
        }
    }
    let surface = poly.faces.iter().fold(0u32, |g, f| g | f.smoothing);
    let bits = rim_groups(&ends, s, surface)?;
    for (f, b) in faces[rim_start..].iter_mut().zip(bits) {
        f.smoothing = b;
    }
    let out = PolyMesh {
        vertices,
        faces,
        maps,
        edges: None,
        normals: None,
    };
    out.validate()?;
    Ok(out)
}

/// Open sides (undirected sides used by one face) as (face, corner), in face
/// and corner order: where the rims go.
fn open_sides<'a>(faces: impl Iterator<Item = &'a [u32]>) -> Vec<(usize, usize)> {
    let mut uses: std::collections::HashMap<(u32, u32), (usize, usize, u32)> = Default::default();
    for (fi, v) in faces.enumerate() {
        let n = v.len();
        for k in 0..n {
            let (a, b) = (v[k], v[(k + 1) % n]);
            uses.entry((a.min(b), a.max(b))).or_insert((fi, k, 0)).2 += 1;
        }
    }
    let mut open: Vec<(usize, usize)> = uses
        .values()
        .filter(|u| u.2 == 1)
        .map(|u| (u.0, u.1))
        .collect();
    open.sort_unstable();
    open
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::mesh::MapChannel;

    /// The unit square in z = 0, two triangles, facing +Z, with a map.
    fn square() -> Mesh {
        Mesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
            ],
            faces: vec![
                Face {
                    v: [0, 1, 2],
                    smoothing: 1,
                    material: 3,
                    flags: 0b011,
                },
                Face {
                    v: [0, 2, 3],
                    smoothing: 1,
                    material: 3,
                    flags: 0b110,
                },
            ],
            maps: vec![MapChannel {
                channel: 1,
                vertices: vec![[0.0; 3]; 4],
                faces: vec![[0, 1, 2], [0, 2, 3]],
            }],
            ..Default::default()
        }
    }

    fn settings(inner: f64, outer: f64, segments: usize) -> Settings {
        Settings {
            inner,
            outer,
            segments,
            rim_smoothing: RimSmoothing::Auto(45f64.to_radians()),
            straighten: false,
        }
    }

    #[test]
    fn square_becomes_a_closed_slab() {
        let m = shell(&square(), &settings(0.25, 0.5, 1)).unwrap();
        // 2V vertices, 2F surface triangles and two per open edge.
        assert_eq!(m.vertices.len(), 8);
        assert_eq!(m.faces.len(), 4 + 8);
        let zs: Vec<f64> = m.vertices.iter().map(|v| v.2).collect();
        assert_eq!(&zs[..4], &[0.5; 4]);
        assert_eq!(&zs[4..], &[-0.25; 4]);
        // Closed: every undirected edge in exactly two triangles, running
        // opposite ways (consistent outward winding).
        let mut seen = std::collections::HashMap::new();
        for f in &m.faces {
            for k in 0..3 {
                *seen.entry((f.v[k], f.v[(k + 1) % 3])).or_insert(0) += 1;
            }
        }
        for (&(a, b), &n) in &seen {
            assert_eq!(n, 1, "edge {a}->{b}");
            assert_eq!(seen.get(&(b, a)), Some(&1), "edge {a}->{b} has no twin");
        }
        // Materials carried; the inner copy faces −Z; maps one face per face.
        assert!(m.faces.iter().all(|f| f.material == 3));
        let [a, b, c] = m.faces[2].v.map(|v| m.vertices[v as usize]);
        assert!(b.minus(a).cross(c.minus(a)).2 < 0.0);
        assert_eq!(m.maps[0].faces.len(), m.faces.len());
        // The four rim sides meet at 90°: auto smooth at 45° keeps
        // neighbours apart and away from the surface's group 1.
        let rim = &m.faces[4..];
        assert!(rim.iter().all(|f| f.smoothing & 1 == 0 && f.smoothing != 0));
        for i in 0..4 {
            for j in 0..4 {
                let (gi, gj) = (rim[2 * i].smoothing, rim[2 * j].smoothing);
                let share = m.faces[4 + 2 * i]
                    .v
                    .iter()
                    .any(|v| m.faces[4 + 2 * j].v.contains(v));
                if i != j && share {
                    assert_eq!(gi & gj, 0, "sides {i} and {j} smoothed together");
                }
            }
        }
    }

    #[test]
    fn segments_add_evenly_spaced_rows() {
        let m = shell(&square(), &settings(1.0, 0.0, 4)).unwrap();
        assert_eq!(m.vertices.len(), 8 + 4 * 3);
        assert_eq!(m.faces.len(), 4 + 4 * 4 * 2);
        let mut zs: Vec<i64> = m
            .vertices
            .iter()
            .map(|v| (v.2 * 4.0).round() as i64)
            .collect();
        zs.sort_unstable();
        zs.dedup();
        assert_eq!(zs, vec![-4, -3, -2, -1, 0]);
    }

    #[test]
    fn a_bent_vertex_moves_along_its_angle_weighted_normal() {
        // Triangle [0, 1, 2] faces +Z with 90° at vertex 0; [0, 3, 1] faces
        // −Y with 45° there: the direction is (π/2·Z − π/4·Y) normalised,
        // (0, −1, 2) / √5.
        let v = vec![
            Vec3(0.0, 0.0, 0.0),
            Vec3(1.0, 0.0, 0.0),
            Vec3(0.0, 1.0, 0.0),
            Vec3(1.0, 0.0, -1.0),
        ];
        let (dir, bent) = directions(&v, &[[0, 1, 2], [0, 3, 1]]).unwrap();
        assert!(bent);
        let want = Vec3(0.0, -1.0, 2.0).scale(1.0 / 5f64.sqrt());
        assert!(dir[0].minus(want).len() < 1e-12, "{:?}", dir[0]);
        // Vertex 2 has one face: its normal.
        assert!(dir[2].minus(Vec3(0.0, 0.0, 1.0)).len() < 1e-12);
        let mut mesh = square();
        mesh.vertices = v;
        mesh.faces[0].v = [0, 1, 2];
        mesh.faces[1].v = [0, 3, 1];
        mesh.maps.clear();
        let m = shell(&mesh, &settings(0.0, 2.0, 1)).unwrap();
        assert!(m.vertices[0].minus(want.scale(2.0)).len() < 1e-12);
        // Straighten corners there is not evaluated.
        let mut s = settings(0.0, 2.0, 1);
        s.straighten = true;
        assert!(shell(&mesh, &s)
            .unwrap_err()
            .to_string()
            .contains("straighten"));
        // Faces whose normals cancel at a vertex leave it no direction.
        let (v, t) = (
            vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
            ],
            [[0, 1, 2], [0, 2, 1]],
        );
        assert!(directions(&v, &t).is_err());
    }

    /// Two unit quads side by side (vertices 0 1 2 / 3 4 5), facing +Z.
    fn strip() -> PolyMesh {
        PolyMesh {
            vertices: (0..6)
                .map(|i| Vec3(f64::from(i % 3), f64::from(i / 3), 0.0))
                .collect(),
            faces: vec![
                PolyFace::fan(vec![0, 1, 4, 3], 2, 1),
                PolyFace::fan(vec![1, 2, 5, 4], 2, 1),
            ],
            maps: Vec::new(),
            edges: None,
            normals: None,
        }
    }

    #[test]
    fn polygons_keep_max_numbering() {
        let m = shell_poly(&strip(), &settings(0.5, 0.25, 1)).unwrap();
        assert_eq!(m.vertices.len(), 12);
        assert_eq!(m.vertices[4], Vec3(1.0, 1.0, 0.25));
        assert_eq!(m.vertices[10], Vec3(1.0, 1.0, -0.5));
        let faces: Vec<&[u32]> = m.faces.iter().map(|f| f.v.as_slice()).collect();
        assert_eq!(
            faces,
            [
                &[0, 1, 4, 3][..],
                &[1, 2, 5, 4],
                &[10, 7, 6, 9],
                &[11, 8, 7, 10],
                // Open sides in face order, each face's in corner order.
                &[1, 0, 6, 7],
                &[3, 4, 10, 9],
                &[0, 3, 9, 6],
                &[2, 1, 7, 8],
                &[5, 2, 8, 11],
                &[4, 5, 11, 10],
            ]
        );
        // The reversed copy keeps its diagonal (vertices 0–4 of [0 1 4 3]).
        assert_eq!(m.faces[2].tris, [[2, 0, 1], [2, 3, 0]]);
        assert!(m.faces.iter().all(|f| f.material == 2));
        assert!(m.faces[4..].iter().all(|f| f.smoothing & 1 == 0));
        // Closed: every side in two faces, run both ways.
        let mut seen = std::collections::HashMap::new();
        for f in &m.faces {
            for k in 0..f.v.len() {
                *seen.entry((f.v[k], f.v[(k + 1) % f.v.len()])).or_insert(0) += 1;
            }
        }
        assert!(seen
            .iter()
            .all(|(&(a, b), &n)| n == 1 && seen.get(&(b, a)) == Some(&1)));
        assert!(m.edges.is_none());
        // Rim rows of several segments are not numbered here.
        assert!(shell_poly(&strip(), &settings(0.5, 0.25, 2)).is_err());
    }

    #[test]
    fn damage_is_refused() {
        let mut bad = square();
        bad.faces[0].v[0] = 9;
        assert!(shell(&bad, &settings(0.0, 1.0, 1)).is_err());
        let mut bad = square();
        bad.maps[0].faces.pop();
        assert!(shell(&bad, &settings(0.0, 1.0, 1)).is_err());
        let mut bad = strip();
        bad.faces[1].v[0] = 99;
        assert!(shell_poly(&bad, &settings(0.0, 1.0, 1)).is_err());
    }
}
