//! HI and IK Limb chains as a scene stores them, built into solver input: the
//! IKChainControl (the goal node's transform controller) names its solver, its
//! start and end joints and owns the goal's own PRS; each joint's IKControl
//! keeps the joint's rest offset and rest angles. The pieces of Max's LinkChain
//! construction that are \[CORE\] (seed 000 §5) follow Max's published
//! description: the default zero plane map of the HI solver white paper (rules
//! A and B), the swivel parent space of `kSAParent`. An IK Limb chain goes
//! through the same computation ([`super::limb`] says why and what it
//! refuses). [`super::plug`] puts the solved joints into transform evaluation.

use crate::eval::error::EvalError;
use crate::typed::ClassId;

use super::hi_limb::{self, HiChain, HiGoal, Link, RootLink, Swivel};
use super::hi_solver;
use super::joint_flags::JointFlags;
use super::limb::{self, LIMB_SOLVER};
use super::primitives::{p3, M3, P3};
use super::spline_chain::{self, SplineGoal, SPLINE_SOLVER};
use crate::eval::core::controller::euler_matrix;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock::{self, Value};
use crate::eval::core::transform::SceneEval;

pub const IK_CHAIN_CONTROL: ClassId = ClassId(0x78724378, 0x008a4fd9);
pub const IK_CONTROL: ClassId = ClassId(0x0e6f5815, 0x717f99a4);
/// The solver name IKChainControl stores for the HI solver.
pub const HI_SOLVER: &str = "IKHISolver";

/// IKChainControl references (`IIKChainControlReferenceIndex`): 0 its
/// parameter block, 1 the goal's PRS, 3 the enable track.
const CHAIN_BLOCK: u32 = 0;
pub(crate) const CHAIN_GOAL_PRS: u32 = 1;
const CHAIN_ENABLE: u32 = 3;
/// The Boolean Controller of the enable track (`0x5ed56fc5,0x6af0e521`).
pub const BOOLEAN_CONTROLLER: ClassId = ClassId(0x5ed56fc5, 0x6af0e521);
/// Boolean Controller chunks: its value (a float, 0 or 1) and its key count.
const BOOL_VALUE_CHUNK: u16 = 0x3006;
const BOOL_KEYS_CHUNK: u16 = 0x3002;
/// IKChainControl block parameters: start and end joint nodes, solver name,
/// swivel angle (animatable: its controller sits in block reference 0).
const P_START: u16 = 0;
const P_END: u16 = 1;
const P_SOLVER: u16 = 2;
const P_SWIVEL: u16 = 4;
/// `kVHUseTarget` (bool), `kVHTarget` (node), `kSAParent` (0 in goal, 1 in
/// start joint: `SAParentSpace`).
const P_VH_USE_TARGET: u16 = 17;
const P_VH_TARGET: u16 = 18;
const P_SA_PARENT: u16 = 19;
/// IKControl block parameters: the joint's rest offset from its parent
/// (36–38) and rest Euler XYZ angles (39–41).
const P_REST_POS: [u16; 3] = [36, 37, 38];
const P_REST_ROT: [u16; 3] = [39, 40, 41];
/// The deepest end-to-start walk followed (damaged files may loop).
const MAX_JOINTS: usize = 64;

/// One HI chain of the scene.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneChain {
    /// The IKChainControl object.
    pub controller: usize,
    /// The node it drives (the goal).
    pub goal_node: usize,
    pub solver: String,
    /// Joint nodes from the start joint to the end joint.
    pub joints: Vec<usize>,
    /// Rest offset from the parent and rest angles of each joint.
    pub rest: Vec<(P3, P3)>,
    /// Each joint's IKControl axis flags (active, limited).
    pub flags: Vec<JointFlags>,
    pub goal_prs: usize,
    /// The swivel angle's controller (none when constant) and stored value.
    pub swivel: Option<usize>,
    pub swivel_default: f32,
    /// Where the swivel angle is measured.
    pub swivel_space: SwivelSpace,
    /// The VH target node, when `kVHUseTarget` is on and a node is set.
    pub vh_target: Option<usize>,
    /// The enable track: a constant (no keys) Boolean Controller's value.
    pub enabled: bool,
    /// A spline IK chain's shape and twist (solver `"SplineIKSolver"`).
    pub spline: Option<SplineGoal>,
}

/// `SAParentSpace`: the space the swivel angle (and the zero plane map) lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwivelSpace {
    Goal,
    StartJoint,
}

