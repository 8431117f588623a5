//! GeoSphere: a tetrahedron, octahedron or icosahedron whose faces are split
//! into segments² triangles, the new vertices placed on the sphere by
//! spherical interpolation (facts from the 3ds Max SDK sample gsphere.cpp).
//!
//! Vertex order: the base solid's corners; then `segments − 1` vertices on
//! each base edge, edge by edge, from the edge's first corner to its second;
//! then, base face by base face, row by row from the face's apex, the inner
//! vertices of each row, interpolated from the row's left-edge vertex to its
//! right-edge vertex. A base face (apex A, left B, right C) is a triangular
//! grid: row r, column c (0 ≤ c ≤ r ≤ segments) lies on edge A–B when c = 0,
//! on A–C when c = r and on B–C when r = segments. Faces follow the same grid:
//! for every base face, row and column the triangle (r, c), (r+1, c),
//! (r+1, c+1), then — except on a row's last column — (r, c), (r+1, c+1),
//! (r, c+1); every edge visible.
//!
//! Hemisphere: the tetrahedron and octahedron keep their upper half (three
//! and four faces whose lower corners lie on the equator); the icosahedron's
//! is Max's own 40-face cap (see `hemi_icosahedron`). All add a centre vertex
//! at the origin, fanned to the equator edges as the flat base.
//!
//! Smooth: the sphere's faces are material 1 in smoothing group 1, the base of
//! a hemisphere material 0 in group 2; not smooth: no groups, material 0.
//! Base to pivot lifts a whole sphere by its radius.
//!
//! Generated mapping (parameter 6) is `Mesh::ApplyUVWMap(MAP_SPHERICAL)` with
//! an identity map space, tiling 1 and no flips, applied before the base to
//! pivot lift (the sample's own call and order): our UVW Map evaluation's
//! spherical projection (`modifier/uvw_project.rs`), with u from the azimuth
//! (seam on −x), v from the latitude, seam-crossing faces and pole corners
//! handled as there. No export of a GeoSphere exists to check it against
//! (docs/evaluation.md): the u origin, the seam rule, the pole corners and
//! the texture-vertex sharing are Max's core's and unverified here. With the
//! real-world map size on, the sample's call tiles U by 2π·radius and V by
//! half that.

use super::*;
use crate::eval::error::EvalError;

/// A base solid: corners (unit sphere, scaled by the radius), edges (first
/// corner, second corner) and faces (apex, left, right), in Max's order.
struct Base {
    corners: Vec<[f64; 3]>,
    edges: Vec<(usize, usize)>,
    faces: Vec<[usize; 3]>,
    /// The faces whose bottom rows lie on the equator (hemispheres only).
    equator: std::ops::Range<usize>,
}

fn tetrahedron() -> Base {
    let (a, b, c) = (
        (8.0f64 / 9.0).sqrt(),
        (2.0f64 / 9.0).sqrt(),
        (2.0f64 / 3.0).sqrt(),
    );
    Base {
        corners: vec![
            [0.0, 0.0, 1.0],
            [a, 0.0, -1.0 / 3.0],
            [-b, c, -1.0 / 3.0],
            [-b, -c, -1.0 / 3.0],
        ],
        edges: vec![(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)],
        faces: vec![[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]],
        equator: 0..0,
    }
}

fn hemi_tetrahedron() -> Base {
    let s = 0.75f64.sqrt();
    Base {
        corners: vec![
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
            [-0.5, s, 0.0],
            [-0.5, -s, 0.0],
        ],
        edges: vec![(0, 1), (0, 2), (0, 3), (1, 2), (2, 3), (3, 1)],
        faces: vec![[0, 1, 2], [0, 2, 3], [0, 3, 1]],
        equator: 0..3,
    }
}

