//! Every NeL file the tree serves for the corpus, judged by NeL itself: each
//! `.shape`, `.skel`, `.anim`, `.ig` and `.swt` under `foo.max/shape/` and
//! `foo.max/export/` is loaded with NeL's own serializers by the oracle
//! (the checker of `/work/shared/oracles/nel`, through tests/oracle/nel_check.sh;
//! `NEL_ORACLE_SRC` overrides the folder), checked as a renderer would use it (indices in range, whole
//! triangles, material ids, finite positions) and written back by NeL.
//!
//! Passing means: NeL loads it without an assert, exception or trailing
//! bytes, the mesh sanity holds, and NeL writes the same bytes back — except
//! for the one difference NeL documents itself (README of the oracle): NeL
//! writes CMeshBase version 10 where the NeL exporter patches it to 9, so a
//! shape may differ at byte 22 only, 9 in ours and 10 in NeL's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use maxfs_fs::{MaxFs, Options};
use maxfs_tests::{corpus_dir, corpus_max_files};

/// The kinds NeL's checker loads.
const KINDS: [&str; 5] = ["shape", "skel", "anim", "ig", "swt"];

fn oracle_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/nel_check.sh")
}

/// Every NeL file of `export/` and `shape/` of every corpus `.max`, written
/// to `out` under a unique name; the map goes back to the tree path.
fn served_nel_files(out: &Path) -> BTreeMap<PathBuf, String> {
    let fs = MaxFs::new(corpus_dir(), Options::default());
    let mut files = BTreeMap::new();
    for max in corpus_max_files() {
        let rel = max.strip_prefix(corpus_dir()).expect("under the corpus");
        for dir in ["export", "shape"] {
            let d = rel.join(dir);
            let Ok(entry) = fs.lookup(&d) else { continue };
            let Ok(list) = fs.list(&entry) else { continue };
            for (name, _) in list {
                let name = name.to_string_lossy().into_owned();
                let Some(ext) = name.rsplit('.').next() else {
                    continue;
                };
                if !KINDS.contains(&ext) {
                    continue;
                }
                let at = d.join(&name);
                let bytes = fs
                    .read(&at)
                    .unwrap_or_else(|e| panic!("{}: listed but unreadable: {e}", at.display()));
                let flat = format!("{:04}_{name}", files.len());
                let path = out.join(&flat);
                std::fs::write(&path, bytes).expect("writes the export");
                files.insert(path, at.display().to_string());
            }
        }
    }
    files
}

/// Whether a re-serialization verdict is NeL's documented CMeshBase version
/// rewrite (byte 22: 9 in the exporter's file, 10 in NeL's).
fn mesh_base_version_only(kind: &str, verdict: &str) -> bool {
    kind == "shape" && verdict.contains("first_diff_at=22 (in 0x09 out 0x0a)")
}

#[test]
fn nel_loads_and_rewrites_every_served_nel_file() {
    let out = tempfile::tempdir().expect("tempdir");
    let files = served_nel_files(out.path());
    assert!(!files.is_empty(), "the corpus exports NeL files");
    let run = Command::new("bash")
        .arg(oracle_script())
        .args(files.keys())
        .current_dir(out.path())
        .output()
        .expect("runs the NeL oracle");
    assert!(
        run.status.success(),
        "oracle: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8_lossy(&run.stdout);
    let mut seen = 0;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut bad = Vec::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let [status, kind, path, facts, verdict] = cols[..] else {
            bad.push(format!("unexpected oracle line: {line}"));
            continue;
        };
        let Some(at) = files.get(Path::new(path)) else {
            bad.push(format!("oracle names a file we did not give it: {line}"));
            continue;
        };
        seen += 1;
        *counts.entry(kind.to_string()).or_default() += 1;
        let ok = status == "OK"
            && !facts.contains("TRAILING")
            && !facts.contains("SANITY_BAD")
            && !facts.contains("NOT a CSkeletonShape")
            && (verdict == "reser: identical" || mesh_base_version_only(kind, verdict));
        if !ok {
            bad.push(format!("{at}: {status} {facts} {verdict}"));
        }
    }
    eprintln!("NeL oracle: {seen} files {counts:?}");
    assert_eq!(seen, files.len(), "one oracle line per file:\n{text}");
    assert!(
        bad.is_empty(),
        "{} of {seen} files fail NeL:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
