//! Figure-mode world TMs of the hands, fingers, toe links beyond the base,
//! the nub dummies and the footsteps node.
//!
//! - **Hand**: at the forearm's end (arm structure half \[2\] along its X).
//!   Its fingers sit in the frame `K = rot(h′) · forearm`, h′ = (x, y, −z, w)
//!   of the arm pose half's quaternion h at \[28..31\] on the right; the hand
//!   bone itself is K turned about its X by π/2 − ε on the right, −(π/2 − ε)
//!   on the left (NeoAxis Rabbit.skeleton: both hands exactly so relative to
//!   their forearms with h = identity). K was fitted on
//!   biped/SeanConway_Character's three skinned right finger bases (the
//!   positions imply K to 1.4e-5 for h = (0.0955, −0.0868, −0.1412, 0.9815)).
//! - **Finger base** k (arm structure half: \[16\] finger count, then per
//!   finger [links][4×4 M][link lengths]): at `(m12, m13, −m14) · K`, rotated
//!   `rot(d′) · Z · M · Z · K` with Z = diag(1, 1, −1) and d′ = (x, y, −z, w)
//!   of the finger's delta quaternion (arm pose half [47 + 46k..], Max 2013+
//!   290-word halves): SeanConway's three right finger bases to 2e-7.
//! - **Finger links** j ≥ 1: `rot(q′) · parent` at the parent link's end (its
//!   structure length), q the link's own delta quaternion at finger block
//!   \[8j..8j + 3\], q′ in the base's side convention. biped/SeanConway_Character's
//!   Skin, instanced on its Biped Objects, stored the mesh TM of 14 finger
//!   links (both hands): all within 4e-7. The block's words \[38 + 3(j − 1)\]
//!   (0.2333 on every link there, a "curl") do not turn the link.
//! - **Toe links** beyond the base: `Rz(bend) · parent` at the parent link's
//!   end, the bend at leg pose half \[55 + 12k + j\] (Max 2013+) /
//!   \[53 + 10k + j\] (Max 2009, seed §11).
//! - **The left side** is the right side's rule mirrored through the pelvis's
//!   XY plane (S·R·S), each side reading its own half: the left hand turns by
//!   −(π/2 − ε), h and d enter conjugated, M unreflected and the base at
//!   (m12, m13, m14) · K. SeanConway_Character's left hand and its 15 finger
//!   bones (own structure and deltas, not the right's mirrored) match the
//!   Skin's stored mesh TMs so.
//! - **Nubs** (limb ids 22–29): at their parent's end, the parent's length
//!   being its object-offset X scale (node chunk 0x096c); axes the parent's,
//!   turned by π about Z for the right finger nubs (22) and the left toe nubs
//!   (24) — NeoAxis: Toe0Nub and HeadNub exact, L Toe0Nub turned — and by the
//!   half turn about (1, 1, 0)/√2 for the tail, ponytail and neck nubs (26,
//!   28, 29; seed §11) of the chain link's frame before its ε tilt:
//!   biped-ld35/Red's FBX holds Bip01 TailNub so at every frame (without
//!   the tilt's removal it is ε = 8e-4 off).
//! - **Footsteps**: the biped's own axes at the COM's (x, y) on the ground
//!   plane z = 0 (seed §11; the nel/ryzom_graphics skeletons put it 1.2 mm
//!   under the ground of a 1.9 m rig).

use super::arms;
use super::chains::EPSILON;
use super::figure::{half, with_position, Pose};
use super::{Rig, Role};
use crate::eval::core::math::{Mat43, Quat, Vec3};
use crate::eval::error::EvalError;

const ARM_STRUCTURE: &str = "0x0010";
/// Arm pose halves of this length (Max 2013+) hold the finger blocks.
const FINGER_POSE_HALF: usize = 290;
/// The first finger block and the words per finger in such a half.
const FINGER_FIRST: usize = 47;
const FINGER_BLOCK: usize = 46;
/// Finger link j's delta quaternion sits at word 8j of its finger's block
/// (j = 0 the base's; each followed by an identity quaternion).
pub(super) const FINGER_LINK_QUAT: usize = 8;
/// The hand quaternion in an arm pose half.
pub(super) const HAND_QUAT: usize = 28;
/// More links per digit or digits per limb than any Biped allows: damaged data.
const MAX_DIGIT_LINKS: usize = 16;
const MAX_DIGITS: usize = 16;

