//! Memoized mesh evaluation. Every reader of a file (JSON views, glTF, the NeL
//! exporters, coverage) asks the same [`SceneEval`](crate::eval::SceneEval) for
//! meshes; evaluating a Boolean or a Skin once per reader was the main cost of
//! reading a file's exports, so results are kept per (what, time).
//!
//! Only top-level requests are memoized: nested evaluations (Boolean operands)
//! go around the memo, so a cycle in damaged references meets the evaluator's
//! own depth budget instead of re-entering a cell that is being filled.
//!
//! The memo never evicts (a cell may be shared by readers at any time), so it
//! holds a per-file byte budget instead: a mesh that would take the bytes held
//! past it is refused as a [`EvalError::Limit`] naming the budget, and that
//! refusal is what the memo keeps for it. Which mesh meets the budget first
//! depends on the order readers ask in; the total held never passes it.

use crate::eval::error::EvalError;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use crate::eval::objects::mesh::Mesh;

/// An evaluated mesh, shared, or why it could not be evaluated.
pub type MeshResult = Result<Arc<Mesh>, EvalError>;

/// Which part of a node's modifier stack a mesh request applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stack {
    /// The whole stack, as Max shows the node.
    Full,
    /// The whole stack but one modifier (the NeL exporter disables the Skin).
    /// A modifier that is not in the node's stack makes this the same request
    /// as `Full`, and it is keyed as such.
    Without(usize),
    /// The whole stack from its own modifiers only: no result Max saved (an
    /// Unwrap UVW's cache of its input) stands in for a part not evaluated —
    /// what is compared with those saved results, and what names the part.
    Replayed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    /// A base object on its own (`object`, time).
    Object(usize, i32),
    /// A node with (part of) its modifier stack.
    Node(usize, i32, Stack),
}

type Cell = Arc<OnceLock<Option<MeshResult>>>;

/// What a memo computed and served, for tests and `--stats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoStats {
    /// Base objects evaluated through the memo (each key at most once).
    pub object_evaluations: u64,
    /// Every base object built, Boolean operands and other nested builds
    /// included: a reader that bypassed the memo would raise this.
    pub object_builds: u64,
    /// Node meshes evaluated through their stack (each key at most once).
    pub node_evaluations: u64,
    /// Requests answered from the memo.
    pub hits: u64,
    /// Estimated bytes of the meshes held.
    pub bytes: u64,
}

/// Bytes of evaluated meshes one file may hold by default: about a hundred
/// times the most any file seen holds (43.6 MB of 1,210 corpus and public
/// files), far below a machine's memory.
pub const DEFAULT_MESH_BUDGET: u64 = 4 << 30;

pub(crate) struct MeshMemo {
    cells: Mutex<HashMap<Key, Cell>>,
    objects: AtomicU64,
    builds: AtomicU64,
    hits: AtomicU64,
    bytes: AtomicU64,
    /// The most bytes of meshes held (see the module's comment).
    budget: AtomicU64,
    /// Per node and time: how often its full or filtered stack was evaluated.
    per_node: Mutex<HashMap<(usize, i32), u32>>,
}

impl Default for MeshMemo {
    fn default() -> Self {
        MeshMemo {
            cells: Mutex::default(),
            objects: AtomicU64::new(0),
            builds: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            budget: AtomicU64::new(DEFAULT_MESH_BUDGET),
            per_node: Mutex::default(),
        }
    }
}

impl MeshMemo {
    pub(crate) fn set_budget(&self, bytes: u64) {
        self.budget.store(bytes, Ordering::Relaxed);
    }

    pub(crate) fn budget(&self) -> u64 {
        self.budget.load(Ordering::Relaxed)
    }

    /// Charges a computed mesh to the budget, or gives the refusal kept in
    /// its place.
    fn charge(&self, r: Option<MeshResult>) -> Option<MeshResult> {
        let Some(Ok(m)) = &r else {
            return r;
        };
        let n = mesh_bytes(m);
        let budget = self.budget();
        let taken = self
            .bytes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                held.checked_add(n).filter(|&t| t <= budget)
            });
        match taken {
            Ok(_) => r,
            Err(held) => Some(Err(EvalError::Limit {
                what: format!(
                    "evaluated meshes of this file: a mesh of {n} bytes with {held} bytes \
                     held (the per-file budget, --meshes-mb)"
                ),
                limit: budget,
            })),
        }
    }

    fn get(&self, key: Key, compute: impl FnOnce() -> Option<MeshResult>) -> Option<MeshResult> {
        let cell = self.cells.lock().entry(key).or_default().clone();
        let mut computed = false;
        let r = cell
            .get_or_init(|| {
                computed = true;
                self.charge(compute())
            })
            .clone();
        if computed {
            match key {
                Key::Object(..) => {
                    self.objects.fetch_add(1, Ordering::Relaxed);
                }
                Key::Node(n, t, _) => *self.per_node.lock().entry((n, t)).or_default() += 1,
            }
        } else {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        r
    }

    pub(crate) fn object(
        &self,
        obj: usize,
        t: i32,
        compute: impl FnOnce() -> Option<MeshResult>,
    ) -> Option<MeshResult> {
        self.get(Key::Object(obj, t), compute)
    }

    pub(crate) fn node(
        &self,
        node: usize,
        t: i32,
        stack: Stack,
        compute: impl FnOnce() -> Option<MeshResult>,
    ) -> Option<MeshResult> {
        self.get(Key::Node(node, t, stack), compute)
    }

    /// Counts one base-object build, memoized or not.
    pub(crate) fn count_build(&self) {
        self.builds.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn stats(&self) -> MemoStats {
        MemoStats {
            object_evaluations: self.objects.load(Ordering::Relaxed),
            object_builds: self.builds.load(Ordering::Relaxed),
            node_evaluations: self.per_node.lock().values().map(|&n| u64::from(n)).sum(),
            hits: self.hits.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }

    /// Per (node, time): how many stack evaluations were made for it.
    pub(crate) fn per_node(&self) -> HashMap<(usize, i32), u32> {
        self.per_node.lock().clone()
    }
}

/// Heap bytes of a mesh, for cache budgets.
pub fn mesh_bytes(m: &Mesh) -> u64 {
    let maps: usize = m
        .maps
        .iter()
        .map(|c| c.vertices.len() * 12 + c.faces.len() * 12 + 64)
        .sum();
    (m.vertices.len() * std::mem::size_of::<crate::eval::core::math::Vec3>()
        + m.faces.len() * std::mem::size_of::<crate::eval::objects::mesh::Face>()
        + maps
        + 128) as u64
}
