//! Figure-mode world transforms of Biped bones, from the live record group.
//!
//! Biped keeps its figure in a Y-up frame: a Y-up row vector `v` sits at
//! `v · C` in Max (x, y, z) → (x, −z, y), so a stored Y-up rotation `R` is
//! `Cᵀ · R · C` in Max. Stored quaternions are in Max's inverse convention
//! (conjugated, as in the keyframe controllers). The rules below are the ones
//! the corpus confirms against the bone TMs Skin stored (tests/tests/eval_biped.rs);
//! every other body part is `NotEvaluated` with the reason, never identity.

use super::{Rig, Role};
use crate::eval::core::math::{Mat43, Quat, Vec3};
use crate::eval::error::EvalError;

/// Leg and arm pose records (0x0069 / 0x006a): two halves, right side first.
const LEG_POSE: &str = "0x0069";
/// Leg structure (0x000f): two halves, right side first; [1] = thigh side offset.
pub(super) const LEG_STRUCTURE: &str = "0x000f";

/// The Y-up → Max basis change as a row-vector matrix.
fn c() -> Mat43 {
    Mat43([
        Vec3(1.0, 0.0, 0.0),
        Vec3(0.0, 0.0, 1.0),
        Vec3(0.0, -1.0, 0.0),
        Vec3::default(),
    ])
}

fn c_t() -> Mat43 {
    Mat43([
        Vec3(1.0, 0.0, 0.0),
        Vec3(0.0, 0.0, -1.0),
        Vec3(0.0, 1.0, 0.0),
        Vec3::default(),
    ])
}

pub(super) fn yup_point(p: [f64; 3]) -> Vec3 {
    Vec3(p[0], -p[2], p[1])
}

/// A stored Y-up quaternion as a Max rotation matrix.
pub fn yup_rotation(q: [f64; 4]) -> Mat43 {
    let r = Mat43::rotation(
        Quat {
            x: q[0],
            y: q[1],
            z: q[2],
            w: q[3],
        }
        .conjugate()
        .normalized(),
    );
    c_t().then(&r).then(&c())
}

pub fn with_position(r: &Mat43, p: Vec3) -> Mat43 {
    let [a, b, cc, _] = r.0;
    Mat43([a, b, cc, p])
}

/// The pelvis axes in the COM frame: pelvis X = COM Z (up), Y = COM X
/// (forward), Z = COM Y (left) — constant for every Biped (seed §11).
pub(super) fn pelvis_in_com() -> Mat43 {
    Mat43([
        Vec3(0.0, 0.0, 1.0),
        Vec3(1.0, 0.0, 0.0),
        Vec3(0.0, 1.0, 0.0),
        Vec3::default(),
    ])
}

pub(super) fn record<'r>(rig: &'r Rig, id: &str) -> Option<&'r [f32]> {
    rig.figure
        .records
        .iter()
        .find(|r| r.id == id)
        .map(|r| r.floats.as_slice())
}

/// One side's half of a two-sided record (right side first).
pub(super) fn half<'r>(rig: &'r Rig, id: &str, left: bool) -> Result<&'r [f32], EvalError> {
    let f = record(rig, id).ok_or_else(|| EvalError::malformed("", format!("no record {id}")))?;
    if f.is_empty() || f.len() % 2 != 0 {
        return Err(EvalError::malformed(
            "",
            format!("record {id} holds {} floats, not two halves", f.len()),
        ));
    }
    let h = f.len() / 2;
    Ok(if left { &f[h..] } else { &f[..h] })
}

