//! Node transforms at a time: the TM controller gives the parent-relative matrix,
//! the parent chain gives the world matrix, and the object offset sits between
//! the node and its object.

use crate::eval::error::EvalError;
use std::cell::Cell;
use std::sync::{Arc, OnceLock};

use crate::chunk::Chunk;
use crate::document::{Document, Typed};
use crate::error::TypedError;
use crate::graph::{NodeInfo, SceneGraph};

use crate::eval::core::controller::{self, Controller, ListKind};
use crate::eval::core::list;
use crate::eval::core::math::{Mat43, Quat, Vec3};
use crate::eval::core::memo::{MemoStats, MeshMemo, MeshResult, Stack};
use crate::eval::modifier::{self, Applied};
use crate::eval::objects::mesh::Mesh;
use crate::eval::rigs::path_constraint;

/// Which part of a shape's stack [`SceneEval::shape_mesh`] makes a mesh of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ShapeStack {
    /// The node's whole stack, as cached: stand-ins allowed, and a shape
    /// that no modifier turns into a mesh gives its renderable tube.
    Whole,
    /// The stack up to one modifier (`mesh_up_to`).
    Part,
}

/// The evaluated scene of one file: owns what it reads (document, typed layer,
/// scene graph) so that it can be cached and shared between threads, and
/// memoizes decoded controllers and evaluated meshes, so every reader of a file
/// (views, glTF, NeL exports, coverage) shares one evaluation per mesh.
pub struct SceneEval {
    pub doc: Arc<Document>,
    pub typed: Arc<Typed>,
    pub graph: Arc<SceneGraph>,
    /// Index of the Scene stream in `doc.streams`, when it is a chunk tree.
    scene_stream: Option<usize>,
    cache: Vec<OnceLock<Result<Controller, EvalError>>>,
    memo: MeshMemo,
    /// Biped rigs, decoded on first use (rig_transform.rs).
    rigs: OnceLock<crate::eval::rigs::rig_transform::Rigs>,
    /// Biped poses per (rig, tick) (rig_transform.rs).
    biped_poses: crate::eval::rigs::rig_transform::PoseCache,
    /// IK chains and their solves (eval/rigs/ik/plug.rs).
    ik: crate::eval::rigs::ik::plug::IkState,
    /// Per object, whether some node names it as its parent (built on first use).
    parents: OnceLock<Vec<bool>>,
}

/// The deepest parent chain followed; deeper is treated as a cycle in damaged data.
const MAX_CHAIN: usize = 512;
/// How many LookAt targets and constraint paths deep an evaluation may go.
const MAX_LOOKAT_DEPTH: usize = 16;
/// The TM controller chunk holding its inheritance flags.
const INHERIT_FLAGS_CHUNK: u16 = 0x7230;
/// INHERIT_SCL_X | INHERIT_SCL_Y | INHERIT_SCL_Z: scale not inherited (bits 6–8;
/// bits 0–2 are position, 3–5 rotation).
pub const INHERIT_SCALE: u32 = 0x1c0;
/// The node flags chunk and its hidden bit.
pub const NODE_FLAGS_CHUNK: u16 = 0x0963;
pub const NODE_HIDDEN: u32 = 0x40;
/// A node's reference slot of its visibility track.
const NODE_VISIBILITY_REF: u32 = 4;

/// Node transforms one evaluation may compute before giving up on damaged data.
pub(crate) const EVAL_BUDGET: u32 = 100_000;

impl SceneEval {
    /// The evaluation of a typed document; fails when its scene graph could not be read.
    pub fn new(doc: Arc<Document>, typed: Arc<Typed>) -> Result<SceneEval, TypedError> {
        let graph = typed.scene.clone()?;
        Ok(SceneEval::with_graph(doc, typed, graph))
    }

    /// Types `doc` and evaluates it.
    pub fn from_document(doc: Document) -> Result<SceneEval, TypedError> {
        let typed = Arc::new(doc.typed());
        SceneEval::new(Arc::new(doc), typed)
    }

    /// The evaluation of `doc` with a scene graph of the caller's (tests edit a
    /// copy of the stored graph to set up cases the corpus lacks).
    pub fn with_graph(doc: Arc<Document>, typed: Arc<Typed>, graph: Arc<SceneGraph>) -> SceneEval {
        let scene_stream = doc
            .streams
            .iter()
            .position(|s| s.name == "Scene" && s.chunks().is_some());
        let cache = (0..graph.objects.len()).map(|_| OnceLock::new()).collect();
        SceneEval {
            doc,
            typed,
            graph,
            scene_stream,
            cache,
            memo: MeshMemo::default(),
            rigs: OnceLock::new(),
            biped_poses: Default::default(),
            ik: Default::default(),
            parents: OnceLock::new(),
        }
    }

    /// The objects of the Scene stream (children of its root chunk), by index.
    fn objects(&self) -> &[Chunk] {
        self.scene_stream
            .and_then(|i| self.doc.streams.get(i))
            .and_then(|s| s.chunks())
            .and_then(|c| c.first())
            .map(Chunk::children)
            .unwrap_or(&[])
    }

    /// The IK chains of this scene and their memoized solves.
    pub fn ik_state(&self) -> &crate::eval::rigs::ik::plug::IkState {
        &self.ik
    }

    /// How many meshes this evaluation computed, and how many were served again.
    pub fn memo_stats(&self) -> MemoStats {
        self.memo.stats()
    }

