//! T1+T2 over the whole .max corpus (and the container gate separately), in MB/s of
//! stream data. Run: `cargo bench -p maxfs-scene --bench roundtrip`.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use maxfs_file::check::{check_bytes, Outcome};

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

fn bench(c: &mut Criterion) {
    let mut paths = Vec::new();
    max_files(&corpus().join("max"), &mut paths);
    paths.sort();
    let files: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    let stream_bytes: u64 = files.iter().map(|b| check_bytes(b, false).bytes).sum();
    let mut g = c.benchmark_group("corpus");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(stream_bytes));
    g.bench_function("t1_t2_serial", |b| {
        b.iter(|| {
            for f in &files {
                assert_eq!(check_bytes(f, false).outcome, Outcome::Ok);
            }
        })
    });
    g.bench_function("t1_t2_parallel", |b| {
        b.iter(|| {
            std::thread::scope(|s| {
                let half = files.len() / 2;
                let (a, bb) = files.split_at(half);
                for part in [a, bb] {
                    s.spawn(move || {
                        for f in part {
                            assert_eq!(check_bytes(f, false).outcome, Outcome::Ok);
                        }
                    });
                }
            })
        })
    });
    g.bench_function("t1_t2_container_serial", |b| {
        b.iter(|| {
            for f in &files {
                assert_eq!(check_bytes(f, true).outcome, Outcome::Ok);
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