/// A solved chain at one time: each joint's world transform.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainPose {
    pub joints: Vec<Mat43>,
    /// The goal's world position, before any clamp; for spline IK the last
    /// point found on the curve.
    pub goal: Vec3,
    /// Each joint's transform relative to its parent node.
    pub local: Vec<Mat43>,
    /// Spline IK: the points the solver found on the curve (world), the
    /// first near the start joint, then one per bone; empty for HI chains.
    pub curve_points: Vec<Vec3>,
}

fn is_class(eval: &SceneEval, idx: usize, id: ClassId) -> bool {
    eval.graph.class(idx).is_some_and(|c| c.class_id == id)
}

fn float(block: &pblock::ParamBlock2, id: u16) -> Result<f32, EvalError> {
    match block.param(id).map(|p| &p.value) {
        Some(Value::Float(f)) => Ok(*f),
        other => Err(EvalError::malformed(
            format!("parameter {id}"),
            format!("expected a float, found {other:?}"),
        )),
    }
}

fn node_param(block: &pblock::ParamBlock2, id: u16) -> Result<usize, EvalError> {
    match block.param(id).map(|p| &p.value) {
        Some(Value::Object(i)) => usize::try_from(*i)
            .map_err(|_| EvalError::reference(format!("parameter {id}"), "no node")),
        other => Err(EvalError::malformed(
            format!("parameter {id}"),
            format!("expected a node, found {other:?}"),
        )),
    }
}

/// Every IKChainControl of the scene that drives a node, built or refused with
/// the reason.
pub fn scene_chains(eval: &SceneEval) -> Vec<(usize, Result<SceneChain, EvalError>)> {
    let mut out = Vec::new();
    for (o, _) in eval.graph.nodes() {
        let Some(ctl) = eval.tm_controller(o.index) else {
            continue;
        };
        if is_class(eval, ctl, IK_CHAIN_CONTROL) {
            out.push((ctl, chain(eval, ctl, o.index)));
        }
    }
    out
}

fn chain(eval: &SceneEval, ctl: usize, goal_node: usize) -> Result<SceneChain, EvalError> {
    let graph: &crate::graph::SceneGraph = &eval.graph;
    let pb = pblock::reference(graph, ctl, CHAIN_BLOCK)
        .ok_or_else(|| EvalError::malformed("", "no parameter block"))?;
    let block = pblock::param_block2(eval.chunks(pb))?;
    let start = node_param(&block, P_START)?;
    let end = node_param(&block, P_END)?;
    let solver = match block.param(P_SOLVER).map(|p| &p.value) {
        Some(Value::String(s)) => s.clone(),
        other => return Err(EvalError::malformed("solver name", format!("{other:?}"))),
    };
    let goal_prs = pblock::reference(graph, ctl, CHAIN_GOAL_PRS)
        .ok_or_else(|| EvalError::malformed("", "no goal controller"))?;
    let swivel_param = block.param(P_SWIVEL);
    let swivel = swivel_param
        .and_then(|p| p.ref_slot)
        .and_then(|slot| pblock::reference(graph, pb, slot));
    let swivel_default = match swivel_param.map(|p| &p.value) {
        Some(Value::Float(f)) => *f,
        _ => 0.0,
    };
    let swivel_space = match block.param(P_SA_PARENT).map(|p| &p.value) {
        Some(Value::Int(0)) => SwivelSpace::Goal,
        Some(Value::Int(1)) | None => SwivelSpace::StartJoint,
        other => {
            return Err(EvalError::malformed(
                "swivel parent space (parameter 19)",
                format!("{other:?}"),
            ))
        }
    };
    let use_vh = matches!(
        block.param(P_VH_USE_TARGET).map(|p| &p.value),
        Some(Value::Bool(true))
    );
    let vh_target = match block.param(P_VH_TARGET).map(|p| &p.value) {
        Some(Value::Object(i)) if use_vh => usize::try_from(*i).ok(),
        _ => None,
    };
    let enabled = enable_value(eval, pblock::reference(graph, ctl, CHAIN_ENABLE))?;
    let spline = (solver == SPLINE_SOLVER).then(|| spline_chain::read_goal(graph, pb, &block));

    let mut joints = vec![end];
    let mut cur = end;
    while cur != start {
        let parent = graph
            .objects
            .get(cur)
            .and_then(|o| o.node.as_ref())
            .and_then(|n| n.parent)
            .ok_or_else(|| {
                EvalError::malformed(
                    "",
                    format!("end joint {end} is not below start joint {start}"),
                )
            })?;
        cur = parent as usize;
        joints.push(cur);
        if joints.len() > MAX_JOINTS {
            return Err(EvalError::limit(
                format!("joints from {end} up"),
                MAX_JOINTS,
            ));
        }
    }
    joints.reverse();
    let per_joint = joints
        .iter()
        .map(|&j| {
            let ik = eval
                .tm_controller(j)
                .filter(|&c| is_class(eval, c, IK_CONTROL))
                .ok_or_else(|| {
                    EvalError::malformed(
                        format!("joint {j}"),
                        "transform controller is not IKControl",
                    )
                })?;
            let pb = pblock::reference(graph, ik, 0)
                .ok_or_else(|| EvalError::malformed("", "IKControl without block"))?;
            let b = pblock::param_block2(eval.chunks(pb))?;
            let v = |ids: [u16; 3]| -> Result<P3, EvalError> {
                Ok(p3(
                    float(&b, ids[0])?,
                    float(&b, ids[1])?,
                    float(&b, ids[2])?,
                ))
            };
            Ok(((v(P_REST_POS)?, v(P_REST_ROT)?), JointFlags::read(&b)))
        })
        .collect::<Result<Vec<_>, EvalError>>()?;
    let (rest, flags) = per_joint.into_iter().unzip();
    Ok(SceneChain {
        controller: ctl,
        goal_node,
        solver,
        joints,
        rest,
        flags,
        goal_prs,
        swivel,
        swivel_default,
        swivel_space,
        vh_target,
        enabled,
        spline,
    })
}