/// The inputs of the body-part rules at one moment: the COM and pelvis world
/// TMs and each leg's pose values in the layout of a 0x0069 half (right
/// first). The figure fills it from the figure records, `motion` from the
/// keytracks at a tick; an entry that could not be had holds why.
#[derive(Debug, Clone)]
pub struct Pose {
    pub com: Result<Mat43, EvalError>,
    pub pelvis: Result<Mat43, EvalError>,
    pub legs: [Result<Vec<f32>, EvalError>; 2],
    /// The spine, neck, head and tail pose records (`chains`).
    pub chains: super::chains::ChainRecords,
    /// Whether each leg's toe links beyond the bases (right, left) are
    /// evaluated (`motion::toe_links_at`).
    pub toe_links: [Result<(), EvalError>; 2],
    /// Whether each leg's toe bases (right, left) are evaluated from the
    /// leg record (`motion::toe_bases_at`).
    pub toe_bases: [Result<(), EvalError>; 2],
    /// Each extra limb's pose block (layout of a 0x0073 block: angle-word
    /// count, (a1, a2, a3) per link, four words), in limb-index order.
    pub extras: Vec<Result<Vec<f32>, EvalError>>,
    /// World TMs (thigh, calf, foot; right, left) of a leg placed by the IK
    /// in-between rule (`leg_ik`) instead of its FK channels.
    pub leg_ik: [Option<[Mat43; 3]>; 2],
    /// World TMs of the toe bases (one per toe; right, left) of a leg
    /// placed by the IK in-between rule: the toes keep their world rotation
    /// there instead of following the foot (`leg_ik`).
    pub toe_ik: [Option<Vec<Result<Mat43, EvalError>>>; 2],
    /// The pelvis keys' rotation in the pelvis frame (identity in the
    /// figure): it turns the pelvis bone and where the thighs attach.
    pub pelvis_turn: Mat43,
}

impl Pose {
    fn leg(&self, left: bool) -> Result<&[f32], EvalError> {
        self.legs[usize::from(left)]
            .as_deref()
            .map_err(Clone::clone)
    }
}

/// The figure pose: COM and pelvis from their figure records, each leg from
/// its own half of 0x0069 (see [`thigh`]).
pub fn figure_pose(rig: &Rig) -> Pose {
    let leg =
        |left: bool| -> Result<Vec<f32>, EvalError> { Ok(half(rig, LEG_POSE, left)?.to_vec()) };
    Pose {
        com: com(rig),
        pelvis: pelvis(rig),
        legs: [leg(false), leg(true)],
        chains: super::chains::figure_records(rig),
        toe_links: [Ok(()), Ok(())],
        toe_bases: [Ok(()), Ok(())],
        extras: super::extra::figure_blocks(rig),
        leg_ik: [None, None],
        toe_ik: [None, None],
        pelvis_turn: Mat43::IDENTITY,
    }
}

/// The figure-mode world TM of the COM (Bip01): the figure position and
/// rotation plus the V/H/T displacement in the COM frame.
pub fn com(rig: &Rig) -> Result<Mat43, EvalError> {
    let com = rig
        .figure
        .com
        .as_ref()
        .ok_or_else(|| EvalError::malformed("", "no COM pose record (0x006c)"))?;
    let r = yup_rotation(com.rotation);
    let d = com.displacement;
    let disp = r.transform_vector(Vec3(d[0], -d[2], d[1]));
    Ok(with_position(&r, yup_point(com.position).plus(disp)))
}

/// The pelvis: the constant pelvis axes at the figure COM (the displacement
/// moves the COM, not the pelvis). The pelvis pose quaternion (0x0066) is
/// identity in every corpus rig; another value is not evaluated, its
/// convention being unverified.
pub fn pelvis(rig: &Rig) -> Result<Mat43, EvalError> {
    let com_pose = rig
        .figure
        .com
        .as_ref()
        .ok_or_else(|| EvalError::malformed("", "no COM pose record (0x006c)"))?;
    let q = record(rig, "0x0066")
        .ok_or_else(|| EvalError::malformed("", "no pelvis pose record (0x0066)"))?;
    if q.len() < 4 || (q[0], q[1], q[2], q[3].abs()) != (0.0, 0.0, 0.0, 1.0) {
        return Err(EvalError::malformed(
            "",
            "pelvis pose rotation (0x0066) other than identity",
        ));
    }
    let r = pelvis_in_com().then(&yup_rotation(com_pose.rotation));
    Ok(with_position(&r, yup_point(com_pose.position)))
}

/// The pelvis bone: the pelvis frame turned by the pelvis keys. Only the
/// pelvis bone and the hips follow that turn; the spine, arms, head and the
/// thighs' axes stay in the unturned frame (Player.max's FBX).
pub(super) fn turned_pelvis(at: &Pose, pelvis: &Mat43) -> Mat43 {
    let r = at.pelvis_turn.then(&with_position(pelvis, Vec3::default()));
    with_position(&r, pelvis.0[3])
}

