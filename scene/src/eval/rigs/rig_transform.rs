//! Nodes whose TM controller gives their world TM directly rather than a
//! parent-relative one: Biped body parts (COM and BipSlave controllers,
//! evaluated from the rig's keytracks by `biped::motion`) and single-target
//! Link Constraints (`offset · target world`). `world_tm` stops its walk up
//! the parent chain at such a node; `local_tm` of such a node is its world
//! TM relative to its parent's.

use crate::eval::error::EvalError;
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::thread::LocalKey;

use crate::eval::core::math::Mat43;
use crate::eval::core::transform::{invert, SceneEval};
use crate::eval::rigs::biped::{self, figure, figure::Pose, motion, Rig, Role};
use crate::eval::rigs::link_constraint;

/// How many Link Constraint targets deep an evaluation may go (links that
/// target each other in damaged files end here).
const MAX_LINK_DEPTH: usize = 16;
/// How far from identity the parent of a Biped COM may be: a COM linked to a
/// moving parent follows the link-parent rule (0x0112, seed §11), not evaluated.
const ROOT_TOLERANCE: f64 = 1e-9;
/// The deepest parent chain followed (deeper is a cycle in damaged data).
const MAX_CHAIN: usize = 512;

/// The decoded rigs of a scene, by system object.
pub type Rigs = BTreeMap<usize, Result<Arc<Rig>, EvalError>>;

/// How many (rig, tick) poses the cache keeps before it starts over: a few
/// thousand frames of a few rigs, bounded so that sampling many ticks does
/// not grow memory without limit.
const POSE_CACHE_LIMIT: usize = 4096;

/// The pose of each rig at each tick evaluated so far: every bone of a rig
/// at one tick shares one pose (COM, pelvis and leg curves are interpolated
/// once, not once per bone).
#[derive(Default)]
pub struct PoseCache(Mutex<HashMap<(usize, i64), Arc<Pose>>>);

/// The cache key of a rig's figure pose (no tick: the figure has no time).
const FIGURE_KEY: i64 = i64::MIN;

thread_local! {
    /// How many figure-mode evaluations are running on this thread
    /// ([`SceneEval::figure_world_tm`]).
    static FIGURE_MODE: Cell<usize> = const { Cell::new(0) };
    /// How many base-layer evaluations are running on this thread
    /// ([`SceneEval::in_base_layer`]).
    static BASE_LAYER: Cell<usize> = const { Cell::new(0) };
}

