//! .max → NeL export over the whole corpus, per kind and all kinds together.
//! Documents are parsed once outside the timed loop: this measures the
//! exporter (selection, evaluation, building, serializing), with the corpus
//! file count as throughput (criterion prints files/s as "elem/s"). Each
//! iteration builds a fresh evaluated scene, so mesh evaluation is timed too
//! (its memo does not carry over between iterations).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use maxfs_exporters::nel::export::properties::{id, nel_entry};
use maxfs_exporters::nel::export::{export, shape, Context, ExportKind, Exports};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::graph::SceneGraph;
use maxfs_scene::{Document, Typed};

/// Exports `kinds` from a fresh evaluation of a parsed document.
fn export_fresh(
    stem: &str,
    doc: &Arc<Document>,
    typed: &Arc<Typed>,
    kinds: &[ExportKind],
) -> usize {
    match SceneEval::new(doc.clone(), typed.clone()) {
        Ok(eval) => export(stem, &eval, kinds).outputs.len(),
        Err(_) => 0,
    }
}

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
    let docs: Vec<(String, Arc<Document>, Arc<Typed>)> = paths
        .iter()
        .filter_map(|p| {
            let doc = Document::open(p).ok()?;
            let typed = doc.typed();
            let stem = p.file_stem()?.to_string_lossy().into_owned();
            Some((stem, Arc::new(doc), Arc::new(typed)))
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
                    outputs += export_fresh(stem, doc, typed, kinds);
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
            b.iter(|| export_fresh(stem, doc, typed, &ExportKind::ALL))
        });
    }
    per_file.finish();
    mrm(c);
    biped_anim(c);
}

/// The `.anim` of each Biped take of the corpus: every Biped node sampled 30
/// times a second over the take (anim_biped.rs), from a fresh evaluation.
fn biped_anim(c: &mut Criterion) {
    let mut g = c.benchmark_group("export_biped_anim");
    g.sample_size(10);
    for take in ["Player@Run", "Red@Run", "Red@Spawn"] {
        let Ok(doc) = Document::open(&corpus().join(format!("max/biped-ld35/{take}.max"))) else {
            continue;
        };
        let typed = Arc::new(doc.typed());
        let doc = Arc::new(doc);
        g.bench_function(take, |b| {
            b.iter(|| export_fresh(take, &doc, &typed, &[ExportKind::Anim]))
        });
    }
    g.finish();
}

/// The shape export of a few corpus files as plain meshes and with
/// NEL3D_APPDATA_LOD_MRM (default parameters: 11 lods, divisor 20) added to
/// every node, as the MRM tests build them (the corpus has no MRM node).
fn mrm(c: &mut Criterion) {
    let mut g = c.benchmark_group("export_mrm");
    g.sample_size(10);
    for rel in [
        "max/ryzomcore/street.max",
        "max/neloid/block.max",
        "max/babylon/RiggedElf.max",
        "max/babylon/RiggedFigure.max",
    ] {
        let Ok(doc) = Document::open(&corpus().join(rel)) else {
            continue;
        };
        let typed = Arc::new(doc.typed());
        let doc = Arc::new(doc);
        let Ok(plain) = typed.scene.clone() else {
            continue;
        };
        let mut with = (*plain).clone();
        for o in with.objects.iter_mut().filter(|o| o.node.is_some()) {
            o.appdata.push(nel_entry(id::LOD_MRM, "1"));
        }
        let stem = Path::new(rel)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let with = Arc::new(with);
        let shapes = |graph: &Arc<SceneGraph>| {
            let eval = SceneEval::with_graph(doc.clone(), typed.clone(), graph.clone());
            let ctx = Context::new(&stem, &eval);
            let mut out = Exports::default();
            shape::export(&ctx, &mut out);
            out.outputs.len()
        };
        g.bench_function(format!("{stem}/cmesh"), |b| b.iter(|| shapes(&plain)));
        g.bench_function(format!("{stem}/mrm"), |b| b.iter(|| shapes(&with)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
