//! Extra limbs (Max 2013+ "Xtra" limbs: biped-ld35/Yellow's ears): chains of
//! links hung on any body part, laid like the tail on the pelvis.
//!
//! - Record 0x0022 ([`super::records::ExtraLimb`]) gives each limb its link
//!   lengths, a base matrix and the body part it hangs on; the BipSlave
//!   controllers of its links hold limb id 200 + k, its nub 400 + k.
//! - Its pose is a block of the figure record 0x0073 (angle-word count,
//!   (a1, a2, a3) per link, four more words), at a tick the limb's keys
//!   (0x015f/0x0160, `motion`).
//! - The base sits at (m13, m12, −m14) in the parent's frame, turned by the
//!   base rotation (0 or π about Z); each link turns by
//!   `Ry(a2)·Rz(−a1)·Rx(a3)` from the one before and is tilted by ε about its
//!   end (`chains`). The opposite limb stores the mirrored base (m14
//!   negated) and angles (a2, a3 negated), so one rule serves both sides.

use super::chains;
use super::figure::{world_in, Pose};
use super::{Rig, Role};
use crate::eval::core::math::Mat43;
use crate::eval::error::EvalError;

/// Limb id of extra limb 0's links, and of its nub.
pub const FIRST: u32 = 200;
pub const NUB_FIRST: u32 = 400;
/// Extra limbs read at most (record 0x0022 allows no more).
const MAX: u32 = 64;
/// Words of a pose block beyond its angle words: the count word and four after.
const BLOCK_EXTRA: usize = 5;

/// Whether a limb id names a link of an extra limb.
pub fn is_extra(limb: u32) -> bool {
    (FIRST..FIRST + MAX).contains(&limb)
}

/// Whether a limb id names an extra limb's nub.
pub fn is_extra_nub(limb: u32) -> bool {
    (NUB_FIRST..NUB_FIRST + MAX).contains(&limb)
}

/// The figure's pose block of each extra limb, split off record 0x0073.
pub fn figure_blocks(rig: &Rig) -> Vec<Result<Vec<f32>, EvalError>> {
    let limbs = &rig.figure.extra_limbs;
    let rec = super::figure::record(rig, "0x0073");
    let mut at = 0usize;
    let mut out = Vec::with_capacity(limbs.len());
    for (k, limb) in limbs.iter().enumerate() {
        let words = 3 * limb.lengths.len();
        let block = rec
            .ok_or_else(|| EvalError::malformed("", "no extra limb pose record (0x0073)"))
            .and_then(|r| {
                r.get(at..at + words + BLOCK_EXTRA).ok_or_else(|| {
                    EvalError::malformed(
                        "",
                        format!(
                            "extra limb pose record (0x0073) of {} words ends before limb {k}",
                            r.len()
                        ),
                    )
                })
            })
            .and_then(|b| {
                if b[0].to_bits() as usize == words {
                    Ok(b.to_vec())
                } else {
                    Err(EvalError::malformed(
                        "",
                        format!(
                            "extra limb {k}'s pose block counts {} angle words, its structure {words}",
                            b[0].to_bits()
                        ),
                    ))
                }
            });
        out.push(block);
        at += words + BLOCK_EXTRA;
    }
    out
}

/// Link `link` of the extra limb with limb id `limb`, in pose `at`.
pub fn link(rig: &Rig, at: &Pose, limb: u32, link: u32) -> Result<Mat43, EvalError> {
    let k = limb
        .checked_sub(FIRST)
        .filter(|_| is_extra(limb))
        .ok_or_else(|| EvalError::malformed("", format!("limb {limb} is not an extra limb")))?
        as usize;
    let limbs = &rig.figure.extra_limbs;
    let x = limbs.get(k).ok_or_else(|| {
        EvalError::malformed(
            "",
            format!("extra limb {k} of {} in record 0x0022", limbs.len()),
        )
    })?;
    // A limb may hang on an earlier extra limb, never on itself or a later
    // one (that would not end).
    if is_extra(x.parent_limb) && (x.parent_limb - FIRST) as usize >= k {
        return Err(EvalError::malformed(
            "",
            format!(
                "extra limb {k} hangs on extra limb {}",
                x.parent_limb - FIRST
            ),
        ));
    }
    if x.parent_limb == 11 {
        super::figure::pelvis_unturned(at, "extra limb")?;
    }
    let parent = world_in(
        rig,
        at,
        Role::Part {
            limb: x.parent_limb,
            link: x.parent_link,
        },
    )?;
    let block = at
        .extras
        .get(k)
        .ok_or_else(|| EvalError::malformed("", format!("no pose of extra limb {k}")))?
        .as_deref()
        .map_err(Clone::clone)?;
    let angles = chains::link_angles(block, 1, x.lengths.len(), "extra limb")?;
    let laid = chains::lay(&chains::base(&x.base, "extra limb")?, &angles, &x.lengths);
    chains::pick(&laid, link, "extra limb", &parent)
}
