//! Cylinder and Cone (whole and sliced): caps, sides, height and cap segments.

use super::*;
use crate::eval::error::EvalError;

/// The largest radius Max builds (cyl.cpp / cone.cpp's MAX_RADIUS).
const MAX_RADIUS: f64 = 1.0e30;

/// Cylinder (radius 0, height 1, height segments 2, cap segments 3, sides 4,
/// smooth 5, slice on 6, generate mapping coordinates 9) and Cone (radius 1 0,
/// radius 2 1, height 2, height segments 3, cap segments 4, sides 5, smooth 6,
/// slice on 7, generate mapping coordinates 10), laid out as Max's cylinder
/// builder does: bottom centre; `cap segments` bottom rings from the centre out
/// (the last is the rim); the height-segment rings between; `cap segments` top
/// rings from the rim in; top centre. Rings start on +X and turn towards +Y —
/// towards −Y for a negative height, which keeps the faces outward. A cone of
/// radius 0 keeps its collapsed ring. Faces: bottom fan (material 1), bands
/// (quads split (a, c, b), (a, d, c) with the diagonal hidden), top fan
/// (material 0); side bands are material 2 in smoothing group 4 when smooth,
/// cap fans and cap bands group 1 — the bottom cap's bands material 0 and the
/// top cap's material 1, as Max numbers them. Slices: see
/// `sliced_cylinder_mesh`.
///
/// Mapping: U runs around from +Y (U = ¾ on +X), V = z/height (0 and 1 on all
/// cap rings); each segment keeps the U of its end vertex, so the segment across
/// the seam starts below 0 or ends at 1 depending on float rounding (see below);
/// cap centres map to U = ½ and cap rings to their vertices' U (checked against
/// Babylon's glTF of Max cones with one cap segment). The real-world map size
/// scales the sides and maps the caps flat: `real_world_map` (a sliced
/// cylinder's is not built: `real_world`).
///
/// A negative radius builds as 0: the SDK samples cyl.cpp and cone.cpp limit
/// each radius to [0, 1e30] (`LimitValue` with MIN_RADIUS 0) before building,
/// so a cone whose top radius was dragged below 0 ends in a point
/// (ccharri's Spike_Ball.max: radius 2 saved as −5.75, 0 in its 3DS export).
pub fn cylinder_mesh(p: &Params, cone: bool) -> Result<Mesh, EvalError> {
    let o = usize::from(cone);
    let limited = |i: usize| -> Result<f64, EvalError> { Ok(p.float(i)?.clamp(0.0, MAX_RADIUS)) };
    let r1 = limited(0)?;
    let r2 = if cone { limited(1)? } else { r1 };
    let h = p.float(1 + o)?;
    let hs = p.segments(2 + o)?;
    let caps = p.segments(3 + o)?;
    let n = p.segments(4 + o)?;
    if n < 3 {
        return Err(EvalError::malformed("", format!("{n} sides")));
    }
    let rings = hs - 1 + 2 * caps;
    check_quads(n * (rings + 1))?;
    if p.int_or(6 + o, 0) != 0 {
        return sliced_cylinder_mesh(p, o, (r1, r2, h), (hs, caps, n));
    }
    let smooth = p.flag(5 + o, true);
    let ring = rings_of((r1, r2, h), hs, caps);
    let step = if h < 0.0 { -1.0 } else { 1.0 } * 2.0 * std::f64::consts::PI / n as f64;
    let mut v = vec![Vec3::default()];
    for &(r, z, _) in &ring {
        for k in 0..n {
            let a = step * k as f64;
            v.push(Vec3(r * a.cos(), r * a.sin(), z));
        }
    }
    let top = v.len() as u32;
    v.push(Vec3(0.0, 0.0, h));
    let at = |row: usize, k: usize| (1 + row * n + k % n) as u32;
    // U of ring vertex k: ¾ + angle/2π, wrapped into [0, 1]. Max accumulates the
    // angle in single precision, which decides on which side of the seam a
    // vertex exactly on +Y lands. A ring of radius 0 (a cone's tip) maps to U = ½.
    let mut wrapped = Vec::with_capacity(n);
    let delta = step as f32;
    let mut angle = 0.0f32;
    for _ in 0..n {
        let u = 0.75 + f64::from(angle) / (2.0 * std::f64::consts::PI);
        wrapped.push(if u > 1.0 {
            u - 1.0
        } else if u < 0.0 {
            u + 1.0
        } else {
            u
        });
        angle += delta;
    }
    let u = |row: usize, k: usize| {
        if ring[row].0 == 0.0 {
            0.5
        } else {
            wrapped[k % n]
        }
    };
    let mut tv = TexVerts::default();
    let mut faces = Vec::new();
    let mut tf = Vec::new();
    // A face spanning the seam moves its corners above ½ down by 1.
    let mut tri = |vs: [u32; 3], uvs: [(f64, f64); 3], material: u16, smoothing: u32, flags| {
        let lo = uvs.iter().map(|c| c.0).fold(f64::INFINITY, f64::min);
        let hi = uvs.iter().map(|c| c.0).fold(f64::NEG_INFINITY, f64::max);
        let seam = hi - lo > 0.5;
        faces.push(Face {
            v: vs,
            smoothing,
            material,
            flags,
        });
        tf.push(uvs.map(|(u, v)| tv.at(if seam && u > 0.5 { u - 1.0 } else { u }, v)));
    };
    // Fan edges to the centre are hidden when cap rings subdivide the cap.
    let fan_edges = if caps > 1 { ALL_EDGES } else { 0b010 };
    for k in 0..n {
        tri(
            [0, at(0, k + 1), at(0, k)],
            [(0.5, 0.0), (u(0, k + 1), 0.0), (u(0, k), 0.0)],
            1,
            1,
            fan_edges,
        );
    }
    for row in 0..rings - 1 {
        let (va, vb) = (ring[row].2, ring[row + 1].2);
        let (material, smoothing) = if row + 1 < caps {
            (0, 1)
        } else if row + 1 >= caps + hs {
            (1, 1)
        } else {
            (2, if smooth { 0x08 } else { 0 })
        };
        for k in 0..n {
            let (a0, a1) = ((u(row, k), va), (u(row, k + 1), va));
            let (b0, b1) = ((u(row + 1, k), vb), (u(row + 1, k + 1), vb));
            tri(
                [at(row, k), at(row + 1, k + 1), at(row + 1, k)],
                [a0, b1, b0],
                material,
                smoothing,
                0b110,
            );
            tri(
                [at(row, k), at(row, k + 1), at(row + 1, k + 1)],
                [a0, a1, b1],
                material,
                smoothing,
                0b011,
            );
        }
    }
    let last = rings - 1;
    for k in 0..n {
        tri(
            [top, at(last, k), at(last, k + 1)],
            [(0.5, 1.0), (u(last, k), 1.0), (u(last, k + 1), 1.0)],
            0,
            1,
            fan_edges,
        );
    }
    let maps = if !p.flag(9 + o, true) {
        Vec::new()
    } else if p.real_world() {
        // Which faces the builder marks as caps: the fans and the cap bands.
        let kind = |i: usize| {
            let band = i.checked_sub(n).map(|j| j / (2 * n));
            match band {
                None => Cap::Bottom,
                Some(b) if b >= rings - 1 => Cap::Top,
                Some(b) if b + 1 < caps => Cap::Bottom,
                Some(b) if b + 1 >= caps + hs => Cap::Top,
                Some(_) => Cap::Side,
            }
        };
        let kinds: Vec<Cap> = (0..faces.len()).map(kind).collect();
        vec![real_world_map(
            &v,
            &faces,
            &kinds,
            (&tv.list, &tf),
            (r1, r2, h),
        )]
    } else {
        channel1(tv.list, tf)
    };
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
        ..Default::default()
    })
}