    /// Sets the bytes of evaluated meshes this scene may hold
    /// ([`DEFAULT_MESH_BUDGET`](crate::eval::core::memo::DEFAULT_MESH_BUDGET)
    /// unless set); a mesh past it is refused naming the budget.
    pub fn set_mesh_budget(&self, bytes: u64) {
        self.memo.set_budget(bytes);
    }

    /// The chunks of object `idx`.
    pub fn chunks(&self, idx: usize) -> &[Chunk] {
        self.objects().get(idx).map(Chunk::children).unwrap_or(&[])
    }

    /// Whether a node is hidden: bit 0x40 of its node-flags chunk 0x0963 (seed
    /// S:279). The one rule for the JSON views and the exporters' selection.
    pub fn is_hidden(&self, node: usize) -> bool {
        self.chunks(node)
            .iter()
            .find(|c| c.id == NODE_FLAGS_CHUNK)
            .and_then(|c| c.payload())
            .and_then(|p| p.get(..4))
            .is_some_and(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & NODE_HIDDEN != 0)
    }

    /// The node's visibility track: reference 4 of a node, a float
    /// controller (0 hides the node in renders, 1 shows it, between fades
    /// it). Pinned by the public Babylon test scenes built around it
    /// (box_fade_out_fade_in, arnold_visibility_*: keys 0 ↔ 1 there) and by
    /// its class in the 79 nodes of the corpus and sweeps that hold one
    /// (Bezier Float every time).
    pub fn visibility_track(&self, node: usize) -> Option<usize> {
        crate::eval::core::pblock::reference(&self.graph, node, NODE_VISIBILITY_REF)
    }

    /// The node's visibility at `t` and whether its track changes over time
    /// (its key values differ); `None` without a track (always visible).
    pub fn visibility(&self, node: usize, t: i32) -> Option<Result<(f64, bool), EvalError>> {
        let track = self.visibility_track(node)?;
        // Whatever drives a float parameter drives it: a float track or list.
        let v = match crate::eval::core::pblock::driven(self, Some(track), t) {
            Ok(crate::eval::core::pblock::Value::Float(_)) => self.float_at(Some(track), t, 1.0),
            Ok(_) => {
                return Some(Err(EvalError::not_evaluated(format!(
                    "visibility track {} (not a float)",
                    crate::eval::core::coverage::class_name(self, track)
                ))))
            }
            Err(e) => return Some(Err(e)),
        };
        // Changes: a key of the track, or of a list's entries, away from `v`
        // (at most 64 controllers walked: a damaged file may loop).
        let mut times = Vec::new();
        let mut todo = vec![track];
        let mut walked = 0;
        while let Some(c) = todo.pop().and_then(|c| self.controller(c)) {
            walked += 1;
            times.extend(c.key_times());
            if walked < 64 {
                todo.extend(c.children());
            }
        }
        let changes = times
            .iter()
            .any(|&k| (self.float_at(Some(track), k, 1.0) - v).abs() > 1e-6);
        Some(Ok((v, changes)))
    }

    pub fn controller(&self, idx: usize) -> Option<&Controller> {
        let cell = self.cache.get(idx)?;
        let obj = self.graph.objects.get(idx)?;
        cell.get_or_init(|| {
            controller::decode(obj, self.chunks(idx))
                .and_then(|c| crate::eval::core::list::resolve(self, idx, c))
                .and_then(|c| crate::eval::rigs::path_constraint::resolve(self, idx, c))
                .and_then(|c| crate::eval::systems::sunlight::resolve(self, idx, c))
        })
        .as_ref()
        .ok()
    }

    /// Why the controller of object `idx` could not be decoded, if it could not.
    pub fn controller_error(&self, idx: usize) -> Option<EvalError> {
        self.controller(idx);
        self.cache.get(idx)?.get()?.as_ref().err().cloned()
    }

    pub fn float_at(&self, idx: Option<usize>, t: i32, default: f64) -> f64 {
        match idx.and_then(|i| self.controller(i)) {
            Some(Controller::Float { track, .. }) => track.at(t)[0],
            Some(Controller::List {
                kind: ListKind::Float,
                subs,
                weights,
                average,
                ..
            }) => {
                let v: Vec<Vec3> = subs
                    .iter()
                    .map(|s| Vec3(self.float_at(*s, t, 0.0), 0.0, 0.0))
                    .collect();
                list::sum(&v, weights, *average).0
            }
            _ => default,
        }
    }

    /// The three float tracks of an XYZ controller (position, scale or
    /// Euler rotation), each `default` where it is missing.
    fn axes_at(&self, axes: &[Option<usize>; 3], t: i32, default: f64) -> [f64; 3] {
        axes.map(|a| self.float_at(a, t, default))
    }

    pub fn position_at(&self, idx: Option<usize>, t: i32) -> Vec3 {
        match idx.and_then(|i| self.controller(i)) {
            Some(Controller::Point3 { track, .. }) => {
                let v = track.at(t);
                Vec3(v[0], v[1], v[2])
            }
            Some(Controller::PositionXyz { axes }) => Vec3::from(self.axes_at(axes, t, 0.0)),
            Some(Controller::List {
                kind: ListKind::Position | ListKind::Point3,
                subs,
                weights,
                average,
                ..
            }) => {
                let v: Vec<Vec3> = subs.iter().map(|s| self.position_at(*s, t)).collect();
                list::sum(&v, weights, *average)
            }
            _ => Vec3::default(),
        }
    }