/// Refuses a body part hung on the pelvis (tail, extra limbs) while the
/// pelvis keys turn it: whether it follows the turn is not measured (no
/// corpus take turns the pelvis of a rig with a tail).
pub(super) fn pelvis_unturned(at: &Pose, what: &str) -> Result<(), EvalError> {
    let rows = at.pelvis_turn.rows();
    let off = (0..3)
        .flat_map(|r| (0..3).map(move |c| (r, c)))
        .map(|(r, c)| (rows[r][c] - if r == c { 1.0 } else { 0.0 }).abs())
        .fold(0.0, f64::max);
    if off > 1e-6 {
        return Err(EvalError::not_evaluated(format!(
            "{what} on a pelvis turned by its keys"
        )));
    }
    Ok(())
}

/// A thigh: at the pelvis, offset along the pelvis Z axis by the leg
/// structure's side offset (left +, right −), rotated by the leg pose
/// quaternion (0x0069 half [2..5], mirrored per side) then flipped about Y.
///
/// Each side reads its own half: RabbitSkin's halves hold different knee and
/// thigh angles, and NeoAxis Rabbit.skeleton (exported from the figure) has
/// each leg at its own half's values. (Its Skin bind pose, stored before the
/// left leg was edited, still has the left leg at the right half's values.)
pub fn thigh(rig: &Rig, at: &Pose, left: bool) -> Result<Mat43, EvalError> {
    if let Some([tm, _, _]) = at.leg_ik[usize::from(left)] {
        return Ok(tm);
    }
    let pelvis = at.pelvis.clone()?;
    let pose = at.leg(left)?;
    let structure = half(rig, LEG_STRUCTURE, left)?;
    let (Some(q), Some(&side)) = (pose.get(2..6), structure.get(1)) else {
        return Err(EvalError::malformed("", "leg records too short"));
    };
    // The stored rotation is in the left side's convention with its x (left)
    // or y (right) component mirrored — fitted on biped-ld35/Yellow's tilted
    // thighs; the planar thighs of the other rigs (z-only) cannot tell.
    let (sx, sy) = if left { (1.0, -1.0) } else { (-1.0, 1.0) };
    let q = Quat {
        x: sx * f64::from(q[0]),
        y: sy * f64::from(q[1]),
        z: q[2].into(),
        w: q[3].into(),
    }
    .normalized();
    let flip = Mat43::scaling(Vec3(-1.0, 1.0, -1.0));
    let r = Mat43::rotation(q).then(&flip).then(&pelvis);
    let sign = if left { 1.0 } else { -1.0 };
    // The hip follows the pelvis keys' turn, the thigh's axes do not
    // (Player.max 24000–33600 against its FBX).
    let offset =
        turned_pelvis(at, &pelvis).transform_vector(Vec3(0.0, 0.0, sign * f64::from(side)));
    Ok(with_position(&r, pelvis.0[3].plus(offset)))
}

/// A calf: the knee hinge, `Rz(knee − π)` in the thigh frame with the knee's
/// interior angle at leg pose half \[0\], placed at the thigh's end (leg
/// structure half \[2\] along the thigh's X axis).
pub fn calf(rig: &Rig, at: &Pose, left: bool) -> Result<Mat43, EvalError> {
    if let Some([_, tm, _]) = at.leg_ik[usize::from(left)] {
        return Ok(tm);
    }
    let thigh = thigh(rig, at, left)?;
    let pose = at.leg(left)?;
    let structure = half(rig, LEG_STRUCTURE, left)?;
    let (Some(&knee), Some(&length)) = (pose.first(), structure.get(2)) else {
        return Err(EvalError::malformed("", "leg records too short"));
    };
    let r = Mat43::rot_z(f64::from(knee) - std::f64::consts::PI).then(&thigh);
    let end = thigh.transform_point(Vec3(f64::from(length), 0.0, 0.0));
    Ok(with_position(&r, end))
}

/// A quaternion stored as four floats (x, y, z, w) in a pose record,
/// refused (naming `what`) at zero length: it turns into no rotation.
pub(super) fn pose_quat(q: &[f32], what: &str) -> Result<Quat, EvalError> {
    let q = Quat {
        x: q[0].into(),
        y: q[1].into(),
        z: q[2].into(),
        w: q[3].into(),
    };
    if q.dot(q) < 1e-12 {
        return Err(EvalError::malformed("", format!("{what} of zero length")));
    }
    Ok(q)
}

