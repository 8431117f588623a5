//! Spline IK: chains laid out along chain-space x (joint frames without
//! rotation), lines and circles as splines, identity goal and parent
//! matrices unless a test says otherwise.

use std::cell::Cell;
use std::f64::consts::PI;

use super::super::primitives::{p3, M3, P3};
use super::super::spline::*;
use super::{close, len, sub, unit, v};

struct Line(P3, P3);

impl SplinePath for Line {
    fn pos_at(&self, u: f32) -> P3 {
        self.0.plus(self.1.minus(self.0).scale(u))
    }
    fn closed(&self) -> bool {
        false
    }
}

struct Circle {
    radius: f32,
    closed: bool,
}

impl Circle {
    fn at(&self, u: f64) -> [f64; 3] {
        let a = 2.0 * PI * u;
        [
            f64::from(self.radius) * a.cos(),
            f64::from(self.radius) * a.sin(),
            0.0,
        ]
    }
}

impl SplinePath for Circle {
    fn pos_at(&self, u: f32) -> P3 {
        let p = self.at(u.into());
        p3(p[0] as f32, p[1] as f32, 0.0)
    }
    fn closed(&self) -> bool {
        self.closed
    }
}

fn up_z(_: P3) -> P3 {
    P3::unit(2)
}

fn up_y(_: P3) -> P3 {
    P3::unit(1)
}

/// `n` bones of length `l` from `start` along x.
fn chain(start: P3, n: usize, l: f32) -> SplineChain {
    let joints = (0..n)
        .map(|b| {
            let pivot = start.plus(p3(l * b as f32, 0.0, 0.0));
            SplineJoint {
                proximal_frame: M3::translation(pivot),
                axes: *b"xyz",
                angles: P3::ZERO,
                pivot,
                distal_end: pivot.plus(p3(l, 0.0, 0.0)),
            }
        })
        .collect();
    SplineChain {
        joints,
        parent_matrix: M3::IDENTITY,
        twist_parent: M3::IDENTITY,
        goal_object_tm: M3::IDENTITY,
        start_twist: 0.0,
        end_twist: 0.0,
    }
}

/// Every point after the first is the first sample, approached in fine steps
/// of `fine` (distance), where the bone is no more than eps3 = L/100 short.
#[track_caller]
fn spaced(points: &[(f32, P3)], l: f64, fine: f64) {
    for w in points.windows(2) {
        let d = len(sub(v(w[1].1), v(w[0].1)));
        let lo = l - l / 100.0;
        assert!(d >= lo - 1e-6 && d <= lo + fine, "{d} for {l}");
    }
}

#[test]
fn straight_spline_along_the_chain_leaves_every_angle_zero() {
    let c = chain(P3::ZERO, 3, 2.0);
    let s = solve(&c, &Line(P3::ZERO, p3(10.0, 0.0, 0.0)), &up_z).unwrap();
    // The first pivot is on the spline at u = 0: accepted there at once.
    assert_eq!(s.points[0], (0.0, P3::ZERO));
    assert_eq!(s.points.len(), 4);
    spaced(&s.points, 2.0, 10.0 * 1e-6 * 2.0);
    for a in &s.angles {
        close(v(*a), [0.0; 3], 1e-6);
    }
}

#[test]
fn spline_across_the_chain_turns_the_root_only() {
    let c = chain(P3::ZERO, 3, 2.0);
    let s = solve(&c, &Line(P3::ZERO, p3(0.0, 10.0, 0.0)), &up_z).unwrap();
    close(v(s.angles[0]), [0.0, 0.0, PI / 2.0], 1e-6);
    close(v(s.angles[1]), [0.0; 3], 1e-6);
    close(v(s.angles[2]), [0.0; 3], 1e-6);
    close(v(s.frames[2].row(0)), [0.0, 1.0, 0.0], 1e-6);
}

#[test]
fn the_zero_map_gets_the_raw_chain_axis() {
    let seen = Cell::new(P3::ZERO);
    let map = |a: P3| {
        seen.set(a);
        P3::unit(2)
    };
    let c = chain(p3(1.0, 1.0, 0.0), 3, 2.0);
    bone_axes(&c, &map).unwrap();
    assert_eq!(seen.get(), p3(6.0, 0.0, 0.0));
}

