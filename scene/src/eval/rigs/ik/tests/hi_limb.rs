//! HI limb: a shoulder at the origin, upper arm 3 along +x, forearm 2 along
//! +y (elbow bent 90°), so the initial chain plane is z = 0 with normal
//! eeUnit ^ elbowUnit = −z. The zero map projects −z off the end-effector
//! direction: at the initial pose it gives that normal (swivel 0 there).

use std::f64::consts::PI;

use super::super::hi_limb::*;
use super::super::primitives::{p3, M3, P3};
use super::super::SolveError;
use super::{close, cross, dot, f, len, rot, scale, sub, unit, v, V};

const L1: f64 = 3.0;
const L2: f64 = 2.0;

fn zero_map(e: P3) -> P3 {
    let n0 = p3(0.0, 0.0, -1.0);
    n0.minus(e.scale(n0.dot(e))).normalize()
}

fn zero_map_f64(e: V) -> V {
    let n0 = [0.0, 0.0, -1.0];
    unit(sub(n0, scale(e, dot(n0, e))))
}

fn link(axis: usize, extend: P3) -> Link {
    Link {
        axis,
        dof_value: 0.0,
        init_value: 0.0,
        rigid_extend: M3::translation(extend),
    }
}

fn arm(forearm: f32) -> HiChain {
    HiChain {
        root: RootLink {
            rot_xyz: P3::ZERO,
            init_xyz: P3::ZERO,
            rigid_extend: M3::translation(p3(L1 as f32, 0.0, 0.0)),
        },
        links: vec![
            link(2, P3::ZERO),
            link(1, P3::ZERO),
            link(0, p3(0.0, forearm, 0.0)),
        ],
    }
}

fn goal(g: P3, swivel: Swivel) -> HiGoal<'static> {
    HiGoal {
        goal: M3::translation(g),
        swivel,
        zero_map: &zero_map,
    }
}

/// Angle at the shoulder between the upper arm and the shoulder–wrist line.
fn phi(d: f64) -> f64 {
    ((d * d + L1 * L1 - L2 * L2) / (2.0 * d * L1)).acos()
}

/// Expected elbow: the end-effector direction turned toward the elbow by φ
/// about the chain-plane normal `n` (the plane normal is ee ^ elbow).
fn elbow_for(ee: V, n: V, d: f64) -> V {
    scale(rot(ee, n, phi(d)), L1)
}

/// Solves and checks the spec's promises: the wrist reaches `reach`, the bones
/// keep their lengths, the elbow sits where `n` puts it.
fn solve_and_check(g: &HiGoal<'_>, reach: V, n: V) -> HiChain {
    let mut c = arm(L2 as f32);
    solve(&mut c, g).expect("solve");
    let wrist = v(c.end_effector());
    let elbow = v(c.first_joint());
    close(wrist, reach, 2e-5);
    assert!((len(elbow) - L1).abs() < 1e-5);
    assert!((len(sub(wrist, elbow)) - L2).abs() < 1e-5);
    let ee = unit(reach);
    close(elbow, elbow_for(ee, n, len(reach)), 5e-5);
    c
}

#[test]
fn reachable_goal_with_zero_swivel_lies_in_the_zero_plane() {
    let g = [2.0, 3.0, 1.0];
    let ee = unit(g);
    solve_and_check(&goal(f(g), Swivel::InStartJoint(0.0)), g, zero_map_f64(ee));
}

#[test]
fn swivel_in_start_joint_turns_the_plane_about_the_goal_line() {
    let g = [1.0, -2.0, 2.5];
    let ee = unit(g);
    for s in [0.8, -0.6, 2.5, 4.0] {
        let n = rot(zero_map_f64(ee), ee, s);
        solve_and_check(&goal(f(g), Swivel::InStartJoint(s as f32)), g, n);
    }
}

