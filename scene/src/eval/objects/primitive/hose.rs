//! Hose (0x69f96a5d, 0x235c430a), free-standing, as the public Max SDK
//! sample `hose.cpp` builds it (the code here is ours).
//!
//! Old ParamBlock by index: 0 ends method (0 bound to two objects —
//! refused, 1 free), 1 free length, 2 segments (at least 3), 3 smoothing
//! (0 all, 1 none, 2 sides, 3 segments), 4 renderable, 5 section (0 round,
//! 1 rectangular, 2 D-section), 6 round diameter, 7 round sides, 8/9/10/11/12
//! rectangle width, depth, fillet, fillet sides, rotation, 13–18 D-section
//! width, depth, fillet, fillet sides, round sides, rotation, 19 generate
//! mapping, 20 flex on, 21/22 flex start / stop (0..1 along the hose),
//! 23 flex cycles, 24 flex diameter, 25/26 tensions (bound hoses only).
//!
//! Layout: `segments + 1` rings of the section, ring i at z = length · i /
//! segments (scaled in XY by 1 + d·(1 − sin(2π·cycles·f + π/2)) inside the
//! flex range, f the position within it), then the start and end centres.
//! Faces: the start fan (v2, v1, start centre) with material 0, per segment
//! and ring edge (v4, v3, v1) and (v1, v2, v4) with material 1, the end fan
//! (v1, v2, end centre) with material 2. Mapping: U = 0.999999·i / segments,
//! V = j / ring size, one extra texture vertex per ring at V = 0.999 closing
//! the seam, the centres at (0, 0) and (1, 1).

use crate::eval::error::EvalError;
use std::f64::consts::{FRAC_PI_2, TAU};

use super::{check_quads, Params};
use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};
use crate::typed::ClassId;

pub const HOSE: ClassId = ClassId(0x69f96a5d, 0x235c430a);

/// Ring points and fillet sides beyond this are refused (damaged values).
const MAX_RING: i64 = 1000;

fn count(p: &Params, i: usize, min: i64) -> Result<usize, EvalError> {
    bounded_count(p, i, min, MAX_RING)
}

/// Integer parameter `i`, at least `min`; a value above `max` is damage.
pub(super) fn bounded_count(p: &Params, i: usize, min: i64, max: i64) -> Result<usize, EvalError> {
    let n = p.int_or(i, min).max(min);
    if n > max {
        return Err(EvalError::malformed(
            format!("parameter {i}"),
            format!("{n}"),
        ));
    }
    Ok(n as usize)
}

