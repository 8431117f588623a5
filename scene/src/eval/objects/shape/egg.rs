//! Egg (0x171a1afe, 0; Max 2013+), built as the public SDK sample
//! `EggShape.cpp` builds it (the code here is ours). References: 0 the
//! rendering block, 2 the interpolation block, 3 a ParamBlock2 with ids
//! 0 outline (the inner "donut" wall), 1 length, 2 width (tied to the
//! length, unused), 3 thickness, 4 rotation (degrees).
//!
//! The outline is one closed spline of 11 Bezier knots: a half circle of
//! radius R = length / 3 at the bottom, two sides on circles of radius 3R,
//! and a tip on a circle of radius R / 2, the whole moved by 0.3 R along the
//! egg's axis; the wall is the same outline grown by the thickness, its knots
//! kept from crossing the axis.

use std::f64::consts::PI;

use super::parametric::{block, interpolation};
use super::{BezierShape, Knot, ShapeError, Spline, Straightness};
use crate::eval::core::math::Vec3;
use crate::eval::core::transform::SceneEval;

const EGG_BLOCK: u32 = 3;
const SIDE_SPAN: f64 = 36.87;
const TIP_SPAN: f64 = 106.26;
const CVL_12: f64 = 0.071571350;
const CVL_35: f64 = 0.20771742;
const CVL_90: f64 = 0.5517861843;
const CENTER_OF_MASS_OFFSET: f64 = 0.6;
const EPSILON: f64 = 0.00001;

pub(super) fn build(eval: &SceneEval, obj: usize, t: i32) -> Result<BezierShape, ShapeError> {
    let p = block(eval, obj, EGG_BLOCK, t)?;
    let (steps, optimize) = interpolation(eval, obj, t)?;
    let donut = p.flag(0, true);
    let length = p.float_or(1, 60.0);
    let mut thickness = p.float_or(3, 5.0);
    let rotation = p.float_or(4, 0.0);
    if !(length.is_finite() && thickness.is_finite() && rotation.is_finite()) {
        return Err(ShapeError::damaged("Egg", "a parameter is not finite"));
    }
    if thickness < EPSILON && thickness.abs() > length / 2.0 {
        thickness = -length / 2.0;
    }
    let size = length / 3.0;
    let geo = Geometry::new(size, rotation, size * CENTER_OF_MASS_OFFSET / 2.0);
    let mut splines = vec![geo.outline()];
    if donut {
        splines.push(geo.wall(thickness));
    }
    Ok(BezierShape {
        splines,
        steps,
        optimize,
        straightness: Straightness::Deviation,
    })
}

fn anchor(angle: f64, rot: f64, size: f64, vl: f64, off: Vec3) -> Knot {
    let (s, c) = (angle + rot).sin_cos();
    let p = Vec3(c * size + off.0, s * size + off.1, off.2);
    let r = Vec3(s * vl * size, -c * vl * size, 0.0);
    Knot::bezier(p, p.plus(r), p.minus(r))
}

fn scale_out(k: &mut Knot, f: f64) {
    k.out_vec = k.point.plus(k.out_vec.minus(k.point).scale(f));
}

fn scale_in(k: &mut Knot, f: f64) {
    k.in_vec = k.point.plus(k.in_vec.minus(k.point).scale(f));
}

struct Geometry {
    size: f64,
    rot: f64,
    sin: f64,
    cos: f64,
    off: (f64, f64),
    big: Vec3,
    small: Vec3,
}

impl Geometry {
    fn new(size: f64, rotation: f64, offset: f64) -> Geometry {
        let (sin, cos) = (-rotation).to_radians().sin_cos();
        let off = (offset * sin, offset * cos);
        let small_size = size / 2.0;
        Geometry {
            size,
            rot: rotation.to_radians(),
            sin,
            cos,
            off,
            big: Vec3(-off.0, -off.1, 0.0),
            small: Vec3(
                (size + small_size) * sin - off.0,
                (size + small_size) * cos - off.1,
                0.0,
            ),
        }
    }

