//! Leg IK in-betweens: between two leg keys at IK blend 1, Biped does not
//! interpolate the leg's FK channels; the foot follows its pivot and the
//! thigh and calf are solved. Measured on biped-ld35's FBX: Yellow@Spawn
//! (keys 5760 → 6400), Player@Idle (a run of seven keys, base layer) and
//! Player.max (its feet held between keys; docs/biped.md, "Leg IK
//! in-betweens"). Max 2009's 110-word records (RabbitSkin) hold the same
//! pivot state 10 words earlier (`pivot_words`); there the rule's limits at
//! the IK keys are NeoAxis's keyframes (its takes hold key ticks only):
//!
//! - the foot's **world** rotation is a squad through the keys' world foot
//!   rotations (each key's FK foot), with the keys' TCB control points like
//!   every biped quaternion channel (the keys next to the run included);
//! - the foot's pivot (record [111..113], Y-up world) is held where the
//!   segment's two keys store the same pivot, and elsewhere moves along a
//!   TCB curve through the pivots of the run's keys (the run: the
//!   consecutive keys at blend 1), with the keys' own tension and
//!   continuity, the spacing factors and the biped boundary rule at the
//!   run's ends; the ankle hangs off it at the offset the pivot had in the
//!   foot's frame at the run's first key;
//! - the hip is the FK thigh's position, the knee is placed by the law of
//!   cosines in the plane through the hip and the ankle that is normal to the
//!   FK thigh's Z axis (made perpendicular to the reach), and the thigh and
//!   calf take that normal as their Z axis; a target at or beyond the leg's
//!   reach keeps a small bend (`knee_and_ankle`);
//! - the toes keep their world rotation (the keys' own, equal: the stored
//!   deltas undo the foot's turn), at the foot's toe point, which is the
//!   pivot (`toes_held`).
//!
//! Between an FK and an IK key the leg is FK (`motion::leg_at`). Everything
//! else stays refused by name: blends between 0 and 1, feet rolling between
//! keys (Player.max's, where the FBX keeps the FK knee instead), pivot
//! changes, other record layouts, body-space IK keys and targets nearer the
//! hip than the folded leg.

use super::figure::{self, Pose};
use super::motion::{self, IK_BLEND, IK_FREE};
use super::Rig;
use crate::eval::core::math::{Mat43, Quat, Vec3};
use crate::eval::error::EvalError;

/// Leg record words of the pivot state: the active pivot's index and its
/// world position (Y-up). 120-word records (Max 2013+) hold them at [108],
/// [111..113]; 110-word records (Max 2009) at the seed's [98], [101..103],
/// 10 words earlier like the toe blocks. Checked on RabbitSkin's 34
/// object-space IK leg keys: the stored ankle [18..20] is our FK ankle
/// (within 8e-4 at height 42.7) and the pivot sits at one point of the
/// foot, (9.0898, 16.3360, 0) in its frame (within 6e-4), at every key.
fn pivot_words(record: usize) -> Option<(usize, usize)> {
    match record {
        120 => Some((108, 111)),
        110 => Some((98, 101)),
        _ => None,
    }
}
/// The key's IK space flag (the seed's [11], an integer): 2 = object (world)
/// space, where the pivot path below is measured (Yellow@Spawn's IK keys).
const IK_SPACE: usize = 11;
const OBJECT_SPACE: u32 = 2;

fn refuse(what: String, why: &'static str) -> EvalError {
    EvalError::not_evaluated_why(what, why)
}

fn word(values: &[f32], at: usize, name: &str, time: i32) -> Result<f64, EvalError> {
    values.get(at).map(|&v| f64::from(v)).ok_or_else(|| {
        EvalError::malformed(
            name.to_string(),
            format!("key at tick {time}: record too short for word [{at}]"),
        )
    })
}

/// A Y-up world position stored at `at` in Max axes.
fn yup_point(values: &[f32], at: usize, name: &str, time: i32) -> Result<Vec3, EvalError> {
    let (x, y, z) = (
        word(values, at, name, time)?,
        word(values, at + 1, name, time)?,
        word(values, at + 2, name, time)?,
    );
    Ok(Vec3(x, -z, y))
}

/// A solved leg: its FK record (for the toe links' bends), the thigh, calf
/// and foot world TMs, and each toe base's world TM or why it is not
/// evaluated.
pub type Solved = (Vec<f32>, [Mat43; 3], Vec<Result<Mat43, EvalError>>);

fn rows(m: &Mat43) -> [Vec3; 3] {
    [m.0[0], m.0[1], m.0[2]]
}

