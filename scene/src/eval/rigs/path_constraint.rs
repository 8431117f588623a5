//! The Path Constraint (position controller, class (0x2011, 0) among
//! position controllers; animation.max's "snow man" rides one): the node's
//! world position is a point along one or more spline paths.
//!
//! Stored (3ds Max SDK sample `path_cnstrnt.cpp`, public; read off
//! animation.max): reference 2 is a ParamBlock2 whose parameters are
//! 0 percent (a fraction, 1.0 = 100 %, usually animated by a Linear Float),
//! 1 the legacy single path, 2 follow, 3 bank, 4 bank amount, 5 smoothness,
//! 6 allow upside down, 7 constant velocity (default on), 8 axis, 9 axis
//! flip, 10 the path weights (a float tab), 11 the path nodes (a node tab:
//! block references), 12 loop (default on), 13 relative. Own chunks: 0x1011
//! the base point in local space, 0x1012 in world space, 0x1013 the path
//! count when last evaluated; chunks 0x1002–0x1009 mark a pre-Max 4 path
//! controller.
//!
//! Evaluated as the SDK's `PathPosition::Update`: the percent folded into
//! 0..1 (loop: by its fraction; otherwise clamped), each path's first spline
//! interpolated there (constant velocity: by length, else by segments, see
//! `shape/curve.rs`) and carried to world space by the path's object TM; the
//! paths' weighted average is the world position (no weight at all: the
//! stored world base point). `GetValue` then *sets* the translation of the
//! matrix it is handed (`SetTrans`): in a Position List it replaces what the
//! entries before it built, blended by its list weight (list.rs), and the
//! node keeps its parent's rotation. The paths' Bezier splines are read
//! whatever their interpolation steps (`InterpCurve3D` does not use them).
//!
//! Follow (`CalcRefFrame`): the matrix's rotation is *replaced* by a world
//! frame whose X is the weighted path tangent (the chord between the points
//! 0.001 before and after the percent), Y level in the world XY plane
//! (`Z × X`), Z = X × Y; allow upside down takes Z from the first path's
//! plane normal instead (20 samples around their centre); flip reverses X
//! before the others are built; axis Y or Z turns the frame so that axis
//! runs along the path; bank pre-rotates it about that axis by the averaged
//! curvature of five chords `smoothness · 0.04` apart, times `bank amount ·
//! 100`. The node's own rotation and scale apply on top (PRS pre-rotates);
//! in a Position List the matrix passes through the entries (transform.rs).
//!
//! Not evaluated, refused by name: relative (its initial position is
//! runtime state the file does not keep), follow under a LookAt, a frame
//! the tangent cannot give, bank samples before a closed path's start,
//! paths with modifiers or of a shape class not built here, parameters
//! driven by controllers other than the percent, the weights, bank amount
//! and smoothness, pre-Max 4 data.

use serde::Serialize;

use crate::eval::core::controller::Controller;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock::{self, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::{EvalError, EvalErrorKind};
use crate::eval::objects::shape::{self, curve, Spline};
use crate::typed::ClassId;

/// Path Constraint (superclass [`SC_POSITION`]; the same id is Bezier Color
/// among Point3 controllers).
pub const PATH_CONSTRAINT: ClassId = ClassId(0x2011, 0);
/// Position controllers' superclass.
pub const SC_POSITION: u32 = 0x900b;
/// The controller's reference holding its parameter block.
const BLOCK_REF: u32 = 2;
/// Legacy references: the pre-ParamBlock2 percent controller and single path.
const OLD_PERCENT_REF: u32 = 0;
const OLD_PATH_REF: u32 = 1;
/// The stored world base point (`basePointWorld`).
const BASE_POINT_WORLD: u16 = 0x1012;
/// Chunks only a pre-Max 4 path controller writes (follow, bank, …, flip).
const OLD_VERSION_CHUNKS: std::ops::RangeInclusive<u16> = 0x1002..=0x1009;

/// Parameter ids of the block.
mod param {
    pub const PERCENT: u16 = 0;
    pub const FOLLOW: u16 = 2;
    pub const BANK: u16 = 3;
    pub const BANK_AMOUNT: u16 = 4;
    pub const SMOOTHNESS: u16 = 5;
    pub const ALLOW_UPSIDE_DOWN: u16 = 6;
    pub const CONSTANT_VEL: u16 = 7;
    pub const AXIS: u16 = 8;
    pub const AXIS_FLIP: u16 = 9;
    pub const WEIGHTS: u16 = 10;
    pub const PATHS: u16 = 11;
    pub const LOOP: u16 = 12;
    pub const RELATIVE: u16 = 13;
}

/// One path of the constraint and its weight (as stored, 50 by default).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PathTarget {
    pub node: usize,
    /// The weight when no controller drives it.
    pub weight: f64,
    /// The controller animating the weight, if any.
    pub weight_ctl: Option<usize>,
}