/// The octahedron (`hemi`: its upper half, without the south pole).
fn octahedron(hemi: bool) -> Base {
    let mut corners = vec![
        [0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, -1.0, 0.0],
    ];
    let ring = |k: usize| k % 4 + 1;
    let mut edges: Vec<(usize, usize)> = (0..4).map(|k| (0, ring(k))).collect();
    let mut faces: Vec<[usize; 3]> = (0..4).map(|k| [0, ring(k), ring(k + 1)]).collect();
    if hemi {
        edges.extend((0..4).map(|k| (ring(k), ring(k + 1))));
    } else {
        corners.push([0.0, 0.0, -1.0]);
        edges.extend((0..4).map(|k| (5, ring(k))));
        edges.extend((0..4).map(|k| (ring(k), ring(k + 1))));
        faces.extend((0..4).map(|k| [5, ring(k + 1), ring(k)]));
    }
    Base {
        corners,
        edges,
        faces,
        equator: if hemi { 0..4 } else { 0..0 },
    }
}

fn icosahedron() -> Base {
    use std::f64::consts::PI;
    let z = 0.2f64.sqrt();
    let r = 2.0 * z;
    let mut corners = vec![[0.0, 0.0, 1.0]];
    for k in 0..5 {
        let t = 2.0 * PI * k as f64 / 5.0;
        corners.push([r * t.cos(), r * t.sin(), z]);
    }
    for k in 0..5 {
        let t = PI * (2 * k + 1) as f64 / 5.0;
        corners.push([r * t.cos(), r * t.sin(), -z]);
    }
    corners.push([0.0, 0.0, -1.0]);
    // Upper ring u(k) = 1..5, lower ring l(k) = 6..10.
    let u = |k: usize| k % 5 + 1;
    let l = |k: usize| k % 5 + 6;
    let mut edges = Vec::with_capacity(30);
    edges.extend((0..5).map(|k| (0, u(k))));
    edges.extend((0..5).map(|k| (u(k), u(k + 1))));
    edges.extend((0..5).map(|k| (u(k), l(k))));
    edges.extend((0..5).map(|k| (u(k), l(k + 4))));
    edges.extend((0..5).map(|k| (l(k), l(k + 1))));
    edges.extend((0..5).map(|k| (11, l(k))));
    let mut faces = Vec::with_capacity(20);
    faces.extend((0..5).map(|k| [0, u(k), u(k + 1)]));
    faces.extend((0..5).map(|k| [u(k), l(k + 4), l(k)]));
    faces.extend((0..5).map(|k| [l(k), u(k + 1), u(k)]));
    faces.extend((0..5).map(|k| [11, l(k + 1), l(k)]));
    Base {
        corners,
        edges,
        faces,
        equator: 0..0,
    }
}

