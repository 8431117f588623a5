//! Checks on the library sources themselves (no corpus needed).

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            // Integration tests are not library code.
            if path
                .file_name()
                .is_some_and(|n| n == "tests" || n == "target")
            {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether a line holds `Result<..., String>` (as `grep 'Result<[^;]*, String>'`).
fn returns_string_error(line: &str) -> bool {
    line.match_indices("Result<").any(|(i, _)| {
        let rest = &line[i..];
        let rest = rest.split(';').next().unwrap_or(rest);
        rest.contains(", String>")
    })
}

#[test]
fn library_errors_are_typed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["scene", "exporters", "fs"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(
        files.len() > 100,
        "sources not found under {}",
        root.display()
    );
    let mut hits = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable source");
        for (n, line) in text.lines().enumerate() {
            if returns_string_error(line) {
                hits.push(format!("{}:{}", f.display(), n + 1));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "{} lines of library code return Result<_, String>; library errors are typed \
         (EvalError, ExportError, StageError, ...) so callers act on the kind and users \
         read where it failed:\n{}",
        hits.len(),
        hits.join("\n")
    );
}

#[test]
fn the_line_check_matches_grep() {
    assert!(returns_string_error("fn f() -> Result<Vec<u8>, String> {"));
    assert!(returns_string_error("type R = Result<Arc<Mesh>, String>;"));
    assert!(!returns_string_error("fn f() -> Result<(), EvalError> {"));
    assert!(!returns_string_error(
        "let m: HashMap<u32, String>; Result<(), E>"
    ));
}