    /// The rotation part as a matrix (Euler controllers do not reduce to one quaternion order).
    pub fn rotation_at(&self, idx: Option<usize>, t: i32) -> Mat43 {
        match idx.and_then(|i| self.controller(i)) {
            Some(Controller::Rotation { track, .. }) => Mat43::rotation(track.at(t)),
            Some(Controller::EulerXyz { order, axes }) => {
                controller::euler_matrix(*order, self.axes_at(axes, t, 0.0))
            }
            Some(Controller::List {
                kind: ListKind::Rotation,
                subs,
                weights,
                ..
            }) => list::stack(
                &list::applied(subs, weights)
                    .map(|s| self.rotation_at(s, t))
                    .collect::<Vec<_>>(),
            ),
            _ => Mat43::IDENTITY,
        }
    }

    pub fn scale_at(&self, idx: Option<usize>, t: i32) -> Vec3 {
        match idx.and_then(|i| self.controller(i)) {
            Some(Controller::Scale { track, .. }) => {
                let v = track.at(t);
                Vec3(v[0], v[1], v[2])
            }
            Some(Controller::ScaleXyz { axes }) => Vec3::from(self.axes_at(axes, t, 1.0)),
            // Factors multiply (exact where no entry has a scale axis; the
            // matrix of `scale_tm` is exact with axes too).
            Some(Controller::List {
                kind: ListKind::Scale,
                subs,
                weights,
                ..
            }) => list::applied(subs, weights).fold(Vec3(1.0, 1.0, 1.0), |a, s| {
                let v = self.scale_at(s, t);
                Vec3(a.0 * v.0, a.1 * v.1, a.2 * v.2)
            }),
            _ => Vec3(1.0, 1.0, 1.0),
        }
    }

    /// The scale part as a matrix: the factors act along the scale axis, so
    /// the matrix is `Q⁻¹·S·Q` (row vectors) with `Q` the axis rotation — Max's
    /// `Inverse(srtm)·stm·srtm` (seed: ScaleValue). An identity axis gives
    /// plain `S`. Scale XYZ has no axis.
    pub fn scale_tm(&self, idx: Option<usize>, t: i32) -> Mat43 {
        let s = Mat43::scaling(self.scale_at(idx, t));
        match idx.and_then(|i| self.controller(i)) {
            Some(Controller::Scale { axis, .. }) => {
                let q = axis.at(t);
                if q.x == 0.0 && q.y == 0.0 && q.z == 0.0 {
                    return s;
                }
                Mat43::rotation(q.conjugate())
                    .then(&s)
                    .then(&Mat43::rotation(q))
            }
            Some(Controller::List {
                kind: ListKind::Scale,
                subs,
                weights,
                ..
            }) => list::stack(
                &list::applied(subs, weights)
                    .map(|s| self.scale_tm(s, t))
                    .collect::<Vec<_>>(),
            ),
            _ => s,
        }
    }

    fn node(&self, idx: usize) -> Option<&NodeInfo> {
        self.graph.objects.get(idx)?.node.as_ref()
    }

    /// The TM controller of a node (reference slot 0).
    pub fn tm_controller(&self, node: usize) -> Option<usize> {
        let o = self.graph.objects.get(node)?;
        o.references
            .iter()
            .find(|r| r.slot == 0)
            .and_then(|r| usize::try_from(r.target).ok())
    }

    /// `Control::GetInheritanceFlags` of the node's TM controller, as the
    /// controller stores it (chunk 0x7230, one little-endian DWORD; a set bit
    /// means the component is *not* inherited, see [`INHERIT_SCALE`]). `None`
    /// when the controller has no such chunk. The flags are reported, not
    /// applied: `world_tm` composes full parent transforms.
    pub fn inheritance_flags(&self, node: usize) -> Option<u32> {
        let c = self.tm_controller(node)?;
        let d = self
            .chunks(c)
            .iter()
            .find(|c| c.id == INHERIT_FLAGS_CHUNK)?
            .payload()?;
        let w: [u8; 4] = d.try_into().ok()?;
        Some(u32::from_le_bytes(w))
    }

    /// Parent-relative matrix of a node at time `t`. A node whose controller
    /// gives its world TM directly (Biped, Link Constraint: rig_transform.rs)
    /// is placed by that world TM, not by its controller's own local: its
    /// local is world · parent world⁻¹, so local · parent world = world_tm.
    pub fn local_tm(&self, node: usize, t: i32) -> Mat43 {
        if let Some(Ok(world)) = self.direct_world(node, t) {
            return match self.parent(node) {
                Some(p) => world.then(&invert(&self.world_tm(p, t))),
                None => world,
            };
        }
        self.local_tm_at_depth(node, t, 0, &Cell::new(EVAL_BUDGET))
    }

