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
//! MAXFS_MUTATE_MODE=leaf edits the payloads of leaf chunks instead (the
//! ways of damage are in `maxfs_tests::mutation`): the chunk framing
//! survives, so the mutations reach the typed layer and the evaluation far more often than random bytes do.
//! MAXFS_MUTATE_MODE=cut shortens, empties or lengthens leaf chunks
//! (`cut_leaves`) and MAXFS_MUTATE_MODE=tree removes, repeats or swaps
//! chunks (`edit_tree`), the headers rewritten to match.
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

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use maxfs_scene::check::check_file;
use maxfs_scene::container::MaxFile;
use maxfs_tests::mutation::{
    assert_precise, peak_of, read_all, set_cap, start_watchdog, watch_begin, watch_end, Counting,
    Damage, Reach, Rng,
};

#[global_allocator]
static GLOBAL: Counting = Counting;

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

/// The check layer (whatever parses must round-trip, errors are precise),
/// then every reader ([`read_all`]).
fn run(file: MaxFile) -> Reach {
    assert_precise("check", &check_file(file.clone(), false));
    read_all(file, "mutated")
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
    set_cap(
        usize::try_from(env_num("MAXFS_MUTATE_CAP_MB", 8192).saturating_mul(1 << 20))
            .unwrap_or(usize::MAX),
    );
    start_watchdog(hang);
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
        let damage = Damage::of(&mode, &original);
        if intact_too && !skip {
            if let Ok(reach) = panic::catch_unwind(AssertUnwindSafe(|| run(original.clone()))) {
                intact[0] += usize::from(reach.evaluated);
                intact[1] += reach.meshes;
                intact[2] += reach.mesh_errors;
            }
        }
        for m in 0..n {
            let mut f = original.clone();
            if f.streams
                .iter()
                .any(|s| s.name == "Scene" && s.data.is_empty())
            {
                continue;
            }
            damage.apply(&mut f, &mut rng);
            if skip || only_m.is_some_and(|o| o != m) {
                continue;
            }
            let kept = save.as_ref().map(|_| f.clone());
            eprintln!("run\t{}\tmutation {m}", p.display());
            watch_begin(&p.display().to_string(), m);
            let start = Instant::now();
            let (r, peak) = peak_of(|| panic::catch_unwind(AssertUnwindSafe(|| run(f))));
            let secs = start.elapsed().as_secs_f64();
            watch_end();
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
