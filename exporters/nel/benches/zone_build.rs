//! Zones built per second: `zone_build::retrieve` + `build_with` over every corpus zone
//! (criterion throughput in elements = zones).

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use maxfs_nel::{self as nel, zone::Zone, zone_build, NelFile};

fn corpus() -> PathBuf {
    std::env::var_os("MAXFS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
}

fn zones(dir: &Path, out: &mut Vec<Zone>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if p.is_dir() {
            zones(&p, out);
        } else if name.contains(".zone") {
            if let Ok(NelFile::Zone(z)) = std::fs::read(&p)
                .map_err(|e| e.to_string())
                .and_then(|b| nel::read_nel(&b, &name).map_err(|e| e.to_string()))
            {
                out.push(z);
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut all = Vec::new();
    zones(&corpus(), &mut all);
    let infos: Vec<_> = all
        .iter()
        .map(|z| zone_build::retrieve(z).expect("retrieve"))
        .collect();
    let mut g = c.benchmark_group("zone_build");
    g.throughput(Throughput::Elements(all.len() as u64));
    g.sample_size(10);
    g.bench_function("build_all_corpus_zones", |b| {
        b.iter(|| {
            for info in &infos {
                let z = zone_build::build_with(info, &zone_build::BuildOptions::default())
                    .expect("build");
                assert_eq!(z.patches.len(), info.patches.len());
            }
        })
    });
    g.bench_function("retrieve_all_corpus_zones", |b| {
        b.iter(|| {
            for z in &all {
                let info = zone_build::retrieve(z).expect("retrieve");
                assert_eq!(z.patches.len(), info.patches.len());
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
