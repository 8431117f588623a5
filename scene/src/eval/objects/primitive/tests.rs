//! Counts and layouts against Max's own numbers.

use super::*;
use crate::eval::objects::surface_checks::{closed, signed_volume};

#[test]
fn counts_follow_max() {
    // Max's default 32-segment sphere has 482 vertices and 960 faces.
    let p = Params::from_values(vec![Value::Float(10.0), Value::Int(32), Value::Int(1)]);
    let s = sphere_mesh(&p).expect("sphere");
    assert_eq!((s.vertices.len(), s.faces.len()), (482, 960));
    // A 2×3×4-segment box: 2·(2·3) + 2·(3·4) + 2·(2·4) quads.
    let b = Params::from_values(vec![
        Value::Float(3.0),
        Value::Float(2.0),
        Value::Float(4.0),
        Value::Int(2),
        Value::Int(3),
        Value::Int(4),
    ]);
    let m = box_mesh(&b).expect("box");
    assert_eq!(m.faces.len(), 2 * (2 * (6 + 12 + 8)));
    // Every vertex is used and every face index is in range.
    let mut used = vec![false; m.vertices.len()];
    m.faces
        .iter()
        .flat_map(|f| f.v)
        .for_each(|i| used[i as usize] = true);
    assert!(used.iter().all(|&u| u));
    assert!(sphere_mesh(&Params::from_values(vec![
        Value::Float(1.0),
        Value::Int(100_000)
    ]))
    .is_err());
}

/// Sphere parameters: radius 10, `segs`, smooth, hemisphere, squash, base to
/// pivot, mapping on, slice off.
fn sphere(segs: i32, hemi: f32, squash: bool, pivot: bool) -> Mesh {
    let p = Params::from_values(vec![
        Value::Float(10.0),
        Value::Int(segs),
        Value::Bool(true),
        Value::Float(hemi),
        Value::Int(i32::from(squash)),
        Value::Bool(pivot),
        Value::Bool(true),
        Value::Bool(false),
    ]);
    sphere_mesh(&p).expect("sphere")
}

fn on_sphere(p: Vec3, centre_z: f64) -> bool {
    (Vec3(p.0, p.1, p.2 - centre_z).len() - 10.0).abs() < 1e-9
}

#[test]
fn whole_sphere_with_odd_segments() {
    // segs/2 − 1 = 3 rings of 9, 2π/9 apart from the pole.
    let m = sphere(9, 0.0, false, false);
    assert_eq!((m.vertices.len(), m.faces.len()), (3 * 9 + 2, 2 * 3 * 9));
    assert!(m.vertices.iter().all(|&p| on_sphere(p, 0.0)));
    for ring in 1..=3 {
        let z = m.vertices[1 + (ring - 1) * 9].2;
        let expect = 10.0 * (2.0 * std::f64::consts::PI * ring as f64 / 9.0).cos();
        assert!((z - expect).abs() < 1e-9, "ring {ring}: {z}");
    }
    assert!(closed(&m) && signed_volume(&m) > 0.0);
    assert_eq!(m.maps[0].faces.len(), m.faces.len());
}

