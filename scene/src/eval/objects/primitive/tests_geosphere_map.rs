//! GeoSphere's generated mapping against the invariants of a spherical map
//! (no export of a GeoSphere exists to compare with): every corner's v is its
//! latitude, its u its azimuth (seam on −x) up to a whole turn, no face spans
//! more than half the map, the map is not folded (every sphere face keeps
//! the orientation it has on the sphere) and covers the unit square once
//! (area → 1 less the pole triangles, a hemisphere's cap → ½), the vertices of faces across the seam
//! get a copy one turn lower, a pole corner takes its face's mean u, the flat base of a
//! hemisphere lies on v = ½, and base to pivot does not move the map.

use super::*;

use std::collections::HashMap;
use std::f64::consts::{PI, TAU};

fn geo(segs: i32, kind: i32, hemi: bool, pivot: bool, mapping: bool) -> Params {
    Params::from_values(vec![
        Value::Float(5.0),
        Value::Int(segs),
        Value::Int(kind),
        Value::Bool(hemi),
        Value::Bool(true),
        Value::Bool(pivot),
        Value::Bool(mapping),
    ])
}

fn on_axis(p: &Vec3) -> bool {
    p.0.hypot(p.1) < 1e-6
}

/// Whether a face's projection on the xy plane holds the z axis strictly
/// inside: it spans every azimuth (the tetrahedron's south pole is not a
/// vertex unless the segments are a multiple of 3), so no u range fits it.
fn wraps_axis(p: [Vec3; 3]) -> bool {
    let c = |a: Vec3, b: Vec3| a.0 * b.1 - a.1 * b.0;
    let s = [c(p[0], p[1]), c(p[1], p[2]), c(p[2], p[0])];
    s.iter().all(|&x| x > 1e-9) || s.iter().all(|&x| x < -1e-9)
}

/// The signed area of a map face in (u, v).
fn uv_area(t: [[f32; 3]; 3]) -> f64 {
    let d = |a: usize| {
        (
            t[a][0] as f64 - t[0][0] as f64,
            t[a][1] as f64 - t[0][1] as f64,
        )
    };
    let (b, c) = (d(1), d(2));
    0.5 * (b.0 * c.1 - b.1 * c.0)
}

#[test]
fn geosphere_mapping_is_spherical() {
    for kind in 0..3 {
        for hemi in [false, true] {
            for segs in [1, 2, 3, 4, 8] {
                let m = geosphere_mesh(&geo(segs, kind, hemi, false, true)).expect("geosphere");
                let what = format!("base {kind} hemi {hemi} segs {segs}");
                assert_eq!(m.maps.len(), 1, "{what}");
                let ch = &m.maps[0];
                assert_eq!(ch.channel, 1);
                assert_eq!(ch.faces.len(), m.faces.len(), "{what}");
                let sphere_faces = if hemi {
                    [3, 4, 40][kind as usize] * (segs * segs) as usize
                } else {
                    m.faces.len()
                };
                let mut area = 0.0;
                let mut us: HashMap<u32, Vec<f64>> = HashMap::new();
                for (fi, (f, tf)) in m.faces.iter().zip(&ch.faces).enumerate() {
                    let t = tf.map(|k| ch.vertices[k as usize]);
                    let wraps = wraps_axis(f.v.map(|k| m.vertices[k as usize]));
                    let mut off = Vec::new();
                    for (&vi, tk) in f.v.iter().zip(&t) {
                        let p = m.vertices[vi as usize];
                        let r = p.len();
                        let (u, v) = (tk[0] as f64, tk[1] as f64);
                        let lat = if r > 0.0 {
                            (p.2 / r).asin() / PI + 0.5
                        } else {
                            0.5
                        };
                        assert!((v - lat).abs() < 1e-6, "{what}: v {v} at latitude {lat}");
                        assert_eq!(tk[2], 0.0);
                        if !on_axis(&p) {
                            let az = p.1.atan2(p.0) / TAU + 0.5;
                            let turns = u - az;
                            assert!(
                                (turns - turns.round()).abs() < 1e-6
                                    && (-1.0..=0.0).contains(&turns.round()),
                                "{what}: u {u} at azimuth {az}"
                            );
                            off.push(u);
                            us.entry(vi).or_default().push(u);
                        }
                    }
                    let (lo, hi) = off
                        .iter()
                        .fold((f64::MAX, f64::MIN), |(lo, hi), &u| (lo.min(u), hi.max(u)));
                    assert!(
                        wraps || hi - lo < 0.5,
                        "{what}: face {fi} spans u {lo}…{hi}"
                    );
                    // A pole (or the base's centre) takes the mean u of the others.
                    if off.len() < 3 {
                        let mean = off.iter().sum::<f64>() / off.len().max(1) as f64;
                        for (&vi, tk) in f.v.iter().zip(&t) {
                            if on_axis(&m.vertices[vi as usize]) && !off.is_empty() {
                                assert!((tk[0] as f64 - mean).abs() < 1e-6, "{what}: pole u");
                            }
                        }
                    }
                    let a = uv_area(t);
                    if wraps {
                        continue;
                    }
                    if fi < sphere_faces {
                        assert!(a > 0.0, "{what}: face {fi} folded in the map ({a})");
                        area += a;
                    } else {
                        assert!(t.iter().all(|c| c[1] == 0.5), "{what}: base off v = ½");
                    }
                }
                let full = if hemi { 0.5 } else { 1.0 };
                assert!(area <= full + 1e-6, "{what}: area {area}");
                // (The tetrahedron's south pole inside a face stretches the
                // faces around it: its map is not near the whole square.)
                if segs == 8 && kind > 0 {
                    assert!(area > 0.9 * full, "{what}: area {area}");
                }
                // A vertex of a face across the seam has a copy one turn lower
                // (u − 1); no other split.
                for (v, list) in &us {
                    let (lo, hi) = list
                        .iter()
                        .fold((f64::MAX, f64::MIN), |(lo, hi), &u| (lo.min(u), hi.max(u)));
                    assert!(
                        hi - lo < 1e-6 || (hi - lo - 1.0).abs() < 1e-6,
                        "{what}: vertex {v} u {list:?}"
                    );
                }
                // Each distinct (vertex, uvw) is one texture vertex.
                let mut seen = HashMap::new();
                for (f, tf) in m.faces.iter().zip(&ch.faces) {
                    for (&vi, &ti) in f.v.iter().zip(tf) {
                        let key = (vi, ch.vertices[ti as usize].map(f32::to_bits));
                        assert_eq!(*seen.entry(key).or_insert(ti), ti);
                    }
                }
                assert_eq!(seen.len(), ch.vertices.len());
            }
        }
    }
}