fn quat(v: &[f32]) -> Result<Quat, EvalError> {
    let q = Quat {
        x: v[0].into(),
        y: v[1].into(),
        z: v[2].into(),
        w: v[3].into(),
    };
    let n = q.dot(q);
    if !n.is_finite() || n < 1e-12 {
        return Err(EvalError::malformed(
            "",
            "digit or hand quaternion of zero length",
        ));
    }
    Ok(q.normalized())
}

fn rot(m: &Mat43) -> Mat43 {
    with_position(m, Vec3::default())
}

fn z_flip() -> Mat43 {
    Mat43::scaling(Vec3(1.0, 1.0, -1.0))
}

/// One finger or toe of a limb structure half: link count, base matrix
/// (row-major 4×4, Y-up rows) and link lengths.
pub(super) struct Digit {
    pub links: usize,
    pub m: [f64; 16],
    pub lengths: Vec<f64>,
}

/// The digits of a structure half whose digit count is the word at `count_at`.
pub(super) fn digits(structure: &[f32], count_at: usize) -> Result<Vec<Digit>, EvalError> {
    let count = structure
        .get(count_at)
        .ok_or_else(|| EvalError::malformed("", "limb structure too short for its digit count"))?
        .to_bits() as usize;
    if count > MAX_DIGITS {
        return Err(EvalError::malformed(
            "",
            format!("{count} digits in a limb structure"),
        ));
    }
    let mut at = count_at + 1;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let links = structure
            .get(at)
            .ok_or_else(|| EvalError::malformed("", "limb structure too short for its digits"))?
            .to_bits() as usize;
        if links == 0 || links > MAX_DIGIT_LINKS {
            return Err(EvalError::malformed(
                "",
                format!("{links} links per digit in a limb structure"),
            ));
        }
        let block = structure
            .get(at + 1..at + 17 + links)
            .ok_or_else(|| EvalError::malformed("", "limb structure too short for its digits"))?;
        out.push(Digit {
            links,
            m: std::array::from_fn(|i| f64::from(block[i])),
            lengths: block[16..].iter().map(|&v| f64::from(v)).collect(),
        });
        at += 17 + links;
    }
    Ok(out)
}

/// The 3×3 part of a digit's base matrix as a rotation (rows).
fn base_rows(m: &[f64; 16]) -> Mat43 {
    Mat43([
        Vec3(m[0], m[1], m[2]),
        Vec3(m[4], m[5], m[6]),
        Vec3(m[8], m[9], m[10]),
        Vec3::default(),
    ])
}

/// The frame the fingers of one hand are laid in (see the module doc),
/// placed at the hand's position.
fn finger_frame(rig: &Rig, at: &Pose, left: bool) -> Result<Mat43, EvalError> {
    let forearm = arms::forearm(rig, at, left)?;
    let s = half(rig, ARM_STRUCTURE, left)?;
    let pose = arms::arm_pose(at, left)?;
    let (Some(&length), Some(h)) = (s.get(2), pose.get(HAND_QUAT..HAND_QUAT + 4)) else {
        return Err(EvalError::malformed(
            "",
            "arm records too short for the hand",
        ));
    };
    let h = quat(h)?;
    let h = if left {
        h.conjugate()
    } else {
        Quat { z: -h.z, ..h }
    };
    let k = Mat43::rotation(h).then(&rot(&forearm));
    Ok(with_position(
        &k,
        forearm.transform_point(Vec3(f64::from(length), 0.0, 0.0)),
    ))
}