#[test]
fn hemisphere_cut_and_cap() {
    // Keeping 60% of the height cuts at 0.6π from the pole: rings every π/8
    // up to 0.5π, then the cut ring; the cap is material 0, group 2.
    let m = sphere(16, 0.4, false, false);
    let rows = 5;
    assert_eq!(
        (m.vertices.len(), m.faces.len()),
        (rows * 16 + 2, 2 * rows * 16)
    );
    let cut_z = 10.0 * (0.6 * std::f64::consts::PI).cos();
    let (centre, rings) = m.vertices.split_last().expect("vertices");
    assert!((centre.2 - cut_z).abs() < 1e-6 && centre.0 == 0.0 && centre.1 == 0.0);
    assert!(rings.iter().all(|&p| on_sphere(p, 0.0)));
    assert!(rings[rings.len() - 16..]
        .iter()
        .all(|p| (p.2 - cut_z).abs() < 1e-6));
    let min_z = m.vertices.iter().map(|p| p.2).fold(f64::MAX, f64::min);
    assert!((min_z - cut_z).abs() < 1e-6);
    let cap = &m.faces[m.faces.len() - 16..];
    assert!(cap.iter().all(|f| f.material == 0 && f.smoothing == 2));
    assert!(m.faces[..m.faces.len() - 16]
        .iter()
        .all(|f| f.material == 1 && f.smoothing == 1));
    assert!(closed(&m) && signed_volume(&m) > 0.0);
    // Max's count when the cut falls on a ring: int(0.5π / (π/8)) + 1 = 5
    // rings, the last two at the same height.
    let half = sphere(16, 0.5, false, false);
    assert_eq!(half.vertices.len(), 5 * 16 + 2);
    assert!((half.vertices[1 + 3 * 16].2 - half.vertices[1 + 4 * 16].2).abs() < 1e-6);
}

#[test]
fn squashed_hemisphere_and_base_to_pivot() {
    // Squash spreads segs/2 − 1 = 7 rings over the kept half: the last on z = 0.
    let m = sphere(16, 0.5, true, false);
    assert_eq!((m.vertices.len(), m.faces.len()), (7 * 16 + 2, 2 * 7 * 16));
    let (centre, rings) = m.vertices.split_last().expect("vertices");
    assert!(rings.iter().all(|&p| on_sphere(p, 0.0)));
    assert!(centre.2.abs() < 1e-6);
    assert!(rings[rings.len() - 16..].iter().all(|p| p.2.abs() < 1e-6));
    assert!(closed(&m) && signed_volume(&m) > 0.0);
    // Base to pivot puts the cut on z = 0 and the pole above it.
    let lifted = sphere(16, 0.4, false, true);
    // The cut as Max computes it from the stored (single-precision) fraction.
    let shift = -10.0 * ((1.0 - f64::from(0.4f32)) * std::f64::consts::PI).cos();
    let min_z = lifted.vertices.iter().map(|p| p.2).fold(f64::MAX, f64::min);
    assert!(min_z.abs() < 1e-6, "{min_z}");
    assert!((lifted.vertices[0].2 - (10.0 + shift)).abs() < 1e-6);
    assert!(lifted.vertices[..lifted.vertices.len() - 1]
        .iter()
        .all(|&p| on_sphere(p, shift)));
    // A whole sphere rests on its south pole.
    let whole = sphere(16, 0.0, false, true);
    assert!(whole.vertices.iter().all(|&p| on_sphere(p, 10.0)));
}

#[test]
fn negative_height_box_stays_outward() {
    let boxp = |h: f32| {
        Params::from_values(vec![
            Value::Float(10.0),
            Value::Float(20.0),
            Value::Float(h),
            Value::Int(2),
            Value::Int(1),
            Value::Int(3),
            Value::Bool(true),
        ])
    };
    let up = box_mesh(&boxp(5.0)).expect("box");
    let down = box_mesh(&boxp(-5.0)).expect("box");
    assert!(closed(&up) && closed(&down));
    assert!((signed_volume(&up) - 1000.0).abs() < 1e-6);
    assert!((signed_volume(&down) - 1000.0).abs() < 1e-6);
    // Same faces turned over (corners 1 and 2). The mapping (per vertex,
    // checked against the FBX in eval_fbx_uv.rs) keeps one face per face.
    for (a, b) in up.faces.iter().zip(&down.faces) {
        assert_eq!([a.v[0], a.v[2], a.v[1]], b.v);
    }
    assert_eq!(down.maps[0].faces.len(), down.faces.len());
}