#[test]
fn co_axis_is_built_from_the_chain_up_vector() {
    // boneUp = y: coAxis = y ^ x = −z, final = x ^ −z = y.
    let b = bone_axes(&chain(P3::ZERO, 2, 2.0), &up_y).unwrap();
    assert_eq!(b.axes, vec![P3::unit(0); 2]);
    assert_eq!(b.co_axes, vec![P3::unit(1); 2]);
    assert_eq!(b.lengths, vec![2.0, 2.0]);
    assert_eq!(b.chain_length, 4.0);
    assert_eq!(b.twist_up, P3::unit(1));
}

#[test]
fn co_axis_falls_back_when_the_up_vector_runs_along_the_bone() {
    // boneUp = x ∥ bone: unit((0+2)%3) = z, z ^ x = y, final x ^ y = z.
    let up_x = |_: P3| P3::unit(0);
    let b = bone_axes(&chain(P3::ZERO, 2, 2.0), &up_x).unwrap();
    assert_eq!(b.co_axes, vec![P3::unit(2); 2]);
}

#[test]
fn twist_and_chain_up_go_through_their_frames() {
    // zero map y; twist parent RotX(90°) takes it to z; the parent matrix
    // RotZ(90°) is undone on both: twistUp stays z, chainUp y → x (the
    // bone axis, so the co-axis falls back to z).
    let mut c = chain(P3::ZERO, 2, 2.0);
    c.twist_parent = M3::rotate_axis(0, std::f32::consts::FRAC_PI_2);
    c.parent_matrix = M3::rotate_axis(2, std::f32::consts::FRAC_PI_2);
    let b = bone_axes(&c, &up_y).unwrap();
    close(v(b.twist_up), [0.0, 0.0, 1.0], 1e-7);
    for co in b.co_axes {
        close(v(co), [0.0, 0.0, 1.0], 1e-7);
    }
}

#[test]
fn joint_axes_pre_rotate_from_the_last_and_stop_at_underscore() {
    // A joint turned 90° about z whose bone runs along chain-space y: with
    // "xyz" the z angle is undone and the local bone axis is x; with "z_x"
    // only x (angle 0) is applied before '_' stops the loop: axis stays y.
    let mut c = chain(P3::ZERO, 1, 2.0);
    c.joints[0].angles = p3(0.0, 0.0, std::f32::consts::FRAC_PI_2);
    c.joints[0].distal_end = p3(0.0, 2.0, 0.0);
    let b = bone_axes(&c, &up_z).unwrap();
    close(v(b.axes[0]), [1.0, 0.0, 0.0], 1e-7);
    c.joints[0].axes = *b"z_x";
    let b = bone_axes(&c, &up_z).unwrap();
    close(v(b.axes[0]), [0.0, 1.0, 0.0], 1e-7);
}

#[test]
fn dominant_axis_keeps_the_earlier_on_ties() {
    assert_eq!(dominant_axis(p3(1.0, 1.0, 0.0)), 0);
    assert_eq!(dominant_axis(p3(1.0, -1.0, 1.0)), 0);
    assert_eq!(dominant_axis(p3(0.0, -1.0, 1.0)), 1);
    assert_eq!(dominant_axis(p3(0.5, -0.2, -0.7)), 2);
}

#[test]
fn twist_is_distributed_linearly_over_the_bones() {
    assert_eq!(bone_twist(0.3, 0.6, 0, 1), 0.3);
    // In the register: float start + (float end / 3) · 2, rounded once.
    let register = (f64::from(0.3f32) + f64::from(0.6f32) / 3.0 * 2.0) as f32;
    assert_eq!(bone_twist(0.3, 0.6, 2, 4), register);
    // Bone b's absolute twist is 0.3 + 0.2·b about its axis (x), so the root
    // turns 0.3 and each joint 0.2 relative to its parent.
    let mut c = chain(P3::ZERO, 4, 2.0);
    c.start_twist = 0.3;
    c.end_twist = 0.6;
    let s = solve(&c, &Line(P3::ZERO, p3(10.0, 0.0, 0.0)), &up_z).unwrap();
    close(v(s.angles[0]), [0.3, 0.0, 0.0], 1e-6);
    for a in &s.angles[1..] {
        close(v(*a), [0.2, 0.0, 0.0], 1e-6);
    }
    // The twist turns right-handed: the root frame's y row goes toward z.
    close(
        v(s.frames[0].row(1)),
        [0.0, 0.3f64.cos(), 0.3f64.sin()],
        1e-6,
    );
}

