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
//! - Each vertex moves along the normal of its faces. Where its faces are not
//!   coplanar Max's offset direction (and the straighten-corners option that
//!   changes it) is not known here, so such an input is refused.
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
    })
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
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
    if !mesh.maps.is_empty() && p.int_or(6, 0) != 0 {
        return Err(EvalError::not_evaluated_why(
            format!("edge mapping {} on a mapped mesh", p.int_or(6, 0)),
            "only copy",
        ));
    }
    *mesh = shell(mesh, &s)?;
    Ok(())
}

/// Each vertex's unit offset direction: the common normal of its faces.
fn directions(mesh: &Mesh) -> Result<Vec<Vec3>, EvalError> {
    let mut dir: Vec<Option<Vec3>> = vec![None; mesh.vertices.len()];
    for (i, f) in mesh.faces.iter().enumerate() {
        let [a, b, c] = f.v.map(|v| mesh.vertices[v as usize]);
        let n = b.minus(a).cross(c.minus(a));
        if n.len() == 0.0 || !n.len().is_finite() {
            continue;
        }
        let n = n.normalized();
        for &v in &f.v {
            match dir[v as usize] {
                None => dir[v as usize] = Some(n),
                Some(d) if d.dot(n) >= COPLANAR.cos() => {}
                Some(_) => {
                    return Err(EvalError::not_evaluated(format!("vertex {v} joins faces that are not coplanar (face {i}): Max's offset direction there")))
                }
            }
        }
    }
    Ok(dir
        .into_iter()
        .map(|d| d.unwrap_or(Vec3(0.0, 0.0, 0.0)))
        .collect())
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
    let dir = directions(mesh)?;
    // Open edges: undirected edges used once, kept with their face and corner.
    let mut uses: std::collections::HashMap<(u32, u32), (usize, usize, u32)> =
        std::collections::HashMap::new();
    for (fi, f) in mesh.faces.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
            let e = uses.entry((a.min(b), a.max(b))).or_insert((fi, k, 0));
            e.2 += 1;
        }
    }
    let mut open: Vec<(usize, usize)> = uses
        .values()
        .filter(|u| u.2 == 1)
        .map(|u| (u.0, u.1))
        .collect();
    open.sort_unstable();
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
    rim_groups(
        &mut faces[rim_start..],
        &vertices,
        &open,
        mesh,
        s,
        surface_groups,
    )?;
    Ok(Mesh {
        vertices,
        faces,
        maps,
        normals: None,
        missing_maps: Vec::new(),
        missing_normals: None,
        missing_parts: Vec::new(),
    })
}

/// Smoothing groups of the rim faces (two triangles per quad, `segments`
/// quads per open edge, in `open`'s order).
fn rim_groups(
    rim: &mut [Face],
    vertices: &[Vec3],
    open: &[(usize, usize)],
    mesh: &Mesh,
    s: &Settings,
    surface: u32,
) -> Result<(), EvalError> {
    let angle = match s.rim_smoothing {
        RimSmoothing::Groups(g) => {
            rim.iter_mut().for_each(|f| f.smoothing = g);
            return Ok(());
        }
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
    let per_edge = 2 * s.segments;
    // Rim quads of one open edge are coplanar (a flat strip): one normal per
    // open edge, and two edges are neighbours when they share a vertex.
    let normal = |i: usize| {
        let t = &rim[i * per_edge];
        let [a, b, c] = t.v.map(|v| vertices[v as usize]);
        b.minus(a).cross(c.minus(a)).normalized()
    };
    let n = open.len();
    let mut at_vertex: std::collections::HashMap<u32, Vec<usize>> = Default::default();
    for (i, &(fi, k)) in open.iter().enumerate() {
        let f = mesh.faces[fi];
        for v in [f.v[k], f.v[(k + 1) % 3]] {
            at_vertex.entry(v).or_default().push(i);
        }
    }
    // Greedy colouring: an edge takes a free bit shared with every smooth
    // neighbour already coloured, and not used by a sharp one.
    let mut bits = vec![0u32; n];
    for i in 0..n {
        let (fi, k) = open[i];
        let f = mesh.faces[fi];
        let mut smooth = 0u32;
        let mut sharp = 0u32;
        for v in [f.v[k], f.v[(k + 1) % 3]] {
            for &j in at_vertex.get(&v).map_or(&[][..], |x| x) {
                if j == i || bits[j] == 0 {
                    continue;
                }
                if normal(i).dot(normal(j)) >= angle.cos() {
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
    for (i, b) in bits.iter().enumerate() {
        for f in &mut rim[i * per_edge..(i + 1) * per_edge] {
            f.smoothing = *b;
        }
    }
    Ok(())
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
            normals: None,
            missing_maps: Vec::new(),
            missing_normals: None,
            missing_parts: Vec::new(),
        }
    }

    fn settings(inner: f64, outer: f64, segments: usize) -> Settings {
        Settings {
            inner,
            outer,
            segments,
            rim_smoothing: RimSmoothing::Auto(45f64.to_radians()),
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
    fn curved_input_and_damage_are_refused() {
        let mut bent = square();
        bent.vertices[3].2 = 0.5;
        assert!(shell(&bent, &settings(0.0, 1.0, 1))
            .unwrap_err()
            .to_string()
            .contains("coplanar"));
        let mut bad = square();
        bad.faces[0].v[0] = 9;
        assert!(shell(&bad, &settings(0.0, 1.0, 1)).is_err());
        let mut bad = square();
        bad.maps[0].faces.pop();
        assert!(shell(&bad, &settings(0.0, 1.0, 1)).is_err());
    }
}
