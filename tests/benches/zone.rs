//! Direct zone export of every synthetic zone source (one per real corpus zone, built
//! by tests/src/zone_source.rs as `export_zone.rs` builds them, outside the timed loop):
//! per iteration each source's bytes are parsed, evaluated and exported as `zone`
//! (`RPatchMesh::exportZone` rules + `CZone::build`), and the exported-only variant times
//! the export over already evaluated scenes. Throughput in zones (criterion prints
//! zones/s as "elem/s").

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use maxfs_exporters::nel::export::{export, ExportKind};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::zone_source::corpus_zone_sources;

fn bench(c: &mut Criterion) {
    let sources = corpus_zone_sources();
    let mut g = c.benchmark_group("zone_export");
    g.sample_size(10);
    g.throughput(Throughput::Elements(sources.len() as u64));
    g.bench_function("parse_evaluate_export_all_sources", |b| {
        b.iter(|| {
            let mut bytes = 0usize;
            for s in &sources {
                let doc = Document::from_bytes(&s.bytes).expect("source parses");
                let eval = SceneEval::from_document(doc).expect("evaluates");
                let out = export(&s.stem, &eval, &[ExportKind::Zone]);
                assert!(out.errors.is_empty(), "{}", out.errors_text());
                bytes += out.outputs.iter().map(|o| o.bytes.len()).sum::<usize>();
            }
            bytes
        })
    });
    let docs: Vec<(
        &str,
        std::sync::Arc<Document>,
        std::sync::Arc<maxfs_scene::Typed>,
    )> = sources
        .iter()
        .map(|s| {
            let doc = Document::from_bytes(&s.bytes).expect("source parses");
            let typed = doc.typed();
            (
                s.stem.as_str(),
                std::sync::Arc::new(doc),
                std::sync::Arc::new(typed),
            )
        })
        .collect();
    g.bench_function("export_all_sources_parsed", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (stem, doc, typed) in &docs {
                let eval = SceneEval::new(doc.clone(), typed.clone()).expect("evaluates");
                n += export(stem, &eval, &[ExportKind::Zone]).outputs.len();
            }
            assert_eq!(n, docs.len());
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
