//! Every NeL file of the corpus reads and writes back byte-identically (no file is skipped:
//! a format or class that is not supported fails the test).

use std::collections::BTreeMap;
use std::path::PathBuf;

use maxfs_exporters::nel;

/// Extensions of NeL files in the corpus (all of them must round-trip).
const NEL_EXTS: &[&str] = &[
    "shape",
    "skel",
    "anim",
    "swt",
    "ig",
    "zone",
    "zonel",
    "zonew",
    "ps",
    "bank",
    "farbank",
    "gr",
    "lr",
    "rbank",
    "veget",
    "cmb",
    "pacs_prim",
    "clod",
    "ligozone",
];

fn nel_files() -> Vec<PathBuf> {
    let root = maxfs_tests::corpus_dir();
    let mut files = maxfs_tests::files_with_ext(&root.join("nel"), NEL_EXTS);
    if let Ok(rd) = std::fs::read_dir(root.join("ref")) {
        let mut dirs: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("nel-"))
            })
            .collect();
        dirs.sort();
        for d in dirs {
            files.extend(maxfs_tests::files_with_ext(&d, NEL_EXTS));
        }
    }
    files
}

#[test]
fn every_corpus_nel_file_round_trips() {
    let files = nel_files();
    assert!(
        files.len() > 300,
        "expected the NeL corpus, found {} files",
        files.len()
    );
    let mut failures = Vec::new();
    let mut per_format: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for p in &files {
        let bytes = std::fs::read(p).expect("read corpus file");
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let kind = nel::detect(&bytes, name)
            .map(|k| k.name())
            .unwrap_or("unrecognized");
        let entry = per_format.entry(kind.to_string()).or_default();
        let result = nel::read_nel(&bytes, name).and_then(|f| nel::write_nel(&f));
        match result {
            Ok(out) if out == bytes => {
                entry.0 += 1;
            }
            Ok(out) => {
                entry.1 += 1;
                let at = out
                    .iter()
                    .zip(&bytes)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(bytes.len()));
                failures.push(format!(
                    "{} [{kind}]: rewrite differs at 0x{at:x} ({} vs {} bytes)",
                    p.display(),
                    out.len(),
                    bytes.len()
                ));
            }
            Err(e) => {
                entry.1 += 1;
                failures.push(format!("{} [{kind}]: {e}", p.display()));
            }
        }
    }
    for (k, (ok, bad)) in &per_format {
        eprintln!("{k:>14}: {ok} identical, {bad} failing");
    }
    assert!(
        failures.is_empty(),
        "{} of {} NeL files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
