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
//! - Link k's direction φ_k = β − Σ_{i ≤ k} a1_i, a1 the first angle of each
//!   link's (a1, a2, a3) triple in the pose record (0x0067 spine, 0x0065 neck
//!   after its count word, 0x0068 tail).
//! - Each link bone is then tilted by the Biped-internal constant ε about its
//!   own end: its rotation is Rz(φ_k + ε) in the pelvis frame and it starts at
//!   `end_k − L_k · dir(φ_k + ε)`, so the un-tilted chain's joints are where
//!   the next link and the neck attach. (ε is seed §11's 0.0008 rad; the
//!   ld35 neck records store it exactly, 0.000796322.)
//! - The head keeps the pelvis axes (its pose quaternion 0x0064 [0..3] is
//!   identity on every corpus rig).
//!
//! What no corpus rig fixes is refused with its reason: out-of-plane link
//! angles (a2, a3), base rotations other than 0 or π about Z, a neck on a
//! spine whose end is not straight, a head rotation other than identity.

use super::figure::{with_position, Pose};
use super::Rig;
use crate::eval::core::math::{Mat43, Vec3};

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
    pub spine: Result<Vec<f32>, String>,
    pub neck: Result<Vec<f32>, String>,
    pub head: Result<Vec<f32>, String>,
    pub tail: Result<Vec<f32>, String>,
    pub arms: Result<Vec<f32>, String>,
}

/// The figure's upper-body pose records.
pub fn figure_records(rig: &Rig) -> ChainRecords {
    let rec = |id: &str| {
        super::figure::record(rig, id)
            .map(<[f32]>::to_vec)
            .ok_or_else(|| format!("no pose record {id}"))
    };
    ChainRecords {
        spine: rec("0x0067"),
        neck: rec("0x0065"),
        head: rec("0x0064"),
        tail: rec("0x0068"),
        arms: rec("0x006a"),
    }
}

/// A chain structure record's lengths and base matrix (u32, n lengths, 4×4).
fn structure(rig: &Rig, id: &str) -> Result<(Vec<f64>, [[f64; 4]; 4]), String> {
    let f = super::figure::record(rig, id).ok_or_else(|| format!("no chain structure {id}"))?;
    if f.len() < 17 || f.len() - 17 > MAX_LINKS {
        return Err(format!("chain structure {id} holds {} words", f.len()));
    }
    let n = f.len() - 17;
    let lengths = f[1..=n].iter().map(|&v| f64::from(v)).collect();
    let m = &f[n + 1..];
    Ok((
        lengths,
        std::array::from_fn(|r| std::array::from_fn(|c| f64::from(m[r * 4 + c]))),
    ))
}

/// The in-plane angle a1 of each of `n` links from a pose record whose
/// triples start at `at`.
fn link_angles(rec: &[f32], at: usize, n: usize, what: &str) -> Result<Vec<f64>, String> {
    let Some(triples) = rec.get(at..at + 3 * n) else {
        return Err(format!(
            "{what} pose record holds {} words, too few for {n} links",
            rec.len()
        ));
    };
    triples
        .chunks_exact(3)
        .enumerate()
        .map(|(k, t)| {
            if t[1].abs() > FLAT as f32 || t[2].abs() > FLAT as f32 {
                Err(format!(
                    "{what} link {k} bent out of the pelvis plane ({}, {}): not evaluated",
                    t[1], t[2]
                ))
            } else {
                Ok(f64::from(t[0]))
            }
        })
        .collect()
}

/// The base direction β of a chain base matrix: only rotations by 0 or π
/// about Z are evaluated (the sign convention of other angles is not fixed
/// by any corpus rig).
fn base_angle(m: &[[f64; 4]; 4], what: &str) -> Result<f64, String> {
    let off = [m[0][1], m[0][2], m[1][0], m[1][2], m[2][0], m[2][1]];
    let diag_ok = (m[0][0] - m[1][1]).abs() <= FLAT
        && (m[0][0].abs() - 1.0).abs() <= FLAT
        && (m[2][2] - 1.0).abs() <= FLAT;
    if !diag_ok || off.iter().any(|v| v.abs() > FLAT) {
        return Err(format!(
            "{what} base rotation other than 0 or 180° about Z: not evaluated"
        ));
    }
    Ok(if m[0][0] < 0.0 {
        std::f64::consts::PI
    } else {
        0.0
    })
}

fn dir(phi: f64) -> (f64, f64) {
    (phi.cos(), phi.sin())
}

/// A chain laid out in the pelvis plane: each link bone's start and angle,
/// and the un-tilted end and direction of the last link.
pub(super) struct Laid {
    bones: Vec<((f64, f64), f64)>,
    /// The un-tilted end of the last link, pelvis-local (x, y).
    pub(super) end: (f64, f64),
    /// The un-tilted direction of the last link.
    pub(super) end_angle: f64,
}

fn lay(start: (f64, f64), beta: f64, a1: &[f64], lengths: &[f64]) -> Laid {
    let (mut at, mut phi) = (start, beta);
    let mut bones = Vec::with_capacity(lengths.len());
    for (&a, &l) in a1.iter().zip(lengths) {
        phi -= a;
        let (c, s) = dir(phi);
        let end = (at.0 + l * c, at.1 + l * s);
        let (ct, st) = dir(phi + EPSILON);
        bones.push(((end.0 - l * ct, end.1 - l * st), phi + EPSILON));
        at = end;
    }
    Laid {
        bones,
        end: at,
        end_angle: phi,
    }
}

