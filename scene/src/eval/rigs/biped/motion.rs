//! The Biped pose at any tick from the keytracks (seed §11, "Conversions" and
//! "Interpolation"): every channel is interpolated in its stored space, then
//! the body-part rules of `figure` turn the result into world TMs.
//!
//! - COM position = (h\[0\], −h\[2\], v\[2\]) — horizontal record x and Y-up depth,
//!   vertical record height — each a biped TCB curve (`scalar_curve`:
//!   Kochanek–Bartels with 3D Studio's spacing factors, the plain difference
//!   as the boundary tangent).
//! - COM rotation = the turn record's Y-up quaternion [4..7], squad through
//!   the keys along the arcs as given (`quat_curve`), converted like the
//!   figure's COM rotation. This holds for large turns too: Yellow@Spawn's
//!   148° and 153° segments match its FBX to 2.0e-6 at every frame (the
//!   stored angles [0..2], interpolated instead, are 0.23 off there).
//! - TCB parameters (`key_tcb`): time record word \[7\] is tension, word \[9\]
//!   continuity (Yellow@Spawn's COM key 5920 at 5, Player.max's keys at 0 —
//!   linear in-betweens — both match their FBX). A key whose word \[8\] is not
//!   25 is not evaluated on its two segments (`tcb_gate`; no corpus key has
//!   one) unless the keys shaping the segment hold one record, where every
//!   TCB variant is constant (`still_window`).
//! - Pelvis: at the COM position, the constant pelvis axes in the COM frame,
//!   turned by the pelvis keys' quaternion (a squad, the head's convention:
//!   (−y, −x, z, w) in the pelvis frame). The turn moves the pelvis bone and
//!   the hips only (Player.max 24000–33600 against its FBX).
//! - Legs: the leg record has the layout of a figure leg pose half; the knee
//!   angle \[0\] is a TCB curve, the thigh [2..5] and foot [28..31]
//!   quaternions squads, the toe bases [47 + 12k] and bends eased by a half
//!   cosine between their two keys (`toe_quat_at`, `toe_bend_at`). Between
//!   two IK keys at blend 1 `leg_ik` places the leg and its toes (on the
//!   base layer; the layers above carry the solution with their COM turn),
//!   between an FK and an IK key the leg is FK, partial blends are not
//!   evaluated; at a key's own tick the stored (solved) pose holds.
//! - Spine, neck, head, tail: each link's rotation `Ry(a2)·Rz(−a1)·Rx(a3)`
//!   a squad through the keys that key that link (`link_curve`), the head
//!   quaternion a squad, then the figure's chain rules (`chains_at`). Arms: the arm keys in the layout of a figure arm pose
//!   half, elbow a TCB curve, upper-arm quaternion a squad (`arm_at`).
//!
//! A rig saved in figure mode (0x0109 = 1) is at its figure pose at every
//! tick: SeanConway_Character (no keys at all) then matches its Skin's
//! bind TMs at any tick. Animation layers above the base add their COM turn
//! offsets (`layer_turn`; Player@Idle). A track without keys holds the pose
//! Max saved at the time slider (`saved_com`, `saved_record`: the
//! current-position twins of the figure records): with nothing to
//! interpolate it is the same at every tick (docs/biped.md, "Unkeyed
//! tracks").

use super::figure::{self, Pose};
use super::{KeyTrack, Rig};
use crate::eval::core::keys::{q_log, LogTangents};
use crate::eval::core::math::{Mat43, Quat, Vec3};
use crate::eval::core::transform::invert;
use crate::eval::error::EvalError;

/// Leg record offsets of the thigh and foot quaternions.
const LEG_QUATS: [usize; 2] = [2, 28];
/// Leg record offset of the IK blend.
pub(super) const IK_BLEND: usize = 12;
/// IK blends at most this large are FK keys. Yellow@Spawn's FK leg keys
/// store 2.1e-23 and 9.2e-12 there (float residue of a blend curve): a
/// blend weighs the IK solution against the FK pose, so such a weight moves
/// the leg by less than 1e-6 of their distance.
pub(super) const IK_FREE: f32 = 1e-6;

pub(super) fn track<'r>(rig: &'r Rig, name: &str) -> Option<&'r KeyTrack> {
    rig.tracks
        .iter()
        .find(|t| t.name == name && !t.keys.is_empty())
}

/// Max UI TCB (25 = default) → the internal −1..1 range.
fn tcb_param(v: f32) -> f64 {
    (f64::from(v) - 25.0) / 25.0
}

/// A key's (tension, continuity, bias) in −1..1. The time record's words
/// \[7\], \[8\], \[9\] are read as tension, bias, continuity: word \[9\] — shown as
/// "bias" in earlier notes — is what acts as continuity in every FBX. At 0
/// (continuity −1) Player.max's keys interpolate linearly (its knee angle
/// between keys 1600 ticks apart steps 0.17329 rad per frame, exactly, in
/// Player.FBX), and Yellow@Spawn's COM key 5920 at 5 (−0.8) has the in- and
/// outgoing tangents its FBX implies (−166.811 and −58.995 per segment: see
/// `spacing`). Word \[8\] is 25 on every corpus key; another value is refused
/// (`tcb_gate`), so the bias here is always 0.
fn key_tcb(k: &super::tracks::Key) -> (f64, f64, f64) {
    (
        tcb_param(k.tcb[0]),
        tcb_param(k.tcb[2]),
        tcb_param(k.tcb[1]),
    )
}

/// The uneven-spacing factors of a key's incoming and outgoing tangents,
/// 3D Studio's rule: 2·Δ/(Δin + Δout), moved towards 1 by the continuity's
/// magnitude (f + |c|·(1 − f)). At continuity 0 these are Max's usual
/// factors; Yellow@Spawn's key 5920 (continuity −0.8, 1760 ticks in, 480
/// out) needs 1.1143 and 0.8857, not 1.5714 and 0.4286, and gets them.
fn spacing(dt_in: f64, dt_out: f64, c: f64) -> (f64, f64) {
    let sum = dt_in + dt_out;
    if sum <= 0.0 {
        return (1.0, 1.0);
    }
    let (f_in, f_out) = (2.0 * dt_in / sum, 2.0 * dt_out / sum);
    let a = c.abs();
    (f_in + a * (1.0 - f_in), f_out + a * (1.0 - f_out))
}

fn value(track: &KeyTrack, k: usize, i: usize) -> Result<f64, EvalError> {
    track.keys[k]
        .values
        .get(i)
        .map(|&v| f64::from(v))
        .ok_or_else(|| {
            EvalError::malformed(
                format!("{} key {k}", track.name),
                format!("record too short for value [{i}]"),
            )
        })
}

/// The keys of the segment holding `t` strictly inside it, if any.
pub(super) fn segment_keys(track: &KeyTrack, t: i32) -> Option<(usize, usize)> {
    let i = track.keys.partition_point(|k| k.time <= t);
    (i > 0 && i < track.keys.len() && track.keys[i - 1].time < t).then(|| (i - 1, i))
}

/// Refuses tick `t` when a key of its segment has a time record word \[8\]
/// (read as bias, `key_tcb`) other than the default 25: every corpus key
/// stores 25 there, so what it does is not measured. Tension (word \[7\]) is
/// Max's (1 − t) scaling (Yellow@Spawn's vertical key at tension 50 has zero
/// tangents on both sides in its FBX) and continuity (word \[9\]) is
/// evaluated. A segment's curve depends only on its two keys' own
/// parameters, so the other segments stay evaluated; at a key's own tick
/// the stored value holds.
fn tcb_gate(track: &KeyTrack, t: i32) -> Result<(), EvalError> {
    let Some((i, j)) = segment_keys(track, t) else {
        return Ok(());
    };
    for k in [&track.keys[i], &track.keys[j]] {
        if k.tcb[1] != 25.0 && !still_window(track, i, j) {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "{} key at tick {} has TCB word [8] = {}",
                    track.name, k.time, k.tcb[1]
                ),
                "TCB word [8] (bias) other than the default 25",
            ));
        }
    }
    Ok(())
}

/// Relative difference of key words treated as float noise by `still_window`
/// (words that are not numbers, such as NaN padding, must be equal bits).
const STILL: f32 = 1e-6;

/// Whether the keys that shape segment (`i`, `j`) — its own two and their
/// outer neighbours — hold the same record. Every TCB tangent, whatever its
/// tension, continuity and bias, is a weighted sum of the differences to the
/// neighbouring keys (the ends take the plain difference), so all of them
/// are zero there and the segment holds its keys' value (as Player.max's
/// COM keys, equal to float noise, do). Within `STILL` (relative) the
/// tangents are at most a few times that, far below the comparisons' 1e-3.
fn still_window(track: &KeyTrack, i: usize, j: usize) -> bool {
    let lo = i.saturating_sub(1);
    let hi = (j + 1).min(track.keys.len() - 1);
    let first = &track.keys[lo].values;
    track.keys[lo..=hi].iter().all(|k| {
        k.values.len() == first.len()
            && k.values.iter().zip(first).all(|(a, b)| {
                a.to_bits() == b.to_bits() || (a - b).abs() <= STILL * (1.0 + b.abs())
            })
    })
}