/// The hand (arm link 3).
pub fn hand(rig: &Rig, at: &Pose, left: bool) -> Result<Mat43, EvalError> {
    let k = finger_frame(rig, at, left)?;
    let turn = std::f64::consts::FRAC_PI_2 - EPSILON;
    let r = Mat43::rot_x(if left { -turn } else { turn }).then(&rot(&k));
    Ok(with_position(&r, k.0[3]))
}

/// Finger link `link` of one hand (links numbered across the fingers).
pub fn finger(rig: &Rig, at: &Pose, left: bool, link: u32) -> Result<Mat43, EvalError> {
    let limb = if left { 2 } else { 3 };
    let per = per_digit(rig, limb)?;
    let (k, j) = ((link / per) as usize, (link % per) as usize);
    let s = half(rig, ARM_STRUCTURE, left)?;
    let fingers = digits(s, 16)?;
    let digit = fingers.get(k).ok_or_else(|| {
        EvalError::malformed(
            "",
            format!("finger {k} of {} in the arm structure", fingers.len()),
        )
    })?;
    let pose = arms::arm_pose(at, left)?;
    if pose.len() != FINGER_POSE_HALF {
        return Err(EvalError::not_evaluated(format!(
            "fingers in a {}-word arm pose half",
            pose.len()
        )));
    }
    let block = pose
        .get(FINGER_FIRST + FINGER_BLOCK * k..FINGER_FIRST + FINGER_BLOCK * (k + 1))
        .ok_or_else(|| EvalError::malformed("", "arm pose too short for its fingers"))?;
    if j > 0 {
        let parent = finger(rig, at, left, link - 1)?;
        let q = block
            .get(FINGER_LINK_QUAT * j..FINGER_LINK_QUAT * j + 4)
            .ok_or_else(|| EvalError::malformed("", "finger link beyond its pose block"))?;
        return finger_link_after(&parent, side_quat(quat(q)?, left), digit, j);
    }
    let frame = finger_frame(rig, at, left)?;
    let d = side_quat(quat(&block[..4])?, left);
    let m = &digit.m;
    let (r, p) = if left {
        (
            Mat43::rotation(d).then(&base_rows(m)),
            Vec3(m[12], m[13], m[14]),
        )
    } else {
        (
            Mat43::rotation(d)
                .then(&z_flip())
                .then(&base_rows(m))
                .then(&z_flip()),
            Vec3(m[12], m[13], -m[14]),
        )
    };
    Ok(with_position(
        &r.then(&rot(&frame)),
        frame.transform_point(p),
    ))
}

/// A finger delta quaternion as it turns its bone: (x, y, −z, w) on the
/// right, the conjugate on the left (the left half stores the mirror image).
fn side_quat(q: Quat, left: bool) -> Quat {
    if left {
        q.conjugate()
    } else {
        Quat { z: -q.z, ..q }
    }
}

/// A finger link j ≥ 1: turned by its own delta `q` (already in the side's
/// convention, [`side_quat`]) from its parent link, at the parent's end.
fn finger_link_after(parent: &Mat43, q: Quat, digit: &Digit, j: usize) -> Result<Mat43, EvalError> {
    let length = link_length(digit, j)?;
    let r = Mat43::rotation(q).then(&rot(parent));
    Ok(with_position(
        &r,
        parent.transform_point(Vec3(length, 0.0, 0.0)),
    ))
}

/// The length of link j − 1 of a digit, where link j ≥ 1 starts.
fn link_length(digit: &Digit, j: usize) -> Result<f64, EvalError> {
    if j >= digit.links {
        return Err(EvalError::malformed(
            "",
            format!("digit link {j} of {}", digit.links),
        ));
    }
    digit
        .lengths
        .get(j - 1)
        .copied()
        .ok_or_else(|| EvalError::malformed("", format!("digit link {j} without a length")))
}

/// A toe link j ≥ 1: bent about its parent link's Z at the parent's end.
fn link_after(parent: &Mat43, bend: f64, digit: &Digit, j: usize) -> Result<Mat43, EvalError> {
    let length = link_length(digit, j)?;
    let r = Mat43::rot_z(bend).then(&rot(parent));
    Ok(with_position(
        &r,
        parent.transform_point(Vec3(length, 0.0, 0.0)),
    ))
}