    fn right_centre(&self) -> Vec3 {
        let b = self.size * 3.0 * 2.0 / 3.0;
        Vec3(-b * self.cos - self.off.0, b * self.sin - self.off.1, 0.0)
    }

    fn left_centre(&self) -> Vec3 {
        let b = self.size * 3.0 * 2.0 / 3.0;
        Vec3(b * self.cos - self.off.0, -b * self.sin - self.off.1, 0.0)
    }

    fn outline(&self) -> Spline {
        let (size, rot) = (self.size, self.rot);
        let (big, small) = (size * 3.0, size / 2.0);
        let mut k: Vec<Knot> = Vec::new();
        for i in 0..3 {
            k.push(anchor(
                PI + i as f64 * PI / 2.0,
                rot,
                size,
                CVL_90,
                self.big,
            ));
        }
        let inc = (SIDE_SPAN / 3.0).to_radians();
        if let Some(last) = k.last_mut() {
            scale_out(last, 3.0 * CVL_12 / CVL_90);
        }
        for i in 1..4 {
            k.push(anchor(
                i as f64 * inc,
                rot,
                big,
                CVL_12,
                self.right_centre(),
            ));
        }
        let inc_tip = (TIP_SPAN / 3.0).to_radians();
        if let Some(last) = k.last_mut() {
            scale_out(last, CVL_35 / 6.0 / CVL_12);
        }
        for i in 1..4 {
            let a = SIDE_SPAN.to_radians() + i as f64 * inc_tip;
            k.push(anchor(a, rot, small, CVL_35, self.small));
        }
        if let Some(last) = k.last_mut() {
            scale_out(last, 6.0 * CVL_12 / CVL_35);
        }
        for i in 1..3 {
            let a = (180.0 - SIDE_SPAN).to_radians() + i as f64 * inc;
            k.push(anchor(a, rot, big, CVL_12, self.left_centre()));
        }
        scale_in(&mut k[0], 3.0 * CVL_12 / CVL_90);
        Spline {
            knots: k,
            closed: true,
        }
    }

    /// Max's `LimitAnchorLocation`: keeps a wall knot from crossing the axis
    /// between the two circle centres.
    fn limit(&self, k: &mut Knot, from_tip: f64, from_bottom: f64, check_only: bool) {
        let a = self.small.minus(self.big);
        let b = k.point.minus(self.big);
        let a_len = a.len();
        if a_len < EPSILON {
            return;
        }
        if check_only {
            if let Some(v) = self.cross_over(k.point, k.in_vec) {
                k.in_vec = v;
            }
            if let Some(v) = self.cross_over(k.point, k.out_vec) {
                k.out_vec = v;
            }
        } else {
            let mut comp = (a.dot(b) / a_len).abs();
            if comp < from_bottom {
                comp = from_bottom;
            } else if comp + from_tip > a_len {
                comp = a_len - from_tip;
            }
            let p = a.scale(comp / a_len).plus(self.big);
            k.point = p;
            k.in_vec = p;
            k.out_vec = p;
        }
    }

    /// Max's `CheckAnchorCrossOver`: where a handle crosses the axis.
    fn cross_over(&self, pos: Vec3, vec: Vec3) -> Option<Vec3> {
        let (l1, l2) = (self.big, self.small);
        let den = (vec.1 - pos.1) * (l2.0 - l1.0) - (vec.0 - pos.0) * (l2.1 - l1.1);
        if den.abs() < EPSILON {
            return None;
        }
        let t1 = ((vec.0 - pos.0) * (l1.1 - pos.1) - (vec.1 - pos.1) * (l1.0 - pos.0)) / den;
        let t2 = ((l2.0 - l1.0) * (l1.1 - pos.1) - (l2.1 - l1.1) * (l1.0 - pos.0)) / den;
        (t1 > 0.0 && t1 < 1.0 && t2 > 0.0 && t2 < 1.0).then_some(Vec3(
            l1.0 + t1 * (l2.0 - l1.0),
            l1.1 + t1 * (l2.1 - l1.1),
            0.0,
        ))
    }