/// The TCB curve of values `at..at + N` of every key, at tick `t`.
pub(super) fn scalar_curve<const N: usize>(
    track: &KeyTrack,
    at: usize,
    t: i32,
) -> Result<[f64; N], EvalError> {
    tcb_gate(track, t)?;
    let n = track.keys.len();
    if n == 0 {
        return Err(EvalError::malformed(track.name.to_string(), "no keys"));
    }
    let vals = |k: usize| -> Result<[f64; N], EvalError> {
        let mut v = [0.0; N];
        for (j, slot) in v.iter_mut().enumerate() {
            *slot = value(track, k, at + j)?;
        }
        Ok(v)
    };
    let i = track.keys.partition_point(|k| k.time <= t);
    if i == 0 {
        return vals(0);
    }
    if i >= n || track.keys[i - 1].time == t {
        return vals(i - 1);
    }
    let (a, b) = (i - 1, i);
    let (_, out_a) = tangents(track, a, &vals)?;
    let (in_b, _) = tangents(track, b, &vals)?;
    let (va, vb) = (vals(a)?, vals(b)?);
    let u = f64::from(t - track.keys[a].time) / f64::from(track.keys[b].time - track.keys[a].time);
    let (u2, u3) = (u * u, u * u * u);
    let (h1, h2, h3, h4) = (
        2.0 * u3 - 3.0 * u2 + 1.0,
        -2.0 * u3 + 3.0 * u2,
        u3 - 2.0 * u2 + u,
        u3 - u2,
    );
    Ok(std::array::from_fn(|j| {
        h1 * va[j] + h2 * vb[j] + h3 * out_a[j] + h4 * in_b[j]
    }))
}

/// Key `i`'s incoming and outgoing Kochanek–Bartels tangents (per segment)
/// with Biped's parameters (`key_tcb`) and spacing factors (`spacing`); the
/// plain difference, scaled by (1 − tension), at the ends.
type Tangents<const N: usize> = ([f64; N], [f64; N]);

fn tangents<const N: usize>(
    track: &KeyTrack,
    i: usize,
    vals: &dyn Fn(usize) -> Result<[f64; N], EvalError>,
) -> Result<Tangents<N>, EvalError> {
    let k = &track.keys[i];
    let (tt, c, b) = key_tcb(k);
    let v = vals(i)?;
    let prev = i.checked_sub(1).map(&vals).transpose()?;
    let next = (i + 1 < track.keys.len())
        .then(|| vals(i + 1))
        .transpose()?;
    let d_in = prev.map(|p| std::array::from_fn::<f64, N, _>(|j| v[j] - p[j]));
    let d_out = next.map(|q| std::array::from_fn::<f64, N, _>(|j| q[j] - v[j]));
    Ok(match (d_in, d_out) {
        (Some(di), Some(dout)) => {
            let (f_in, f_out) = spacing(
                f64::from(k.time - track.keys[i - 1].time),
                f64::from(track.keys[i + 1].time - k.time),
                c,
            );
            (
                std::array::from_fn(|j| {
                    f_in * (1.0 - tt)
                        * ((1.0 - c) * (1.0 + b) / 2.0 * di[j]
                            + (1.0 + c) * (1.0 - b) / 2.0 * dout[j])
                }),
                std::array::from_fn(|j| {
                    f_out
                        * (1.0 - tt)
                        * ((1.0 + c) * (1.0 + b) / 2.0 * di[j]
                            + (1.0 - c) * (1.0 - b) / 2.0 * dout[j])
                }),
            )
        }
        (Some(d), None) | (None, Some(d)) => {
            let e = std::array::from_fn(|j| (1.0 - tt) * d[j]);
            (e, e)
        }
        (None, None) => ([0.0; N], [0.0; N]),
    })
}

fn quat_at(track: &KeyTrack, k: usize, at: usize) -> Result<Quat, EvalError> {
    let q = Quat {
        x: value(track, k, at)?,
        y: value(track, k, at + 1)?,
        z: value(track, k, at + 2)?,
        w: value(track, k, at + 3)?,
    };
    let n = q.dot(q).sqrt();
    if !n.is_finite() || n <= 1e-6 {
        return Err(EvalError::malformed(
            format!("{} key {k}", track.name),
            format!("quaternion [{at}..{}] has length {n}", at + 3),
        ));
    }
    Ok(q.normalized())
}

/// The squad through the quaternions at `at..at + 4` of every key, at tick `t`.
pub(super) fn quat_curve(track: &KeyTrack, at: usize, t: i32) -> Result<Quat, EvalError> {
    tcb_gate(track, t)?;
    let mut qs: Vec<Quat> = Vec::with_capacity(track.keys.len());
    for k in 0..track.keys.len() {
        let mut q = quat_at(track, k, at)?;
        if qs.last().is_some_and(|p| p.dot(q) < 0.0) {
            q = -q;
        }
        qs.push(q);
    }
    Ok(squad(track, &qs, t))
}

/// The squad through `qs` (one per key of `track`, signs made continuous) at
/// tick `t`, with the keys' TCB control points.
fn squad(track: &KeyTrack, qs: &[Quat], t: i32) -> Quat {
    let times: Vec<i32> = track.keys.iter().map(|k| k.time).collect();
    let n = qs.len();
    let i = times.partition_point(|&k| k <= t);
    if i == 0 {
        return qs[0];
    }
    if i >= n {
        return qs[n - 1];
    }
    let i = i - 1;
    let u = f64::from(t - times[i]) / f64::from(times[i + 1] - times[i]);
    let (_, a) = control_points(track, qs, i);
    let (b, _) = control_points(track, qs, i + 1);
    let p = slerp_direct(qs[i], qs[i + 1], u);
    let q = slerp_direct(a, b, u);
    slerp_direct(p, q, 2.0 * u * (1.0 - u)).normalized()
}

/// Slerp along the arc from `a` to `b` as given — no flip to the shorter arc:
/// the squad's control points of a large swing lie more than 180° apart, and
/// flipping them sends the in-betweens the wrong way round (measured on
/// biped-ld35/Player@Run's thighs, 115° per key).
fn slerp_direct(a: Quat, b: Quat, u: f64) -> Quat {
    let d = a.dot(b).clamp(-1.0, 1.0);
    let th = d.acos();
    let s = th.sin();
    let (ka, kb) = if s.abs() < 1e-9 {
        (1.0 - u, u)
    } else {
        (((1.0 - u) * th).sin() / s, (u * th).sin() / s)
    };
    Quat {
        x: ka * a.x + kb * b.x,
        y: ka * a.y + kb * b.y,
        z: ka * a.z + kb * b.z,
        w: ka * a.w + kb * b.w,
    }
}

/// The incoming and outgoing squad control points of key `i`: Kochanek–Bartels
/// tangents in the log space of the relative rotations, the plain difference
/// at the ends (seed §11, "Interpolation").
fn control_points(track: &KeyTrack, qs: &[Quat], i: usize) -> (Quat, Quat) {
    let k = &track.keys[i];
    let q = qs[i];
    let prev = i
        .checked_sub(1)
        .map(|p| q_log(qs[p].conjugate().compose(q)));
    let next = qs.get(i + 1).map(|n| q_log(q.conjugate().compose(*n)));
    let tcb = key_tcb(k);
    let mut tangents = LogTangents::new(prev, next, tcb);
    // Uneven key spacing scales the tangents as for scalar TCB keys.
    if let (Some(p), Some(nk)) = (i.checked_sub(1), track.keys.get(i + 1)) {
        let (f_in, f_out) = spacing(
            f64::from(k.time - track.keys[p].time),
            f64::from(nk.time - k.time),
            tcb.1,
        );
        tangents.t_in = tangents.t_in.scale(f_in);
        tangents.t_out = tangents.t_out.scale(f_out);
    }
    tangents.control_points(q)
}

