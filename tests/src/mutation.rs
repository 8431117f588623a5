//! Damaging .max files and running every reader over the result: what the
//! corpus mutation test (tests/scene_mutation.rs) and the `mutate_files`
//! example share. The allocator that counts (and caps) the heap, the seeded
//! generator, the ways a Scene stream is damaged (random bytes, leaf payload
//! edits, cut leaves, a reshaped chunk tree, chunk size fields), the hang
//! watchdog, and the run of the evaluation, every `json/` view and the
//! exporters over a damaged file.
#![allow(unsafe_code)] // the counting global allocator

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use maxfs_exporters::nel::{
    self,
    export::{self, ExportKind},
};
use maxfs_fs::views::{self, JsonView};
use maxfs_scene::check::{CheckReport, Outcome};
use maxfs_scene::chunk::{self, Body, Chunk};
use maxfs_scene::container::MaxFile;
use maxfs_scene::eval::{rigs::biped, SceneEval};
use maxfs_scene::Document;

/// A global allocator that tracks live and peak heap bytes and refuses
/// allocations past a cap ([`set_cap`]; none by default). A binary that
/// measures installs it: `#[global_allocator] static GLOBAL: Counting = Counting;`.
pub struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counters only observe it, and a refusal is the null pointer the
// GlobalAlloc contract allows.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if LIVE.load(Relaxed).saturating_add(l.size()) > CAP.load(Relaxed) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged to the system allocator.
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() && LIVE.load(Relaxed).saturating_add(new - l.size()) > CAP.load(Relaxed) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged to the system allocator.
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                let now = LIVE.fetch_add(new - l.size(), Relaxed) + (new - l.size());
                PEAK.fetch_max(now, Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

/// Makes [`Counting`] refuse (the process then aborts, out of memory) any
/// allocation that would take the live heap past `bytes`.
pub fn set_cap(bytes: usize) {
    CAP.store(bytes, Relaxed);
}

/// The peak heap growth of `f` above what was live before it (0 unless
/// [`Counting`] is the global allocator).
pub fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed).saturating_sub(before))
}

/// xorshift64*: deterministic, no dependency.
pub struct Rng(pub u64);
impl Rng {
    #[allow(clippy::should_implement_trait)] // not an iterator: it never ends
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number below `n` (0 for 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Offsets of every chunk header in a stream at `base`, for size-field edits.
pub fn header_offsets(chunks: &[Chunk], base: usize, out: &mut Vec<usize>) {
    let mut pos = base;
    for c in chunks {
        out.push(pos);
        let header = if c.wide { 14 } else { 6 };
        header_offsets(c.children(), pos + header, out);
        pos += c.encoded_len() as usize;
    }
}

/// The payload ranges (start, length) of the non-empty leaf chunks of a
/// chunk tree at `base`.
pub fn leaf_ranges(chunks: &[Chunk], base: usize, out: &mut Vec<(usize, usize)>) {
    let mut pos = base;
    for c in chunks {
        let header = if c.wide { 14 } else { 6 };
        match c.payload() {
            Some(d) if !d.is_empty() => out.push((pos + header, d.len())),
            Some(_) => {}
            None => leaf_ranges(c.children(), pos + header, out),
        }
        pos += c.encoded_len() as usize;
    }
}

/// Overwrites 1 to 32 random bytes of `data` (nothing when it is empty).
pub fn scramble(data: &mut [u8], rng: &mut Rng) {
    if data.is_empty() {
        return;
    }
    for _ in 0..1 + rng.below(32) {
        let at = rng.below(data.len());
        data[at] = rng.next() as u8;
    }
}

/// Leaf mode: 1 to 8 edits, each in a leaf chunk picked uniformly (so small
/// chunks — counts, indices, references, flags — are hit as often as vertex
/// arrays): a random byte, or a boundary u32 (0, 1, -1, i32::MAX, i32::MIN, a
/// small count, a random word) at a 4-byte step of the payload. The chunk
/// tree's framing stays intact, so the typed layer and the evaluation see the
/// damaged values. `leaves` are [`leaf_ranges`] of `data`.
pub fn edit_leaves(data: &mut [u8], leaves: &[(usize, usize)], rng: &mut Rng) {
    for _ in 0..1 + rng.below(8) {
        let (start, len) = leaves[rng.below(leaves.len())];
        if rng.below(2) == 0 || len < 4 {
            data[start + rng.below(len)] = rng.next() as u8;
        } else {
            let at = start + 4 * rng.below(len / 4);
            let word: u32 = match rng.below(7) {
                0 => 0,
                1 => 1,
                2 => u32::MAX,
                3 => i32::MAX as u32,
                4 => 0x8000_0000,
                5 => rng.below(1000) as u32,
                _ => rng.next() as u32,
            };
            data[at..at + 4].copy_from_slice(&word.to_le_bytes());
        }
    }
}

/// The `n`th chunk (depth first) that `pick` accepts.
fn nth_chunk<'a>(
    chunks: &'a mut [Chunk],
    n: &mut usize,
    pick: &dyn Fn(&Chunk) -> bool,
) -> Option<&'a mut Chunk> {
    for c in chunks {
        if pick(c) {
            if *n == 0 {
                return Some(c);
            }
            *n -= 1;
        }
        if let Body::Container(children) = &mut c.body {
            if let Some(found) = nth_chunk(children, n, pick) {
                return Some(found);
            }
        }
    }
    None
}