    /// `depth` counts LookAt targets followed, so targets that aim at each other
    /// (damaged or odd files) end instead of recursing forever.
    fn local_tm_at_depth(&self, node: usize, t: i32, depth: usize, budget: &Cell<u32>) -> Mat43 {
        if budget.get() == 0 {
            return Mat43::IDENTITY;
        }
        budget.set(budget.get() - 1);
        let Some(ctl) = self.tm_controller(node) else {
            return Mat43::IDENTITY;
        };
        match self.controller(ctl) {
            Some(Controller::Prs {
                position,
                rotation,
                scale,
            }) => {
                let s = self.scale_tm(*scale, t);
                let r = self.rotation_at(*rotation, t);
                if self.holds_path(*position, 0, true) {
                    let parent = self
                        .parent(node)
                        .map(|pn| self.world_tm_at_depth(pn, t, depth + 1, budget));
                    let m = parent.unwrap_or(Mat43::IDENTITY);
                    let placed = self.position_matrix(node, *position, m, t, depth, budget);
                    let local = match parent {
                        Some(pw) => placed.then(&invert(&pw)),
                        None => placed,
                    };
                    return s.then(&r).then(&local);
                }
                let p = self.node_position(node, *position, t, depth, budget);
                s.then(&r).then(&Mat43::translation(p))
            }
            Some(Controller::LookAt {
                target,
                position,
                roll,
                scale,
            }) if depth < MAX_LOOKAT_DEPTH => {
                self.lookat_tm(node, [*target, *position, *roll, *scale], t, depth, budget)
            }
            // Named by coverage when it cannot be computed (manual mode).
            Some(Controller::SunSlave(s)) => {
                crate::eval::systems::sunlight::local_tm(self, s, t).unwrap_or(Mat43::IDENTITY)
            }
            // Biped and Link Constraint nodes: their world TM relative to the
            // parent's; IK goals and joints: eval/rigs/ik/plug.rs.
            _ => match self.direct_world_at_depth(node, t, depth, budget) {
                Some(Ok(w)) => self.direct_local(node, &w, t, depth, budget),
                _ => crate::eval::rigs::ik::plug::local_tm(self, node, ctl, t)
                    .unwrap_or(Mat43::IDENTITY),
            },
        }
    }

    /// The translation a node's position controller `idx` gives it in its
    /// parent's frame: [`Self::position_matrix`] relative to the parent. Only
    /// a Path Constraint (itself or in a Position List) reads the parent's
    /// world matrix — it *sets* the world position (`SetTrans`), carried back
    /// into the parent's frame — so any other controller is applied to the
    /// identity and no parent is evaluated for it.
    fn node_position(
        &self,
        node: usize,
        idx: Option<usize>,
        t: i32,
        depth: usize,
        budget: &Cell<u32>,
    ) -> Vec3 {
        let parent = self
            .holds_path(idx, 0, false)
            .then(|| self.parent(node))
            .flatten()
            .map(|pn| self.world_tm_at_depth(pn, t, depth + 1, budget));
        match parent {
            Some(pw) => {
                self.position_matrix(node, idx, pw, t, depth, budget)
                    .then(&invert(&pw))
                    .0[3]
            }
            None => {
                self.position_matrix(node, idx, Mat43::IDENTITY, t, depth, budget)
                    .0[3]
            }
        }
    }

    /// Whether position controller `idx` holds a Path Constraint — a
    /// following one only if `follow` — itself or as an entry of a Position
    /// List, at most 16 lists deep.
    fn holds_path(&self, idx: Option<usize>, depth: usize, follow: bool) -> bool {
        match idx.and_then(|i| self.controller(i)) {
            Some(Controller::PathConstraint(p)) => !follow || p.follow.is_some(),
            Some(Controller::List {
                kind: ListKind::Position | ListKind::Point3,
                subs,
                ..
            }) if depth < 16 => subs.iter().any(|s| self.holds_path(*s, depth + 1, follow)),
            _ => false,
        }
    }

    /// The node's matrix after its position controller `idx` (a PRS's
    /// position slot holding a Path Constraint, see
    /// [`Self::holds_path`]), Max's relative-mode `GetValue` on the world
    /// matrix `m` the parent leaves. A following constraint replaces the
    /// rotation (and scale) by its world frame and sets the translation; a
    /// Position List hands the matrix through its entries, each weighted
    /// entry keeping its weight's share of the translation change (its
    /// rotation change whole); keyframers translate in the matrix's frame.
    fn position_matrix(
        &self,
        node: usize,
        idx: Option<usize>,
        m: Mat43,
        t: i32,
        depth: usize,
        budget: &Cell<u32>,
    ) -> Mat43 {
        match idx.and_then(|i| self.controller(i)) {
            Some(Controller::PathConstraint(p)) if depth < MAX_LOOKAT_DEPTH => {
                // A path placed by the node it places gives no position.
                if p.paths.iter().any(|path| self.in_subtree(path.node, node)) {
                    return m;
                }
                let mut world_of = |n: usize| self.world_tm_at_depth(n, t, depth + 1, budget);
                match path_constraint::place(self, p, t, &mut world_of) {
                    Ok(placed) => {
                        let [x, y, z, _] = m.0;
                        let [x, y, z] = placed.frame.unwrap_or([x, y, z]);
                        Mat43([x, y, z, placed.position])
                    }
                    // Named by coverage (path_constraint::check).
                    Err(_) => m,
                }
            }
            Some(Controller::List {
                kind: ListKind::Position | ListKind::Point3,
                subs,
                weights,
                average,
                ..
            }) if depth < MAX_LOOKAT_DEPTH => subs
                .iter()
                .zip(list::factors(weights, *average))
                .filter(|(_, f)| *f != 0.0)
                .fold(m, |m, (s, f)| {
                    let prev = m.0[3];
                    let mut next = self.position_matrix(node, *s, m, t, depth + 1, budget);
                    next.0[3] = prev.plus(next.0[3].minus(prev).scale(f));
                    next
                }),
            _ => {
                let mut next = m;
                next.0[3] = m.transform_point(self.position_at(idx, t));
                next
            }
        }
    }

    /// Whether `n` is `root` or one of its descendants.
    fn in_subtree(&self, n: usize, root: usize) -> bool {
        let mut cur = Some(n);
        for _ in 0..MAX_CHAIN {
            match cur {
                Some(c) if c == root => return true,
                Some(c) => cur = self.parent(c),
                None => return false,
            }
        }
        true
    }

    /// The rig cache of rig_transform.rs.
    pub(crate) fn biped_pose_cache(&self) -> &crate::eval::rigs::rig_transform::PoseCache {
        &self.biped_poses
    }

