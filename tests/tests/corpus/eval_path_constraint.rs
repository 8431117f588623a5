//! The Path Constraint (scene eval/rigs/path_constraint.rs) on the corpus's
//! one: animation.max's "snow man" rides Line002 through a Position List
//! (Position XYZ, then the Path Constraint at 100 %), constant velocity on,
//! its percent a Linear Float keyed 0 → 1 over the animation.
//!
//! No export of this file exists, so the references are 3ds Max's own stored
//! values: Line002's knots (three corner knots whose handles lie on their
//! chords, so the path is the polyline through them) carried to world space
//! by Line002's stored transform, and the stored percent keys. What they
//! give, independently of the evaluation: at the 0 % key the node sits on the
//! first knot, at the 100 % key on the last; in between it lies on the path
//! and — constant velocity — the length of path behind it is the percent of
//! the whole length; without constant velocity each segment takes an equal
//! share of the percent (at 50 % of two segments: the middle knot). The
//! Position XYZ entry before the constraint holds a nonzero value that the
//! constraint replaces (Max's `PathPosition::GetValue` sets the translation:
//! 3ds Max SDK sample path_cnstrnt.cpp). The snow man's 12 children follow it
//! rigidly, each by its own stored PRS. With follow switched on in the
//! stored block, the frame the node gets inside each straight segment has X
//! along the segment's direction from the stored knots and Y level (the
//! SDK's `CalcRefFrame`), its own rotation pre-applied as before.

use maxfs_scene::eval::core::controller::{Controller, Track};
use maxfs_scene::eval::core::coverage::scene_gaps;
use maxfs_scene::eval::core::math::{Mat43, Vec3};
use maxfs_scene::eval::core::transform::invert;
use maxfs_scene::eval::SceneEval;
use maxfs_tests::node_index as node;
use maxfs_tests::rewrite::SceneEdit;

const FILE: &str = "max/prims-pranto/animation.max";
/// Percent parameters of the constraint's block (path_cnstrnt.cpp's enum).
const PARAM_FOLLOW: u16 = 2;
const PARAM_CONSTANT_VEL: u16 = 7;
const PARAM_RELATIVE: u16 = 13;

/// The snow man's Position List entries (Position XYZ, Path Constraint).
fn list_entries(eval: &SceneEval) -> (usize, usize) {
    let tm = eval.tm_controller(node(eval, "snow man")).expect("TM");
    let Some(Controller::Prs {
        position: Some(pos),
        ..
    }) = eval.controller(tm)
    else {
        panic!("no PRS position");
    };
    let Some(Controller::List { subs, weights, .. }) = eval.controller(*pos) else {
        panic!("no Position List");
    };
    // Both at 100 %, as stored.
    assert_eq!(weights, &[1.0, 1.0]);
    (subs[0].expect("XYZ"), subs[1].expect("path"))
}

/// Line002's knots in world space, each segment checked to be straight
/// (corner handles on the chord), so the path is the polyline through them.
fn path_polyline(eval: &SceneEval) -> Vec<Vec3> {
    let line = node(eval, "Line002");
    let shape = eval.shape(line, 0).expect("a shape").expect("evaluates");
    let spline = &shape.shape.as_ref().expect("Bezier shape").splines[0];
    assert!(!spline.closed);
    for i in 0..spline.segments() {
        let [a, h1, h2, b] = spline.segment(i);
        let chord = b.minus(a);
        for h in [h1, h2] {
            let off = h.minus(a);
            assert!(
                off.cross(chord).len() < 1e-6 * chord.len().max(1.0),
                "segment {i} handle off its chord"
            );
        }
    }
    let tm: Mat43 = eval.object_tm(line, 0);
    spline
        .knots
        .iter()
        .map(|k| tm.transform_point(k.point))
        .collect()
}

/// The stored percent keys (time, fraction) of the constraint's Linear Float.
fn percent_keys(eval: &SceneEval, path_ctl: usize) -> Vec<(i32, f64)> {
    let Some(Controller::PathConstraint(p)) = eval.controller(path_ctl) else {
        panic!(
            "the constraint is not evaluated: {:?}",
            eval.controller(path_ctl)
        );
    };
    let Some(Controller::Float {
        track: Track::Linear { keys },
        ..
    }) = eval.controller(p.percent.expect("animated percent"))
    else {
        panic!("percent is not a Linear Float");
    };
    keys.iter().map(|k| (k.time, k.value[0])).collect()
}

/// Linear interpolation of the stored keys (a Linear Float's value).
fn percent_at(keys: &[(i32, f64)], t: i32) -> f64 {
    let (t0, v0) = keys[0];
    let (t1, v1) = keys[keys.len() - 1];
    assert_eq!(keys.len(), 2, "two keys stored");
    v0 + (v1 - v0) * f64::from(t - t0) / f64::from(t1 - t0)
}

