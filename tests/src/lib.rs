//! Shared helpers for the end-to-end tests: where the corpus is and how to walk it.

use std::path::{Path, PathBuf};

/// The shared corpus: `$MAXFS_CORPUS`, else `../shared/corpus` beside the project root.
pub fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MAXFS_CORPUS") {
        return PathBuf::from(dir);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = root.join("../shared/corpus");
    assert!(
        dir.is_dir(),
        "corpus not found at {} (set MAXFS_CORPUS)",
        dir.display()
    );
    dir
}

/// Every file under `dir` whose extension (lowercase) is one of `exts`, sorted.
pub fn files_with_ext(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Some(ext) = p.extension().and_then(|x| x.to_str()) {
                if exts.iter().any(|w| w.eq_ignore_ascii_case(ext)) {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// All `.max` files of the corpus.
pub fn corpus_max_files() -> Vec<PathBuf> {
    files_with_ext(&corpus_dir().join("max"), &["max"])
}
pub mod gltf_ref;
pub mod rewrite;
