//! Figure-mode world TMs of the Biped chains: spine links, neck links, the
//! head and tail links, fitted on the Skin bind poses of biped/RabbitSkin
//! (two spine links bent in plane) and biped-ld35 Player, Red and Yellow
//! (straight spines, three- and one-link tails laid backwards). Everything is
//! laid out in the pelvis frame's XY plane (X up the spine, Y backwards):
//!
//! - A chain's structure record (0x000b spine, 0x000d neck, 0x000e tail) holds
//!   its link lengths and a base matrix whose translation row (m12, m13, m14)
//!   is the chain base at pelvis-local (m13, m12, −m14), and whose rotation is
//!   the chain's start direction. The spine and tail bases are pelvis-relative;
//!   the neck's base is relative to the spine's end, the head's (head record
//!   0x0064 [16..18]) to the neck's end, in the neck's direction.
//! - Link k's frame is link k − 1's turned by its (a1, a2, a3) triple in the
//!   pose record (0x0067 spine, 0x0065 neck after its count word, 0x0068
//!   tail): `Ry(a2) · Rz(−a1) · Rx(a3)` (row form of seed §11's
//!   Rx(a3)·Rz(−a1)·Ry(a2)); in the plane (a2 = a3 = 0) link k's direction is
//!   φ_k = β − Σ_{i ≤ k} a1_i. The twist a3 turns the link about its own
//!   axis (biped-ld35/Player@Run's spine keys, ±0.611) and with it what hangs
//!   on the link's end.
//! - Each link bone is then tilted by the Biped-internal constant ε about its
//!   own end: its rotation is Rz(φ_k + ε) in the pelvis frame and it starts at
//!   `end_k − L_k · dir(φ_k + ε)`, so the un-tilted chain's joints are where
//!   the next link and the neck attach. (ε is seed §11's 0.0008 rad; the
//!   ld35 neck records store it exactly, 0.000796322.)
//! - The head turns by its pose quaternion (0x0064 [0..3], identity in every
//!   corpus figure; the head keys at a tick) relative to the pelvis.
//!
//! What no corpus rig fixes is refused with its reason: base rotations
//! other than 0 or π about Z.

use super::figure::{pose_quat, with_position, Pose};
use super::Rig;
use crate::eval::core::math::{Mat43, Quat, Vec3};
use crate::eval::error::EvalError;

/// The tilt Biped gives every chain link about its end (seed §11's ε).
pub const EPSILON: f64 = 0.000_796_322;
/// Angles and matrix entries below this are zero for the gates below.
pub(super) const FLAT: f64 = 1e-6;
/// More links than any Biped chain allows: damaged data.
const MAX_LINKS: usize = 64;

/// The upper-body pose records at one moment, in the layouts of the figure's
/// 0x0067 (spine), 0x0065 (neck), 0x0064 (head), 0x0068 (tail) and 0x006a
/// (arms); each one that could not be had holds why.
#[derive(Debug, Clone)]
pub struct ChainRecords {
    pub spine: Result<Vec<f32>, EvalError>,
    pub neck: Result<Vec<f32>, EvalError>,
    pub head: Result<Vec<f32>, EvalError>,
    pub tail: Result<Vec<f32>, EvalError>,
    /// The right and the left arm's record (a half of 0x006a each).
    pub arms: [Result<Vec<f32>, EvalError>; 2],
    /// The arm halves come from each side's own keys or, for an unkeyed arm,
    /// its saved record in the keys' layout (at a tick), not from the
    /// figure's two halves (see `arms::left_mirrors_right`).
    pub arms_keyed: bool,
}

/// The figure's upper-body pose records.
pub fn figure_records(rig: &Rig) -> ChainRecords {
    let rec = |id: &str| {
        super::figure::record(rig, id)
            .map(<[f32]>::to_vec)
            .ok_or_else(|| EvalError::malformed("", format!("no pose record {id}")))
    };
    ChainRecords {
        spine: rec("0x0067"),
        neck: rec("0x0065"),
        head: rec("0x0064"),
        tail: rec("0x0068"),
        arms: arm_halves(rec("0x006a")),
        arms_keyed: false,
    }
}