/// The section's points in its plane (hose.cpp `MakeSaveVertex`; spring.cpp
/// builds the same section from the same parameters `base` − 5 later: the
/// section type at `base`, then diameter, sides, the rectangle's five and
/// the D-section's six).
pub(super) fn section(p: &Params, base: usize) -> Result<Vec<(f64, f64)>, EvalError> {
    let mut v: Vec<(f64, f64)>;
    match p.int_or(base, 0) {
        0 => {
            let n = count(p, base + 2, 3)?;
            let r = p.float_or(base + 1, 1.0) / 2.0;
            let a = TAU / n as f64;
            v = (0..n)
                .map(|i| {
                    let u = (i + 1) as f64 * a;
                    (r * u.cos(), r * u.sin())
                })
                .collect();
        }
        1 => {
            let nf = count(p, base + 6, 0)?;
            let (w, d) = (
                p.float_or(base + 3, 1.0) / 2.0,
                p.float_or(base + 4, 1.0) / 2.0,
            );
            let z = p.float_or(base + 5, 0.0).max(0.0).min(w.abs().min(d.abs()));
            if nf == 0 {
                v = vec![(w, d), (-w, d), (-w, -d), (w, -d)];
            } else {
                let q = 1 + nf;
                v = vec![(0.0, 0.0); 8 + 4 * (nf - 1)];
                let (wz, dz) = (w - z, d - z);
                v[0] = (w, dz);
                v[nf] = (wz, d);
                v[q] = (-wz, d);
                v[q + nf] = (-w, dz);
                v[2 * q] = (-w, -dz);
                v[2 * q + nf] = (-wz, -d);
                v[3 * q] = (wz, -d);
                v[3 * q + nf] = (w, -dz);
                let ang = FRAC_PI_2 / nf as f64;
                for i in 0..nf.saturating_sub(1) {
                    let u = (i + 1) as f64 * ang;
                    let (cu, su) = (z * u.cos(), z * u.sin());
                    let k = i + 1;
                    v[k] = (wz + cu, dz + su);
                    v[k + q] = (-wz - su, dz + cu);
                    v[k + 2 * q] = (-wz - cu, -dz - su);
                    v[k + 3 * q] = (wz + su, -dz - cu);
                }
            }
            rotate(&mut v, p.float_or(base + 7, 0.0));
        }
        2 => {
            let nf = count(p, base + 11, 0)?;
            let ns = count(p, base + 12, 2)?;
            let (w, d) = (
                p.float_or(base + 8, 1.0) / 2.0,
                p.float_or(base + 9, 1.0) / 2.0,
            );
            let z = p.float_or(base + 10, 0.0).max(0.0);
            let left = d - w;
            let sang = std::f64::consts::PI / ns as f64;
            let arc = |k: usize| {
                let u = k as f64 * sang;
                (left - d * u.sin(), d * u.cos())
            };
            if nf > 0 {
                let one = 1 + nf;
                let three = one + 1 + ns;
                v = vec![(0.0, 0.0); 6 + (ns - 1) + 2 * (nf - 1)];
                let (dz, wz) = (d - z, w - z);
                v[0] = (w, dz);
                v[nf] = (wz, d);
                v[one] = (left, d);
                v[one + ns] = (left, -d);
                v[three] = (wz, -d);
                v[three + nf] = (w, -dz);
                let ang = FRAC_PI_2 / nf as f64;
                for i in 0..nf - 1 {
                    let u = (i + 1) as f64 * ang;
                    let (cu, su) = (z * u.cos(), z * u.sin());
                    v[i + 1] = (wz + cu, dz + su);
                    v[i + 1 + three] = (wz + su, -dz - cu);
                }
                for i in 0..ns - 1 {
                    v[1 + one + i] = arc(i + 1);
                }
            } else {
                v = vec![(w, d), (left, d)];
                v.extend((1..ns).map(arc));
                v.push((left, -d));
                v.push((w, -d));
            }
            rotate(&mut v, p.float_or(base + 13, 0.0));
        }
        t => return Err(EvalError::malformed("", format!("section type {t}"))),
    }
    Ok(v)
}

fn rotate(v: &mut [(f64, f64)], angle: f64) {
    if angle != 0.0 {
        let (s, c) = angle.sin_cos();
        for p in v {
            *p = (p.0 * c - p.1 * s, p.0 * s + p.1 * c);
        }
    }
}

pub fn hose_mesh(p: &Params) -> Result<Mesh, EvalError> {
    if p.int_or(0, 1) == 0 {
        return Err(EvalError::not_evaluated("a Hose bound to objects"));
    }
    let length = p.float_or(1, 0.0);
    let segs = count(p, 2, 3)?;
    let smooth = p.int_or(3, 0);
    let ring = section(p, 5)?;
    let n = ring.len();
    check_quads(segs * n)?;
    let mapping = p.flag(19, false);
    let flex = p.flag(20, false);
    let (f1, f2) = (p.float_or(21, 0.1), p.float_or(22, 0.9));
    let cycles = p.int_or(23, 5) as f64;
    let fd = p.float_or(24, -0.2);
    Ok(swept_section(&ring, segs, smooth, mapping, false, |incr| {
        let scale = if flex && incr > f1 && incr < f2 {
            let len = (f2 - f1).max(0.01);
            let here = (incr - f1) / len;
            1.0 + fd * (1.0 - (cycles * here * TAU + FRAC_PI_2).sin())
        } else {
            1.0
        };
        (
            Vec3(0.0, 0.0, length * incr),
            Vec3(scale, 0.0, 0.0),
            Vec3(0.0, scale, 0.0),
        )
    }))
}