/// Max's icosahedron hemisphere: the upper cap of a twice-subdivided
/// icosahedron (top, five midpoints towards the upper ring, the ring, five
/// midpoints between ring neighbours) over ten equator corners, 40 faces in
/// eight rows of five; its last ten faces stand on the equator.
fn hemi_icosahedron() -> Base {
    use std::f64::consts::PI;
    let z = 0.2f64.sqrt();
    let r = 2.0 * z;
    let unit = |a: [f64; 3]| Vec3(a[0], a[1], a[2]);
    let ring: Vec<Vec3> = (0..5)
        .map(|k| {
            let t = 2.0 * PI * k as f64 / 5.0;
            Vec3(r * t.cos(), r * t.sin(), z)
        })
        .collect();
    let mut mid = Vec::with_capacity(10);
    for &corner in &ring {
        slerp(unit([0.0, 0.0, 1.0]), corner, 2, &mut mid);
    }
    for k in 0..5 {
        slerp(ring[k], ring[(k + 1) % 5], 2, &mut mid);
    }
    let mut corners = vec![[0.0, 0.0, 1.0]];
    corners.extend(mid[..5].iter().map(|p| [p.0, p.1, p.2]));
    corners.extend(ring.iter().map(|p| [p.0, p.1, p.2]));
    corners.extend(mid[5..].iter().map(|p| [p.0, p.1, p.2]));
    for k in 0..10 {
        let t = 2.0 * PI * k as f64 / 10.0 + PI / 10.0;
        corners.push([t.cos(), t.sin(), 0.0]);
    }
    // Corners: top 0, inner ring a(k) = 1..5, upper ring u(k) = 6..10,
    // between-ring b(k) = 11..15, equator e(k) = 16..25.
    let a = |k: usize| k % 5 + 1;
    let u = |k: usize| k % 5 + 6;
    let b = |k: usize| k % 5 + 11;
    let e = |k: usize| k % 10 + 16;
    let mut edges = Vec::with_capacity(65);
    edges.extend((0..5).map(|k| (0, a(k))));
    edges.extend((0..5).map(|k| (a(k), a(k + 1))));
    edges.extend((0..5).map(|k| (a(k), u(k))));
    edges.extend((0..5).map(|k| (a(k), b(k))));
    edges.extend((0..5).map(|k| (a(k), b(k + 4))));
    edges.extend((0..5).map(|k| (u(k), b(k))));
    edges.extend((0..5).map(|k| (b(k + 4), u(k))));
    for k in 0..5 {
        edges.extend([
            (u(k), e(2 * k)),
            (b(k), e(2 * k)),
            (b(k), e(2 * k + 1)),
            (u(k + 1), e(2 * k + 1)),
        ]);
    }
    edges.extend((0..10).map(|k| (e(k), e(k + 1))));
    let mut faces = Vec::with_capacity(40);
    faces.extend((0..5).map(|k| [0, a(k), a(k + 1)]));
    faces.extend((0..5).map(|k| [b(k), a(k + 1), a(k)]));
    for k in 0..5 {
        faces.push([a(k), b(k + 4), u(k)]);
        faces.push([a(k), u(k), b(k)]);
    }
    for k in 0..5 {
        faces.push([e(2 * k), b(k), u(k)]);
        faces.push([e(2 * k + 1), u(k + 1), b(k)]);
    }
    for g in 0..10 {
        let apex = if g % 2 == 1 { b(g / 2) } else { u(g / 2) };
        faces.push([apex, e(g + 9), e(g)]);
    }
    Base {
        corners,
        edges,
        faces,
        equator: 30..40,
    }
}

/// `num − 1` points between `a` and `b` (same distance from the origin) by
/// spherical interpolation, as Max places them; a zero radius repeats `a`.
fn slerp(a: Vec3, b: Vec3, num: usize, out: &mut Vec<Vec3>) {
    let rad = a.0 * a.0 + a.1 * a.1 + a.2 * a.2;
    if rad == 0.0 {
        out.extend((1..num).map(|_| a));
        return;
    }
    let cs = ((a.0 * b.0 + a.1 * b.1 + a.2 * b.2) / rad).clamp(-1.0, 1.0);
    let theta = cs.acos();
    let sn = theta.sin();
    for i in 1..num {
        let (t1, t2) = (
            theta * i as f64 / num as f64,
            theta * (num - i) as f64 / num as f64,
        );
        out.push(if sn == 0.0 {
            a
        } else {
            Vec3(
                (a.0 * t2.sin() + b.0 * t1.sin()) / sn,
                (a.1 * t2.sin() + b.1 * t1.sin()) / sn,
                (a.2 * t2.sin() + b.2 * t1.sin()) / sn,
            )
        });
    }
}

/// Index of grid vertices of a subdivided base (see the module documentation).
struct Grid<'a> {
    base: &'a Base,
    segs: usize,
    inner_start: usize,
}

impl Grid<'_> {
    /// The vertex `d` steps from corner `from` along the base edge to `to`.
    fn on_edge(&self, from: usize, to: usize, d: usize) -> Result<usize, EvalError> {
        let n = self.segs - 1;
        let start = self.base.corners.len();
        if let Some(e) = self.base.edges.iter().position(|&e| e == (from, to)) {
            return Ok(start + e * n + d - 1);
        }
        match self.base.edges.iter().position(|&e| e == (to, from)) {
            Some(e) => Ok(start + e * n + (n - d)),
            None => Err(EvalError::malformed(
                "",
                format!("GeoSphere base has no edge {from}–{to}"),
            )),
        }
    }

    fn at(&self, f: usize, r: usize, c: usize) -> Result<usize, EvalError> {
        let [a, b, cc] = self.base.faces[f];
        let s = self.segs;
        Ok(match (r, c) {
            (0, _) => a,
            (r, 0) if r == s => b,
            (r, c) if r == s && c == s => cc,
            (r, 0) => self.on_edge(a, b, r)?,
            (r, c) if c == r => self.on_edge(a, cc, r)?,
            (r, c) if r == s => self.on_edge(b, cc, c)?,
            (r, c) => self.inner_start + f * (s - 1) * (s - 2) / 2 + (r - 1) * (r - 2) / 2 + c - 1,
        })
    }
}