fn count_chunks(chunks: &[Chunk], pick: &dyn Fn(&Chunk) -> bool) -> usize {
    chunks
        .iter()
        .map(|c| usize::from(pick(c)) + count_chunks(c.children(), pick))
        .sum()
}

/// Cut mode: 1 to 4 leaf chunks (picked uniformly) cut short, emptied or
/// lengthened by 1 to 8 random bytes (the headers are rewritten to match
/// when the tree is written): the readers meet payloads shorter or longer
/// than the layout they expect.
pub fn cut_leaves(chunks: &mut [Chunk], rng: &mut Rng) {
    let is_leaf = |c: &Chunk| !c.is_container();
    let leaves = count_chunks(chunks, &is_leaf);
    for _ in 0..1 + rng.below(4) {
        let mut n = rng.below(leaves);
        let how = rng.below(3);
        let extra: Vec<u8> = (0..1 + rng.below(8)).map(|_| rng.next() as u8).collect();
        let keep = rng.next() as usize;
        if let Some(c) = nth_chunk(chunks, &mut n, &is_leaf) {
            if let Body::Leaf(d) = &c.body {
                let mut d = d.to_vec();
                match how {
                    0 => d.truncate(keep % d.len().max(1)),
                    1 => d.clear(),
                    _ => d.extend_from_slice(&extra),
                }
                c.body = Body::Leaf(d.into());
            }
        }
    }
}

/// Tree mode: 1 to 3 edits of a container chunk (picked uniformly): a child
/// removed, duplicated, or two children swapped — chunks missing, repeated
/// or out of order.
pub fn edit_tree(chunks: &mut [Chunk], rng: &mut Rng) {
    let is_container = |c: &Chunk| matches!(&c.body, Body::Container(k) if !k.is_empty());
    let containers = count_chunks(chunks, &is_container);
    for _ in 0..1 + rng.below(3) {
        let mut n = rng.below(containers);
        let (how, i, j) = (rng.below(3), rng.next() as usize, rng.next() as usize);
        if let Some(c) = nth_chunk(chunks, &mut n, &is_container) {
            if let Body::Container(k) = &mut c.body {
                if k.is_empty() {
                    continue;
                }
                let (i, j) = (i % k.len(), j % k.len());
                match how {
                    0 => {
                        k.remove(i);
                    }
                    1 => k.insert(i, k[i].clone()),
                    _ => k.swap(i, j),
                }
            }
        }
    }
}

/// How a file's Scene stream is damaged, with what each way needs of the
/// intact stream computed once.
pub enum Damage {
    /// [`scramble`]: 1 to 32 random bytes anywhere.
    Bytes,
    /// [`edit_leaves`] over these leaf payload ranges.
    Leaf(Vec<(usize, usize)>),
    /// [`cut_leaves`] of this parsed tree.
    Cut(Vec<Chunk>),
    /// [`edit_tree`] of this parsed tree.
    Tree(Vec<Chunk>),
}

impl Damage {
    /// The damage `mode` names ("leaf", "cut", "tree"; anything else is
    /// random bytes) for `file`'s Scene stream; a stream whose chunk tree
    /// does not parse (or has no leaf to edit) gets random bytes.
    pub fn of(mode: &str, file: &MaxFile) -> Damage {
        let tree = file
            .streams
            .iter()
            .find(|s| s.name == "Scene")
            .and_then(|s| chunk::parse(&s.data).ok());
        match (mode, tree) {
            ("leaf", Some(tree)) => {
                let mut leaves = Vec::new();
                leaf_ranges(&tree, 0, &mut leaves);
                if leaves.is_empty() {
                    Damage::Bytes
                } else {
                    Damage::Leaf(leaves)
                }
            }
            ("cut", Some(tree)) => Damage::Cut(tree),
            ("tree", Some(tree)) => Damage::Tree(tree),
            _ => Damage::Bytes,
        }
    }

