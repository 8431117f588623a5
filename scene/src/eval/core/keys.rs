//! Keyframe tables of Max's keyframe controllers, decoded from their key chunks,
//! and their interpolation (linear, Bezier with tangents and lengths, TCB).

use crate::eval::core::math::{Quat, Vec3};
use crate::eval::error::EvalError;

pub const TICKS_PER_SECOND: i32 = 4800;

/// Bezier tangent types (key flag bits 7-9 in, 10-12 out).
pub const TANGENT_LINEAR: u32 = 1;
pub const TANGENT_STEP: u32 = 2;

/// serde has no `Serialize` for `[f64; N]` with a generic N; these go through slices.
pub(crate) mod arrays {
    pub fn serialize<S: serde::Serializer, const N: usize>(
        v: &[f64; N],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&v[..], s)
    }
}

/// Flags carry the tangent types (bits 7-9 in, 10-12 out; see `in_type`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BezKey<const N: usize> {
    pub time: i32,
    pub flags: u32,
    #[serde(with = "arrays")]
    pub value: [f64; N],
    #[serde(with = "arrays")]
    pub in_tan: [f64; N],
    #[serde(with = "arrays")]
    pub out_tan: [f64; N],
    #[serde(with = "arrays")]
    pub in_len: [f64; N],
    #[serde(with = "arrays")]
    pub out_len: [f64; N],
}

