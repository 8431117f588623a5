//! IK Limb: the gate that lets a chain evaluate only at the measured pose
//! (goal on the preferred end joint, swivel 0, no VH target), and the HI
//! computation it runs there giving back the preferred pose — the manual's
//! "rotation between the initial and the target chain plane" is the identity
//! when the two planes are one.

use super::super::chain::default_zero_map;
use super::super::hi_limb::*;
use super::super::limb::{joint_count, verified, AT_PREFERRED};
use super::super::primitives::{p3, M3, P3};
use super::{len, sub, v};

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
fn the_gate_takes_the_preferred_pose_only() {
    let end = p3(1.0, 2.0, 3.0);
    let near = p3(1.0 + (0.5 * AT_PREFERRED * 5.0) as f32, 2.0, 3.0);
    let far = p3(1.0 + (2.0 * AT_PREFERRED * 5.0) as f32, 2.0, 3.0);
    assert!(verified(end, end, 5.0, 0.0, false).is_ok());
    assert!(verified(end, near, 5.0, 0.0, false).is_ok());
    let e = verified(end, far, 5.0, 0.0, false).expect_err("away from the preferred end");
    assert!(e.to_string().contains("preferred pose's end joint"), "{e}");
    let e = verified(end, end, 5.0, 0.1, false).expect_err("swivel");
    assert!(e.to_string().contains("swivel angle 0.1"), "{e}");
    let e = verified(end, end, 5.0, 0.0, true).expect_err("VH target");
    assert!(e.to_string().contains("VH target"), "{e}");
    // Damaged input is refused, never accepted.
    assert!(verified(end, p3(f32::NAN, 2.0, 3.0), 5.0, 0.0, false).is_err());
    assert!(verified(end, end, 0.0, 0.0, false).is_err());
    assert!(verified(end, end, f64::NAN, 0.0, false).is_err());
    let e = joint_count(2);
    assert!(e.to_string().contains("IKLimb chain of 2 joints"), "{e}");
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
