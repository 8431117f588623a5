//! IK chains in transform evaluation: the one hook `SceneEval::local_tm`
//! calls for nodes whose transform controller belongs to the IK system.
//!
//! - The goal node (its controller an IKChainControl) sits where its own
//!   Position/Rotation/Scale (reference 1) puts it under its parent.
//! - A joint (an IKControl) of a chain that builds, with a solver read here
//!   (HI, IK Limb where verified, spline IK) and the chain enabled, takes its
//!   parent-relative transform from the solve at that time
//!   ([`SceneChain::solve_at`]); its children follow through the normal
//!   parent composition.
//! - Any other IKControl (not in a chain, or its chain disabled) is its FK
//!   sub-controller (reference 1), as Max evaluates it with IK off.
//!
//! Nothing falls back silently: a chain that cannot be solved at some tick
//! (non-finite angles, nesting deeper than [`MAX_NESTED`]) gives its joints
//! their FK transforms there, and that is recorded per chain; [`coverage`]
//! solves every frame of the animation range and names the chain with the
//! frames it does not solve, so the file counts as partial. A refused chain,
//! a solver other than the HI solver, or an FK / goal controller that is not
//! a Position/Rotation/Scale is named too.
//!
//! Solves are memoized per (chain, time): the three joints of a chain and every
//! node under them share one solve.

use crate::eval::error::EvalError;
use std::cell::Cell;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use super::chain::{scene_chains, SceneChain, CHAIN_GOAL_PRS, IK_CHAIN_CONTROL, IK_CONTROL};
use crate::eval::core::controller::Controller;
use crate::eval::core::math::Mat43;
use crate::eval::core::pblock;
use crate::eval::core::transform::SceneEval;
use crate::settings::{time_config, TimeConfig};

/// IKControl reference 1: the joint's FK Position/Rotation/Scale.
const IK_CONTROL_FK: u32 = 1;
/// How many chain solves may nest (a chain under another chain's joint, a goal
/// under a joint); deeper is a cycle in damaged data.
pub const MAX_NESTED: u32 = 8;
/// Memoized solves kept before the memo is emptied (bounds memory on long
/// animations).
const MAX_POSES: usize = 1 << 16;
/// Fallback ticks remembered per chain (the count goes on past it).
const MAX_FALLBACK_TICKS: usize = 1 << 16;
/// Frames the coverage probe solves at most; longer ranges are sampled evenly.
const MAX_PROBE_FRAMES: i32 = 10_000;

thread_local! {
    static NESTED: Cell<u32> = const { Cell::new(0) };
}

type Pose = Arc<Result<Vec<Mat43>, EvalError>>;

/// Where a chain's joints got their FK transforms instead of a solve.
#[derive(Debug, Default, Clone)]
struct Fallback {
    ticks: BTreeSet<i32>,
    count: usize,
    why: String,
}

/// The IK state of one evaluation: the chains (built once), the solves, and
/// the ticks where a chain was not solved.
#[derive(Default)]
pub struct IkState {
    index: OnceLock<Index>,
    poses: Mutex<HashMap<(usize, i32), Pose>>,
    fallbacks: Mutex<HashMap<usize, Fallback>>,
    probes: Mutex<HashMap<usize, Result<(), EvalError>>>,
}

struct Index {
    chains: Vec<(usize, Result<SceneChain, EvalError>)>,
    /// Joint node → (chain position in `chains`, joint position in the chain).
    joints: HashMap<usize, (usize, usize)>,
}

impl IkState {
    fn index(&self, eval: &SceneEval) -> &Index {
        self.index.get_or_init(|| {
            let chains = scene_chains(eval);
            let mut joints = HashMap::new();
            for (ci, (_, c)) in chains.iter().enumerate() {
                if let Ok(c) = c {
                    for (ji, &j) in c.joints.iter().enumerate() {
                        joints.entry(j).or_insert((ci, ji));
                    }
                }
            }
            Index { chains, joints }
        })
    }