#[test]
fn twist_up_along_the_curve_falls_back_to_axis_k() {
    // twistUp = y = dir: norm = 0 → unit(k = 2) ^ y = −x. Bone basis rows
    // (x, −z, y) from co-axis y; global = basis⁻¹ · (y; −x; z) =
    // (y; z; x) = RotX(90°)·RotZ(90°).
    let c = chain(P3::ZERO, 1, 2.0);
    let s = solve(&c, &Line(P3::ZERO, p3(0.0, 10.0, 0.0)), &up_y).unwrap();
    close(v(s.angles[0]), [PI / 2.0, 0.0, PI / 2.0], 1e-6);
}

#[test]
fn coarse_overshoot_retries_with_the_medium_step() {
    // 1000 units per u, L = 0.5: from u = 0 the 0.001 step lands at 1.0,
    // past L + eps3; u − uPrev is exactly 0.001f, so u = 0 + 0.0001 and the
    // march goes on in 0.1 steps to land at 0.5.
    let c = chain(P3::ZERO, 1, 0.5);
    let s = solve(&c, &Line(P3::ZERO, p3(1000.0, 0.0, 0.0)), &up_z).unwrap();
    assert_eq!(s.points.len(), 2);
    let (u, p) = s.points[1];
    assert!(u < 0.001, "{u}");
    assert!((f64::from(p.x) - 0.5).abs() <= 0.005, "{p:?}");
}

#[test]
fn fine_overshoot_is_accepted_as_it_is() {
    // 10⁵ units per u, L = 0.05 (eps3 = 0.0005): 0.001 overshoots (step
    // exactly 0.001f, uPrev = 0) → u = 0.0001, overshoots (step exactly
    // 0.0001f) → u = 0.000001, still 0.1 away: that step is neither, so the
    // point is accepted where it is, a bone length off.
    let c = chain(P3::ZERO, 1, 0.05);
    let s = solve(&c, &Line(P3::ZERO, p3(1.0e5, 0.0, 0.0)), &up_z).unwrap();
    assert_eq!(s.points.len(), 2);
    assert_eq!(s.points[1].0, 0.000_001);
    assert!((s.points[1].1.x - 0.1).abs() < 1e-6);
}

#[test]
fn first_joint_off_the_spline_takes_the_nearest_sample() {
    // The line passes 1 from the first pivot: never within eps3, so the march
    // ends past u = 1 and the rescan picks the nearest sample (x ≈ 0). The
    // offset to the pivot is not applied: the point stays on the line.
    let c = chain(P3::ZERO, 2, 2.0);
    let s = solve(&c, &Line(p3(-5.0, 1.0, 0.0), p3(5.0, 1.0, 0.0)), &up_z).unwrap();
    let (u, p) = s.points[0];
    assert_eq!(p.y, 1.0);
    assert!(p.x.abs() < 1e-4, "{p:?}");
    assert!((u - 0.5).abs() < 1e-5, "{u}");
    spaced(&s.points, 2.0, 10.0 * 1e-6 * 2.0);
}

/// The circle point nearest angle 0.9·2π, and a chain of 4 bones of 2 there.
fn circle_case(closed: bool) -> (Circle, SplineSolution) {
    let circle = Circle {
        radius: 5.0,
        closed,
    };
    let start = circle.pos_at(0.9);
    let s = solve(&chain(start, 4, 2.0), &circle, &up_z).unwrap();
    (circle, s)
}

#[test]
fn closed_spline_wraps_past_u_1() {
    let (_, s) = circle_case(true);
    assert_eq!(s.points.len(), 5);
    assert!(s.points[1].0 > 0.9);
    // Chord 2 on radius 5: Δu = 2·asin(0.2)/2π ≈ 0.064, so from 0.96 on the
    // next joints are past 1, wrapped to 0.03, 0.09, 0.16.
    for (u, p) in &s.points[2..] {
        assert!(*u < 0.2, "{u}");
        assert!((len(v(*p)) - 5.0).abs() < 1e-5);
    }
    // Arc per fine step: 2π·5·1e-6.
    spaced(&s.points, 2.0, 2.0 * PI * 5.0 * 1e-6 * 2.0);
}