/// The figure arm pose record (0x006a) as its two halves, right first.
pub(super) fn arm_halves(f: Result<Vec<f32>, EvalError>) -> [Result<Vec<f32>, EvalError>; 2] {
    let f = f.and_then(|f| {
        if f.is_empty() || f.len() % 2 != 0 {
            return Err(EvalError::malformed(
                "",
                format!(
                    "arm pose record (0x006a) holds {} floats, not two halves",
                    f.len()
                ),
            ));
        }
        Ok(f)
    });
    match f {
        Ok(f) => {
            let h = f.len() / 2;
            [Ok(f[..h].to_vec()), Ok(f[h..].to_vec())]
        }
        Err(e) => [Err(e.clone()), Err(e)],
    }
}

/// A chain structure record's lengths and base matrix (u32, n lengths, 4×4).
fn structure(rig: &Rig, id: &str) -> Result<(Vec<f64>, [[f64; 4]; 4]), EvalError> {
    let f = super::figure::record(rig, id)
        .ok_or_else(|| EvalError::malformed("", format!("no chain structure {id}")))?;
    if f.len() < 17 || f.len() - 17 > MAX_LINKS {
        return Err(EvalError::malformed(
            "",
            format!("chain structure {id} holds {} words", f.len()),
        ));
    }
    let n = f.len() - 17;
    let lengths = f[1..=n].iter().map(|&v| f64::from(v)).collect();
    let m = &f[n + 1..];
    Ok((
        lengths,
        std::array::from_fn(|r| std::array::from_fn(|c| f64::from(m[r * 4 + c]))),
    ))
}

/// The (a1, a2, a3) triple of each of `n` links from a pose record whose
/// triples start at `at`. Side bends (a2) turn as `link_rotation` says:
/// biped-ld35/Yellow@Spawn's tail keys bend all three links sideways by
/// ±0.26–0.44 and match its FBX at those keys to 2.8e-6.
pub(super) fn link_angles(
    rec: &[f32],
    at: usize,
    n: usize,
    what: &str,
) -> Result<Vec<[f64; 3]>, EvalError> {
    let Some(triples) = rec.get(at..at + 3 * n) else {
        return Err(EvalError::malformed(
            "",
            format!(
                "{what} pose record holds {} words, too few for {n} links",
                rec.len()
            ),
        ));
    };
    Ok(triples
        .chunks_exact(3)
        .map(|t| [f64::from(t[0]), f64::from(t[1]), f64::from(t[2])])
        .collect())
}

/// The base direction β of a chain base matrix: only rotations by 0 or π
/// about Z are evaluated (the sign convention of other angles is not fixed
/// by any corpus rig).
fn base_angle(m: &[[f64; 4]; 4], what: &str) -> Result<f64, EvalError> {
    let off = [m[0][1], m[0][2], m[1][0], m[1][2], m[2][0], m[2][1]];
    let diag_ok = (m[0][0] - m[1][1]).abs() <= FLAT
        && (m[0][0].abs() - 1.0).abs() <= FLAT
        && (m[2][2] - 1.0).abs() <= FLAT;
    if !diag_ok || off.iter().any(|v| v.abs() > FLAT) {
        return Err(EvalError::not_evaluated(format!(
            "{what} base rotation other than 0 or 180° about Z"
        )));
    }
    Ok(if m[0][0] < 0.0 {
        std::f64::consts::PI
    } else {
        0.0
    })
}

/// A rotation as a row-vector matrix without translation.
fn rot(m: &Mat43) -> Mat43 {
    with_position(m, Vec3::default())
}

/// A chain laid out in the pelvis frame: each link bone's TM (pelvis-local),
/// and the un-tilted frame and end of the last link.
pub(super) struct Laid {
    bones: Vec<Mat43>,
    /// The un-tilted frame of the last link, its origin at the link's end
    /// (pelvis-local): the next chain, the clavicles and the head attach in it.
    pub(super) end: Mat43,
}

/// One link's rotation from its parent link: `Ry(a2) · Rz(−a1) · Rx(a3)`.
pub(crate) fn link_rotation(a: [f64; 3]) -> Mat43 {
    Mat43::rot_y(a[1])
        .then(&Mat43::rot_z(-a[0]))
        .then(&Mat43::rot_x(a[2]))
}

