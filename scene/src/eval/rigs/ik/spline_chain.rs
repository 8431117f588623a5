//! Spline IK chains as a scene stores them, built into the spline solver's
//! input ([`super::spline`]). A spline IK chain is an IKChainControl like a
//! HI chain (start and end joint, solver name `"SplineIKSolver"`, IKControl
//! joints with rest offsets and angles); its goal is a shape node picked in
//! the chain's block. Parameter ids are `IIKChainControl::SplineIKParams` of
//! the public SDK header `iiksys.h`: 20 the shape node, 27 and 28 the start
//! and end twist angles, 41 and 42 the up node and whether it is used.
//!
//! The curve is the shape's first spline as this crate evaluates it (object
//! space, `shape/curve.rs`), carried into chain space by the shape node's
//! object TM. What the IK system builds around the solver is \[CORE\]
//! (seed 000 §5); the choices made here are listed in docs/ik.md
//! ("Spline IK chains in a scene"). Not evaluated, refused by name: an up
//! node in use, a shape with modifiers or of a class not built here (a NURBS
//! curve), a twist angle driven by a controller that is not a float.

use crate::eval::core::controller::{euler_matrix, Controller};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock::{self, ParamBlock2, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::eval::objects::shape::{curve, Spline};
use crate::eval::rigs::path_constraint::curve_supported;
use crate::graph::SceneGraph;

use super::chain::{default_zero_map, ChainPose, SceneChain};
use super::primitives::{p3, M3, P3};
use super::spline::{self, SplineChain, SplineJoint, SplinePath};

/// The solver name IKChainControl stores for the spline IK solver (the
/// SDK sample's class and internal name).
pub const SPLINE_SOLVER: &str = "SplineIKSolver";

/// `kPickShape`: the shape node the chain follows.
const P_PICK_SHAPE: u16 = 20;
/// `kTwistHStartAngle`, `kTwistHEndAngle` (animatable angles).
const P_TWIST_START: u16 = 27;
const P_TWIST_END: u16 = 28;
/// `kUseUpnode` (bool): an up node replaces the default twist reference.
const P_USE_UP_NODE: u16 = 42;

/// An animatable angle of the block: its controller (none when constant)
/// and stored value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Angle {
    pub controller: Option<usize>,
    pub value: f32,
}

/// What a spline IK chain's block adds to a chain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplineGoal {
    /// The picked shape node (none: no shape picked).
    pub shape: Option<usize>,
    pub start_twist: Angle,
    pub end_twist: Angle,
    /// `kUseUpnode` is on.
    pub use_up_node: bool,
}

fn angle(graph: &SceneGraph, pb: usize, block: &ParamBlock2, id: u16) -> Angle {
    let p = block.param(id);
    Angle {
        controller: p
            .and_then(|p| p.ref_slot)
            .and_then(|slot| pblock::reference(graph, pb, slot)),
        value: match p.map(|p| &p.value) {
            Some(Value::Float(f)) => *f,
            _ => 0.0,
        },
    }
}

/// The spline IK parameters of IKChainControl block `block` (object `pb`).
pub(crate) fn read_goal(graph: &SceneGraph, pb: usize, block: &ParamBlock2) -> SplineGoal {
    let shape = match block.param(P_PICK_SHAPE) {
        Some(p) => match &p.value {
            Value::Object(i) => usize::try_from(*i).ok(),
            _ => p
                .ref_slot
                .and_then(|slot| pblock::reference(graph, pb, slot))
                .filter(|&n| graph.objects.get(n).is_some_and(|o| o.node.is_some())),
        },
        None => None,
    };
    SplineGoal {
        shape,
        start_twist: angle(graph, pb, block, P_TWIST_START),
        end_twist: angle(graph, pb, block, P_TWIST_END),
        use_up_node: matches!(
            block.param(P_USE_UP_NODE).map(|p| &p.value),
            Some(Value::Bool(true))
        ),
    }
}

/// The curve the solver samples: a spline of the shape, object space,
/// `SplinePosAt(u)` taken as `InterpCurve3D`'s default (by segments).
struct ShapePath<'a> {
    spline: &'a Spline,
}

impl SplinePath for ShapePath<'_> {
    fn pos_at(&self, u: f32) -> P3 {
        // The spline has knots (checked before the solve).
        curve::interp(self.spline, f64::from(u), false)
            .map_or(P3::ZERO, |v| p3(v.0 as f32, v.1 as f32, v.2 as f32))
    }

    fn closed(&self) -> bool {
        self.spline.closed
    }
}

fn to_f32(m: &Mat43) -> M3 {
    M3 {
        m: m.rows().map(|row| row.map(|x| x as f32)),
    }
}

fn vec3(p: P3) -> Vec3 {
    Vec3::from_f32([p.x, p.y, p.z])
}

fn euler(p: P3) -> Mat43 {
    euler_matrix(0, [p.x.into(), p.y.into(), p.z.into()])
}

/// `RotX · RotY · RotZ` in the solver's primitives: what the joint iterator's
/// pre-rotations (z, then y, then x) put before a proximal frame.
fn euler_m3(a: P3) -> M3 {
    M3::rotate_axis(0, a.x)
        .mul(&M3::rotate_axis(1, a.y))
        .mul(&M3::rotate_axis(2, a.z))
}