/// The leg record (FK channels, for the toes) and the thigh, calf and foot
/// world TMs of leg `left` at `t` by the IK in-between rule; `None` when `t`
/// is not inside a segment whose two keys are IK keys (the caller's refusal
/// stands), an error naming what is not evaluated otherwise.
pub fn solve(rig: &Rig, pose: &Pose, left: bool, t: i32) -> Option<Result<Solved, EvalError>> {
    let name = if left { "left leg" } else { "right leg" };
    let tr = motion::track(rig, name)?;
    let (i, j) = motion::segment_keys(tr, t)?;
    let blend = |k: usize| tr.keys[k].values.get(IK_BLEND).copied().unwrap_or(0.0);
    let (bi, bj) = (blend(i), blend(j));
    if bi.abs() <= IK_FREE && bj.abs() <= IK_FREE {
        return None;
    }
    Some(solve_segment(rig, pose, left, t, name, (i, j)))
}

/// Largest change of the foot's world rotation between a segment's two keys
/// (rad) where the world squad is measured: Yellow@Spawn's 5760 → 6400 turn
/// the feet 0.0186 and 0.0185, Player@Idle's at most 3e-4. Player.max's
/// feet roll 0.349 and 0.611 about their pivots between IK keys, and there
/// its FBX does not follow the squad (docs/biped.md).
const ROLL_MEASURED: f64 = 0.02;

/// Pivots this close (Y-up world units) are the same pivot: the foot holds
/// it between the two keys.
const SAME_PIVOT: f64 = 1e-3;