/// The upper animation layers' COM turn offsets at `t`, composed (the
/// highest applied last), or why the layers are not evaluated: a layer that
/// keys any other track. Biped layers hold offsets from the layers below
/// (biped-ld35/Player@Idle's "Layer 1" keys the turn with the identity at
/// 0, 1920 and 3840, about 0.86 rad at 640 and 2560); each layer's turn is
/// the squad through its own keys like the base turn, applied before the
/// base in the stored quaternions (`layer · base`). Measured on Player@Idle's
/// current-pose record 0x0260, the composite Max computed at tick 1440 when
/// it saved the file: to 1.3e-7 (a slerp between the layer's keys instead:
/// 0.056).
fn layer_turn(rig: &Rig, t: i32) -> Result<Option<Quat>, EvalError> {
    let mut turn: Option<Quat> = None;
    for (i, layer) in rig.layers.iter().enumerate() {
        let name = || layer.name.clone().unwrap_or_else(|| format!("{}", i + 1));
        if let Some(other) = layer
            .tracks
            .iter()
            .find(|t| t.name != "turn" && !t.keys.is_empty())
        {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "Biped animation layer \"{}\" keys the {} track",
                    name(),
                    other.name
                ),
                "animation layers keying other than the COM turn",
            ));
        }
        if let Some(tr) = layer
            .tracks
            .iter()
            .find(|t| t.name == "turn" && !t.keys.is_empty())
        {
            let q = quat_curve(tr, 4, t)?;
            turn = Some(turn.map_or(q, |below| q.compose(below)));
        }
    }
    Ok(turn)
}

fn com_at(rig: &Rig, t: i32, layers: bool) -> Result<crate::eval::core::math::Mat43, EvalError> {
    let (h, v, turn) = (
        track(rig, "horizontal"),
        track(rig, "vertical"),
        track(rig, "turn"),
    );
    // An unkeyed channel keeps the value Max saved (`saved_com`).
    let saved = if h.is_none() || v.is_none() || turn.is_none() {
        Some(saved_com(rig)?)
    } else {
        None
    };
    let stored = || saved.ok_or_else(|| EvalError::malformed("", "no saved COM record"));
    let [x, _, depth] = match h {
        Some(h) => scalar_curve::<3>(h, 0, t)?,
        None => {
            let (p, _) = stored()?;
            [p[0], p[1], p[2]]
        }
    };
    let height = match v {
        Some(v) => scalar_curve::<1>(v, 2, t)?[0],
        None => {
            // Not the record's [5]: Player@Run's is 1.56 above its height at
            // the time slider (Red@Run's 20.7 below), where the system
            // object's current-position frame (0x0104, row 3) holds it, as
            // the seed says (vertical = 0x0104[13] + the correction [1]).
            stored()?;
            rig.structure
                .current_frame
                .map(|m| m[3][1])
                .ok_or_else(|| {
                    EvalError::not_evaluated(
                        "no vertical keys and no current-position frame (0x0104)",
                    )
                })?
        }
    };
    let mut q = match turn {
        Some(turn) => quat_curve(turn, 4, t)?,
        None => {
            let (_, r) = stored()?;
            Quat {
                x: r[0],
                y: r[1],
                z: r[2],
                w: r[3],
            }
        }
    };
    if layers {
        if let Some(l) = layer_turn(rig, t)? {
            q = l.compose(q).normalized();
        }
    }
    let r = figure::yup_rotation([q.x, q.y, q.z, q.w]);
    Ok(figure::with_position(&r, Vec3(x, -depth, height)))
}

/// The COM Max saved at the time slider in the base layer's record group
/// (0x0260, the current-position twin of 0x006c: [0..2] a correction,
/// [4..6] the position, [8..11] the rotation, Y-up; `a_layer_turns_the_com_as_max_saved_it`
/// checks it against the keys on biped-ld35/Player@Idle). Its height [5]
/// is not the COM's (`com_at` reads 0x0104 for it). A COM track
/// without keys has nothing to interpolate, so Max holds that stored value
/// at every tick (seed §11: "an unkeyed channel keeps its stored value"): a
/// Biped created and skinned but never animated, saved outside figure mode.
/// A non-zero correction (the seed's height correction, zero on every
/// corpus rig) is refused by name: how it adds is not measured.
fn saved_com(rig: &Rig) -> Result<([f64; 3], [f64; 4]), EvalError> {
    let f = figure::record(rig, "0x0260")
        .ok_or_else(|| EvalError::not_evaluated("no COM keys and no saved COM record (0x0260)"))?;
    if f.len() < 12 {
        return Err(EvalError::malformed(
            "",
            format!("saved COM record (0x0260) holds {} words", f.len()),
        ));
    }
    let w = |i: usize| f64::from(f[i]);
    if (0..3).any(|i| w(i) != 0.0) {
        return Err(EvalError::not_evaluated_why(
            format!(
                "no COM keys: the saved COM record carries the correction ({}, {}, {})",
                w(0),
                w(1),
                w(2)
            ),
            "unkeyed COMs with a height correction",
        ));
    }
    Ok(([w(4), w(5), w(6)], [w(8), w(9), w(10), w(11)]))
}

/// The toe base quaternions and the toe link bends of a leg record of `n`
/// words (their layout: `figure::toe_layout`).
fn leg_channels(rig: &Rig, left: bool, n: usize) -> (Vec<usize>, Vec<usize>) {
    let (mut quats, mut bends) = (Vec::new(), Vec::new());
    if let Ok(layout) = figure::toe_layout(n) {
        let toes = figure::half(rig, figure::LEG_STRUCTURE, left)
            .ok()
            .and_then(|s| super::extremities::digits(s, 10).ok())
            .unwrap_or_default();
        for (k, toe) in toes.iter().enumerate() {
            quats.push(layout.first + layout.stride * k);
            bends.extend((1..toe.links).map(|j| layout.bends + layout.stride * k + j));
        }
        quats.retain(|&a| a + 4 <= n);
        bends.retain(|&a| a < n);
    }
    (quats, bends)
}

/// Whether the toe links beyond the bases are evaluated at `t`. At their
/// keys they are, IK keys included (Yellow@Spawn's Toe01 matches its FBX at
/// every key: the FK keys and the IK keys 5760 and 6400, 2e-5).
/// Between two keys the link follows `toe_bend_at`: held where the keys
/// hold the same bend (Yellow@Spawn's 1920 → 3200, both 0: frames 13–19),
/// eased by a half cosine where they differ (3200 → 3840, 0 → −1.047:
/// frames 21–23 to 1.6e-6, where the TCB curve is 0.070 off, a lerp 0.108,
/// smoothstep 0.010; 3840 → 5760, an FK and an IK key, −1.047 → 0.9599:
/// frames 25–35, the leg FK). The half cosine is measured between keys at
/// the default TCB only; other parameters on a changing segment are
/// refused. Between two IK keys the bend is measured held (5760 → 6400,
/// 0.9599 at both; the toe base follows `leg_ik`'s held toe), and a bend
/// changing there is refused.
fn toe_links_at(rig: &Rig, left: bool, t: i32) -> Result<(), EvalError> {
    let name = if left { "left leg" } else { "right leg" };
    let Some(tr) = track(rig, name) else {
        return Ok(());
    };
    let n = tr.keys.first().map_or(0, |k| k.values.len());
    let (_, bends) = leg_channels(rig, left, n);
    let ik = |k: &super::tracks::Key| k.values.get(IK_BLEND).is_some_and(|b| b.abs() > IK_FREE);
    let Some((i, j)) = segment_keys(tr, t) else {
        return Ok(());
    };
    let (ki, kj) = (&tr.keys[i], &tr.keys[j]);
    for at in bends {
        let (a, b) = (ki.values.get(at), kj.values.get(at));
        let same =
            matches!((a, b), (Some(a), Some(b)) if (a - b).abs() <= super::chains::FLAT as f32);
        if same {
            continue;
        }
        if ik(ki) && ik(kj) {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "{name} IK keys at ticks {} and {} bend toe link [{at}] from {} to {}",
                    ki.time,
                    kj.time,
                    a.copied().unwrap_or(f32::NAN),
                    b.copied().unwrap_or(f32::NAN),
                ),
                "toe link bends changing between IK keys",
            ));
        }
        let default = |k: &super::tracks::Key| k.tcb.iter().all(|&w| w == DEFAULT_TCB_WORD);
        if !default(ki) || !default(kj) {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "{name} keys at ticks {} and {} bend toe link [{at}] from {} to {} with TCB {:?} and {:?}",
                    ki.time,
                    kj.time,
                    a.copied().unwrap_or(f32::NAN),
                    b.copied().unwrap_or(f32::NAN),
                    ki.tcb,
                    kj.tcb
                ),
                "toe link bends changing between keys of other than the default TCB",
            ));
        }
    }
    Ok(())
}

/// A time record's TCB word at its default (UI units: tension, continuity
/// and bias 0).
const DEFAULT_TCB_WORD: f32 = 25.0;

