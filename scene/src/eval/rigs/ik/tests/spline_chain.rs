//! The joint iterator's data built from IKControl rest offsets and angles
//! (`spline_chain::joints`): each pivot must be where the nodes' own
//! composition (rest Euler XYZ, then the rest offset, under the parent)
//! puts the joint, computed here independently in f64 with
//! `euler_matrix` (the PRS controller's Euler XYZ).

use super::super::primitives::{p3, P3};
use super::super::spline_chain::joints;
use crate::eval::core::controller::euler_matrix;
use crate::eval::core::math::{Mat43, Vec3};

fn world_pivots(rest: &[(P3, P3)]) -> Vec<Vec3> {
    let mut up = Mat43::IDENTITY;
    rest.iter()
        .map(|(o, a)| {
            let local = euler_matrix(0, [a.x.into(), a.y.into(), a.z.into()])
                .then(&Mat43::translation(Vec3::from_f32([o.x, o.y, o.z])));
            up = local.then(&up);
            up.0[3]
        })
        .collect()
}

fn close(a: P3, b: Vec3, tol: f64) -> bool {
    (f64::from(a.x) - b.0).abs() < tol
        && (f64::from(a.y) - b.1).abs() < tol
        && (f64::from(a.z) - b.2).abs() < tol
}

#[test]
fn a_straight_chain_along_x_has_its_pivots_one_bone_apart() {
    let rest = [
        (p3(0.0, 0.0, 0.0), p3(0.0, 0.0, 0.0)),
        (p3(2.0, 0.0, 0.0), p3(0.0, 0.0, 0.0)),
        (p3(3.0, 0.0, 0.0), p3(0.0, 0.0, 0.0)),
    ];
    let j = joints(&rest);
    assert_eq!(
        j.len(),
        2,
        "one joint per bone; the end joint is the last distal end"
    );
    assert_eq!(j[0].pivot, p3(0.0, 0.0, 0.0));
    assert_eq!(j[0].distal_end, p3(2.0, 0.0, 0.0));
    assert_eq!(j[1].pivot, p3(2.0, 0.0, 0.0));
    assert_eq!(j[1].distal_end, p3(5.0, 0.0, 0.0));
    assert!(j.iter().all(|j| &j.axes == b"xyz"));
}

#[test]
fn a_bent_chain_has_its_pivots_where_the_nodes_compose_them() {
    // The start joint's offset is not part of chain space (its origin).
    let rest = [
        (p3(0.0, 0.0, 0.0), p3(0.3, -0.2, 1.1)),
        (p3(4.0, 0.0, 0.0), p3(0.1, 0.4, -0.7)),
        (p3(3.0, 0.5, 0.0), p3(-0.2, 0.0, 0.9)),
        (p3(2.5, 0.0, 0.1), p3(0.0, 0.0, 0.0)),
    ];
    let expected = world_pivots(&rest);
    let j = joints(&rest);
    assert_eq!(j.len(), 3);
    for k in 0..3 {
        assert!(close(j[k].pivot, expected[k], 1e-5), "pivot {k}");
        assert!(
            close(j[k].distal_end, expected[k + 1], 1e-5),
            "distal end {k}"
        );
        assert_eq!(j[k].angles, rest[k].1);
    }
}

#[test]
fn fewer_than_two_joints_give_no_bone() {
    assert!(joints(&[]).is_empty());
    assert!(joints(&[(p3(1.0, 2.0, 3.0), p3(0.0, 0.0, 0.0))]).is_empty());
}
