//! IK Limb, checked against what its SDK sample states rather than against
//! its own output: with 3 joints the end joint reaches a reachable goal (or
//! the clamp on the goal line), the bones keep their lengths and the chain
//! plane is the zero plane turned by the swivel about the goal line (the IK
//! system's contract in IKHierarchy.h); with 2 joints the start joint turns
//! its preferred frame by the shortest rotation onto the goal direction,
//! whatever zero map it is given. Expected values are f64 constructions
//! (law of cosines, Rodrigues); the preferred angles are away from zero on
//! every axis so that a solve ignoring them would show.

use super::super::chain::default_zero_map;
use super::super::hi_limb::*;
use super::super::limb::{aim_goal, any_normal, goal_off_pivot, joint_count, middle_axes};
use super::super::primitives::{p3, M3, P3};
use super::{close, cross, dot, f, len, rot, scale, sub, unit, v, V};

/// Upper arm 3, forearm 2, and preferred angles away from zero on every
/// axis, so that a solve which did not come back to them would show.
fn arm() -> HiChain {
    let link = |axis: usize, init: f32, ext: P3| Link {
        axis,
        dof_value: init,
        init_value: init,
        rigid_extend: M3::translation(ext),
    };
    let init = p3(0.4, -0.7, 1.1);
    HiChain {
        root: RootLink {
            rot_xyz: init,
            init_xyz: init,
            rigid_extend: M3::translation(p3(3.0, 0.0, 0.0)),
        },
        links: vec![
            link(2, 1.2, P3::ZERO),
            link(1, 0.05, P3::ZERO),
            link(0, -0.1, p3(2.0, 0.0, 0.0)),
        ],
    }
}

#[test]
fn at_the_preferred_goal_the_solve_keeps_the_preferred_pose() {
    let rest = arm();
    let (elbow, wrist) = (rest.first_joint(), rest.end_effector());
    let n0 = wrist.normalize().cross(elbow.normalize()).normalize();
    let zero_map = move |e: P3| default_zero_map(n0, e);
    let mut chain = arm();
    // Start the solve from other angles: it resets to the preferred ones.
    chain.root.rot_xyz = p3(0.0, 0.0, 0.0);
    chain.links[0].dof_value = 0.3;
    let goal = HiGoal {
        goal: M3::translation(wrist),
        swivel: Swivel::InStartJoint(0.0),
        zero_map: &zero_map,
    };
    solve(&mut chain, &goal).expect("solves");
    let tol = 1e-5 * 5.0;
    assert!(len(sub(v(chain.first_joint()), v(elbow))) < tol);
    assert!(len(sub(v(chain.end_effector()), v(wrist))) < tol);
    let r = chain.root.rot_xyz;
    for (a, b) in [(r.x, 0.4), (r.y, -0.7), (r.z, 1.1)] {
        assert!((f64::from(a) - b).abs() < 1e-5, "root {r:?}");
    }
    let bend: Vec<f32> = chain.links.iter().map(|l| l.dof_value).collect();
    for (a, b) in bend.iter().zip([1.2, 0.05, -0.1]) {
        assert!((f64::from(*a) - b).abs() < 1e-5, "elbow {bend:?}");
    }
}

/// The rotation part of the start joint's link matrix as rows (the joint's
/// axes in chain-root space).
fn root_axes(c: &HiChain) -> [V; 3] {
    let mut r = c.root;
    r.rigid_extend = M3::translation(P3::ZERO);
    let m = r.link_matrix(true);
    [0, 1, 2].map(|i| v(m.row(i)))
}

#[test]
fn three_joints_reach_the_goal_in_the_swivel_plane() {
    let rest = arm();
    let (elbow0, wrist0) = (v(rest.first_joint()), v(rest.end_effector()));
    let (l1, l2) = (len(elbow0), len(sub(wrist0, elbow0)));
    assert!((l1 - 3.0).abs() < 1e-5 && (l2 - 2.0).abs() < 1e-5);
    let n0 = unit(cross(unit(wrist0), unit(elbow0)));
    let zm = move |e: P3| default_zero_map(f(n0), e);
    let goals: [V; 4] = [
        [1.0, 2.0, 3.0],
        [-2.5, 0.4, 1.0],
        [0.3, -3.1, -1.9],
        [4.0, 1.0, -0.5],
    ];
    for g in goals {
        for swivel in [0.0f32, 0.7, -2.1] {
            let mut c = arm();
            let goal = HiGoal {
                goal: M3::translation(f(g)),
                swivel: Swivel::InStartJoint(swivel),
                zero_map: &zm,
            };
            solve(&mut c, &goal).expect("solves");
            let (elbow, wrist) = (v(c.first_joint()), v(c.end_effector()));
            // Reach (all four goals lie in the shell 1 < d < 5).
            close(wrist, g, 5e-5);
            assert!((len(elbow) - l1).abs() < 5e-5 && (len(sub(wrist, elbow)) - l2).abs() < 5e-5);
            // The plane: ee ^ elbow is the zero-map normal turned by the swivel
            // about the goal line (right-hand, the [CORE] choice of docs/ik.md).
            let ee = unit(g);
            let zero = unit(sub(n0, scale(ee, dot(n0, ee))));
            let expected = rot(zero, ee, f64::from(swivel));
            // Tolerance: the swivel scalar is acos of a float dot product, and
            // p·p an ulp under 1 gives acos(1 − 2⁻²⁴) ≈ 3.5e-4 rad (seen here
            // on one goal at swivel 0; the reference's arithmetic).
            close(unit(cross(ee, elbow)), expected, 5e-4);
        }
    }
}