    /// Every IKChainControl of the scene with its chain or why it was refused.
    pub fn chains(&self, eval: &SceneEval) -> &[(usize, Result<SceneChain, EvalError>)] {
        &self.index(eval).chains
    }

    fn pose(&self, eval: &SceneEval, ci: usize, chain: &SceneChain, t: i32) -> Pose {
        if let Some(p) = self
            .poses
            .lock()
            .ok()
            .and_then(|m| m.get(&(ci, t)).cloned())
        {
            return p;
        }
        let pose = Arc::new(chain.solve_at(eval, t).map(|p| p.local));
        if let Ok(mut m) = self.poses.lock() {
            if m.len() >= MAX_POSES {
                m.clear();
            }
            m.insert((ci, t), pose.clone());
        }
        pose
    }

    fn record_fallback(&self, ci: usize, t: i32, why: &str) {
        if let Ok(mut m) = self.fallbacks.lock() {
            let f = m.entry(ci).or_default();
            if f.ticks.insert(t) {
                f.count += 1;
                if f.ticks.len() > MAX_FALLBACK_TICKS {
                    f.ticks.pop_last();
                }
            }
            if f.why.is_empty() {
                f.why = why.to_string();
            }
        }
    }

    /// The solved local transforms of chain `ci` at `t`, or why there are
    /// none (recorded as a fallback to FK at `t`).
    fn solved(&self, eval: &SceneEval, ci: usize, chain: &SceneChain, t: i32) -> Option<Pose> {
        if NESTED.with(Cell::get) >= MAX_NESTED {
            self.record_fallback(ci, t, &format!("IK chains nest deeper than {MAX_NESTED}"));
            return None;
        }
        NESTED.with(|n| n.set(n.get() + 1));
        let pose = self.pose(eval, ci, chain, t);
        NESTED.with(|n| n.set(n.get().saturating_sub(1)));
        if let Err(e) = &*pose {
            self.record_fallback(ci, t, &e.to_string());
            return None;
        }
        Some(pose)
    }

    /// Solves chain `ci` at every frame of the animation range (sampled
    /// evenly past [`MAX_PROBE_FRAMES`]): Err names the frames where its
    /// joints keep their FK transforms instead. Memoized.
    fn probe(&self, eval: &SceneEval, ci: usize, chain: &SceneChain) -> Result<(), EvalError> {
        if let Some(r) = self.probes.lock().ok().and_then(|m| m.get(&ci).cloned()) {
            return r;
        }
        let time = time_config(&eval.doc).unwrap_or(TimeConfig::DEFAULT);
        let tpf = time.ticks_per_frame.max(1);
        let first = time.start.div_euclid(tpf);
        let last = time.end.div_euclid(tpf).max(first);
        let frames = last.saturating_sub(first).saturating_add(1);
        let stride = (frames / MAX_PROBE_FRAMES).max(1);
        let mut failed = Vec::new();
        let mut solved = 0usize;
        let mut f = first;
        while f <= last {
            let t = f.saturating_mul(tpf);
            // A nested solve that gave up inside this one is recorded at `t` too.
            if self.solved(eval, ci, chain, t).is_none() || self.fell_back(ci, t) {
                failed.push(t);
            } else {
                solved += 1;
            }
            f = match f.checked_add(stride) {
                Some(n) => n,
                None => break,
            };
        }
        let r = if failed.is_empty() {
            Ok(())
        } else {
            let why = self
                .fallbacks
                .lock()
                .ok()
                .and_then(|m| m.get(&ci).map(|f| f.why.clone()))
                .unwrap_or_default();
            let shown: Vec<String> = failed.iter().take(4).map(i32::to_string).collect();
            let more = if failed.len() > 4 { ", …" } else { "" };
            Err(EvalError::malformed(
                format!(
                    "not solved at {} of {} frames (ticks {}{more}",
                    failed.len(),
                    failed.len() + solved,
                    shown.join(", ")
                ),
                format!("{why}); its joints keep their FK transforms there"),
            ))
        };
        if let Ok(mut m) = self.probes.lock() {
            m.insert(ci, r.clone());
        }
        r
    }

