//! The HI (history-independent) limb solver of seed 000 §3: a two-bone chain —
//! a three-axis root joint (the shoulder, `RootLink`) and three one-axis links
//! (the elbow's Z, Y, X degrees of freedom) — solved analytically by the law
//! of cosines in chain-root space, the chain plane set by the swivel, and the
//! result written back as Euler angles. With no links it is the aim variant
//! (§3.3): the root alone turns its bone toward the goal.

use std::f64::consts::PI;

use super::primitives::{acos_safe, apply_row_quat, make_row_quat, M3, P3};
use super::SolveError;

/// The chain's root joint: three rotation degrees of freedom plus the rigid
/// offset to the first child joint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RootLink {
    /// The solved rotation (Euler XYZ, radians).
    pub rot_xyz: P3,
    /// The initial rotation every solve starts from.
    pub init_xyz: P3,
    /// Offset to the first child joint in the root's frame.
    pub rigid_extend: M3,
}

impl RootLink {
    /// `LinkMatrix(include_rot)`: the rigid offset, then (when asked) the
    /// rotation `RotX(x)·RotY(y)·RotZ(z)` — so the translation is the first
    /// child joint in chain-root space.
    pub fn link_matrix(&self, include_rot: bool) -> M3 {
        if !include_rot {
            return self.rigid_extend;
        }
        let mut m = self.rigid_extend;
        // rigidExtend · RotX · RotY · RotZ, built right to left by pre-rotation.
        let mut r = M3::rotate_axis(2, self.rot_xyz.z);
        r.pre_rotate(1, self.rot_xyz.y);
        r.pre_rotate(0, self.rot_xyz.x);
        m = m.mul(&r);
        m
    }
}

/// One single-axis rotational link of the chain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// Rotation axis: 0 = X, 1 = Y, 2 = Z.
    pub axis: usize,
    /// The solved angle (radians).
    pub dof_value: f32,
    /// The angle every solve starts from.
    pub init_value: f32,
    /// Offset to the next joint, applied in the rotated frame.
    pub rigid_extend: M3,
}

impl Link {
    /// `DofMatrix()`: the rotation by the current value about the link's axis.
    pub fn dof_matrix(&self) -> M3 {
        M3::rotate_axis(self.axis.min(2), self.dof_value)
    }

    /// `LinkMatrix(include_dof)`: the rigid offset after the degree of freedom.
    pub fn link_matrix(&self, include_dof: bool) -> M3 {
        if include_dof {
            self.rigid_extend.mul(&self.dof_matrix())
        } else {
            self.rigid_extend
        }
    }

    /// `ApplyLinkMatrix(M, include_dof)`: `M = LinkMatrix · M`.
    pub fn apply_link_matrix(&self, m: &M3, include_dof: bool) -> M3 {
        self.link_matrix(include_dof).mul(m)
    }
}

/// A HI chain as `IHIIKGoal`'s solver sees it: the root and 0 or 3 links
/// (link 0 rotates about Z, link 1 about Y, link 2 about X).
#[derive(Debug, Clone, PartialEq)]
pub struct HiChain {
    pub root: RootLink,
    pub links: Vec<Link>,
}

impl HiChain {
    /// The end of the chain (the wrist) in chain-root space at the current
    /// angles: every link applied over the root's link matrix.
    pub fn end_effector(&self) -> P3 {
        let mut m = self.root.link_matrix(true);
        for l in &self.links {
            m = l.apply_link_matrix(&m, true);
        }
        m.trans()
    }

    /// The first child joint (the elbow) in chain-root space.
    pub fn first_joint(&self) -> P3 {
        self.root.link_matrix(true).trans()
    }
}

/// Where the swivel comes from (`UseVHTarget()`, `SwivelAngleParent()`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Swivel {
    /// A target position (chain-root space) the chain plane turns toward.
    VhTarget(P3),
    /// The swivel angle measured in the start joint's space.
    InStartJoint(f32),
    /// The swivel angle measured in the goal's space.
    InGoal(f32),
}

/// The goal of a HI solve. `zero_map` is the goal's `DefaultZeroMap()`: from an
/// end-effector direction to the zero-swivel reference vector (the chain
/// plane's normal at swivel 0).
pub struct HiGoal<'z> {
    /// The goal transform, relative to the chain root.
    pub goal: M3,
    pub swivel: Swivel,
    pub zero_map: &'z dyn Fn(P3) -> P3,
}

