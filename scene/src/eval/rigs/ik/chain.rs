//! HI IK chains as a scene stores them, built into solver input: the
//! IKChainControl (the goal node's transform controller) names its solver, its
//! start and end joints and owns the goal's own PRS; each joint's IKControl
//! keeps the joint's rest offset and rest angles. The pieces of Max's LinkChain
//! construction that are \[CORE\] (seed 000 §5) — the default zero map, the
//! swivel parent space — are stood in for as docs/ik.md says. Not yet used by
//! transform evaluation: chains stay "not evaluated" in coverage.

use crate::typed::ClassId;

use super::hi_limb::{self, HiChain, HiGoal, Link, RootLink, Swivel};
use super::primitives::{p3, M3, P3};
use crate::eval::core::controller::euler_matrix;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock::{self, Value};
use crate::eval::core::transform::SceneEval;

pub const IK_CHAIN_CONTROL: ClassId = ClassId(0x78724378, 0x008a4fd9);
pub const IK_CONTROL: ClassId = ClassId(0x0e6f5815, 0x717f99a4);
/// The solver name IKChainControl stores for the HI solver.
pub const HI_SOLVER: &str = "IKHISolver";

/// IKChainControl references: 0 its parameter block, 1 the goal's PRS.
const CHAIN_BLOCK: u32 = 0;
const CHAIN_GOAL_PRS: u32 = 1;
/// IKChainControl block parameters: start and end joint nodes, solver name,
/// swivel angle (animatable: its controller sits in block reference 0).
const P_START: u16 = 0;
const P_END: u16 = 1;
const P_SOLVER: u16 = 2;
const P_SWIVEL: u16 = 4;
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
    goal_prs: usize,
    swivel: Option<usize>,
    swivel_default: f32,
}

/// A solved chain at one time: each joint's world transform.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainPose {
    pub joints: Vec<Mat43>,
    /// The goal's world position, before any clamp.
    pub goal: Vec3,
}

fn is_class(eval: &SceneEval, idx: usize, id: ClassId) -> bool {
    eval.graph
        .objects
        .get(idx)
        .and_then(|o| o.class.as_ref())
        .is_some_and(|c| c.class_id == id)
}

fn float(block: &pblock::ParamBlock2, id: u16) -> Result<f32, String> {
    match block.param(id).map(|p| &p.value) {
        Some(Value::Float(f)) => Ok(*f),
        other => Err(format!("parameter {id}: expected a float, found {other:?}")),
    }
}

fn node_param(block: &pblock::ParamBlock2, id: u16) -> Result<usize, String> {
    match block.param(id).map(|p| &p.value) {
        Some(Value::Object(i)) => {
            usize::try_from(*i).map_err(|_| format!("parameter {id}: no node"))
        }
        other => Err(format!("parameter {id}: expected a node, found {other:?}")),
    }
}

