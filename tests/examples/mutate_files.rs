//! The corpus mutation test (tests/scene_mutation.rs) on files that cannot be
//! in the corpus: `cargo run --release -p maxfs-tests --example mutate_files
//! -- N DIR_OR_FILE…` overwrites 1 to 32 random bytes of each file's Scene
//! stream N times (deterministic per file) and runs on each result the check
//! layer (a stream that parses must round-trip), the evaluation (every node's
//! transform at three ticks, every mesh at two ticks, every Biped bone), every
//! `json/` view, the NeL exporters (each output must read back and rewrite
//! identically) and the glTF exporter. A panic is caught and printed with the
//! file and mutation number; a mutation whose run takes longer than 20 s is
//! printed as slow (a hang candidate) and one whose peak heap exceeds both
//! 512 MiB and 256 bytes per input byte as big, each with the intact file's
//! time or peak beside it (a run of the same file unmutated). Used on the
//! public sweeps (docs/unseen-files.md) to reach the modules the corpus has
//! no file for (Loft, Relax, Cap Holes, script controllers …).
//!
//! MAXFS_MUTATE_MODE=leaf edits the payloads of leaf chunks instead (see
//! [`edit_leaves`]): the chunk framing survives, so the mutations reach the
//! typed layer and the evaluation far more often than random bytes do.
//! MAXFS_MUTATE_MODE=cut shortens, empties or lengthens leaf chunks
//! ([`cut_leaves`]) and MAXFS_MUTATE_MODE=tree removes, repeats or swaps
//! chunks ([`edit_tree`]), the headers rewritten to match.
//!
//! Each file's mutations are seeded by its place in the list of files, so a
//! rerun repeats them only with the same arguments.
//!
//! Environment: MAXFS_MUTATE_ONLY=<text> runs only the files whose path holds
//! it, with the mutations a whole run gives them (MAXFS_MUTATE_M=<m> only
//! mutation m of those); MAXFS_MUTATE_SAVE=<dir> writes each slow, big or
//! panicking mutation there as a .max to look at; MAXFS_MUTATE_HANG=<s>
//! (default 600) ends the whole run, naming the mutation, when one run takes
//! longer; MAXFS_MUTATE_INTACT=1 also runs each intact file once and prints
//! how far those runs reached (the measure of how much the mutations reach);
//! MAXFS_MUTATE_CAP_MB=<MiB> (default 8192) makes the allocator fail
//! (an abort, named on stderr by the `run` line before it) past that much live
//! heap, so a runaway allocation cannot take the machine's memory.
#![allow(unsafe_code)] // the counting global allocator

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use maxfs_exporters::nel::{
    self,
    export::{self, ExportKind},
};
use maxfs_fs::views::{self, JsonView};
use maxfs_scene::check::{check_file, Outcome};
use maxfs_scene::chunk::{self, Body, Chunk};
use maxfs_scene::container::MaxFile;
use maxfs_scene::eval::{rigs::biped, SceneEval};
use maxfs_scene::Document;

/// Tracks live and peak heap bytes, and refuses allocations past a cap.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);

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

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The peak heap growth of `f` above what was live before it.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed).saturating_sub(before))
}

/// The run in progress (file, mutation, start), for the hang watchdog.
static CURRENT: Mutex<Option<(String, usize, Instant)>> = Mutex::new(None);

/// xorshift64*, seeded per file so a run repeats.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The payload ranges of the leaf chunks of a chunk tree at `base`.
fn leaf_ranges(chunks: &[Chunk], base: usize, out: &mut Vec<(usize, usize)>) {
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

/// Leaf mode: 1 to 8 edits, each in a leaf chunk picked uniformly (so small
/// chunks — counts, indices, references, flags — are hit as often as vertex
/// arrays): a random byte, or a boundary u32 (0, 1, -1, i32::MAX, i32::MIN, a
/// small count, a random word) at a 4-byte step of the payload. The chunk
/// tree's framing stays intact, so the typed layer and the evaluation see the
/// damaged values.
fn edit_leaves(data: &mut [u8], leaves: &[(usize, usize)], rng: &mut Rng) {
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
/// lengthened by 1 to 8 random bytes, the headers rewritten to match: the
/// readers meet payloads shorter or longer than the layout they expect.
fn cut_leaves(chunks: &mut [Chunk], rng: &mut Rng) {
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
fn edit_tree(chunks: &mut [Chunk], rng: &mut Rng) {
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

fn max_files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let Ok(rd) = std::fs::read_dir(p) else { return };
        let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            max_files(&e, out);
        }
    } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("max")) {
        out.push(p.to_path_buf());
    }
}

/// What one run reached: the scene evaluated, and its meshes at 2400 that
/// evaluated / failed.
#[derive(Default, Clone, Copy)]
struct Reach {
    evaluated: bool,
    meshes: usize,
    mesh_errors: usize,
}

