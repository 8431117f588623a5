//! Sphere (whole and sliced / hemisphere): rings from the top pole down.

use super::*;
use crate::eval::error::EvalError;

/// The rings of a sphere (whole or hemisphere, sliced or not) from its
/// hemisphere and squash parameters.
pub(super) struct SphereRings {
    whole: bool,
    /// The polar angle of the cut (π for a whole sphere).
    cut: f64,
    /// The polar angle between rings.
    delta: f64,
    rows: usize,
}

impl SphereRings {
    fn of(p: &Params, segs: usize) -> SphereRings {
        let hemi = p.float_or(3, 0.0);
        let whole = hemi < 0.00001;
        let cut = std::f64::consts::PI * (1.0 - hemi.clamp(0.0, 0.9999));
        let squash = p.int_or(4, 0) != 0;
        let delta = if !whole && squash {
            2.0 * cut / (segs - 2) as f64
        } else {
            2.0 * std::f64::consts::PI / segs as f64
        };
        // Max counts the rings in single precision: when the cut falls exactly
        // on a ring, that ring and the cut ring coincide.
        let rows = if whole || squash {
            segs / 2 - 1
        } else {
            (cut as f32 / delta as f32) as usize + 1
        };
        SphereRings {
            whole,
            cut,
            delta,
            rows,
        }
    }
}