/// Cone parameters: radii 10 and `r2`, `height`, 4 height segments, `caps`
/// cap segments, 8 sides, smooth, no slice, mapping on.
fn cone(r2: f32, height: f32, caps: i32) -> Mesh {
    let p = Params::from_values(vec![
        Value::Float(10.0),
        Value::Float(r2),
        Value::Float(height),
        Value::Int(4),
        Value::Int(caps),
        Value::Int(8),
        Value::Bool(true),
        Value::Bool(false),
        Value::Float(0.0),
        Value::Float(0.0),
        Value::Bool(true),
    ]);
    cylinder_mesh(&p, true).expect("cone")
}

#[test]
fn cap_segments_and_negative_height() {
    for (height, caps) in [(20.0f32, 3usize), (-20.0, 1), (-20.0, 2)] {
        let m = cone(5.0, height, caps as i32);
        let h = f64::from(height);
        // Rings: caps on each cap (rims included) and 3 between.
        let rings = 3 + 2 * caps;
        assert_eq!(
            (m.vertices.len(), m.faces.len()),
            (2 + 8 * rings, 2 * 8 * rings),
            "{height} {caps}"
        );
        assert!(closed(&m), "{height} {caps}");
        assert!(
            signed_volume(&m) > 0.0,
            "{height} {caps}: faces point inward"
        );
        for p in &m.vertices {
            let r = (p.0 * p.0 + p.1 * p.1).sqrt();
            let on_cap = p.2 == 0.0 || p.2 == h;
            let on_side = (r - (10.0 - 5.0 * p.2 / h)).abs() < 1e-9;
            assert!(on_cap || on_side, "{height} {caps}: {p:?}");
        }
        // Cap rings at radius i/caps of the rim.
        for i in 1..=caps {
            let ring = m.vertices[1 + (i - 1) * 8];
            assert!((ring.0 - 10.0 * i as f64 / caps as f64).abs() < 1e-9);
        }
        let sides = m.faces.iter().filter(|f| f.material == 2).count();
        assert_eq!(sides, 2 * 8 * 4);
        assert!(m
            .faces
            .iter()
            .all(|f| (f.material == 2) == (f.smoothing == 0x08)));
        assert_eq!(m.maps[0].faces.len(), m.faces.len());
    }
}

#[test]
fn a_negative_cone_radius_builds_as_zero() {
    // cone.cpp limits both radii to [0, 1e30] before building: a top radius
    // saved below 0 gives the pointed cone Max shows, not a flared one.
    for height in [20.0f32, -20.0] {
        let pointed = cone(0.0, height, 1);
        let negative = cone(-5.75, height, 1);
        assert_eq!(negative.vertices, pointed.vertices, "{height}");
        assert_eq!(negative.faces, pointed.faces, "{height}");
        let h = f64::from(height);
        assert!(negative
            .vertices
            .iter()
            .filter(|p| p.2 == h)
            .all(|p| p.0 == 0.0 && p.1 == 0.0));
    }
}