#[test]
fn geosphere_seam_split_and_pivot() {
    // The icosahedron's lower corner 8 lies on −x: the seam. With 2 segments
    // the meridian through it carries edge vertices too.
    let m = geosphere_mesh(&geo(2, 2, false, false, true)).expect("geosphere");
    let p = m.vertices[8];
    assert!(p.0 < 0.0 && p.1.abs() < 1e-6);
    let ch = &m.maps[0];
    let mut at8: Vec<[f32; 3]> = m
        .faces
        .iter()
        .zip(&ch.faces)
        .flat_map(|(f, tf)| (0..3).filter(move |&k| f.v[k] == 8).map(move |k| tf[k]))
        .map(|t| ch.vertices[t as usize])
        .collect();
    at8.sort_by(|a, b| a[0].total_cmp(&b[0]));
    at8.dedup();
    assert_eq!(at8.len(), 2, "{at8:?}");
    assert!((at8[1][0] - at8[0][0] - 1.0).abs() < 1e-6);
    // Five faces meet at each pole: five pole copies, each centred on its
    // face.
    let poles = ch
        .faces
        .iter()
        .zip(&m.faces)
        .flat_map(|(tf, f)| (0..3).filter(move |&k| f.v[k] == 0).map(move |k| tf[k]))
        .collect::<std::collections::HashSet<_>>();
    assert_eq!(poles.len(), 5);
    // Base to pivot lifts the mesh after mapping: the same map.
    for kind in 0..3 {
        let a = geosphere_mesh(&geo(4, kind, false, false, true)).expect("geosphere");
        let b = geosphere_mesh(&geo(4, kind, false, true, true)).expect("geosphere");
        assert_eq!(a.maps, b.maps);
        assert!(b.vertices.iter().all(|p| p.2 >= -1e-9));
    }
    // Without "Generate Mapping Coords", no channel.
    let m = geosphere_mesh(&geo(4, 2, false, false, false)).expect("geosphere");
    assert!(m.maps.is_empty());
}

/// gsphere.cpp with the real-world map size on tiles the same spherical map
/// by 2π·radius in U and π·radius in V: every texture vertex is the switch-off
/// one times those, and the geometry and texture faces are unchanged.
#[test]
fn real_world_geosphere_tiles_by_its_circumference() {
    for (kind, hemi) in [(0, false), (2, false), (2, true)] {
        let plain = geosphere_mesh(&geo(4, kind, hemi, false, true)).expect("geosphere");
        let m =
            geosphere_mesh(&geo(4, kind, hemi, false, true).with_real_world()).expect("geosphere");
        assert_eq!((&m.vertices, &m.faces), (&plain.vertices, &plain.faces));
        let (a, b) = (&plain.maps[0], &m.maps[0]);
        assert_eq!(a.faces, b.faces);
        let u = (TAU * 5.0) as f32;
        for (p, q) in a.vertices.iter().zip(&b.vertices) {
            assert!((p[0] * u - q[0]).abs() < 1e-4, "{p:?} {q:?}");
            assert!((p[1] * u / 2.0 - q[1]).abs() < 1e-4, "{p:?} {q:?}");
        }
        let top = b.vertices.iter().map(|t| t[1]).fold(f32::MIN, f32::max);
        assert!(
            (f64::from(top) - PI * 5.0).abs() < 1e-3,
            "v reaches π·r ({top})"
        );
    }
}