#[test]
fn three_joints_clamp_a_goal_out_of_reach_onto_the_goal_line() {
    let rest = arm();
    let (elbow0, wrist0) = (v(rest.first_joint()), v(rest.end_effector()));
    let n0 = unit(cross(unit(wrist0), unit(elbow0)));
    let zm = move |e: P3| default_zero_map(f(n0), e);
    for (g, d) in [([9.0, -4.0, 2.0], 5.0), ([0.2, 0.1, -0.3], 1.0)] {
        let mut c = arm();
        let goal = HiGoal {
            goal: M3::translation(f(g)),
            swivel: Swivel::InStartJoint(0.0),
            zero_map: &zm,
        };
        solve(&mut c, &goal).expect("solves");
        // Full reach: acos of a cosine an ulp off 1 (docs/ik.md) bends ≤ 1e-3.
        close(v(c.end_effector()), scale(unit(g), d), 5e-3);
    }
}

/// A one-bone chain: the start joint with preferred angles on every axis and
/// a bone of 4 along its x axis.
fn bone() -> HiChain {
    let init = p3(0.4, -0.7, 1.1);
    HiChain {
        root: RootLink {
            rot_xyz: init,
            init_xyz: init,
            rigid_extend: M3::translation(p3(4.0, 0.0, 0.0)),
        },
        links: Vec::new(),
    }
}

#[test]
fn one_bone_turns_the_preferred_frame_by_the_shortest_rotation() {
    let rest = bone();
    let axes0 = root_axes(&rest);
    let b0 = unit(v(rest.first_joint()));
    for g in [[1.0, 2.0, 3.0], [-3.0, 0.5, -1.0], [0.0, -2.0, 0.1]] {
        aim_goal(f(b0), f(g)).expect("a turn axis");
        let mut c = bone();
        let goal = HiGoal {
            goal: M3::translation(f(g)),
            swivel: Swivel::InStartJoint(0.0),
            zero_map: &any_normal,
        };
        solve(&mut c, &goal).expect("solves");
        // The bone points at the goal and keeps its length.
        close(v(c.first_joint()), scale(unit(g), 4.0), 5e-5);
        // Every preferred axis turned about b0 ^ g by the angle between them.
        let axis = unit(cross(b0, unit(g)));
        let angle = dot(b0, unit(g)).clamp(-1.0, 1.0).acos();
        let axes = root_axes(&c);
        for i in 0..3 {
            close(axes[i], rot(axes0[i], axis, angle), 5e-5);
        }
    }
}

#[test]
fn one_bone_does_not_depend_on_the_zero_map() {
    let g = p3(-1.0, 2.5, 0.7);
    let solve_with = |zm: &dyn Fn(P3) -> P3| {
        let mut c = bone();
        let goal = HiGoal {
            goal: M3::translation(g),
            swivel: Swivel::InStartJoint(0.0),
            zero_map: zm,
        };
        solve(&mut c, &goal).expect("solves");
        root_axes(&c)
    };
    let a = solve_with(&any_normal);
    // Another perpendicular: any_normal turned 1 rad about the argument.
    let other = |e: P3| {
        let ev = unit(v(e));
        f(rot(v(any_normal(e)), ev, 1.0))
    };
    let b = solve_with(&other);
    for i in 0..3 {
        close(a[i], b[i], 5e-5);
    }
    // any_normal is a unit vector across its argument.
    for e in [[1.0, 0.0, 0.0], [0.3, -0.2, 0.9], [-5.0, 4.0, 0.0]] {
        let n = v(any_normal(f(e)));
        assert!(
            (len(n) - 1.0).abs() < 1e-6 && dot(n, e).abs() < 1e-6,
            "{n:?}"
        );
    }
}

#[test]
fn what_the_solver_leaves_to_the_core_is_refused_by_name() {
    let e = joint_count(4);
    assert!(e.to_string().contains("IKLimb chain of 4 joints"), "{e}");
    assert!(middle_axes([Some(true); 3]).is_ok());
    let e = middle_axes([Some(true), Some(false), Some(true)]).expect_err("Y off");
    assert!(e.to_string().contains("2 active rotation axes"), "{e}");
    let e = middle_axes([Some(true), None, Some(true)]).expect_err("not read");
    assert!(e.to_string().contains("not read"), "{e}");
    let e = goal_off_pivot(P3::ZERO).expect_err("goal on the pivot");
    assert!(e.to_string().contains("start joint's pivot"), "{e}");
    assert!(goal_off_pivot(p3(0.0, 1e-6, 0.0)).is_ok());
    // Straight behind the bone: no turn axis.
    let e = aim_goal(p3(2.0, 0.0, 0.0), p3(-3.0, 0.0, 0.0)).expect_err("behind");
    assert!(e.to_string().contains("no turn axis"), "{e}");
    // Straight ahead: no turn, nothing refused.
    assert!(aim_goal(p3(2.0, 0.0, 0.0), p3(5.0, 0.0, 0.0)).is_ok());
    assert!(aim_goal(p3(2.0, 0.0, 0.0), P3::ZERO).is_err());
}