#[test]
fn sliced_cylinders_and_cones() {
    // A cone sliced from 270° (from) to 30° (to): 240° swept anticlockwise
    // from 30°, in 8 sides of 30°.
    let (from, to) = (270f32.to_radians(), 30f32.to_radians());
    for (height, caps) in [(20.0f32, 1usize), (20.0, 2), (-20.0, 1)] {
        let p = Params::from_values(vec![
            Value::Float(10.0),
            Value::Float(5.0),
            Value::Float(height),
            Value::Int(4),
            Value::Int(caps as i32),
            Value::Int(8),
            Value::Bool(true),
            Value::Bool(true),
            Value::Float(from),
            Value::Float(to),
            Value::Bool(true),
        ]);
        let m = cylinder_mesh(&p, true).expect("sliced cone");
        let rings = 3 + 2 * caps;
        // Max's counts: (sides + 2) vertices per ring (centre included);
        // two fans of `sides` and (sides + 2) quads per band.
        assert_eq!(
            (m.vertices.len(), m.faces.len()),
            (rings * 10, 2 * 8 + 2 * 10 * (rings - 1)),
            "{height} {caps}"
        );
        assert!(closed(&m), "{height} {caps}");
        assert!(signed_volume(&m) > 0.0, "{height} {caps}: inward");
        // The rim's first and last vertices lie on the cut directions.
        let (first, last) = if height > 0.0 { (to, from) } else { (from, to) };
        let rim = &m.vertices[1 + 10 * (caps - 1)..];
        let dir = |p: Vec3| p.1.atan2(p.0).rem_euclid(std::f64::consts::TAU);
        assert!((dir(rim[0]) - f64::from(first)).abs() < 1e-6, "{height}");
        assert!((dir(rim[8]) - f64::from(last)).abs() < 1e-6, "{height}");
        // Every vertex lies inside the swept sector (or on the axis).
        for p in &m.vertices {
            if p.0.hypot(p.1) > 1e-9 {
                let a = (dir(*p) - f64::from(to)).rem_euclid(std::f64::consts::TAU);
                assert!(a <= f64::from(from - to) + 1e-6, "{p:?}");
            }
        }
        // The cut faces are planar: on the plane of the axis and their edge.
        for (material, angle) in [(3u16, first), (4, last)] {
            let (s, c) = f64::from(angle).sin_cos();
            let cut: Vec<&Face> = m.faces.iter().filter(|f| f.material == material).collect();
            assert_eq!(cut.len(), 2 * (rings - 1));
            for f in cut {
                for i in f.v {
                    let p = m.vertices[i as usize];
                    assert!((p.0 * s - p.1 * c).abs() < 1e-9, "{material}: {p:?}");
                }
            }
        }
        assert_eq!(m.maps[0].faces.len(), m.faces.len());
    }
}

#[test]
fn sliced_spheres() {
    // 12 segments sliced from 200° (from) to 20° (to): 180° swept from +Y + 20°.
    let (from, to) = (200f32.to_radians(), 20f32.to_radians());
    for hemi in [0.0f32, 0.3] {
        let p = Params::from_values(vec![
            Value::Float(10.0),
            Value::Int(12),
            Value::Bool(true),
            Value::Float(hemi),
            Value::Int(0),
            Value::Bool(false),
            Value::Bool(true),
            Value::Bool(true),
            Value::Float(from),
            Value::Float(to),
        ]);
        let m = sphere_mesh(&p).expect("sliced sphere");
        // Max's counts: rows × (segs + 2) + 2 vertices and 2·rows·(segs + 2)
        // faces, one vertex and two faces fewer for a hemisphere.
        // 12 segments: 5 rings; cutting 30% off at 0.7π still needs 5.
        let rows = 5;
        let less = usize::from(hemi != 0.0);
        assert_eq!(
            (m.vertices.len(), m.faces.len()),
            (rows * 14 + 2 - less, 2 * rows * 14 - 2 * less),
            "{hemi}"
        );
        assert!(closed(&m), "{hemi}");
        assert!(signed_volume(&m) > 0.0, "{hemi}: inward");
        let start = std::f64::consts::FRAC_PI_2 + f64::from(to);
        let sweep = f64::from(from) - f64::from(to);
        for q in &m.vertices {
            let r = q.0.hypot(q.1);
            if r > 1e-9 {
                assert!(on_sphere(*q, 0.0), "{q:?}");
                let a = (q.1.atan2(q.0) - start).rem_euclid(std::f64::consts::TAU);
                assert!(a <= sweep + 1e-6, "{hemi}: {q:?} outside the slice");
            }
        }
        // The cut faces lie on the planes of the axis and the cut directions.
        for (material, angle) in [(2u16, start + sweep), (3, start)] {
            let (s, c) = angle.sin_cos();
            let cut: Vec<&Face> = m.faces.iter().filter(|f| f.material == material).collect();
            assert!(!cut.is_empty());
            for f in cut {
                for i in f.v {
                    let q = m.vertices[i as usize];
                    assert!((q.0 * s - q.1 * c).abs() < 1e-9, "{material}: {q:?}");
                }
            }
        }
        let map = &m.maps[0];
        assert_eq!(map.faces.len(), m.faces.len());
        assert!(map
            .faces
            .iter()
            .flatten()
            .all(|&i| (i as usize) < map.vertices.len()));
    }
}