#[test]
fn open_spline_runs_out_and_aims_the_rest_along_its_end() {
    let (circle, s) = circle_case(false);
    // Only one bone fits before u = 1.
    assert_eq!(s.points.len(), 2);
    spaced(&s.points, 2.0, 2.0 * PI * 5.0 * 1e-6 * 2.0);
    let end = v(circle.pos_at(1.0));
    let dirs = [
        unit(sub(v(s.points[1].1), v(s.points[0].1))),
        // b = uCount − 1: from the last point to the spline's end.
        unit(sub(end, v(s.points[1].1))),
        // b = uCount: the end tangent, sample(1) − sample(0.99).
        unit(sub(end, v(circle.pos_at(0.99)))),
    ];
    for (b, d) in dirs.iter().enumerate() {
        close(v(s.frames[b].row(0)), *d, 1e-6);
    }
    // b > uCount: the previous direction carries over.
    close(v(s.frames[3].row(0)), dirs[2], 1e-6);
}

#[test]
fn empty_chains_and_nan_splines_end_quietly() {
    let mut c = chain(P3::ZERO, 2, 2.0);
    let nan = Line(p3(f32::NAN, 0.0, 0.0), P3::ZERO);
    let s = solve(&c, &nan, &up_z).unwrap();
    assert_eq!(s.points.len(), 3);
    c.joints.clear();
    assert_eq!(
        solve(&c, &Line(P3::ZERO, P3::unit(0)), &up_z).unwrap(),
        SplineSolution::default()
    );
}

/// The open march written out from the spec's text for a line through the
/// origin along x (10 units per u): the joint u values by repeated float
/// addition, thresholds L/7 for the first bone and L/5 after. (A slow line
/// never overshoots, so uPrev and the backtracking play no part.)
fn march_by_hand(lengths: &[f32]) -> Vec<f32> {
    let at = |u: f32| p3(10.0 * u, 0.0, 0.0);
    // The first pivot is at u = 0 exactly: accepted there at once.
    let mut out = vec![0f32];
    let (mut u, mut start) = (0f32, at(0.0));
    let mut j = 0;
    let eps = |l: f32, first: bool| {
        let d = if first { 7.0 } else { 5.0 };
        (f64::from(l / d), f64::from(l / 50.0), f64::from(l / 100.0))
    };
    let (mut e1, mut e2, mut e3) = eps(lengths[0], true);
    while u <= 1.0 && j < lengths.len() {
        let s = at(u);
        let dist = s.minus(start).flength();
        let short = f64::from(lengths[j]) - f64::from(dist);
        let step = if short > e1 {
            0.001
        } else if short > e2 {
            0.0001
        } else if short > e3 {
            0.000_001
        } else {
            assert!(-short <= e3, "no overshoot on a slow line");
            out.push(u);
            start = s;
            j += 1;
            if j < lengths.len() {
                (e1, e2, e3) = eps(lengths[j], false);
            }
            continue;
        };
        u += step;
    }
    out
}

#[test]
fn u_accumulates_by_float_addition_with_the_spec_thresholds() {
    let mut c = chain(P3::ZERO, 3, 2.0);
    c.joints[1].distal_end = c.joints[1].pivot.plus(p3(1.5, 0.0, 0.0));
    c.joints[2].pivot = c.joints[1].distal_end;
    c.joints[2].proximal_frame = M3::translation(c.joints[2].pivot);
    c.joints[2].distal_end = c.joints[2].pivot.plus(p3(2.5, 0.0, 0.0));
    let s = solve(&c, &Line(P3::ZERO, p3(10.0, 0.0, 0.0)), &up_z).unwrap();
    let got: Vec<f32> = s.points.iter().map(|p| p.0).collect();
    assert_eq!(got, march_by_hand(&[2.0, 1.5, 2.5]));
}

#[test]
fn hostile_inputs_end_without_panic() {
    let lines = [
        Line(p3(f32::INFINITY, 0.0, 0.0), P3::ZERO),
        Line(p3(f32::MAX, f32::MAX, 0.0), p3(-f32::MAX, 0.0, 0.0)),
        Line(P3::ZERO, P3::ZERO),
        Line(p3(1e-30, 0.0, 0.0), p3(-1e-30, 0.0, 0.0)),
    ];
    for closed in [false, true] {
        for l in [0.0, 1e-30, 2.0, f32::NAN, f32::INFINITY] {
            let mut c = chain(P3::ZERO, 3, l);
            c.start_twist = f32::NAN;
            for line in &lines {
                let r = solve(&c, line, &up_z);
                assert!(r.is_ok() || r == Err(super::super::SolveError::NoProgress));
                let circle = Circle {
                    radius: 5.0,
                    closed,
                };
                let _ = solve(&c, &circle, &|_| P3::ZERO);
            }
        }
    }
}
