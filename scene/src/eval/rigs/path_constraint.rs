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
//! node keeps its parent's rotation.
//!
//! Not evaluated, refused by name: follow (it replaces the node's rotation
//! by a frame along the tangent; bank, axis and allow upside down only act
//! through it), relative (its initial position is runtime state the file
//! does not keep), paths with modifiers or of a shape class not built here,
//! parameters driven by controllers other than the percent, pre-Max 4 data.

use serde::Serialize;

use crate::eval::core::controller::Controller;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock::{self, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::{EvalError, EvalErrorKind};
use crate::eval::objects::shape::{self, curve};
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
    pub const CONSTANT_VEL: u16 = 7;
    pub const WEIGHTS: u16 = 10;
    pub const PATHS: u16 = 11;
    pub const LOOP: u16 = 12;
    pub const RELATIVE: u16 = 13;
}

/// One path of the constraint and its weight (as stored, 50 by default).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PathTarget {
    pub node: usize,
    pub weight: f64,
}

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
}

/// Whether object `idx` is a Path Constraint.
pub fn is_path_constraint(eval: &SceneEval, idx: usize) -> bool {
    eval.graph
        .objects
        .get(idx)
        .and_then(|o| o.class.as_ref())
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

    match flag(&block, param::FOLLOW, false) {
        Some(false) => {}
        Some(true) => return refuse("follow (rotation along the path)"),
        None => return refuse("an animated follow switch"),
    }
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
    let weights: Vec<f64> = match block.param(param::WEIGHTS).map(|p| &p.value) {
        Some(Value::FloatTab(w)) => w.iter().map(|&x| f64::from(x)).collect(),
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
    for (&slot, &weight) in slots.iter().zip(&weights) {
        let Some(node) = pblock::reference(graph, pb, slot) else {
            continue;
        };
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
    let class = eval.graph.objects.get(base).and_then(|o| o.class.as_ref());
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

/// The world position the constraint gives at `t`. `world_of(node)` is the
/// world TM of a path node (the caller bounds how deep that recursion goes).
pub fn world_position(
    eval: &SceneEval,
    p: &PathConstraint,
    t: i32,
    world_of: &mut dyn FnMut(usize) -> Mat43,
) -> Result<Vec3, EvalError> {
    let u = percent(eval, p, t);
    let mut sum = Vec3::default();
    let mut total = 0.0;
    for path in &p.paths {
        total += path.weight;
        let shape = eval
            .shape(path.node, t)
            .ok_or_else(|| EvalError::not_evaluated("path without a shape"))??;
        let spline = shape
            .shape
            .as_ref()
            .and_then(|s| s.splines.first())
            .ok_or_else(|| EvalError::not_evaluated_why("path", "it has no spline"))?;
        let local = curve::interp(spline, u, p.constant_velocity)
            .ok_or_else(|| EvalError::not_evaluated_why("path", "its first spline has no knot"))?;
        let object_tm = eval.offset_tm(path.node).then(&world_of(path.node));
        sum = sum.plus(object_tm.transform_point(local).scale(path.weight));
    }
    if total > 0.0 {
        Ok(sum.scale(1.0 / total))
    } else {
        p.base_point_world.ok_or_else(|| {
            EvalError::not_evaluated_why("Path Constraint", "no weighted path and no base point")
        })
    }
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
        .objects
        .get(idx)
        .and_then(|o| o.class.as_ref())
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
    world_position(eval, p, t, &mut |n| eval.world_tm(n, t)).map(|_| ())
}
