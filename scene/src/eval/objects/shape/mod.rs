//! Spline shapes (superclass 0x40): the Bezier splines of a SplineShape / Line
//! / Editable Spline as saved, and those the parametric shapes build from
//! their parameters (Rectangle, Circle, Ellipse, Donut, Arc, NGon, Star,
//! Helix, Egg) and the Text from its saved glyphs, interpolated into polylines as Max does (steps, optimize).
//!
//! Conventions (Max SDK `spline3d.h`, public): a spline is a list of knots,
//! each a point with an in and an out handle (absolute positions in the
//! object's space); segment i runs from knot i to knot i + 1 (closed splines
//! wrap) as the cubic Bezier (knot i, out i, in i+1, knot i+1). Knot types:
//! 0 auto (smooth), 1 corner, 2 Bezier, 3 Bezier corner; a knot's line type
//! 1 makes the segment that starts at it straight. A knot's material id is the
//! high word of its flags.
//!
//! What the evaluation makes of a shape: `SceneEval::shape` gives the splines
//! and polylines; a shape under Extrude becomes a mesh (modifier/extrude.rs);
//! a bare shape whose "enable in renderer" is set is the renderable tube
//! (`render_mesh`); any other bare shape is not geometry. Another mesh
//! modifier directly on a shape takes it converted (`modifier/shape_input.rs`).
//! Point deformers (Bend, FFD …) deform the knots and leave a shape
//! (`modifier/shape_deform.rs`).

use std::sync::Arc;

use serde::Serialize;

use crate::eval::core::math::Vec3;
use crate::eval::core::transform::SceneEval;
use crate::typed::ClassId;

mod bezier_shape;
pub mod curve;
mod egg;
pub mod organize;
mod parametric;
mod polyline;
pub mod render_mesh;
#[cfg(test)]
mod tests;
mod text;
mod text_layout;
pub mod triangulate;

pub use organize::organize;
pub use polyline::{PolyLine, PolyPt};

/// SplineShape (Editable Spline).
pub const SPLINE_SHAPE: ClassId = ClassId(0x0a, 0);
/// Line (a SplineShape created with the Line tool; same chunks).
pub const LINE: ClassId = ClassId(0x1040, 0);
pub const RECTANGLE: ClassId = ClassId(0x1065, 0);
pub const CIRCLE: ClassId = ClassId(0x1999, 0);
pub const ARC: ClassId = ClassId(0x1996, 0);
pub const NGON: ClassId = ClassId(0x1050, 0);
pub const DONUT: ClassId = ClassId(0x1060, 0);
pub const STAR: ClassId = ClassId(0x1995, 0);
pub const HELIX: ClassId = ClassId(0x1994, 0);
pub const ELLIPSE: ClassId = ClassId(0x1097, 0);
pub const EGG: ClassId = ClassId(0x171a1afe, 0);
/// Text (its glyph outlines saved with it: shape/text.rs).
pub const TEXT: ClassId = ClassId(0x1993, 0);

/// Superclass of shape objects.
pub const SUPERCLASS_SHAPE: u32 = 0x40;
/// Knots decoded per spline and splines per shape at most (damaged counts).
const MAX_KNOTS: usize = 1 << 20;
/// Interpolation steps per segment beyond this are refused (Max's limit is 100).
const MAX_STEPS: i64 = 100;
/// Interpolated points per shape at most.
const MAX_POINTS: usize = 1 << 22;

/// Why a shape could not be evaluated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShapeError {
    #[error("{what}: {why}")]
    Damaged { what: String, why: String },
    #[error("{0} is not evaluated")]
    NotEvaluated(String),
    #[error("parameter {index}: {why}")]
    Param { index: usize, why: String },
}

impl ShapeError {
    pub(crate) fn damaged(what: impl Into<String>, why: impl Into<String>) -> ShapeError {
        ShapeError::Damaged {
            what: what.into(),
            why: why.into(),
        }
    }
}

/// Knot types (Max's KTYPE_*).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KnotType {
    Auto,
    Corner,
    Bezier,
    BezierCorner,
}

impl KnotType {
    fn from_i32(k: i32) -> Option<KnotType> {
        Some(match k {
            0 => KnotType::Auto,
            1 => KnotType::Corner,
            2 => KnotType::Bezier,
            3 => KnotType::BezierCorner,
            _ => return None,
        })
    }

