//! Read+write throughput over the NeL fixtures of the corpus (MB/s via criterion throughput).

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use maxfs_nel as nel;

fn corpus() -> PathBuf {
    std::env::var_os("MAXFS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
}

fn collect(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if let Ok(b) = std::fs::read(&p) {
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            if nel::read_nel(&b, &name).is_ok() {
                out.push((name, b));
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut files = Vec::new();
    collect(&corpus().join("nel"), &mut files);
    let total: u64 = files.iter().map(|f| f.1.len() as u64).sum();
    let mut g = c.benchmark_group("nel");
    g.throughput(Throughput::Bytes(total));
    g.sample_size(10);
    g.bench_function("read_write_all_fixtures", |b| {
        b.iter(|| {
            for (name, bytes) in &files {
                let f = nel::read_nel(bytes, name).expect("read");
                let out = nel::write_nel(&f).expect("write");
                assert_eq!(out.len(), bytes.len());
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
