//! One evaluated scene per file: every reader of a file's meshes (meshes.json,
//! info.json's coverage, scene.glb, every .shape, every .ig) shares one
//! evaluation, so each mesh is computed once per file, whoever asks.

use std::path::Path;

use maxfs_fs::views::scene_summary as views;
use maxfs_fs::{MaxFs, Options};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

/// Reads every file of the tree under `dir` that evaluates meshes.
fn read_mesh_readers(fs: &MaxFs, max: &Path) -> usize {
    let mut read = 0;
    for f in [
        "json/meshes.json",
        "info.json",
        "json/nodes.json",
        "export/scene.glb",
    ] {
        fs.read(&max.join(f)).expect(f);
        read += 1;
    }
    for dir in ["shape", "export"] {
        let d = max.join(dir);
        let entry = fs.lookup(&d).expect("dir");
        for (name, _) in fs.list(&entry).expect("list") {
            let name = name.to_string_lossy().into_owned();
            if name.ends_with(".shape") || name.ends_with(".ig") {
                fs.read(&d.join(&name)).expect("export reads");
                read += 1;
            }
        }
    }
    read
}

#[test]
fn street_meshes_are_evaluated_once_through_the_tree() {
    let max = Path::new("max/ryzomcore/street.max");
    let fs = MaxFs::new(corpus_dir(), Options::default());
    let files = read_mesh_readers(&fs, max);
    // Reading everything a second time must not evaluate anything again either.
    read_mesh_readers(&fs, max);
    let (stats, per_node) = fs
        .eval_stats(max)
        .expect("street.max is loaded and evaluated");

    // What one pass over the meshes costs on its own: a fresh evaluation asked
    // for every node's base object and whole-stack mesh at t = 0.
    let doc = Document::open(&corpus_dir().join(max)).expect("street.max");
    let alone = SceneEval::from_document(doc).expect("scene");
    let summaries = views::meshes(&alone);
    let nodes: Vec<usize> = alone.graph.nodes().map(|(o, _)| o.index).collect();
    for n in nodes {
        let _ = alone.mesh(n, 0);
    }
    let once = alone.memo_stats();

    assert!(
        files >= 12,
        "street.max has 9 shapes and an ig: read {files} files"
    );
    assert!(!summaries.is_empty() && stats.node_evaluations > 0);
    for ((node, t), n) in &per_node {
        assert_eq!(*n, 1, "node {node} at t={t} evaluated {n} times");
    }
    assert_eq!(
        stats.object_builds, once.object_builds,
        "base objects (Boolean operands included) built by all readers together \
         vs by one pass over the meshes"
    );
    assert_eq!(stats.node_evaluations, once.node_evaluations);
    assert!(
        stats.hits > stats.node_evaluations,
        "readers shared the memo: {stats:?}"
    );
    eprintln!(
        "street.max: {files} readers; {} node meshes and {} object builds, {} memo hits",
        stats.node_evaluations, stats.object_builds, stats.hits
    );
}