#[test]
fn swivel_in_goal_is_measured_in_the_goal_frame() {
    let g = [-1.5, 2.0, 2.0];
    let ee = unit(g);
    let mut tm = M3::rotate_axis(0, 0.3);
    tm.pre_rotate(2, 0.7);
    tm.set_row(3, f(g));
    let s = 0.9;
    // ee in the goal's frame (rotation inverse = transpose), the zero map
    // and the swivel there, back to chain space, made perpendicular to ee.
    let rows: [V; 3] = [v(tm.row(0)), v(tm.row(1)), v(tm.row(2))];
    let ee_g = [dot(ee, rows[0]), dot(ee, rows[1]), dot(ee, rows[2])];
    let t_g = rot(zero_map_f64(ee_g), ee_g, s);
    let t = scale(rows[0], t_g[0]);
    let t = super::add(t, scale(rows[1], t_g[1]));
    let t = super::add(t, scale(rows[2], t_g[2]));
    let n = unit(sub(t, scale(ee, dot(ee, t))));
    let hi = HiGoal {
        goal: tm,
        swivel: Swivel::InGoal(s as f32),
        zero_map: &zero_map,
    };
    solve_and_check(&hi, g, n);
}

#[test]
fn vh_target_pulls_the_elbow_toward_it() {
    let g = [2.0, 1.0, 2.0];
    let ee = unit(g);
    let vh = [0.0, 5.0, -5.0];
    let perp = sub(vh, scale(ee, dot(ee, unit(vh)) * len(vh)));
    let n = unit(cross(ee, perp));
    let c = solve_and_check(&goal(f(g), Swivel::VhTarget(f(vh))), g, n);
    assert!(dot(v(c.first_joint()), perp) > 0.0);
}

#[test]
fn vh_target_on_the_goal_line_falls_back_to_the_zero_map() {
    // ee = y exactly and VH along y: the perpendicular part is exactly zero,
    // so t = p and the solve is bit-identical to swivel 0 in the start joint.
    let g = p3(0.0, 4.0, 0.0);
    let mut a = arm(2.0);
    let mut b = arm(2.0);
    solve(&mut a, &goal(g, Swivel::VhTarget(p3(0.0, 7.0, 0.0)))).unwrap();
    solve(&mut b, &goal(g, Swivel::InStartJoint(0.0))).unwrap();
    assert_eq!(a, b);
    // Only an exact zero falls back (`== 0.0f`): a VH merely parallel up to
    // rounding leaves noise, and t = ee ^ noise picks some other plane —
    // inherited from the reference.
    let g = p3(2.0, 2.0, 1.0).scale(3.0);
    solve(&mut a, &goal(g, Swivel::VhTarget(g))).unwrap();
    solve(&mut b, &goal(g, Swivel::InStartJoint(0.0))).unwrap();
    assert_ne!(a, b);
}

#[test]
fn a_goal_out_of_reach_is_clamped_to_the_full_length() {
    let dir = unit([1.0, 2.0, 2.0]);
    let g = scale(dir, 10.0);
    let reach = scale(dir, L1 + L2);
    assert_eq!(clamp_goal(f(g), 5.0, 1.0), f(g).normalize().scale(5.0));
    let mut c = arm(L2 as f32);
    solve(&mut c, &goal(f(g), Swivel::InStartJoint(0.0))).unwrap();
    // Fully straight, the elbow on the line. The float d of the clamped
    // wrist makes cos φ one ulp off 1, and acos(1 − 2⁻²⁴) ≈ 3.5e-4 rad:
    // the spec's arithmetic itself moves the elbow by up to L1·acos(1 − 2⁻²³).
    let tol = L1 * (1.0 - 2f64.powi(-23)).acos();
    close(v(c.end_effector()), reach, tol);
    close(v(c.first_joint()), scale(dir, L1), tol);
    assert!((len(sub(v(c.end_effector()), v(c.first_joint()))) - L2).abs() < 1e-5);
}

#[test]
fn a_goal_too_near_is_pushed_out_to_the_length_difference() {
    let dir = unit([-1.0, 2.0, 2.0]);
    let g = scale(dir, 0.5);
    let reach = scale(dir, L1 - L2);
    solve_and_check(
        &goal(f(g), Swivel::InStartJoint(0.0)),
        reach,
        zero_map_f64(dir),
    );
    // |Ldiff| is taken for a forearm longer than the upper arm.
    assert_eq!(clamp_goal(f(g), 5.0, -1.0), f(g).normalize());
}