/// A float parameter: its controller, or its constant.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FloatParam {
    pub controller: Option<usize>,
    pub value: f64,
}

/// The follow settings (`CalcRefFrame`), as the user interface shows them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Follow {
    pub bank: bool,
    /// Bank amount as shown (× 100 in the formula; default 0.5).
    pub bank_amount: FloatParam,
    /// Smoothness as shown (× 0.04 of the percent between samples; 0.5).
    pub smoothness: FloatParam,
    pub allow_upside_down: bool,
    /// 0 X, 1 Y, 2 Z: the node axis that runs along the path.
    pub axis: u8,
    pub flip: bool,
}

/// Bank amount and smoothness are scaled in the user interface (the SDK's
/// `BANKSCALE`, `TRACKSCALE`).
const BANK_SCALE: f64 = 100.0;
const TRACK_SCALE: f64 = 0.04;
/// The percent step either side of the node giving the tangent (`DU`).
const TANGENT_STEP: f64 = 0.001;
/// Samples of the bank's curvature average and of the path normal.
const BANK_STEPS: usize = 5;
const NORMAL_SAMPLES: usize = 20;

/// A decoded Path Constraint that is evaluated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathConstraint {
    /// The controller animating the percent (a fraction), if any.
    pub percent: Option<usize>,
    /// The percent when no controller drives it.
    pub percent_value: f64,
    pub paths: Vec<PathTarget>,
    pub constant_velocity: bool,
    /// Percents past 100 % wrap around instead of stopping at the end.
    pub looped: bool,
    /// Where the node sits when no path has weight (chunk 0x1012).
    pub base_point_world: Option<Vec3>,
    /// Follow: the node's rotation is a frame along the path.
    pub follow: Option<Follow>,
    /// The path of the list's first entry: its plane gives allow upside
    /// down's normal (None when that entry is empty).
    pub first_path: Option<usize>,
}

/// Where the constraint puts the node: its world position and, with
/// follow, its world rotation (rows X, Y, Z).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub position: Vec3,
    pub frame: Option<[Vec3; 3]>,
}

impl PathConstraint {
    /// The controllers it reads: the percent, the weights' and (follow)
    /// bank amount's and smoothness's.
    pub fn controllers(&self) -> Vec<usize> {
        let follow = self.follow.iter().flat_map(|f| {
            [f.bank_amount.controller, f.smoothness.controller]
                .into_iter()
                .filter(move |_| f.bank)
        });
        self.percent
            .into_iter()
            .chain(self.paths.iter().filter_map(|p| p.weight_ctl))
            .chain(follow.flatten())
            .collect()
    }
}

/// Whether object `idx` is a Path Constraint.
pub fn is_path_constraint(eval: &SceneEval, idx: usize) -> bool {
    eval.graph
        .class(idx)
        .is_some_and(|c| c.class_id == PATH_CONSTRAINT && c.super_class == SC_POSITION)
}

/// A boolean parameter (absent: `default`); None when it is not a constant.
fn flag(block: &pblock::ParamBlock2, id: u16, default: bool) -> Option<bool> {
    match block.param(id).map(|p| &p.value) {
        None => Some(default),
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::Int(i)) => Some(*i != 0),
        Some(_) => None,
    }
}

/// A float parameter: a constant (absent: `default`) or the controller in
/// its block reference slot; None when it is neither.
fn float_param(
    graph: &crate::graph::SceneGraph,
    pb: usize,
    block: &pblock::ParamBlock2,
    id: u16,
    default: f64,
) -> Option<FloatParam> {
    match block.param(id) {
        None => Some(FloatParam {
            controller: None,
            value: default,
        }),
        Some(p) => match (&p.value, p.ref_slot) {
            (Value::Float(v), _) => Some(FloatParam {
                controller: None,
                value: f64::from(*v),
            }),
            (_, Some(slot)) => Some(FloatParam {
                controller: pblock::reference(graph, pb, slot),
                value: default,
            }),
            _ => None,
        },
    }
}

