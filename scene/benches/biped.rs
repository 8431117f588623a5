//! Biped evaluation throughput: every bone of every rig (and every node
//! Link-Constrained to one) at every frame of the file's animation range,
//! through `SceneEval::world_tm` — Biped keytracks and Link Constraints —
//! on the animated biped-ld35 takes. Throughput counts bone·frames; refused
//! bones (not evaluated) cost their error. The rig decode is cached by the
//! evaluation and happens outside the timed loop; the pose cache starts empty
//! in every run.
//! Run: `cargo bench -p maxfs-scene --bench biped`.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::{settings, Document};

fn corpus() -> PathBuf {
    std::env::var_os("MAXFS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
}

const TAKES: &[&str] = &["Player@Run", "Red@Run", "Red@Spawn", "Yellow@Spawn"];

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("biped");
    g.sample_size(10);
    for take in TAKES {
        let path = corpus().join(format!("max/biped-ld35/{take}.max"));
        let Ok(doc) = Document::open(&path) else {
            continue;
        };
        let Ok(time) = settings::time_config(&doc) else {
            continue;
        };
        let Ok(eval) = SceneEval::from_document(doc) else {
            continue;
        };
        let nodes: Vec<usize> = (0..eval.graph.objects.len())
            .filter(|&n| eval.direct_world(n, 0).is_some())
            .collect();
        let step = time.ticks_per_frame.max(1) as usize;
        let frames: Vec<i32> = (time.start..=time.end).step_by(step).collect();
        g.throughput(Throughput::Elements((nodes.len() * frames.len()) as u64));
        g.bench_function(
            format!("{take}: {} bones x {} frames", nodes.len(), frames.len()),
            |b| {
                // A fresh evaluation per run (its rigs decoded outside the
                // timed part), so the per-(rig, tick) pose cache starts
                // empty and is filled by the run as a first read would.
                b.iter_batched(
                    || {
                        let fresh = SceneEval::with_graph(
                            eval.doc.clone(),
                            eval.typed.clone(),
                            eval.graph.clone(),
                        );
                        fresh.biped_rigs();
                        fresh
                    },
                    |fresh| {
                        let mut sum = 0.0;
                        for &t in &frames {
                            for &n in &nodes {
                                sum += fresh.world_tm(n, t).0[3].0;
                            }
                        }
                        sum
                    },
                    BatchSize::LargeInput,
                )
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
