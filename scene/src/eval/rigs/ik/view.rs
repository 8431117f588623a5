//! `json/ik.json`: the IK chains of a scene and the rules they follow over the
//! animation range, shaped like a game model's IK data (chains of links that
//! name their bones and the knee's bend direction; per animation, rules with
//! the frames they cover and a frame-biased error list). docs/ik.md says what
//! each field means.

use serde::Serialize;

use super::chain::{SceneChain, SwivelSpace};
use crate::eval::core::math::Vec3;
use crate::eval::core::transform::SceneEval;
use crate::settings::{time_config, TimeConfig};

/// The whole view.
#[derive(Debug, Serialize)]
pub struct IkView {
    pub chains: Vec<ChainView>,
    pub rules: Vec<RuleView>,
}

/// One chain, or why it could not be built.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ChainView {
    Chain(Box<ChainInfo>),
    Error { controller: usize, error: String },
}

#[derive(Debug, Serialize)]
pub struct ChainInfo {
    /// The IKChainControl object index.
    pub controller: usize,
    /// The goal node's name (Max names the chain after it).
    pub name: String,
    pub solver: String,
    /// The goal node: its index and name.
    pub goal: NodeRef,
    /// Start joint first, end joint last.
    pub links: Vec<LinkView>,
    /// The bend direction: the normal of the chain's plane at the preferred
    /// (rest) pose, in the start joint's parent space (the knee turns about it).
    pub bend_normal: [f32; 3],
    pub swivel: SwivelView,
    /// Whether the enable track is on (a keyed track refuses the chain).
    pub enabled: bool,
    /// Spline IK: the shape node the chain follows (null when none is
    /// picked); absent for other solvers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spline: Option<Option<NodeRef>>,
}

#[derive(Debug, Serialize)]
pub struct NodeRef {
    pub node: usize,
    pub name: String,
}

#[derive(Debug, Serialize)]
pub struct LinkView {
    pub bone: NodeRef,
    /// "start", "middle" or "end".
    pub role: &'static str,
    /// Rest offset from the parent node and rest Euler XYZ angles (radians).
    pub rest_offset: [f32; 3],
    pub rest_euler: [f32; 3],
    /// Distance to the next joint (0 for the end joint).
    pub length: f32,
}

#[derive(Debug, Serialize)]
pub struct SwivelView {
    /// "start_joint" or "goal" (`kSAParent`).
    pub space: &'static str,
    /// The stored angle (radians) and the controller animating it, if any.
    pub angle: f32,
    pub controller: Option<usize>,
    /// The VH target node, when the chain aims its plane at one.
    pub vh_target: Option<NodeRef>,
}

/// What one chain does over the scene's animation range.
#[derive(Debug, Serialize)]
pub struct RuleView {
    /// Index into `chains`.
    pub chain: usize,
    /// "goal": the end joint follows the goal node; "spline": the joints
    /// follow the chain's shape.
    pub kind: &'static str,
    /// The animation range (ticks) the rule belongs to, and its frame step.
    pub range: [i32; 2],
    pub ticks_per_frame: i32,
    /// Key times (ticks) of the goal's own animation.
    pub goal_keys: Vec<i32>,
    /// Tick ranges where the chain is enabled.
    pub enabled: Vec<[i32; 2]>,
    /// Pinned joints: HI chains have none (the field is kept for the shape).
    pub pins: Vec<usize>,
    /// The first frame `errors` covers.
    pub first_frame: i32,
    /// Frame-biased: `errors[i]` is frame `first_frame + i`, the distance from
    /// the goal to the end joint after the solve (non-zero where the goal is out
    /// of reach), or null where the chain did not solve. Spline IK: the
    /// largest distance from a joint to the curve point the solver found for
    /// it (the march's tolerance, bone length / 100 per bone, adds up).
    pub errors: Vec<Option<f64>>,
}