#[test]
fn a_goal_at_the_shoulder_folds_the_elbow() {
    // L1 ≠ L2: goalUnit = Normalize(0) = 0, so the wrist target is the origin;
    // cos θ = 13/12 clamps to θ = 0 and cos φ = 5/0 = +∞ clamps to φ = 0.
    let mut c = arm(2.0);
    solve(&mut c, &goal(P3::ZERO, Swivel::InStartJoint(0.0))).unwrap();
    let (elbow, wrist) = (v(c.first_joint()), v(c.end_effector()));
    assert!(c.root.rot_xyz.x.is_finite() && c.root.rot_xyz.z.is_finite());
    assert!((len(wrist) - (L1 - L2)).abs() < 1e-5);
    close(wrist, scale(elbow, (L1 - L2) / L1), 1e-5);
}

#[test]
fn a_goal_at_the_shoulder_of_an_even_arm_is_0_over_0() {
    // L1 = L2: no clamp, d = 0, cos φ = 0/0 → acos(NaN) as in the reference;
    // the elbow still folds (θ = 0), the shoulder angles are NaN.
    let mut c = arm(3.0);
    solve(&mut c, &goal(P3::ZERO, Swivel::InStartJoint(0.0))).unwrap();
    // (Euler extraction of a NaN matrix takes the gimbal branch: z = 0.)
    assert!(c.root.rot_xyz.x.is_nan() && c.root.rot_xyz.y.is_nan());
    let dz = c.links[0].dof_value;
    assert!((f64::from(dz) - PI / 2.0).abs() < 1e-6, "{dz}");
}

#[test]
fn planar_goal_writes_the_elbow_crosswise_into_link_0() {
    // Goal in the initial plane: the bend is about −z, so E = RotZ(−(θ − θ0))
    // and its Z angle lands in link 0 (the Z link), the others stay 0.
    let g = [1.0, 3.5, 0.0];
    let d = len(g);
    let theta = ((L1 * L1 + L2 * L2 - d * d) / (2.0 * L1 * L2)).acos();
    let mut c = arm(2.0);
    solve(&mut c, &goal(f(g), Swivel::InStartJoint(0.0))).unwrap();
    assert!((f64::from(c.links[0].dof_value) + (theta - PI / 2.0)).abs() < 1e-6);
    assert!(c.links[1].dof_value.abs() < 1e-6);
    assert!(c.links[2].dof_value.abs() < 1e-6);
    assert!(c.root.rot_xyz.x.abs() < 1e-6 && c.root.rot_xyz.y.abs() < 1e-6);
    close(v(c.end_effector()), g, 2e-5);
}

#[test]
fn the_solve_restarts_from_the_initial_angles() {
    let g = goal(p3(2.0, 3.0, 1.0), Swivel::InStartJoint(0.4));
    let mut a = arm(2.0);
    solve(&mut a, &g).unwrap();
    let once = a.clone();
    a.root.rot_xyz = p3(1.0, 2.0, 3.0);
    a.links[1].dof_value = 0.5;
    solve(&mut a, &g).unwrap();
    assert_eq!(a, once);
}

#[test]
fn only_0_or_3_links_are_accepted() {
    let mut c = arm(2.0);
    c.links.pop();
    let before = c.clone();
    assert_eq!(
        solve(&mut c, &goal(p3(1.0, 1.0, 1.0), Swivel::InStartJoint(0.0))),
        Err(SolveError::LinkCount(2))
    );
    assert_eq!(c, before);
}

#[test]
fn aim_variant_turns_the_root_bone_onto_the_goal() {
    let mut c = arm(2.0);
    c.links.clear();
    solve(&mut c, &goal(p3(0.0, 4.0, 0.0), Swivel::InStartJoint(0.0))).unwrap();
    // x onto y: a quarter turn about z.
    close(v(c.root.rot_xyz), [0.0, 0.0, PI / 2.0], 1e-6);
    close(v(c.first_joint()), [0.0, L1, 0.0], 1e-5);
    for g in [[1.0, 1.0, 1.0], [-2.0, 0.5, 3.0], [0.0, -1.0, -0.2]] {
        solve(&mut c, &goal(f(g), Swivel::InStartJoint(0.0))).unwrap();
        close(v(c.first_joint()), scale(unit(g), L1), 2e-5);
    }
}