fn solve_segment(
    rig: &Rig,
    pose: &Pose,
    left: bool,
    t: i32,
    name: &str,
    (i, j): (usize, usize),
) -> Result<Solved, EvalError> {
    let tr = motion::track(rig, name)
        .ok_or_else(|| EvalError::malformed("", format!("no {name} keys")))?;
    let keys = &tr.keys;
    let blend = |k: usize| keys[k].values.get(IK_BLEND).copied().unwrap_or(0.0);
    let full = |k: usize| (blend(k) - 1.0).abs() <= IK_FREE;
    let free = |k: usize| blend(k).abs() <= IK_FREE;
    let (ki, kj) = (&keys[i], &keys[j]);
    if !full(i) || !full(j) {
        // FK ↔ IK segments are FK (`motion::leg_at`): a key here holds a
        // blend strictly between 0 and 1.
        let k = if !free(i) && !full(i) { ki } else { kj };
        return Err(refuse(
            format!(
                "{name} key at tick {} has IK blend {}",
                k.time,
                k.values.get(IK_BLEND).copied().unwrap_or(0.0)
            ),
            "IK in-betweens of partial blends (between 0 and 1)",
        ));
    }
    // The run: the consecutive keys at blend 1 around the segment.
    let mut lo = i;
    while lo > 0 && full(lo - 1) {
        lo -= 1;
    }
    let mut hi = j;
    while hi + 1 < keys.len() && full(hi + 1) {
        hi += 1;
    }
    // Integer words (stored as u32 bits in the float record).
    let int = |k: &super::tracks::Key, at: usize| -> Result<u32, EvalError> {
        k.values.get(at).map(|v| v.to_bits()).ok_or_else(|| {
            EvalError::malformed(
                name.to_string(),
                format!("key at tick {}: record too short for word [{at}]", k.time),
            )
        })
    };
    let record = keys[lo].values.len();
    let Some((pivot_at, pivot_pos)) =
        pivot_words(record).filter(|_| keys[lo..=hi].iter().all(|k| k.values.len() == record))
    else {
        return Err(refuse(
            format!("{name} records of {record} words"),
            "leg IK pivots in other than 110- or 120-word leg records",
        ));
    };
    let pivot_index = int(&keys[lo], pivot_at)?;
    for k in &keys[lo..=hi] {
        let space = int(k, IK_SPACE)?;
        if space != OBJECT_SPACE {
            return Err(refuse(
                format!("{name} key at tick {} has IK space flag {space}", k.time),
                "leg IK keys in other than object space",
            ));
        }
        let p = int(k, pivot_at)?;
        if p != pivot_index {
            return Err(refuse(
                format!(
                    "{name} pivot changes from {pivot_index} to {p} at tick {}",
                    k.time
                ),
                "leg IK pivot changes",
            ));
        }
    }

    // The keys' own FK poses on the base layer (the layers above carry the
    // solution: `motion::pose_in_layers`): the foot's world TM at each key
    // of the squad and at the run's first key.
    let foot_at = |key: &super::tracks::Key| {
        let at = motion::base_pose_at(rig, key.time);
        figure::foot(rig, &at, left)
    };
    let lo_sq = i.saturating_sub(1);
    let hi_sq = (j + 1).min(keys.len() - 1);
    let mut world_keys = Vec::with_capacity(hi_sq + 1 - lo_sq);
    let mut key_rot = [Quat::IDENTITY; 2];
    let mut prev: Option<Quat> = None;
    for (k, key) in keys.iter().enumerate().take(hi_sq + 1).skip(lo_sq) {
        let foot = foot_at(key)?;
        // Consecutive world rotations on the same hemisphere: the matrices
        // fix them only up to sign.
        let q = Quat::from_rows(rows(&foot)).closest_to(prev);
        prev = Some(q);
        if k == i {
            key_rot[0] = q;
        } else if k == j {
            key_rot[1] = q;
        }
        let mut key = key.clone();
        key.values = vec![q.x as f32, q.y as f32, q.z as f32, q.w as f32];
        world_keys.push(key);
    }
    let roll = 2.0 * key_rot[0].dot(key_rot[1]).abs().min(1.0).acos();
    if roll > ROLL_MEASURED {
        return Err(refuse(
            format!(
                "{name} foot turns {roll:.4} rad between the IK keys at ticks {} and {}",
                ki.time, kj.time
            ),
            "leg IK feet rolling between keys",
        ));
    }
    let world_track = super::tracks::KeyTrack {
        keys: world_keys,
        ..tr.clone()
    };
    let q = motion::quat_curve(&world_track, 0, t)?.normalized();
    let foot_rot = Mat43::rotation(q);

    // The pivot's path and the ankle hanging off it.
    // The run's pivots, `lo` first.
    let pivots = keys[lo..=hi]
        .iter()
        .map(|k| yup_point(&k.values, pivot_pos, name, k.time))
        .collect::<Result<Vec<_>, _>>()?;
    let (pa_i, pa_j) = (pivots[i - lo], pivots[j - lo]);
    let pivot = if pa_j.minus(pa_i).len() <= SAME_PIVOT {
        pa_i
    } else {
        let pivot_keys = keys[lo..=hi]
            .iter()
            .zip(&pivots)
            .map(|(k, p)| super::tracks::Key {
                values: vec![p.0 as f32, p.1 as f32, p.2 as f32],
                ..k.clone()
            })
            .collect();
        let pivot_track = super::tracks::KeyTrack {
            keys: pivot_keys,
            ..tr.clone()
        };
        let [x, y, z] = motion::scalar_curve::<3>(&pivot_track, 0, t)?;
        Vec3(x, y, z)
    };
    let foot_lo = foot_at(&keys[lo])?;
    let d = pivots[0].minus(foot_lo.0[3]);
    let [x, y, z] = rows(&foot_lo);
    let local = Vec3(d.dot(x), d.dot(y), d.dot(z));
    let ankle = pivot.minus(foot_rot.transform_vector(local));

    // The FK leg at t gives the hip and the knee's plane.
    let record = motion::leg_curve(rig, left, t)?;
    let mut fk = pose.clone();
    fk.legs[usize::from(left)] = Ok(record.clone());
    fk.leg_ik[usize::from(left)] = None;
    let thigh_fk = figure::thigh(rig, &fk, left)?;
    let structure = figure::half(rig, figure::LEG_STRUCTURE, left)?;
    let (Some(&l1), Some(&l2)) = (structure.get(2), structure.get(3)) else {
        return Err(EvalError::malformed("", "leg records too short"));
    };
    let (l1, l2) = (f64::from(l1), f64::from(l2));
    let hip = thigh_fk.0[3];
    let reach = ankle.minus(hip);
    let dist = reach.len();
    if dist <= (l1 - l2).abs() {
        return Err(refuse(
            format!("{name} IK target {dist} from the hip (leg {l1} + {l2})"),
            "leg IK targets closer to the hip than the leg folds",
        ));
    }
    let dir = reach.scale(1.0 / dist);
    let hinge = thigh_fk.0[2];
    let normal = hinge.minus(dir.scale(hinge.dot(dir)));
    if normal.len() < 1e-9 {
        return Err(refuse(
            format!("{name} FK knee axis along the reach"),
            "leg IK with the knee axis along the reach",
        ));
    }
    let normal = normal.normalized();
    let (knee_along, knee_side, ankle) = knee_and_ankle(l1, l2, dist);
    let side = normal.cross(dir);
    let knee = hip.plus(dir.scale(knee_along).plus(side.scale(knee_side)));
    let ankle = hip.plus(dir.scale(ankle));
    let frame = |from: Vec3, to: Vec3, len: f64| {
        let x = to.minus(from).scale(1.0 / len);
        Mat43([x, normal.cross(x), normal, from])
    };
    let thigh = frame(hip, knee, l1);
    let calf = frame(knee, ankle, l2);
    let foot = figure::with_position(&foot_rot, ankle);
    let toes = toes_held(rig, left, name, (ki, kj), t, &foot, local)?;
    Ok((record, [thigh, calf, foot], toes))
}