/// A foot (the last link of a 3-link leg): at the calf's end (leg structure
/// half \[3\] along the calf's X axis); its rotation is absolute in the COM
/// frame, `rot(q*) · C · COM` with q = leg pose half [28..31] of its own side
/// (seed §11: the one leg value stored per side, not mirrored).
pub fn foot(rig: &Rig, at: &Pose, left: bool) -> Result<Mat43, EvalError> {
    if let Some([_, _, tm]) = at.leg_ik[usize::from(left)] {
        return Ok(tm);
    }
    let calf = calf(rig, at, left)?;
    let pose = at.leg(left)?;
    let structure = half(rig, LEG_STRUCTURE, left)?;
    let (Some(q), Some(&length)) = (pose.get(28..32), structure.get(3)) else {
        return Err(EvalError::malformed("", "leg records too short"));
    };
    let q = Quat {
        x: q[0].into(),
        y: q[1].into(),
        z: q[2].into(),
        w: q[3].into(),
    };
    let com = at.com.clone()?;
    let com_rot = with_position(&com, Vec3::default());
    let r = Mat43::rotation(q.conjugate().normalized())
        .then(&c())
        .then(&com_rot);
    let end = calf.transform_point(Vec3(f64::from(length), 0.0, 0.0));
    Ok(with_position(&r, end))
}

/// Where a leg pose half keeps its toe blocks: the delta quaternion of toe k
/// at `first + stride·k`, the bend of its link j ≥ 1 at `bends + stride·k + j`.
pub(super) struct ToeLayout {
    pub first: usize,
    pub stride: usize,
    pub bends: usize,
}

/// The toe blocks of a leg pose half by its length: 120 words (Max 2013+,
/// biped-ld35: measured on Red's toe bases) or 110 words (Max 2009,
/// RabbitSkin: seed §11's [46 + 10k], checked against NeoAxis Rabbit.skeleton).
pub(super) fn toe_layout(half_len: usize) -> Result<ToeLayout, EvalError> {
    match half_len {
        120 => Ok(ToeLayout {
            first: 47,
            stride: 12,
            bends: 55,
        }),
        110 => Ok(ToeLayout {
            first: 46,
            stride: 10,
            bends: 53,
        }),
        n => Err(EvalError::not_evaluated(format!(
            "toe pose in a {n}-float leg pose half"
        ))),
    }
}

/// The base link of toe `toe`: at its leg-structure matrix translation in the
/// foot frame, rotated by the toe's delta quaternion s and the matrix M:
/// `rot(s*) · M` on the right, `rot(s′) · M · diag(1, 1, −1)` on the left
/// with s′ = (x, y, −z, w) (the left half stores reflections). Measured on
/// biped-ld35/Red (deltas about x and y, where s′ = s) and, for the z sign,
/// on RabbitSkin's left toe keys against NeoAxis's Rabbit.skeleton takes
/// (deltas up to 0.8 rad about z: 1.3e-4 with s′, 1.77 off with s).
pub fn toe_base(rig: &Rig, at: &Pose, left: bool, toe: usize) -> Result<Mat43, EvalError> {
    if let Some(toes) = &at.toe_ik[usize::from(left)] {
        return toes.get(toe).cloned().unwrap_or_else(|| {
            Err(EvalError::malformed(
                "",
                format!("toe {toe} of {} placed by the leg IK rule", toes.len()),
            ))
        });
    }
    let foot = foot(rig, at, left)?;
    at.toe_bases[usize::from(left)].clone()?;
    let pose = at.leg(left)?;
    let layout = toe_layout(pose.len())?;
    let structure = half(rig, LEG_STRUCTURE, left)?;
    let toes = super::extremities::digits(structure, 10)?;
    let m = &toes
        .get(toe)
        .ok_or_else(|| {
            EvalError::malformed(
                "",
                format!("toe {toe} of {} in the leg structure", toes.len()),
            )
        })?
        .m;
    let q = pose
        .get(layout.first + layout.stride * toe..layout.first + layout.stride * toe + 4)
        .ok_or_else(|| EvalError::malformed("", "leg pose too short for its toes"))?;
    let base = Mat43([
        Vec3(m[0], m[1], m[2]),
        Vec3(m[4], m[5], m[6]),
        Vec3(m[8], m[9], m[10]),
        Vec3::default(),
    ]);
    let q = pose_quat(q, "toe delta quaternion")?;
    let q = q.normalized();
    let rel = if left {
        // The mirror of the right side's rot(s*): s enters as (x, y, −z, w).
        let q = Quat { z: -q.z, ..q };
        Mat43::rotation(q)
            .then(&base)
            .then(&Mat43::scaling(Vec3(1.0, 1.0, -1.0)))
    } else {
        Mat43::rotation(q.conjugate()).then(&base)
    };
    let r = rel.then(&with_position(&foot, Vec3::default()));
    Ok(with_position(
        &r,
        foot.transform_point(Vec3(m[12], m[13], m[14])),
    ))
}

