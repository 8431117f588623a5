use std::f64::consts::PI;

use super::super::primitives::*;
use super::{close, v};

#[test]
fn acos_safe_clamps_on_the_float_argument_and_returns_double() {
    assert_eq!(acos_safe(-1.0), PI);
    assert_eq!(acos_safe(-3.0), PI);
    assert_eq!(acos_safe(1.0), 0.0);
    assert_eq!(acos_safe(1.000_000_1), 0.0);
    assert_eq!(acos_safe(0.5), 0.5f64.acos());
    // The result is the double acos, not yet truncated to float.
    let r = acos_safe(0.1);
    assert_eq!(r, f64::from(0.1f32).acos());
    assert_ne!(r, f64::from(r as f32));
    assert!(acos_safe(f32::NAN).is_nan());
}

#[test]
fn length_and_flength_differ_where_the_float_sum_rounds() {
    // 1 + (2⁻¹³)² + (3·2⁻¹³)² = 1 + 1.25·2⁻²³ exactly in the register. Length:
    // √ ≈ 1 + 0.625·2⁻²³, nearer 1 + 2⁻²³ than 1. FLength: the float sum is
    // 1 + 2⁻²³, whose root 1 + 2⁻²⁴ − … rounds down to 1.
    let p = p3(1.0, 2f32.powi(-13), 3.0 * 2f32.powi(-13));
    assert_eq!(p.sum_sq(), 1.0 + 1.25 * 2f64.powi(-23));
    assert_eq!(p.length(), 1.0 + f32::EPSILON);
    assert_eq!(p.flength(), 1.0);
    assert_eq!(sqrt_f(2.0), std::f32::consts::SQRT_2);
    assert_eq!(sqrt_f(16.0), 4.0);
}

#[test]
fn normalizers_leave_zero_alone_and_report_the_raw_length() {
    assert_eq!(P3::ZERO.normalize(), P3::ZERO);
    let mut z = P3::ZERO;
    assert_eq!(z.length_unify(), 0.0);
    assert_eq!(z, P3::ZERO);
    let mut p = p3(3.0, 4.0, 0.0);
    assert_eq!(p.length_unify(), 5.0);
    assert_eq!(p, p3(0.6, 0.8, 0.0));
    assert_eq!(p3(0.0, 0.0, -2.0).normalize(), p3(0.0, 0.0, -1.0));
}

#[test]
fn cross_and_dot_follow_the_standard_formulas() {
    let (x, y, z) = (P3::unit(0), P3::unit(1), P3::unit(2));
    assert_eq!(x.cross(y), z);
    assert_eq!(y.cross(z), x);
    assert_eq!(z.cross(x), y);
    assert_eq!(p3(1.0, 2.0, 3.0).dot(p3(4.0, -5.0, 6.0)), 12.0);
}

#[test]
fn row_quat_is_the_negated_sine_truncated_before_the_product() {
    let axis = p3(0.0, 0.6, 0.8);
    let q = make_row_quat(axis, 1.0);
    let s = -(0.5f64.sin()) as f32;
    assert_eq!(q.y, s * 0.6);
    assert_eq!(q.z, s * 0.8);
    assert_eq!(q.w, 0.5f64.cos() as f32);
    assert_eq!(q.x, 0.0);
}

#[test]
fn local_vector_product_matches_its_component_formulas() {
    let q = Q4 {
        x: 1.0,
        y: 2.0,
        z: 3.0,
        w: 4.0,
    };
    let r = q.mul_vec(p3(5.0, 6.0, 7.0));
    // w = −(5 + 12 + 21); x = 20 + 14 − 18; y = 24 + 15 − 7; z = 28 + 6 − 10.
    assert_eq!((r.w, r.x, r.y, r.z), (-38.0, 16.0, 32.0, 24.0));
}

#[test]
fn quat_product_and_conjugate() {
    let i = Q4 {
        x: 1.0,
        y: 0.0,
        z: 0.0,
        w: 0.0,
    };
    let j = Q4 {
        x: 0.0,
        y: 1.0,
        z: 0.0,
        w: 0.0,
    };
    let k = i.times(j);
    assert_eq!((k.x, k.y, k.z, k.w), (0.0, 0.0, 1.0, 0.0));
    let c = Q4 {
        x: 1.0,
        y: -2.0,
        z: 3.0,
        w: 4.0,
    }
    .conjugate();
    assert_eq!((c.x, c.y, c.z, c.w), (-1.0, 2.0, -3.0, 4.0));
    assert_eq!(Q4::default().w, 1.0);
}