    pub(crate) fn rig_cache(&self) -> &OnceLock<crate::eval::rigs::rig_transform::Rigs> {
        &self.rigs
    }

    /// The parent node of `node` (None at the scene root).
    pub(crate) fn parent_node(&self, node: usize) -> Option<usize> {
        self.parent(node)
    }

    /// The matrix of a Position/Rotation/Scale controller at `t` (scale, then
    /// rotation, then translation), as modifier gizmos keep it; None for any
    /// other controller.
    pub fn prs_tm(&self, ctl: usize, t: i32) -> Option<Mat43> {
        match self.controller(ctl)? {
            Controller::Prs {
                position,
                rotation,
                scale,
            } => Some(
                self.scale_tm(*scale, t)
                    .then(&self.rotation_at(*rotation, t))
                    .then(&Mat43::translation(self.position_at(*position, t))),
            ),
            _ => None,
        }
    }

    fn parent(&self, node: usize) -> Option<usize> {
        let p = self.node(node)?.parent? as usize;
        self.node(p).is_some().then_some(p)
    }

    /// World matrix of a node at time `t` (local · parent's world, up the chain).
    pub fn world_tm(&self, node: usize, t: i32) -> Mat43 {
        self.world_tm_at_depth(node, t, 0, &Cell::new(EVAL_BUDGET))
    }

    /// The walk up the parent chain ends at a node whose world TM its
    /// controller gives directly (Biped, Link Constraint: rig_transform.rs).
    pub(crate) fn world_tm_at_depth(
        &self,
        node: usize,
        t: i32,
        depth: usize,
        budget: &Cell<u32>,
    ) -> Mat43 {
        if let Some(Ok(w)) = self.direct_world_at_depth(node, t, depth, budget) {
            return w;
        }
        let mut m = self.local_tm_at_depth(node, t, depth, budget);
        let mut cur = node;
        for _ in 0..MAX_CHAIN {
            match self.parent(cur) {
                Some(p) => {
                    if let Some(Ok(w)) = self.direct_world_at_depth(p, t, depth, budget) {
                        m = m.then(&w);
                        break;
                    }
                    m = m.then(&self.local_tm_at_depth(p, t, depth, budget));
                    cur = p;
                }
                None => break,
            }
        }
        m
    }

    /// The object offset: how the object sits in its node's space (pivot edits).
    pub fn offset_tm(&self, node: usize) -> Mat43 {
        let Some(n) = self.node(node) else {
            return Mat43::IDENTITY;
        };
        let s = n
            .offset_scale
            .map_or(Vec3(1.0, 1.0, 1.0), |v| Vec3::from_f32([v[0], v[1], v[2]]));
        let r = n.offset_rotation.map_or(Quat::IDENTITY, offset_rotation);
        let p = n.offset_position.map_or(Vec3::default(), Vec3::from_f32);
        Mat43::scaling(s)
            .then(&Mat43::rotation(r))
            .then(&Mat43::translation(p))
    }

    /// Whether some node of the scene has `node` as its parent. One pass over
    /// the nodes on first use, so asking for every node stays linear.
    pub fn has_child_nodes(&self, node: usize) -> bool {
        let parents = self.parents.get_or_init(|| {
            let mut v = vec![false; self.graph.objects.len()];
            for (_, n) in self.graph.nodes() {
                if let Some(p) = n.parent.and_then(|p| usize::try_from(p).ok()) {
                    if let Some(f) = v.get_mut(p) {
                        *f = true;
                    }
                }
            }
            v
        });
        parents.get(node).copied().unwrap_or(false)
    }

    /// The object a node shows (reference slot 1), and under it the base object of
    /// any modifier stack (derived objects keep it in their last reference).
    pub fn node_object(&self, node: usize) -> Option<usize> {
        let refs = |i: usize| self.graph.objects.get(i).map(|o| &o.references);
        let mut cur = refs(node)?
            .iter()
            .find(|r| r.slot == 1)
            .and_then(|r| usize::try_from(r.target).ok())?;
        for _ in 0..MAX_CHAIN {
            let o = self.graph.objects.get(cur)?;
            let derived = matches!(
                o.chunk_id,
                crate::typed::schema::DERIVED_OSM | crate::typed::schema::DERIVED_WSM
            );
            if !derived {
                return Some(cur);
            }
            cur = refs(cur)?
                .iter()
                .filter(|r| r.target >= 0)
                .max_by_key(|r| r.slot)
                .and_then(|r| usize::try_from(r.target).ok())?;
        }
        None
    }

    /// The base mesh of a node at t = 0 (its modifier stack skipped), when the
    /// base object is a mesh this evaluation builds. Memoized.
    pub fn base_mesh(&self, node: usize) -> Option<MeshResult> {
        let obj = self.node_object(node)?;
        self.memo
            .object(obj, 0, || self.object_mesh(obj, 0).map(|r| r.map(Arc::new)))
    }

