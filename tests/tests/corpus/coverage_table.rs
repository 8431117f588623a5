//! The corpus-wide coverage table (docs/coverage.md): for every base object
//! and modifier class, in how many files and on how many nodes it occurs and
//! on how many of those nodes it is evaluated (object: its mesh is built;
//! modifier: the node's whole stack evaluates from its own modifiers, no
//! saved cache standing in). `coverage_floor.tsv` records
//! the evaluated counts when the table was last written; a class whose count
//! falls below it fails here, so nothing that evaluated stops evaluating
//! unnoticed. Regenerate the floor and the docs table with
//! `MAXFS_WRITE_COVERAGE=1` after a change that adds coverage.

use std::collections::{BTreeMap, BTreeSet};

use maxfs_scene::eval::core::coverage::{base_object_coverage, modifiers, MeshCoverage};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::{corpus_dir, corpus_max_files};

#[derive(Default)]
struct Row {
    files: BTreeSet<String>,
    nodes: usize,
    evaluated: usize,
}

fn class_of(eval: &SceneEval, idx: usize) -> String {
    eval.graph
        .objects
        .get(idx)
        .and_then(|o| o.class.as_ref())
        .map_or_else(|| "?".into(), |c| c.name.clone())
}

fn table() -> BTreeMap<(String, String), Row> {
    let mut rows: BTreeMap<(String, String), Row> = BTreeMap::new();
    let root = corpus_dir().join("max");
    for p in corpus_max_files() {
        let rel = p.strip_prefix(&root).unwrap_or(&p).display().to_string();
        let doc = Document::open(&p).expect("opens");
        let eval = SceneEval::from_document(doc).expect("scene");
        for (o, _) in eval.graph.nodes() {
            let node = o.index;
            let base = base_object_coverage(&eval, node);
            if base == MeshCoverage::NotGeometry {
                continue;
            }
            let mut count = |role: &str, class: String, ok: bool| {
                let r = rows.entry((role.to_string(), class)).or_default();
                r.files.insert(rel.clone());
                r.nodes += 1;
                r.evaluated += usize::from(ok);
            };
            if let Some(obj) = eval.node_object(node) {
                count(
                    "object",
                    class_of(&eval, obj),
                    base == MeshCoverage::Evaluated,
                );
            }
            // The stack's own evaluation: where an Unwrap UVW's cache stands
            // in for modifiers below it (modifier/unwrap_cache.rs), those
            // classes are still not evaluated.
            let whole = matches!(
                eval.mesh_with(node, 0, maxfs_scene::eval::Stack::Replayed),
                Some(Ok(_))
            );
            let mut seen = BTreeSet::new();
            for m in modifiers(&eval, node) {
                let class = class_of(&eval, m);
                if seen.insert(class.clone()) {
                    count("modifier", class, whole);
                }
            }
        }
    }
    rows
}

fn floor_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/coverage_floor.tsv")
}

#[test]
fn no_class_that_evaluated_stops_evaluating() {
    let rows = table();
    let mut md =
        String::from("| role | class | files | nodes | evaluated |\n|---|---|---:|---:|---:|\n");
    let mut tsv = String::from("# role\tclass\tevaluated nodes (floor)\n");
    for ((role, class), r) in &rows {
        md += &format!(
            "| {role} | {class} | {} | {} | {} |\n",
            r.files.len(),
            r.nodes,
            r.evaluated
        );
        tsv += &format!("{role}\t{class}\t{}\n", r.evaluated);
    }
    eprintln!("{md}");
    if std::env::var_os("MAXFS_WRITE_COVERAGE").is_some() {
        std::fs::write(floor_path(), &tsv).expect("write the floor");
        let doc = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/coverage.md");
        let text = std::fs::read_to_string(&doc).expect("docs/coverage.md");
        let (head, _) = text
            .split_once("<!-- table -->")
            .expect("docs/coverage.md has a <!-- table --> marker");
        std::fs::write(&doc, format!("{head}<!-- table -->\n{md}")).expect("write docs");
    }
    let floor = std::fs::read_to_string(floor_path()).expect("coverage_floor.tsv");
    let mut failures = Vec::new();
    for line in floor
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        let [role, class, n] = f[..] else {
            panic!("bad floor line {line:?}")
        };
        let n: usize = n.parse().expect("count");
        let now = rows
            .get(&(role.to_string(), class.to_string()))
            .map_or(0, |r| r.evaluated);
        if now < n {
            failures.push(format!("{role} {class}: {now} evaluated nodes, was {n}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