/// Toe link `link` (numbered across the toes): the base, then each further
/// link bent at its parent's end.
fn toe(rig: &Rig, at: &Pose, left: bool, per: u32, link: u32) -> Result<Mat43, EvalError> {
    let (k, j) = ((link / per) as usize, (link % per) as usize);
    let mut m = toe_base(rig, at, left, k)?;
    if j >= 1 {
        at.toe_links[usize::from(left)].clone()?;
    }
    for j in 1..=j {
        m = super::extremities::toe_link(rig, at, left, k, j, &m)?;
    }
    Ok(m)
}

/// The figure-mode world TM of one bone of `rig`, or why it is not evaluated.
pub fn world(rig: &Rig, role: Role) -> Result<Mat43, EvalError> {
    world_in(rig, &figure_pose(rig), role)
}

/// The world TM of one bone of `rig` in pose `at`, or why it is not evaluated.
pub fn world_in(rig: &Rig, at: &Pose, role: Role) -> Result<Mat43, EvalError> {
    match role {
        Role::Com => at.com.clone(),
        Role::Part { limb: 11, link: 0 } => at.pelvis.clone().map(|p| turned_pelvis(at, &p)),
        Role::Part { limb: 4, link: 0 } => thigh(rig, at, true),
        Role::Part { limb: 5, link: 0 } => thigh(rig, at, false),
        Role::Part { limb: 4, link: 1 } => calf(rig, at, true),
        Role::Part { limb: 5, link: 1 } => calf(rig, at, false),
        Role::Part { limb, link: 2 } if limb == 4 || limb == 5 => {
            if rig.structure.link_counts.get(limb as usize) == Some(&3) {
                foot(rig, at, limb == 4)
            } else {
                Err(EvalError::not_evaluated(
                    "foot of a leg with other than 3 links",
                ))
            }
        }
        Role::Part { limb, link } if limb == 6 || limb == 7 => {
            let per_toe = rig
                .structure
                .link_counts
                .get(limb as usize)
                .copied()
                .unwrap_or(0);
            match per_toe {
                0 => Err(EvalError::malformed(
                    "",
                    "toe without a link count (0x0100)",
                )),
                n => toe(rig, at, limb == 6, n, link),
            }
        }
        Role::Part { limb, link: 3 } if limb <= 1 => super::extremities::hand(rig, at, limb == 0),
        Role::Part { limb, link } if limb == 2 || limb == 3 => {
            super::extremities::finger(rig, at, limb == 2, link)
        }
        Role::Part { limb, link } if super::extra::is_extra(limb) => {
            super::extra::link(rig, at, limb, link)
        }
        Role::Part { limb, .. } if super::extremities::is_nub(limb) => {
            super::extremities::nub(rig, at, role)
        }
        Role::Part { limb, link: 0 } if limb <= 1 => super::arms::clavicle(rig, at, limb == 0),
        Role::Part { limb, link: 1 } if limb <= 1 => super::arms::upper_arm(rig, at, limb == 0),
        Role::Part { limb, link: 2 } if limb <= 1 => super::arms::forearm(rig, at, limb == 0),
        Role::Part { limb: 8, link } => super::chains::spine(rig, at, link),
        Role::Part { limb: 16, link } => super::chains::neck(rig, at, link),
        Role::Part { limb: 10, link: 0 } => super::chains::head(rig, at),
        Role::Part { limb: 9, link } => super::chains::tail(rig, at, link),
        Role::Part { limb, link } => Err(EvalError::not_evaluated(format!(
            "figure pose of {} link {link}",
            super::limb_name(limb).map_or_else(|| format!("limb {limb}"), str::to_string)
        ))),
        Role::Footsteps => super::extremities::footsteps(at),
    }
}
