//! A point along one spline at a whole-curve parameter, as Max's
//! `Spline3D::InterpCurve3D` takes it (Max SDK `spline3d.h`, public):
//! `SPLINE_INTERP_SIMPLE` spreads the parameter evenly over the segments
//! (segment `i` of `n` spans `[i/n, (i+1)/n]`, each run by its own Bezier
//! parameter); `SPLINE_INTERP_NORMALIZED` spreads it over the curve's length.
//! The path constraint places nodes with it (eval/rigs/path_constraint.rs).
//!
//! Arc length is measured on [`LENGTH_SAMPLES`] chords per segment and the
//! length parameter inverted along them, so a point at parameter `u` has
//! `u` of the curve's length behind it; how finely Max's core measures is
//! not public, on straight evenly handled segments (corner knots) both agree
//! exactly.

use super::polyline::bezier;
use super::Spline;
use crate::eval::core::math::Vec3;

/// Chords per segment when measuring length.
pub const LENGTH_SAMPLES: usize = 64;

/// The point of `s` at whole-curve parameter `u` (clamped to 0..1), by
/// segments (`by_length` false) or by length; None for a spline without knots.
pub fn interp(s: &Spline, u: f64, by_length: bool) -> Option<Vec3> {
    let first = s.knots.first()?.point;
    let segs = s.segments();
    if segs == 0 {
        return Some(first);
    }
    let u = if u.is_nan() { 0.0 } else { u.clamp(0.0, 1.0) };
    if !by_length {
        let x = u * segs as f64;
        // Within 0..segs: u is clamped, the cast truncates.
        let i = (x.floor() as usize).min(segs - 1);
        return Some(bezier(&s.segment(i), x - i as f64));
    }
    // Cumulative chord lengths, per segment and sample.
    let tables: Vec<Vec<f64>> = (0..segs).map(|i| lengths(&s.segment(i))).collect();
    let total: f64 = tables.iter().filter_map(|t| t.last()).sum();
    if !total.is_finite() || total <= 0.0 {
        return Some(bezier(&s.segment(0), 0.0));
    }
    let mut left = u * total;
    for (i, t) in tables.iter().enumerate() {
        let seg_len = t.last().copied().unwrap_or(0.0);
        if left <= seg_len || i + 1 == segs {
            let left = left.min(seg_len);
            // The chord holding the remaining length, and how far along it.
            let j = t.partition_point(|&c| c < left).clamp(1, LENGTH_SAMPLES);
            let (a, b) = (t[j - 1], t[j]);
            let f = if b > a { (left - a) / (b - a) } else { 0.0 };
            let param = (j as f64 - 1.0 + f) / LENGTH_SAMPLES as f64;
            return Some(bezier(&s.segment(i), param));
        }
        left -= seg_len;
    }
    None
}

/// Length of the curve as [`interp`] measures it (chords of every segment).
pub fn length(s: &Spline) -> f64 {
    (0..s.segments())
        .filter_map(|i| lengths(&s.segment(i)).last().copied())
        .sum()
}

/// Cumulative length at each of the segment's `LENGTH_SAMPLES + 1` samples.
fn lengths(c: &[Vec3; 4]) -> Vec<f64> {
    let mut out = Vec::with_capacity(LENGTH_SAMPLES + 1);
    let mut acc = 0.0;
    let mut prev = c[0];
    out.push(0.0);
    for k in 1..=LENGTH_SAMPLES {
        let p = bezier(c, k as f64 / LENGTH_SAMPLES as f64);
        acc += p.minus(prev).len();
        out.push(acc);
        prev = p;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::shape::Knot;

    /// An open L of two straight segments (lengths 3 and 1), corner handles
    /// a third along each chord, as `compute_corners` places them.
    fn ell() -> Spline {
        let mut s = Spline {
            knots: vec![
                Knot::corner(Vec3(0.0, 0.0, 0.0)),
                Knot::corner(Vec3(3.0, 0.0, 0.0)),
                Knot::corner(Vec3(3.0, 1.0, 0.0)),
            ],
            closed: false,
        };
        s.compute_corners();
        s
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        a.minus(b).len() < 1e-9
    }

    #[test]
    fn by_segments_each_segment_takes_an_equal_share() {
        let s = ell();
        // Two segments: 50 % is the middle knot whatever their lengths.
        assert!(close(interp(&s, 0.5, false).unwrap(), Vec3(3.0, 0.0, 0.0)));
        assert!(close(interp(&s, 0.25, false).unwrap(), Vec3(1.5, 0.0, 0.0)));
        assert!(close(interp(&s, 0.0, false).unwrap(), Vec3(0.0, 0.0, 0.0)));
        assert!(close(interp(&s, 1.0, false).unwrap(), Vec3(3.0, 1.0, 0.0)));
    }

    #[test]
    fn by_length_the_share_is_of_the_length() {
        let s = ell();
        assert!((length(&s) - 4.0).abs() < 1e-9);
        // 50 % of length 4 is 2 along the first (length 3) segment.
        assert!(close(interp(&s, 0.5, true).unwrap(), Vec3(2.0, 0.0, 0.0)));
        assert!(close(interp(&s, 0.875, true).unwrap(), Vec3(3.0, 0.5, 0.0)));
        assert!(close(interp(&s, 1.0, true).unwrap(), Vec3(3.0, 1.0, 0.0)));
    }

    #[test]
    fn a_closed_spline_ends_where_it_starts() {
        let mut s = ell();
        s.closed = true;
        s.compute_corners();
        for by_length in [false, true] {
            assert!(close(
                interp(&s, 1.0, by_length).unwrap(),
                Vec3(0.0, 0.0, 0.0)
            ));
        }
        assert!(interp(
            &Spline {
                knots: vec![],
                closed: false
            },
            0.5,
            true
        )
        .is_none());
    }
}