/// The Hose's and the Spring's shared layout: `segs + 1` rings of `ring`'s
/// points, ring i placed by `frame(i / segs)` (its centre, then the
/// directions of the section's X and Y), then the start and end centres;
/// faces, smoothing (`smooth`: 0 all, 1 none, 2 sides, 3 segments),
/// materials (start fan 0, sides 1, end fan 2) and mapping as `hose.cpp`
/// writes them. `flipped` winds every face the other way, as `spring.cpp`
/// does for a counter-clockwise spring.
pub(super) fn swept_section(
    ring: &[(f64, f64)],
    segs: usize,
    smooth: i64,
    mapping: bool,
    flipped: bool,
    frame: impl Fn(f64) -> (Vec3, Vec3, Vec3),
) -> Mesh {
    let n = ring.len();
    let nverts = (segs + 1) * n + 2;
    let (last2, last) = (nverts - 2, nverts - 1);
    let mut mesh = Mesh {
        vertices: vec![Vec3::default(); nverts],
        ..Mesh::default()
    };
    let mut tv = vec![[0f32; 3]; if mapping { nverts + segs + 1 } else { 0 }];
    for i in 0..=segs {
        let incr = i as f64 / segs as f64;
        let (centre, x, y) = frame(incr);
        for (j, &(sx, sy)) in ring.iter().enumerate() {
            let k = i * n + j;
            mesh.vertices[k] = centre.plus(x.scale(sx)).plus(y.scale(sy));
            if mapping {
                tv[k] = [(0.999999 * incr) as f32, j as f32 / n as f32, 0.5];
            }
        }
        if mapping {
            tv[nverts + i] = [(0.999999 * incr) as f32, 0.999, 0.0];
        }
        if i == 0 {
            mesh.vertices[last2] = centre;
        } else if i == segs {
            mesh.vertices[last] = centre;
            if mapping {
                tv[last] = [1.0, 1.0, 1.0];
            }
        }
    }
    let cap_group = if smooth == 1 { 0 } else { 1 };
    let side_group = |i: usize, j: usize| match smooth {
        0 => 2,
        2 if j == 0 => 2,
        2 if j.is_multiple_of(2) => 4,
        2 => 8,
        3 if i == 0 => 2,
        3 if i.is_multiple_of(2) => 4,
        3 => 8,
        _ => 0,
    };
    let lastvpr = n - 1;
    let mut tf = Vec::new();
    // Corners (geometry, map) as the Hose writes them, or the flipped order.
    let mut push = |v: [usize; 3], t: [usize; 3], flip: [usize; 3], smoothing, material, flags| {
        let (v, t) = if flipped {
            (flip.map(|c| v[c]), flip.map(|c| t[c]))
        } else {
            (v, t)
        };
        mesh.faces.push(Face {
            v: v.map(|x| x as u32),
            smoothing,
            material,
            flags,
        });
        tf.push(t.map(|x| x as u32));
    };
    for i in 0..n {
        let v1 = i;
        let v2 = if i < lastvpr { v1 + 1 } else { v1 - lastvpr };
        let v5 = if i < lastvpr { v2 } else { nverts };
        push(
            [v2, v1, last2],
            [v5, v1, last2],
            [1, 0, 2],
            cap_group,
            0,
            0b001,
        );
    }
    for i in 0..segs {
        for j in 0..n {
            let v1 = i * n + j;
            let v2 = if j < lastvpr { v1 + 1 } else { v1 - lastvpr };
            let (v3, v4) = (v1 + n, v2 + n);
            let v5 = if j < lastvpr { v2 } else { nverts + i };
            let v6 = if j < lastvpr { v4 } else { nverts + i + 1 };
            let g = side_group(i, j);
            push([v4, v3, v1], [v6, v3, v1], [2, 1, 0], g, 1, 0b011);
            push([v1, v2, v4], [v1, v5, v6], [2, 1, 0], g, 1, 0b011);
        }
    }
    let base = segs * n;
    for i in 0..n {
        let v1 = i + base;
        let v2 = if i < lastvpr { v1 + 1 } else { v1 - lastvpr };
        let v5 = if i < lastvpr { v2 } else { nverts + segs };
        push(
            [v1, v2, last],
            [v1, v5, last],
            [1, 0, 2],
            cap_group,
            2,
            0b001,
        );
    }
    if mapping {
        mesh.maps.push(MapChannel {
            channel: 1,
            vertices: tv,
            faces: tf,
        });
    }
    mesh
}