/// The two keys' toe base quaternions at `at..at + 4`, the second's sign
/// made continuous with the first (as `quat_curve` does along the track).
fn toe_quats(tr: &KeyTrack, (i, j): (usize, usize), at: usize) -> Result<(Quat, Quat), EvalError> {
    let (a, b) = (quat_at(tr, i, at)?, quat_at(tr, j, at)?);
    Ok((a, if a.dot(b) < 0.0 { -b } else { b }))
}

/// Whether two toe base quaternions hold the same rotation (float noise).
fn same_toe_quat(a: Quat, b: Quat) -> bool {
    [a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w]
        .iter()
        .all(|d| d.abs() <= super::chains::FLAT)
}

/// Whether the toe bases (delta quaternions) are evaluated at `t`. Between
/// two keys a base turns by `toe_quat_at`'s half-cosine slerp, measured
/// between keys at the default TCB only; a base that changes between keys
/// of other TCB words is refused (RabbitSkin's keys store continuity 0 on
/// many changing toe keys, with no reference for their in-betweens).
fn toe_bases_at(rig: &Rig, left: bool, t: i32) -> Result<(), EvalError> {
    let name = if left { "left leg" } else { "right leg" };
    let Some(tr) = track(rig, name) else {
        return Ok(());
    };
    let Some((i, j)) = segment_keys(tr, t) else {
        return Ok(());
    };
    let n = tr.keys.first().map_or(0, |k| k.values.len());
    let (quats, _) = leg_channels(rig, left, n);
    let default = |k: &super::tracks::Key| k.tcb.iter().all(|&w| w == DEFAULT_TCB_WORD);
    let (ki, kj) = (&tr.keys[i], &tr.keys[j]);
    if default(ki) && default(kj) {
        return Ok(());
    }
    for at in quats {
        let (a, b) = toe_quats(tr, (i, j), at)?;
        if !same_toe_quat(a, b) {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "{name} keys at ticks {} and {} turn toe base [{at}] with TCB {:?} and {:?}",
                    ki.time, kj.time, ki.tcb, kj.tcb
                ),
                "toe base rotations changing between keys of other than the default TCB",
            ));
        }
    }
    Ok(())
}

/// Toe base quaternion `at..at + 4` at `t`: between two keys a slerp along
/// the arc as given (signs made continuous) eased by a half cosine, s = (1 −
/// cos πu)/2, the neighbouring keys taking no part — the toe bends' rule
/// (`toe_bend_at`). Measured against Max's own saved pose: biped-ld35/
/// Player@Run's right toe keys alternate between the identity and a half
/// turn about y (keys 0, 1280, …, default TCB), and the saved leg record
/// (0x025d, time slider 480: u = 0.375) holds the toe 0.308660 of the way
/// round (half cosine 0.308658; the squad through the neighbours was 0.019
/// off, smoothstep 0.3164, a lerp 0.375). Yellow@Spawn's 3840 → 5760 (both
/// identity, 6400 turned 0.018 after it): its FBX toes hold the identity,
/// where the squad bulged by up to 2.0e-3 rad. At and outside the keys the
/// keys' own values (`quat_curve`, the ends held).
fn toe_quat_at(tr: &KeyTrack, at: usize, t: i32) -> Result<Quat, EvalError> {
    if let Some((i, j)) = segment_keys(tr, t) {
        let (a, b) = toe_quats(tr, (i, j), at)?;
        let (ti, tj) = (tr.keys[i].time, tr.keys[j].time);
        let u = f64::from(t - ti) / f64::from(tj - ti);
        let s = (1.0 - (std::f64::consts::PI * u).cos()) / 2.0;
        return Ok(slerp_direct(a, b, s).normalized());
    }
    quat_curve(tr, at, t)
}

/// Toe bend word `at` at `t`: between two keys holding the same bend, that
/// bend (Biped does not bulge it towards the neighbouring keys, as a TCB
/// curve would); between two keys whose bends differ, a half-cosine ease
/// from one to the other, a + (b − a)·(1 − cos πu)/2, the neighbouring keys
/// taking no part (Yellow@Spawn's 3200 → 3840, 0 → −1.047 with 5760's
/// 0.9599 after it: its FBX's toes at u = 1/4, 1/2, 3/4 to 1.6e-6); at and
/// outside the keys the TCB curve (the keys' own values, the ends held).
fn toe_bend_at(tr: &KeyTrack, at: usize, t: i32) -> Result<f64, EvalError> {
    if let Some((i, j)) = segment_keys(tr, t) {
        let (a, b) = (value(tr, i, at)?, value(tr, j, at)?);
        if (a - b).abs() <= super::chains::FLAT {
            return Ok(a);
        }
        // `segment_keys` puts t strictly between the two key ticks.
        let (ti, tj) = (tr.keys[i].time, tr.keys[j].time);
        let u = f64::from(t - ti) / f64::from(tj - ti);
        return Ok(a + (b - a) * (1.0 - (std::f64::consts::PI * u).cos()) / 2.0);
    }
    let [v] = scalar_curve::<1>(tr, at, t)?;
    Ok(v)
}

/// A leg's record at `t` from its FK channels, or why Biped re-solves it.
/// Between an FK key and an IK key at blend 1 — either way round — the leg
/// is its FK channels' in-between: measured on biped-ld35's FBX, thighs,
/// calves and feet within 7.2e-6 (rotation element) and 6.0e-5 (position)
/// at every frame of Yellow@Spawn's 3840 → 5760 and Player.max's 17600 →
/// 19200 and 28800 → 30400, both legs. Segments between two IK keys
/// (`leg_ik`) and blends strictly between 0 and 1 (not in the corpus) are
/// not the channels' in-between.
fn leg_at(rig: &Rig, left: bool, t: i32) -> Result<Vec<f32>, EvalError> {
    let name = if left { "left leg" } else { "right leg" };
    let Some(tr) = track(rig, name) else {
        // An unkeyed leg holds its half of the saved leg record (0x025d).
        let saved = saved_record(rig, name, 0x0069)?;
        if saved.is_empty() || saved.len() % 2 != 0 {
            return Err(EvalError::malformed(
                "",
                format!(
                    "saved leg record holds {} floats, not two halves",
                    saved.len()
                ),
            ));
        }
        let h = saved.len() / 2;
        return Ok(if left {
            saved[h..].to_vec()
        } else {
            saved[..h].to_vec()
        });
    };
    if let Some((i, j)) = segment_keys(tr, t) {
        let blend = |k: usize| tr.keys[k].values.get(IK_BLEND).copied().unwrap_or(0.0);
        let free = |k: usize| blend(k).abs() <= IK_FREE;
        let full = |k: usize| (blend(k) - 1.0).abs() <= IK_FREE;
        let transition = (free(i) && full(j)) || (full(i) && free(j));
        if !transition {
            for k in [i, j] {
                if !free(k) {
                    return Err(EvalError::not_evaluated_why(
                        format!(
                            "{name} key at tick {} has IK blend {}",
                            tr.keys[k].time,
                            blend(k)
                        ),
                        "IK in-betweens",
                    ));
                }
            }
        }
    }
    leg_curve(rig, left, t)
}

/// A leg's record at `t` from its FK channels (the knee, quaternion and toe
/// bend curves), whatever the keys' IK blends.
pub(super) fn leg_curve(rig: &Rig, left: bool, t: i32) -> Result<Vec<f32>, EvalError> {
    let name = if left { "left leg" } else { "right leg" };
    let tr = track(rig, name).ok_or_else(|| EvalError::malformed("", format!("no {name} keys")))?;
    // The stored record of the segment's first key, with the channels the
    // body-part rules read replaced by their curves.
    let first = tr.keys.partition_point(|k| k.time <= t).saturating_sub(1);
    let mut out = tr
        .keys
        .get(first)
        .map(|k| k.values.clone())
        .filter(|v| !v.is_empty())
        .ok_or_else(|| EvalError::malformed("", format!("{name} key without values")))?;
    let [knee] = scalar_curve::<1>(tr, 0, t)?;
    out[0] = knee as f32;
    let (toes, bends) = leg_channels(rig, left, out.len());
    for at in bends {
        out[at] = toe_bend_at(tr, at, t)? as f32;
    }
    for at in toes {
        // `leg_channels` keeps only bases inside the record.
        let q = toe_quat_at(tr, at, t)?;
        out[at..at + 4].copy_from_slice(&[q.x as f32, q.y as f32, q.z as f32, q.w as f32]);
    }
    for at in LEG_QUATS {
        if at + 4 > out.len() {
            return Err(EvalError::malformed(
                name.to_string(),
                format!("record too short for a quaternion at [{at}]"),
            ));
        }
        let q = quat_curve(tr, at, t)?;
        out[at..at + 4].copy_from_slice(&[q.x as f32, q.y as f32, q.z as f32, q.w as f32]);
    }
    Ok(out)
}