/// The enable track's value. Only a Boolean Controller without keys is read
/// (its layout with keys is not decoded): a keyed one refuses the chain so
/// that it is reported instead of guessed.
fn enable_value(eval: &SceneEval, ctl: Option<usize>) -> Result<bool, EvalError> {
    let Some(c) = ctl else { return Ok(true) };
    if !is_boolean_controller(eval, c) {
        return Err(EvalError::reference(
            "",
            format!("enable track {c} is not a Boolean Controller"),
        ));
    }
    match keyless_boolean(eval, c)? {
        Some(v) => Ok(v != 0.0),
        None => Err(EvalError::malformed(
            "",
            "enable track with keys is not decoded",
        )),
    }
}

pub(crate) fn is_boolean_controller(eval: &SceneEval, c: usize) -> bool {
    is_class(eval, c, BOOLEAN_CONTROLLER)
}

/// A Boolean Controller's value (0.0 or 1.0; 1.0 when it stores none), or
/// None when it has keys (their layout is not decoded).
pub(crate) fn keyless_boolean(eval: &SceneEval, c: usize) -> Result<Option<f32>, EvalError> {
    let chunk = |id: u16| {
        eval.chunks(c)
            .iter()
            .find(|ch| ch.id == id)
            .and_then(|ch| ch.payload())
            .and_then(|p| <[u8; 4]>::try_from(p).ok())
    };
    match chunk(BOOL_KEYS_CHUNK).map(u32::from_le_bytes) {
        Some(0) | None => {}
        Some(_) => return Ok(None),
    }
    Ok(Some(
        chunk(BOOL_VALUE_CHUNK).map_or(1.0, f32::from_le_bytes),
    ))
}

fn to_f32(m: &Mat43) -> M3 {
    let r = m.rows();
    M3 {
        m: r.map(|row| row.map(|x| x as f32)),
    }
}

fn vec3(p: P3) -> Vec3 {
    Vec3::from_f32([p.x, p.y, p.z])
}

fn euler(p: P3) -> Mat43 {
    euler_matrix(0, [p.x.into(), p.y.into(), p.z.into()])
}

impl SceneChain {
    /// Whether the chain's solver is one `solve_at` computes: the HI solver,
    /// the IK Limb solver or the spline IK solver.
    pub fn solver_read(&self) -> bool {
        self.solver == HI_SOLVER || self.solver == LIMB_SOLVER || self.spline.is_some()
    }

