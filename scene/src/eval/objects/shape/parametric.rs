//! The parametric shapes, built from their parameters as Max's SDK sample
//! objects build them (rectangl.cpp, circle.cpp, ellipse.cpp, donut.cpp,
//! arc.cpp, ngon.cpp, star.cpp, helix.cpp — public; the code here is ours).
//!
//! References of a parametric shape: 0 the ShapeObject's rendering block,
//! 1 the shape's own block, 2 the interpolation block (0 steps, 1 optimize,
//! 2 adaptive). Parameters by index (a ParamBlock2 in place of an old block
//! is read by id in the same order, as for the primitives):
//! - Rectangle: 0 length (Y), 1 width (X), 2 corner radius;
//! - Circle: 0 radius; Donut: 0 radius 1, 1 radius 2;
//! - Ellipse: 0 length, 1 width (2 thickness, 3 outline: refused when on);
//! - Arc: 0 radius, 1 from, 2 to (degrees), 3 pie slice, 4 reverse;
//! - NGon: 0 radius, 1 sides, 2 circular, 3 corner radius, 4 inscribed (1)
//!   or circumscribed (0);
//! - Star: 0 radius 1, 1 radius 2, 2 points, 3 distortion (degrees),
//!   4 fillet radius 1, 5 fillet radius 2;
//! - Helix: 0 radius 1, 1 radius 2, 2 height, 3 turns, 4 bias, 5 direction
//!   (1 counter-clockwise) — a polyline of 40 points per turn, not Bezier.

use std::f64::consts::{PI, TAU};

use super::{
    BezierShape, Knot, KnotType, PolyLine, PolyPt, ShapeError, Spline, Steps, Straightness,
    MAX_STEPS,
};
use crate::eval::core::math::Vec3;
use crate::eval::core::pblock;
use crate::eval::core::transform::SceneEval;
use crate::eval::objects::primitive::{block_params, Params};
use crate::typed::ClassId;

/// Handle length of a quarter circle of radius 1 (Max's CIRCLE_VECTOR_LENGTH).
pub(super) const CIRCLE_VECTOR: f64 = 0.5517861843;
const USER_BLOCK: u32 = 1;
const INTERP_BLOCK: u32 = 2;
/// Helix points per turn (helix.cpp).
const HELIX_POINTS_PER_TURN: f64 = 40.0;
/// Most helix turns Max allows.
const HELIX_MAX_TURNS: f64 = 100.0;

pub(super) fn block(eval: &SceneEval, obj: usize, slot: u32, t: i32) -> Result<Params, ShapeError> {
    let pb = pblock::reference(&eval.graph, obj, slot).ok_or_else(|| {
        ShapeError::damaged("shape", format!("no parameter block (reference {slot})"))
    })?;
    block_params(eval, pb, t).map_err(|e| ShapeError::damaged("shape parameters", e.to_string()))
}

/// Steps and optimize from the interpolation block (reference 2).
pub(super) fn interpolation(
    eval: &SceneEval,
    obj: usize,
    t: i32,
) -> Result<(Steps, bool), ShapeError> {
    let p = block(eval, obj, INTERP_BLOCK, t)?;
    let steps = p.int_or(0, 6);
    let optimize = p.flag(1, true);
    if p.flag(2, false) {
        return Ok((Steps::Adaptive, optimize));
    }
    if !(0..=MAX_STEPS).contains(&steps) {
        return Err(ShapeError::Param {
            index: 0,
            why: format!("{steps} steps"),
        });
    }
    Ok((Steps::Fixed(steps as u32), optimize))
}

fn finite(p: &Params, i: usize, default: f64) -> Result<f64, ShapeError> {
    let v = p.float_or(i, default);
    if v.is_finite() {
        Ok(v)
    } else {
        Err(ShapeError::Param {
            index: i,
            why: format!("{v}"),
        })
    }
}

pub(super) fn build(
    eval: &SceneEval,
    obj: usize,
    class: ClassId,
    t: i32,
) -> Result<(Option<BezierShape>, Option<Vec<PolyLine>>), ShapeError> {
    let p = block(eval, obj, USER_BLOCK, t)?;
    if class == super::HELIX {
        return Ok((None, Some(vec![helix(&p)?])));
    }
    let (steps, optimize) = interpolation(eval, obj, t)?;
    let splines = splines(class, &p)?;
    Ok((
        Some(BezierShape {
            splines,
            steps,
            optimize,
            straightness: Straightness::Deviation,
        }),
        None,
    ))
}

