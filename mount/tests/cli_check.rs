//! `maxfs check` as a user runs it: lines, JSON, exit status, and files that are
//! not .max compound files.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    std::env::var_os("MAXFS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
}

fn maxfs(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_maxfs"))
        .args(args)
        .output()
        .expect("maxfs runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn whole_corpus_checks_ok_as_json() {
    let dir = corpus().join("max");
    let (ok, out) = maxfs(&[
        "check",
        "--json",
        "--container",
        dir.to_str().expect("utf-8 path"),
    ]);
    assert!(ok, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let files = v["files"].as_array().expect("files");
    let on_disk = maxfs_walk_count(&dir);
    assert_eq!(
        files.len(),
        on_disk,
        "every .max under the corpus is checked"
    );
    for f in files {
        assert_eq!(f["outcome"], "ok", "{f}");
        assert!(f["typed_values"].as_u64().unwrap_or(0) > 0, "{f}");
    }
    assert_eq!(v["summary"]["by_outcome"]["ok"], on_disk);
    let versions = v["summary"]["by_version"].as_object().expect("by_version");
    assert!(versions.contains_key("3ds Max 3 (0x2004)"));
    assert!(versions.contains_key("3ds Max 2010 (0x2012)"));
}

#[test]
fn bad_files_are_named_and_counted() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let street = std::fs::read(corpus().join("max/ryzomcore/street.max")).expect("corpus");
    std::fs::write(tmp.path().join("good.max"), &street).expect("write");
    std::fs::write(tmp.path().join("cut.max"), &street[..street.len() / 3]).expect("write");
    std::fs::write(
        tmp.path().join("lfs.max"),
        "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 12\n",
    )
    .expect("write");
    std::fs::write(tmp.path().join("empty.max"), b"").expect("write");
    std::fs::write(tmp.path().join("notes.txt"), b"not looked at").expect("write");
    let (ok, out) = maxfs(&["check", tmp.path().to_str().expect("utf-8")]);
    assert!(!ok, "a damaged file must fail the run:\n{out}");
    let line = |name: &str| {
        out.lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no line for {name} in\n{out}"))
            .to_string()
    };
    assert!(line("good.max").starts_with("ok"));
    assert!(line("cut.max").starts_with("error"), "{}", line("cut.max"));
    assert!(
        line("lfs.max").starts_with("not-a-compound-file") && line("lfs.max").contains("git-lfs")
    );
    assert!(line("empty.max").contains("empty file"));
    assert!(!out.contains("notes.txt"));
    // Without the damaged file the run succeeds even with non-compound files present.
    std::fs::remove_file(tmp.path().join("cut.max")).expect("rm");
    let (ok, out) = maxfs(&["check", tmp.path().to_str().expect("utf-8")]);
    assert!(ok, "{out}");
}

/// How many `.max` files lie under `dir` (any depth), counted independently of the CLI.
fn maxfs_walk_count(dir: &std::path::Path) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable corpus").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("max")) {
                n += 1;
            }
        }
    }
    n
}