/// Chain records (spine, tail: a count word, then an (a1, a2, a3) triple per
/// link) at tick `t`: the record of the segment's first key with every
/// link's triple replaced by its rotation curve (`link_curve`).
fn angles_at(tr: &KeyTrack, at: usize, t: i32) -> Result<Vec<f32>, EvalError> {
    let n = tr.keys.first().map_or(0, |k| k.values.len());
    // The count word just before the angles: three per link (seed §11).
    let words = tr
        .keys
        .first()
        .and_then(|k| k.values.get(at.wrapping_sub(1)))
        .map_or(0, |c| c.to_bits() as usize);
    if !words.is_multiple_of(3) || words > 3 * MAX_CHAIN_LINKS || at + words > n {
        return Err(EvalError::malformed(
            tr.name.to_string(),
            format!("{words} angle words in a record of {n}"),
        ));
    }
    if let Some(k) = tr.keys.iter().find(|k| k.values.len() != n) {
        return Err(EvalError::malformed(
            format!("{} key at tick {}", tr.name, k.time),
            format!(
                "record of {} words where the first holds {n}",
                k.values.len()
            ),
        ));
    }
    tcb_gate(tr, t)?;
    let first = tr.keys.partition_point(|k| k.time <= t).saturating_sub(1);
    let mut out = tr.keys[first].values.clone();
    for l in 0..words / 3 {
        let [a1, a2, a3] = link_curve(tr, at + 3 * l, l, t)?;
        out[at + 3 * l..at + 3 * l + 3].copy_from_slice(&[a1 as f32, a2 as f32, a3 as f32]);
    }
    Ok(out)
}

/// Link `l`'s angle triple (at `at` in each key record) at tick `t`: the
/// squad through the link rotations `Ry(a2)·Rz(−a1)·Rx(a3)` of the keys that
/// key the link (`Key::links_keyed`), as an equivalent triple. Biped
/// interpolates a link's rotation, not its angles: on Yellow@Spawn's tail —
/// keys bending every link sideways, one key (4320) leaving Tail2 to its
/// neighbours — this matches the FBX at every evaluated frame (4.3e-6),
/// where per-angle TCB curves were 0.15 rad off between side-bent keys and
/// 0.21 around the partial key. In the plane (a2 = a3 = 0) the two agree
/// (rotations about one axis: Red@Run's, Red@Spawn's and Player@Run's chains
/// are unchanged to 1e-9), the short way round included (Red@Run's tail
/// 4.60 → 0.24).
fn link_curve(tr: &KeyTrack, at: usize, l: usize, t: i32) -> Result<[f64; 3], EvalError> {
    let keys_link =
        |k: &super::tracks::Key| k.links_keyed.is_none_or(|m| l >= 32 || m & (1 << l) != 0);
    // A copy only when some key leaves this link out (Yellow@Spawn's 4320).
    let keyed: std::borrow::Cow<KeyTrack> = if tr.keys.iter().all(keys_link) {
        std::borrow::Cow::Borrowed(tr)
    } else {
        std::borrow::Cow::Owned(KeyTrack {
            keys: tr.keys.iter().filter(|k| keys_link(k)).cloned().collect(),
            ..tr.clone()
        })
    };
    if keyed.keys.is_empty() {
        // Every key's mask leaves this link out (Max 2013+ layout only; the
        // Max 2009 layout has no mask: `tracks::LINK_MASK`).
        let masks: Vec<String> = tr
            .keys
            .iter()
            .take(3)
            .map(|k| format!("{:#x}", k.links_keyed.unwrap_or(0)))
            .collect();
        return Err(EvalError::not_evaluated_why(
            format!(
                "{} keys' link masks ({}, …) key no key of link {l}",
                tr.name,
                masks.join(", ")
            ),
            "per-link keys",
        ));
    }
    let mut qs: Vec<Quat> = Vec::with_capacity(keyed.keys.len());
    for k in 0..keyed.keys.len() {
        let a = [
            value(&keyed, k, at)?,
            value(&keyed, k, at + 1)?,
            value(&keyed, k, at + 2)?,
        ];
        let m = super::chains::link_rotation(a);
        let mut q = Quat::from_rows([m.0[0], m.0[1], m.0[2]]);
        if qs.last().is_some_and(|p| p.dot(q) < 0.0) {
            q = -q;
        }
        qs.push(q);
    }
    Ok(link_angles(&Mat43::rotation(squad(&keyed, &qs, t))))
}

/// (a1, a2, a3) with `Ry(a2) · Rz(−a1) · Rx(a3) = r` (row vectors): row 1 of
/// that product is (−sin c, cos c·cos d, cos c·sin d) with c = −a1, row 0
/// starts cos a2·cos c and row 2 sin a2·cos c. At cos c = 0 only a2 + a3 (or
/// a2 − a3) is defined: a3 is then 0. Accurate to about 1e-9 (1e-7 within
/// 1e-7 of a right-angle bend).
fn link_angles(r: &Mat43) -> [f64; 3] {
    let [r0, r1, r2] = [r.0[0].to_array(), r.0[1].to_array(), r.0[2].to_array()];
    let cc = r1[1].hypot(r1[2]);
    let c = (-r1[0]).atan2(cc);
    if cc < 1e-7 {
        // Row 0 is (0, sin c·cos a2, −sin a2) with a3 = 0 (the dropped
        // cos c terms are below 1e-7).
        return [-c, (-r0[2]).atan2(r0[1] * c.sin().signum()), 0.0];
    }
    [-c, r2[0].atan2(r0[0]), r1[2].atan2(r1[1])]
}

/// More links than any Biped chain has: damaged data.
const MAX_CHAIN_LINKS: usize = 64;

/// Words of a head key before its neck record (head quaternion [0..3], zeros,
/// the neck's link count at \[7\]; seed §11).
const HEAD_KEY_NECK: usize = 7;

/// The head record at `t` in the figure's 0x0064 layout: the figure record
/// (its head offset [16..18] is structural) with the key quaternion [0..3]
/// squad through the head keys.
fn head_at(rig: &Rig, tr: &KeyTrack, t: i32) -> Result<Vec<f32>, EvalError> {
    let mut out = super::figure::record(rig, "0x0064")
        .ok_or_else(|| EvalError::malformed("", "no head pose record (0x0064)"))?
        .to_vec();
    if out.len() < 4 {
        return Err(EvalError::malformed(
            "",
            format!("head pose record holds {} words", out.len()),
        ));
    }
    let q = quat_curve(tr, 0, t)?;
    out[..4].copy_from_slice(&[q.x as f32, q.y as f32, q.z as f32, q.w as f32]);
    Ok(out)
}

/// The upper-body records at tick `t` in the figure's layouts. The spine and
/// tail keys hold 0x0067 / 0x0068 records, the head keys the head quaternion
/// and, from \[7\], a 0x0065 neck record (seed §11); each link's rotation is
/// a squad (`angles_at`), the head quaternion a squad, then the figure's chain rules
/// apply. Checked against the FBX of biped-ld35/Red@Run and Red@Spawn at
/// every frame. The arm keys hold records in the layout of a figure arm pose
/// half (`arm_at`).
fn chains_at(rig: &Rig, t: i32) -> super::chains::ChainRecords {
    // A chain without keys holds the record Max saved (`saved_record`).
    let keyed_or_saved =
        |name: &str, figure_id: u16, f: &dyn Fn(&KeyTrack) -> Result<Vec<f32>, EvalError>| {
            match track(rig, name) {
                Some(tr) => f(tr),
                None => saved_record(rig, name, figure_id),
            }
        };
    let head = match track(rig, "head") {
        Some(tr) => head_at(rig, tr, t),
        None => saved_head(rig),
    };
    // A saved arm half is the arm at the time slider, in the keys' layout
    // (its clavicle deltas [9], [10] included).
    let arm = |left: bool| match track(rig, if left { "left arm" } else { "right arm" }) {
        Some(_) => arm_at(rig, left, t),
        None => saved_arm(rig, left),
    };
    super::chains::ChainRecords {
        spine: keyed_or_saved("spine", 0x0067, &|tr| angles_at(tr, 1, t)),
        neck: keyed_or_saved("head", 0x0065, &|tr| {
            angles_at(tr, HEAD_KEY_NECK + 1, t).map(|v| v[HEAD_KEY_NECK..].to_vec())
        }),
        head,
        tail: keyed_or_saved("tail", 0x0068, &|tr| angles_at(tr, 1, t)),
        arms: [arm(false), arm(true)],
        arms_keyed: true,
    }
}

