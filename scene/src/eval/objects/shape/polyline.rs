//! Max's `MakePolyShape`: each spline becomes a polyline of its knots with
//! `steps` evenly spaced (in the Bezier parameter) points inserted in every
//! segment — none in a straight segment when "optimize" is on. A segment is
//! straight when its start knot's line type is "line" (then it is the chord,
//! evenly spaced) or when both of its handles lie on the chord (within 1e-6 of
//! its length). Knot points are marked smooth when the knot type is auto or
//! Bezier, inserted points always (they lie inside a curve); both carry the
//! material id of the segment they start.

use serde::Serialize;

use super::{BezierShape, ShapeError, Spline, MAX_POINTS};
use crate::eval::core::math::Vec3;

/// One point of a polyline.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PolyPt {
    pub p: Vec3,
    /// A knot of the spline (not an interpolated point).
    pub knot: bool,
    /// Part of a smooth transition (Max's POLYPT_SMOOTH).
    pub smooth: bool,
    /// 0-based material id of the segment starting here.
    pub material: u16,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolyLine {
    pub pts: Vec<PolyPt>,
    pub closed: bool,
}

impl PolyLine {
    /// Number of segments (edges) of the polyline.
    pub fn segments(&self) -> usize {
        match self.pts.len() {
            0 => 0,
            n if self.closed => n,
            n => n - 1,
        }
    }

    /// Total length along the polyline (closing edge included when closed).
    pub fn length(&self) -> f64 {
        let n = self.pts.len();
        (0..self.segments())
            .map(|i| self.pts[(i + 1) % n].p.minus(self.pts[i].p).len())
            .sum()
    }

    /// Signed area of the projection on XY (positive: counter-clockwise).
    pub fn signed_area_xy(&self) -> f64 {
        let n = self.pts.len();
        (0..n)
            .map(|i| {
                let (a, b) = (self.pts[i].p, self.pts[(i + 1) % n].p);
                a.0 * b.1 - b.0 * a.1
            })
            .sum::<f64>()
            / 2.0
    }

    /// The same polyline run backwards (Max's `PolyLine::Reverse` without
    /// "keep zero": the last point becomes the first). Segment materials move
    /// with their segments.
    pub fn reversed(&self) -> PolyLine {
        let n = self.pts.len();
        if n < 2 {
            return self.clone();
        }
        let mut pts: Vec<PolyPt> = self.pts.iter().rev().copied().collect();
        // The segment that now starts at old point i is the old segment that
        // ended there (from i − 1).
        for (k, pt) in pts.iter_mut().enumerate() {
            let i = n - 1 - k;
            let prev = if i > 0 { i - 1 } else { n - 1 };
            pt.material = self.pts[prev].material;
        }
        PolyLine {
            pts,
            closed: self.closed,
        }
    }
}

/// Point at parameter `u` of a cubic Bezier segment.
pub fn bezier(c: &[Vec3; 4], u: f64) -> Vec3 {
    let v = 1.0 - u;
    c[0].scale(v * v * v)
        .plus(c[1].scale(3.0 * v * v * u))
        .plus(c[2].scale(3.0 * v * u * u))
        .plus(c[3].scale(u * u * u))
}

/// How much longer than its chord a segment's control polygon may be for
/// optimize to count it straight (a flatness test: handles off the chord,
/// short of it or folded back all lengthen the polygon). Bracketed by the 44
/// distinct near-straight glyph segments of UnityKursovoi's Installation
/// texts, whose stepped points the FBX of the scene holds or lacks
/// (docs/evaluation.md, "Text"): straight up to 3.50e-4, stepped from
/// 4.42e-4. Also straight: GreejeshGajera's Lamp Line001 segment 8 (3.0e-4;
/// the file's Mesh Totals), sidewalk 03's (1.5e-4, Edit Poly sizes); stepped:
/// Sword's (from 2.5e-3). A measure of the handles' distance from the chord
/// alone does not fit: Lamp's straight segment sits 0.010485 of its chord
/// off it, a stepped glyph segment 0.010479. The value is a round number
/// inside the bracket; Max's own constant is not known.
const STRAIGHT: f64 = 4.0e-4;

/// Whether optimize counts a segment straight (see [`STRAIGHT`]).
fn handles_on_chord(c: &[Vec3; 4]) -> bool {
    let len = c[3].minus(c[0]).len();
    if len == 0.0 {
        return c[1].minus(c[0]).len() == 0.0 && c[2].minus(c[3]).len() == 0.0;
    }
    let polygon = c[1].minus(c[0]).len() + c[2].minus(c[1]).len() + c[3].minus(c[2]).len();
    polygon <= (1.0 + STRAIGHT) * len
}

fn spline_polyline(s: &Spline, steps: u32, optimize: bool) -> PolyLine {
    let n = s.knots.len();
    let mut pts = Vec::new();
    for i in 0..s.segments() {
        let k = &s.knots[i];
        let c = s.segment(i);
        pts.push(PolyPt {
            p: k.point,
            knot: true,
            smooth: k.kind.smooth(),
            material: k.material,
        });
        let straight = k.line || handles_on_chord(&c);
        if optimize && straight {
            continue;
        }
        for j in 1..=steps {
            let u = f64::from(j) / f64::from(steps + 1);
            let p = if k.line {
                c[0].plus(c[3].minus(c[0]).scale(u))
            } else {
                bezier(&c, u)
            };
            pts.push(PolyPt {
                p,
                knot: false,
                smooth: true,
                material: k.material,
            });
        }
    }
    if !s.closed && n > 0 {
        let k = &s.knots[n - 1];
        pts.push(PolyPt {
            p: k.point,
            knot: true,
            smooth: k.kind.smooth(),
            material: k.material,
        });
    }
    PolyLine {
        pts,
        closed: s.closed,
    }
}

pub(super) fn make_polylines(
    shape: &BezierShape,
    steps: u32,
    optimize: bool,
) -> Result<Vec<PolyLine>, ShapeError> {
    let total: usize = shape
        .splines
        .iter()
        .map(|s| s.knots.len().saturating_mul(steps as usize + 1))
        .fold(0usize, usize::saturating_add);
    if total > MAX_POINTS {
        return Err(ShapeError::damaged(
            "shape",
            format!("{total} interpolated points"),
        ));
    }
    Ok(shape
        .splines
        .iter()
        .map(|s| spline_polyline(s, steps, optimize))
        .collect())
}
