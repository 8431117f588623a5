//! Deformers on a shape: every modifier that moves points by a function of
//! their position alone (`moves_points_only`: Bend, Taper, Twist, Skew,
//! Stretch, Ripple, Wave, Melt, FFD, XForm) also deforms a spline shape,
//! which stays a shape. Max converts a parametric shape (Text, Rectangle …)
//! to an editable spline for them (the deformable `SplineShape` of the SDK's
//! splshape.h, whose points are each knot with its in and out handles) and
//! maps all three points of every knot through the deformer. Then a Bezier
//! knot stays smooth (its handles turned onto one line, `keep_smooth`),
//! corner knots get handles recomputed from the moved knots
//! (`ComputeBezPoints`, `Spline::compute_corners`: a straight side between
//! corners stays straight), Bezier-corner handles stay as mapped, and the
//! moved splines are interpolated anew with the shape's steps. What sits
//! above (Extrude, Lathe, a mesh modifier, or the renderable tube of a bare
//! shape) takes the deformed shape. Measured on UnityKursovoi's bent Texts
//! (docs/evaluation.md, "Deformers on shapes").
//!
//! Refused by name: an Editable Spline under a deformer (its sub-object
//! selection level, which makes Max deform the selected knots only, is not
//! read), auto (smooth) knots (Max recomputes their handles from the moved
//! knots by a rule not derived here) and a shape built as polylines (Helix:
//! Max deforms its Bezier knots, which are not built).

use std::sync::Arc;

use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::shape::{self, BezierShape, KnotType, ShapeEval};

/// How many modifiers at the bottom of `applied` (top first) are point
/// deformers: the run a shape goes through before anything else takes it.
pub fn bottom_run(applied: &[Applied]) -> usize {
    applied
        .iter()
        .rev()
        .take_while(|a| super::moves_points_only(a.class))
        .count()
}

/// Whether `stack[from..]` is a run of point deformers only (empty
/// included): what sits at `from − 1` takes the base shape deformed.
pub fn only_deformers_from(stack: &[Applied], from: usize) -> bool {
    stack
        .get(from..)
        .is_some_and(|s| s.iter().all(|a| super::moves_points_only(a.class)))
}

/// The shape of base object `base` deformed by `stack[from..]` (top first,
/// point deformers only), at `cx.t`: what the modifier at `from − 1` takes.
pub fn shape_below(
    stack: &[Applied],
    from: usize,
    base: usize,
    cx: &ModContext,
) -> Result<Arc<ShapeEval>, EvalError> {
    let s =
        shape::eval_shape(cx.eval, base, cx.t).map_err(|e| EvalError::from(e).inside("shape"))?;
    let run = stack.get(from..).unwrap_or_default();
    if run.is_empty() {
        return Ok(s);
    }
    if let Some(a) = run.iter().find(|a| !super::moves_points_only(a.class)) {
        return Err(EvalError::malformed(
            "",
            format!("{} is not a point deformer", a.name),
        ));
    }
    deformed(run, base, &s, cx).map(Arc::new)
}

/// Shape `s` of base object `base` through `run` (top first, point
/// deformers only), bottom-up.
pub fn deformed(
    run: &[Applied],
    base: usize,
    s: &ShapeEval,
    cx: &ModContext,
) -> Result<ShapeEval, EvalError> {
    let Some(bottom) = run.last() else {
        return Ok(s.clone());
    };
    let refuse =
        |why: &str| bottom.error(Some(EvalError::not_evaluated_why("acting on a shape", why)));
    let class = super::base_class(cx, base)?;
    if class.class_id == shape::SPLINE_SHAPE || class.class_id == shape::LINE {
        return Err(refuse(
            "on an Editable Spline it deforms the sub-object selection the spline leaves \
             live, whose level is not read",
        ));
    }
    let Some(bez) = &s.shape else {
        return Err(refuse(&format!(
            "Max deforms the Bezier knots of the {}, which are built as polylines here",
            s.class
        )));
    };
    if bez
        .splines
        .iter()
        .any(|sp| sp.knots.iter().any(|k| k.kind == KnotType::Auto))
    {
        return Err(refuse(
            "the handles Max recomputes for auto (smooth) knots after moving them are not derived",
        ));
    }
    let mut bez = bez.clone();
    for m in run.iter().rev() {
        deform_knots(m, &mut bez, cx)?;
    }
    let polylines = bez
        .polylines()
        .map_err(|e| EvalError::from(e).inside("deformed shape"))?;
    Ok(ShapeEval {
        class: s.class.clone(),
        shape: Some(bez),
        polylines,
        render: s.render,
    })
}