/// GeoSphere: radius (0), segments (1), base type (2: 0 tetrahedron, 1
/// octahedron, 2 icosahedron), hemisphere (3), smooth (4), base to pivot (5),
/// generate mapping coordinates (6). See the module documentation.
pub fn geosphere_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let radius = p.float(0)?.max(0.0);
    let segs = p.segments(1)?;
    let hemi = p.flag(3, false);
    let smooth = p.flag(4, true);
    let base = match (p.int_or(2, 2), hemi) {
        (0, false) => tetrahedron(),
        (0, true) => hemi_tetrahedron(),
        (1, h) => octahedron(h),
        (2, false) => icosahedron(),
        (2, true) => hemi_icosahedron(),
        (t, _) => return Err(EvalError::malformed("", format!("GeoSphere base type {t}"))),
    };
    check_quads(base.faces.len() * segs * segs)?;
    let mut v: Vec<Vec3> = base
        .corners
        .iter()
        .map(|c| Vec3(c[0] * radius, c[1] * radius, c[2] * radius))
        .collect();
    for &(a, b) in &base.edges {
        slerp(v[a], v[b], segs, &mut v);
    }
    let grid = Grid {
        base: &base,
        segs,
        inner_start: v.len(),
    };
    for f in 0..base.faces.len() {
        for r in 2..segs {
            let (left, right) = (v[grid.at(f, r, 0)?], v[grid.at(f, r, r)?]);
            slerp(left, right, r, &mut v);
        }
    }
    let (material, group) = if smooth { (1, 1) } else { (0, 0) };
    let mut faces = Vec::with_capacity(base.faces.len() * segs * segs + 4 * segs);
    let mut tri = |a: usize, b: usize, c: usize, material: u16, smoothing: u32| {
        faces.push(face([a as u32, b as u32, c as u32], material, smoothing));
    };
    for f in 0..base.faces.len() {
        for r in 0..segs {
            for c in 0..=r {
                let (a, b, cc) = (
                    grid.at(f, r, c)?,
                    grid.at(f, r + 1, c)?,
                    grid.at(f, r + 1, c + 1)?,
                );
                tri(a, b, cc, material, group);
                if c < r {
                    tri(a, cc, grid.at(f, r, c + 1)?, material, group);
                }
            }
        }
    }
    if hemi {
        let centre = v.len();
        v.push(Vec3::default());
        let (material, group) = if smooth { (0, 2) } else { (0, 0) };
        for f in base.equator.clone() {
            for c in 0..segs {
                let (a, b) = (grid.at(f, segs, c)?, grid.at(f, segs, c + 1)?);
                tri(b, a, centre, material, group);
            }
        }
    }
    let mut mesh = Mesh {
        vertices: v,
        faces,
        maps: Vec::new(),
        ..Default::default()
    };
    if p.flag(6, false) {
        // With the real-world map size on, the sample tiles U by the
        // circumference and V by half of it (single precision).
        let tile = if p.real_world() {
            let u = (2.0 * std::f64::consts::PI * radius) as f32;
            [u, u / 2.0]
        } else {
            [1.0, 1.0]
        };
        mesh.maps
            .push(crate::eval::modifier::uvw_project::spherical_channel(
                &mesh, tile,
            ));
    }
    if !hemi && p.flag(5, false) {
        for p in &mut mesh.vertices {
            p.2 += radius;
        }
    }
    Ok(mesh)
}