#[test]
fn apply_row_quat_turns_right_handed_about_the_axis() {
    // Two 90° turns about distinct axes discriminate the product order: x
    // about z gives y, then about x gives z.
    let half_pi = std::f32::consts::FRAC_PI_2;
    let a = apply_row_quat(P3::unit(0), make_row_quat(P3::unit(2), half_pi));
    close(v(a), [0.0, 1.0, 0.0], 1e-7);
    let b = apply_row_quat(a, make_row_quat(P3::unit(0), half_pi));
    close(v(b), [0.0, 0.0, 1.0], 3e-7);
    // A zero angle is exact.
    let p = p3(0.3, -0.4, 0.5);
    assert_eq!(apply_row_quat(p, make_row_quat(P3::unit(1), 0.0)), p);
}

#[test]
fn rotation_matrices_are_right_handed_for_row_vectors() {
    let a = 0.7f32;
    let m = M3::rot_angle_axis(P3::unit(2), a);
    let r = M3::rotate_axis(2, a);
    for i in 0..3 {
        for j in 0..3 {
            assert!((m.m[i][j] - r.m[i][j]).abs() <= 1e-7, "{i}{j}");
        }
    }
    let (s, c) = 0.7f64.sin_cos();
    close(v(P3::unit(0).vector_transform(&r)), [c, s, 0.0], 1e-7);
    close(
        v(P3::unit(1).vector_transform(&M3::rotate_axis(0, a))),
        [0.0, c, s],
        1e-7,
    );
    close(
        v(P3::unit(2).vector_transform(&M3::rotate_axis(1, a))),
        [s, 0.0, c],
        1e-7,
    );
    // About a general axis: the axis itself stays, a perpendicular turns.
    let axis = p3(2.0, -1.0, 2.0).normalize();
    let m = M3::rot_angle_axis(axis, 1.1);
    close(v(axis.vector_transform(&m)), v(axis), 1e-6);
    let x = p3(1.0, 2.0, 0.0).normalize();
    let expected = super::rot(v(x), v(axis), 1.1);
    close(v(x.vector_transform(&m)), expected, 1e-6);
}

#[test]
fn pre_rotate_multiplies_on_the_left() {
    let mut m = M3::translation(p3(1.0, 2.0, 3.0));
    m.pre_rotate(2, std::f32::consts::FRAC_PI_2);
    // Points turn first, then translate.
    close(v(P3::unit(0).transform(&m)), [1.0, 3.0, 3.0], 1e-6);
}

#[test]
fn euler_xyz_inverts_rot_x_rot_y_rot_z() {
    for (x, y, z) in [
        (0.3f32, -0.5f32, 1.1f32),
        (-2.0, 1.2, -0.1),
        (0.0, 0.0, 0.0),
    ] {
        let mut m = M3::rotate_axis(2, z);
        m.pre_rotate(1, y);
        m.pre_rotate(0, x);
        let e = m.to_euler_xyz();
        close(v(e), [x.into(), y.into(), z.into()], 2e-6);
    }
    // At gimbal lock z is 0 and x carries the rest; the matrix is rebuilt.
    let mut m = M3::rotate_axis(2, 0.4);
    m.pre_rotate(1, std::f32::consts::FRAC_PI_2);
    m.pre_rotate(0, 0.9);
    let e = m.to_euler_xyz();
    assert_eq!(e.z, 0.0);
    let mut r = M3::rotate_axis(2, e.z);
    r.pre_rotate(1, e.y);
    r.pre_rotate(0, e.x);
    for i in 0..3 {
        close(v(r.row(i)), v(m.row(i)), 1e-6);
    }
}

#[test]
fn inverse_undoes_an_affine_transform() {
    let mut m = M3::rot_angle_axis(p3(1.0, 1.0, 0.0).normalize(), 0.8);
    m.set_row(3, p3(4.0, -2.0, 1.0));
    let p = p3(0.5, 1.5, -2.5);
    close(v(p.transform(&m).transform(&m.inverse())), v(p), 1e-5);
    let i = m.mul(&m.inverse());
    for r in 0..4 {
        close(v(i.row(r)), v(M3::IDENTITY.row(r)), 1e-6);
    }
}

#[test]
fn quat_matrix_and_pre_apply_agree_with_apply_row_quat() {
    // Quat(AngAxis) holds the angle unnegated; the rotation value wraps the
    // conjugate, so the twist turns right-handed by the angle.
    let q = Q4::from_ang_axis(P3::unit(2), 0.5).conjugate();
    let m = q.make_matrix();
    let (s, c) = 0.5f64.sin_cos();
    close(v(P3::unit(0).vector_transform(&m)), [c, s, 0.0], 1e-7);
    let p = p3(0.2, -0.7, 0.4);
    let q = Q4::from_ang_axis(p3(1.0, 2.0, 2.0).normalize(), 1.3);
    close(
        v(p.vector_transform(&q.make_matrix())),
        v(apply_row_quat(p, q)),
        1e-6,
    );
    let base = M3::translation(p3(1.0, 0.0, 0.0));
    let pre = Q4::from_ang_axis(P3::unit(2), 0.5)
        .conjugate()
        .pre_apply_to(&base);
    close(v(P3::unit(0).transform(&pre)), [1.0 + c, s, 0.0], 1e-6);
}