    /// Tangent-continuous through the knot: the interpolated point there is
    /// marked smooth (extrusions keep one smoothing group across it).
    pub fn smooth(self) -> bool {
        matches!(self, KnotType::Auto | KnotType::Bezier)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Knot {
    pub kind: KnotType,
    /// The segment starting here is a straight line (LTYPE_LINE).
    pub line: bool,
    pub point: Vec3,
    pub in_vec: Vec3,
    pub out_vec: Vec3,
    /// 0-based material id (Max shows it plus one).
    pub material: u16,
}

impl Knot {
    pub(crate) fn bezier(point: Vec3, in_vec: Vec3, out_vec: Vec3) -> Knot {
        Knot {
            kind: KnotType::Bezier,
            line: false,
            point,
            in_vec,
            out_vec,
            material: 0,
        }
    }

    /// A knot whose handles sit on the point (corners before Max's
    /// `ComputeBezPoints` places them, see [`Spline::compute_corners`]).
    pub(crate) fn corner(point: Vec3) -> Knot {
        Knot {
            kind: KnotType::Corner,
            ..Knot::bezier(point, point, point)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spline {
    pub knots: Vec<Knot>,
    pub closed: bool,
}

impl Spline {
    /// Number of segments: knots − 1 when open, knots when closed.
    pub fn segments(&self) -> usize {
        match self.knots.len() {
            0 => 0,
            n if self.closed => n,
            n => n - 1,
        }
    }

    /// The four Bezier control points of segment `i`.
    pub fn segment(&self, i: usize) -> [Vec3; 4] {
        let n = self.knots.len();
        let a = &self.knots[i % n];
        let b = &self.knots[(i + 1) % n];
        [a.point, a.out_vec, b.in_vec, b.point]
    }

    /// Runs the spline backwards (Max's `Spline3D::Reverse(TRUE)`): knots in
    /// reverse order with in and out handles swapped, a closed spline keeping
    /// its first knot first; each segment keeps its line type and material.
    pub(crate) fn reverse_keep_zero(&mut self) {
        let n = self.knots.len();
        if n < 2 {
            return;
        }
        let old = self.knots.clone();
        let order: Vec<usize> = if self.closed {
            std::iter::once(0).chain((1..n).rev()).collect()
        } else {
            (0..n).rev().collect()
        };
        for (k, &i) in order.iter().enumerate() {
            let o = &old[i];
            // The segment now starting at old knot i is the old one ending there.
            let seg = if i > 0 { i - 1 } else { n - 1 };
            self.knots[k] = Knot {
                in_vec: o.out_vec,
                out_vec: o.in_vec,
                line: old[seg].line,
                material: old[seg].material,
                ..*o
            };
        }
    }

    /// Max's `ComputeBezPoints` for corner knots: a corner's handle towards a
    /// corner neighbour sits a third of the way along the chord (a straight,
    /// evenly parametrised segment). Towards a non-corner neighbour it sits
    /// halfway to that neighbour's handle — the rule read off the saved
    /// handles of corner knots in the corpus (Sword.max's Line); parametric
    /// shapes only ever put corners next to corners.
    pub(crate) fn compute_corners(&mut self) {
        let n = self.knots.len();
        if n < 2 {
            return;
        }
        let old = self.knots.clone();
        for (i, k) in self.knots.iter_mut().enumerate() {
            if k.kind != KnotType::Corner {
                continue;
            }
            let toward = |j: usize, next: bool| -> Vec3 {
                let o = &old[j];
                if o.kind == KnotType::Corner {
                    k.point.plus(o.point.minus(k.point).scale(1.0 / 3.0))
                } else {
                    let h = if next { o.in_vec } else { o.out_vec };
                    k.point.plus(h.minus(k.point).scale(0.5))
                }
            };
            if self.closed || i + 1 < n {
                k.out_vec = toward((i + 1) % n, true);
            }
            if self.closed || i > 0 {
                k.in_vec = toward((i + n - 1) % n, false);
            }
        }
    }
}

/// Interpolation steps of a shape: fixed intermediate points per segment, or
/// Max's adaptive subdivision (not evaluated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Steps {
    Fixed(u32),
    Adaptive,
}

/// How optimize tells a straight segment (one it leaves without steps). Max
/// does not judge a Line's segments as it judges a Text's glyph segments: a
/// Line segment whose curve strays 0.00749 of its chord off it is stepped
/// (Cloetta's CannonFinishedW3.max, Mesh Totals), a glyph segment 0.0078 off
/// is bare (UnityKursovoi's Installation texts, their FBX), and no flatness
/// or handle-distance bound orders both sets either (docs/evaluation.md,
/// "Interpolation").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Straightness {
    /// The curve near the chord's line (Line / Editable Spline; also the
    /// parametric shapes, whose segments are straight or plainly curved).
    Deviation,
    /// The control polygon barely longer than the chord (Text's glyphs).
    Flatness,
}

/// A shape's Bezier splines with its interpolation settings, in object space.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BezierShape {
    pub splines: Vec<Spline>,
    pub steps: Steps,
    pub optimize: bool,
    /// Which straightness test optimize applies.
    pub straightness: Straightness,
}

impl BezierShape {
    /// Max's `MakePolyShape` with the shape's own steps and optimize flag.
    pub fn polylines(&self) -> Result<Vec<PolyLine>, ShapeError> {
        let steps = match self.steps {
            Steps::Fixed(s) => s,
            Steps::Adaptive => {
                return Err(ShapeError::NotEvaluated(
                    "adaptive spline interpolation".into(),
                ))
            }
        };
        polyline::make_polylines(self, steps, self.optimize)
    }
}

/// A shape as evaluated: its splines (None for a shape made of polylines
/// only, as Helix is) and their interpolation, plus the rendering settings
/// that make a bare shape geometry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShapeEval {
    pub class: String,
    pub shape: Option<BezierShape>,
    pub polylines: Vec<PolyLine>,
    pub render: render_mesh::RenderParams,
}

/// Whether `class` is a shape class this module builds.
pub fn is_shape(class: ClassId) -> bool {
    [
        SPLINE_SHAPE,
        LINE,
        RECTANGLE,
        CIRCLE,
        ARC,
        NGON,
        DONUT,
        STAR,
        HELIX,
        ELLIPSE,
        EGG,
        TEXT,
    ]
    .contains(&class)
}

/// Whether object `obj` is a shape (superclass 0x40), built here or not.
pub fn is_shape_object(eval: &SceneEval, obj: usize) -> bool {
    eval.graph
        .class(obj)
        .is_some_and(|c| c.super_class == SUPERCLASS_SHAPE)
}

/// The Bezier shape of shape object `obj` at time `t` (None: a shape made of
/// polylines only), and its polylines when they are not interpolated from it.
type Built = (Option<BezierShape>, Option<Vec<PolyLine>>);

fn build(eval: &SceneEval, obj: usize, t: i32) -> Result<Built, ShapeError> {
    let class = eval
        .graph
        .class(obj)
        .ok_or_else(|| ShapeError::damaged(format!("object {obj}"), "no class"))?;
    match class.class_id {
        c if c == SPLINE_SHAPE || c == LINE => Ok((Some(bezier_shape::decode(eval, obj)?), None)),
        c if c == EGG => Ok((Some(egg::build(eval, obj, t)?), None)),
        c if c == TEXT => Ok((Some(text::build(eval, obj, t)?), None)),
        c if is_shape(c) => parametric::build(eval, obj, c, t),
        _ => Err(ShapeError::NotEvaluated(format!("shape {}", class.name))),
    }
}

/// The Bezier splines of shape object `obj` at time `t` as built, before
/// interpolation (None: a shape made of polylines only) — for tools that
/// compare a shape with references whatever its interpolation settings.
pub fn bezier_shape(
    eval: &SceneEval,
    obj: usize,
    t: i32,
) -> Result<Option<BezierShape>, ShapeError> {
    Ok(build(eval, obj, t)?.0)
}

/// The evaluated shape of object `obj`: splines, polylines, render settings.
pub fn eval_shape(eval: &SceneEval, obj: usize, t: i32) -> Result<Arc<ShapeEval>, ShapeError> {
    let class = eval
        .graph
        .class(obj)
        .map_or_else(|| "?".to_string(), |c| c.name.clone());
    let (shape, lines) = build(eval, obj, t)?;
    let polylines = match (lines, &shape) {
        (Some(l), _) => l,
        (None, Some(s)) => s.polylines()?,
        (None, None) => Vec::new(),
    };
    let render = render_mesh::RenderParams::read(eval, obj, t)?;
    Ok(Arc::new(ShapeEval {
        class,
        shape,
        polylines,
        render,
    }))
}
