//! .max → NeL export over the whole corpus, per kind and all kinds together.
//! Documents are parsed once outside the timed loop: this measures the
//! exporter (selection, evaluation, building, serializing), with the corpus
//! file count as throughput (criterion prints files/s as "elem/s").

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use maxfs_exporters::nel::export::{export, ExportKind};
use maxfs_scene::{Document, Typed};

fn corpus() -> PathBuf {
    std::env::var_os("MAXFS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
}

fn max_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            max_files(&p, out);
        } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("max")) {
            out.push(p);
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut paths = Vec::new();
    max_files(&corpus().join("max"), &mut paths);
    paths.sort();
    let docs: Vec<(String, Document, Typed)> = paths
        .iter()
        .filter_map(|p| {
            let doc = Document::open(p).ok()?;
            let typed = doc.typed();
            let stem = p.file_stem()?.to_string_lossy().into_owned();
            Some((stem, doc, typed))
        })
        .collect();
    let mut g = c.benchmark_group("export_corpus");
    g.sample_size(10);
    g.throughput(Throughput::Elements(docs.len() as u64));
    let mut run = |name: &str, kinds: &[ExportKind]| {
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut outputs = 0usize;
                for (stem, doc, typed) in &docs {
                    outputs += export(stem, doc, typed, kinds).outputs.len();
                }
                outputs
            })
        });
    };
    for k in ExportKind::ALL {
        run(k.name(), &[k]);
    }
    run("all", &ExportKind::ALL);
    g.finish();

    // One figure per file for the slowest ones (all kinds).
    let mut per_file = c.benchmark_group("export_file");
    per_file.sample_size(10);
    for (stem, doc, typed) in &docs {
        per_file.bench_function(stem.as_str(), |b| {
            b.iter(|| export(stem, doc, typed, &ExportKind::ALL).outputs.len())
        });
    }
    per_file.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