/// The twin Max saves of figure pose record `figure_id` in the base layer's
/// group: the pose at the time slider when the file was saved (0x0258 …
/// 0x0261 for 0x0064 … 0x006d, the figure's layouts; "The
/// current-position records" in docs/biped.md). A track without keys has
/// nothing to interpolate, so that saved pose holds at every tick (seed
/// §11: "an unkeyed channel keeps its stored value").
fn saved_record(rig: &Rig, track_name: &str, figure_id: u16) -> Result<Vec<f32>, EvalError> {
    let id = format!("{:#06x}", figure_id + SAVED_TWIN);
    figure::record(rig, &id)
        .map(<[f32]>::to_vec)
        .ok_or_else(|| {
            EvalError::not_evaluated(format!(
                "no {track_name} keys and no saved pose record ({id})"
            ))
        })
}

/// The figure records' twins are at this offset (0x0064 → 0x0258).
const SAVED_TWIN: u16 = 0x01f4;

/// An unkeyed head: the figure head record (its offset [16..18] is
/// structural) with the saved head quaternion (0x0258 [0..3]).
fn saved_head(rig: &Rig) -> Result<Vec<f32>, EvalError> {
    let saved = saved_record(rig, "head", 0x0064)?;
    let mut out = super::figure::record(rig, "0x0064")
        .ok_or_else(|| EvalError::malformed("", "no head pose record (0x0064)"))?
        .to_vec();
    if out.len() < 4 || saved.len() < 4 {
        return Err(EvalError::malformed(
            "",
            format!(
                "head pose records hold {} and {} words",
                out.len(),
                saved.len()
            ),
        ));
    }
    out[..4].copy_from_slice(&saved[..4]);
    Ok(out)
}

/// An unkeyed arm: its half of the saved arm record (0x025e).
fn saved_arm(rig: &Rig, left: bool) -> Result<Vec<f32>, EvalError> {
    let name = if left { "left arm" } else { "right arm" };
    let [r, l] = super::chains::arm_halves(saved_record(rig, name, 0x006a));
    if left {
        l
    } else {
        r
    }
}

/// Arm key records of this length (Max 2013+) hold the finger blocks.
const FINGER_RECORD: usize = 290;
const FINGER_FIRST: usize = 47;
const FINGER_BLOCK: usize = 46;
const HAND_QUAT: usize = super::extremities::HAND_QUAT;
const FINGER_LINK_QUAT: usize = super::extremities::FINGER_LINK_QUAT;
const ARM_STRUCTURE: &str = "0x0010";

/// Arm record offsets of the clavicle's two angle deltas (seed §11): TCB
/// curves, added to the structure's clavicle angles by `arms::clavicle`.
const CLAVICLE_DELTAS: [usize; 2] = [9, 10];

/// One arm's record at `t`, in the layout of a figure arm pose half (0x006a):
/// the elbow \[0\] and the clavicle deltas \[9\], \[10\] TCB curves, the upper
/// arm quaternion [2..5] a squad. An IK key (blend \[12\] above
/// [`IK_FREE`], the legs' rule: RabbitSkin's right arm stores 3.9e-43 on an
/// FK key) holds its stored, solved channels at its own tick (NeoAxis's
/// Rabbit.skeleton puts RabbitSkin's IK-keyed right arm there at every key);
/// between it and its neighbours, and before or after the keys when the
/// held end key is one, Biped re-solves the arm: not evaluated.
fn arm_at(rig: &Rig, left: bool, t: i32) -> Result<Vec<f32>, EvalError> {
    let name = if left { "left arm" } else { "right arm" };
    let tr = track(rig, name).ok_or_else(|| EvalError::malformed("", format!("no {name} keys")))?;
    // The keys after `t` start at `after`.
    let after = tr.keys.partition_point(|k| k.time <= t);
    if !tr.keys.iter().any(|k| k.time == t) {
        let around = [
            after.checked_sub(1),
            (after < tr.keys.len()).then_some(after),
        ];
        for k in around.into_iter().flatten().map(|k| &tr.keys[k]) {
            if let Some(&b) = k.values.get(IK_BLEND).filter(|b| b.abs() > IK_FREE) {
                return Err(EvalError::not_evaluated_why(
                    format!("{name} key at tick {} has IK blend {b}", k.time),
                    "IK in-betweens",
                ));
            }
        }
    }
    let mut out = tr.keys[after.saturating_sub(1)].values.clone();
    if out.len() < 6 {
        return Err(EvalError::malformed(
            name.to_string(),
            format!("key record of {} words", out.len()),
        ));
    }
    let [elbow] = scalar_curve::<1>(tr, 0, t)?;
    out[0] = elbow as f32;
    for at in CLAVICLE_DELTAS {
        if at < out.len() {
            let [v] = scalar_curve::<1>(tr, at, t)?;
            out[at] = v as f32;
        }
    }
    // The upper arm, the hand and (Max 2013+ records) each finger link's
    // delta quaternion are squads.
    let mut quats = vec![2];
    if out.len() >= HAND_QUAT + 4 {
        quats.push(HAND_QUAT);
    }
    if out.len() == FINGER_RECORD {
        let fingers = figure::half(rig, ARM_STRUCTURE, left)
            .ok()
            .and_then(|s| super::extremities::digits(s, 16).ok())
            .unwrap_or_default();
        for (k, f) in fingers.iter().enumerate() {
            let block = FINGER_FIRST + FINGER_BLOCK * k;
            quats.extend((0..f.links).map(|j| block + FINGER_LINK_QUAT * j));
        }
        quats.retain(|&a| a + 4 <= out.len());
    }
    for at in quats {
        let q = quat_curve(tr, at, t)?;
        out[at..at + 4].copy_from_slice(&[q.x as f32, q.y as f32, q.z as f32, q.w as f32]);
    }
    Ok(out)
}

/// The pose of `rig` at tick `t`, every animation layer applied.
pub fn pose_at(rig: &Rig, t: i32) -> Pose {
    pose_in_layers(rig, t, true)
}

/// The pose of `rig` at tick `t` from its base layer alone (the layers above
/// it switched off): what biped-ld35/Player@Idle.FBX holds, written before
/// the file's "Layer 1" turned the COM.
pub fn base_pose_at(rig: &Rig, t: i32) -> Pose {
    pose_in_layers(rig, t, false)
}

/// Whether a leg is in IK at `t` (its key there, or a key of its segment,
/// has an IK blend).
fn leg_in_ik(rig: &Rig, left: bool, t: i32) -> bool {
    let Some(tr) = track(rig, if left { "left leg" } else { "right leg" }) else {
        return false;
    };
    let ik = |k: &super::tracks::Key| k.values.get(IK_BLEND).is_some_and(|b| b.abs() > IK_FREE);
    let at = tr.keys.iter().find(|k| k.time == t).into_iter();
    let seg = segment_keys(tr, t)
        .map(|(i, j)| [&tr.keys[i], &tr.keys[j]])
        .into_iter()
        .flatten();
    at.chain(seg).any(ik)
}