/// Lays links from `start` (a pelvis-local frame at the chain's base).
pub(super) fn lay(start: &Mat43, angles: &[[f64; 3]], lengths: &[f64]) -> Laid {
    let mut frame = *start;
    let mut bones = Vec::with_capacity(lengths.len());
    for (&a, &l) in angles.iter().zip(lengths) {
        let r = link_rotation(a).then(&rot(&frame));
        let end = frame.0[3].plus(r.0[0].scale(l));
        // The bone is tilted by ε about its end, in its own XY plane.
        let tilted = Mat43::rot_z(EPSILON).then(&r);
        bones.push(with_position(&tilted, end.minus(tilted.0[0].scale(l))));
        frame = with_position(&r, end);
    }
    Laid { bones, end: frame }
}

/// The pelvis-local frame at a chain base: base rotation β about Z at
/// (m13, m12, −m14).
pub(super) fn base(m: &[[f64; 4]; 4], what: &str) -> Result<Mat43, EvalError> {
    let beta = base_angle(m, what)?;
    Ok(with_position(
        &Mat43::rot_z(beta),
        Vec3(m[3][1], m[3][0], -m[3][2]),
    ))
}

pub(super) fn pick(laid: &Laid, link: u32, what: &str, pelvis: &Mat43) -> Result<Mat43, EvalError> {
    laid.bones
        .get(link as usize)
        .map(|b| b.then(pelvis))
        .ok_or_else(|| {
            EvalError::malformed(
                "",
                format!("{what} link {link} beyond its structure record"),
            )
        })
}

/// One record of the pose's upper body, or why it is missing.
fn got(r: &Result<Vec<f32>, EvalError>) -> Result<&[f32], EvalError> {
    r.as_deref().map_err(Clone::clone)
}

/// The spine laid out in the pelvis frame.
pub(super) fn spine_laid(rig: &Rig, at: &Pose) -> Result<Laid, EvalError> {
    let (lengths, m) = structure(rig, "0x000b")?;
    let a = link_angles(got(&at.chains.spine)?, 1, lengths.len(), "spine")?;
    Ok(lay(&base(&m, "spine")?, &a, &lengths))
}

/// The neck laid out from the spine's end: its base at the neck structure's
/// offset in the last spine link's frame.
fn neck_laid(rig: &Rig, at: &Pose) -> Result<Laid, EvalError> {
    let spine = spine_laid(rig, at)?;
    let (lengths, m) = structure(rig, "0x000d")?;
    if base_angle(&m, "neck")? != 0.0 {
        return Err(EvalError::not_evaluated("neck base turned about Z"));
    }
    let start = base(&m, "neck")?.then(&spine.end);
    let a = link_angles(got(&at.chains.neck)?, 1, lengths.len(), "neck")?;
    Ok(lay(&start, &a, &lengths))
}

/// Spine link `link`.
pub fn spine(rig: &Rig, at: &Pose, link: u32) -> Result<Mat43, EvalError> {
    let pelvis = at.pelvis.clone()?;
    pick(&spine_laid(rig, at)?, link, "spine", &pelvis)
}

/// Neck link `link`: its base at the spine's end plus the neck structure's offset.
pub fn neck(rig: &Rig, at: &Pose, link: u32) -> Result<Mat43, EvalError> {
    let pelvis = at.pelvis.clone()?;
    pick(&neck_laid(rig, at)?, link, "neck", &pelvis)
}