    /// The solver's link chain. Three joints: the start joint is the root link
    /// (its rest angles the initial rotation, the middle joint's rest offset
    /// its extent); the middle joint's Z, Y, X rest angles are links 0–2,
    /// link 2 extending to the end joint. An IK Limb chain of two joints: the
    /// root link alone, extending to the end joint (the solver's one-bone
    /// case; the end joint's own axes are not links of the chain, as for 3).
    pub fn hi_chain(&self) -> Result<HiChain, EvalError> {
        let limb = self.solver == LIMB_SOLVER;
        // The solved joints (all but the end joint): flags the solve does
        // not apply refuse the chain.
        let solved = self.flags.len().saturating_sub(1);
        for (k, f) in self.flags.iter().take(solved).enumerate() {
            let role = if k == 0 { "start" } else { "middle" };
            f.check(role, !(limb && k == 1))?;
        }
        if let ([(_, start_rot), (end_pos, _)], true) = (&self.rest[..], limb) {
            return Ok(HiChain {
                root: RootLink {
                    rot_xyz: *start_rot,
                    init_xyz: *start_rot,
                    rigid_extend: M3::translation(*end_pos),
                },
                links: Vec::new(),
            });
        }
        let [(_, start_rot), (mid_pos, mid_rot), (end_pos, _)] = self.rest[..] else {
            if limb {
                return Err(limb::joint_count(self.joints.len()));
            }
            return Err(EvalError::malformed(
                "",
                format!(
                    "{} joints, the HI solver takes 3 (start, middle, end)",
                    self.joints.len()
                ),
            ));
        };
        if limb {
            limb::middle_axes(self.flags.get(1).map_or([None; 3], |f| f.rot_active))?;
        }
        let link = |axis: usize, init: f32, ext: P3| Link {
            axis,
            dof_value: init,
            init_value: init,
            rigid_extend: M3::translation(ext),
        };
        Ok(HiChain {
            root: RootLink {
                rot_xyz: start_rot,
                init_xyz: start_rot,
                rigid_extend: M3::translation(mid_pos),
            },
            links: vec![
                link(2, mid_rot.z, P3::ZERO),
                link(1, mid_rot.y, P3::ZERO),
                link(0, mid_rot.x, end_pos),
            ],
        })
    }

    /// Chain-root space to world at `t`: the start joint's parent, moved to
    /// the start joint's rest offset.
    pub fn root_frame(&self, eval: &SceneEval, t: i32) -> Mat43 {
        Mat43::translation(vec3(self.rest[0].0)).then(&self.parent_world(eval, t))
    }

    /// The start joint's parent node's world transform at `t`.
    pub(crate) fn parent_world(&self, eval: &SceneEval, t: i32) -> Mat43 {
        eval.graph
            .objects
            .get(self.joints[0])
            .and_then(|o| o.node.as_ref())
            .and_then(|n| n.parent)
            .map_or(Mat43::IDENTITY, |p| eval.world_tm(p as usize, t))
    }

    /// The goal's world transform at `t`: its own PRS under its parent.
    pub fn goal_world(&self, eval: &SceneEval, t: i32) -> Mat43 {
        let local = eval.prs_tm(self.goal_prs, t).unwrap_or(Mat43::IDENTITY);
        let parent = eval
            .graph
            .objects
            .get(self.goal_node)
            .and_then(|o| o.node.as_ref())
            .and_then(|n| n.parent)
            .map_or(Mat43::IDENTITY, |p| eval.world_tm(p as usize, t));
        local.then(&parent)
    }

    /// Key times of the goal's own PRS (position and rotation tracks, per-axis
    /// sub-controllers included).
    pub fn goal_key_times(&self, eval: &SceneEval) -> Vec<i32> {
        use crate::eval::core::controller::Controller;
        let mut times = Vec::new();
        let mut stack: Vec<usize> = match eval.controller(self.goal_prs) {
            Some(Controller::Prs {
                position, rotation, ..
            }) => [position, rotation]
                .into_iter()
                .flatten()
                .copied()
                .collect(),
            _ => Vec::new(),
        };
        while let Some(c) = stack.pop() {
            match eval.controller(c) {
                Some(Controller::Float { track, .. }) => times.extend(track.key_times()),
                Some(Controller::Point3 { track, .. }) => times.extend(track.key_times()),
                Some(Controller::Rotation { track, .. }) => times.extend(track.key_times()),
                Some(Controller::PositionXyz { axes } | Controller::EulerXyz { axes, .. }) => {
                    stack.extend(axes.iter().flatten())
                }
                _ => {}
            }
        }
        times.sort_unstable();
        times.dedup();
        times
    }

