//! Joint flags the HI and IK Limb solves do not apply are refused by name;
//! Max's defaults pass.

use super::super::joint_flags::JointFlags;

#[test]
fn flags_the_solve_does_not_apply_refuse_the_chain() {
    let d = JointFlags::DEFAULT;
    assert!(d.check("start", true).is_ok());
    assert!(d.check("middle", false).is_ok());

    let mut upper_rot_y = d;
    // Rotation Y's upper-limited flag (parameter 22).
    upper_rot_y.limited[9] = Some(true);
    let e = upper_rot_y.check("middle", true).expect_err("limited");
    assert!(e.to_string().contains("upper limit on rotation Y"), "{e}");

    let mut sliding = d;
    sliding.pos_active[2] = Some(true);
    let e = sliding.check("start", true).expect_err("sliding");
    assert!(e.to_string().contains("start joint slides"), "{e}");

    let mut x_off = d;
    x_off.rot_active[0] = Some(false);
    let e = x_off.check("middle", true).expect_err("X inactive");
    assert!(e.to_string().contains("2 active rotation axes"), "{e}");
    // The IK Limb's middle joint: its axes are checked elsewhere.
    assert!(x_off.check("middle", false).is_ok());

    let mut unread = d;
    unread.limited[0] = None;
    let e = unread.check("start", true).expect_err("not read");
    assert!(e.to_string().contains("not read"), "{e}");
}