/// The joint iterator's data for a chain at its rest pose, in chain space
/// (origin at the start joint, axes of its parent): one joint per bone, the
/// end joint being the last bone's distal end. Each joint turns about x, y
/// and z (Euler XYZ, as its IKControl stores its rest angles).
pub fn joints(rest: &[(P3, P3)]) -> Vec<SplineJoint> {
    let mut out = Vec::with_capacity(rest.len().saturating_sub(1));
    let mut proximal = M3::IDENTITY;
    for k in 0..rest.len().saturating_sub(1) {
        let full = euler_m3(rest[k].1).mul(&proximal);
        let next = M3::translation(rest[k + 1].0).mul(&full);
        out.push(SplineJoint {
            proximal_frame: proximal,
            axes: *b"xyz",
            angles: rest[k].1,
            pivot: proximal.trans(),
            distal_end: next.trans(),
        });
        proximal = next;
    }
    out
}

/// Whether the chain's static inputs are ones this evaluation reads: a
/// picked shape of a class built here without modifiers, no up node, twist
/// angles constant or driven by float controllers, at least one bone.
pub fn check(eval: &SceneEval, c: &SceneChain, g: &SplineGoal) -> Result<(), EvalError> {
    if g.use_up_node {
        return Err(EvalError::not_evaluated(
            "spline IK up node (kUseUpnode, parameter 42)",
        ));
    }
    let node = g.shape.ok_or_else(|| {
        EvalError::not_evaluated_why("spline IK chain", "no shape picked (parameter 20)")
    })?;
    curve_supported(eval, node, "spline IK shape")?;
    if c.joints.len() < 2 {
        return Err(EvalError::malformed(
            "",
            format!("spline IK chain of {} joint", c.joints.len()),
        ));
    }
    for (what, a) in [("start", g.start_twist), ("end", g.end_twist)] {
        if let Some(ctl) = a.controller {
            if !matches!(eval.controller(ctl), Some(Controller::Float { .. })) {
                return Err(EvalError::not_evaluated(format!(
                    "spline IK {what} twist angle controller (object {ctl})"
                )));
            }
        }
    }
    Ok(())
}

/// Solves chain `c` onto its shape at `t`: each joint's world and local
/// transform (the end joint keeps its rest angles), and the points the
/// solver found on the curve (world).
pub fn solve_at(
    eval: &SceneEval,
    c: &SceneChain,
    g: &SplineGoal,
    parent: &Mat43,
    t: i32,
) -> Result<ChainPose, EvalError> {
    check(eval, c, g)?;
    let node = g
        .shape
        .ok_or_else(|| EvalError::not_evaluated("no shape"))?;
    let shape = eval
        .shape(node, t)
        .ok_or_else(|| EvalError::not_evaluated("spline IK shape without a shape object"))??;
    let spline = shape
        .shape
        .as_ref()
        .and_then(|s| s.splines.first())
        .filter(|s| !s.knots.is_empty())
        .ok_or_else(|| EvalError::not_evaluated_why("spline IK shape", "it has no knot"))?;
    let root = Mat43::translation(vec3(c.rest[0].0)).then(parent);
    let parent_matrix = to_f32(&root);
    let twist = |a: Angle| eval.float_at(a.controller, t, f64::from(a.value)) as f32;
    let chain = SplineChain {
        joints: joints(&c.rest),
        parent_matrix,
        twist_parent: M3::IDENTITY,
        goal_object_tm: to_f32(&eval.offset_tm(node).then(&eval.world_tm(node, t))),
        start_twist: twist(g.start_twist),
        end_twist: twist(g.end_twist),
    };
    // The zero map: rule B of the default map about the start joint's rest
    // Z axis (chain space), handed out in world space (chain space carried by
    // the parent matrix) with an identity twist parent, so that the solver's
    // twist and chain up vectors both come back as that chain-space normal.
    let n0 = euler_m3(c.rest[0].1).row(2);
    let zero_map = move |e: P3| default_zero_map(n0, e).vector_transform(&parent_matrix);
    let path = ShapePath { spline };
    let solution = spline::solve(&chain, &path, &zero_map)?;
    let finite = |p: &P3| p.x.is_finite() && p.y.is_finite() && p.z.is_finite();
    let bones = chain.joints.len();
    if solution.angles.len() != bones || !solution.angles.iter().all(finite) {
        return Err(EvalError::malformed(
            format!("t={t}"),
            "the spline IK solve gave no or non-finite angles",
        ));
    }
    let mut local = Vec::with_capacity(c.rest.len());
    for (k, (offset, rest_rot)) in c.rest.iter().enumerate() {
        let rot = solution.angles.get(k).copied().unwrap_or(*rest_rot);
        local.push(euler(rot).then(&Mat43::translation(vec3(*offset))));
    }
    let mut joints = Vec::with_capacity(local.len());
    let mut up = *parent;
    for l in &local {
        up = l.then(&up);
        joints.push(up);
    }
    let curve_points: Vec<Vec3> = solution
        .points
        .iter()
        .map(|(_, p)| root.transform_point(vec3(*p)))
        .collect();
    Ok(ChainPose {
        joints,
        goal: curve_points.last().copied().unwrap_or_default(),
        local,
        curve_points,
    })
}