    fn wall(&self, size2: f64) -> Spline {
        let (size, rot) = (self.size, self.rot);
        let (big, small) = (size * 3.0, size / 2.0);
        let pos_or = |x: f64| if x < 0.0 { x.abs() } else { 0.0 };
        let from_tip = pos_or(small + size2);
        let from_bottom = pos_or(size + size2);
        let mut new_from_tip = from_tip;
        let mut closing: Option<usize> = None;
        let at_least_one = |x: f64| if x < 1.0 { 1.0 } else { x };
        let mut k: Vec<Knot> = Vec::new();
        for i in 0..3 {
            let mut kn = anchor(
                PI + i as f64 * PI / 2.0,
                rot,
                size + size2,
                CVL_90,
                self.big,
            );
            self.limit(&mut kn, from_tip, from_bottom, size + size2 >= 0.0);
            k.push(kn);
        }
        let inc = (SIDE_SPAN / 3.0).to_radians();
        let d = at_least_one(size + size2);
        if let Some(last) = k.last_mut() {
            scale_out(last, (CVL_12 / CVL_90) * ((big + size2) / d));
        }
        for i in 1..4 {
            let a = i as f64 * inc;
            let mut kn = anchor(a, rot, big + size2, CVL_12, self.right_centre());
            let to_axis = (2.0 * size / a.cos()).abs();
            self.limit(&mut kn, from_tip, from_bottom, big + size2 >= to_axis);
            k.push(kn);
        }
        let inc_tip = (TIP_SPAN / 3.0).to_radians();
        let d = at_least_one(big + size2);
        if let Some(last) = k.last_mut() {
            scale_out(last, (CVL_35 / CVL_12) * ((small + size2) / d));
        }
        for i in 1..4 {
            let a = SIDE_SPAN.to_radians() + i as f64 * inc_tip;
            let mut kn = anchor(a, rot, small + size2, CVL_35, self.small);
            self.limit(&mut kn, from_tip, from_bottom, small + size2 >= 0.0);
            k.push(kn);
        }
        let d = at_least_one(small + size2);
        if let Some(last) = k.last_mut() {
            scale_out(last, (CVL_12 / CVL_35) * ((big + size2) / d));
        }
        let d = at_least_one(size + size2);
        for i in 1..3 {
            let a = (180.0 - SIDE_SPAN).to_radians() + i as f64 * inc;
            let mut kn = anchor(a, rot, big + size2, CVL_12, self.left_centre());
            let to_axis = (2.0 * size / a.cos()).abs();
            let check_only = big + size2 >= to_axis;
            self.limit(&mut kn, from_tip, from_bottom, check_only);
            if !check_only {
                new_from_tip = kn.point.minus(self.small).len();
                closing = Some(k.len());
            }
            k.push(kn);
        }
        scale_in(&mut k[0], (CVL_12 / CVL_90) * ((big + size2) / d));
        let beginning = match closing {
            Some(10) => Some(3),
            Some(9) => Some(4),
            _ => None,
        };
        if let (Some(b), Some(c)) = (beginning, closing) {
            let a = self.small.minus(self.big);
            let a_len = a.len();
            for kn in k.iter_mut().take(c + 1).skip(b.max(3)) {
                kn.point = a.scale((a_len - new_from_tip) / a_len).plus(self.big);
            }
        }
        Spline {
            knots: k,
            closed: true,
        }
    }
}

#[cfg(test)]
pub(super) mod tests_support {
    use super::*;

    /// The outline spline of an egg of `length`, turned by `rotation` degrees.
    pub(in crate::eval::objects::shape) fn outline(length: f64, rotation: f64) -> Spline {
        let size = length / 3.0;
        Geometry::new(size, rotation, size * CENTER_OF_MASS_OFFSET / 2.0).outline()
    }
}