/// The splines of a Bezier parametric shape from its parameters.
pub(super) fn splines(class: ClassId, p: &Params) -> Result<Vec<Spline>, ShapeError> {
    use super::{ARC, CIRCLE, DONUT, ELLIPSE, NGON, RECTANGLE, STAR};
    Ok(match class {
        c if c == RECTANGLE => vec![rectangle(
            finite(p, 0, 0.0)?.max(0.0),
            finite(p, 1, 0.0)?.max(0.0),
            finite(p, 2, 0.0)?.max(0.0),
        )],
        c if c == CIRCLE => vec![circle(finite(p, 0, 0.0)?.max(0.0), 1.0, 1.0)],
        c if c == DONUT => vec![
            circle(finite(p, 0, 0.0)?.max(0.0), 1.0, 1.0),
            circle(finite(p, 1, 0.0)?.max(0.0), 1.0, 1.0),
        ],
        c if c == ELLIPSE => {
            if p.flag(3, false) {
                return Err(ShapeError::NotEvaluated("Ellipse outline".into()));
            }
            vec![ellipse(
                finite(p, 0, 0.0)?.max(0.0),
                finite(p, 1, 0.0)?.max(0.0),
            )]
        }
        c if c == ARC => vec![arc(
            finite(p, 0, 0.0)?.max(0.0),
            finite(p, 1, 0.0)?.clamp(0.0, 360.0).to_radians(),
            finite(p, 2, 0.0)?.clamp(0.0, 360.0).to_radians(),
            p.flag(3, false),
            p.flag(4, false),
        )],
        c if c == NGON => vec![ngon(
            finite(p, 0, 0.0)?.max(0.0),
            p.int_or(1, 6).clamp(3, 100) as usize,
            p.flag(2, false),
            finite(p, 3, 0.0)?.max(0.0),
            p.int_or(4, 1) != 0,
        )],
        c if c == STAR => vec![star(
            finite(p, 0, 0.0)?.max(0.0),
            finite(p, 1, 0.0)?.max(0.0),
            p.int_or(2, 6).clamp(3, 100) as usize,
            finite(p, 3, 0.0)?.clamp(-180.0, 180.0),
            finite(p, 4, 0.0)?.max(0.0),
            finite(p, 5, 0.0)?.max(0.0),
        )],
        c => return Err(ShapeError::NotEvaluated(format!("shape class {c:?}"))),
    })
}

fn v(x: f64, y: f64) -> Vec3 {
    Vec3(x, y, 0.0)
}

fn closed(knots: Vec<Knot>) -> Spline {
    let mut s = Spline {
        knots,
        closed: true,
    };
    s.compute_corners();
    s
}

/// Rectangle: corners from (+w/2, +l/2) counter-clockwise; with a corner
/// radius, eight Bezier knots, two per corner.
pub(super) fn rectangle(length: f64, width: f64, fillet: f64) -> Spline {
    let (l2, w2) = (length / 2.0, width / 2.0);
    if fillet <= 0.0 {
        let mut s = closed(vec![
            Knot::corner(v(w2, l2)),
            Knot::corner(v(-w2, l2)),
            Knot::corner(v(-w2, -l2)),
            Knot::corner(v(w2, -l2)),
        ]);
        for k in &mut s.knots {
            k.kind = KnotType::BezierCorner;
        }
        return s;
    }
    let cf = fillet * CIRCLE_VECTOR;
    let (wv, lv) = (v(fillet, 0.0), v(0.0, fillet));
    let (cw, cl) = (v(cf, 0.0), v(0.0, cf));
    let k = |p: Vec3, a: Vec3, b: Vec3| Knot {
        kind: KnotType::BezierCorner,
        ..Knot::bezier(p, a, b)
    };
    let p0 = v(w2, l2);
    let p3 = p0.minus(lv);
    let p1 = p0.minus(wv);
    let q = v(-w2, l2);
    let q2 = q.plus(wv);
    let q1 = q.minus(lv);
    let r = v(-w2, -l2);
    let r3 = r.plus(lv);
    let r1 = r.plus(wv);
    let s = v(w2, -l2);
    let s3 = s.minus(wv);
    let s1 = s.plus(lv);
    closed(vec![
        k(p3, p3.minus(cl), p3.plus(cl)),
        k(p1, p1.plus(cw), p1.minus(cw)),
        k(q2, q2.plus(cw), q2.minus(cw)),
        k(q1, q1.plus(cl), q1.minus(cl)),
        k(r3, r3.plus(cl), r3.minus(cl)),
        k(r1, r1.minus(cw), r1.plus(cw)),
        k(s3, s3.minus(cw), s3.plus(cw)),
        k(s1, s1.minus(cl), s1.plus(cl)),
    ])
}