    /// Damages `file`'s Scene stream; one that is missing or empty is left
    /// as it is.
    pub fn apply(&self, file: &mut MaxFile, rng: &mut Rng) {
        let Some(scene) = file.streams.iter_mut().find(|s| s.name == "Scene") else {
            return;
        };
        let mut data = scene.data.to_vec();
        if data.is_empty() {
            return;
        }
        match self {
            Damage::Bytes => scramble(&mut data, rng),
            Damage::Leaf(leaves) => edit_leaves(&mut data, leaves, rng),
            Damage::Cut(tree) | Damage::Tree(tree) => {
                let mut tree = tree.clone();
                if matches!(self, Damage::Cut(_)) {
                    cut_leaves(&mut tree, rng);
                } else {
                    edit_tree(&mut tree, rng);
                }
                data = chunk::write(&tree);
            }
        }
        scene.data = data.into();
    }
}

/// The run in progress (file, mutation, start), for the hang watchdog.
static CURRENT: Mutex<Option<(String, usize, Instant)>> = Mutex::new(None);

/// Starts a thread that ends the process (status 3, printing `HANG` with the
/// file and mutation) when the run [`watch_begin`] announced takes longer
/// than `hang`.
pub fn start_watchdog(hang: Duration) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_secs(5));
        let cur = CURRENT.lock().map(|c| c.clone()).unwrap_or(None);
        if let Some((p, m, start)) = cur {
            if start.elapsed() > hang {
                println!("HANG\t{p}\tmutation {m}\t> {} s, run ended", hang.as_secs());
                std::process::exit(3);
            }
        }
    });
}

/// Tells the watchdog that mutation `m` of `file` starts now.
pub fn watch_begin(file: &str, m: usize) {
    if let Ok(mut c) = CURRENT.lock() {
        *c = Some((file.to_string(), m, Instant::now()));
    }
}

/// Tells the watchdog that the run announced last is over.
pub fn watch_end() {
    if let Ok(mut c) = CURRENT.lock() {
        *c = None;
    }
}

/// Panics unless a check report is precise: nothing that parsed failed to
/// round-trip, and an error is a short non-empty text.
pub fn assert_precise(what: &str, r: &CheckReport) {
    match &r.outcome {
        Outcome::Fail(m) => panic!("{what}: a parsed stream did not round-trip: {m:?}"),
        Outcome::Error(e) | Outcome::Unsupported(e) | Outcome::NotACompoundFile(e) => {
            assert!(!e.trim().is_empty(), "{what}: empty error");
            assert!(e.len() < 2000, "{what}: runaway error text");
        }
        Outcome::Ok => {}
    }
}

/// What one run of [`read_all`] reached: the scene evaluated, and its meshes
/// at 2400 that evaluated / failed.
#[derive(Default, Clone, Copy)]
pub struct Reach {
    pub evaluated: bool,
    pub meshes: usize,
    pub mesh_errors: usize,
}

/// Runs every reader over a (possibly damaged) file, its exports named as
/// `<stem>.max` (the ligo brick paths key on it): every node's transform at
/// three ticks and mesh at 2400 (Skin and Morpher follow animated bones and
/// weights), every Biped bone's figure pose, every `json/` view, the NeL
/// exporters and the glTF exporter. They must not panic or hang, whatever
/// the controllers and meshes hold; each NeL output must read back and
/// rewrite identically, and each export error must say why.
pub fn read_all(file: MaxFile, stem: &str) -> Reach {
    let mut reach = Reach::default();
    let Ok(eval) = SceneEval::from_document(Document::from_file(file)) else {
        return reach;
    };
    reach.evaluated = true;
    let nodes: Vec<usize> = eval.graph.nodes().map(|(o, _)| o.index).collect();
    for &n in &nodes {
        for t in [0, 2400, 9600] {
            std::hint::black_box(eval.world_tm(n, t));
        }
        match eval.mesh(n, 2400) {
            Some(Ok(_)) => reach.meshes += 1,
            Some(Err(_)) => reach.mesh_errors += 1,
            None => {}
        }
    }
    for rig in biped::rigs(&eval).into_iter().flatten() {
        for b in &rig.bones {
            std::hint::black_box(biped::figure::world(&rig, b.role)).ok();
        }
    }
    for view in JsonView::ALL {
        std::hint::black_box(views::render(view, &eval.doc, &eval.typed, Ok(&eval)));
    }
    let exports = export::export(stem, &eval, &ExportKind::ALL);
    for o in &exports.outputs {
        let f = nel::read_nel(&o.bytes, &o.name)
            .unwrap_or_else(|e| panic!("exported {} does not read back: {e}", o.name));
        assert!(
            nel::write_nel(&f).is_ok_and(|b| b == o.bytes),
            "exported {} does not rewrite identically",
            o.name
        );
    }
    for e in &exports.errors {
        assert!(!e.reason.is_empty(), "{e:?}");
    }
    std::hint::black_box(maxfs_exporters::gltf::export_scene(&eval)).ok();
    reach
}
