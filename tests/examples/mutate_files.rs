//! The corpus mutation test (tests/scene_mutation.rs) on files that cannot be
//! in the corpus: `cargo run --release -p maxfs-tests --example mutate_files
//! -- N DIR_OR_FILE…` overwrites 1 to 32 random bytes of each file's Scene
//! stream N times (deterministic per file) and runs the evaluation (every
//! node's transform, every mesh at two ticks, the scene views), the NeL
//! exporters and the glTF exporter on each result. A panic is caught and
//! printed with the file and mutation number; a mutation whose run takes
//! longer than 20 s is printed as slow (a hang candidate). Used on the public
//! sweeps (docs/unseen-files.md) to reach the modules the corpus has no file
//! for (Loft, Relax, Cap Holes, script controllers …).

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

use maxfs_exporters::nel::export::{self, ExportKind};
use maxfs_fs::views::scene_summary;
use maxfs_scene::container::MaxFile;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;

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

fn run(file: MaxFile) {
    let Ok(eval) = SceneEval::from_document(Document::from_file(file)) else {
        return;
    };
    let nodes: Vec<usize> = eval.graph.nodes().map(|(o, _)| o.index).collect();
    for &n in &nodes {
        for t in [0, 2400] {
            std::hint::black_box(eval.world_tm(n, t));
        }
        std::hint::black_box(eval.mesh(n, 2400));
    }
    std::hint::black_box(scene_summary::meshes(&eval));
    std::hint::black_box(scene_summary::node_transforms(&eval));
    std::hint::black_box(export::export("mutated", &eval, &ExportKind::ALL));
    std::hint::black_box(maxfs_exporters::gltf::export_scene(&eval)).ok();
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
    let (mut runs, mut panics, mut slow) = (0, 0, 0);
    // MAXFS_MUTATE_ONLY=<text>: run only the files whose path holds it, with
    // the mutations a whole run gives them; MAXFS_MUTATE_SAVE=<dir> writes
    // each slow or panicking mutation there as a .max to look at.
    let only = std::env::var("MAXFS_MUTATE_ONLY").ok();
    let save = std::env::var_os("MAXFS_MUTATE_SAVE").map(PathBuf::from);
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
        for m in 0..n {
            let mut f = original.clone();
            if let Some(scene) = f.streams.iter_mut().find(|s| s.name == "Scene") {
                let mut data = scene.data.to_vec();
                if data.is_empty() {
                    continue;
                }
                for _ in 0..1 + rng.below(32) {
                    let at = rng.below(data.len());
                    data[at] = rng.next() as u8;
                }
                scene.data = data.into();
            }
            if skip {
                continue;
            }
            let kept = save.as_ref().map(|_| f.clone());
            let start = Instant::now();
            let r = panic::catch_unwind(AssertUnwindSafe(|| run(f)));
            let secs = start.elapsed().as_secs_f64();
            runs += 1;
            if let (Some(dir), Some(f)) = (&save, kept) {
                if r.is_err() || secs > 20.0 {
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
                println!("SLOW\t{}\tmutation {m}\t{secs:.1} s", p.display());
            }
        }
    }
    println!(
        "summary\t{} files\t{runs} runs\t{panics} panics\t{slow} slow",
        files.len()
    );
}