#[test]
fn cylinder_and_cone_topology_and_mapping() {
    // Barrel.max's cylinder: radius, height, 3 height segments, 1 cap segment, 12 sides.
    let p = Params::from_values(vec![
        Value::Float(11.0),
        Value::Float(36.0),
        Value::Int(3),
        Value::Int(1),
        Value::Int(12),
        Value::Int(1),
        Value::Int(0),
        Value::Float(0.0),
        Value::Float(0.0),
        Value::Int(1),
    ]);
    let m = cylinder_mesh(&p, false).expect("cylinder");
    assert_eq!(
        (m.vertices.len(), m.faces.len()),
        (2 + 4 * 12, 12 + 2 * 3 * 12 + 12)
    );
    let map = &m.maps[0];
    assert_eq!(map.faces.len(), m.faces.len());
    // Every segment spans 1/12 in U, the seam segment included.
    for (f, tf) in m.faces.iter().zip(&map.faces).skip(12).take(72) {
        let us: Vec<f32> = tf.iter().map(|&i| map.vertices[i as usize][0]).collect();
        let span = us.iter().cloned().fold(f32::MIN, f32::max)
            - us.iter().cloned().fold(f32::MAX, f32::min);
        assert!((span - 1.0 / 12.0).abs() < 1e-5, "{f:?}: {us:?}");
    }
    // Damaged segment counts are refused, not allocated.
    let b = Params::from_values(vec![
        Value::Float(1.0),
        Value::Float(1.0),
        Value::Float(1.0),
        Value::Int(1000),
        Value::Int(1000),
        Value::Int(1000),
    ]);
    assert!(box_mesh(&b).is_err());
}

/// A 10 × 6 × 4 Pyramid with `segs` segments along each size.
fn pyramid_10_6_4(segs: i32) -> Params {
    Params::from_values(vec![
        Value::Float(10.0),
        Value::Float(6.0),
        Value::Float(4.0),
        Value::Int(segs),
        Value::Int(segs),
        Value::Int(segs),
    ])
}

/// quadrotor.max (sixth sweep): four Pyramids of 10 × 10 × 10 segments. Max's
/// Mesh Totals of the file (4,134 vertices, 8,132 faces) less its other 23
/// meshes (2,526 and 4,932, all evaluated) leave 402 vertices and 800 faces
/// each, the SDK sample's 2·(w+d)·h + 2 and 4·(w+d)·h.
#[test]
fn a_segmented_pyramid_has_max_s_counts_and_surface() {
    let p = pyramid_10_6_4(10);
    let m = pyramid_mesh(&p).expect("pyramid");
    assert_eq!((m.vertices.len(), m.faces.len()), (402, 800));
    // Apex first, base centre last, the last ring on the base's outline.
    assert_eq!(m.vertices[0], Vec3(0.0, 0.0, 4.0));
    assert_eq!(m.vertices[401], Vec3::default());
    for q in &m.vertices[361..401] {
        assert!(q.2.abs() < 1e-12);
        assert!(
            (q.0.abs() - 5.0).abs() < 1e-9 || (q.1.abs() - 3.0).abs() < 1e-9,
            "{q:?}"
        );
    }
    // Every side face lies in its side's plane, outward.
    for f in &m.faces[..760] {
        let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
        let n = (b.0 - a.0, b.1 - a.1, b.2 - a.2);
        let e = (c.0 - a.0, c.1 - a.1, c.2 - a.2);
        let cross = (
            n.1 * e.2 - n.2 * e.1,
            n.2 * e.0 - n.0 * e.2,
            n.0 * e.1 - n.1 * e.0,
        );
        let centroid = ((a.0 + b.0 + c.0) / 3.0, (a.1 + b.1 + c.1) / 3.0);
        assert!(cross.0 * centroid.0 + cross.1 * centroid.1 > 0.0, "{f:?}");
        assert!(cross.2 > 0.0);
    }
    // The base faces look down.
    for f in &m.faces[760..] {
        let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
        let z = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0);
        assert!(z < 0.0, "{f:?}");
    }
    // One segment each is the former five-vertex pyramid.
    let one = pyramid_10_6_4(1);
    let m = pyramid_mesh(&one).expect("pyramid");
    assert_eq!((m.vertices.len(), m.faces.len()), (6, 8));
    assert_eq!(m.faces[0].v, [0, 1, 2]);
    assert_eq!(m.faces[7].v, [4, 5, 1]);
}

