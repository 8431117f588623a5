//! Gengon ((0x49bf599f, 0x35f945ab); Extended Primitives), built as the
//! public Max SDK sample `gengon.cpp` builds it (the code here is ours), on
//! Prism's capped-ring layout ([`ring_faces`]).
//!
//! Old ParamBlock by index: 0 sides (3…200), 1 radius, 2 fillet, 3 height,
//! 4 side segments (1…200), 5 fillet segments (0…200; none without a
//! fillet), 6 height segments, 7 generate mapping, 8 smooth. Max keeps the
//! fillet under 0.499 of a side's length (`FixGenFilletLimits`).
//!
//! Layout: the top centre, the top ring — per corner (from +X counter-
//! clockwise) its `fillet segments + 1` points on the fillet arc, then the
//! side's inner points —, the rings below down to z = 0, the bottom centre.
//! Faces as Prism's; caps in group 1 when smooth. Sides: with a fillet all
//! one group 2; without, the sides alternate groups 2 and 3 (bits 2, 4) and
//! the last band of an odd alternation gets group 4 (bit 8) — Max carries
//! the alternation over from one height level to the next. Mapping: the
//! caps planar over the radius' square, the sides a grid whose u steps by
//! fillet / fillet segments and by Max's side step (the length of one side
//! segment, or with one side segment of the first ring step) over
//! sides·(fillet + that step), ending at 1.

use super::checked_channel1;
use super::prism::ring_faces;
use super::{check_quads, Params};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;
use std::f64::consts::{PI, TAU};

pub const GENGON: ClassId = ClassId(0x49bf599f, 0x35f945ab);

