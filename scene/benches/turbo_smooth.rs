//! TurboSmooth at 2 iterations on the largest Editable Poly of the corpus
//! (most polygons): its polygon form rebuilt from the triangle mesh and two
//! Catmull-Clark steps, down to the output triangles. The corpus is scanned
//! outside the timed loop. Run: `cargo bench -p maxfs-scene --bench turbo_smooth`.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use maxfs_scene::eval::modifier::turbo_smooth::{from_triangles, smooth, Settings};
use maxfs_scene::eval::objects::mesh::{editable_poly, Mesh, Poly, EDITABLE_POLY};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;

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

/// The Editable Poly with the most polygons: (file and object, mesh, polygons).
fn largest() -> (String, Mesh, Vec<Poly>) {
    let mut files = Vec::new();
    max_files(&corpus().join("max"), &mut files);
    files.sort();
    let mut best: Option<(String, Mesh, Vec<Poly>)> = None;
    for f in files {
        let Ok(doc) = Document::open(&f) else {
            continue;
        };
        let Ok(eval) = SceneEval::from_document(doc) else {
            continue;
        };
        for (i, o) in eval.graph.objects.iter().enumerate() {
            if o.class.as_ref().is_none_or(|c| c.class_id != EDITABLE_POLY) {
                continue;
            }
            let Ok((mesh, polys)) = editable_poly(eval.chunks(i)) else {
                continue;
            };
            if best.as_ref().is_none_or(|b| b.2.len() < polys.len()) {
                best = Some((format!("{}#{i}", f.display()), mesh, polys));
            }
        }
    }
    best.expect("an Editable Poly in the corpus")
}

fn bench(c: &mut Criterion) {
    let (name, mesh, polys) = largest();
    eprintln!(
        "{name}: {} polygons, {} vertices",
        polys.len(),
        mesh.vertices.len()
    );
    let mut g = c.benchmark_group("turbo_smooth");
    g.sample_size(10);
    g.throughput(Throughput::Elements(polys.len() as u64));
    g.bench_function("2 iterations, largest Editable Poly", |b| {
        b.iter(|| {
            let p = from_triangles(&mesh, &polys).expect("polygons");
            let out = smooth(
                p,
                Settings {
                    iterations: 2,
                    smooth_result: true,
                    separate: Default::default(),
                },
            )
            .expect("smoothed");
            out.faces.len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