/// Decodes the follow settings of `block` (follow is on).
fn decode_follow(
    graph: &crate::graph::SceneGraph,
    pb: usize,
    block: &pblock::ParamBlock2,
) -> Result<Follow, EvalError> {
    let refuse = |what: &str| EvalError::not_evaluated(format!("an animated {what} switch"));
    let bank = flag(block, param::BANK, false).ok_or_else(|| refuse("bank"))?;
    let allow_upside_down =
        flag(block, param::ALLOW_UPSIDE_DOWN, false).ok_or_else(|| refuse("allow upside down"))?;
    let flip = flag(block, param::AXIS_FLIP, false).ok_or_else(|| refuse("axis flip"))?;
    let axis = match block.param(param::AXIS).map(|p| &p.value) {
        None => 0,
        Some(Value::Int(i)) if (0..=2).contains(i) => *i as u8,
        Some(Value::Int(i)) => {
            return Err(EvalError::malformed(
                "Path Constraint",
                format!("follow axis {i} (0 X, 1 Y, 2 Z)"),
            ))
        }
        Some(_) => return Err(refuse("axis")),
    };
    let float = |id: u16, name: &str| {
        float_param(graph, pb, block, id, 0.5).ok_or_else(|| {
            EvalError::malformed(
                "Path Constraint",
                format!("{name} is neither a value nor a controller"),
            )
        })
    };
    Ok(Follow {
        bank,
        bank_amount: float(param::BANK_AMOUNT, "bank amount")?,
        smoothness: float(param::SMOOTHNESS, "smoothness")?,
        allow_upside_down,
        axis,
        flip,
    })
}

