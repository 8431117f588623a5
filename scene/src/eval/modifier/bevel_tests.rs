//! The Bevel builder against its documented rule: rings at the levels'
//! heights, each edge offset by the level's outline, Extrude's layout and
//! caps, a closed surface with both caps.

use super::*;
use crate::eval::objects::surface_checks::{closed as closed_surface, signed_volume as volume};

fn pt(x: f64, y: f64) -> PolyPt {
    PolyPt {
        p: Vec3(x, y, 0.0),
        knot: true,
        smooth: false,
        material: 0,
    }
}

fn closed(pts: &[(f64, f64)]) -> PolyLine {
    PolyLine {
        pts: pts.iter().map(|&(x, y)| pt(x, y)).collect(),
        closed: true,
    }
}

fn square(h: f64) -> PolyLine {
    closed(&[(-h, -h), (h, -h), (h, h), (-h, h)])
}

fn settings(levels: &[(f64, f64)]) -> Settings {
    Settings {
        cap_start: true,
        cap_end: true,
        segments: 1,
        smooth: false,
        start_outline: 0.0,
        levels: levels
            .iter()
            .map(|&(height, outline)| Level { height, outline })
            .collect(),
    }
}

/// Distance from (x, y) to the line through a and b.
fn line_distance(p: Vec3, a: Vec3, b: Vec3) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    ((p.0 - a.0) * dy - (p.1 - a.1) * dx).abs() / dx.hypot(dy)
}