/// `pyramid.cpp`'s mapping written out per corner for a 10 × 6 × 4 pyramid of
/// one segment (faces −Y, +X, +Y, −X, then the base): the depth sides measure
/// U from the half *width*, 1 − (5 − y)/6, so they run from −1/3 to 2/3; with
/// the real-world map size every coordinate scales by its side's size and the
/// base centre's by (width, height).
#[test]
fn pyramid_map_follows_the_sample_also_when_width_and_depth_differ() {
    let (w, d, h) = (10.0f64, 6.0f64, 4.0f64);
    let side_u = |side: usize, x: f64, y: f64| match side {
        0 => 1.0 - (w / 2.0 - x) / w,
        1 => 1.0 - (w / 2.0 - y) / d,
        2 => 1.0 - (w / 2.0 + x) / w,
        _ => 1.0 - (w / 2.0 + y) / d,
    };
    for real in [false, true] {
        let p = pyramid_10_6_4(1);
        let p = if real { p.with_real_world() } else { p };
        let m = pyramid_mesh(&p).expect("pyramid");
        let ch = &m.maps[0];
        for (fi, (f, tf)) in m.faces.iter().zip(&ch.faces).enumerate() {
            for (k, (&vi, &ti)) in f.v.iter().zip(tf).enumerate() {
                let q = m.vertices[vi as usize];
                let t = ch.vertices[ti as usize];
                let scale = |s: f64| if real { s } else { 1.0 };
                let want = if fi < 4 {
                    let size = if fi % 2 == 0 { w } else { d };
                    if vi == 0 {
                        [scale(size) / 2.0, scale(h)]
                    } else {
                        [scale(size) * side_u(fi, q.0, q.1), scale(h) * q.2 / h]
                    }
                } else if vi == 5 {
                    [scale(w) / 2.0, scale(h) / 2.0]
                } else {
                    [scale(w) * (0.5 + q.0 / w), scale(d) * (0.5 - q.1 / d)]
                };
                assert!(
                    (f64::from(t[0]) - want[0]).abs() < 1e-5
                        && (f64::from(t[1]) - want[1]).abs() < 1e-5,
                    "real {real} face {fi} corner {k} at {q:?}: {t:?}, want {want:?}"
                );
            }
        }
    }
}

