//! Prism ((0x63705fac, 0x5c1f553f); Extended Primitives), built as the public
//! Max SDK sample `prism.cpp` builds it (the code here is ours).
//!
//! Old ParamBlock by index (ParamBlock2 ids in the same order): 0/1/2 side
//! 1/2/3 lengths (at least 0.1), 3 height, 4/5/6 side 1/2/3 segments, 7
//! height segments (1…200), 8 generate mapping.
//!
//! The base triangle: P0 at the origin, P1 = (side 1, 0), P2 at side 3 from
//! P0 with the angle at P0 from the law of cosines (its cosine clamped to
//! [−1, 1], so lengths breaking the triangle inequality still build).
//! Layout: the top centre (centroid at the height), the top ring P0, side 1's
//! inner points, P1, side 2's, P2, side 3's (T = total segments points),
//! `height segments` rings below it down to z = 0, the bottom centre. Faces:
//! the top fan (centre, i, i + 1), per band and boundary point (t, b, b + 1)
//! and (t, b + 1, t + 1), the bottom fan (t, centre, t + 1); material 0;
//! smoothing: caps group 1, side 1's band group 2, side 2's group 3, side
//! 3's group 4 (bits 1, 2, 4, 8). Mapping: the caps planar over the base's
//! box (the bottom mirrored), the sides a (T + 1) × (segments + 1) grid whose
//! u runs by length along sides 1 and 2 and — as Max does — by side 2's
//! step along side 3, ending at 1.

use super::checked_channel1;
use super::{check_quads, ext_face, Params};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};
use crate::typed::ClassId;

pub const PRISM: ClassId = ClassId(0x63705fac, 0x5c1f553f);

/// Max's lower limit on the side lengths (`BMIN_LENGTH`).
const MIN_LENGTH: f64 = 0.1;

pub fn prism_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let len = |i| p.float_or(i, 0.0).max(MIN_LENGTH);
    let (s1, s2, s3) = (len(0), len(1), len(2));
    let mut h = p.float_or(3, 0.0);
    if ![s1, s2, s3, h].iter().all(|x| x.is_finite()) {
        return Err(EvalError::malformed("", "a parameter is not finite"));
    }
    let segs = |i| p.int_or(i, 1).clamp(1, 200) as usize;
    let (n1, n2, n3, hsegs) = (segs(4), segs(5), segs(6), segs(7));
    let mapping = p.flag(8, true);
    let total = n1 + n2 + n3;
    check_quads(total * (hsegs + 1))?;
    let minush = h < 0.0;
    h = h.abs();
    let theta = ((s2 * s2 - s1 * s1 - s3 * s3) / (-2.0 * s1 * s3))
        .clamp(-1.0, 1.0)
        .acos();
    let p0 = Vec3(0.0, 0.0, h);
    let p1 = Vec3(s1, 0.0, h);
    let p2 = Vec3(s3 * theta.cos(), s3 * theta.sin(), h);
    let centre = Vec3((p0.0 + p1.0 + p2.0) / 3.0, (p0.1 + p1.1 + p2.1) / 3.0, h);
    // The top ring, each point with its side-grid u.
    let (tdist, mut ring) = (s1 + s2 + s3, Vec::with_capacity(total));
    let mut u = 0.0;
    for (a, b, n, du) in [
        (p0, p1, n1, s1 / n1 as f64 / tdist),
        (p1, p2, n2, s2 / n2 as f64 / tdist),
        (p2, p0, n3, s2 / n2 as f64 / tdist),
    ] {
        for i in 0..n {
            let f = i as f64 / n as f64;
            ring.push((Vec3(a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, h), u));
            u += du;
        }
    }
    let nverts = total * (hsegs + 1) + 2;
    let mut v = Vec::with_capacity(nverts);
    v.push(centre);
    let sincr = h / hsegs as f64;
    for ic in 0..=hsegs {
        let z = if ic == 0 { h } else { h - sincr * ic as f64 };
        v.extend(ring.iter().map(|(q, _)| Vec3(q.0, q.1, z)));
    }
    v.push(Vec3(centre.0, centre.1, 0.0));

    let mut side = |j: usize| {
        if j < n1 {
            2
        } else if j < n1 + n2 {
            4
        } else {
            8
        }
    };
    let (faces, tf) = ring_faces(total, hsegs, 1, &mut side);
    let mut mesh = Mesh {
        vertices: v,
        faces,
        ..Mesh::default()
    };
    if mapping {
        mesh.maps
            .push(prism_map(&mesh, (p1, p2), &ring, hsegs, tf)?);
    }
    if minush {
        for q in &mut mesh.vertices {
            q.2 -= h;
        }
    }
    Ok(mesh)
}