fn pose_in_layers(rig: &Rig, t: i32, layers: bool) -> Pose {
    // A rig saved in figure mode shows its figure whatever its keys.
    if rig.structure.figure_mode {
        return figure::figure_pose(rig);
    }
    let com = com_at(rig, t, layers);
    let pelvis = com.clone().map(|c| {
        let r = figure::pelvis_in_com().then(&figure::with_position(&c, Vec3::default()));
        figure::with_position(&r, c.0[3])
    });
    let pelvis_turn = match track(rig, "pelvis") {
        // An unkeyed pelvis holds its saved record (0x025a, 0x0066's
        // layout), evaluated where it is the identity as in the figure.
        None => match figure::record(rig, "0x025a") {
            Some(q) if q.len() < 4 || (q[0], q[1], q[2], q[3].abs()) != (0.0, 0.0, 0.0, 1.0) => {
                Err(EvalError::not_evaluated(
                    "no pelvis keys: a saved pelvis rotation (0x025a) other than identity",
                ))
            }
            _ => Ok(Mat43::IDENTITY),
        },
        Some(p) => quat_curve(p, 0, t).map(|q| {
            // The head's convention: the stored Y-up conjugated quaternion
            // is (−y, −x, z, w) in the pelvis frame.
            Mat43::rotation(
                Quat {
                    x: -q.y,
                    y: -q.x,
                    z: q.z,
                    w: q.w,
                }
                .normalized(),
            )
        }),
    };
    let (pelvis, pelvis_turn) = match pelvis_turn {
        Ok(m) => (pelvis, m),
        Err(e) => (Err(e), Mat43::IDENTITY),
    };
    let mut pose = Pose {
        com,
        pelvis,
        legs: [leg_at(rig, false, t), leg_at(rig, true, t)],
        chains: chains_at(rig, t),
        toe_links: [toe_links_at(rig, false, t), toe_links_at(rig, true, t)],
        toe_bases: [toe_bases_at(rig, false, t), toe_bases_at(rig, true, t)],
        extras: (0..rig.figure.extra_limbs.len())
            .map(|k| extra_at(rig, k, t))
            .collect(),
        leg_ik: [None, None],
        toe_ik: [None, None],
        pelvis_turn,
    };
    // A leg refused for its IK keys is placed by the IK in-between rule
    // where that rule is measured (`leg_ik`). Above the base layer it is the
    // base layer's solution carried by the layered COM: Biped layers add
    // FK offsets on top of the layers below, and an IK leg keeps its base
    // joint angles (thigh in the pelvis frame, knee, foot in the COM frame).
    // Measured on Player@Idle's saved leg pose under "Layer 1" at tick 1440
    // (0x025d of the top layer group: the same knee, blend 0, thigh, calf
    // and foot within 1.1e-6 of the base solution carried so, its feet 10
    // units away from the base layer's planted ones).
    let layered = layers && !rig.layers.is_empty();
    let mut base: Option<Pose> = None;
    for left in [false, true] {
        let side = usize::from(left);
        if pose.legs[side].is_ok() {
            continue;
        }
        if layered {
            if !leg_in_ik(rig, left, t) {
                continue;
            }
            let base = base.get_or_insert_with(|| pose_in_layers(rig, t, false));
            match (&base.legs[side], base.leg_ik[side], &base.com, &pose.com) {
                (Err(e), ..) => pose.legs[side] = Err(e.clone()),
                (Ok(record), Some(tms), Ok(below), Ok(com)) => {
                    let carry = invert(below).then(com);
                    pose.legs[side] = Ok(record.clone());
                    pose.leg_ik[side] = Some(tms.map(|m| m.then(&carry)));
                    pose.toe_ik[side] = base.toe_ik[side].as_ref().map(|toes| {
                        toes.iter()
                            .map(|m| m.as_ref().map(|m| m.then(&carry)).map_err(Clone::clone))
                            .collect()
                    });
                }
                // A COM that does not evaluate refuses the leg through the
                // pelvis; a base leg without IK TMs keeps the refusal.
                _ => {}
            }
            continue;
        }
        match super::leg_ik::solve(rig, &pose, left, t) {
            None => {}
            Some(Ok((record, tms, toes))) => {
                pose.legs[side] = Ok(record);
                pose.leg_ik[side] = Some(tms);
                pose.toe_ik[side] = Some(toes);
            }
            Some(Err(e)) => pose.legs[side] = Err(e),
        }
    }
    pose
}