/// Decodes Path Constraint `idx`: an [`EvalError::NotEvaluated`] names what
/// a valid constraint uses that is not evaluated; other errors are damage.
pub fn decode(eval: &SceneEval, idx: usize) -> Result<PathConstraint, EvalError> {
    let at = || format!("Path Constraint {idx}");
    let graph = &eval.graph;
    let chunks = eval.chunks(idx);
    if chunks.iter().any(|c| OLD_VERSION_CHUNKS.contains(&c.id))
        || pblock::reference(graph, idx, OLD_PERCENT_REF).is_some()
        || pblock::reference(graph, idx, OLD_PATH_REF).is_some()
    {
        return Err(EvalError::not_evaluated("pre-Max 4 path controller data"));
    }
    let pb = pblock::reference(graph, idx, BLOCK_REF)
        .ok_or_else(|| EvalError::reference(at(), "no parameter block (reference 2)"))?;
    let block = pblock::param_block2(eval.chunks(pb)).map_err(|e| e.inside(at()))?;
    let refuse = |what: &str| Err(EvalError::not_evaluated(what));

    let follow = match flag(&block, param::FOLLOW, false) {
        Some(false) => None,
        Some(true) => Some(decode_follow(graph, pb, &block)?),
        None => return refuse("an animated follow switch"),
    };
    match flag(&block, param::RELATIVE, false) {
        Some(false) => {}
        Some(true) => return refuse("relative mode"),
        None => return refuse("an animated relative switch"),
    }
    let Some(constant_velocity) = flag(&block, param::CONSTANT_VEL, true) else {
        return refuse("an animated constant velocity switch");
    };
    let Some(looped) = flag(&block, param::LOOP, true) else {
        return refuse("an animated loop switch");
    };

    // The percent: a controller in its slot, or a constant.
    let (percent, percent_value) = match block.param(param::PERCENT) {
        None => (None, 0.0),
        Some(p) => match (&p.value, p.ref_slot) {
            (Value::Float(v), _) => (None, f64::from(*v)),
            (_, Some(slot)) => (pblock::reference(graph, pb, slot), 0.0),
            _ => {
                return Err(EvalError::malformed(
                    at(),
                    "percent (parameter 0) is neither a value nor a controller",
                ))
            }
        },
    };

    // Paths and weights, element by element (Max skips empty entries).
    let slots: &[u32] = match block.param(param::PATHS).map(|p| &p.value) {
        Some(Value::RefTab(s)) => s,
        None => &[],
        Some(Value::IntTab(v)) if v.is_empty() => &[],
        Some(_) => return refuse("a path list stored inline"),
    };
    // Each weight: a constant, or the block slot of its controller.
    let weights: Vec<(f64, Option<u32>)> = match block.param(param::WEIGHTS).map(|p| &p.value) {
        Some(Value::FloatTab(w)) => w.iter().map(|&x| (f64::from(x), None)).collect(),
        Some(Value::ControlledTab(w)) => {
            let mut out = Vec::with_capacity(w.len());
            for e in w {
                out.push(match e {
                    pblock::TabElement::Float(x) => (f64::from(*x), None),
                    pblock::TabElement::Slot(s) => (0.0, Some(*s)),
                    _ => return refuse("path weights of this kind"),
                });
            }
            out
        }
        None => Vec::new(),
        Some(_) => return refuse("path weights of this kind"),
    };
    if weights.len() != slots.len() {
        return Err(EvalError::malformed(
            at(),
            format!("{} path weights for {} paths", weights.len(), slots.len()),
        ));
    }
    // A reference beyond the slots the parameters own is a parameter driven
    // by a controller (an animated weight, bank amount, …): not read here.
    let owned = block
        .params
        .iter()
        .filter_map(|p| p.ref_slot)
        .chain(slots.iter().copied())
        .chain(weights.iter().filter_map(|w| w.1))
        .max()
        .map_or(0, |m| m + 1);
    if let Some(extra) = graph.objects.get(pb).and_then(|o| {
        o.references
            .iter()
            .find(|r| r.target >= 0 && r.slot >= owned)
    }) {
        return Err(EvalError::not_evaluated(format!(
            "a parameter driven by a controller (block reference {})",
            extra.slot
        )));
    }
    let mut paths = Vec::new();
    let mut first_path = None;
    for (k, (&slot, &(weight, weight_slot))) in slots.iter().zip(&weights).enumerate() {
        let Some(node) = pblock::reference(graph, pb, slot) else {
            continue;
        };
        if k == 0 {
            first_path = Some(node);
        }
        if graph
            .objects
            .get(node)
            .and_then(|o| o.node.as_ref())
            .is_none()
        {
            return Err(EvalError::reference(
                at(),
                format!("path {node} is not a node"),
            ));
        }
        if !weight.is_finite() {
            return Err(EvalError::malformed(at(), format!("path weight {weight}")));
        }
        path_supported(eval, node)?;
        // The weight accessor clamps negative weights to 0.
        paths.push(PathTarget {
            node,
            weight: weight.max(0.0),
            weight_ctl: weight_slot.and_then(|s| pblock::reference(graph, pb, s)),
        });
    }
    let base_point_world = chunks
        .iter()
        .find(|c| c.id == BASE_POINT_WORLD)
        .and_then(|c| c.payload())
        .filter(|p| p.len() == 12)
        .map(|p| {
            let w = crate::eval::core::keys::Words(p);
            Vec3(w.f(0), w.f(1), w.f(2))
        })
        .filter(|v| v.0.is_finite() && v.1.is_finite() && v.2.is_finite());
    Ok(PathConstraint {
        percent,
        percent_value,
        paths,
        constant_velocity,
        looped,
        base_point_world,
        follow,
        first_path,
    })
}

/// Whether a path node's shape is one this evaluation interpolates: a shape
/// class built here, without modifiers (Max follows the evaluated shape).
fn path_supported(eval: &SceneEval, node: usize) -> Result<(), EvalError> {
    curve_supported(eval, node, "path")
}

/// Whether `node`'s shape is a curve this evaluation interpolates (a shape
/// class built here, no modifiers); `what` names the node's role in the
/// refusal ("path", "spline IK shape").
pub(crate) fn curve_supported(eval: &SceneEval, node: usize, what: &str) -> Result<(), EvalError> {
    let name = eval.graph.node_name(node);
    let (stack, base) = eval
        .modifier_stack(node)
        .ok_or_else(|| EvalError::reference(format!("{what} \"{name}\""), "no object"))?;
    let class = eval.graph.class(base);
    let Some(class) = class.filter(|c| c.super_class == shape::SUPERCLASS_SHAPE) else {
        return Err(EvalError::not_evaluated(format!(
            "{what} \"{name}\" that is not a shape"
        )));
    };
    if !shape::is_shape(class.class_id) || class.class_id == shape::HELIX {
        return Err(EvalError::not_evaluated(format!(
            "{what} \"{name}\" of shape class {}",
            class.name
        )));
    }
    if !stack.is_empty() {
        return Err(EvalError::not_evaluated(format!(
            "{what} \"{name}\" with modifiers"
        )));
    }
    Ok(())
}