/// Law-of-cosines angles (§3.1) with the reference's expression order: the
/// interior angle at the elbow (θ) and the angle at the shoulder between the
/// first bone and the shoulder–wrist line (φ).
pub fn triangle_angles(l1: f32, l2: f32, d: f32) -> (f32, f32) {
    let (l1d, l2d, dd) = (f64::from(l1), f64::from(l2), f64::from(d));
    let elbow_num = (l1d * l1d + l2d * l2d - dd * dd) as f32;
    let cos_elbow = (f64::from(elbow_num) / (2.0 * l1d * l2d)) as f32;
    let theta = acos_safe(cos_elbow) as f32;
    let shoulder_num = (dd * dd + l1d * l1d - l2d * l2d) as f32;
    let cos_shoulder = (f64::from(shoulder_num) / (2.0 * dd * l1d)) as f32;
    let phi = acos_safe(cos_shoulder) as f32;
    (theta, phi)
}

/// The goal clamp (§3.2): a goal beyond the reach `lsum` is pulled in to it, a
/// goal nearer than `|ldiff|` pushed out to it, along the goal direction.
pub fn clamp_goal(g: P3, lsum: f32, ldiff: f32) -> P3 {
    let goal_dist = g.flength();
    let goal_unit = g.normalize();
    let min = f64::from(ldiff).abs() as f32;
    if goal_dist > lsum {
        goal_unit.scale(lsum)
    } else if goal_dist < min {
        goal_unit.scale(min)
    } else {
        g
    }
}

/// The target normal `t` of the chain plane for end-effector direction `ee`
/// (§3.2), before the swivel scalar is taken.
pub fn target_normal(goal: &HiGoal<'_>, ee: P3) -> P3 {
    let p = (goal.zero_map)(ee);
    match goal.swivel {
        Swivel::VhTarget(vh) => {
            let mut t = vh.normalize();
            t = t.minus(ee.scale(ee.dot(t)));
            if t.length_unify() == 0.0 {
                p
            } else {
                ee.cross(t)
            }
        }
        Swivel::InStartJoint(angle) => apply_row_quat(p, make_row_quat(ee, angle)),
        Swivel::InGoal(angle) => {
            let mut t = P3::ZERO;
            let mut ee_in_goal = ee.vector_transform(&goal.goal.inverse());
            if ee_in_goal.length_unify() != 0.0 {
                let t_in_goal = apply_row_quat(
                    (goal.zero_map)(ee_in_goal),
                    make_row_quat(ee_in_goal, angle),
                );
                t = t_in_goal.vector_transform(&goal.goal);
                t = t.minus(ee.scale(ee.dot(t)));
            }
            if t.length_unify() == 0.0 {
                p
            } else {
                t
            }
        }
    }
}

/// The swivel scalar: the angle from `p` to `t`, taken the long way round when
/// their cross product points against `ee`.
pub fn swivel_angle(p: P3, t: P3, ee: P3) -> f32 {
    let mut swivel = p.dot(t);
    swivel = acos_safe(swivel) as f32;
    let cross = p.cross(t);
    if cross.dot(ee) < 0.0 {
        swivel = (2.0 * PI - f64::from(swivel)) as f32;
    }
    swivel
}

/// A frame with rows `r0`, `r1`, `Normalize(r0 ^ r1)` and no translation — the
/// initial shoulder frame (row 1 deliberately not re-orthogonalized).
pub(super) fn frame(r0: P3, r1: P3) -> M3 {
    M3::from_rows(r0, r1, r0.cross(r1).normalize(), P3::ZERO)
}

/// The shoulder write-back shared by both variants (§3.2): the rotation from
/// the initial frame to the solved frame, compensated by the initial angles
/// (known-inexact for nonzero initial angles; reproduced as shipped), as
/// Euler XYZ into the root's `rot_xyz`.
pub(super) fn write_shoulder(root: &mut RootLink, initial: &M3, solved: &M3) {
    let mut r = initial.inverse().mul(solved);
    r.pre_rotate(2, root.init_xyz.z);
    r.pre_rotate(1, root.init_xyz.y);
    r.pre_rotate(0, root.init_xyz.x);
    root.rot_xyz = r.to_euler_xyz();
}