/// Faces of a capped ring stack — the top centre 0, `hsegs + 1` rings of
/// `total` points, the bottom centre — and their texture faces over Max's
/// texture layout for it (the top centre and ring, `hsegs + 1` grid rows of
/// `total + 1`, the bottom ring and centre), as Prism and Gengon make them.
/// `side(j)` is the smoothing group of the band faces at ring point `j`,
/// asked for in face order; the caps get `cap`.
pub(super) fn ring_faces(
    total: usize,
    hsegs: usize,
    cap: u32,
    side: &mut dyn FnMut(usize) -> u32,
) -> (Vec<Face>, Vec<[usize; 3]>) {
    let last = total - 1;
    let mut faces = Vec::with_capacity(2 * total * (hsegs + 1));
    let mut tf = Vec::with_capacity(2 * total * (hsegs + 1));
    for i in 0..total {
        let b1 = if i < last { i + 2 } else { 1 };
        faces.push(ext_face([0, i + 1, b1], 0, cap));
        tf.push([0, i + 1, b1]);
    }
    let row = total + 1;
    for band in 0..hsegs {
        let (top, bot) = (1 + band * total, 1 + (band + 1) * total);
        let (tt, tb) = (row + band * row, row + (band + 1) * row);
        for j in 0..total {
            let sm = side(j);
            let next = if j < last { j + 1 } else { 0 };
            faces.push(ext_face([top + j, bot + j, bot + next], 0, sm));
            faces.push(ext_face([top + j, bot + next, top + next], 1, sm));
            tf.push([tt + j, tb + j, tb + j + 1]);
            tf.push([tt + j, tb + j + 1, tt + j + 1]);
        }
    }
    let (bottom, centre) = (1 + hsegs * total, 2 + (hsegs + 1) * total - 1);
    let (bring, bcentre) = (row * (hsegs + 2), row * (hsegs + 3) - 1);
    for i in 0..total {
        let next = if i < last { i + 1 } else { 0 };
        faces.push(ext_face([bottom + i, centre, bottom + next], 1, cap));
        tf.push([bring + i, bcentre, bring + next]);
    }
    (faces, tf)
}

/// Channel 1: the top centre and ring, the side grid, the bottom ring and
/// centre, in Max's order; texture faces mirror the mesh faces.
fn prism_map(
    m: &Mesh,
    (p1, p2): (Vec3, Vec3),
    ring: &[(Vec3, f64)],
    hsegs: usize,
    tf: Vec<[usize; 3]>,
) -> Result<MapChannel, EvalError> {
    let min_x = p1.0.min(p2.0).min(0.0);
    let max_x = p1.0.max(p2.0).max(0.0);
    let xdist = if max_x - min_x == 0.0 {
        0.001
    } else {
        max_x - min_x
    };
    let ydist = if p2.1 == 0.0 { 0.001 } else { p2.1 };
    let planar = |q: Vec3| ((q.0 - min_x) / xdist, q.1 / ydist);
    let mut tv: Vec<[f32; 3]> = Vec::new();
    let at = |u: f64, v: f64| [u as f32, v as f32, 0.0];
    let centre = planar(m.vertices[0]);
    tv.push(at(centre.0, centre.1));
    // The corners' v are exact (0 on side 1, 1 at P2) as Max sets them.
    let corner_v = |k: usize, v: f64| {
        if k == 0 || ring[k].0 == p1 {
            0.0
        } else if ring[k].0 == p2 {
            1.0
        } else {
            v
        }
    };
    let tops: Vec<(f64, f64)> = ring
        .iter()
        .enumerate()
        .map(|(k, (q, _))| {
            let (u, v) = planar(*q);
            (u, corner_v(k, v))
        })
        .collect();
    tv.extend(tops.iter().map(|&(u, v)| at(u, v)));
    for ic in 0..=hsegs {
        let v = if ic == 0 {
            1.0
        } else {
            1.0 - ic as f64 / hsegs as f64
        };
        tv.extend(ring.iter().map(|&(_, u)| at(u, v)));
        tv.push(at(1.0, v));
    }
    tv.extend(tops.iter().map(|&(u, v)| at(1.0 - u, 1.0 - v)));
    tv.push(at(1.0 - centre.0, 1.0 - centre.1));
    checked_channel1(tv, tf)
}