    /// The mesh of a (non-derived) object: Editable Mesh / Poly, a primitive, a
    /// Boolean, a Loft, a Body Object's stored mesh, a CAT bone or hub, or an
    /// RklPatch; a Biped Object is refused naming its body type.
    pub(crate) fn object_mesh(&self, obj: usize, t: i32) -> Option<Result<Mesh, EvalError>> {
        self.memo.count_build();
        let cls = self.graph.objects.get(obj)?.class.as_ref()?;
        let chunks = self.chunks(obj);
        if cls.class_id == crate::eval::objects::mesh::EDITABLE_MESH {
            Some(crate::eval::objects::mesh::editable_mesh(chunks))
        } else if cls.class_id == crate::eval::objects::mesh::EDITABLE_POLY {
            Some(crate::eval::objects::poly_surface::eval(self, obj, t))
        } else if crate::eval::objects::boolean::is_compound(cls.class_id) {
            Some(crate::eval::objects::boolean::eval(self, obj, t))
        } else if crate::eval::objects::loft::is_loft(cls.class_id) {
            Some(crate::eval::objects::loft::eval(self, obj, t))
        } else if cls.class_id == crate::eval::objects::body_object::BODY_OBJECT {
            Some(crate::eval::objects::body_object::eval(self, obj))
        } else if crate::eval::objects::primitive::is_primitive(cls.class_id) {
            Some(
                crate::eval::objects::primitive::params(self, obj, t).and_then(|p| {
                    let mut m = crate::eval::objects::primitive::build(cls.class_id, &p)?;
                    crate::eval::objects::primitive::real_world::apply(
                        self,
                        obj,
                        cls.class_id,
                        &p,
                        &mut m,
                    );
                    Ok(m)
                }),
            )
        } else if crate::eval::objects::cat_object::is_cat_object(cls.class_id) {
            Some(
                crate::eval::objects::primitive::params(self, obj, t)
                    .and_then(|p| crate::eval::objects::cat_object::mesh(cls.class_id, chunks, &p)),
            )
        } else if cls.class_id == crate::eval::objects::biped_object::BIPED_OBJECT {
            // Built inside the Biped plug-in: refused naming its body type.
            Some(Err(crate::eval::objects::biped_object::eval(chunks)))
        } else if crate::eval::objects::patch::is_rklpatch(self, obj) {
            let patch = crate::eval::objects::patch::base_patch(self, obj);
            Some(patch.and_then(|p| crate::eval::objects::patch::tessellate(&p)))
        } else {
            None
        }
    }

    /// The modifier stack of a node, top first, and the base object under it.
    pub fn modifier_stack(&self, node: usize) -> Option<(Vec<Applied<'_>>, usize)> {
        let first = self
            .graph
            .objects
            .get(node)?
            .references
            .iter()
            .find(|r| r.slot == 1)
            .and_then(|r| usize::try_from(r.target).ok())?;
        self.object_stack(first)
    }

    /// The modifier stack of object `cur` (a derived object, or a base object
    /// with an empty stack), top first, and the base object under it.
    /// Switched-off modifiers are left out, as Max leaves them out.
    pub fn object_stack(&self, mut cur: usize) -> Option<(Vec<Applied<'_>>, usize)> {
        let graph: &SceneGraph = &self.graph;
        let mut stack = Vec::new();
        for _ in 0..MAX_CHAIN {
            let o = graph.objects.get(cur)?;
            if !matches!(
                o.chunk_id,
                crate::typed::schema::DERIVED_OSM | crate::typed::schema::DERIVED_WSM
            ) {
                return Some((stack, cur));
            }
            let mut refs: Vec<(u32, usize)> = o
                .references
                .iter()
                .filter_map(|r| Some((r.slot, usize::try_from(r.target).ok()?)))
                .collect();
            refs.sort_unstable();
            let (_, base) = refs.pop()?;
            let apps = modifier::mod_apps(self.chunks(cur));
            for (slot, m) in refs {
                // A switched-off modifier is not part of Max's result.
                if modifier::is_switched_off(self.chunks(m)) {
                    continue;
                }
                let class = graph.objects.get(m).and_then(|x| x.class.as_ref());
                stack.push(Applied {
                    object: m,
                    class: class.map_or(crate::typed::ClassId(0, 0), |c| c.class_id),
                    name: class.map_or("?", |c| c.name.as_str()),
                    mod_app: apps.get(slot as usize).copied(),
                });
            }
            cur = base;
        }
        None
    }

    /// The evaluated mesh of a node at time `t`: the base object with its modifier
    /// stack applied, in object space. None when the base object is not a mesh
    /// this evaluation builds; an error names a modifier that cannot be applied.
    /// Memoized: every reader of the scene shares one evaluation.
    pub fn mesh(&self, node: usize, t: i32) -> Option<MeshResult> {
        self.mesh_with(node, t, Stack::Full)
    }

    /// The mesh of a base object at time `t`, before any modifier (shared
    /// with the stack evaluation through the memo); None when it is not a
    /// mesh this evaluation builds.
    pub(crate) fn object_mesh_of(&self, obj: usize, t: i32) -> Option<MeshResult> {
        self.memo
            .object(obj, t, || self.object_mesh(obj, t).map(|r| r.map(Arc::new)))
    }

