//! The per-file budget of evaluated meshes (engineering standard: memory
//! limits hold per file). The memo of a file's evaluation never evicts, so a
//! mesh that would take it past its budget is refused, naming the budget, and
//! the file is partial; every mesh within it is the one an unbudgeted
//! evaluation gives.

use std::path::Path;

use maxfs_fs::{MaxFs, Options};
use maxfs_scene::eval::{EvalErrorKind, MeshResult, SceneEval, DEFAULT_MESH_BUDGET};
use maxfs_tests::{corpus_dir, corpus_eval};

/// kenji-room's sofa: 1.5 MB of meshes over dozens of nodes.
const SOFA: &str = "max/kenji-room/Kenjis_Sofa.max";

fn meshes(eval: &SceneEval) -> Vec<(usize, MeshResult)> {
    (0..eval.graph.objects.len())
        .filter_map(|n| Some((n, eval.mesh(n, 0)?)))
        .collect()
}

#[test]
fn a_file_past_its_mesh_budget_refuses_the_meshes_over_it_by_name() {
    let free = corpus_eval(SOFA);
    let want = meshes(&free);
    let total = free.memo_stats().bytes;
    assert!(total > 0 && total < DEFAULT_MESH_BUDGET, "{total}");
    assert!(want.iter().filter(|(_, r)| r.is_ok()).count() >= 10);

    let budget = total / 2;
    let tight = corpus_eval(SOFA);
    tight.set_mesh_budget(budget);
    let got = meshes(&tight);
    assert_eq!(got.len(), want.len());
    let mut refused = 0;
    for ((n, g), (_, w)) in got.iter().zip(&want) {
        match (g, w) {
            (Ok(g), Ok(w)) => assert!(g == w, "node {n}: a mesh within the budget differs"),
            (Err(e), Ok(_)) => {
                assert_eq!(e.kind(), EvalErrorKind::Limit, "node {n}: {e}");
                let text = e.to_string();
                assert!(text.contains("per-file budget"), "{text}");
                assert!(text.ends_with(&format!("more than {budget}")), "{text}");
                refused += 1;
            }
            (Err(g), Err(w)) => assert_eq!(g, w, "node {n}"),
            (Ok(_), Err(w)) => panic!("node {n} evaluates only under a budget: {w}"),
        }
    }
    assert!(refused > 0, "half the budget refuses something");
    assert!(tight.memo_stats().bytes <= budget);
    // Coverage names them, so `maxfs check` counts the file partial.
    let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&tight);
    assert!(
        gaps.iter().any(|g| g.summary().contains("per-file budget")),
        "{:?}",
        gaps.iter().map(|g| g.summary()).collect::<Vec<_>>()
    );
}

#[test]
fn the_tree_names_the_mesh_budget_and_serves_the_rest() {
    let tree = MaxFs::new(
        corpus_dir(),
        Options {
            mesh_bytes: 1,
            ..Options::default()
        },
    );
    let at = Path::new(SOFA);
    let errors = String::from_utf8(
        tree.read(&at.join("export/errors.txt"))
            .expect("errors.txt"),
    )
    .expect("utf-8");
    assert!(errors.contains("per-file budget"), "{errors}");
    let info: serde_json::Value =
        serde_json::from_slice(&tree.read(&at.join("info.json")).expect("info.json"))
            .expect("json");
    let text = info.to_string();
    assert!(text.contains("per-file budget"), "{text}");
    // Views that need no mesh are served as ever.
    let nodes = tree.read(&at.join("json/nodes.json")).expect("nodes.json");
    let free = MaxFs::new(corpus_dir(), Options::default());
    assert_eq!(
        nodes,
        free.read(&at.join("json/nodes.json")).expect("nodes.json")
    );
    assert!(!tree
        .read(&at.join("export/scene.glb"))
        .expect("scene.glb")
        .is_empty());
}

/// With one evaluation permit, readers racing over the generated files of
/// several files (glTF, NeL exports, errors.txt, JSON views, info.json, the
/// listings that need the export set) all finish with what an unbounded tree
/// serves: the gate never leaves a permit holder waiting on a builder that
/// waits for a permit.
#[test]
fn one_evaluation_at_a_time_serves_every_reader() {
    const FILES: [&str; 3] = [
        "max/kenji-room/Kenjis_Sofa.max",
        "max/misc/Barrel.max",
        "max/biped-ld35/Red@Run.max",
    ];
    const PATHS: [&str; 7] = [
        "export/scene.glb",
        "export/errors.txt",
        "json/meshes.json",
        "json/nodes.json",
        "info.json",
        "export",
        "shape",
    ];
    let read = |tree: &MaxFs, f: &str, p: &str| -> Vec<u8> {
        let at = Path::new(f).join(p);
        match tree.read(&at) {
            Ok(b) => b,
            // A directory: its listing.
            Err(_) => tree
                .lookup(&at)
                .and_then(|e| tree.list(&e))
                .map(|es| {
                    es.iter()
                        .map(|(n, _)| n.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join("\n")
                        .into_bytes()
                })
                .unwrap_or_default(),
        }
    };
    let free = MaxFs::new(corpus_dir(), Options::default());
    let want: Vec<Vec<u8>> = FILES
        .iter()
        .flat_map(|f| PATHS.iter().map(|p| read(&free, f, p)))
        .collect();
    assert!(
        want.iter().filter(|b| !b.is_empty()).count() >= FILES.len() * 5,
        "the files and listings read are there"
    );
    let gated = std::sync::Arc::new(MaxFs::new(
        corpus_dir(),
        Options {
            evaluations: 1,
            ..Options::default()
        },
    ));
    let (tx, rx) = std::sync::mpsc::channel();
    for k in 0..6 {
        let (tree, tx) = (gated.clone(), tx.clone());
        std::thread::spawn(move || {
            // Each reader walks the files in its own order.
            let mut got = Vec::new();
            for i in 0..FILES.len() * PATHS.len() {
                let j = (i * 5 + k * 7) % (FILES.len() * PATHS.len());
                let (f, p) = (FILES[j / PATHS.len()], PATHS[j % PATHS.len()]);
                got.push((j, read(&tree, f, p)));
            }
            let _ = tx.send(got);
        });
    }
    drop(tx);
    for _ in 0..6 {
        // A watchdog for a deadlock, far above any run's time.
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(600))
            .expect("a reader finished (no deadlock at the evaluation gate)");
        for (j, bytes) in got {
            assert!(
                bytes == want[j],
                "{}/{}",
                FILES[j / PATHS.len()],
                PATHS[j % PATHS.len()]
            );
        }
    }
}
