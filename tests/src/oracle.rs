//! NeL's own checkers (tests/oracle/*.sh) run on files the tests built:
//! each must load in NeL and be written back byte-identically.

use std::path::Path;
use std::process::Command;

/// Writes `files` (name, bytes) to a temp dir, runs `tests/oracle/{script}`
/// on them and returns its lines, one per file, after asserting that each
/// starts with `ok_prefix` and ends with NeL's "identical" re-serialization.
pub fn check<N: AsRef<str>, B: AsRef<[u8]>>(
    script: &str,
    files: &[(N, B)],
    ok_prefix: &str,
) -> Vec<String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut paths = Vec::new();
    for (name, bytes) in files {
        let p = dir.path().join(name.as_ref());
        std::fs::write(&p, bytes.as_ref()).expect("write");
        paths.push(p);
    }
    let out = Command::new("bash")
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("oracle")
                .join(script),
        )
        .args(&paths)
        .output()
        .expect("runs the NeL oracle");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), files.len(), "{text}");
    for l in &lines {
        assert!(
            l.starts_with(ok_prefix) && l.ends_with("reser: identical"),
            "NeL: {l}"
        );
    }
    lines
}
