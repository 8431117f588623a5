//! IK chains in transform evaluation: the one hook `SceneEval::local_tm`
//! calls for nodes whose transform controller belongs to the IK system.
//!
//! - The goal node (its controller an IKChainControl) sits where its own
//!   Position/Rotation/Scale (reference 1) puts it under its parent.
//! - A joint (an IKControl) of a chain that builds, with the HI solver and the
//!   chain enabled, takes its parent-relative transform from the solve at that
//!   time ([`SceneChain::solve_at`]); its children follow through the normal
//!   parent composition.
//! - Any other IKControl (not in a chain, or its chain disabled) is its FK
//!   sub-controller (reference 1), as Max evaluates it with IK off. Chains
//!   that cannot be solved are named by [`coverage`] so the file counts as
//!   partial; nothing is replaced by identity silently.
//!
//! Solves are memoized per (chain, time): the three joints of a chain and every
//! node under them share one solve.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::chain::{scene_chains, SceneChain, CHAIN_GOAL_PRS, IK_CHAIN_CONTROL, IK_CONTROL};
use crate::eval::core::math::Mat43;
use crate::eval::core::pblock;
use crate::eval::core::transform::SceneEval;
use crate::typed::ClassId;

/// IKControl reference 1: the joint's FK Position/Rotation/Scale.
const IK_CONTROL_FK: u32 = 1;
/// How many chain solves may nest (a chain under another chain's joint, a goal
/// under a joint); deeper is a cycle in damaged data.
const MAX_NESTED: u32 = 8;
/// Memoized solves kept before the memo is emptied (bounds memory on long
/// animations).
const MAX_POSES: usize = 1 << 16;

thread_local! {
    static NESTED: Cell<u32> = const { Cell::new(0) };
}

type Pose = Arc<Result<Vec<Mat43>, String>>;

/// The IK state of one evaluation: the chains (built once) and the solves.
#[derive(Default)]
pub struct IkState {
    index: OnceLock<Index>,
    poses: Mutex<HashMap<(usize, i32), Pose>>,
}

struct Index {
    chains: Vec<(usize, Result<SceneChain, String>)>,
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
    pub fn chains(&self, eval: &SceneEval) -> &[(usize, Result<SceneChain, String>)] {
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
}

fn class_of(eval: &SceneEval, idx: usize) -> Option<ClassId> {
    Some(eval.graph.objects.get(idx)?.class.as_ref()?.class_id)
}

/// The parent-relative transform of `node`, whose transform controller is
/// `ctl`, at `t`; None when `ctl` is not an IK controller.
pub fn local_tm(eval: &SceneEval, node: usize, ctl: usize, t: i32) -> Option<Mat43> {
    let class = class_of(eval, ctl)?;
    let fk = |slot: u32| pblock::reference(&eval.graph, ctl, slot).and_then(|c| eval.prs_tm(c, t));
    if class == IK_CHAIN_CONTROL {
        return Some(fk(CHAIN_GOAL_PRS).unwrap_or(Mat43::IDENTITY));
    }
    if class != IK_CONTROL {
        return None;
    }
    let fk_tm = fk(IK_CONTROL_FK).unwrap_or(Mat43::IDENTITY);
    let state = eval.ik_state();
    let index = state.index(eval);
    let Some(&(ci, ji)) = index.joints.get(&node) else {
        return Some(fk_tm);
    };
    let Some((_, Ok(chain))) = index.chains.get(ci) else {
        return Some(fk_tm);
    };
    if !chain.enabled || NESTED.with(Cell::get) >= MAX_NESTED {
        return Some(fk_tm);
    }
    NESTED.with(|n| n.set(n.get() + 1));
    let pose = state.pose(eval, ci, chain, t);
    NESTED.with(|n| n.set(n.get().saturating_sub(1)));
    match &*pose {
        Ok(local) => Some(local.get(ji).copied().unwrap_or(fk_tm)),
        Err(_) => Some(fk_tm),
    }
}

/// Coverage of an IK transform controller: None when `ctl` is not one,
/// `Some(Ok(()))` when it evaluates, `Some(Err(why))` when it does not (the
/// chain is refused, its solver is not the HI solver, or the joint's FK
/// sub-controller is all it gets).
pub fn coverage(eval: &SceneEval, ctl: usize) -> Option<Result<(), String>> {
    let class = class_of(eval, ctl)?;
    if class == IK_CHAIN_CONTROL {
        let chains = eval.ik_state().chains(eval);
        return Some(match chains.iter().find(|(c, _)| *c == ctl) {
            Some((_, Err(e))) => Err(e.clone()),
            Some((_, Ok(c))) if c.solver != super::chain::HI_SOLVER => {
                Err(format!("solver {:?} is not evaluated", c.solver))
            }
            _ => Ok(()),
        });
    }
    if class != IK_CONTROL {
        return None;
    }
    let state = eval.ik_state();
    let index = state.index(eval);
    let node = index.chains.iter().find_map(|(_, c)| {
        let c = c.as_ref().ok()?;
        c.joints
            .iter()
            .find(|&&j| eval.tm_controller(j) == Some(ctl))
            .map(|_| c)
    });
    Some(match node {
        Some(c) if c.solver == super::chain::HI_SOLVER => Ok(()),
        Some(c) => Err(format!("solver {:?} is not evaluated", c.solver)),
        None => {
            // Not in any chain that builds: FK only. Evaluated when some chain
            // that names no such joint exists is not knowable here, so say so.
            let refused: Vec<&str> = index
                .chains
                .iter()
                .filter_map(|(_, c)| c.as_ref().err().map(String::as_str))
                .collect();
            if refused.is_empty() {
                Ok(())
            } else {
                Err(format!("IK chain refused: {}", refused.join("; ")))
            }
        }
    })
}
