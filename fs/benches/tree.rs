//! Tree generation over the corpus: listing a checkout (parses nothing), and
//! generating every JSON view and info.json of every file from a cold tree.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use maxfs_fs::{MaxFs, Options};

fn corpus() -> std::path::PathBuf {
    std::env::var_os("MAXFS_CORPUS")
        .map(Into::into)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
}

fn max_files(fs: &MaxFs, dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let e = fs.lookup(dir).unwrap();
    for (name, kind) in fs.list(&e).unwrap() {
        let p = dir.join(&name);
        if name.to_string_lossy().to_lowercase().ends_with(".max") {
            out.push(p);
        } else if kind == maxfs_fs::Kind::Dir {
            max_files(fs, &p, out);
        }
    }
}

fn bench(c: &mut Criterion) {
    let root = corpus();
    let probe = MaxFs::new(&root, Options::default());
    let mut files = Vec::new();
    max_files(&probe, Path::new("max"), &mut files);
    let mut g = c.benchmark_group("tree");
    g.sample_size(10);
    g.bench_function("list checkout + every foo.max/", |b| {
        b.iter(|| {
            let fs = MaxFs::new(&root, Options::default());
            for f in &files {
                let e = fs.lookup(f).unwrap();
                fs.list(&e).unwrap();
            }
        })
    });
    g.bench_function("generate all json/ + info.json (cold)", |b| {
        b.iter(|| {
            let fs = MaxFs::new(&root, Options::default());
            let mut bytes = 0;
            for f in &files {
                bytes += fs.read(&f.join("info.json")).unwrap().len();
                for v in maxfs_fs::views::JsonView::ALL {
                    bytes += fs.read(&f.join("json").join(v.file_name())).unwrap().len();
                }
            }
            bytes
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