pub fn gengon_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let segs = p.int_or(0, 5).clamp(3, 200) as usize;
    let r = p.float_or(1, 0.0).max(0.0);
    let mut fillet = p.float_or(2, 0.0);
    let mut h = p.float_or(3, 0.0);
    if ![r, fillet, h].iter().all(|x| x.is_finite()) {
        return Err(EvalError::malformed("", "a parameter is not finite"));
    }
    let sidesegs = p.int_or(4, 1).clamp(1, 200) as usize;
    let mut fsegs = p.int_or(5, 0).clamp(0, 200) as usize;
    let llsegs = p.int_or(6, 1).clamp(1, 200) as usize;
    let mapping = p.flag(7, true);
    let smooth = p.flag(8, true);
    // FixGenFilletLimits.
    let s = (2.0 * r * r * (1.0 - (TAU / segs as f64).cos())).sqrt() * 0.499;
    if fillet > s {
        fillet = s;
    }
    if fillet == 0.0 {
        fsegs = 0;
    }
    let vpl = segs * (sidesegs + fsegs);
    check_quads(vpl * (llsegs + 1))?;
    let minush = h < 0.0;
    h = h.abs();
    let delta = TAU / segs as f64;
    // Corner 0's points, then each corner rotated by k·delta.
    let mut corner = Vec::with_capacity(fsegs + 1);
    if fsegs > 0 {
        let theta = (segs as f64 - 2.0) * PI / segs as f64;
        let alfa = PI - theta;
        let step = alfa / fsegs as f64;
        let k = fillet * (theta / 2.0).sin();
        let l1 = k / (alfa / 2.0).tan();
        let l2 = fillet * (theta / 2.0).cos();
        let cx = r - l1 - l2;
        let (ax, ay) = (l1, -k);
        corner.push((cx + ax, ay));
        for i in 1..=fsegs {
            let (sn, cs) = (step * i as f64).sin_cos();
            corner.push((cx + cs * ax - sn * ay, sn * ax + cs * ay));
        }
    } else {
        corner.push((r, 0.0));
    }
    let mut ring: Vec<(f64, f64)> = Vec::with_capacity(vpl);
    for jx in 0..segs {
        let (sn, cs) = (delta * jx as f64).sin_cos();
        ring.extend(corner.iter().map(|&(x, y)| {
            if jx == 0 {
                (x, y)
            } else {
                (cs * x - sn * y, sn * x + cs * y)
            }
        }));
        ring.extend(std::iter::repeat_n((0.0, 0.0), sidesegs - 1));
    }
    let per = fsegs + sidesegs;
    let mut step = (0.0, 0.0);
    for c in 0..segs {
        let start = c * per + fsegs;
        let end = ((c + 1) * per) % vpl;
        let (a, b) = (ring[start], ring[end]);
        step = ((b.0 - a.0) / sidesegs as f64, (b.1 - a.1) / sidesegs as f64);
        for k in 1..sidesegs {
            ring[start + k] = (a.0 + k as f64 * step.0, a.1 + k as f64 * step.1);
        }
    }
    if sidesegs == 1 {
        step = (ring[1].0 - ring[0].0, ring[1].1 - ring[0].1);
    }
    let mut v = Vec::with_capacity(vpl * (llsegs + 1) + 2);
    v.push(Vec3(0.0, 0.0, h));
    let sincr = h / llsegs as f64;
    for ic in 0..=llsegs {
        let z = if ic == 0 { h } else { h - sincr * ic as f64 };
        v.extend(ring.iter().map(|&(x, y)| Vec3(x, y, z)));
    }
    v.push(Vec3(0.0, 0.0, 0.0));

    let cap = u32::from(smooth);
    let mut evengr = true;
    let mut ecount = 0;
    let last = vpl - 1;
    let mut side = |j: usize| {
        if j == 0 {
            ecount = 0;
        }
        if !smooth {
            return 0;
        }
        if fsegs > 0 {
            return 2;
        }
        let mut g = if evengr { 2 } else { 4 };
        if j == last && evengr {
            g = 8;
        }
        ecount += 1;
        if ecount == sidesegs {
            ecount = 0;
            evengr = !evengr;
        }
        g
    };
    let (faces, tf) = ring_faces(vpl, llsegs, cap, &mut side);
    let mut mesh = Mesh {
        vertices: v,
        faces,
        ..Mesh::default()
    };
    if mapping {
        let udenom = 2.0 * r;
        let planar = |q: &Vec3| {
            if udenom > 0.0 {
                [
                    ((r + q.0) / udenom) as f32,
                    ((r + q.1) / udenom) as f32,
                    0.0,
                ]
            } else {
                [0.0; 3]
            }
        };
        let sidedist = (step.0 * step.0 + step.1 * step.1).sqrt();
        let sdenom = (fillet + sidedist) * segs as f64;
        let fdist = if fsegs > 0 {
            fillet / fsegs as f64 / sdenom
        } else {
            0.0
        };
        let sdist = sidedist / sidesegs as f64 / sdenom;
        let nv = mesh.vertices.len();
        let mut tv: Vec<[f32; 3]> = mesh.vertices[..=vpl].iter().map(planar).collect();
        for i in 0..=llsegs {
            let hl = (1.0 - i as f64 / llsegs as f64) as f32;
            let mut u = 0.0;
            tv.push([0.0, hl, 0.0]);
            for _ in 0..segs {
                for _ in 0..fsegs {
                    u += fdist;
                    tv.push([u as f32, hl, 0.0]);
                }
                for _ in 0..sidesegs {
                    u += sdist;
                    tv.push([u as f32, hl, 0.0]);
                }
            }
            if let Some(t) = tv.last_mut() {
                t[0] = 1.0;
            }
        }
        tv.extend(mesh.vertices[nv - vpl - 1..].iter().map(planar));
        mesh.maps.push(checked_channel1(tv, tf)?);
    }
    if minush {
        for q in &mut mesh.vertices {
            q.2 -= h;
        }
    }
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    //! Invariants: Max's counts (vertices sides·(side + fillet segments)·
    //! (height segments + 1) + 2, texture vertices that + 2·ring + height
    //! segments + 1), a closed outward surface, corners on the radius without
    //! a fillet, fillet points at equal distance from their arc's centre,
    //! the n-gon's area times the height.
    use super::*;
    use crate::eval::core::pblock::Value;
    use crate::eval::objects::surface_checks::{closed, signed_volume};

    fn params(sides: i32, fillet: f32, ss: i32, fs: i32, hs: i32) -> Params {
        Params::from_values(vec![
            Value::Int(sides),
            Value::Float(10.0),
            Value::Float(fillet),
            Value::Float(4.0),
            Value::Int(ss),
            Value::Int(fs),
            Value::Int(hs),
            Value::Int(1),
            Value::Int(1),
        ])
    }

    #[test]
    fn gengon_counts_and_volume() {
        for (sides, ss, hs) in [(5, 1, 1), (6, 3, 2), (3, 2, 1)] {
            let m = gengon_mesh(&params(sides, 0.0, ss, 2, hs)).expect("mesh");
            let (n, s, l) = (sides as usize, ss as usize, hs as usize);
            let vpl = n * s;
            assert_eq!(m.vertices.len(), vpl * (l + 1) + 2);
            assert_eq!(m.faces.len(), 2 * vpl * (l + 1));
            assert_eq!(m.maps[0].vertices.len(), m.vertices.len() + 2 * vpl + l + 1);
            assert!(closed(&m));
            // The regular n-gon of circumradius 10: n/2 · r² · sin(2π/n).
            let area = n as f64 / 2.0 * 100.0 * (TAU / n as f64).sin();
            assert!((signed_volume(&m) - area * 4.0).abs() < 1e-9);
            for k in 0..n {
                let q = m.vertices[1 + k * s];
                assert!(((q.0 * q.0 + q.1 * q.1).sqrt() - 10.0).abs() < 1e-9);
            }
            m.check_map_faces().expect("map faces");
        }
    }

    #[test]
    fn fillet_arcs_and_smoothing() {
        let m = gengon_mesh(&params(6, 2.0, 2, 3, 1)).expect("mesh");
        let vpl = 6 * (2 + 3);
        assert_eq!(m.vertices.len(), vpl * 2 + 2);
        assert!(closed(&m));
        let v = signed_volume(&m);
        let hexagon = 3.0 * 100.0 * (TAU / 6.0).sin() * 4.0;
        assert!(v > 0.0 && v < hexagon);
        // Corner 0's four arc points are equidistant from one centre on +X,
        // and its ends lie on the hexagon's two edges at (10, 0).
        let arc: Vec<Vec3> = m.vertices[1..=4].to_vec();
        let (a0, a1) = (arc[0], arc[1]);
        let c = (a1.0 * a1.0 + a1.1 * a1.1 - a0.0 * a0.0 - a0.1 * a0.1) / (2.0 * (a1.0 - a0.0));
        let d0 = ((a0.0 - c).powi(2) + a0.1 * a0.1).sqrt();
        for q in &arc {
            assert!((((q.0 - c).powi(2) + q.1 * q.1).sqrt() - d0).abs() < 1e-9);
        }
        let on_edge = |q: Vec3, other: f64| {
            let (ex, ey) = (10.0 * other.cos() - 10.0, 10.0 * other.sin());
            ((q.0 - 10.0) * ey - q.1 * ex).abs() < 1e-9
        };
        assert!(on_edge(arc[0], -TAU / 6.0) && on_edge(arc[3], TAU / 6.0));
        assert!(
            (arc[0].1 + arc[3].1).abs() < 1e-9,
            "the arc symmetric about +X"
        );
        let sm: Vec<u32> = m.faces.iter().map(|f| f.smoothing).collect();
        assert!(sm[..vpl].iter().all(|&g| g == 1));
        assert!(sm[vpl..vpl * 3].iter().all(|&g| g == 2));
        // Without a fillet the sides alternate 2 / 4 (five sides: the last 8).
        let m = gengon_mesh(&params(5, 0.0, 1, 0, 1)).expect("mesh");
        let sm: Vec<u32> = m.faces[5..15].iter().map(|f| f.smoothing).collect();
        assert_eq!(sm, vec![2, 2, 4, 4, 2, 2, 4, 4, 8, 8]);
    }
}