/// An evaluation mode of this thread, on for as long as the guard lives
/// (a count, so nested evaluations keep it on).
struct Mode(&'static LocalKey<Cell<usize>>);

impl Mode {
    fn on(key: &'static LocalKey<Cell<usize>>) -> Mode {
        key.with(|f| f.set(f.get() + 1));
        Mode(key)
    }

    fn active(key: &'static LocalKey<Cell<usize>>) -> bool {
        key.with(|f| f.get() > 0)
    }
}

impl Drop for Mode {
    fn drop(&mut self) {
        self.0.with(|f| f.set(f.get().saturating_sub(1)));
    }
}

/// Added to a tick's cache key for its base-layer pose (ticks are i32).
const BASE_LAYER_KEY: i64 = 1 << 40;

impl PoseCache {
    fn get(&self, sys: usize, rig: &Rig, t: i32) -> Arc<Pose> {
        let base = Mode::active(&BASE_LAYER) && !rig.layers.is_empty();
        let key = if Mode::active(&FIGURE_MODE) {
            FIGURE_KEY
        } else if base {
            i64::from(t) + BASE_LAYER_KEY
        } else {
            i64::from(t)
        };
        let cached = self.0.lock().ok().and_then(|m| m.get(&(sys, key)).cloned());
        if let Some(p) = cached {
            return p;
        }
        let pose = Arc::new(if key == FIGURE_KEY {
            figure::figure_pose(rig)
        } else if base {
            motion::base_pose_at(rig, t)
        } else {
            motion::pose_at(rig, t)
        });
        if let Ok(mut m) = self.0.lock() {
            if m.len() >= POSE_CACHE_LIMIT {
                m.clear();
            }
            m.insert((sys, key), Arc::clone(&pose));
        }
        pose
    }
}

impl SceneEval {
    /// The rigs of the scene, decoded once.
    pub fn biped_rigs(&self) -> &Rigs {
        self.rig_cache().get_or_init(|| {
            biped::systems(self)
                .into_iter()
                .map(|s| (s, biped::rig(self, s).map(Arc::new)))
                .collect()
        })
    }

    /// Runs `f` with every Biped of the scene in **figure mode** (on this
    /// thread): its bones at their figure pose (figure records, not
    /// keytracks), every other controller at the tick asked for. This is what
    /// Max's `GetNodeTM` returns once a script has set `figureMode = true` on
    /// the rig, as the NeL plug-in's skel_export.ms does before exporting a
    /// skeleton.
    pub fn in_figure_mode<R>(&self, f: impl FnOnce() -> R) -> R {
        let _on = Mode::on(&FIGURE_MODE);
        f()
    }

    /// Runs `f` with every Biped of the scene on its **base layer** (on this
    /// thread): the animation layers above it switched off, as Biped shows
    /// a rig whose upper layers are deactivated. biped-ld35/Player@Idle.FBX
    /// holds that pose (the file's "Layer 1" came after it). Rigs without
    /// layers are unaffected.
    pub fn in_base_layer<R>(&self, f: impl FnOnce() -> R) -> R {
        let _on = Mode::on(&BASE_LAYER);
        f()
    }

    /// The world TM of `node` at `t` when its controller gives it directly:
    /// None for ordinary controllers, else the TM or why it is not evaluated.
    pub fn direct_world(&self, node: usize, t: i32) -> Option<Result<Mat43, EvalError>> {
        self.direct_world_at_depth(
            node,
            t,
            0,
            &Cell::new(crate::eval::core::transform::EVAL_BUDGET),
        )
    }

    pub(crate) fn direct_world_at_depth(
        &self,
        node: usize,
        t: i32,
        depth: usize,
        budget: &Cell<u32>,
    ) -> Option<Result<Mat43, EvalError>> {
        let ctl = self.tm_controller(node)?;
        if let Some(r) = crate::eval::rigs::cat::world(self, node, ctl, t, depth, budget) {
            return Some(r);
        }
        if let Some(role) = biped::controller_role(self, ctl) {
            return Some(
                role.and_then(|(sys, role)| self.biped_world(node, sys, role, t, depth, budget)),
            );
        }
        let link = link_constraint::decode(self, ctl)?;
        Some(link.and_then(|l| {
            if depth >= MAX_LINK_DEPTH {
                return Err(EvalError::limit(
                    format!("Link Constraint {ctl}: link depth"),
                    MAX_LINK_DEPTH,
                ));
            }
            let off = link_constraint::offset_tm(self, &l, t).ok_or_else(|| {
                EvalError::reference(
                    format!("Link Constraint {ctl}"),
                    "the offset (reference 0) is not a PRS controller",
                )
            })?;
            // No target: the offset is local to the parent (the scene root
            // without one).
            let Some(target) = l.target.or_else(|| self.parent_node(node)) else {
                return Ok(off);
            };
            self.chain_evaluated(target, t, depth + 1, budget)
                .map_err(|why| {
                    why.inside(format!("Link Constraint {ctl}: target not evaluated"))
                })?;
            Ok(off.then(&self.world_tm_at_depth(target, t, depth + 1, budget)))
        }))
    }

    /// Whether the world TM of `node` is evaluated: no node from it up to the
    /// first directly evaluated one (or the root) is a Biped part or Link
    /// Constraint that is not — a bone parented under an unevaluated Biped
    /// bone would otherwise sit at an identity parent.
    fn chain_evaluated(
        &self,
        node: usize,
        t: i32,
        depth: usize,
        budget: &Cell<u32>,
    ) -> Result<(), EvalError> {
        let mut cur = Some(node);
        for _ in 0..MAX_CHAIN {
            let Some(n) = cur else { return Ok(()) };
            match self.direct_world_at_depth(n, t, depth, budget) {
                Some(Ok(_)) => return Ok(()),
                Some(Err(why)) => {
                    let name = self.graph.node_name(n);
                    return Err(if n == node {
                        why
                    } else {
                        why.inside(format!("its ancestor {name:?} is not evaluated"))
                    });
                }
                None => cur = self.parent_node(n),
            }
        }
        Err(EvalError::limit("parent chain depth", MAX_CHAIN))
    }

    fn biped_world(
        &self,
        node: usize,
        sys: usize,
        role: Role,
        t: i32,
        depth: usize,
        budget: &Cell<u32>,
    ) -> Result<Mat43, EvalError> {
        let rig = match self.biped_rigs().get(&sys) {
            Some(Ok(r)) => r,
            Some(Err(e)) => return Err(e.clone()),
            None => {
                return Err(EvalError::malformed(
                    "",
                    format!("Biped system object {sys} not found"),
                ))
            }
        };
        if role == Role::Com {
            if let Some(p) = self.parent_node(node) {
                let pw = self.world_tm_at_depth(p, t, depth + 1, budget);
                let off = pw
                    .rows()
                    .iter()
                    .zip(Mat43::IDENTITY.rows())
                    .flat_map(|(a, b)| {
                        a.iter()
                            .zip(b)
                            .map(|(x, y)| (x - y).abs())
                            .collect::<Vec<_>>()
                    })
                    .fold(0.0, f64::max);
                if off > ROOT_TOLERANCE {
                    return Err(EvalError::not_evaluated_why(
                        "COM linked to a transformed parent",
                        "link-parent rule",
                    ));
                }
            }
        }
        let pose = self.biped_pose_cache().get(sys, rig, t);
        figure::world_in(rig, &pose, role)
    }

    /// The local TM of a node whose controller gives its world TM directly.
    pub(crate) fn direct_local(
        &self,
        node: usize,
        world: &Mat43,
        t: i32,
        depth: usize,
        budget: &Cell<u32>,
    ) -> Mat43 {
        match self.parent_node(node) {
            Some(p) => world.then(&invert(&self.world_tm_at_depth(p, t, depth, budget))),
            None => *world,
        }
    }
}