#[cfg(test)]
mod tests {
    //! Invariants of the stated layout: counts, a closed outward surface of
    //! the section's area times the length, distinct section points.
    use super::*;
    use crate::eval::core::pblock::Value;

    fn params(section: i32, extra: &[(usize, Value)]) -> Params {
        let mut v = vec![
            Value::Int(1),
            Value::Float(10.0),
            Value::Int(4),
            Value::Int(0),
            Value::Int(1),
            Value::Int(section),
            Value::Float(2.0),
            Value::Int(8),
            Value::Float(4.0),
            Value::Float(2.0),
            Value::Float(0.5),
            Value::Int(0),
            Value::Float(0.0),
            Value::Float(4.0),
            Value::Float(2.0),
            Value::Float(0.5),
            Value::Int(0),
            Value::Int(4),
            Value::Float(0.0),
            Value::Int(1),
            Value::Int(0),
            Value::Float(0.1),
            Value::Float(0.9),
            Value::Int(5),
            Value::Float(-0.2),
            Value::Float(100.0),
            Value::Float(100.0),
        ];
        for (i, x) in extra {
            v[*i] = x.clone();
        }
        Params::from_values(v)
    }

    fn area(v: &[(f64, f64)]) -> f64 {
        (0..v.len())
            .map(|i| {
                let (a, b) = (v[i], v[(i + 1) % v.len()]);
                a.0 * b.1 - b.0 * a.1
            })
            .sum::<f64>()
            / 2.0
    }

    #[test]
    fn hose_counts_and_closed_volume_for_every_section() {
        let cases = [
            (params(0, &[]), 8),
            (params(1, &[]), 4),
            (params(1, &[(11, Value::Int(3))]), 8 + 4 * 2),
            (params(2, &[]), 4 + 3),
            (params(2, &[(16, Value::Int(2))]), 6 + 3 + 2),
        ];
        for (p, ring) in cases {
            let s = section(&p, 5).expect("section");
            assert_eq!(s.len(), ring);
            for (i, a) in s.iter().enumerate() {
                for b in &s[i + 1..] {
                    assert!(
                        (a.0 - b.0).abs() + (a.1 - b.1).abs() > 1e-9,
                        "repeated point"
                    );
                }
            }
            let m = hose_mesh(&p).expect("mesh");
            assert_eq!(m.vertices.len(), 5 * ring + 2);
            assert_eq!(m.faces.len(), 2 * ring + 2 * ring * 4);
            assert!(crate::eval::objects::surface_checks::closed(&m));
            let v = crate::eval::objects::surface_checks::signed_volume(&m);
            assert!((v - area(&s) * 10.0).abs() < 1e-9 * v.abs().max(1.0), "{v}");
            assert!(v > 0.0, "outward");
            m.check_map_faces().expect("map faces");
        }
    }

    #[test]
    fn flex_scales_rings_inside_its_range_only() {
        let p = params(
            0,
            &[
                (20, Value::Int(1)),
                (21, Value::Float(0.3)),
                (22, Value::Float(0.8)),
                (23, Value::Int(1)),
                (24, Value::Float(-0.5)),
            ],
        );
        let m = hose_mesh(&p).expect("mesh");
        let r = |i: usize| m.vertices[i * 8].0.hypot(m.vertices[i * 8].1);
        // Rings at 0, 0.25, 0.5, 0.75, 1: 0.5 and 0.75 are inside the range.
        assert!((r(0) - 1.0).abs() < 1e-12 && (r(1) - 1.0).abs() < 1e-12);
        let f = |x: f64| {
            1.0 - 0.5 * (1.0 - (std::f64::consts::TAU * (x - 0.3) / 0.5 + FRAC_PI_2).sin())
        };
        // The stored f32 parameters (0.3, 0.8) leave ~1e-8.
        assert!((r(2) - f(0.5)).abs() < 1e-6 && (r(3) - f(0.75)).abs() < 1e-6);
        assert!((r(4) - 1.0).abs() < 1e-12);
    }
}