#[test]
fn the_levels_stack_heights_and_outlines() {
    let mut s = settings(&[(40.0, -20.6), (-3.5, 3.8), (5.0, 0.0)]);
    s.start_outline = 1.0;
    let r = s.rings();
    let want = [(0.0, 1.0), (40.0, -19.6), (36.5, -15.8), (41.5, -15.8)];
    assert_eq!(r.len(), want.len());
    for (a, b) in r.iter().zip(want) {
        assert!(
            (a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-12,
            "{a:?} {b:?}"
        );
    }
    s.segments = 2;
    let r = s.rings();
    assert_eq!(r.len(), 7);
    assert!((r[1].0 - 20.0).abs() < 1e-12 && (r[1].1 + 9.3).abs() < 1e-12);
}

#[test]
fn a_square_bevel_is_a_closed_frustum_with_offset_edges() {
    let s = settings(&[(10.0, -2.0), (5.0, 0.0)]);
    let m = bevel(&[square(10.0)], &s).expect("evaluates");
    // 3 rings of 4 points; 2 bands of 4 quads; 2 caps of 2 triangles.
    assert_eq!(m.vertices.len(), 12);
    assert_eq!(m.faces.len(), 2 * 2 * 4 + 2 * 2);
    assert!(closed_surface(&m));
    // Frustum (h 10, sides 20 and 16) plus a prism (h 5, side 16).
    let want = 10.0 / 3.0 * (400.0 + 256.0 + (400.0f64 * 256.0).sqrt()) + 5.0 * 256.0;
    assert!((volume(&m) - want).abs() < 1e-9 * want, "{}", volume(&m));
    // Each ring's edges lie at the ring's offset from the shape's edges.
    let src = square(10.0);
    for (ring, (z, d)) in s.rings().iter().enumerate() {
        for k in 0..4 {
            let p = m.vertices[ring * 4 + k];
            assert!((p.2 - z).abs() < 1e-12);
            let q = m.vertices[ring * 4 + (k + 1) % 4];
            let (a, b) = (src.pts[k].p, src.pts[(k + 1) % 4].p);
            for v in [p, q] {
                assert!((line_distance(v, a, b) - d.abs()).abs() < 1e-9, "{v:?}");
            }
        }
    }
    // Caps: start faces −Z with material 0, end +Z with material 1.
    let caps: Vec<&Face> = m.faces.iter().filter(|f| f.material != 2).collect();
    assert_eq!(caps.len(), 4);
    for f in caps {
        let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
        let nz = b.minus(a).cross(c.minus(a)).2;
        assert_eq!(nz > 0.0, f.material == 1, "{f:?}");
    }
    assert!(m.faces.iter().all(|f| f.smoothing == 0));
}

#[test]
fn a_positive_outline_grows_the_outline_and_shrinks_its_hole() {
    let s = settings(&[(4.0, 1.0)]);
    // The hole given counter-clockwise: organising turns it over.
    let m = bevel(&[square(10.0), square(5.0)], &s).expect("evaluates");
    assert!(closed_surface(&m));
    let top: Vec<Vec3> = m.vertices.iter().copied().filter(|v| v.2 == 4.0).collect();
    let half = |v: &Vec3| v.0.abs().max(v.1.abs());
    let mut sizes: Vec<f64> = top.iter().map(half).collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    assert_eq!(sizes.len(), 2);
    assert!(
        (sizes[0] - 4.0).abs() < 1e-9 && (sizes[1] - 11.0).abs() < 1e-9,
        "{sizes:?}"
    );
    // Ring area: (22² − 8²) at the top against (20² − 10²) at the base.
    assert!(volume(&m) > 4.0 * 300.0 && volume(&m) < 4.0 * 420.0);
}

#[test]
fn smoothing_across_levels_gives_the_sides_extrudes_groups() {
    let mut s = settings(&[(3.0, 0.5), (3.0, -0.5)]);
    s.smooth = true;
    let mut l = square(10.0);
    for p in &mut l.pts {
        p.smooth = true;
    }
    let m = bevel(&[l], &s).expect("evaluates");
    let sides: Vec<u32> = m
        .faces
        .iter()
        .filter(|f| f.material == 2)
        .map(|f| f.smoothing)
        .collect();
    // Both bands alike, every side face in a group, caps in none.
    assert!(sides.iter().all(|&g| g != 0));
    let (a, b) = sides.split_at(sides.len() / 2);
    assert_eq!(a, b);
    assert!(m
        .faces
        .iter()
        .filter(|f| f.material != 2)
        .all(|f| f.smoothing == 0));
}

#[test]
fn a_collapsed_polyline_keeps_one_vertex_per_ring_and_no_face() {
    // Max's Mesh Totals of an Egg whose wall is 23 coincident points under a
    // four-level Bevel: 4 × (77 + 1) vertices, 3 × 2 × 77 + 2 × 75 faces.
    let s = settings(&[(40.0, -2.0), (-3.5, 0.5), (5.0, 0.0)]);
    let outline: Vec<(f64, f64)> = (0..77)
        .map(|k| {
            let a = k as f64 / 77.0 * std::f64::consts::TAU;
            (48.0 * a.cos(), 60.0 * a.sin())
        })
        .collect();
    let wall = PolyLine {
        pts: vec![pt(-0.1754, 9.705); 23],
        closed: true,
    };
    let m = bevel(&[closed(&outline), wall], &s).expect("evaluates");
    assert_eq!(m.vertices.len(), 312);
    assert_eq!(m.faces.len(), 612);
}

#[test]
fn refusals_are_named() {
    let s = settings(&[(10.0, -12.0)]);
    let e = bevel(&[square(10.0)], &s).expect_err("the square turns over");
    assert!(e.to_string().contains("turned over"), "{e}");
    let s = settings(&[(-10.0, 0.0)]);
    let e = bevel(&[square(10.0)], &s).expect_err("top below the start");
    assert!(e.to_string().contains("top level"), "{e}");
    // The top cap, at z 2, cuts through the first level's side.
    let s = settings(&[(10.0, -5.0), (-8.0, 6.0)]);
    let e = bevel(&[square(10.0)], &s).expect_err("profile crosses");
    assert!(e.to_string().contains("profile"), "{e}");
    // Two outlines grown into each other.
    let a = closed(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0)]);
    let b = closed(&[(5.0, 0.0), (9.0, 0.0), (9.0, 4.0), (5.0, 4.0)]);
    let s = settings(&[(2.0, 1.0)]);
    let e = bevel(&[a.clone(), b], &s).expect_err("rings cross");
    assert!(e.to_string().contains("cross"), "{e}");
    let mut dup = a.clone();
    dup.pts.insert(1, dup.pts[1]);
    let e = bevel(&[dup], &settings(&[(2.0, 0.5)])).expect_err("coincident points");
    assert!(e.to_string().contains("coincide"), "{e}");
    let open = PolyLine { closed: false, ..a };
    let e =
        bevel(std::slice::from_ref(&open), &settings(&[(2.0, 0.5)])).expect_err("open, outline");
    assert!(e.to_string().contains("open polyline"), "{e}");
    // Without outlines an open polyline is a ribbon, as Extrude's.
    let m = bevel(&[open], &settings(&[(2.0, 0.0)])).expect("a ribbon");
    assert_eq!((m.vertices.len(), m.faces.len()), (8, 6));
}
