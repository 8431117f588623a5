//! The Bevel modifier on a shape (issue 19 item 7). Pinned on public files
//! (docs/evaluation.md: three masterchieflast scenes whose "old tower", an
//! Egg under a four-level Bevel, makes Max's Mesh Totals whole). The corpus
//! holds no Bevel, so this test writes one, as Max stores it (an old
//! ParamBlock of 18 parameters in the MAXScript order), onto Villian.max's
//! Egg001 (an outline and the inner wall inside it, 77 points each) and
//! checks the documented rule:
//! - one ring per level at the summed heights (0, 2, 3, 4), 154 points each;
//! - each ring's every edge parallel to an edge of the shape at the ring's
//!   summed outline (+0.2, +0.2, −0.1); positive grows the outline and
//!   shrinks the hole (area up / down), negative the reverse;
//! - three bands of two triangles per point, morph caps of n + 2h − 2
//!   triangles (one region, one hole), the start facing −Z at 0 and the end
//!   +Z at the top; with both caps on a closed, outward surface;
//! - Smooth Across Levels off: no smoothing group on any face;
//! - what is not measured is refused by name (Keep Lines From Crossing, an
//!   outline that turns the hole over).

use maxfs_scene::eval::core::math::Vec3;
use maxfs_scene::eval::objects::shape::PolyLine;
use maxfs_scene::eval::objects::surface_checks::closed as closed_surface;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::node_index;
use maxfs_tests::rewrite::{OldParam, SceneEdit};

const SOURCE: &str = "max/prims-pranto/Villian.max";
const NODE: &str = "Egg001";
const BEVEL: ClassId = ClassId(0x1017, 0x7f9e);

/// Bevel's 18 parameters: ints at 0..=7, 12 and 15, floats elsewhere.
fn edited(values: [f32; 18]) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    let params: Vec<OldParam> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if i <= 7 || i == 12 || i == 15 {
                OldParam::Int(v as i32)
            } else {
                OldParam::Float(v)
            }
        })
        .collect();
    let pb = e.add_old_param_block(&params);
    e.add_modifier_with_refs(node, 0, BEVEL, "Bevel", "bevel.dlm", &[0, 0, pb as i32]);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

/// Caps on, morph, linear, 1 segment, no smoothing, no mapping, lines may
/// cross; start outline 0; levels (2, +0.2), (1, 0), (1, −0.3).
const SETTINGS: [f32; 18] = [
    1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.2, 1.0, 1.0, 0.0, 1.0, 1.0, -0.3,
];
/// Each ring's (z, summed outline) by the documented rule.
const RINGS: [(f64, f64); 4] = [(0.0, 0.0), (2.0, 0.2), (3.0, 0.2), (4.0, -0.1)];

fn signed_area(p: &[Vec3]) -> f64 {
    let n = p.len();
    (0..n)
        .map(|i| p[i].0 * p[(i + 1) % n].1 - p[(i + 1) % n].0 * p[i].1)
        .sum::<f64>()
        / 2.0
}

/// Distance from point (x, y) to segment a–b, and the segment's direction.
fn to_segment(p: Vec3, a: Vec3, b: Vec3) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let t = (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
    (p.0 - a.0 - t * dx).hypot(p.1 - a.1 - t * dy)
}