/// Moves every knot and both its handles by deformer `m`, then lines the
/// handles of Bezier (smooth) knots up again (`keep_smooth`) and places
/// the corner knots' handles anew.
fn deform_knots(m: &Applied, bez: &mut BezierShape, cx: &ModContext) -> Result<(), EvalError> {
    let points: Vec<Vec3> = bez
        .splines
        .iter()
        .flat_map(|sp| sp.knots.iter())
        .flat_map(|k| [k.in_vec, k.point, k.out_vec])
        .collect();
    let moved = super::deform_points(m, points, cx)?;
    let mut it = moved.chunks_exact(3);
    for sp in &mut bez.splines {
        for k in &mut sp.knots {
            let [i, p, o] = it
                .next()
                .and_then(|c| <[Vec3; 3]>::try_from(c).ok())
                .ok_or_else(|| EvalError::malformed("", "deformer changed the point count"))?;
            k.in_vec = i;
            k.point = p;
            k.out_vec = o;
        }
        keep_smooth(sp);
        sp.compute_corners();
    }
    Ok(())
}

/// A Bezier knot stays smooth: its moved handles keep their lengths from
/// the moved knot and are turned onto one line, the bisector of their
/// directions (out minus in). Measured on UnityKursovoi's bent Text
/// (its FBX): the curve Max interpolates through each moved glyph knot has
/// collinear handles within 0.002°, along that bisector within 0.002°, at
/// the mapped handles' lengths within 1e-4; mapped alone, they were up to
/// 2.3° apart. Bezier-corner handles stay as mapped.
fn keep_smooth(sp: &mut shape::Spline) {
    for k in sp.knots.iter_mut().filter(|k| k.kind == KnotType::Bezier) {
        let (a, b) = (k.in_vec.minus(k.point), k.out_vec.minus(k.point));
        let (la, lb) = (a.len(), b.len());
        if la == 0.0 || lb == 0.0 {
            continue;
        }
        let d = b.scale(1.0 / lb).minus(a.scale(1.0 / la));
        let ld = d.len();
        if ld == 0.0 {
            continue;
        }
        let d = d.scale(1.0 / ld);
        k.in_vec = k.point.minus(d.scale(la));
        k.out_vec = k.point.plus(d.scale(lb));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::shape::{Knot, Spline, Steps, Straightness};

    #[test]
    fn bottom_run_counts_deformers_from_the_bottom() {
        let a = |class| Applied {
            object: 0,
            class,
            name: "m",
            mod_app: None,
        };
        let stack = [
            a(super::super::shell::SHELL),
            a(super::super::BEND),
            a(super::super::TAPER),
        ];
        assert_eq!(bottom_run(&stack), 2);
        assert!(only_deformers_from(&stack, 1));
        assert!(!only_deformers_from(&stack, 0));
        assert!(only_deformers_from(&stack, 3));
        assert_eq!(bottom_run(&stack[..1]), 0);
    }

    #[test]
    fn smooth_handles_line_up_on_the_bisector_keeping_their_lengths() {
        // Out handle 1 long along +X, in handle 2 long at 170°: they miss a
        // straight line by 10°, and the bisector of the out direction and
        // the reversed in direction runs at −5°.
        let p = Vec3(1.0, 2.0, 0.0);
        let a = 170f64.to_radians();
        let mut k = Knot::bezier(
            p,
            p.plus(Vec3(2.0 * a.cos(), 2.0 * a.sin(), 0.0)),
            p.plus(Vec3(1.0, 0.0, 0.0)),
        );
        let corner = Knot {
            kind: KnotType::BezierCorner,
            ..k
        };
        k.kind = KnotType::Bezier;
        let mut sp = Spline {
            knots: vec![k, corner],
            closed: false,
        };
        keep_smooth(&mut sp);
        let d = Vec3(5f64.to_radians().cos(), -5f64.to_radians().sin(), 0.0);
        let [k, c] = [sp.knots[0], sp.knots[1]];
        assert!(k.out_vec.minus(p.plus(d)).len() < 1e-12, "{:?}", k.out_vec);
        assert!(
            k.in_vec.minus(p.minus(d.scale(2.0))).len() < 1e-12,
            "{:?}",
            k.in_vec
        );
        // A Bezier-corner knot keeps its handles as they are.
        assert_eq!(c, corner);
    }

    #[test]
    fn bent_glyph_knots_get_the_handles_of_max_s_curve() {
        // Two Bezier knots of UnityKursovoi's Text003 under its Bend (world
        // space, a translation of object space): the knot and its handles as
        // the Bend maps them, and the handles of the curve Max interpolated
        // there, fitted to the FBX's stepped points (residual 1e-7).
        let cases = [
            (
                (-7.095096592, 9.059478521),
                (-7.123111452, 9.060451167),
                (-7.067294878, 9.059162676),
                (-7.123120558, 9.060123953),
                (-7.067299811, 9.058838227),
            ),
            (
                (-7.618362263, 9.591518948),
                (-7.635006353, 9.629745336),
                (-7.602151838, 9.557103671),
                (-7.635569220, 9.629494221),
                (-7.602661596, 9.556867526),
            ),
        ];
        let v = |(x, y): (f64, f64)| Vec3(x, y, 0.0);
        for (k, i, o, max_in, max_out) in cases {
            let mut sp = Spline {
                knots: vec![Knot::bezier(v(k), v(i), v(o))],
                closed: false,
            };
            // Mapped alone, the handles miss Max's by 3e-4 and more.
            assert!(v(i).minus(v(max_in)).len() > 3e-4);
            keep_smooth(&mut sp);
            let got = sp.knots[0];
            assert!(got.in_vec.minus(v(max_in)).len() < 2e-6, "{:?}", got.in_vec);
            assert!(
                got.out_vec.minus(v(max_out)).len() < 2e-6,
                "{:?}",
                got.out_vec
            );
        }
    }

    #[test]
    fn corner_handles_follow_the_moved_knots() {
        // A square of corners moved by a non-linear map: the sides between
        // corners are straight again (handles a third along each new chord).
        let k = |x: f64, y: f64| Knot::corner(Vec3(x, y, 0.0));
        let mut sp = Spline {
            knots: vec![k(0.0, 0.0), k(3.0, 0.0), k(3.0, 3.0), k(0.0, 3.0)],
            closed: true,
        };
        sp.compute_corners();
        let bend = |p: Vec3| Vec3(p.0, p.1, p.0 * p.0);
        for kn in &mut sp.knots {
            kn.in_vec = bend(kn.in_vec);
            kn.point = bend(kn.point);
            kn.out_vec = bend(kn.out_vec);
        }
        sp.compute_corners();
        let [a, h1, h2, b] = sp.segment(0);
        assert!(h1.minus(a.plus(b.minus(a).scale(1.0 / 3.0))).len() < 1e-12);
        assert!(h2.minus(b.plus(a.minus(b).scale(1.0 / 3.0))).len() < 1e-12);
        let shape = BezierShape {
            splines: vec![sp],
            steps: Steps::Fixed(6),
            optimize: true,
            straightness: Straightness::Deviation,
        };
        // Straight sides need no steps under optimize.
        assert_eq!(shape.polylines().expect("polylines")[0].pts.len(), 4);
    }
}
