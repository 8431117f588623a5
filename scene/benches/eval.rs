//! Scene evaluation over the whole corpus: every node's world transform at
//! t = 0 and at each of its key times, and every node's mesh (base object plus
//! modifier stack), with a figure per file. Documents are parsed outside the
//! timed loop. Run: `cargo bench -p maxfs-scene --bench eval`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::{Document, Typed};

fn corpus() -> PathBuf {
    std::env::var_os("MAXFS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
}

fn max_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("corpus directory").flatten() {
        let p = e.path();
        if p.is_dir() {
            max_files(&p, out);
        } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("max")) {
            out.push(p);
        }
    }
}

/// Evaluates everything once; returns a checksum so nothing is optimized away.
fn evaluate(doc: &Arc<Document>, typed: &Arc<Typed>) -> (usize, f64) {
    // A fresh evaluation per iteration: its mesh memo must not carry over.
    let Ok(eval) = SceneEval::new(doc.clone(), typed.clone()) else {
        return (0, 0.0);
    };
    let graph = &*eval.graph;
    let mut vertices = 0usize;
    let mut sum = 0.0;
    for (idx, o) in graph.objects.iter().enumerate() {
        if o.node.is_none() {
            continue;
        }
        sum += eval.world_tm(idx, 0).0[3].0;
        if let Some(Ok(mesh)) = eval.mesh(idx, 0) {
            vertices += mesh.vertices.len();
        }
    }
    for node in maxfs_scene::eval::core::channels::animation(&eval) {
        for t in node.channels.iter().flat_map(|c| &c.key_times) {
            sum += eval.world_tm(node.index, *t).0[3].0;
        }
    }
    (vertices, sum)
}

fn bench(c: &mut Criterion) {
    let mut paths = Vec::new();
    max_files(&corpus().join("max"), &mut paths);
    paths.sort();
    let docs: Vec<(String, Arc<Document>, Arc<Typed>)> = paths
        .iter()
        .filter_map(|p| {
            let doc = Document::open(p).ok()?;
            let typed = doc.typed();
            Some((
                p.file_stem()?.to_string_lossy().into_owned(),
                Arc::new(doc),
                Arc::new(typed),
            ))
        })
        .collect();
    let mut g = c.benchmark_group("eval_corpus");
    g.sample_size(10);
    g.throughput(Throughput::Elements(docs.len() as u64));
    g.bench_function("all_nodes_and_meshes", |b| {
        b.iter(|| docs.iter().map(|(_, d, t)| evaluate(d, t).0).sum::<usize>())
    });
    g.finish();
    let mut per_file = c.benchmark_group("eval_file");
    per_file.sample_size(10);
    for (name, doc, typed) in &docs {
        per_file.bench_function(name.as_str(), |b| b.iter(|| evaluate(doc, typed)));
    }
    per_file.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