    fn fell_back(&self, ci: usize, t: i32) -> bool {
        self.fallbacks
            .lock()
            .ok()
            .is_some_and(|m| m.get(&ci).is_some_and(|f| f.ticks.contains(&t)))
    }

    /// Ticks (the earliest 65,536) and how many in all where chain `ci`'s
    /// joints were given their FK transforms so far.
    pub fn fallback_ticks(&self, ci: usize) -> (Vec<i32>, usize) {
        self.fallbacks
            .lock()
            .ok()
            .and_then(|m| {
                m.get(&ci)
                    .map(|f| (f.ticks.iter().copied().collect(), f.count))
            })
            .unwrap_or_default()
    }
}

/// The parent-relative transform of `node`, whose transform controller is
/// `ctl`, at `t`; None when `ctl` is not an IK controller.
pub fn local_tm(eval: &SceneEval, node: usize, ctl: usize, t: i32) -> Option<Mat43> {
    let class = eval.graph.class_id(ctl)?;
    let fk = |slot: u32| pblock::reference(&eval.graph, ctl, slot).and_then(|c| eval.prs_tm(c, t));
    if class == IK_CHAIN_CONTROL {
        // Not a PRS: named by `coverage`.
        return Some(fk(CHAIN_GOAL_PRS).unwrap_or(Mat43::IDENTITY));
    }
    if class != IK_CONTROL {
        return None;
    }
    // The FK transform where the joint is not solved; not a PRS: named by `coverage`.
    let fk_tm = || fk(IK_CONTROL_FK).unwrap_or(Mat43::IDENTITY);
    let state = eval.ik_state();
    let index = state.index(eval);
    let Some(&(ci, ji)) = index.joints.get(&node) else {
        return Some(fk_tm());
    };
    let Some((_, Ok(chain))) = index.chains.get(ci) else {
        return Some(fk_tm());
    };
    if !chain.enabled {
        return Some(fk_tm());
    }
    match state.solved(eval, ci, chain, t) {
        Some(pose) => match &*pose {
            Ok(local) => Some(local.get(ji).copied().unwrap_or_else(fk_tm)),
            Err(_) => Some(fk_tm()),
        },
        None => Some(fk_tm()),
    }
}

/// The controller an IK node's transform comes from where no solve gives it:
/// the goal's own PRS for an IKChainControl, the FK PRS for a joint that is
/// not solved (not in a chain, or its chain disabled). `coverage.rs` walks it
/// for unevaluated sub-controllers. None for joints of solved chains and for
/// other controllers.
pub fn unsolved_source(eval: &SceneEval, ctl: usize) -> Option<usize> {
    let class = eval.graph.class_id(ctl)?;
    if class == IK_CHAIN_CONTROL {
        return pblock::reference(&eval.graph, ctl, CHAIN_GOAL_PRS);
    }
    if class != IK_CONTROL {
        return None;
    }
    match joint_chain(eval, ctl) {
        Some((_, c)) if c.enabled => None,
        _ => pblock::reference(&eval.graph, ctl, IK_CONTROL_FK),
    }
}

/// The chain (position in the index, chain) whose joint `ctl` drives.
fn joint_chain(eval: &SceneEval, ctl: usize) -> Option<(usize, &SceneChain)> {
    let index = eval.ik_state().index(eval);
    index.chains.iter().enumerate().find_map(|(ci, (_, c))| {
        let c = c.as_ref().ok()?;
        c.joints
            .iter()
            .any(|&j| eval.tm_controller(j) == Some(ctl))
            .then_some((ci, c))
    })
}

