//! Every NeL file of the corpus reads and writes back byte-identically (no file is skipped:
//! a format or class that is not supported fails the test).

use std::collections::BTreeMap;
use std::path::PathBuf;

use maxfs_exporters::nel;

fn nel_files() -> Vec<PathBuf> {
    let root = maxfs_tests::corpus_dir();
    let mut files = maxfs_tests::files_with_ext(&root.join("nel"), nel::EXTENSIONS);
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
            files.extend(maxfs_tests::files_with_ext(&d, nel::EXTENSIONS));
        }
    }
    files
}

/// Corpus files that cannot round-trip, with the exact error they must produce (checked in
/// full, so any change in behaviour is noticed). Keep this list short and explained.
const KNOWN_BAD: &[(&str, &str)] = &[
    // A damaged copy of r2_instance_link.shape: a 0x0D byte inserted before the only 0x0A of
    // the first 133 bytes (offset 0x22, text-mode line-ending conversion), then cut at 134
    // bytes. Removing that byte gives exactly the first 133 bytes of r2_instance_link.shape.
    // The shifted bytes put 0xBF where the CMeshBase default-pivot track version is read.
    (
        "nel/misc/instance_link.shape",
        "IShape/CMesh/CMeshBase: TrackDefaultVector: unknown version 191 (this reader knows up to 0) at offset 0x28",
    ),
];

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
        let rel = p.strip_prefix(maxfs_tests::corpus_dir()).unwrap_or(p);
        if let Some((_, why)) = KNOWN_BAD
            .iter()
            .find(|(f, _)| rel == std::path::Path::new(f))
        {
            match &result {
                Err(e) if e.to_string() == *why => {
                    eprintln!("known bad: {}: {e}", rel.display());
                }
                Err(e) => failures.push(format!(
                    "{}: listed as known bad ({why}) but gave another error: {e}",
                    rel.display()
                )),
                Ok(b) => failures.push(format!(
                    "{}: listed as known bad ({why}) but round-tripped ({} bytes)",
                    rel.display(),
                    b.len()
                )),
            }
            continue;
        }
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

/// The CMesh v3 file (old one-piece layout) also gives its summary and JSON view.
#[test]
fn old_cmesh_v3_views() {
    let p = maxfs_tests::corpus_dir().join("nel/misc/arena.shape");
    let bytes = std::fs::read(&p).expect("read arena.shape");
    let s = nel::nel_summary(&bytes, "arena.shape").expect("summary");
    assert_eq!((s.class.as_str(), s.version), ("CMesh", 3));
    let get = |k: &str| s.counts.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
    assert_eq!(get("materials"), Some(1));
    assert_eq!(get("vertices"), Some(96));
    assert_eq!(get("matrix_blocks"), Some(1));
    let json = nel::nel_json(&bytes, "arena.shape", false).expect("json");
    assert!(json.contains("\"old\""), "old layout shown in JSON");
    assert!(
        json.contains("Material #3"),
        "animated material name in JSON"
    );
}