/// The head: at the neck's end plus the head record's offset (0x0064
/// [16..18], as (y, x, −z)) in the last neck link's frame, turned by the
/// head quaternion (0x0064 [0..3], Y-up) relative to the pelvis.
pub fn head(rig: &Rig, at: &Pose) -> Result<Mat43, EvalError> {
    let pelvis = at.pelvis.clone()?;
    let h = got(&at.chains.head)?;
    let (Some(q), Some(off)) = (h.get(0..4), h.get(16..19)) else {
        return Err(EvalError::malformed(
            "",
            format!("head pose record holds {} words", h.len()),
        ));
    };
    // The stored quaternion is Y-up and conjugated (Max's convention); the
    // Y-up axes x, y, z are the pelvis's Y, X and −Z, so the rotation in the
    // pelvis frame is (−y, −x, z, w). Red@Run's head keys turn about z,
    // Player@Run's about y: both match their FBX.
    let s = pose_quat(q, "head pose quaternion")?;
    let q = Quat {
        x: -s.y,
        y: -s.x,
        z: s.z,
        w: s.w,
    };
    let neck = neck_laid(rig, at)?;
    let p = neck.end.transform_point(Vec3(
        f64::from(off[1]),
        f64::from(off[0]),
        -f64::from(off[2]),
    ));
    let r = Mat43::rotation(q.normalized()).then(&rot(&pelvis));
    Ok(with_position(&r, pelvis.transform_point(p)))
}

/// Tail link `link`: the tail base is pelvis-relative.
pub fn tail(rig: &Rig, at: &Pose, link: u32) -> Result<Mat43, EvalError> {
    let pelvis = at.pelvis.clone()?;
    super::figure::pelvis_unturned(at, "tail")?;
    let (lengths, m) = structure(rig, "0x000e")?;
    let a = link_angles(got(&at.chains.tail)?, 1, lengths.len(), "tail")?;
    pick(
        &lay(&base(&m, "tail")?, &a, &lengths),
        link,
        "tail",
        &pelvis,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_straight_link_keeps_its_end() {
        let start = Mat43::translation(Vec3(1.0, 2.0, 0.0));
        let laid = lay(&start, &[[0.0; 3]], &[10.0]);
        let b = laid.bones[0];
        assert!((b.0[0].1.atan2(b.0[0].0) - EPSILON).abs() < 1e-12);
        // The tilted bone ends where the un-tilted one does.
        let end = b.transform_point(Vec3(10.0, 0.0, 0.0));
        assert!((end.0 - 11.0).abs() < 1e-9 && (end.1 - 2.0).abs() < 1e-9);
        assert!(laid.end.0[3].minus(Vec3(11.0, 2.0, 0.0)).len() < 1e-12);
    }

    /// A side bend a2 turns the link about the parent's Y (its end leaves
    /// the parent's XY plane towards −Z for a2 > 0).
    #[test]
    fn a_side_bend_turns_the_link_about_y() {
        let laid = lay(&Mat43::IDENTITY, &[[0.0, 0.5, 0.0]], &[10.0]);
        let end = laid.end.0[3];
        assert!((end.0 - 10.0 * 0.5f64.cos()).abs() < 1e-12);
        assert!((end.2 + 10.0 * 0.5f64.sin()).abs() < 1e-12, "{end:?}");
    }

    #[test]
    fn a_twist_turns_the_link_about_its_axis() {
        let laid = lay(&Mat43::IDENTITY, &[[0.0, 0.0, 0.5]], &[10.0]);
        // The end stays on the axis; the frame's Y turns about X.
        assert!(laid.end.0[3].minus(Vec3(10.0, 0.0, 0.0)).len() < 1e-12);
        assert!((laid.end.0[1].2 - 0.5f64.sin()).abs() < 1e-12);
    }

    #[test]
    fn short_records_and_tilted_bases_are_refused() {
        let rec = [0.0, 0.1, 0.2, 0.0];
        assert_eq!(
            link_angles(&rec, 1, 1, "spine"),
            Ok(vec![[f64::from(0.1f32), f64::from(0.2f32), 0.0]])
        );
        assert!(link_angles(&rec, 1, 2, "spine").is_err());
        let mut m = [[0.0; 4]; 4];
        m[0][0] = 0.6;
        m[0][1] = 0.8;
        m[1][0] = -0.8;
        m[1][1] = 0.6;
        m[2][2] = 1.0;
        assert!(base_angle(&m, "tail").is_err());
        m[0] = [-1.0, 0.0, 0.0, 0.0];
        m[1] = [0.0, -1.0, 0.0, 0.0];
        assert_eq!(base_angle(&m, "tail"), Ok(std::f64::consts::PI));
    }
}