/// Where a cylinder face lies, for its real-world mapping.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Cap {
    Bottom,
    Side,
    Top,
}

/// Channel 1 of a cylinder or cone with the real-world map size on, as the
/// SDK sample `cyl.cpp` builds it (`BuildCylinderMesh`): the cylindrical
/// mapping of the switch off (`tv`, `tf`, seams already moved) with U times
/// 2π · the larger radius and V times the height; then each cap's faces
/// (fans and cap bands) mapped flat in scene units from the lower corner of
/// that cap's bounds — the bottom seen from below (U = x − min x, V = max y −
/// y), the top from above (U = x − min x, V = y − min y) — on texture
/// vertices of their own after the sides', one per cap vertex.
fn real_world_map(
    v: &[Vec3],
    faces: &[Face],
    kinds: &[Cap],
    (tv, tf): (&[[f32; 3]], &[[u32; 3]]),
    (r1, r2, h): (f64, f64, f64),
) -> MapChannel {
    let rd = if r1 > r2 { r1 } else { r2 } as f32;
    let (utile, vtile) = (2.0 * std::f32::consts::PI * rd, h as f32);
    let mut out = TexVerts::default();
    let mut faces_out: Vec<[u32; 3]> = tf
        .iter()
        .zip(kinds)
        .map(|(t, &k)| {
            if k == Cap::Side {
                t.map(|i| {
                    let c = tv[i as usize];
                    out.at(f64::from(c[0] * utile), f64::from(c[1] * vtile))
                })
            } else {
                [0; 3]
            }
        })
        .collect();
    let mut list = out.list;
    for (cap, flip) in [(Cap::Bottom, -1.0f64), (Cap::Top, 1.0)] {
        let mut index: Vec<Option<u32>> = vec![None; v.len()];
        for (f, _) in faces.iter().zip(kinds).filter(|(_, &k)| k == cap) {
            for &i in &f.v {
                index[i as usize] = Some(0);
            }
        }
        let (mut min_x, mut min_y) = (f64::INFINITY, f64::INFINITY);
        for (p, _) in v.iter().zip(&index).filter(|(_, x)| x.is_some()) {
            min_x = min_x.min(p.0);
            min_y = min_y.min(flip * p.1);
        }
        for (i, p) in v.iter().enumerate() {
            if let Some(slot) = index[i].as_mut() {
                *slot = list.len() as u32;
                list.push([(p.0 - min_x) as f32, (flip * p.1 - min_y) as f32, 0.0]);
            }
        }
        for ((f, &k), out) in faces.iter().zip(kinds).zip(faces_out.iter_mut()) {
            if k == cap {
                *out = f.v.map(|i| index[i as usize].unwrap_or(0));
            }
        }
    }
    MapChannel {
        channel: 1,
        vertices: list,
        faces: faces_out,
    }
}