fn bone(pelvis: &Mat43, at: (f64, f64), z: f64, angle: f64) -> Mat43 {
    let r = Mat43::rot_z(angle).then(&with_position(pelvis, Vec3::default()));
    with_position(&r, pelvis.transform_point(Vec3(at.0, at.1, z)))
}

fn pick(laid: &Laid, link: u32, what: &str) -> Result<((f64, f64), f64), String> {
    laid.bones
        .get(link as usize)
        .copied()
        .ok_or_else(|| format!("{what} link {link} beyond its structure record"))
}

/// One record of the pose's upper body, or why it is missing.
fn got(r: &Result<Vec<f32>, String>) -> Result<&[f32], String> {
    r.as_deref().map_err(Clone::clone)
}

/// The spine laid out in the pelvis plane, and its base's pelvis-local z.
pub(super) fn spine_laid(rig: &Rig, at: &Pose) -> Result<(Laid, f64), String> {
    let (lengths, m) = structure(rig, "0x000b")?;
    let a1 = link_angles(got(&at.chains.spine)?, 1, lengths.len(), "spine")?;
    let beta = base_angle(&m, "spine")?;
    Ok((lay((m[3][1], m[3][0]), beta, &a1, &lengths), -m[3][2]))
}

fn neck_laid(rig: &Rig, at: &Pose) -> Result<(Laid, f64), String> {
    let (spine, z) = spine_laid(rig, at)?;
    if spine.end_angle.abs() > FLAT {
        return Err("neck on a spine whose end is not straight: not evaluated".into());
    }
    let (lengths, m) = structure(rig, "0x000d")?;
    base_angle(&m, "neck")?;
    let a1 = link_angles(got(&at.chains.neck)?, 1, lengths.len(), "neck")?;
    let start = (spine.end.0 + m[3][1], spine.end.1 + m[3][0]);
    Ok((lay(start, spine.end_angle, &a1, &lengths), z - m[3][2]))
}

/// Spine link `link`.
pub fn spine(rig: &Rig, at: &Pose, link: u32) -> Result<Mat43, String> {
    let pelvis = at.pelvis.clone()?;
    let (laid, z) = spine_laid(rig, at)?;
    let (p, a) = pick(&laid, link, "spine")?;
    Ok(bone(&pelvis, p, z, a))
}

/// Neck link `link`: its base at the spine's end plus the neck structure's offset.
pub fn neck(rig: &Rig, at: &Pose, link: u32) -> Result<Mat43, String> {
    let pelvis = at.pelvis.clone()?;
    let (laid, z) = neck_laid(rig, at)?;
    let (p, a) = pick(&laid, link, "neck")?;
    Ok(bone(&pelvis, p, z, a))
}

/// The head: at the neck's end plus the head record's offset (0x0064
/// [16..18]) turned by the neck's direction, with the pelvis axes.
pub fn head(rig: &Rig, at: &Pose) -> Result<Mat43, String> {
    let pelvis = at.pelvis.clone()?;
    let h = got(&at.chains.head)?;
    let (Some(q), Some(off)) = (h.get(0..4), h.get(16..19)) else {
        return Err(format!("head pose record holds {} words", h.len()));
    };
    if q[0].abs() > FLAT as f32
        || q[1].abs() > FLAT as f32
        || q[2].abs() > FLAT as f32
        || (q[3].abs() - 1.0).abs() > FLAT as f32
    {
        return Err("head pose rotation (0x0064) other than identity: not evaluated".into());
    }
    let (laid, z) = neck_laid(rig, at)?;
    let (x, y) = (f64::from(off[1]), f64::from(off[0]));
    let (c, s) = dir(laid.end_angle);
    let p = (laid.end.0 + c * x - s * y, laid.end.1 + s * x + c * y);
    Ok(bone(&pelvis, p, z - f64::from(off[2]), 0.0))
}

/// Tail link `link`: the tail base is pelvis-relative.
pub fn tail(rig: &Rig, at: &Pose, link: u32) -> Result<Mat43, String> {
    let pelvis = at.pelvis.clone()?;
    let (lengths, m) = structure(rig, "0x000e")?;
    let a1 = link_angles(got(&at.chains.tail)?, 1, lengths.len(), "tail")?;
    let beta = base_angle(&m, "tail")?;
    let laid = lay((m[3][1], m[3][0]), beta, &a1, &lengths);
    let (p, a) = pick(&laid, link, "tail")?;
    Ok(bone(&pelvis, p, -m[3][2], a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_straight_link_keeps_its_end() {
        let laid = lay((1.0, 2.0), 0.0, &[0.0], &[10.0]);
        let ((x, y), a) = laid.bones[0];
        assert!((a - EPSILON).abs() < 1e-12);
        // The tilted bone ends where the un-tilted one does.
        assert!((x + 10.0 * a.cos() - 11.0).abs() < 1e-9);
        assert!((y + 10.0 * a.sin() - 2.0).abs() < 1e-9);
        assert_eq!(laid.end, (11.0, 2.0));
    }

    #[test]
    fn bent_and_tilted_bases_are_refused() {
        let rec = [0.0, 0.1, 0.2, 0.0];
        assert!(link_angles(&rec, 1, 1, "spine").is_err());
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