fn per_digit(rig: &Rig, limb: u32) -> Result<u32, EvalError> {
    match rig.structure.link_counts.get(limb as usize).copied() {
        None | Some(0) => Err(EvalError::malformed(
            "",
            "digit without a link count (0x0100)",
        )),
        Some(n) => Ok(n),
    }
}

/// Toe link `j` ≥ 1 of toe `k`, after link j − 1 (`parent`).
pub fn toe_link(
    rig: &Rig,
    at: &Pose,
    left: bool,
    k: usize,
    j: usize,
    parent: &Mat43,
) -> Result<Mat43, EvalError> {
    let s = half(rig, super::figure::LEG_STRUCTURE, left)?;
    let toes = digits(s, 10)?;
    let digit = toes.get(k).ok_or_else(|| {
        EvalError::malformed(
            "",
            format!("toe {k} of {} in the leg structure", toes.len()),
        )
    })?;
    let pose = at.legs[usize::from(left)]
        .as_deref()
        .map_err(Clone::clone)?;
    let layout = super::figure::toe_layout(pose.len())?;
    let bend = *pose
        .get(layout.bends + layout.stride * k + j)
        .ok_or_else(|| EvalError::malformed("", "leg pose too short for its toe links"))?;
    link_after(parent, f64::from(bend), digit, j)
}

/// Whether a limb id is a nub dummy (seed §11's extension ids, and 400 +
/// k for the nub of extra limb k).
pub fn is_nub(limb: u32) -> bool {
    (22..=29).contains(&limb) || super::extra::is_extra_nub(limb)
}

/// A nub: at its parent's end, the parent's axes turned by the nub's constant.
pub fn nub(rig: &Rig, at: &Pose, role: Role) -> Result<Mat43, EvalError> {
    let Role::Part { limb, .. } = role else {
        return Err(EvalError::malformed("", "not a nub"));
    };
    let bone = rig
        .bones
        .iter()
        .find(|b| b.role == role)
        .ok_or_else(|| EvalError::malformed("", "nub without its node"))?;
    let parent = bone
        .parent
        .and_then(|p| rig.bones.iter().find(|b| b.node == p))
        .ok_or_else(|| EvalError::reference("", "nub whose parent is not a bone of its rig"))?;
    if matches!(parent.role, Role::Part { limb, .. } if is_nub(limb)) {
        return Err(EvalError::malformed("", "nub under a nub"));
    }
    let length = parent
        .length
        .ok_or_else(|| EvalError::malformed("", "nub whose parent has no length (0x096c)"))?;
    let p = super::figure::world_in(rig, at, parent.role)?;
    let turn = match limb {
        22 | 24 => Mat43::rot_z(std::f64::consts::PI),
        23 | 25 | 27 => Mat43::IDENTITY,
        // X and Y swapped, Z reversed (the half turn about (1, 1, 0)/√2),
        // from the chain link's frame before its ε tilt (`chains`).
        26 | 28 | 29 | 400..=463 => Mat43([
            Vec3(0.0, 1.0, 0.0),
            Vec3(1.0, 0.0, 0.0),
            Vec3(0.0, 0.0, -1.0),
            Vec3::default(),
        ])
        .then(&Mat43::rot_z(-EPSILON)),
        _ => {
            return Err(EvalError::not_evaluated(format!(
                "{} axes",
                super::limb_name(limb).unwrap_or("nub")
            )))
        }
    };
    Ok(with_position(
        &turn.then(&rot(&p)),
        p.transform_point(Vec3(length, 0.0, 0.0)),
    ))
}

/// The footsteps node: the rig's axes at the COM's (x, y), on the ground.
pub fn footsteps(at: &Pose) -> Result<Mat43, EvalError> {
    let com = at.com.clone()?;
    Ok(Mat43::translation(Vec3(com.0[3].0, com.0[3].1, 0.0)))
}