/// A sliced cylinder or cone (see [`cylinder_mesh`] for the parameters), laid
/// out as Max's builder does: each ring has `sides + 1` vertices from the slice's
/// start to its end (slice to → slice from, anticlockwise), preceded by a centre
/// vertex on the axis; the centres are spread evenly up the axis (ring i at
/// height·i/(rings − 1)) so that the two cut faces form grids. Faces: the bottom
/// fan (material 1), the bands — each with a first quad on the start cut
/// (material 3, smoothing bit 1) and a last on the end cut (material 4, bit 2) — and the top fan (material 0). Mapping (unverified: no corpus file
/// slices): U from each vertex's angle as for whole cylinders, centres at ½,
/// V = z/height.
pub(super) fn sliced_cylinder_mesh(
    p: &Params,
    o: usize,
    (r1, r2, h): (f64, f64, f64),
    (hs, caps, n): (usize, usize, usize),
) -> Result<Mesh, EvalError> {
    let smooth = p.flag(5 + o, true);
    let (from, to) = (p.float(7 + o)?, p.float(8 + o)?);
    if !(from.is_finite() && to.is_finite()) {
        return Err(EvalError::malformed("", "slice angles are not finite"));
    }
    // The swept angle from `to` anticlockwise to `from`, in (0, 2π].
    let tau = 2.0 * std::f64::consts::PI;
    let mut total = (from - to).rem_euclid(tau);
    if total == 0.0 {
        total = tau;
    }
    let points = n + 1;
    let mut delta = total / n as f64;
    let start = if h < 0.0 { to + total } else { to };
    if h < 0.0 {
        delta = -delta;
    }
    let rings = hs - 1 + 2 * caps;
    let ring = rings_of((r1, r2, h), hs, caps);
    let angle = |k: usize| start + delta * k as f64;
    let mut v = Vec::with_capacity(rings * (points + 1));
    for (i, &(r, z, _)) in ring.iter().enumerate() {
        let centre = if rings > 1 {
            h * i as f64 / (rings - 1) as f64
        } else {
            0.0
        };
        v.push(Vec3(0.0, 0.0, centre));
        for k in 0..points {
            let a = angle(k);
            v.push(Vec3(r * a.cos(), r * a.sin(), z));
        }
    }
    let row_len = points + 1;
    let centre = |row: usize| (row * row_len) as u32;
    let at = |row: usize, k: usize| (row * row_len + 1 + k) as u32;
    let u_of = |k: usize| (0.75 + angle(k) / tau).rem_euclid(1.0);
    // Corner (vertex, U) of ring `row`: k = None is the centre.
    let uv = |row: usize, k: Option<usize>| {
        let vv = if h == 0.0 {
            0.0
        } else {
            v[centre(row) as usize].2 / h
        };
        match k {
            Some(k) if ring[row].0 != 0.0 => (at(row, k), (u_of(k), ring[row].2)),
            Some(k) => (at(row, k), (0.5, ring[row].2)),
            None => (centre(row), (0.5, vv)),
        }
    };
    let mut tv = TexVerts::default();
    let mut faces = Vec::new();
    let mut tf = Vec::new();
    let mut tri = |c: [(u32, (f64, f64)); 3], material: u16, smoothing: u32, flags: u16| {
        let us = c.map(|x| x.1 .0);
        let seam = us.iter().cloned().fold(f64::MIN, f64::max)
            - us.iter().cloned().fold(f64::MAX, f64::min)
            > 0.5;
        faces.push(Face {
            v: c.map(|x| x.0),
            smoothing,
            material,
            flags,
        });
        tf.push(c.map(|(_, (u, w))| tv.at(if seam && u > 0.5 { u - 1.0 } else { u }, w)));
    };
    let inner = u16::from(caps > 1);
    for k in 0..n {
        let flags = if k == 0 {
            inner | 0b110
        } else if k == n - 1 {
            0b011
        } else {
            inner | 0b010 | (inner << 2)
        };
        tri(
            [uv(0, None), uv(0, Some(k + 1)), uv(0, Some(k))],
            1,
            1,
            flags,
        );
    }
    for row in 0..rings - 1 {
        let band = if row + 1 < caps {
            (0, 1)
        } else if row + 1 >= caps + hs {
            (1, 1)
        } else {
            (2, if smooth { 0x08 } else { 0 })
        };
        // Quad kx: 0 is the start cut (centre → first vertex), n + 1 the end cut.
        for kx in 0..=points {
            let (corner_a, corner_d) = match kx {
                0 => (None, Some(0)),
                k if k == points => (Some(points - 1), None),
                k => (Some(k - 1), Some(k)),
            };
            let (material, smoothing, cut) = match kx {
                0 => (3, 1 << 1, true),
                k if k == points => (4, 1 << 2, true),
                _ => (band.0, band.1, false),
            };
            let (a, d) = (uv(row, corner_a), uv(row, corner_d));
            let (b, c) = (uv(row + 1, corner_a), uv(row + 1, corner_d));
            let side = u16::from(!cut);
            tri([a, c, b], material, smoothing, (side << 1) | 0b100);
            tri([a, d, c], material, smoothing, side | 0b010);
        }
    }
    let last = rings - 1;
    for k in 0..n {
        let flags = if k == 0 {
            0b011
        } else if k == n - 1 {
            inner | 0b110
        } else {
            inner | 0b010 | (inner << 2)
        };
        tri(
            [uv(last, None), uv(last, Some(k)), uv(last, Some(k + 1))],
            0,
            1,
            flags,
        );
    }
    let maps = if p.flag(9 + o, true) {
        channel1(tv.list, tf)
    } else {
        Vec::new()
    };
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
        ..Default::default()
    })
}
/// (radius, z, V) of every ring of a cylinder or cone of radii `r1` (bottom)
/// and `r2` (top) and height `h`, bottom to top: `caps` cap rings out to
/// `r1`, the `hs - 1` rings between, `caps` cap rings in from `r2`.
fn rings_of((r1, r2, h): (f64, f64, f64), hs: usize, caps: usize) -> Vec<(f64, f64, f64)> {
    let mut ring = Vec::with_capacity(hs - 1 + 2 * caps);
    ring.extend((0..caps).map(|i| (r1 * (i + 1) as f64 / caps as f64, 0.0, 0.0)));
    ring.extend((1..hs).map(|i| {
        let f = i as f64 / hs as f64;
        (r1 * (1.0 - f) + r2 * f, h * f, f)
    }));
    ring.extend((0..caps).map(|i| (r2 * (1.0 - i as f64 / caps as f64), h, 1.0)));
    ring
}