/// `GetPercent`: the percent at `t` folded into 0..1.
pub fn percent(eval: &SceneEval, p: &PathConstraint, t: i32) -> f64 {
    let mut u = eval.float_at(p.percent, t, p.percent_value);
    if u.is_nan() {
        return 0.0;
    }
    if p.looped {
        if u > 1.0 {
            u -= u.floor();
            if u == 0.0 {
                u = 1.0;
            }
        }
        if u < 0.0 {
            u -= u.floor();
        }
        u
    } else {
        u.clamp(0.0, 1.0)
    }
}

/// A path's first spline and the matrix carrying it to world space.
struct WorldCurve<'a> {
    spline: &'a Spline,
    tm: Mat43,
    by_length: bool,
}

impl WorldCurve<'_> {
    /// `InterpCurve3D` · object TM.
    fn at(&self, u: f64) -> Result<Vec3, EvalError> {
        curve::interp(self.spline, u, self.by_length)
            .map(|p| self.tm.transform_point(p))
            .ok_or_else(|| EvalError::not_evaluated_why("path", "its first spline has no knot"))
    }
}

/// Where the constraint places its node at `t`. `world_of(node)` is the
/// world TM of a path node (the caller bounds how deep that recursion goes).
pub fn place(
    eval: &SceneEval,
    p: &PathConstraint,
    t: i32,
    world_of: &mut dyn FnMut(usize) -> Mat43,
) -> Result<Placement, EvalError> {
    let u = percent(eval, p, t);
    let mut sum = Vec3::default();
    let mut tangent = Vec3::default();
    let mut total = 0.0;
    let mut normal = Vec3::default();
    let mut bank = None;
    for path in &p.paths {
        let weight = eval.float_at(path.weight_ctl, t, path.weight).max(0.0);
        total += weight;
        // Only the Bezier splines: `InterpCurve3D` does not read the
        // shape's interpolation steps (adaptive ones included).
        let obj = eval
            .node_object(path.node)
            .ok_or_else(|| EvalError::not_evaluated("path without a shape"))?;
        let shape = shape::bezier_shape(eval, obj, t)?;
        let spline = shape
            .as_ref()
            .and_then(|s| s.splines.first())
            .ok_or_else(|| EvalError::not_evaluated_why("path", "it has no spline"))?;
        let curve = WorldCurve {
            spline,
            tm: eval.offset_tm(path.node).then(&world_of(path.node)),
            by_length: p.constant_velocity,
        };
        sum = sum.plus(curve.at(u)?.scale(weight));
        let Some(follow) = &p.follow else {
            continue;
        };
        if follow.allow_upside_down && p.first_path == Some(path.node) {
            normal = plane_normal(&curve)?;
        }
        let chord = curve
            .at(u + TANGENT_STEP)?
            .minus(curve.at(u - TANGENT_STEP)?);
        tangent = tangent.plus(chord.scale(weight));
        // The last path's curvature banks the frame.
        if follow.bank {
            let amount = eval.float_at(follow.bank_amount.controller, t, follow.bank_amount.value);
            let smooth = eval.float_at(follow.smoothness.controller, t, follow.smoothness.value);
            bank = bank_angle(&curve, u, amount * BANK_SCALE, smooth * TRACK_SCALE)?;
        }
    }
    let position = if total > 0.0 {
        sum.scale(1.0 / total)
    } else {
        p.base_point_world.ok_or_else(|| {
            EvalError::not_evaluated_why("Path Constraint", "no weighted path and no base point")
        })?
    };
    let frame = match &p.follow {
        None => None,
        Some(follow) => Some(frame(follow, tangent, normal, bank).ok_or_else(|| {
            EvalError::not_evaluated_why(
                "follow",
                "the path tangent gives no frame (no weighted path, a zero tangent, or one along the world Z without allow upside down)",
            )
        })?),
    };
    Ok(Placement { position, frame })
}

