//! Leg IK in-betweens: between two leg keys at IK blend 1, Biped does not
//! interpolate the leg's FK channels; the foot follows its pivot and the
//! thigh and calf are solved. Measured on biped-ld35/Yellow@Spawn's FBX
//! (keys 5760 → 6400, both legs; docs/biped.md, "Leg IK in-betweens"):
//!
//! - the foot's **world** rotation is a squad through the keys' world foot
//!   rotations (each key's FK foot),
//!   with the keys' TCB control points like every biped quaternion channel
//!   (the FK key before the run included);
//! - the foot's pivot (record [111..113], Y-up world) moves along the
//!   pivot positions of the run's keys (two keys: a straight line at
//!   constant speed, the biped boundary rule), and the ankle hangs off it
//!   at the offset the pivot had in the foot's frame at the run's first key;
//! - the hip is the FK thigh's position, the knee is placed by the law of
//!   cosines in the plane through the hip and the ankle that is normal to the
//!   FK thigh's Z axis (made perpendicular to the reach), and the thigh and
//!   calf take that normal as their Z axis.
//!
//! Everything else stays refused by name: blends between 0 and 1 and the FK
//! → IK transitions, runs of other than two keys or followed by another
//! key, pivot changes, other record layouts and body-space IK keys.

use super::figure::{self, Pose};
use super::motion::{self, IK_BLEND, IK_FREE};
use super::Rig;
use crate::eval::core::math::{Mat43, Quat, Vec3};
use crate::eval::error::EvalError;

/// Leg record words of the pivot state (120-word records, Max 2013+: the
/// seed's [98], [101..103] for 110-word records, shifted by 10 like the toe
/// blocks): the active pivot's index and its world position (Y-up).
const PIVOT_INDEX: usize = 108;
const PIVOT: usize = 111;
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

/// A solved leg: its FK record (for the toes) and the thigh, calf and foot
/// world TMs.
pub type Solved = (Vec<f32>, [Mat43; 3]);

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
    Some(solve_segment(rig, pose, left, t, name, i, j))
}

fn solve_segment(
    rig: &Rig,
    pose: &Pose,
    left: bool,
    t: i32,
    name: &str,
    i: usize,
    j: usize,
) -> Result<Solved, EvalError> {
    let tr = motion::track(rig, name)
        .ok_or_else(|| EvalError::malformed("", format!("no {name} keys")))?;
    let keys = &tr.keys;
    let blend = |k: usize| keys[k].values.get(IK_BLEND).copied().unwrap_or(0.0);
    let full = |k: usize| (blend(k) - 1.0).abs() <= IK_FREE;
    let free = |k: usize| blend(k).abs() <= IK_FREE;
    let (ki, kj) = (&keys[i], &keys[j]);
    if !full(i) || !full(j) {
        // Name a partial blend first, else the IK key of an FK → IK segment.
        let k = if !free(i) && !full(i) {
            ki
        } else if !free(j) && !full(j) || free(i) {
            kj
        } else {
            ki
        };
        return Err(refuse(
            format!(
                "{name} key at tick {} has IK blend {}",
                k.time,
                k.values.get(IK_BLEND).copied().unwrap_or(0.0)
            ),
            "IK in-betweens of blend transitions (an FK and an IK key, or blends between 0 and 1)",
        ));
    }
    if i > 0 && !free(i - 1) {
        return Err(refuse(
            format!("{name} IK keys from tick {} on", keys[i - 1].time),
            "leg IK runs of more than two keys",
        ));
    }
    if j + 1 < keys.len() && !free(j + 1) {
        return Err(refuse(
            format!("{name} IK keys up to tick {}", keys[j + 1].time),
            "leg IK runs of more than two keys",
        ));
    }
    // Measured only with the run's last key ending the track.
    if j + 1 < keys.len() {
        return Err(refuse(
            format!("{name} key at tick {} follows the IK run", keys[j + 1].time),
            "leg IK runs followed by another key",
        ));
    }
    if ki.values.len() != 120 || kj.values.len() != 120 {
        return Err(refuse(
            format!("{name} records of {} words", ki.values.len()),
            "leg IK pivots in other than 120-word leg records",
        ));
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
    for k in [ki, kj] {
        let space = int(k, IK_SPACE)?;
        if space != OBJECT_SPACE {
            return Err(refuse(
                format!("{name} key at tick {} has IK space flag {space}", k.time),
                "leg IK keys in other than object space",
            ));
        }
    }
    let (pi, pj) = (int(ki, PIVOT_INDEX)?, int(kj, PIVOT_INDEX)?);
    if pi != pj {
        return Err(refuse(
            format!("{name} pivot changes from {pi} to {pj} at tick {}", kj.time),
            "leg IK pivot changes",
        ));
    }

    // The keys' own FK poses: the foot's world TM at each key of the squad.
    let lo = i.saturating_sub(1);
    let hi = (j + 2).min(keys.len());
    let mut world_keys = Vec::with_capacity(hi - lo);
    let mut foot_i = None;
    let mut prev: Option<Quat> = None;
    for (k, key) in keys.iter().enumerate().take(hi).skip(lo) {
        let at = motion::pose_at(rig, key.time);
        let foot = figure::foot(rig, &at, left)?;
        if k == i {
            foot_i = Some(foot);
        }
        let mut q = Quat::from_rows(rows(&foot));
        // Consecutive world rotations on the same hemisphere: the matrices
        // fix them only up to sign.
        q = q.closest_to(prev);
        prev = Some(q);
        let mut key = key.clone();
        key.values = vec![q.x as f32, q.y as f32, q.z as f32, q.w as f32];
        world_keys.push(key);
    }
    let foot_i = foot_i.ok_or_else(|| EvalError::malformed(name.to_string(), "no run key"))?;
    let world_track = super::tracks::KeyTrack {
        keys: world_keys,
        ..tr.clone()
    };
    let q = motion::quat_curve(&world_track, 0, t)?.normalized();
    let foot_rot = Mat43::rotation(q);

    // The pivot's path and the ankle hanging off it.
    let (pa_i, pa_j) = (
        yup_point(&ki.values, PIVOT, name, ki.time)?,
        yup_point(&kj.values, PIVOT, name, kj.time)?,
    );
    let ankle_i = foot_i.0[3];
    let d = pa_i.minus(ankle_i);
    let [x, y, z] = rows(&foot_i);
    let local = Vec3(d.dot(x), d.dot(y), d.dot(z));
    let u = f64::from(t - ki.time) / f64::from(kj.time - ki.time);
    let pivot = pa_i.plus(pa_j.minus(pa_i).scale(u));
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
    if !(dist > (l1 - l2).abs() && dist < l1 + l2) {
        return Err(refuse(
            format!("{name} IK target {dist} from the hip (leg {l1} + {l2})"),
            "leg IK targets out of the leg's reach",
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
    let cos = (l1 * l1 + dist * dist - l2 * l2) / (2.0 * l1 * dist);
    let sin = (1.0 - cos * cos).max(0.0).sqrt();
    let side = normal.cross(dir);
    let knee = hip.plus(dir.scale(l1 * cos).plus(side.scale(l1 * sin)));
    let frame = |from: Vec3, to: Vec3, len: f64| {
        let x = to.minus(from).scale(1.0 / len);
        Mat43([x, normal.cross(x), normal, from])
    };
    let thigh = frame(hip, knee, l1);
    let calf = frame(knee, ankle, l2);
    let foot = figure::with_position(&foot_rot, ankle);
    Ok((record, [thigh, calf, foot]))
}