/// `cyl.cpp` with the real-world map size on: the sides' cylindrical
/// mapping times 2π·r and the height (V = z); every cap face — fans and cap
/// bands — mapped flat from its cap's bounds: bottom (x − min x, max y − y),
/// top (x − min x, y − min y). Checked against Max's output through Unity's
/// import of BitDefence's turrets (docs/unseen-files.md); a sliced one keeps
/// the 0 … 1 mapping here (`real_world` leaves it out by name).
#[test]
fn real_world_cylinder_scales_sides_and_maps_caps_flat() {
    let p = Params::from_values(vec![
        Value::Float(2.0),
        Value::Float(5.0),
        Value::Int(2),
        Value::Int(3),
        Value::Int(8),
        Value::Int(1),
        Value::Int(0),
        Value::Float(0.0),
        Value::Float(0.0),
        Value::Int(1),
    ])
    .with_real_world();
    let m = cylinder_mesh(&p, false).expect("cylinder");
    let map = &m.maps[0];
    let tau_r = 2.0 * std::f64::consts::PI * 2.0;
    let (mut caps, mut sides) = (0, 0);
    for (f, tf) in m.faces.iter().zip(&map.faces) {
        let p3 = f.v.map(|v| m.vertices[v as usize]);
        let uv = tf
            .map(|t| map.vertices[t as usize])
            .map(|c| [f64::from(c[0]), f64::from(c[1])]);
        let flat = |z: f64| p3.iter().all(|c| (c.2 - z).abs() < 1e-9);
        for (c, t) in p3.iter().zip(uv) {
            let want = if flat(0.0) {
                Some([c.0 + 2.0, 2.0 - c.1])
            } else if flat(5.0) {
                Some([c.0 + 2.0, c.1 + 2.0])
            } else {
                None
            };
            match want {
                Some(w) => assert!(
                    (t[0] - w[0]).abs() < 1e-5 && (t[1] - w[1]).abs() < 1e-5,
                    "{c:?}: {t:?}, want {w:?}"
                ),
                None => {
                    assert!((t[1] - c.2).abs() < 1e-5, "{c:?}: {t:?}");
                    assert!((-tau_r / 8.0 - 1e-4..=tau_r + 1e-4).contains(&t[0]));
                }
            }
        }
        if flat(0.0) || flat(5.0) {
            caps += 1;
        } else {
            sides += 1;
            // One side's width of U across each side face.
            let span = uv.iter().map(|t| t[0]).fold(f64::MIN, f64::max)
                - uv.iter().map(|t| t[0]).fold(f64::MAX, f64::min);
            assert!((span - tau_r / 8.0).abs() < 1e-4, "{span}");
        }
    }
    assert_eq!((caps, sides), (2 * 8 * (2 * 3 - 1), 2 * 2 * 8));
}

/// `sphere.cpp` with the real-world map size on: the texture grid times
/// (2π·r, π·r); a hemisphere's flat cap mapped flat from below in scene
/// units (x − min x, max y − y).
#[test]
fn real_world_sphere_scales_its_grid_and_maps_a_hemispheres_cap_flat() {
    let sphere = |hemi: f32| {
        Params::from_values(vec![
            Value::Float(3.0),
            Value::Int(12),
            Value::Int(1),
            Value::Float(hemi),
            Value::Int(0),
            Value::Int(0),
            Value::Int(1),
            Value::Int(0),
        ])
    };
    let uvs = |m: &Mesh| -> Vec<[f64; 2]> {
        let ch = &m.maps[0];
        ch.faces
            .iter()
            .flatten()
            .map(|&t| {
                [
                    f64::from(ch.vertices[t as usize][0]),
                    f64::from(ch.vertices[t as usize][1]),
                ]
            })
            .collect()
    };
    let (su, sv) = (2.0 * std::f64::consts::PI * 3.0, std::f64::consts::PI * 3.0);
    let plain = sphere_mesh(&sphere(0.0)).expect("sphere");
    let scaled = sphere_mesh(&sphere(0.0).with_real_world()).expect("sphere");
    for (a, b) in uvs(&plain).iter().zip(uvs(&scaled)) {
        assert!((a[0] * su - b[0]).abs() < 1e-4 && (a[1] * sv - b[1]).abs() < 1e-4);
    }
    let plain = sphere_mesh(&sphere(0.5)).expect("hemisphere");
    let m = sphere_mesh(&sphere(0.5).with_real_world()).expect("hemisphere");
    let cap = m.faces.len() - 12;
    let ring: Vec<Vec3> = m.faces[cap..]
        .iter()
        .flat_map(|f| f.v.map(|v| m.vertices[v as usize]))
        .collect();
    let min_x = ring.iter().map(|p| p.0).fold(f64::MAX, f64::min);
    let max_y = ring.iter().map(|p| p.1).fold(f64::MIN, f64::max);
    let (a, b) = (uvs(&plain), uvs(&m));
    for (i, f) in m.faces.iter().enumerate() {
        for k in 0..3 {
            let c = 3 * i + k;
            let want = if i >= cap {
                let p = m.vertices[f.v[k] as usize];
                [p.0 - min_x, max_y - p.1]
            } else {
                [a[c][0] * su, a[c][1] * sv]
            };
            assert!(
                (b[c][0] - want[0]).abs() < 1e-4 && (b[c][1] - want[1]).abs() < 1e-4,
                "face {i}: {:?}, want {want:?}",
                b[c]
            );
        }
    }
}