/// Distance from `p` to the polyline, and the length along it to the
/// nearest point.
fn on_polyline(poly: &[Vec3], p: Vec3) -> (f64, f64) {
    let mut best = (f64::MAX, 0.0);
    let mut walked = 0.0;
    for w in poly.windows(2) {
        let d = w[1].minus(w[0]);
        let len = d.len();
        let s = (p.minus(w[0]).dot(d) / (len * len)).clamp(0.0, 1.0);
        let q = w[0].plus(d.scale(s));
        let dist = p.minus(q).len();
        if dist < best.0 {
            best = (dist, walked + s * len);
        }
        walked += len;
    }
    best
}

fn length(poly: &[Vec3]) -> f64 {
    poly.windows(2).map(|w| w[1].minus(w[0]).len()).sum()
}

fn pos(eval: &SceneEval, n: usize, t: i32) -> Vec3 {
    eval.world_tm(n, t).0[3]
}

fn assert_near(a: Vec3, b: Vec3, tol: f64, what: &str) {
    assert!(a.minus(b).len() < tol, "{what}: {a:?} vs {b:?}");
}

#[test]
fn the_snow_man_rides_its_path_at_constant_velocity() {
    let eval = maxfs_tests::corpus_eval(FILE);
    let man = node(&eval, "snow man");
    let (xyz, path) = list_entries(&eval);
    let poly = path_polyline(&eval);
    let keys = percent_keys(&eval, path);
    let total = length(&poly);
    let (first, last) = (keys[0], keys[keys.len() - 1]);
    assert_eq!((first.1, last.1), (0.0, 1.0), "keys 0 % and 100 %");

    // At the keys: the first and the last knot.
    assert_near(pos(&eval, man, first.0), poly[0], 1e-4, "0 % key");
    assert_near(
        pos(&eval, man, last.0),
        poly[poly.len() - 1],
        1e-4,
        "100 % key",
    );

    // In between (every 10 frames): on the path, the length behind it the
    // percent of the whole (constant velocity).
    let mut worst = (0.0f64, 0.0f64);
    for t in (first.0..=last.0).step_by(1600) {
        let (dist, along) = on_polyline(&poly, pos(&eval, man, t));
        let expected = percent_at(&keys, t) * total;
        worst = (worst.0.max(dist), worst.1.max((along - expected).abs()));
    }
    eprintln!(
        "path length {total:.4}: worst distance off the path {:.2e}, worst length error {:.2e}",
        worst.0, worst.1
    );
    assert!(worst.0 < 1e-4, "off the path by {}", worst.0);
    assert!(worst.1 < 1e-4 * total, "length error {}", worst.1);

    // The Position XYZ entry holds a value of its own, which the constraint
    // at 100 % replaces rather than adds to.
    let offset = eval.position_at(Some(xyz), 0);
    assert!(offset.len() > 1.0, "{offset:?}");
    assert_near(pos(&eval, man, 0), poly[0], 1e-4, "XYZ entry replaced");

    // Nothing about the snow man or its children is named as not evaluated.
    let gaps = scene_gaps(&eval);
    assert!(
        !gaps.iter().any(|g| g.class.contains("Path Constraint")),
        "{gaps:?}"
    );
}

#[test]
fn the_children_follow_the_snow_man() {
    let eval = maxfs_tests::corpus_eval(FILE);
    let man = node(&eval, "snow man");
    let children: Vec<usize> = eval
        .graph
        .nodes()
        .filter(|(_, n)| n.parent == Some(man as u32))
        .map(|(o, _)| o.index)
        .collect();
    assert_eq!(children.len(), 12);
    let gaps = scene_gaps(&eval);
    for &c in &children {
        // Each child: its own stored PRS (parent-relative, not animated here)
        // carried by the snow man's world transform at every time.
        let local = eval
            .prs_tm(eval.tm_controller(c).expect("TM"), 0)
            .expect("PRS");
        for t in [0, 4000, 8000, 16000] {
            let expected = local.then(&eval.world_tm(man, t));
            let got = eval.world_tm(c, t);
            for r in 0..4 {
                assert_near(got.0[r], expected.0[r], 1e-4, "child world row");
            }
        }
        let name = &eval.graph.objects[c].node.as_ref().expect("node").name;
        assert!(
            !gaps.iter().any(|g| g.nodes.contains(name)
                && (g.role == "inherited transform" || g.role.ends_with("controller"))),
            "{name}: {gaps:?}"
        );
    }
}