#[test]
fn a_bevel_offsets_each_level_and_caps_a_closed_surface() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let shape = plain
        .shape(node_index(&plain, NODE), 0)
        .expect("Egg001 is a shape")
        .expect("evaluates");
    let src: Vec<&PolyLine> = shape.polylines.iter().collect();
    assert_eq!(src.len(), 2);
    assert!(src.iter().all(|l| l.closed && l.pts.len() == 77));
    let eval = edited(SETTINGS);
    let node = node_index(&eval, NODE);
    let m = eval
        .mesh(node, 0)
        .expect("a mesh")
        .unwrap_or_else(|e| panic!("the Bevel evaluates: {e}"));
    let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&eval);
    assert!(gaps.iter().all(|g| !g.class.contains("Bevel")), "{gaps:?}");

    // Counts: 4 rings of 154 points; 3 bands × 2 × 154 side triangles;
    // each cap one region of 77 + 77 points with one hole: 154 triangles.
    assert_eq!(m.vertices.len(), 4 * 154);
    assert_eq!(m.faces.len(), 3 * 2 * 154 + 2 * 154);
    assert!(closed_surface(&m));
    assert!(m.faces.iter().all(|f| f.smoothing == 0));

    // Per polyline, per ring, its points (Extrude's layout).
    let size = src
        .iter()
        .flat_map(|l| &l.pts)
        .map(|p| p.p.0.abs().max(p.p.1.abs()))
        .fold(0.0, f64::max);
    let tol = 1e-5 * size;
    let (outer, hole) = if src[0].signed_area_xy().abs() > src[1].signed_area_xy().abs() {
        (0, 1)
    } else {
        (1, 0)
    };
    let mut blocks: Vec<(usize, f64)> = Vec::new();
    for (li, chunk) in m.vertices.chunks(4 * 77).enumerate() {
        // Which source polyline this block belongs to: the one its
        // start ring (offset 0) lies on.
        let on = |l: &PolyLine| {
            chunk[..77]
                .iter()
                .all(|v| l.pts.iter().any(|p| p.p.minus(*v).len() < tol))
        };
        let which = (0..2).find(|&i| on(src[i])).expect("a ring on the shape");
        let base = src[which].signed_area_xy().abs();
        blocks.push((which, base));
        for (r, ring) in chunk.chunks(77).enumerate() {
            let (z, d) = RINGS[r];
            assert!(
                ring.iter().all(|v| (v.2 - z).abs() < 1e-9),
                "block {li} ring {r}"
            );
            // Every ring edge parallel to, and at the offset from, a shape edge.
            for k in 0..77 {
                let (a, b) = (ring[k], ring[(k + 1) % 77]);
                let mid = Vec3((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0, 0.0);
                let l = src[which];
                let (best, dist) = (0..77)
                    .map(|j| {
                        let (p, q) = (l.pts[j].p, l.pts[(j + 1) % 77].p);
                        (j, to_segment(mid, p, q))
                    })
                    .min_by(|x, y| x.1.total_cmp(&y.1))
                    .expect("edges");
                assert!(
                    (dist - d.abs()).abs() < tol,
                    "block {li} ring {r} edge {k}: {dist} vs {d}"
                );
                let (p, q) = (l.pts[best].p, l.pts[(best + 1) % 77].p);
                let cross = (b.0 - a.0) * (q.1 - p.1) - (b.1 - a.1) * (q.0 - p.0);
                let lens = b.minus(a).len() * q.minus(p).len();
                assert!(
                    cross.abs() < 1e-6 * lens.max(1e-12),
                    "ring {r} edge {k} not parallel"
                );
            }
            // Positive outlines grow the outline and shrink the hole.
            let area = signed_area(ring).abs();
            let grows = if which == outer { d > 0.0 } else { d < 0.0 };
            if d != 0.0 {
                assert_eq!(area > base, grows, "block {li} ring {r}: {area} vs {base}");
            }
        }
    }
    let mut seen: Vec<usize> = blocks.iter().map(|b| b.0).collect();
    seen.sort();
    assert_eq!(seen, [0, 1], "{outer} {hole}");

    // Caps: the faces in the planes z = 0 and z = 4 face −Z and +Z.
    let mut caps = [0, 0];
    for f in &m.faces {
        let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
        if a.2 == b.2 && b.2 == c.2 && (a.2 == 0.0 || a.2 == 4.0) {
            let nz = b.minus(a).cross(c.minus(a)).2;
            let top = a.2 == 4.0;
            assert_eq!(nz > 0.0, top, "cap face {f:?}");
            caps[usize::from(top)] += 1;
        }
    }
    assert_eq!(caps, [154, 154]);
}

#[test]
fn what_is_not_measured_is_refused_by_name() {
    let refused = |values: [f32; 18], why: &str| {
        let eval = edited(values);
        let e = eval
            .mesh(node_index(&eval, NODE), 0)
            .expect("a mesh")
            .expect_err("refused");
        assert!(e.to_string().contains(why), "{e}");
        let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&eval);
        assert!(gaps.iter().any(|g| g.class.contains("Bevel")), "{gaps:?}");
    };
    let mut keep = SETTINGS;
    keep[7] = 1.0;
    refused(keep, "Keep Lines From Crossing");
    let mut grid = SETTINGS;
    grid[2] = 1.0;
    refused(grid, "grid capping");
    let mut curved = SETTINGS;
    curved[3] = 1.0;
    refused(curved, "curved sides");
    // An outline far past the wall's width: the hole's ring turns over or
    // crosses the outline.
    let mut wide = SETTINGS;
    wide[11] = 5.0;
    refused(wide, "not measured");
}