/// The normal of the path's plane (`Update`, allow upside down): the sum
/// of the unit normals of the triangles each pair of 20 samples at percents
/// k/20 makes with their centre.
fn plane_normal(curve: &WorldCurve) -> Result<Vec3, EvalError> {
    let mut v = Vec::with_capacity(NORMAL_SAMPLES);
    for j in 0..NORMAL_SAMPLES {
        v.push(curve.at(j as f64 / NORMAL_SAMPLES as f64)?);
    }
    let center = v
        .iter()
        .fold(Vec3::default(), |a, &b| a.plus(b))
        .scale(1.0 / NORMAL_SAMPLES as f64);
    let n = v.windows(2).fold(Vec3::default(), |a, w| {
        a.plus(w[1].minus(center).cross(w[0].minus(center)).normalized())
    });
    Ok(n.normalized())
}

/// The bank angle (`CalcRefFrame`): the mean over up to five steps of the
/// signed turn between successive chords seen from above (Z dropped after
/// normalising), each divided by the chord's length and times `amount`;
/// `track` is the percent between samples. None when no step fits (an open
/// path whose samples run past its end at once).
fn bank_angle(
    curve: &WorldCurve,
    u: f64,
    amount: f64,
    track: f64,
) -> Result<Option<f64>, EvalError> {
    let closed = curve.spline.closed;
    let mut u = u - (BANK_STEPS / 2 + 1) as f64 * track;
    if !closed {
        if u + (BANK_STEPS + 2) as f64 * track > 1.0 {
            u = 1.0 - (BANK_STEPS + 2) as f64 * track;
        }
        if u < 0.0 {
            u = 0.0;
        }
    }
    // A closed path's samples may start before 0 (the SDK wraps only those
    // past 1); how Max's spline reads a negative percent is not public.
    if closed && u < 0.0 {
        return Err(EvalError::not_evaluated_why(
            "bank",
            "its samples start before a closed path's first knot",
        ));
    }
    let mut p1 = curve.at(u)?;
    u += track;
    let mut p2 = curve.at(u)?;
    u += track;
    let mut cv = 0.0;
    let mut steps = 0;
    while steps < BANK_STEPS {
        let p0 = p1;
        p1 = p2;
        if !closed && u > 1.0 {
            break;
        }
        u %= 1.0;
        p2 = curve.at(u)?;
        let flat = |v: Vec3| {
            let n = v.normalized();
            Vec3(n.0, n.1, 0.0)
        };
        let (v0, v1) = (flat(p2.minus(p1)), flat(p1.minus(p0)));
        cv += v0.cross(v1).2 * amount / p1.minus(p0).len();
        u += track;
        steps += 1;
    }
    Ok((steps > 0).then(|| cv / steps as f64))
}

/// The follow frame (rows X, Y, Z) from the weighted tangent, the first
/// path's plane normal (allow upside down) and the bank angle; None when
/// the tangent gives no orthonormal frame.
fn frame(f: &Follow, tangent: Vec3, normal: Vec3, bank: Option<f64>) -> Option<[Vec3; 3]> {
    let mut x = tangent.normalized();
    if f.flip {
        x = x.scale(-1.0);
    }
    let (y, z) = if f.allow_upside_down {
        let z = x.cross(normal).normalized();
        (z.cross(x), z)
    } else {
        let y = Vec3(0.0, 0.0, 1.0).cross(x).normalized();
        (y, x.cross(y))
    };
    let rows = match f.axis {
        1 => [y.scale(-1.0), x, z],
        2 => [z.scale(-1.0), y, x],
        _ => [x, y, z],
    };
    let m = Mat43([rows[0], rows[1], rows[2], Vec3::default()]);
    let m = match bank {
        Some(a) if f.bank => {
            let a = if f.flip { -a } else { a };
            let r = match f.axis {
                1 => Mat43::rot_y(a),
                2 => Mat43::rot_z(a),
                _ => Mat43::rot_x(a),
            };
            r.then(&m)
        }
        _ => m,
    };
    let orthonormal = (m.determinant3() - 1.0).abs() < 1e-6
        && m.0[..3].iter().all(|r| (r.len() - 1.0).abs() < 1e-6);
    orthonormal.then(|| [m.0[0], m.0[1], m.0[2]])
}