/// Every IKChainControl of the scene that drives a node, built or refused with
/// the reason.
pub fn scene_chains(eval: &SceneEval) -> Vec<(usize, Result<SceneChain, String>)> {
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

fn chain(eval: &SceneEval, ctl: usize, goal_node: usize) -> Result<SceneChain, String> {
    let graph: &crate::graph::SceneGraph = &eval.graph;
    let pb = pblock::reference(graph, ctl, CHAIN_BLOCK).ok_or("no parameter block")?;
    let block = pblock::param_block2(eval.chunks(pb))?;
    let start = node_param(&block, P_START)?;
    let end = node_param(&block, P_END)?;
    let solver = match block.param(P_SOLVER).map(|p| &p.value) {
        Some(Value::String(s)) => s.clone(),
        other => return Err(format!("solver name: {other:?}")),
    };
    let goal_prs = pblock::reference(graph, ctl, CHAIN_GOAL_PRS).ok_or("no goal controller")?;
    let swivel_param = block.param(P_SWIVEL);
    let swivel = swivel_param
        .and_then(|p| p.ref_slot)
        .and_then(|slot| pblock::reference(graph, pb, slot));
    let swivel_default = match swivel_param.map(|p| &p.value) {
        Some(Value::Float(f)) => *f,
        _ => 0.0,
    };

    let mut joints = vec![end];
    let mut cur = end;
    while cur != start {
        let parent = graph
            .objects
            .get(cur)
            .and_then(|o| o.node.as_ref())
            .and_then(|n| n.parent)
            .ok_or_else(|| format!("end joint {end} is not below start joint {start}"))?;
        cur = parent as usize;
        joints.push(cur);
        if joints.len() > MAX_JOINTS {
            return Err(format!("more than {MAX_JOINTS} joints from {end} up"));
        }
    }
    joints.reverse();
    let rest = joints
        .iter()
        .map(|&j| {
            let ik = eval
                .tm_controller(j)
                .filter(|&c| is_class(eval, c, IK_CONTROL))
                .ok_or_else(|| format!("joint {j}: transform controller is not IKControl"))?;
            let pb = pblock::reference(graph, ik, 0).ok_or("IKControl without block")?;
            let b = pblock::param_block2(eval.chunks(pb))?;
            let v = |ids: [u16; 3]| -> Result<P3, String> {
                Ok(p3(
                    float(&b, ids[0])?,
                    float(&b, ids[1])?,
                    float(&b, ids[2])?,
                ))
            };
            Ok((v(P_REST_POS)?, v(P_REST_ROT)?))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(SceneChain {
        controller: ctl,
        goal_node,
        solver,
        joints,
        rest,
        goal_prs,
        swivel,
        swivel_default,
    })
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
    /// The HI solver's chain: the start joint is the root link (its rest angles
    /// the initial rotation, the middle joint's rest offset its extent); the
    /// middle joint's Z, Y, X rest angles are links 0–2, link 2 extending to
    /// the end joint.
    pub fn hi_chain(&self) -> Result<HiChain, String> {
        let [(_, start_rot), (mid_pos, mid_rot), (end_pos, _)] = self.rest[..] else {
            return Err(format!(
                "{} joints, the HI solver takes 3 (start, middle, end)",
                self.joints.len()
            ));
        };
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
        let start = self.joints[0];
        let parent = eval
            .graph
            .objects
            .get(start)
            .and_then(|o| o.node.as_ref())
            .and_then(|n| n.parent)
            .map_or(Mat43::IDENTITY, |p| eval.world_tm(p as usize, t));
        Mat43::translation(vec3(self.rest[0].0)).then(&parent)
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

    /// Solves the chain at `t` and returns each joint's world transform. The
    /// zero map stands in for Max's `DefaultZeroMap()` \[CORE\]: the rest pose's
    /// chain-plane normal, carried by the shortest rotation from the rest
    /// end-effector direction (the rest plane at the rest direction, which is
    /// what the solver assumes).
    /// The swivel track is read as an angle in the start joint.
    pub fn solve_at(&self, eval: &SceneEval, t: i32) -> Result<ChainPose, String> {
        if self.solver != HI_SOLVER {
            return Err(format!("solver {:?} is not evaluated", self.solver));
        }
        let mut chain = self.hi_chain()?;
        let to_chain = crate::eval::core::transform::invert(&self.root_frame(eval, t));
        let goal_world = self.goal_world(eval, t);
        let goal = to_f32(&goal_world.then(&to_chain));
        let elbow = chain.first_joint();
        let wrist = chain.end_effector();
        let a0 = wrist.normalize();
        let n0 = a0.cross(elbow.normalize()).normalize();
        let zero_map = move |e: P3| rest_plane_normal(a0, n0, e);
        let swivel = match self.swivel {
            Some(c) => eval.float_at(Some(c), t, f64::from(self.swivel_default)) as f32,
            None => self.swivel_default,
        };
        let hi = HiGoal {
            goal,
            swivel: Swivel::InStartJoint(swivel),
            zero_map: &zero_map,
        };
        hi_limb::solve(&mut chain, &hi).map_err(|e| e.to_string())?;

        let root = self.root_frame(eval, t);
        let start = euler(chain.root.rot_xyz).then(&root);
        let l = &chain.links;
        let mid_rot = p3(l[2].dof_value, l[1].dof_value, l[0].dof_value);
        let mid = euler(mid_rot)
            .then(&Mat43::translation(vec3(self.rest[1].0)))
            .then(&start);
        let end = euler(self.rest[2].1)
            .then(&Mat43::translation(vec3(self.rest[2].0)))
            .then(&mid);
        Ok(ChainPose {
            joints: vec![start, mid, end],
            goal: goal_world.0[3],
        })
    }
}

/// The stand-in zero map: the rest plane normal `n0` carried by the shortest
/// rotation from the rest end-effector direction `a0` to `e`.
fn rest_plane_normal(a0: P3, n0: P3, e: P3) -> P3 {
    let e = e.normalize();
    let axis = a0.cross(e);
    let s = f64::from(axis.length());
    let c = f64::from(a0.dot(e));
    if s == 0.0 {
        return n0.minus(e.scale(n0.dot(e))).normalize();
    }
    let k = axis.normalize();
    let angle = s.atan2(c) as f32;
    n0.vector_transform(&M3::rot_angle_axis(k, angle))
        .normalize()
}
