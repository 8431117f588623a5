//! Capsule ((0x6d3d77ac, 0x79c939a9); Extended Primitives), built as the
//! public Max SDK sample `scuba.cpp` builds it (the code here is ours).
//!
//! Old ParamBlock by index: 0 radius, 1 height, 2 height measures the
//! centres (1) or the whole capsule (0), 3 sides (3…200), 4 height segments
//! (1…200), 5 smooth, 6 slice on (refused), 7/8 slice from / to, 9 generate
//! mapping. Max first fixes a height below 2·radius (`FixHeight`).
//!
//! Layout: the top pole (0, 0, h), rings of `sides` points — the top
//! hemisphere's ⌊sides / 2⌋ rings at polar angles k·90° / ⌊sides / 2⌋, the
//! cylinder's height segments, the bottom hemisphere mirrored — each ring
//! from +X counter-clockwise, then the bottom pole (0, 0, 0); a negative
//! height is built upwards and moved down by it. Faces: the top fan
//! (pole, b0, b1), per band (t0, b0, b1) and (t0, b1, t1), the bottom fan
//! (t0, pole, t1); edges AB+BC / BC+CA visible; every face material 0 and
//! smoothing group 3 (4) when smooth. Mapping: the caps projected from
//! above onto the radius' square, the cylinder a (sides + 1) × (segments + 1)
//! grid, with Max's texture face walk.

use super::checked_channel1;
use crate::eval::error::EvalError;
use std::f64::consts::{PI, TAU};

use super::{check_quads, Params};
use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::typed::ClassId;

pub const CAPSULE: ClassId = ClassId(0x6d3d77ac, 0x79c939a9);

/// Max's `DEF_HEIGHT`, added by `FixHeight`.
const DEF_HEIGHT: f64 = 0.01;

/// The height after Max's `FixHeight` and the centres option.
fn height(p: &Params, r: f64) -> f64 {
    let mut h = p.float_or(1, 0.0);
    let centres = p.flag(2, false);
    let r2 = 2.0 * r;
    let minh = if h < 0.0 { -r2 } else { r2 };
    let whole = h.abs() + if centres { r2 } else { 0.0 };
    if whole < r2 {
        h = minh + DEF_HEIGHT;
    } else if whole - r2 <= 0.001 {
        h = whole + DEF_HEIGHT;
    }
    if centres {
        h += if h < 0.0 { -r2 } else { r2 };
    }
    h
}

pub fn capsule_mesh(p: &Params) -> Result<Mesh, EvalError> {
    if p.flag(6, false) {
        return Err(EvalError::not_evaluated("a sliced Capsule"));
    }
    let r = p.float_or(0, 0.0).max(0.0);
    let sides = p.int_or(3, 12).clamp(3, 200) as usize;
    let segments = p.int_or(4, 1).clamp(1, 200) as usize;
    let smooth = p.flag(5, true);
    let h = height(p, r);
    if !(r.is_finite() && h.is_finite()) {
        return Err(EvalError::malformed("", "radius or height is not finite"));
    }
    let capsegs = sides / 2;
    let rincr = PI / (2.0 * capsegs as f64);
    let rings = (1..=capsegs)
        .map(|ix| {
            let a = rincr * ix as f64;
            (r * a.sin(), r * (1.0 - a.cos()))
        })
        .collect();
    let group = if smooth { 4 } else { 0 };
    domed_mesh(&Domed {
        sides,
        segments,
        rings,
        height: h,
        radius: r,
        mapping: p.flag(9, true),
        real_world: None,
        band_group: &|_| group,
        fan_group: group,
    })
}