/// Largest cosine of the angle between the calf and the hip-to-ankle line.
/// At or beyond full reach Biped keeps the leg bent by that much: Player@Idle's
/// left leg at tick 3680 (target 45.108 from the hip, leg 20.608 + 22.712)
/// points at its target with a knee bend of 2.97e-3 rad in its FBX, the
/// bend this cap gives (a distance cap fits it at 1.1e-6 of the leg, no
/// round number); with the leg straight the calf is 1.2e-3 off, with this
/// cap 3e-5 (rotation) and 3e-4 (position).
const CALF_COS_MAX: f64 = 1.0 - 1e-6;

/// The two-bone leg solved towards a target `dist` from the hip (thigh `l1`,
/// calf `l2`): the knee's distance along the hip-to-target line and off it
/// (towards the bend side), and the ankle's distance along the line — the
/// target's own when it is reached, less when the calf's angle to the line
/// is capped ([`CALF_COS_MAX`]).
fn knee_and_ankle(l1: f64, l2: f64, dist: f64) -> (f64, f64, f64) {
    let cos_calf = (l2 * l2 + dist * dist - l1 * l1) / (2.0 * l2 * dist);
    if cos_calf <= CALF_COS_MAX {
        // Reached: the law of cosines (the knee may sit behind the hip along
        // the line when the target is near).
        let c = cos_calf.max(-1.0);
        return (dist - l2 * c, l2 * (1.0 - c * c).sqrt(), dist);
    }
    // The knee's height above the line is the same from either bone.
    let knee_side = l2 * (1.0 - CALF_COS_MAX * CALF_COS_MAX).sqrt();
    let knee_along = (l1 * l1 - knee_side * knee_side).max(0.0).sqrt();
    (knee_along, knee_side, knee_along + l2 * CALF_COS_MAX)
}

/// Largest turn (rad) of a toe base's world rotation between the two IK keys
/// of a segment for which the toe is evaluated. Yellow@Spawn's 5760 → 6400
/// store toe deltas that keep the toe's world rotation to 1e-5 while the
/// foot turns 0.0186 (the delta of 6400 undoes the foot's turn), and its FBX
/// holds the toe there at every frame; how a toe that turns in the world
/// between IK keys moves is not measured, and below this any continuous
/// path stays within the comparisons' 1e-3.
const TOE_HELD: f64 = 1e-3;

fn transposed(m: &Mat43) -> Mat43 {
    let r = m.rows();
    let col = |i: usize| Vec3(r[0][i], r[1][i], r[2][i]);
    Mat43([col(0), col(1), col(2), Vec3::default()])
}