fn node_ref(eval: &SceneEval, node: usize) -> NodeRef {
    let name = eval.graph.node_name(node).to_string();
    NodeRef { node, name }
}

fn v(p: super::primitives::P3) -> [f32; 3] {
    [p.x, p.y, p.z]
}

fn chain_info(eval: &SceneEval, ctl: usize, c: &SceneChain) -> ChainInfo {
    let roles = ["start", "middle", "end"];
    let links = c
        .joints
        .iter()
        .zip(&c.rest)
        .enumerate()
        .map(|(i, (&j, &(offset, euler)))| LinkView {
            bone: node_ref(eval, j),
            role: if i == 0 {
                roles[0]
            } else if i + 1 == c.joints.len() {
                roles[2]
            } else {
                roles[1]
            },
            rest_offset: v(offset),
            rest_euler: v(euler),
            length: c.rest.get(i + 1).map_or(0.0, |(o, _)| o.flength()),
        })
        .collect();
    let bend_normal = c.hi_chain().map_or([0.0; 3], |h| {
        v(h.end_effector()
            .normalize()
            .cross(h.first_joint().normalize())
            .normalize())
    });
    ChainInfo {
        controller: ctl,
        name: node_ref(eval, c.goal_node).name,
        solver: c.solver.clone(),
        goal: node_ref(eval, c.goal_node),
        links,
        bend_normal,
        swivel: SwivelView {
            space: match c.swivel_space {
                SwivelSpace::StartJoint => "start_joint",
                SwivelSpace::Goal => "goal",
            },
            angle: c.swivel_default,
            controller: c.swivel,
            vh_target: c.vh_target.map(|n| node_ref(eval, n)),
        },
        enabled: c.enabled,
        spline: c.spline.map(|g| g.shape.map(|n| node_ref(eval, n))),
    }
}

/// The largest number of frames a rule lists errors for (bounds the work on
/// damaged time ranges).
const MAX_FRAMES: i32 = 100_000;

fn rule(eval: &SceneEval, chain: usize, c: &SceneChain, time: &TimeConfig) -> RuleView {
    let step = time.ticks_per_frame.max(1);
    let first_frame = time.start.div_euclid(step);
    let last_frame = time.end.div_euclid(step).min(first_frame + MAX_FRAMES);
    let errors = (first_frame..=last_frame)
        .map(|f| {
            let t = f * step;
            let end = *c.joints.last()?;
            let pose = c.solve_at(eval, t).ok()?;
            if c.spline.is_some() {
                return Some(
                    c.joints
                        .iter()
                        .zip(&pose.curve_points)
                        .map(|(&j, p)| eval.world_tm(j, t).0[3].minus(*p).len())
                        .fold(0.0, f64::max),
                );
            }
            let goal: Vec3 = eval.world_tm(c.goal_node, t).0[3];
            Some(eval.world_tm(end, t).0[3].minus(goal).len())
        })
        .collect();
    RuleView {
        chain,
        kind: if c.spline.is_some() { "spline" } else { "goal" },
        range: [time.start, time.end],
        ticks_per_frame: step,
        goal_keys: c.goal_key_times(eval),
        enabled: if c.enabled {
            vec![[time.start, time.end]]
        } else {
            Vec::new()
        },
        pins: Vec::new(),
        first_frame,
        errors,
    }
}

/// The view of a scene's IK chains.
pub fn view(eval: &SceneEval) -> IkView {
    let time = time_config(&eval.doc).unwrap_or(TimeConfig::DEFAULT);
    let mut chains = Vec::new();
    let mut rules = Vec::new();
    for (ctl, c) in eval.ik_state().chains(eval) {
        match c {
            Ok(c) => {
                rules.push(rule(eval, chains.len(), c, &time));
                chains.push(ChainView::Chain(Box::new(chain_info(eval, *ctl, c))));
            }
            Err(e) => chains.push(ChainView::Error {
                controller: *ctl,
                error: e.to_string(),
            }),
        }
    }
    IkView { chains, rules }
}