/// A cylinder with domed ends as Max's Capsule and OilTank lay it out
/// (their `Build…Mesh` share the layout, the face walk and the mapping).
pub(super) struct Domed<'a> {
    pub sides: usize,
    pub segments: usize,
    /// Each dome ring from the pole down to the cylinder's top: its radius
    /// and its depth below the top.
    pub rings: Vec<(f64, f64)>,
    /// Signed: a negative height is built upwards, then moved down.
    pub height: f64,
    /// The radius the caps' planar mapping spans.
    pub radius: f64,
    pub mapping: bool,
    /// The real-world map size's scales, when the builder has the switch
    /// on: the caps' planar mapping in scene units (no division by the
    /// diameter), the side's U over `side_u` and V over `side_v`.
    pub real_world: Option<SideScale>,
    /// Smoothing group of the faces between level `k` and `k + 1` (top fan
    /// and bands), and of the bottom fan.
    pub band_group: &'a dyn Fn(usize) -> u32,
    pub fan_group: u32,
}

/// What the real-world map size multiplies the side's fractions by.
#[derive(Clone, Copy)]
pub(super) struct SideScale {
    pub side_u: f64,
    pub side_v: f64,
}

/// Rings per level and the level of the cylinder's lower edge.
pub(super) fn domed_mesh(d: &Domed) -> Result<Mesh, EvalError> {
    let (segs, llsegs, r) = (d.sides, d.segments, d.radius);
    let mut h = d.height;
    check_quads(segs * (llsegs + 2 * d.rings.len()))?;
    let minush = h < 0.0;
    h = h.abs();
    let sideedge = d.rings.len();
    if sideedge == 0 {
        return Err(EvalError::malformed("", "no dome rings"));
    }
    let totlevels = llsegs + 2 * sideedge + 1;
    let lastlevel = totlevels - 1;
    // First and last vertex of each level (Max's edgelstr / edgelstl).
    let mut first = vec![0usize; totlevels];
    let mut last = vec![0usize; totlevels];
    first[1] = 1;
    last[1] = segs;
    for i in 2..lastlevel {
        first[i] = first[i - 1] + segs;
        last[i] = first[i] + segs - 1;
    }
    first[lastlevel] = last[lastlevel - 1] + 1;
    last[lastlevel] = first[lastlevel];
    let nverts = last[lastlevel] + 1;
    let mut v = vec![Vec3::default(); nverts];
    v[0] = Vec3(0.0, 0.0, h);
    let delta = TAU / segs as f64;
    for jx in 0..segs {
        let (s, c) = (jx as f64 * delta).sin_cos();
        for ix in 1..=sideedge {
            let (ru, depth) = d.rings[ix - 1];
            let z = h - depth;
            v[first[ix] + jx] = Vec3(c * ru, s * ru, z);
            v[first[lastlevel - ix] + jx] = Vec3(c * ru, s * ru, h - z);
        }
    }
    if llsegs > 1 {
        let start = first[sideedge];
        let topd = v[start].2;
        let sincr = (h - 2.0 * (h - topd)) / llsegs as f64;
        for k in 0..segs {
            let p0 = v[start + k];
            for ic in 1..llsegs {
                v[start + k + ic * segs] = Vec3(p0.0, p0.1, topd - sincr * ic as f64);
            }
        }
    }
    // Texture vertices: the top cap's points, the side grid, the bottom cap's.
    let mut tv: Vec<[f32; 3]> = Vec::new();
    if d.mapping {
        let den = if d.real_world.is_some() { 1.0 } else { 2.0 * r };
        let (su, sv) = d.real_world.map_or((1.0, 1.0), |k| (k.side_u, k.side_v));
        let planar = |p: Vec3| {
            if den > 0.0 {
                [((r + p.0) / den) as f32, ((r + p.1) / den) as f32, 0.0]
            } else {
                [0.0; 3]
            }
        };
        for i in 0..=sideedge {
            tv.extend((first[i]..=last[i]).map(|k| planar(v[k])));
        }
        for (hcount, _) in (sideedge..=lastlevel - sideedge).enumerate() {
            let hl = 1.0 - hcount as f64 / llsegs as f64;
            tv.extend((0..=segs).map(|s| {
                [
                    (su * (s as f64 / segs as f64)) as f32,
                    (sv * hl) as f32,
                    0.0,
                ]
            }));
        }
        for i in lastlevel - sideedge..=lastlevel {
            tv.extend((first[i]..=last[i]).map(|k| planar(v[k])));
        }
    }
    // Faces, walking the levels as Max does (its texture counters included).
    let face = |a: usize, b: usize, c: usize, evis: u16, smoothing: u32| Face {
        v: [a as u32, b as u32, c as u32],
        smoothing,
        material: 0,
        flags: if evis == 0 { 0b011 } else { 0b110 },
    };
    let mut faces = Vec::new();
    let mut tf: Vec<[usize; 3]> = Vec::new();
    let (lvert, vseg, lowerside) = (segs, segs + 1, lastlevel - sideedge);
    let (mut tvt0, mut tvt1, mut tvb0, mut tvb1) = (0usize, 0usize, 1usize, 2usize);
    let mut onside = 0;
    for clevel in 0..lastlevel - 1 {
        let mut t0 = first[clevel];
        let mut t1 = t0 + 1;
        let mut b0 = first[clevel + 1];
        let mut b1 = b0 + 1;
        let mut ok = true;
        let mut wrap = false;
        if clevel > 0 && onside == 1 {
            tvt0 += 1;
            tvt1 += 1;
            tvb0 += 1;
            tvb1 += 1;
        }
        if clevel == 1 {
            tvt0 = 1;
            tvt1 = 2;
        }
        if clevel == sideedge {
            tvt1 += lvert;
            tvt0 += lvert;
            tvb0 += vseg;
            tvb1 += vseg;
            onside += 1;
        } else if clevel == lowerside {
            tvt1 += vseg;
            tvt0 += vseg;
            tvb0 += lvert;
            tvb1 += lvert;
            onside += 1;
        }
        while b0 < last[clevel + 1] || ok {
            if b1 == first[clevel + 2] {
                b1 = first[clevel + 1];
                t1 = first[clevel];
                ok = false;
                wrap = onside != 1;
            }
            let tb1 = if wrap { tvb1 - segs } else { tvb1 };
            tf.push([tvt0, tvb0, tb1]);
            faces.push(face(t0, b0, b1, 0, (d.band_group)(clevel)));
            if clevel > 0 {
                let tt1 = if wrap { tvt1 - segs } else { tvt1 };
                tf.push([tvt0, tb1, tt1]);
                tvt0 += 1;
                tvt1 += 1;
                faces.push(face(t0, b1, t1, 1, (d.band_group)(clevel)));
                t0 += 1;
                t1 += 1;
            }
            b0 += 1;
            b1 += 1;
            tvb0 += 1;
            tvb1 += 1;
        }
    }
    let mut t0 = first[lastlevel - 1];
    let mut t1 = t0 + 1;
    let b0 = first[lastlevel];
    if onside == 1 {
        tvt0 += 1;
        tvt1 += 1;
        tvb0 += 1;
    }
    if sideedge == 1 {
        tvt1 += vseg;
        tvt0 += vseg;
        tvb0 += lvert;
    }
    while t0 < last[lastlevel] {
        if t1 == first[lastlevel] {
            t1 = first[lastlevel - 1];
            tvt1 -= segs;
        }
        tf.push([tvt0, tvb0, tvt1]);
        tvt0 += 1;
        tvt1 += 1;
        faces.push(face(t0, b0, t1, 1, d.fan_group));
        t0 += 1;
        t1 += 1;
    }
    if minush {
        for p in &mut v {
            p.2 -= h;
        }
    }
    let mut mesh = Mesh {
        vertices: v,
        faces,
        ..Mesh::default()
    };
    if d.mapping {
        mesh.maps.push(checked_channel1(tv, tf)?);
    }
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    //! Invariants of the stated layout: Max's own counts (vertices
    //! 2 + sides·(2⌊sides/2⌋ + segments − 1), faces
    //! 2·sides·(segments + 2⌊sides/2⌋ − 1)), a closed outward surface
    //! between the poles, the hemispheres on the radius, valid map faces.
    use super::*;
    use crate::eval::core::pblock::Value;
    use crate::eval::objects::surface_checks::{closed, signed_volume};

    fn params(radius: f32, height: f32, centres: i32, sides: i32, segs: i32) -> Params {
        Params::from_values(vec![
            Value::Float(radius),
            Value::Float(height),
            Value::Int(centres),
            Value::Int(sides),
            Value::Int(segs),
            Value::Int(1),
            Value::Int(0),
            Value::Float(0.0),
            Value::Float(0.0),
            Value::Int(1),
        ])
    }

    #[test]
    fn capsule_counts_shape_and_mapping() {
        for (sides, segs) in [(12, 1), (12, 3), (7, 2), (3, 1), (24, 5)] {
            let m = capsule_mesh(&params(2.0, 10.0, 0, sides, segs)).expect("mesh");
            let (s, l, c) = (sides as usize, segs as usize, sides as usize / 2);
            assert_eq!(m.vertices.len(), 2 + s * (2 * c + l - 1), "{sides}/{segs}");
            assert_eq!(m.faces.len(), 2 * s * (l + 2 * c - 1));
            assert!(closed(&m), "{sides}/{segs}: closed");
            let v = signed_volume(&m);
            // Below the true capsule's π r² (h − 2r) + 4/3 π r³; above the
            // cylinder part of the inscribed prism (its polygon's area).
            let full = PI * 4.0 * 6.0 + 4.0 / 3.0 * PI * 8.0;
            let polygon = s as f64 / 2.0 * 4.0 * (TAU / s as f64).sin();
            assert!(v > polygon * 6.0 && v < full, "{sides}/{segs}: volume {v}");
            let top = m.vertices.iter().map(|p| p.2).fold(f64::MIN, f64::max);
            let bottom = m.vertices.iter().map(|p| p.2).fold(f64::MAX, f64::min);
            assert_eq!((top, bottom), (10.0, 0.0));
            // Hemisphere points on the radius from their centre.
            for p in &m.vertices {
                let centre = p.2.clamp(2.0, 8.0);
                let d = (p.0 * p.0 + p.1 * p.1 + (p.2 - centre).powi(2)).sqrt();
                assert!(
                    (d - 2.0).abs() < 1e-9 || (p.0 == 0.0 && p.1 == 0.0),
                    "{p:?}"
                );
            }
            m.check_map_faces().expect("map faces");
        }
    }

    #[test]
    fn centres_height_and_max_height_fix() {
        let m = capsule_mesh(&params(2.0, 6.0, 1, 8, 1)).expect("mesh");
        let top = m.vertices.iter().map(|p| p.2).fold(f64::MIN, f64::max);
        assert_eq!(top, 10.0, "centres 6 apart: 6 + 2r overall");
        // A height under 2r is raised to 2r + 0.01 as Max's FixHeight does.
        let m = capsule_mesh(&params(2.0, 1.0, 0, 8, 1)).expect("mesh");
        let top = m.vertices.iter().map(|p| p.2).fold(f64::MIN, f64::max);
        assert!((top - 4.01).abs() < 1e-9, "{top}");
        let m = capsule_mesh(&params(2.0, -10.0, 0, 8, 1)).expect("mesh");
        assert!(m.vertices.iter().all(|p| p.2 <= 0.0 && p.2 >= -10.0));
        assert!(closed(&m));
        assert!(capsule_mesh(&Params::from_values(vec![
            Value::Float(1.0),
            Value::Float(5.0),
            Value::Int(0),
            Value::Int(8),
            Value::Int(1),
            Value::Int(1),
            Value::Int(1),
        ]))
        .is_err());
    }
}