/// The toe bases of a leg solved by the IK rule between keys `ki`, `kj`
/// (`foot` its world TM at `t`, `pivot` the run's pivot in the foot's frame).
/// Measured on Yellow@Spawn's 5760 → 6400 (pivot 5, at the toe's base): the
/// foot turns about the pivot while **the toe keeps its world rotation** —
/// its FBX's B_L/R_Toe (on Toe01, bend 0.9599 at both keys) turn by less
/// than 5e-6 over frames 36–40 and move exactly with the pivot, so Toe0 sits
/// at the foot's toe point (the pivot) with the rotation the keys give it.
/// Following the foot instead (its FK delta on the IK foot) is 0.024 off.
/// The rotation is the half-cosine slerp between the keys' own (`motion`'s
/// toe rule; equal within `TOE_HELD`). Refused by name: toes turning in the
/// world between the keys, and a foot pivoting elsewhere than at the toe's
/// base (how the toe moves then is not measured).
fn toes_held(
    rig: &Rig,
    left: bool,
    name: &str,
    (ki, kj): (&super::tracks::Key, &super::tracks::Key),
    t: i32,
    foot: &Mat43,
    pivot: Vec3,
) -> Result<Vec<Result<Mat43, EvalError>>, EvalError> {
    let structure = figure::half(rig, figure::LEG_STRUCTURE, left)?;
    let toes = super::extremities::digits(structure, 10)?;
    let (pose_i, pose_j) = (
        motion::base_pose_at(rig, ki.time),
        motion::base_pose_at(rig, kj.time),
    );
    let u = f64::from(t - ki.time) / f64::from(kj.time - ki.time);
    let s = (1.0 - (std::f64::consts::PI * u).cos()) / 2.0;
    let held = |k: usize, m: &[f64; 16]| -> Result<Mat43, EvalError> {
        let base = Vec3(m[12], m[13], m[14]);
        if base.minus(pivot).len() > SAME_PIVOT {
            return Err(refuse(
                format!(
                    "{name} pivots at ({:.4}, {:.4}, {:.4}) in the foot, not at toe {k}'s base ({:.4}, {:.4}, {:.4})",
                    pivot.0, pivot.1, pivot.2, base.0, base.1, base.2
                ),
                "leg IK toes of a foot pivoting elsewhere than at the toe",
            ));
        }
        let (ri, rj) = (
            figure::toe_base(rig, &pose_i, left, k)?,
            figure::toe_base(rig, &pose_j, left, k)?,
        );
        // The world turn from the first key's toe to the second's (a proper
        // rotation even where the left toe's axes are a reflection).
        let turn = Quat::from_rows(rows(&transposed(&ri).then(&with_rotation_only(&rj))));
        let angle = 2.0 * turn.w.abs().min(1.0).acos();
        if angle > TOE_HELD {
            return Err(refuse(
                format!(
                    "{name} toe {k} turns {angle:.4} rad in the world between the IK keys at ticks {} and {}",
                    ki.time, kj.time
                ),
                "leg IK toes turning between keys",
            ));
        }
        let r = with_rotation_only(&ri).then(&Mat43::rotation(Quat::IDENTITY.slerp(turn, s)));
        Ok(figure::with_position(&r, foot.transform_point(base)))
    };
    Ok(toes
        .iter()
        .enumerate()
        .map(|(k, toe)| held(k, &toe.m))
        .collect())
}

fn with_rotation_only(m: &Mat43) -> Mat43 {
    figure::with_position(m, Vec3::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Player@Idle's left leg (thigh 20.607717, calf 22.711699).
    const L1: f64 = 20.607_717_514_038_086;
    const L2: f64 = 22.711_698_532_104_492;

    fn bend(l1: f64, l2: f64, dist: f64) -> (f64, f64) {
        let (along, side, ankle) = knee_and_ankle(l1, l2, dist);
        let thigh = side.atan2(along);
        let calf = side.atan2(ankle - along);
        (thigh + calf, ankle)
    }

    #[test]
    fn a_reached_target_is_the_law_of_cosines() {
        for dist in [3.0, 10.0, 30.0, 43.0] {
            let (along, side, ankle) = knee_and_ankle(L1, L2, dist);
            assert_eq!(ankle, dist);
            // Both bones keep their lengths.
            assert!((along.hypot(side) - L1).abs() < 1e-9);
            assert!(((ankle - along).hypot(side) - L2).abs() < 1e-9);
        }
        // Near the hip the knee sits behind it along the line.
        let (along, _, _) = knee_and_ankle(5.0, 10.0, 6.0);
        assert!(along < 0.0);
    }

    #[test]
    fn beyond_reach_the_leg_points_at_the_target_with_the_capped_bend() {
        // Player@Idle tick 3680: the FBX's knee bend 2.89e-3 (measured),
        // the ankle on the line to the target, short of the full 43.32.
        let (b, ankle) = bend(L1, L2, 45.108_490_556_561_75);
        assert!((b - 2.97e-3).abs() < 1e-4, "{b}");
        assert!(ankle < L1 + L2 && ankle > L1 + L2 - 1e-4, "{ankle}");
        // Any farther target gives the same leg.
        assert_eq!(knee_and_ankle(L1, L2, 45.0), knee_and_ankle(L1, L2, 1e6));
        // The cap meets the law of cosines where it starts: no jump.
        let (_, at_cap) = bend(L1, L2, L1 + L2);
        let (b_near, _) = bend(L1, L2, at_cap - 1e-9);
        assert!((b_near - b).abs() < 1e-5, "{b_near} vs {b}");
        let (along, side, ankle) = knee_and_ankle(L1, L2, 50.0);
        assert!((along.hypot(side) - L1).abs() < 1e-9);
        assert!(((ankle - along).hypot(side) - L2).abs() < 1e-9);
    }
}