    /// [`mesh`](Self::mesh) with part of the stack, see [`Stack`].
    pub fn mesh_with(&self, node: usize, t: i32, stack: Stack) -> Option<MeshResult> {
        let (applied, base) = self.modifier_stack(node)?;
        let stack = match stack {
            Stack::Without(m) if !applied.iter().any(|a| a.object == m) => Stack::Full,
            s => s,
        };
        self.memo.node(node, t, stack, || {
            if crate::eval::objects::patch::is_rklpatch(self, base) {
                // NeL Edit Patch acts on the patch mesh, before tessellation.
                let applied: Vec<_> = match stack {
                    Stack::Full | Stack::Replayed => applied,
                    Stack::Without(m) => applied.into_iter().filter(|a| a.object != m).collect(),
                };
                let cx = modifier::ModContext {
                    eval: self,
                    node: Some(node),
                    t,
                    max_order: true,
                    stand_ins: stack != Stack::Replayed,
                    object: None,
                };
                let m = crate::eval::objects::patch::stack_mesh(self, base, &applied, &cx);
                return Some(m.map(Arc::new));
            }
            if crate::eval::objects::shape::is_shape_object(self, base) {
                let applied: Vec<_> = match stack {
                    Stack::Full | Stack::Replayed => applied,
                    Stack::Without(m) => applied.into_iter().filter(|a| a.object != m).collect(),
                };
                return self.shape_mesh(node, base, &applied, t, ShapeStack::Whole);
            }
            let base_mesh = self.memo.object(base, t, || {
                self.object_mesh(base, t).map(|r| r.map(Arc::new))
            })?;
            let applied: Vec<_> = match stack {
                Stack::Full | Stack::Replayed => applied,
                Stack::Without(m) => applied.into_iter().filter(|a| a.object != m).collect(),
            };
            Some(base_mesh.and_then(|b| {
                if applied.is_empty() {
                    return Ok(b);
                }
                let is_bool = self.is_recomputed_boolean(base);
                crate::eval::objects::boolean::refuse_index_edits(&applied, is_bool)?;
                let cx = modifier::ModContext {
                    eval: self,
                    node: Some(node),
                    t,
                    max_order: !is_bool,
                    stand_ins: stack != Stack::Replayed,
                    object: None,
                };
                let mut m: Mesh = (*b).clone();
                modifier::apply_stack_over(&applied, base, &mut m, &cx)?;
                Ok(Arc::new(m))
            }))
        })
    }

    /// Whether object `base` is a Boolean we rebuild by CSG: its triangles
    /// are not Max's, so index-based edits above it are refused.
    fn is_recomputed_boolean(&self, base: usize) -> bool {
        self.graph
            .class(base)
            .is_some_and(|c| crate::eval::objects::boolean::is_recomputed(c.class_id))
    }

    /// The mesh of a node's stack up to and including `stack[at]` (0 = top;
    /// the modifiers above left out), at `t`, not memoized: what tests
    /// compare with references of an intermediate result. None when the
    /// base object is not a mesh this evaluation builds or `at` is past the
    /// stack.
    pub fn mesh_up_to(&self, node: usize, at: usize, t: i32) -> Option<Result<Mesh, EvalError>> {
        let (applied, base) = self.modifier_stack(node)?;
        let below = applied.get(at..)?;
        if crate::eval::objects::shape::is_shape_object(self, base) {
            // A shape becomes a mesh at its bottom modifier (Extrude, Lathe…).
            return Some(
                self.shape_mesh(node, base, below, t, ShapeStack::Part)?
                    .map(Arc::unwrap_or_clone),
            );
        }
        let mut m = match self.object_mesh(base, t)? {
            Ok(m) => m,
            Err(e) => return Some(Err(e)),
        };
        let is_bool = self.is_recomputed_boolean(base);
        let cx = modifier::ModContext {
            eval: self,
            node: Some(node),
            t,
            max_order: !is_bool,
            // The stack's own intermediate result, never a cache above.
            stand_ins: false,
            object: None,
        };
        Some(
            crate::eval::objects::boolean::refuse_index_edits(below, is_bool)
                .and_then(|()| modifier::apply_stack_from(below, base, &mut m, &cx))
                .map(|()| m),
        )
    }

    /// The evaluated shape of a node's base object (a spline shape) at `t`:
    /// its splines and their polylines in object space, before any modifier.
    /// None when the base object is not a shape.
    pub fn shape(
        &self,
        node: usize,
        t: i32,
    ) -> Option<Result<Arc<crate::eval::objects::shape::ShapeEval>, EvalError>> {
        let obj = self.node_object(node)?;
        if !crate::eval::objects::shape::is_shape_object(self, obj) {
            return None;
        }
        Some(crate::eval::objects::shape::eval_shape(self, obj, t).map_err(EvalError::from))
    }