fn run(file: MaxFile) -> Reach {
    let mut reach = Reach::default();
    // The check layer: whatever parses must round-trip, errors are precise.
    match check_file(file.clone(), false).outcome {
        Outcome::Fail(m) => panic!("a parsed stream did not round-trip: {m:?}"),
        Outcome::Error(e) | Outcome::Unsupported(e) | Outcome::NotACompoundFile(e) => {
            assert!(!e.trim().is_empty(), "empty check error");
            assert!(e.len() < 2000, "runaway check error text");
        }
        Outcome::Ok => {}
    }
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
    let exports = export::export("mutated", &eval, &ExportKind::ALL);
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

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(n) = args.first().and_then(|a| a.parse::<usize>().ok()) else {
        eprintln!("usage: mutate_files N DIR_OR_FILE…");
        std::process::exit(2);
    };
    let mut files = Vec::new();
    for a in &args[1..] {
        max_files(Path::new(a), &mut files);
    }
    let only = std::env::var("MAXFS_MUTATE_ONLY").ok();
    let only_m = std::env::var("MAXFS_MUTATE_M")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    let save = std::env::var_os("MAXFS_MUTATE_SAVE").map(PathBuf::from);
    let hang = Duration::from_secs(env_num("MAXFS_MUTATE_HANG", 600));
    CAP.store(
        usize::try_from(env_num("MAXFS_MUTATE_CAP_MB", 8192).saturating_mul(1 << 20))
            .unwrap_or(usize::MAX),
        Relaxed,
    );
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
    let (mut runs, mut panics, mut slow, mut big) = (0, 0, 0, 0);
    let (mut evaluated, mut meshes, mut mesh_errors) = (0, 0, 0);
    let mode = std::env::var("MAXFS_MUTATE_MODE").unwrap_or_default();
    let intact_too = std::env::var_os("MAXFS_MUTATE_INTACT").is_some();
    // Files evaluated, meshes evaluated, mesh errors of the intact files.
    let mut intact = [0usize; 3];
    for (k, p) in files.iter().enumerate() {
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        let Ok(original) = MaxFile::from_bytes(&bytes) else {
            continue;
        };
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (k as u64 + 1).wrapping_mul(0x1234_5677));
        let skip = only
            .as_deref()
            .is_some_and(|o| !p.display().to_string().contains(o));
        // The intact file's run (seconds, peak heap), measured when a mutation is slow or big.
        let mut intact_cost: Option<(f64, usize)> = None;
        let mut leaves = Vec::new();
        let tree = original
            .streams
            .iter()
            .find(|s| s.name == "Scene")
            .and_then(|s| chunk::parse(&s.data).ok());
        if let Some(chunks) = &tree {
            leaf_ranges(chunks, 0, &mut leaves);
        }
        if intact_too && !skip {
            if let Ok(reach) = panic::catch_unwind(AssertUnwindSafe(|| run(original.clone()))) {
                intact[0] += usize::from(reach.evaluated);
                intact[1] += reach.meshes;
                intact[2] += reach.mesh_errors;
            }
        }
        for m in 0..n {
            let mut f = original.clone();
            if let Some(scene) = f.streams.iter_mut().find(|s| s.name == "Scene") {
                let mut data = scene.data.to_vec();
                if data.is_empty() {
                    continue;
                }
                if mode == "leaf" && !leaves.is_empty() {
                    edit_leaves(&mut data, &leaves, &mut rng);
                } else if let (true, Some(tree)) = (mode == "cut" || mode == "tree", &tree) {
                    let mut tree = tree.clone();
                    if mode == "cut" {
                        cut_leaves(&mut tree, &mut rng);
                    } else {
                        edit_tree(&mut tree, &mut rng);
                    }
                    data = chunk::write(&tree);
                } else {
                    for _ in 0..1 + rng.below(32) {
                        let at = rng.below(data.len());
                        data[at] = rng.next() as u8;
                    }
                }
                scene.data = data.into();
            }
            if skip || only_m.is_some_and(|o| o != m) {
                continue;
            }
            let kept = save.as_ref().map(|_| f.clone());
            eprintln!("run\t{}\tmutation {m}", p.display());
            if let Ok(mut c) = CURRENT.lock() {
                *c = Some((p.display().to_string(), m, Instant::now()));
            }
            let start = Instant::now();
            let (r, peak) = peak_of(|| panic::catch_unwind(AssertUnwindSafe(|| run(f))));
            let secs = start.elapsed().as_secs_f64();
            if let Ok(mut c) = CURRENT.lock() {
                *c = None;
            }
            runs += 1;
            if let Ok(reach) = &r {
                evaluated += usize::from(reach.evaluated);
                meshes += reach.meshes;
                mesh_errors += reach.mesh_errors;
            }
            let is_big = peak > 512 << 20 && peak > 256 * bytes.len();
            if (is_big || secs > 20.0) && intact_cost.is_none() {
                let intact = original.clone();
                let start = Instant::now();
                let peak = peak_of(|| panic::catch_unwind(AssertUnwindSafe(|| run(intact)))).1;
                intact_cost = Some((start.elapsed().as_secs_f64(), peak));
            }
            if let (Some(dir), Some(f)) = (&save, kept) {
                if r.is_err() || secs > 20.0 || is_big {
                    let name = format!(
                        "{}-m{m}.max",
                        p.file_stem()
                            .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
                    );
                    if let Ok(bytes) = f.to_bytes() {
                        let _ = std::fs::write(dir.join(name), bytes);
                    }
                }
            }
            if let Err(e) = r {
                panics += 1;
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                println!("PANIC\t{}\tmutation {m}\t{msg}", p.display());
            } else if secs > 20.0 {
                slow += 1;
                println!(
                    "SLOW\t{}\tmutation {m}\t{secs:.1} s (intact file {:.1} s)",
                    p.display(),
                    intact_cost.map_or(0.0, |c| c.0)
                );
            }
            if is_big {
                big += 1;
                println!(
                    "BIG\t{}\tmutation {m}\t{} MiB peak (intact file {} MiB, input {} KiB)",
                    p.display(),
                    peak >> 20,
                    intact_cost.map_or(0, |c| c.1) >> 20,
                    bytes.len() >> 10
                );
            }
        }
    }
    println!(
        "summary\t{} files\t{runs} runs\t{panics} panics\t{slow} slow\t{big} big\t\
         {evaluated} runs evaluated\t{meshes} meshes evaluated\t{mesh_errors} mesh errors",
        files.len()
    );
    if intact_too {
        println!(
            "intact\t{} files evaluated\t{} meshes evaluated\t{} mesh errors",
            intact[0], intact[1], intact[2]
        );
    }
}