/// The constraint with one stored switch changed (the rest of the file as
/// saved), through the project's scene writer.
fn with_switch(param: u16, on: bool) -> SceneEval {
    let mut e = SceneEdit::open(FILE);
    let man = e.node("snow man");
    let prs = e.reference(man, 0);
    let list = e.reference(prs, 0);
    let path = e.reference(list, 1);
    let block = e.reference(path, 2);
    e.set_pb2_constant(block, param, &u32::from(on).to_le_bytes());
    SceneEval::from_document(e.finish()).expect("scene")
}

#[test]
fn without_constant_velocity_each_segment_takes_an_equal_share() {
    let eval = with_switch(PARAM_CONSTANT_VEL, false);
    let man = node(&eval, "snow man");
    let (_, path) = list_entries(&eval);
    let poly = path_polyline(&eval);
    let keys = percent_keys(&eval, path);
    assert_eq!(poly.len(), 3, "two segments");
    // Half way through the keys: 50 %, the middle knot (the segments'
    // lengths differ: 83.8 and 99.1, so by length it would not be).
    let mid = (keys[0].0 + keys[1].0) / 2;
    assert_eq!(percent_at(&keys, mid), 0.5);
    assert_near(pos(&eval, man, mid), poly[1], 1e-4, "50 % by segments");
    // A quarter: half way along the first segment.
    let quarter = keys[0].0 + (keys[1].0 - keys[0].0) / 4;
    let half_first = poly[0].plus(poly[1].minus(poly[0]).scale(0.5));
    assert_near(
        pos(&eval, man, quarter),
        half_first,
        1e-4,
        "25 % by segments",
    );
    // The ends do not depend on the mode.
    assert_near(pos(&eval, man, keys[0].0), poly[0], 1e-4, "0 %");
    assert_near(pos(&eval, man, keys[1].0), poly[2], 1e-4, "100 %");
}

/// The rotation part of `m` (translation dropped).
fn rot3(m: &Mat43) -> Mat43 {
    Mat43([m.0[0], m.0[1], m.0[2], Vec3::default()])
}

#[test]
fn follow_turns_the_snow_man_along_its_path() {
    // Follow on in the stored block (level frame, X along the path: SDK
    // `CalcRefFrame`). The node's own rotation and scale still pre-apply:
    // world = S·R·[F | P] where without follow world = S·R·[parent rot | P].
    let plain = SceneEval::from_document(SceneEdit::open(FILE).finish()).expect("scene");
    let follow = with_switch(PARAM_FOLLOW, true);
    let man = node(&follow, "snow man");
    let (_, path) = list_entries(&follow);
    let poly = path_polyline(&follow);
    let keys = percent_keys(&follow, path);
    // Inside each straight segment the tangent is the segment's direction.
    let first = poly[1].minus(poly[0]).len() / length(&poly);
    for (frac, seg) in [
        (first * 0.3, 0),
        (first * 0.8, 0),
        (first + (1.0 - first) * 0.5, 1),
    ] {
        let t = keys[0].0 + (f64::from(keys[1].0 - keys[0].0) * frac).round() as i32;
        let frac = percent_at(&keys, t);
        let x = poly[seg + 1].minus(poly[seg]).normalized();
        let y = Vec3(0.0, 0.0, 1.0).cross(x).normalized();
        let z = x.cross(y);
        let w0 = plain.world_tm(man, t);
        let parent = invert(&plain.local_tm(man, t)).then(&w0);
        let sr = rot3(&w0).then(&invert(&rot3(&parent)));
        let wf = follow.world_tm(man, t);
        let f = invert(&sr).then(&rot3(&wf));
        for (got, want, axis) in [(f.0[0], x, "X"), (f.0[1], y, "Y"), (f.0[2], z, "Z")] {
            assert_near(got, want, 1e-5, &format!("{axis} at {frac:.3}"));
        }
        // The position is the path's, as without follow.
        assert_near(wf.0[3], w0.0[3], 1e-4, "position");
    }
}

#[test]
fn relative_is_refused_by_name() {
    let (param, what) = (PARAM_RELATIVE, "relative");
    let eval = with_switch(param, true);
    let gaps = scene_gaps(&eval);
    let g = gaps
        .iter()
        .find(|g| g.role == "position controller" && g.class.starts_with("Path Constraint"))
        .unwrap_or_else(|| panic!("{what}: {gaps:?}"));
    assert!(g.class.contains(what), "{what}: {}", g.class);
    assert!(g.nodes.iter().any(|n| n == "snow man"), "{g:?}");
    // Its children are named through their ancestor.
    assert!(
        gaps.iter()
            .any(|g| g.role == "inherited transform" && g.nodes.len() == 12),
        "{what}: {gaps:?}"
    );
}