    /// A shape's mesh: its stack's bottom modifier (Extrude) makes one of it,
    /// or — for a whole stack without modifiers, or under point deformers
    /// alone, which leave it a shape (`modifier::shape_deform`) — its
    /// renderable tube when "Enable In Renderer" is set; otherwise it is not
    /// geometry (None). A stack's lower part ([`ShapeStack::Part`]) is
    /// always made by `modifier::apply_to_shape`, an error where nothing in
    /// it makes a mesh.
    fn shape_mesh(
        &self,
        node: usize,
        base: usize,
        applied: &[Applied<'_>],
        t: i32,
        stack: ShapeStack,
    ) -> Option<MeshResult> {
        use crate::eval::objects::shape;
        let evaluated = shape::eval_shape(self, base, t);
        let whole = stack == ShapeStack::Whole;
        let cx = modifier::ModContext {
            eval: self,
            node: Some(node),
            t,
            max_order: true,
            // A lower part is the stack's own intermediate result, never a
            // cache above.
            stand_ins: whole,
            object: None,
        };
        if whole && modifier::shape_deform::bottom_run(applied) == applied.len() {
            return match evaluated {
                Ok(s) if s.render.renderable => Some(
                    modifier::shape_deform::deformed(applied, base, &s, &cx).and_then(|d| {
                        shape::render_mesh::render_mesh(&d.polylines, &d.render)
                            .map(Arc::new)
                            .map_err(EvalError::from)
                    }),
                ),
                Ok(_) => None,
                Err(e) => {
                    // Whether it would render cannot be known without its
                    // parameters: a readable "not renderable" is not geometry.
                    let renderable = shape::render_mesh::RenderParams::read(self, base, t)
                        .map(|r| r.renderable)
                        .unwrap_or(true);
                    renderable.then(|| Err(EvalError::malformed("shape", format!("{e}"))))
                }
            };
        }
        // Edit Spline passes a shape up with its base's rendering settings
        // (the modifier has no Rendering rollout): on a shape that does not
        // render, a stack of Edit Splines and point deformers is a shape no
        // one renders either — a rig's control circles, not geometry.
        if whole
            && applied
                .iter()
                .all(|a| a.class == modifier::EDIT_SPLINE || modifier::moves_points_only(a.class))
            && shape::render_mesh::RenderParams::read(self, base, t).is_ok_and(|r| !r.renderable)
        {
            return None;
        }
        Some(
            evaluated
                .map_err(|e| EvalError::from(e).inside("shape"))
                .and_then(|s| modifier::apply_to_shape(applied, base, &s, &cx))
                .map(Arc::new),
        )
    }

    /// Per (node, time): how many times its stack was evaluated. With the memo
    /// this is at most once per distinct [`Stack`] request.
    pub fn stack_evaluations(&self) -> std::collections::HashMap<(usize, i32), u32> {
        self.memo.per_node()
    }

    /// Where the object's vertices go: offset · world.
    pub fn object_tm(&self, node: usize, t: i32) -> Mat43 {
        self.offset_tm(node).then(&self.world_tm(node, t))
    }

    /// LookAt: the node's -Z axis points at the target, Max keeping the up
    /// vector on world Z, then the roll turns it about its local Z by
    /// `RotateZMatrix(roll)` (sign checked against Max's ASE export).
    /// `refs` = [target node, position, roll, scale] controllers.
    fn lookat_tm(
        &self,
        node: usize,
        refs: [Option<usize>; 4],
        t: i32,
        depth: usize,
        budget: &Cell<u32>,
    ) -> Mat43 {
        let [target, position, roll, scale] = refs;
        let pos = self.node_position(node, position, t, depth, budget);
        let parent_world = self
            .parent(node)
            .map(|p| self.world_tm_at_depth(p, t, depth + 1, budget));
        let world_pos = parent_world.map_or(pos, |m| m.transform_point(pos));
        let target_pos = target
            .filter(|&tg| self.node(tg).is_some())
            .map(|tg| self.world_tm_at_depth(tg, t, depth + 1, budget).0[3])
            .unwrap_or(world_pos.minus(Vec3(0.0, 0.0, 1.0)));
        let z = world_pos.minus(target_pos).normalized();
        let up = if z.cross(Vec3(0.0, 0.0, 1.0)).len() < 1e-9 {
            Vec3(0.0, 1.0, 0.0)
        } else {
            Vec3(0.0, 0.0, 1.0)
        };
        let x = up.cross(z).normalized();
        let y = z.cross(x);
        let world = Mat43([x, y, z, world_pos]);
        let rolled = Mat43::rot_z(self.float_at(roll, t, 0.0)).then(&world);
        let scaled = self.scale_tm(scale, t).then(&rolled);
        match parent_world {
            Some(pw) => scaled.then(&invert(&pw)),
            None => scaled,
        }
    }
}

/// The object offset's rotation from the node's stored quaternion (0x096b),
/// normalized first: Max turns a stored quaternion of any length into a pure
/// rotation. Alesiai/UnityKursovoi's Installation.max stores Box011's as
/// (6.17, 0, 0, 0.707), and 3ds Max's FBX of the scene holds the box at its
/// own size (3.2), not scaled by the unnormalized quaternion's 76.
pub(crate) fn offset_rotation(q: [f32; 4]) -> Quat {
    Quat::from_f32(q).normalized().conjugate()
}

/// Inverse of an affine 4×3 matrix (identity when singular).
pub fn invert(m: &Mat43) -> Mat43 {
    let [a, b, c, t] = m.0;
    let det = m.determinant3();
    if det.abs() < 1e-300 {
        return Mat43::IDENTITY;
    }
    // Rows of the inverse 3×3 are the columns of the adjugate / det.
    let r0 = b.cross(c).scale(1.0 / det);
    let r1 = c.cross(a).scale(1.0 / det);
    let r2 = a.cross(b).scale(1.0 / det);
    // inv3 has columns r0, r1, r2 → rows:
    let rows = [
        Vec3(r0.0, r1.0, r2.0),
        Vec3(r0.1, r1.1, r2.1),
        Vec3(r0.2, r1.2, r2.2),
    ];
    let inv = Mat43([rows[0], rows[1], rows[2], Vec3::default()]);
    let nt = inv.transform_vector(t).scale(-1.0);
    Mat43([rows[0], rows[1], rows[2], nt])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unnormalized_offset_quaternion_is_a_pure_rotation() {
        // Box011's stored offset rotation in Alesiai/UnityKursovoi's
        // Installation.max; the FBX holds the box unscaled.
        let m = Mat43::rotation(offset_rotation([
            6.16758,
            -1.0862141e-07,
            -3.448972e-08,
            0.70710677,
        ]));
        for row in &m.0[..3] {
            assert!((row.dot(*row) - 1.0).abs() < 1e-9, "{row:?}");
        }
        // The rotation is about x by 2·atan2(6.16758, 0.70710677).
        let a = 2.0 * 6.16758f64.atan2(0.70710677);
        assert!((m.0[1].1 - a.cos()).abs() < 1e-6, "{:?}", m.0[1]);
        assert!(
            (m.0[1].2.abs() - a.sin().abs()).abs() < 1e-6,
            "{:?}",
            m.0[1]
        );
    }
}