/// The controller cache's step for Path Constraints (the class id alone is
/// Bezier Color's too, so `controller::decode` leaves it unsupported): the
/// decoded constraint, or [`Controller::Unsupported`] naming what is not
/// evaluated.
pub(crate) fn resolve(
    eval: &SceneEval,
    idx: usize,
    c: Controller,
) -> Result<Controller, EvalError> {
    if !is_path_constraint(eval, idx) {
        return Ok(c);
    }
    let class = eval
        .graph
        .class(idx)
        .map_or_else(|| "Path Constraint".to_string(), |c| c.name.clone());
    match decode(eval, idx) {
        Ok(p) => Ok(Controller::PathConstraint(p)),
        Err(e) if e.kind() == EvalErrorKind::NotEvaluated => Ok(Controller::Unsupported {
            class: format!("{class} ({e})"),
        }),
        Err(e) => Err(e),
    }
}

/// Whether the constraint places its node at `t`: the reason coverage names
/// when a path's shape cannot be interpolated.
pub fn check(eval: &SceneEval, p: &PathConstraint, t: i32) -> Result<(), EvalError> {
    place(eval, p, t, &mut |n| eval.world_tm(n, t)).map(|_| ())
}

#[cfg(test)]
mod tests {
    //! Expected values follow from the SDK sample's `CalcRefFrame` and
    //! `Update` text (path_cnstrnt.cpp), worked by hand.
    use super::*;
    use crate::eval::objects::shape::Knot;

    fn follow() -> Follow {
        Follow {
            bank: false,
            bank_amount: FloatParam {
                controller: None,
                value: 0.5,
            },
            smoothness: FloatParam {
                controller: None,
                value: 0.5,
            },
            allow_upside_down: false,
            axis: 0,
            flip: false,
        }
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        a.minus(b).len() < 1e-9
    }

    fn rows_are(f: [Vec3; 3], want: [Vec3; 3]) {
        for (a, b) in f.iter().zip(&want) {
            assert!(close(*a, *b), "{f:?} != {want:?}");
        }
    }

    /// A circle of radius `r` about the origin in the XY plane, counter-
    /// clockwise from (r, 0, 0): four Bezier knots, handles 4/3·tan(π/8)·r.
    fn circle(r: f64) -> Spline {
        let k = 4.0 / 3.0 * (std::f64::consts::PI / 8.0).tan() * r;
        let knot = |x: f64, y: f64| {
            // The tangent direction at (x, y) counter-clockwise: (−y, x)/r.
            let t = Vec3(-y / r * k, x / r * k, 0.0);
            let p = Vec3(x, y, 0.0);
            Knot::bezier(p, p.minus(t), p.plus(t))
        };
        Spline {
            knots: vec![knot(r, 0.0), knot(0.0, r), knot(-r, 0.0), knot(0.0, -r)],
            closed: true,
        }
    }

    #[test]
    fn default_frame_runs_x_along_the_tangent_and_keeps_y_level() {
        let f = follow();
        let (x, y, z) = (
            Vec3(1.0, 0.0, 0.0),
            Vec3(0.0, 1.0, 0.0),
            Vec3(0.0, 0.0, 1.0),
        );
        rows_are(
            frame(&f, x.scale(3.0), Vec3::default(), None).unwrap(),
            [x, y, z],
        );
        // Along +Y: Y = world Z × X = −X.
        rows_are(
            frame(&f, y, Vec3::default(), None).unwrap(),
            [y, x.scale(-1.0), z],
        );
        // Climbing at 45°: Y stays level, Z = X × Y leans back.
        let s = 0.5f64.sqrt();
        rows_are(
            frame(&f, Vec3(1.0, 0.0, 1.0), Vec3::default(), None).unwrap(),
            [Vec3(s, 0.0, s), y, Vec3(-s, 0.0, s)],
        );
        // Straight up: Z × X vanishes, no frame.
        assert!(frame(&f, z, Vec3::default(), None).is_none());
        assert!(frame(&f, Vec3::default(), Vec3::default(), None).is_none());
    }