/// Solves `chain` toward `goal` in place. Stateless: the pose restarts from
/// the initial angles each call. Link counts other than 0 and 3 are refused
/// (`bInvalidInitialValue`) and the chain is left as it was.
pub fn solve(chain: &mut HiChain, goal: &HiGoal<'_>) -> Result<(), SolveError> {
    match chain.links.len() {
        0 | 3 => {}
        n => return Err(SolveError::LinkCount(n)),
    }
    chain.root.rot_xyz = chain.root.init_xyz;
    for l in &mut chain.links {
        l.dof_value = l.init_value;
    }
    if chain.links.is_empty() {
        solve_aim(chain, goal);
        return Ok(());
    }
    let root = chain.root;
    let links = &chain.links;

    // Initial pose in chain space (§3.1).
    let elbow_tm = links[2]
        .dof_matrix()
        .mul(&links[1].link_matrix(true))
        .mul(&links[0].link_matrix(true))
        .mul(&root.link_matrix(true));
    let elbow_pos = elbow_tm.trans();
    let mut m = root.link_matrix(true);
    for l in links {
        m = l.apply_link_matrix(&m, true);
    }
    let wrist_pos = m.trans();
    let ee_unit = wrist_pos.normalize();
    let l1 = elbow_pos.flength();
    let l2 = wrist_pos.minus(elbow_pos).flength();
    let lsum = l1 + l2;
    let ldiff = l1 - l2;
    let (theta0, phi0) = triangle_angles(l1, l2, wrist_pos.flength());
    let initial = frame(ee_unit, (goal.zero_map)(ee_unit));

    // The same in the shoulder's own frame: the initial chain-plane normal.
    let mut m2 = root.link_matrix(false);
    let elbow_unit_local = m2.trans().normalize();
    for l in links {
        m2 = l.apply_link_matrix(&m2, true);
    }
    let ee_unit_local = m2.trans().normalize();
    let init_plane_normal = ee_unit_local.cross(elbow_unit_local).normalize();

    // Goal clamp and the solved triangle (§3.2).
    let wrist = clamp_goal(goal.goal.trans(), lsum, ldiff);
    let ee = wrist.normalize();
    let (theta, phi) = triangle_angles(l1, l2, wrist.flength());

    // Swivel and frame update.
    let p = (goal.zero_map)(ee);
    let t = target_normal(goal, ee);
    let swivel = swivel_angle(p, t, ee);
    let m1 = M3::rot_angle_axis(p, phi - phi0);
    let m2 = M3::rot_angle_axis(ee, swivel);
    let rx = ee.vector_transform(&m1).vector_transform(&m2);
    let ry = p.vector_transform(&m2);
    let rz = rx.cross(ry).normalize();
    let solved = M3::from_rows(rx, ry, rz, P3::ZERO);
    write_shoulder(&mut chain.root, &initial, &solved);

    // Elbow: the bend about the initial plane normal, written crosswise.
    let mut e = M3::rot_angle_axis(init_plane_normal, theta - theta0);
    e.pre_rotate(2, links[0].init_value);
    e.pre_rotate(1, links[1].init_value);
    e.pre_rotate(0, links[2].init_value);
    let eul = e.to_euler_xyz();
    chain.links[0].dof_value = eul.z;
    chain.links[1].dof_value = eul.y;
    chain.links[2].dof_value = eul.x;
    Ok(())
}

/// The aim variant (§3.3): turn the root so its first child joint points at
/// the goal, the shortest way. An (anti)parallel goal leaves a zero axis —
/// inherited from the reference, not fixed.
fn solve_aim(chain: &mut HiChain, goal: &HiGoal<'_>) {
    let init_ee_unit = chain.root.link_matrix(true).trans().normalize();
    let initial = frame(init_ee_unit, (goal.zero_map)(init_ee_unit));
    let ee = goal.goal.trans().normalize();
    let ang = acos_safe(init_ee_unit.dot(ee)) as f32;
    let axis = init_ee_unit.cross(ee).normalize();
    let m = M3::rot_angle_axis(axis, ang);
    let rx = init_ee_unit.vector_transform(&m);
    let ry = initial.row(1).vector_transform(&m);
    let rz = rx.cross(ry).normalize();
    let solved = M3::from_rows(rx, ry, rz, P3::ZERO);
    write_shoulder(&mut chain.root, &initial, &solved);
}