/// Circle (and Ellipse, scaled per axis): four Bezier knots from +X,
/// counter-clockwise.
pub(super) fn circle(radius: f64, xm: f64, ym: f64) -> Spline {
    let vector = CIRCLE_VECTOR * radius;
    let m = |p: Vec3| Vec3(p.0 * xm, p.1 * ym, 0.0);
    closed(
        (0..4)
            .map(|i| {
                let a = TAU * i as f64 / 4.0;
                let (s, c) = a.sin_cos();
                let p = v(c * radius, s * radius);
                let rot = v(s * vector, -c * vector);
                Knot::bezier(m(p), m(p.plus(rot)), m(p.minus(rot)))
            })
            .collect(),
    )
}

fn ellipse(length: f64, width: f64) -> Spline {
    let (radius, xm, ym) = if length < width {
        (width, 1.0, length / width)
    } else if width < length {
        (length, width / length, 1.0)
    } else {
        (length, 1.0, 1.0)
    };
    circle(radius / 2.0, xm, ym)
}

/// Handle length (radius 1) of a circular Bezier arc spanning `angle`:
/// Max searches it by bisection so that ten samples of the segment average
/// radius 1 (arc.cpp / ngon.cpp `veccalc`).
pub(super) fn arc_vector(angle: f64) -> f64 {
    let (s, c) = angle.sin_cos();
    let k1 = v(1.0, 0.0);
    let k2 = v(c, s);
    let (mut lo, mut hi) = (0.0f64, 1.5f64);
    let mut test = 0.0;
    for _ in 0..200 {
        test = (hi + lo) / 2.0;
        let seg = [
            k1,
            k1.plus(v(0.0, test)),
            k2.plus(v(s * test, -c * test)),
            k2,
        ];
        let avg = (0..10)
            .map(|i| super::polyline::bezier(&seg, i as f64 / 10.0))
            .map(|p| (p.0 * p.0 + p.1 * p.1).sqrt())
            .sum::<f64>()
            / 10.0;
        if avg == 1.0 {
            break;
        }
        if avg > 1.0 {
            hi = test;
        } else {
            lo = test;
        }
    }
    test
}

fn arc(radius: f64, from: f64, mut to: f64, pie: bool, reverse: bool) -> Spline {
    if from > to {
        to += TAU;
    }
    let total = to - from;
    let vector = arc_vector(total / 3.0) * radius;
    let step = total / 3.0;
    let mut knots: Vec<Knot> = (0..4)
        .map(|i| {
            let a = from + i as f64 * step;
            let (s, c) = a.sin_cos();
            let p = v(c * radius, s * radius);
            let rot = v(s * vector, -c * vector);
            let in_vec = if i == 0 { p } else { p.plus(rot) };
            let out_vec = if i == 3 { p } else { p.minus(rot) };
            Knot::bezier(p, in_vec, out_vec)
        })
        .collect();
    if pie {
        knots.push(Knot::bezier(v(0.0, 0.0), v(0.0, 0.0), v(0.0, 0.0)));
    }
    let mut s = Spline { knots, closed: pie };
    if reverse {
        s.reverse_keep_zero();
    }
    s
}