/// Whether controller `ctl` (reference `slot` of `owner`) is a
/// Position/Rotation/Scale, which is all `local_tm` reads there.
fn prs_source(eval: &SceneEval, owner: usize, slot: u32, what: &str) -> Result<(), EvalError> {
    let Some(c) = pblock::reference(&eval.graph, owner, slot) else {
        return Err(EvalError::malformed("", format!("no {what} controller")));
    };
    match eval.controller(c) {
        Some(Controller::Prs { .. }) => Ok(()),
        _ => {
            let class = eval
                .graph
                .class(c)
                .map_or_else(|| format!("object {c}"), |k| k.name.clone());
            Err(EvalError::reference(
                "",
                format!("its {what} controller {class:?} is not a Position/Rotation/Scale"),
            ))
        }
    }
}

/// Whether chain `ci` evaluates: built, the HI solver with a 3-joint chain,
/// the IK Limb solver with a 2- or 3-joint one or the spline IK solver with
/// a shape it reads, its goal a PRS, and (when enabled) solved at every frame.
fn chain_coverage(eval: &SceneEval, ci: usize, c: &SceneChain) -> Result<(), EvalError> {
    if !c.solver_read() {
        return Err(EvalError::not_evaluated(format!("solver {:?}", c.solver)));
    }
    prs_source(eval, c.controller, CHAIN_GOAL_PRS, "goal")?;
    if let Some(g) = &c.spline {
        super::spline_chain::check(eval, c, g)?;
    } else {
        c.hi_chain()?;
    }
    if let Some(sw) = c.swivel.filter(|_| c.spline.is_none()) {
        if !matches!(eval.controller(sw), Some(Controller::Float { .. })) {
            return Err(EvalError::not_evaluated(format!(
                "its swivel angle controller (object {sw})"
            )));
        }
    }
    if c.enabled {
        eval.ik_state().probe(eval, ci, c)?;
    }
    Ok(())
}

/// Coverage of an IK transform controller: None when `ctl` is not one,
/// `Some(Ok(()))` when it evaluates, `Some(Err(why))` when it does not (the
/// chain is refused or not solved at some frame, its solver is not the HI
/// solver, or the controller its transform comes from is not a PRS).
pub fn coverage(eval: &SceneEval, ctl: usize) -> Option<Result<(), EvalError>> {
    let class = eval.graph.class_id(ctl)?;
    let index = eval.ik_state().index(eval);
    if class == IK_CHAIN_CONTROL {
        return Some(
            match index
                .chains
                .iter()
                .enumerate()
                .find(|(_, (c, _))| *c == ctl)
            {
                Some((_, (_, Err(e)))) => Err(e.clone()),
                Some((ci, (_, Ok(c)))) => chain_coverage(eval, ci, c),
                None => prs_source(eval, ctl, CHAIN_GOAL_PRS, "goal"),
            },
        );
    }
    if class != IK_CONTROL {
        return None;
    }
    Some(match joint_chain(eval, ctl) {
        Some((ci, c)) => {
            let fk = || prs_source(eval, ctl, IK_CONTROL_FK, "FK");
            match chain_coverage(eval, ci, c) {
                Ok(()) if c.enabled => Ok(()),
                Ok(()) => fk(),
                Err(why) => fk().and(Err(EvalError::malformed(
                    "IK chain refused or not solved",
                    format!("{why}"),
                ))),
            }
        }
        None => {
            // Not in any chain that builds: FK. Whether a refused chain would
            // have named it is not knowable, so a refused chain is said.
            let refused: Vec<String> = index
                .chains
                .iter()
                .filter_map(|(_, c)| c.as_ref().err().map(ToString::to_string))
                .collect();
            prs_source(eval, ctl, IK_CONTROL_FK, "FK").and(if refused.is_empty() {
                Ok(())
            } else {
                Err(EvalError::malformed(
                    "IK chain refused",
                    refused.join("; ").to_string(),
                ))
            })
        }
    })
}