/// Sphere: radius (0), segments (1), smooth (2), hemisphere (3), squash (4), base
/// to pivot (5), generate mapping coordinates (6), slice on (7). Built as Max
/// builds it: a north pole, `rows` rings from the top each starting on +Y and
/// turning towards −X, then the south pole — or, for a hemisphere, the centre
/// of the cut. Rings are 2π/segments apart in latitude (a squashed hemisphere
/// spreads `segments/2 − 1` rings over the kept part instead); a hemisphere's
/// last ring lies on the cut, (1 − hemisphere)·π from the pole. Faces: the top
/// fan, the bands (each quad split (a, b, c), (a, c, d) with the shared edge
/// hidden), the bottom fan; material id 1 and smoothing group 1 when smooth,
/// except a hemisphere's flat cap (material 0, group 2). Base to pivot lifts
/// the cut (or the south pole) to z = 0. Slices: see `sliced_sphere_mesh`.
///
/// Mapping: (rows + 2) rows of segments + 1 texture vertices, U = k/segments
/// around from +Y, V = 1 − 2·row/segments (linear in the row index whatever the
/// hemisphere or squash; Max lets the texture be cut with the sphere); the
/// poles get one texture vertex per segment, the seam column is doubled.
/// With the real-world map size on (`sphere.cpp`), U is times 2π·r and V
/// times π·r, and a hemisphere's flat cap is mapped flat from below in scene
/// units (x − min x, max y − y over the cap's vertices); a sliced sphere's
/// is not built (`real_world` leaves it out by name).
pub fn sphere_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let r = p.float(0)?;
    let segs = p.segments(1)?;
    if segs < 4 {
        return Err(EvalError::malformed(
            "",
            format!("sphere with {segs} segments"),
        ));
    }
    if p.int_or(7, 0) != 0 {
        return sliced_sphere_mesh(p, r, segs);
    }
    let smoothing = |group: u32| if p.int_or(2, 1) != 0 { group } else { 0 };
    let base = 2.0 * std::f64::consts::PI / segs as f64;
    let SphereRings {
        whole,
        cut,
        delta,
        rows,
    } = SphereRings::of(p, segs);
    check_quads(rows * segs)?;
    let bottom_z = if whole { -r } else { cut.cos() * r };
    let lift = if p.int_or(5, 0) != 0 { -bottom_z } else { 0.0 };
    let mut v = vec![Vec3(0.0, 0.0, r + lift)];
    for ring in 1..=rows {
        let alt = if !whole && ring == rows {
            cut
        } else {
            delta * ring as f64
        };
        let (z, ring_r) = (alt.cos() * r, alt.sin() * r);
        for k in 0..segs {
            let a = std::f64::consts::FRAC_PI_2 + base * k as f64;
            v.push(Vec3(a.cos() * ring_r, a.sin() * ring_r, z + lift));
        }
    }
    let south = v.len() as u32;
    v.push(Vec3(0.0, 0.0, bottom_z + lift));
    let at = |ring: usize, k: usize| (1 + (ring - 1) * segs + k % segs) as u32;
    // Texture vertex of (row, k): row 0 the north pole, rows + 1 the bottom.
    let tat = |row: usize, k: usize| (row * (segs + 1) + k) as u32;
    let mut faces = Vec::new();
    let mut tf = Vec::new();
    let mut tri = |v: [u32; 3], t: [u32; 3], material: u16, smoothing: u32, flags: u16| {
        faces.push(Face {
            v,
            smoothing,
            material,
            flags,
        });
        tf.push(t);
    };
    for k in 0..segs {
        tri(
            [0, at(1, k), at(1, k + 1)],
            [tat(0, k), tat(1, k), tat(1, k + 1)],
            1,
            smoothing(1),
            ALL_EDGES,
        );
    }
    for ring in 1..rows {
        for k in 0..segs {
            let (a, b, c, d) = (
                at(ring, k),
                at(ring + 1, k),
                at(ring + 1, k + 1),
                at(ring, k + 1),
            );
            let (ta, tb, tc, td) = (
                tat(ring, k),
                tat(ring + 1, k),
                tat(ring + 1, k + 1),
                tat(ring, k + 1),
            );
            tri([a, b, c], [ta, tb, tc], 1, smoothing(1), 0b011);
            tri([a, c, d], [ta, tc, td], 1, smoothing(1), 0b110);
        }
    }
    let (cap_material, cap_group) = if whole { (1, 1) } else { (0, 2) };
    for k in 0..segs {
        tri(
            [south, at(rows, k + 1), at(rows, k)],
            [tat(rows + 1, k), tat(rows, k + 1), tat(rows, k)],
            cap_material,
            smoothing(cap_group),
            ALL_EDGES,
        );
    }
    let maps = if p.flag(6, true) {
        // The real-world map size scales U by 2π·r and V by π·r.
        let (us, vs) = if p.real_world() {
            let r = r as f32;
            (2.0 * std::f32::consts::PI * r, std::f32::consts::PI * r)
        } else {
            (1.0, 1.0)
        };
        let mut tv = Vec::with_capacity((rows + 2) * (segs + 1));
        for row in 0..rows + 2 {
            for k in 0..=segs {
                tv.push([
                    us * (k as f64 / segs as f64) as f32,
                    vs * (1.0 - 2.0 * row as f64 / segs as f64) as f32,
                    0.0,
                ]);
            }
        }
        if p.real_world() && !whole {
            // The hemisphere's flat cap (its last `segs` faces) is mapped
            // flat from below on texture vertices of its own, one per cap
            // vertex: (x − min x, max y − y).
            let first = faces.len() - segs;
            let mut index: Vec<Option<u32>> = vec![None; v.len()];
            for f in &faces[first..] {
                for &i in &f.v {
                    index[i as usize] = Some(0);
                }
            }
            let used = || v.iter().zip(&index).filter(|(_, x)| x.is_some());
            let min_x = used().map(|(p, _)| p.0).fold(f64::INFINITY, f64::min);
            let max_y = used().map(|(p, _)| p.1).fold(f64::NEG_INFINITY, f64::max);
            for (p, slot) in v.iter().zip(index.iter_mut()) {
                if let Some(t) = slot.as_mut() {
                    *t = tv.len() as u32;
                    tv.push([(p.0 - min_x) as f32, (max_y - p.1) as f32, 0.0]);
                }
            }
            for (f, t) in faces[first..].iter().zip(&mut tf[first..]) {
                *t = f.v.map(|i| index[i as usize].unwrap_or(0));
            }
        }
        channel1(tv, tf)
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

/// A sliced sphere (see [`sphere_mesh`] for the parameters; slice from 8, slice
/// to 9), as Max builds it: each ring holds `segments + 1` vertices from the
/// slice's start (slice to, measured from +Y) to its end, then a centre vertex
/// on the axis at the ring's height — except a hemisphere's last ring, whose
/// centre is the cut's centre. Fans and bands run around the ring and its
/// centre: the triangles or quads from the last ring vertex to the centre are
/// the end cut (material 2, smoothing bit 2), those from the centre back to the
/// first vertex the start cut (material 3, bit 3). Mapping follows Max's table:
/// per row, U over the swept fraction for the ring vertices, then three extra
/// texture vertices (U = 1, 0, 1) for the cut faces.
pub(super) fn sliced_sphere_mesh(p: &Params, r: f64, segs: usize) -> Result<Mesh, EvalError> {
    let tau = 2.0 * std::f64::consts::PI;
    let smoothing = |group: u32| if p.int_or(2, 1) != 0 { group } else { 0 };
    let (from, to) = (p.float(8)?, p.float(9)?);
    if !(from.is_finite() && to.is_finite()) {
        return Err(EvalError::malformed("", "slice angles are not finite"));
    }
    let mut total = (from - to).rem_euclid(tau);
    if total == 0.0 {
        total = tau;
    }
    let start = std::f64::consts::FRAC_PI_2 + to;
    let step = total / segs as f64;
    let SphereRings {
        whole,
        cut,
        delta,
        rows,
    } = SphereRings::of(p, segs);
    check_quads(rows * (segs + 2))?;
    let bottom_z = if whole { -r } else { cut.cos() * r };
    let lift = if p.int_or(5, 0) != 0 { -bottom_z } else { 0.0 };
    // Vertices per ring with its centre.
    let row = segs + 2;
    let mut v = vec![Vec3(0.0, 0.0, r + lift)];
    for ring in 1..=rows {
        let alt = if !whole && ring == rows {
            cut
        } else {
            delta * ring as f64
        };
        let (z, ring_r) = (alt.cos() * r, alt.sin() * r);
        for k in 0..=segs {
            let a = start + step * k as f64;
            v.push(Vec3(a.cos() * ring_r, a.sin() * ring_r, z + lift));
        }
        if whole || ring < rows {
            v.push(Vec3(0.0, 0.0, z + lift));
        }
    }
    let last = v.len() as u32;
    v.push(Vec3(0.0, 0.0, bottom_z + lift));
    let mut faces = Vec::new();
    let mut face = |v: [u32; 3], material: u16, smoothing: u32, flags: u16| {
        faces.push(Face {
            v,
            smoothing,
            material,
            flags,
        })
    };
    // Material and smoothing of position k around a ring (row − 2: end cut,
    // row − 1: start cut).
    let kind = |k: usize, plain: (u16, u32)| {
        if k == row - 2 {
            (2, smoothing(4))
        } else if k == row - 1 {
            (3, smoothing(8))
        } else {
            plain
        }
    };
    let sphere = (1, smoothing(1));
    for ix in 1..=row {
        let nc = if ix == row { 1 } else { ix + 1 };
        let (m, s) = kind(ix - 1, sphere);
        face([0, ix as u32, nc as u32], m, s, ALL_EDGES);
    }
    for ring in 1..rows {
        let jx = (ring - 1) * row + 1;
        for kx in 0..row {
            let na = jx + kx;
            let nb = na + row;
            let nc = if kx == row - 1 { jx + row } else { nb + 1 };
            let nd = if kx == row - 1 { jx } else { na + 1 };
            let (m, s) = kind(kx, sphere);
            let [na, nb, nc, nd] = [na, nb, nc, nd].map(|x| x as u32);
            face([na, nb, nc], m, s, 0b011);
            face([na, nc, nd], m, s, 0b110);
        }
    }
    let jx = (rows - 1) * row + 1;
    let bottom = if whole { row } else { row - 2 };
    for ix in 0..bottom {
        let nc = ix + jx;
        let nb = if whole && ix == bottom - 1 {
            jx
        } else {
            nc + 1
        };
        let (m, s) = if whole {
            kind(ix, sphere)
        } else {
            (0, smoothing(2))
        };
        face([last, nb as u32, nc as u32], m, s, ALL_EDGES);
    }
    let maps = if p.flag(6, true) {
        // Per row: segs + 1 ring texture vertices, then U = 1, 0, 1.
        let t1 = segs + 4;
        let mut tv = Vec::with_capacity((rows + 2) * t1);
        for r in 0..rows + 2 {
            let vv = (1.0 - 2.0 * r as f64 / segs as f64) as f32;
            for k in 0..=segs {
                tv.push([(step * k as f64 / tau) as f32, vv, 0.0]);
            }
            for u in [1.0, 0.0, 1.0] {
                tv.push([u, vv, 0.0]);
            }
        }
        let mut tf: Vec<[u32; 3]> = Vec::with_capacity(faces.len());
        let mut add = |a: usize, b: usize, c: usize| tf.push([a, b, c].map(|x| x as u32));
        for ix in 0..segs {
            add(ix, ix + t1, ix + t1 + 1);
        }
        // The two cut faces of the top fan share the row's U = 0 vertex.
        for ix in [segs + 1, segs + 2] {
            add(segs + 2, ix + t1, ix + t1 + 1);
        }
        for r in 1..rows {
            let mut cpt = r * t1;
            for kx in 0..row {
                if kx == segs {
                    cpt += 1;
                }
                let na = cpt + kx;
                add(na, na + t1, na + t1 + 1);
                add(na, na + t1 + 1, na + 1);
            }
        }
        let lastv = rows * t1;
        for j1 in lastv..lastv + segs {
            add(j1 + t1, j1 + 1, j1);
        }
        if whole {
            let first = lastv + segs + 1;
            let centre = first + t1 + 1;
            for j1 in [first, first + 1] {
                add(centre, j1 + 1, j1);
            }
        }
        channel1(tv, tf)
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