#[cfg(test)]
mod tests {
    //! Invariants: Max's counts (vertices T·(segments + 1) + 2, faces
    //! 2·T·(segments + 1), texture vertices (segments + 3)·(T + 1)), the
    //! side lengths and height as stated, a closed outward surface of the
    //! triangle's area times the height, the mapping's corners.
    use super::*;
    use crate::eval::core::pblock::Value;
    use crate::eval::objects::surface_checks::{closed, signed_volume};

    fn params(s: [f32; 3], h: f32, n: [i32; 4]) -> Params {
        let mut v: Vec<Value> = s.iter().map(|&x| Value::Float(x)).collect();
        v.push(Value::Float(h));
        v.extend(n.iter().map(|&x| Value::Int(x)));
        v.push(Value::Int(1));
        Params::from_values(v)
    }

    fn dist(a: Vec3, b: Vec3) -> f64 {
        ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2) + (a.2 - b.2).powi(2)).sqrt()
    }

    #[test]
    fn prism_counts_sides_volume() {
        for n in [[1, 1, 1, 1], [2, 3, 1, 2], [4, 1, 2, 5]] {
            let (s, h) = ([3.0, 4.0, 5.0], 6.0);
            let m = prism_mesh(&params(s, h, n)).expect("mesh");
            let t = (n[0] + n[1] + n[2]) as usize;
            let l = n[3] as usize;
            assert_eq!(m.vertices.len(), t * (l + 1) + 2, "{n:?}");
            assert_eq!(m.faces.len(), 2 * t * (l + 1));
            assert!(closed(&m));
            // A 3-4-5 triangle: area 6 (the right angle at P1).
            assert!((signed_volume(&m) - 6.0 * 6.0).abs() < 1e-9);
            let p0 = m.vertices[1];
            let p1 = m.vertices[1 + n[0] as usize];
            let p2 = m.vertices[1 + (n[0] + n[1]) as usize];
            assert!((dist(p0, p1) - 3.0).abs() < 1e-12);
            assert!((dist(p1, p2) - 4.0).abs() < 1e-12);
            assert!((dist(p2, p0) - 5.0).abs() < 1e-12);
            assert_eq!((p0.2, m.vertices.last().map(|q| q.2)), (6.0, Some(0.0)));
            let map = &m.maps[0];
            assert_eq!(map.vertices.len(), (l + 3) * (t + 1));
            assert_eq!(map.faces.len(), m.faces.len());
            m.check_map_faces().expect("map faces");
            // Side grid row ends: u 0 at P0, 1 at the closing point.
            assert_eq!(map.vertices[t + 1], [0.0, 1.0, 0.0]);
            assert_eq!(map.vertices[2 * t + 1], [1.0, 1.0, 0.0]);
        }
    }

    #[test]
    fn smoothing_and_negative_height() {
        let m = prism_mesh(&params([3.0, 4.0, 5.0], -2.0, [1, 2, 3, 1])).expect("mesh");
        let sm: Vec<u32> = m.faces.iter().map(|f| f.smoothing).collect();
        assert_eq!(&sm[..6], &[1; 6]);
        assert_eq!(&sm[6..8], &[2, 2]);
        assert_eq!(&sm[8..12], &[4; 4]);
        assert_eq!(&sm[12..18], &[8; 6]);
        assert_eq!(&sm[18..], &[1; 6]);
        assert!(m.vertices.iter().all(|q| q.2 <= 0.0 && q.2 >= -2.0));
        assert!(closed(&m));
        assert!(signed_volume(&m) > 0.0);
    }
}