    #[test]
    fn flip_and_axis_turn_the_frame() {
        let (x, y, z) = (
            Vec3(1.0, 0.0, 0.0),
            Vec3(0.0, 1.0, 0.0),
            Vec3(0.0, 0.0, 1.0),
        );
        let flipped = Follow {
            flip: true,
            ..follow()
        };
        // X reversed first, then Y = Z × X.
        rows_are(
            frame(&flipped, x, Vec3::default(), None).unwrap(),
            [x.scale(-1.0), y.scale(-1.0), z],
        );
        // Axis Y: rows (−Y, X, Z), the node's Y runs along the path.
        let axis_y = Follow {
            axis: 1,
            ..follow()
        };
        rows_are(
            frame(&axis_y, x, Vec3::default(), None).unwrap(),
            [y.scale(-1.0), x, z],
        );
        // Axis Z: rows (−Z, Y, X).
        let axis_z = Follow {
            axis: 2,
            ..follow()
        };
        rows_are(
            frame(&axis_z, x, Vec3::default(), None).unwrap(),
            [z.scale(-1.0), y, x],
        );
    }

    #[test]
    fn allow_upside_down_takes_z_from_the_path_plane() {
        let curve = WorldCurve {
            spline: &circle(10.0),
            tm: Mat43::IDENTITY,
            by_length: true,
        };
        // Samples run counter-clockwise: (v[j] − c) × (v[j−1] − c) is −Z.
        let n = plane_normal(&curve).unwrap();
        assert!(close(n, Vec3(0.0, 0.0, -1.0)), "{n:?}");
        let f = Follow {
            allow_upside_down: true,
            ..follow()
        };
        // At (10, 0, 0) heading +Y: Z = X × N = −X (towards the centre),
        // Y = Z × X = −Z.
        rows_are(
            frame(&f, Vec3(0.0, 1.0, 0.0), n, None).unwrap(),
            [
                Vec3(0.0, 1.0, 0.0),
                Vec3(0.0, 0.0, -1.0),
                Vec3(-1.0, 0.0, 0.0),
            ],
        );
    }

    #[test]
    fn bank_is_the_mean_turn_per_length_times_the_amount() {
        let r = 10.0;
        let curve = WorldCurve {
            spline: &circle(r),
            tm: Mat43::IDENTITY,
            by_length: true,
        };
        let (amount, track) = (2.0 * BANK_SCALE, 0.5 * TRACK_SCALE);
        // Each step turns 2π·track counter-clockwise; (v0 × v1).z is
        // −sin of that turn, over the chord 2r·sin(turn / 2).
        let turn = 2.0 * std::f64::consts::PI * track;
        let want = -(turn.sin()) * amount / (2.0 * r * (turn / 2.0).sin());
        for u in [0.3, 0.5, 0.9] {
            let got = bank_angle(&curve, u, amount, track).unwrap().unwrap();
            assert!(
                (got - want).abs() < 2e-3 * want.abs(),
                "{u}: {got} vs {want}"
            );
        }
        // A straight open path does not bank.
        let mut line = Spline {
            knots: vec![
                Knot::corner(Vec3(0.0, 0.0, 0.0)),
                Knot::corner(Vec3(5.0, 5.0, 1.0)),
            ],
            closed: false,
        };
        line.compute_corners();
        let straight = WorldCurve {
            spline: &line,
            tm: Mat43::IDENTITY,
            by_length: true,
        };
        let got = bank_angle(&straight, 0.5, amount, track).unwrap().unwrap();
        assert!(got.abs() < 1e-9);
        // Samples that run past an open path's end at once: no step.
        let got = bank_angle(&straight, 0.5, amount, 0.6).unwrap();
        assert_eq!(got, None);
    }

    #[test]
    fn bank_pre_rotates_about_the_path_axis_and_flip_reverses_it() {
        let a: f64 = 0.3;
        let f = Follow {
            bank: true,
            ..follow()
        };
        let (s, c) = a.sin_cos();
        // RotateXMatrix(a) · frame: X kept, Y and Z turn about it.
        rows_are(
            frame(&f, Vec3(1.0, 0.0, 0.0), Vec3::default(), Some(a)).unwrap(),
            [Vec3(1.0, 0.0, 0.0), Vec3(0.0, c, s), Vec3(0.0, -s, c)],
        );
        let flipped = Follow { flip: true, ..f };
        // Flipped: X = −X, Y = −Y, Z = Z, turned by −a.
        rows_are(
            frame(&flipped, Vec3(1.0, 0.0, 0.0), Vec3::default(), Some(a)).unwrap(),
            [Vec3(-1.0, 0.0, 0.0), Vec3(0.0, -c, -s), Vec3(0.0, -s, c)],
        );
    }
}