fn ngon(mut radius: f64, sides: usize, circular: bool, fillet: f64, inscribed: bool) -> Spline {
    if !inscribed {
        radius /= (TAU / (sides as f64 * 2.0)).cos();
    }
    let n = sides as f64;
    if fillet == 0.0 || circular {
        let vector = if circular {
            arc_vector(TAU / n) * radius
        } else {
            0.0
        };
        let mut s = closed(
            (0..sides)
                .map(|i| {
                    let a = TAU * i as f64 / n;
                    let (sn, c) = a.sin_cos();
                    let p = v(c * radius, sn * radius);
                    let rot = v(sn * vector, -c * vector);
                    if circular {
                        Knot::bezier(p, p.plus(rot), p.minus(rot))
                    } else {
                        Knot::corner(p)
                    }
                })
                .collect(),
        );
        if !circular {
            for k in &mut s.knots {
                k.kind = KnotType::BezierCorner;
            }
        }
        return s;
    }
    let mut knots = Vec::with_capacity(2 * sides);
    for i in 0..sides {
        let a = TAU * i as f64 / n;
        let theta2 = (PI * (n - 2.0) / n) / 2.0;
        let (fang, fang2) = (a + theta2, a - theta2);
        let f = fillet * (PI / 2.0 - theta2).tan();
        let p = v(a.cos() * radius, a.sin() * radius);
        let fv1 = v(-fang.cos(), -fang.sin()).scale(f);
        let fv2 = v(-fang2.cos(), -fang2.sin()).scale(f);
        let (p1, p2) = (p.plus(fv1), p.plus(fv2));
        let (h1, h2) = (fv1.scale(CIRCLE_VECTOR), fv2.scale(CIRCLE_VECTOR));
        knots.push(Knot::bezier(p1, p1.plus(h1), p1.minus(h1)));
        knots.push(Knot::bezier(p2, p2.minus(h2), p2.plus(h2)));
    }
    closed(knots)
}

fn star(r1: f64, r2: f64, points: usize, distortion: f64, f1: f64, f2: f64) -> Spline {
    // Max's own constant for degrees to radians here (star.cpp's PI180).
    let distort = 0.0174532 * distortion;
    let n = points as f64;
    let pipts = PI / n;
    let mut knots = Vec::new();
    for ix in 0..2 * points {
        let odd = ix % 2 == 1;
        let (angle, r, other, fillet, d) = if odd {
            (PI * ix as f64 / n, r1, r2, f1, 0.0)
        } else {
            (pipts * ix as f64 + distort, r2, r1, f2, distort)
        };
        let p = v(angle.cos() * r, angle.sin() * r);
        if fillet > 0.0 {
            let (t1, t2) = (angle - pipts - d, angle + pipts + d);
            let last = v(other * t1.cos(), other * t1.sin());
            let next = v(other * t2.cos(), other * t2.sin());
            let n1 = last.minus(p).normalized().scale(fillet);
            let n2 = next.minus(p).normalized().scale(fillet);
            let (k1, k2) = (n1.scale(CIRCLE_VECTOR), n2.scale(CIRCLE_VECTOR));
            let (p1, p2) = (p.plus(n1), p.plus(n2));
            knots.push(Knot::bezier(p1, p1.plus(k1), p1.minus(k1)));
            knots.push(Knot::bezier(p2, p2.minus(k2), p2.plus(k2)));
        } else {
            knots.push(Knot::bezier(p, p, p));
        }
    }
    closed(knots)
}

fn helix(p: &Params) -> Result<PolyLine, ShapeError> {
    let r1 = finite(p, 0, 0.0)?.max(0.0);
    let r2 = finite(p, 1, 0.0)?.max(0.0);
    let height = finite(p, 2, 0.0)?;
    let turns = finite(p, 3, 1.0)?.clamp(0.0, HELIX_MAX_TURNS);
    let bias = finite(p, 4, 0.0)?.clamp(-1.0, 1.0);
    let ccw = p.int_or(5, 1) == 1;
    let total = TAU * turns * if ccw { 1.0 } else { -1.0 };
    let power = if bias != 0.0 {
        bias.abs() * 9.0 + 1.0
    } else {
        1.0
    };
    let points = ((turns * HELIX_POINTS_PER_TURN) as usize).max(1);
    let pts = (0..=points)
        .map(|i| {
            let pct = i as f64 / points as f64;
            let r = r1 + (r2 - r1) * pct;
            let h = if bias > 0.0 {
                1.0 - (1.0 - pct).powf(power)
            } else if bias < 0.0 {
                pct.powf(power)
            } else {
                pct
            };
            let a = total * pct;
            PolyPt {
                p: Vec3(r * a.cos(), r * a.sin(), height * h),
                knot: i % 10 == 0 || i == points,
                smooth: true,
                material: 0,
            }
        })
        .collect();
    Ok(PolyLine { pts, closed: false })
}