/// Width segments are parameter 2 and length segments 3 (the SDK sample's
/// ids; files store the block in its descriptor's order 0, 1, 3, 2, length
/// segments first): a 60-wide, 30-long plane with 4 width and 2 length
/// segments has 5 columns along X and 3 rows along Y, 16 triangles.
#[test]
fn plane_segments_follow_the_sdk_ids() {
    let m = plane_mesh(&plane_params(30.0, 60.0, 4, 2, 1.0)).expect("plane");
    assert_eq!((m.vertices.len(), m.faces.len()), (15, 16));
    let mut xs: Vec<i64> = m
        .vertices
        .iter()
        .map(|v| (v.0 * 1e3).round() as i64)
        .collect();
    let mut ys: Vec<i64> = m
        .vertices
        .iter()
        .map(|v| (v.1 * 1e3).round() as i64)
        .collect();
    xs.sort_unstable();
    xs.dedup();
    ys.sort_unstable();
    ys.dedup();
    assert_eq!(xs, [-30_000, -15_000, 0, 15_000, 30_000]);
    assert_eq!(ys, [-15_000, 0, 15_000]);
    // The map follows the grid: U along X over the width, V along Y.
    let map = &m.maps[0];
    for (f, tf) in m.faces.iter().zip(&map.faces) {
        for (&v, &t) in f.v.iter().zip(tf) {
            let (p, uv) = (m.vertices[v as usize], map.vertices[t as usize]);
            assert!((f64::from(uv[0]) - (p.0 + 30.0) / 60.0).abs() < 1e-6);
            assert!((f64::from(uv[1]) - (p.1 + 15.0) / 30.0).abs() < 1e-6);
        }
    }
}

/// `gridobj.cpp`'s map of the viewport mesh: with the real-world map size on
/// U runs 0 … width and V 0 … length; a render scale r above 1 shows the
/// middle 1/r of the map (t / r + (r − 1) / 2r), or with the real-world size
/// offsets the fraction by (r − 1) / 2 before scaling; the positions keep
/// the viewport size either way.
#[test]
fn plane_map_follows_real_world_size_and_render_scale() {
    let uv_range = |p: &Params| {
        let m = plane_mesh(p).expect("plane");
        let map = &m.maps[0];
        let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
        for t in &map.vertices {
            for k in 0..2 {
                lo[k] = lo[k].min(t[k]);
                hi[k] = hi[k].max(t[k]);
            }
        }
        let xmax = m.vertices.iter().map(|v| v.0).fold(f64::MIN, f64::max);
        (lo, hi, xmax)
    };
    let close = |a: [f32; 2], b: [f32; 2]| (0..2).all(|k| (a[k] - b[k]).abs() < 1e-4);
    let (lo, hi, x) = uv_range(&plane_params(30.0, 60.0, 4, 2, 1.0).with_real_world());
    assert!(
        close(lo, [0.0, 0.0]) && close(hi, [60.0, 30.0]),
        "{lo:?} {hi:?}"
    );
    assert_eq!(x, 30.0);
    let (lo, hi, x) = uv_range(&plane_params(30.0, 60.0, 4, 2, 100.0));
    assert!(
        close(lo, [0.495, 0.495]) && close(hi, [0.505, 0.505]),
        "{lo:?} {hi:?}"
    );
    assert_eq!(x, 30.0);
    let (lo, hi, _) = uv_range(&plane_params(30.0, 60.0, 4, 2, 3.0).with_real_world());
    assert!(
        close(lo, [60.0, 30.0]) && close(hi, [120.0, 60.0]),
        "{lo:?} {hi:?}"
    );
}