/// Extra limb `k`'s pose block at `t` (the figure's 0x0073 block layout):
/// each link's rotation a squad through the limb's keys, like the tail's
/// (`angles_at`). biped-ld35/Yellow@Spawn's ears match its FBX so.
fn extra_at(rig: &Rig, k: usize, t: i32) -> Result<Vec<f32>, EvalError> {
    let tr = rig
        .tracks
        .iter()
        .find(|tr| tr.limb == Some(k) && !tr.keys.is_empty())
        .ok_or_else(|| EvalError::malformed("", format!("no keys of extra limb {k}")))?;
    angles_at(tr, 1, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::rigs::biped::tracks::Key;

    fn track(keys: &[(i32, [f32; 4])]) -> KeyTrack {
        KeyTrack {
            name: "right leg",
            limb: None,
            data_chunk: "0x0138".into(),
            time_chunk: "0x0139".into(),
            data_header: Vec::new(),
            time_record_words: 10,
            keys: keys
                .iter()
                .map(|&(time, q)| Key {
                    time,
                    tcb: [25.0; 3],
                    values: q.to_vec(),
                    links_keyed: None,
                })
                .collect(),
        }
    }

    fn angle(a: Quat, b: Quat) -> f64 {
        2.0 * a.dot(b).abs().min(1.0).acos()
    }

    /// A toe bend between two keys holding the same value stays there,
    /// where the TCB curve through a different third key bulges, and eases by
    /// a half cosine between two keys whose values differ (Yellow@Spawn: 0,
    /// 0, −1.047 at 1920, 3200, 3840).
    #[test]
    fn toe_bends_hold_or_ease_between_their_keys() {
        let tr = track(&[
            (1920, [0.0; 4]),
            (3200, [0.0; 4]),
            (3840, [-1.047, 0.0, 0.0, 0.0]),
        ]);
        let [tcb] = scalar_curve::<1>(&tr, 0, 2720).unwrap();
        assert!(tcb.abs() > 0.05, "the TCB curve bulges ({tcb})");
        assert_eq!(toe_bend_at(&tr, 0, 2720).unwrap(), 0.0);
        // A changing segment eases by a half cosine: half-way at its middle,
        // a quarter turn of the cosine (0.1464 of the change) a quarter in.
        assert!((toe_bend_at(&tr, 0, 3520).unwrap() - (-1.047 / 2.0)).abs() < 1e-6);
        let quarter = toe_bend_at(&tr, 0, 3360).unwrap();
        assert!((quarter + 1.047 * (1.0 - 0.5f64.sqrt()) / 2.0).abs() < 1e-6);
        // The keys' own ticks hold their values.
        assert!((toe_bend_at(&tr, 0, 3840).unwrap() + 1.047).abs() < 1e-6);
    }

    /// A toe base turns between its two keys by a half-cosine slerp along
    /// the arc as given, the neighbouring keys taking no part: Player@Run's
    /// right toe keys alternate between the identity and a half turn about y
    /// (stored (0, −1, 0, 0)), and Max saved the toe at tick 480 (u =
    /// 0.375) 0.30866 of the way round; two equal keys hold their value
    /// where the squad through a turned neighbour bulges.
    #[test]
    fn toe_bases_ease_between_their_two_keys() {
        let half = [0.0, -1.0, 0.0, 0.0];
        let tr = track(&[
            (-1280, half),
            (0, [0.0, 0.0, 0.0, 1.0]),
            (1280, half),
            (2560, [0.0, 0.0, 0.0, 1.0]),
        ]);
        let q = toe_quat_at(&tr, 0, 480).unwrap();
        let turned = 2.0 * q.w.abs().min(1.0).acos() / std::f64::consts::PI;
        assert!((turned - 0.308_66).abs() < 1e-5, "{turned}");
        // About y, the way the key is stored (negative y).
        assert!(q.y < 0.0 && q.x.abs() < 1e-12 && q.z.abs() < 1e-12);
        let still = track(&[
            (3840, [0.0, 0.0, 0.0, 1.0]),
            (5760, [0.0, 0.0, 0.0, 1.0]),
            (6400, [0.0, 0.0, -0.0092, 0.99996]),
        ]);
        let squad = quat_curve(&still, 0, 5120).unwrap();
        assert!(squad.z.abs() > 5e-4, "the squad bulges ({squad:?})");
        let held = toe_quat_at(&still, 0, 5120).unwrap();
        assert!(angle(held, Quat::IDENTITY) < 1e-12);
    }

    fn rig_with_layers(layers: Vec<super::super::Layer>) -> Rig {
        Rig {
            system: 0,
            structure: super::super::Structure {
                body_type: None,
                link_counts: Vec::new(),
                node_table: Vec::new(),
                link_parent_inverse: None,
                current_frame: None,
                move_all: None,
                figure_mode: false,
            },
            figure: super::super::Figure {
                height: None,
                spine: None,
                neck: None,
                com: None,
                extra_limbs: Vec::new(),
                extra_trailing_bytes: 0,
                records: Vec::new(),
            },
            bones: Vec::new(),
            tracks: Vec::new(),
            layers,
        }
    }

    /// Layers' turn offsets compose bottom first, each applied before the
    /// layers below (`layer · base`); a layer keying another track is
    /// refused, naming it.
    #[test]
    fn layer_turns_compose_and_other_layer_keys_are_refused() {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let turn = |q: [f32; 4]| {
            let mut tr = track(&[(0, [0.0; 4]), (960, [0.0; 4])]);
            tr.name = "turn";
            for k in &mut tr.keys {
                k.values = [[0.0; 4], q].concat();
            }
            tr
        };
        let about_y = [0.0, h, 0.0, h];
        let about_x = [h, 0.0, 0.0, h];
        let layer = |name: &str, tracks| super::super::Layer {
            name: Some(name.into()),
            tracks,
        };
        let rig = rig_with_layers(vec![
            layer("Layer 1", vec![turn(about_y)]),
            layer("Layer 2", vec![turn(about_x)]),
        ]);
        let q = layer_turn(&rig, 480).unwrap().unwrap();
        let qy = Quat {
            x: 0.0,
            y: 1.0,
            z: 0.0,
            w: 1.0,
        }
        .normalized();
        let qx = Quat {
            x: 1.0,
            y: 0.0,
            z: 0.0,
            w: 1.0,
        }
        .normalized();
        // Equal rotations to float noise (acos near 1 would blur 1e-8 into 1e-4).
        let same = |a: Quat, b: Quat| (a.dot(b).abs() - 1.0).abs() < 1e-12;
        assert!(same(q, qx.compose(qy)), "{q:?}");
        assert!(!same(q, qy.compose(qx)));
        assert_eq!(layer_turn(&rig_with_layers(Vec::new()), 480).unwrap(), None);
        let mut spine = track(&[(0, [0.0; 4])]);
        spine.name = "spine";
        let rig = rig_with_layers(vec![layer("Layer 1", vec![turn(about_y), spine])]);
        let e = layer_turn(&rig, 0).unwrap_err().to_string();
        assert!(e.contains("Layer 1") && e.contains("spine"), "{e}");
    }

    /// Keys swinging 115° back and forth: the in-betweens stay on the arc
    /// between their keys (the shorter-arc flip of the control points sent
    /// them the other way round: biped-ld35/Player@Run's thighs).
    #[test]
    fn large_swings_stay_between_their_keys() {
        let a = [-0.297_182, 0.030_422, 0.587_215, 0.752_287];
        let c = [0.0, 0.0, -0.298_279, 0.954_479];
        let tr = track(&[(0, a), (1280, c), (2560, a), (3840, c)]);
        let (qa, qc) = (quat_at(&tr, 0, 0).unwrap(), quat_at(&tr, 1, 0).unwrap());
        let whole = angle(qa, qc);
        for t in (1280..=2560).step_by(160) {
            let q = quat_curve(&tr, 0, t).unwrap();
            let detour = angle(qc, q) + angle(q, qa) - whole;
            assert!(detour < 0.02, "tick {t}: {detour} rad off the arc");
        }
        // Exact at the keys, clamped outside them.
        assert!(angle(quat_curve(&tr, 0, 2560).unwrap(), qa) < 1e-6);
        assert!(angle(quat_curve(&tr, 0, -50).unwrap(), qa) < 1e-6);
        assert!(angle(quat_curve(&tr, 0, 9999).unwrap(), qc) < 1e-6);
    }

    /// Keys whose TCB word \[8\] is not 25 are refused between keys unless the
    /// segment's window holds one record (to float noise): then any TCB
    /// variant is constant there; a moving track with such a key stays
    /// refused.
    #[test]
    fn still_windows_evaluate_whatever_their_bias() {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let q = [0.0, h, 0.0, h];
        let mut tr = track(&[(0, q), (1600, q), (3200, q), (4800, [0.0, 0.0, 0.0, 1.0])]);
        for k in &mut tr.keys {
            k.tcb = [25.0, 0.0, 25.0];
        }
        // Float noise in the middle key.
        tr.keys[1].values[1] += 1e-7;
        let at = quat_curve(&tr, 0, 800).unwrap();
        assert!(angle(at, quat_at(&tr, 0, 0).unwrap()) < 1e-6);
        // The second segment's window reaches the moving fourth key.
        let e = quat_curve(&tr, 0, 2400).unwrap_err();
        assert!(e.to_string().contains("word [8] = 0"), "{e}");
        // At a key's own tick the stored value holds.
        assert!(quat_curve(&tr, 0, 4800).is_ok());
    }

    /// Word \[9\] at 0 is continuity −1: scalar keys interpolate linearly and
    /// quaternion keys by slerp, whatever the spacing.
    #[test]
    fn word_nine_at_zero_is_linear() {
        let mut tr = track(&[
            (0, [0.0, 0.0, 0.0, 1.0]),
            (1600, [1.0, 0.0, 0.0, 1.0]),
            (2000, [-2.0, 0.0, 0.0, 1.0]),
            (5000, [0.5, 0.0, 0.0, 1.0]),
        ]);
        for k in &mut tr.keys {
            k.tcb = [25.0, 25.0, 0.0];
        }
        for (t, want) in [(400, 0.25), (1800, -0.5), (2600, -1.5)] {
            let [v] = scalar_curve::<1>(&tr, 0, t).unwrap();
            assert!((v - want).abs() < 1e-12, "tick {t}: {v}");
        }
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let mut tr = track(&[
            (0, [0.0, 0.0, 0.0, 1.0]),
            (1600, [0.0, 0.0, h, h]),
            (2000, [0.0, 0.0, 0.0, 1.0]),
        ]);
        for k in &mut tr.keys {
            k.tcb = [25.0, 25.0, 0.0];
        }
        let q = quat_curve(&tr, 0, 400).unwrap();
        // A quarter of the way through a 90° turn about z.
        assert!((angle(q, Quat::IDENTITY) - std::f64::consts::FRAC_PI_8).abs() < 1e-9);
    }

    /// 3D Studio's spacing factors: Max's 2Δ/(Δin + Δout) at continuity 0,
    /// moved towards 1 by |c| (Yellow@Spawn's COM key 5920).
    #[test]
    fn spacing_moves_towards_one_with_continuity() {
        let (a, b) = spacing(1760.0, 480.0, 0.0);
        assert!((a - 1.571_428_6).abs() < 1e-6 && (b - 0.428_571_4).abs() < 1e-6);
        let (a, b) = spacing(1760.0, 480.0, -0.8);
        assert!((a - 1.114_285_7).abs() < 1e-6 && (b - 0.885_714_3).abs() < 1e-6);
        assert_eq!(spacing(1.0, 3.0, 1.0), (1.0, 1.0));
    }

    /// A link's rotation goes to a quaternion and back to an equivalent
    /// triple, 90° bends (where only a2 ± a3 is defined) and turns past π
    /// included.
    #[test]
    fn link_rotations_round_trip_through_quaternions() {
        use crate::eval::rigs::biped::chains::link_rotation;
        let h = std::f64::consts::FRAC_PI_2;
        for a in [
            [0.3, -0.2, 0.5],
            [4.601, 0.0, 0.0],
            [-2.9, 0.436, -0.611],
            [h, 0.4, 0.0],
            [-h, 0.1, 0.3],
            [0.0, 3.0, -3.0],
        ] {
            let m = link_rotation(a);
            let q = Quat::from_rows([m.0[0], m.0[1], m.0[2]]);
            let back = link_rotation(link_angles(&Mat43::rotation(q)));
            for (r, b) in m.rows().iter().zip(back.rows()) {
                for (x, y) in r.iter().zip(b) {
                    assert!(
                        (x - y).abs() < 1e-9,
                        "{a:?}: {:?} vs {:?}",
                        m.rows(),
                        back.rows()
                    );
                }
            }
        }
    }

    /// A zero-length key quaternion is an error naming the track and key.
    #[test]
    fn degenerate_quaternions_are_errors() {
        let tr = track(&[(0, [0.0; 4]), (160, [0.0, 0.0, 0.0, 1.0])]);
        let e = quat_curve(&tr, 0, 80).unwrap_err();
        assert!(e.to_string().contains("right leg key 0"), "{e}");
    }

    /// An unkeyed COM (no horizontal, vertical or turn keys) stands at the
    /// saved record 0x0260 ([4] x, [6] depth, [8..11] rotation, Y-up) at the
    /// height of the current-position frame 0x0104 (row 3, [1]) at every
    /// tick; a saved correction ([0..2] non-zero) is refused by name.
    #[test]
    fn unkeyed_com_stands_where_max_saved_it() {
        let mut rig = rig_with_layers(Vec::new());
        let saved = |correction: f32| super::super::records::Record {
            id: "0x0260".to_string(),
            name: None,
            floats: vec![
                0.0, correction, 0.0, 1.0, 3.0, 99.0, -2.0, 1.0, 0.0, 0.0, 0.0, 1.0,
            ],
            trailing_bytes: 0,
        };
        rig.figure.records.push(saved(0.0));
        let mut frame = [[0.0; 4]; 4];
        frame[3] = [3.0, 50.0, -2.0, 1.0];
        rig.structure.current_frame = Some(frame);
        for t in [0, 480, 9600] {
            let m = com_at(&rig, t, true).expect("an unkeyed COM evaluates");
            // Y-up (x, y, z) is Max (x, −z, y); the identity stays identity.
            assert_eq!(m.0[3], Vec3(3.0, 2.0, 50.0), "tick {t}");
            assert_eq!(m.0[0], Vec3(1.0, 0.0, 0.0));
            assert_eq!(m.0[2], Vec3(0.0, 0.0, 1.0));
        }
        rig.figure.records[0] = saved(1.5);
        let e = com_at(&rig, 0, true).unwrap_err();
        assert!(e.to_string().contains("correction"), "{e}");
    }
}