    /// Solves the chain at `t` and returns each joint's world and local
    /// transform. The zero map is Max's default zero plane map (HI solver
    /// white paper): the preferred pose's chain plane is the sphere's equator
    /// and its normal `n0` the north pole; an end-effector direction `e` maps
    /// to `n0` moved along the meridian through `e`, i.e. `n0 − (n0·e)e`
    /// normalized. The preferred pose is the joints' rest angles. A 2-joint
    /// IK Limb chain (one bone) gets any perpendicular instead: its solve
    /// does not depend on the map ([`limb`]).
    pub fn solve_at(&self, eval: &SceneEval, t: i32) -> Result<ChainPose, EvalError> {
        if !self.solver_read() {
            return Err(EvalError::not_evaluated(format!(
                "solver {:?}",
                self.solver
            )));
        }
        if let Some(g) = &self.spline {
            return spline_chain::solve_at(eval, self, g, &self.parent_world(eval, t), t);
        }
        let mut chain = self.hi_chain()?;
        let parent = self.parent_world(eval, t);
        let root = Mat43::translation(vec3(self.rest[0].0)).then(&parent);
        let to_chain = crate::eval::core::transform::invert(&root);
        let goal_world = self.goal_world(eval, t);
        let goal = to_f32(&goal_world.then(&to_chain));
        let elbow = chain.first_joint();
        let wrist = chain.end_effector();
        let n0 = wrist.normalize().cross(elbow.normalize()).normalize();
        let one_bone = chain.links.is_empty();
        let zero_map = move |e: P3| {
            if one_bone {
                limb::any_normal(e)
            } else {
                default_zero_map(n0, e)
            }
        };
        let angle = match self.swivel {
            Some(c) => eval.float_at(Some(c), t, f64::from(self.swivel_default)) as f32,
            None => self.swivel_default,
        };
        let swivel = match (self.vh_target, self.swivel_space) {
            (Some(vh), _) => {
                let p = to_chain.transform_point(eval.world_tm(vh, t).0[3]);
                Swivel::VhTarget(p3(p.0 as f32, p.1 as f32, p.2 as f32))
            }
            (None, SwivelSpace::StartJoint) => Swivel::InStartJoint(angle),
            (None, SwivelSpace::Goal) => Swivel::InGoal(angle),
        };
        if self.solver == LIMB_SOLVER {
            let checked = if one_bone {
                limb::aim_goal(wrist, goal.trans())
            } else {
                limb::goal_off_pivot(goal.trans())
            };
            checked.map_err(|e| e.inside(format!("t={t}")))?;
        }
        let hi = HiGoal {
            goal,
            swivel,
            zero_map: &zero_map,
        };
        if self.solver == HI_SOLVER {
            hi_solver::solve(&mut chain, &hi)?;
        } else {
            hi_limb::solve(&mut chain, &hi)?;
        }
        let finite = |p: P3| p.x.is_finite() && p.y.is_finite() && p.z.is_finite();
        let l = &chain.links;
        let mid_rot = match l[..] {
            [] => None,
            _ => Some(p3(l[2].dof_value, l[1].dof_value, l[0].dof_value)),
        };
        if !finite(chain.root.rot_xyz) || !mid_rot.is_none_or(finite) {
            return Err(EvalError::malformed(
                format!("t={t}"),
                "the solve gave non-finite angles (degenerate goal)",
            ));
        }

        // Each joint under its parent: the solved angles at its rest offset;
        // the end joint keeps its rest angles (no solver turns it).
        let last = self.rest.len() - 1;
        let local: Vec<Mat43> = self
            .rest
            .iter()
            .enumerate()
            .map(|(k, &(pos, rest_rot))| {
                let rot = match (k, mid_rot) {
                    (0, _) => chain.root.rot_xyz,
                    (1, Some(m)) if k < last => m,
                    _ => rest_rot,
                };
                euler(rot).then(&Mat43::translation(vec3(pos)))
            })
            .collect();
        let mut joints = Vec::with_capacity(local.len());
        let mut up = parent;
        for l in &local {
            up = l.then(&up);
            joints.push(up);
        }
        Ok(ChainPose {
            joints,
            goal: goal_world.0[3],
            local,
            curve_points: Vec::new(),
        })
    }
}

/// Max's default zero plane map (rules A and B of the HI solver white paper):
/// on the equator (directions perpendicular to `n0`) the normal is `n0`; off
/// it, `n0` carried along the meridian through `e`, which is the component of
/// `n0` across `e`. At the poles (`e` parallel to `n0`) it is undefined — the
/// plane flip the white paper describes — and `n0` is returned.
pub fn default_zero_map(n0: P3, e: P3) -> P3 {
    let e = e.normalize();
    let mut n = n0.minus(e.scale(n0.dot(e)));
    if n.length_unify() == 0.0 {
        n0
    } else {
        n
    }
}