impl<const N: usize> BezKey<N> {
    pub fn in_type(&self) -> u32 {
        (self.flags >> 7) & 7
    }
    pub fn out_type(&self) -> u32 {
        (self.flags >> 10) & 7
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TcbKey<const N: usize> {
    pub time: i32,
    #[serde(with = "arrays")]
    pub value: [f64; N],
    pub tension: f64,
    pub continuity: f64,
    pub bias: f64,
    pub ease_in: f64,
    pub ease_out: f64,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TcbRotKey {
    pub time: i32,
    /// Cumulative absolute rotation, in Max's stored (inverse) convention.
    pub quat: Quat,
    pub tension: f64,
    pub continuity: f64,
    pub bias: f64,
    pub ease_in: f64,
    pub ease_out: f64,
    /// Rotation relative to the previous key, as Max reports it.
    pub axis: Vec3,
    pub angle: f64,
}

/// Little-endian f32/i32 words of a key record.
pub struct Words<'a>(pub &'a [u8]);

impl Words<'_> {
    pub fn i32(&self, i: usize) -> i32 {
        let b = &self.0[i * 4..i * 4 + 4];
        i32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    pub fn u32(&self, i: usize) -> u32 {
        self.i32(i) as u32
    }
    pub fn f(&self, i: usize) -> f64 {
        f32::from_bits(self.u32(i)).into()
    }
    pub fn fs<const N: usize>(&self, at: usize) -> [f64; N] {
        std::array::from_fn(|k| self.f(at + k))
    }
}

/// Splits a key table into records of `size` bytes; a table that is not a whole
/// number of records is an error naming the sizes.
pub fn records(table: &[u8], size: usize) -> Result<std::slice::ChunksExact<'_, u8>, EvalError> {
    if !table.len().is_multiple_of(size) {
        return Err(EvalError::reference(
            "",
            format!(
                "key table of {} bytes is not a whole number of {size}-byte keys",
                table.len()
            ),
        ));
    }
    Ok(table.chunks_exact(size))
}

/// Index of the segment holding `t`: keys[i].time <= t < keys[i+1].time, clamped.
fn segment<T>(keys: &[T], time: impl Fn(&T) -> i32, t: i32) -> Segment {
    let n = keys.len();
    if n == 0 {
        return Segment::None;
    }
    if t <= time(&keys[0]) {
        return Segment::At(0);
    }
    if t >= time(&keys[n - 1]) {
        return Segment::At(n - 1);
    }
    let i = keys.partition_point(|k| time(k) <= t) - 1;
    let (t0, t1) = (time(&keys[i]), time(&keys[i + 1]));
    Segment::Between(i, f64::from(t - t0) / f64::from(t1 - t0))
}

#[derive(Debug, Clone, Copy)]
enum Segment {
    None,
    At(usize),
    Between(usize, f64),
}

/// Linear interpolation over keys read through `time` and `value`.
pub fn linear<T, const N: usize>(
    keys: &[T],
    time: impl Fn(&T) -> i32,
    value: impl Fn(&T) -> [f64; N],
    t: i32,
) -> Option<[f64; N]> {
    match segment(keys, time, t) {
        Segment::None => None,
        Segment::At(i) => Some(value(&keys[i])),
        Segment::Between(i, u) => {
            let (a, b) = (value(&keys[i]), value(&keys[i + 1]));
            Some(std::array::from_fn(|k| a[k] + (b[k] - a[k]) * u))
        }
    }
}

pub fn linear_rot(keys: &[(i32, Quat)], t: i32) -> Option<Quat> {
    match segment(keys, |k| k.0, t) {
        Segment::None => None,
        Segment::At(i) => Some(keys[i].1),
        Segment::Between(i, u) => Some(keys[i].1.slerp(keys[i + 1].1, u)),
    }
}

fn cubic(p0: f64, p1: f64, p2: f64, p3: f64, u: f64) -> f64 {
    let v = 1.0 - u;
    v * v * v * p0 + 3.0 * v * v * u * p1 + 3.0 * v * u * u * p2 + u * u * u * p3
}

/// Bezier segment in Max's form: control values `v0 + out_tan·out_len·dt` and
/// `v1 + in_tan·in_len·dt` (tangents are per tick), and the same lengths shape the
/// time axis, so a length other than ⅓ changes the pace through the segment.
/// A **linear** tangent (type 1) points at the neighbouring key across the
/// segment, whatever tangent the key stores: Max keeps the stored value of a
/// key switched to linear (the LD35 authors' Green@Spawn, B-Root's key 2880:
/// stored out tangent 0.2593 per tick in z, the slope to the next key 0.1037;
/// their FBX follows the slope to 3e-3 at every frame of the segment, the
/// stored tangent is 22 units off; docs/biped.md).
pub fn bezier<const N: usize>(keys: &[BezKey<N>], t: i32) -> Option<[f64; N]> {
    match segment(keys, |k| k.time, t) {
        Segment::None => None,
        Segment::At(i) => Some(keys[i].value),
        Segment::Between(i, u) => {
            let (a, b) = (&keys[i], &keys[i + 1]);
            if a.out_type() == TANGENT_STEP || b.in_type() == TANGENT_STEP {
                return Some(a.value);
            }
            let dt = f64::from(b.time - a.time);
            Some(std::array::from_fn(|k| {
                let ol = length(a.out_len[k]);
                let il = length(b.in_len[k]);
                let s = solve_time(ol, 1.0 - il, u);
                let slope = (b.value[k] - a.value[k]) / dt;
                let out_tan = if a.out_type() == TANGENT_LINEAR {
                    slope
                } else {
                    a.out_tan[k]
                };
                let in_tan = if b.in_type() == TANGENT_LINEAR {
                    -slope
                } else {
                    b.in_tan[k]
                };
                cubic(
                    a.value[k],
                    a.value[k] + out_tan * ol * dt,
                    b.value[k] + in_tan * il * dt,
                    b.value[k],
                    s,
                )
            }))
        }
    }
}

/// Stored lengths use −1 (and other out-of-range values) for "default".
fn length(l: f64) -> f64 {
    if l > 0.0 && l <= 1.0 {
        l
    } else {
        1.0 / 3.0
    }
}

/// Finds the curve parameter whose time coordinate is `u`, for time control points
/// (0, c1, c2, 1). Exact when c1 = ⅓, c2 = ⅔.
fn solve_time(c1: f64, c2: f64, u: f64) -> f64 {
    if (c1 - 1.0 / 3.0).abs() < 1e-6 && (c2 - 2.0 / 3.0).abs() < 1e-6 {
        return u;
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if cubic(0.0, c1, c2, 1.0, mid) < u {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Max's ease curve: `a` = ease out of the first key, `b` = ease into the second.
pub fn ease(u: f64, a: f64, b: f64) -> f64 {
    let (mut a, mut b) = (a.max(0.0), b.max(0.0));
    let s = a + b;
    if s == 0.0 {
        return u;
    }
    if s > 1.0 {
        a /= s;
        b /= s;
    }
    let k = 1.0 / (2.0 - a - b);
    if u < a {
        (k / a) * u * u
    } else if u < 1.0 - b {
        k * (2.0 * u - a)
    } else {
        let v = 1.0 - u;
        1.0 - (k / b) * v * v
    }
}

/// Kochanek–Bartels tangents for vector keys, adjusted for uneven key spacing.
fn tcb_tangents<const N: usize>(keys: &[TcbKey<N>], i: usize) -> ([f64; N], [f64; N]) {
    let n = keys.len();
    let k = &keys[i];
    let (t, c, b) = (k.tension, k.continuity, k.bias);
    let prev = if i > 0 { Some(&keys[i - 1]) } else { None };
    let next = if i + 1 < n { Some(&keys[i + 1]) } else { None };
    let d_in: [f64; N] = prev.map_or([0.0; N], |p| {
        std::array::from_fn(|j| k.value[j] - p.value[j])
    });
    let d_out: [f64; N] = next.map_or([0.0; N], |q| {
        std::array::from_fn(|j| q.value[j] - k.value[j])
    });
    match (prev, next) {
        (Some(p), Some(q)) => {
            let dt_in = f64::from(k.time - p.time);
            let dt_out = f64::from(q.time - k.time);
            let adj_in = 2.0 * dt_in / (dt_in + dt_out);
            let adj_out = 2.0 * dt_out / (dt_in + dt_out);
            let tin = std::array::from_fn(|j| {
                adj_in
                    * ((1.0 - t) * (1.0 - c) * (1.0 + b) / 2.0 * d_in[j]
                        + (1.0 - t) * (1.0 + c) * (1.0 - b) / 2.0 * d_out[j])
            });
            let tout = std::array::from_fn(|j| {
                adj_out
                    * ((1.0 - t) * (1.0 + c) * (1.0 + b) / 2.0 * d_in[j]
                        + (1.0 - t) * (1.0 - c) * (1.0 - b) / 2.0 * d_out[j])
            });
            (tin, tout)
        }
        (None, Some(_)) => {
            let tout = std::array::from_fn(|j| (1.0 - t) * d_out[j]);
            (tout, tout)
        }
        (Some(_), None) => {
            let tin = std::array::from_fn(|j| (1.0 - t) * d_in[j]);
            (tin, tin)
        }
        (None, None) => ([0.0; N], [0.0; N]),
    }
}

pub fn tcb<const N: usize>(keys: &[TcbKey<N>], t: i32) -> Option<[f64; N]> {
    match segment(keys, |k| k.time, t) {
        Segment::None => None,
        Segment::At(i) => Some(keys[i].value),
        Segment::Between(i, u) => {
            let (a, b) = (&keys[i], &keys[i + 1]);
            let u = ease(u, a.ease_out, b.ease_in);
            let (_, out_a) = tcb_tangents(keys, i);
            let (in_b, _) = tcb_tangents(keys, i + 1);
            let (h1, h2, h3, h4) = (
                2.0 * u * u * u - 3.0 * u * u + 1.0,
                -2.0 * u * u * u + 3.0 * u * u,
                u * u * u - 2.0 * u * u + u,
                u * u * u - u * u,
            );
            Some(std::array::from_fn(|j| {
                h1 * a.value[j] + h2 * b.value[j] + h3 * out_a[j] + h4 * in_b[j]
            }))
        }
    }
}

/// Quaternion logarithm (unit quaternions): the rotation vector / 2.
pub(crate) fn q_log(q: Quat) -> Vec3 {
    let v = Vec3(q.x, q.y, q.z);
    let s = v.len();
    if s < 1e-12 {
        return Vec3::default();
    }
    let th = s.atan2(q.w);
    v.scale(th / s)
}

/// Inverse of [`q_log`].
pub(crate) fn q_exp(v: Vec3) -> Quat {
    let th = v.len();
    if th < 1e-12 {
        return Quat::IDENTITY;
    }
    let s = th.sin() / th;
    Quat {
        x: v.0 * s,
        y: v.1 * s,
        z: v.2 * s,
        w: th.cos(),
    }
}

/// A rotation key's Kochanek–Bartels tangents in the log space of the
/// relative rotations: `g1` the turn from the previous key, `g2` the turn to
/// the next (at an end, the one there stands for both; none: zero), and the
/// incoming and outgoing tangents they give.
#[derive(Debug, Clone, Copy)]
pub struct LogTangents {
    pub g1: Vec3,
    pub g2: Vec3,
    pub t_in: Vec3,
    pub t_out: Vec3,
}

impl LogTangents {
    /// From the logs of the turns from the previous key (`prev`) and to the
    /// next (`next`), with tension, continuity and bias `tcb`.
    pub fn new(prev: Option<Vec3>, next: Option<Vec3>, tcb: (f64, f64, f64)) -> LogTangents {
        let (g1, g2) = match (prev, next) {
            (Some(a), Some(b)) => (a, b),
            (Some(a), None) => (a, a),
            (None, Some(b)) => (b, b),
            (None, None) => (Vec3::default(), Vec3::default()),
        };
        let (tt, c, b) = tcb;
        let t_out = g1
            .scale((1.0 - tt) * (1.0 + c) * (1.0 + b) / 2.0)
            .plus(g2.scale((1.0 - tt) * (1.0 - c) * (1.0 - b) / 2.0));
        let t_in = g1
            .scale((1.0 - tt) * (1.0 - c) * (1.0 + b) / 2.0)
            .plus(g2.scale((1.0 - tt) * (1.0 + c) * (1.0 - b) / 2.0));
        LogTangents {
            g1,
            g2,
            t_in,
            t_out,
        }
    }

    /// The incoming and outgoing squad control points about the key's
    /// rotation `q`.
    pub fn control_points(&self, q: Quat) -> (Quat, Quat) {
        let a = q.compose(q_exp(self.t_out.minus(self.g2).scale(0.5)));
        let b = q.compose(q_exp(self.g1.minus(self.t_in).scale(0.5)));
        (b, a)
    }
}

/// TCB rotation: squad through the key quaternions with Kochanek–Bartels inner
/// control points computed in the log space of the relative rotations.
pub fn tcb_rot(keys: &[TcbRotKey], t: i32) -> Option<Quat> {
    // Keep consecutive quaternions in one hemisphere.
    let mut qs: Vec<Quat> = Vec::with_capacity(keys.len());
    for k in keys {
        let q = k.quat.normalized().closest_to(qs.last().copied());
        qs.push(q);
    }
    let inner = |i: usize| -> (Quat, Quat) {
        let k = &keys[i];
        let q = qs[i];
        let prev = i
            .checked_sub(1)
            .map(|p| q_log(qs[p].conjugate().compose(q)));
        let next = qs.get(i + 1).map(|n| q_log(q.conjugate().compose(*n)));
        LogTangents::new(prev, next, (k.tension, k.continuity, k.bias)).control_points(q)
    };
    match segment(keys, |k| k.time, t) {
        Segment::None => None,
        Segment::At(i) => Some(qs[i]),
        Segment::Between(i, u) => {
            let u = ease(u, keys[i].ease_out, keys[i + 1].ease_in);
            let (_, a) = inner(i);
            let (b, _) = inner(i + 1);
            let p = qs[i].slerp(qs[i + 1], u);
            let q = a.slerp(b, u);
            Some(p.slerp(q, 2.0 * u * (1.0 - u)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(time: i32, flags: u32, value: f64, in_tan: f64, out_tan: f64) -> BezKey<1> {
        BezKey {
            time,
            flags,
            value: [value],
            in_tan: [in_tan],
            out_tan: [out_tan],
            in_len: [1.0 / 3.0],
            out_len: [1.0 / 3.0],
        }
    }

    /// The LD35 authors' Green@Spawn.max (public, not in the corpus):
    /// B-Root's position z keys 2880 (flags 0x480: linear in and out, stored
    /// out tangent 0.25929537) and 3840 (user tangents, 0). Their FBX of the
    /// same scene holds the node at z = 68.0528, 89.7183, 111.3839 at ticks
    /// 3040, 3200, 3360 (docs/biped.md): the linear tangent's slope to the
    /// next key, not the stored tangent (85.34, 111.84, 130.05).
    #[test]
    fn a_linear_tangent_points_at_the_next_key() {
        let keys = [
            key(2880, 0x480, 49.15301, 0.11483468, 0.25929537),
            key(3840, 0x1680, 148.72243, 0.0, 0.0),
        ];
        for (t, fbx) in [(3040, 68.0528), (3200, 89.7183), (3360, 111.3839)] {
            let v = bezier(&keys, t).expect("a value")[0];
            assert!(
                (v - fbx).abs() < 1e-3,
                "tick {t}: {v} against the FBX's {fbx}"
            );
        }
        // A user tangent keeps its stored value.
        let user = [
            key(2880, 0x1680, 49.15301, 0.0, 0.25929537),
            key(3840, 0x1680, 148.72243, 0.0, 0.0),
        ];
        let v = bezier(&user, 3040).expect("a value")[0];
        assert!((v - 85.338).abs() < 1e-2, "{v}");
    }
}
