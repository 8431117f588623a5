//! Max's `MakePolyShape`: each spline becomes a polyline of its knots with
//! `steps` evenly spaced (in the Bezier parameter) points inserted in every
//! segment — none in a straight segment when "optimize" is on. A segment is
//! straight when its start knot's line type is "line" (then it is the chord,
//! evenly spaced) or when the shape's [`Straightness`] test passes (a Line's
//! curve near the chord's line, a Text glyph's control polygon barely
//! longer than the chord). Knot points are marked smooth when the knot type
//! is auto or Bezier, inserted points always (they lie inside a curve); both
//! carry the material id of the segment they start.

use serde::Serialize;

use super::{BezierShape, ShapeError, Spline, Straightness, MAX_POINTS};
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

/// How much longer than its chord a Text glyph segment's control polygon may
/// be for optimize to count it straight (a flatness test). Bracketed by the
/// 44 distinct near-straight glyph segments of UnityKursovoi's Installation
/// texts, whose stepped points the FBX of the scene holds or lacks
/// (docs/evaluation.md, "Text"): straight up to 3.50e-4, stepped from
/// 4.42e-4. The value is a round number inside the bracket; Max's own
/// constant is not known.
const FLAT: f64 = 4.0e-4;

/// How far (times the chord's length) a Line segment's curve may stray from
/// its chord's line for optimize to count it straight. Bracketed by Lines
/// whose stepped points a reference holds or lacks (docs/evaluation.md,
/// "Interpolation"): bare up to 0.007447 (Cloetta's CannonFinishedW3.max,
/// Mesh Totals), stepped from 0.007486 (the same shape); also bare 0.00605
/// (Lamp.max, Mesh Totals), 0.0041 (DimaPetrinko's Bottle.max, its FBX:
/// S-shaped segments whose handles sit 0.014 off on either side; also a
/// segment whose collinear handles run far past its knots), stepped from
/// 0.0145 (Lamp.max), 0.0163 (Bottle.max), 0.022 (Sword.max, Edit Poly
/// sizes). The handles' distance from the chord does not fit (Bottle's bare
/// S-curves 0.0143, CannonFinishedW3's stepped 0.01297), nor the control
/// polygon's excess (Bottle's bare 1.64e-3, Lamp's stepped 1.13e-3). The
/// value is inside the (narrow) bracket; Max's own test is not known.
const CURVE_OFF: f64 = 0.00746;

/// Samples of a segment's curve for its distance from the chord: the
/// distance is a cubic in the parameter, so its maximum is found to far
/// below the bracket's width (5e-3 of the bound).
const CURVE_SAMPLES: u32 = 512;

/// Whether optimize counts a segment straight under `rule`.
fn straight(c: &[Vec3; 4], rule: Straightness) -> bool {
    let chord = c[3].minus(c[0]);
    let len = chord.len();
    if len == 0.0 {
        return c[1].minus(c[0]).len() == 0.0 && c[2].minus(c[3]).len() == 0.0;
    }
    match rule {
        Straightness::Deviation => {
            let off = |p: Vec3| chord.cross(p.minus(c[0])).len() / len;
            (1..CURVE_SAMPLES)
                .map(|k| off(bezier(c, f64::from(k) / f64::from(CURVE_SAMPLES))))
                .all(|d| d <= CURVE_OFF * len)
        }
        Straightness::Flatness => {
            let polygon = c[1].minus(c[0]).len() + c[2].minus(c[1]).len() + c[3].minus(c[2]).len();
            polygon <= (1.0 + FLAT) * len
        }
    }
}

fn spline_polyline(s: &Spline, steps: u32, optimize: bool, rule: Straightness) -> PolyLine {
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
        if optimize && (k.line || straight(&c, rule)) {
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
        .map(|s| spline_polyline(s, steps, optimize, shape.straightness))
        .collect())
}
