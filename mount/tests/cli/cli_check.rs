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
    assert!(versions.contains_key("3ds Max 3/4 (0x2004)"));
    assert!(versions.contains_key("3ds Max 2010 (0x2012)"));
}

/// Each class of bad input, alone beside a good file: (file name, bytes, what
/// the line and the JSON `why` must say).
fn bad_inputs(street: &[u8]) -> Vec<(&'static str, Vec<u8>, &'static str)> {
    // A fixed pseudo-random sequence (xorshift), not a real OLE header.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let random: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    // A gzip member (RFC 1952 header, stored deflate block of the street.max bytes).
    let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    gz.extend_from_slice(&[1, 5, 0, 0xfa, 0xff]);
    gz.extend_from_slice(&street[..5]);
    vec![
        ("empty.max", Vec::new(), "empty file"),
        ("random.max", random, "no OLE signature"),
        ("text.max", b"just some notes\n".to_vec(), "text file"),
        ("gzip.max", gz, "gzip file"),
        (
            "lfs.max",
            b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 12\n".to_vec(),
            "git-lfs",
        ),
        (
            "cut.max",
            street[..street.len() / 3].to_vec(),
            "compound file is damaged",
        ),
    ]
}

#[test]
fn every_bad_input_class_fails_the_run_and_says_why() {
    let street = std::fs::read(corpus().join("max/ryzomcore/street.max")).expect("corpus");
    for (name, bytes, says) in bad_inputs(&street) {
        let tmp = tempfile::tempdir().expect("tempdir");
        std::fs::write(tmp.path().join("good.max"), &street).expect("write");
        std::fs::write(tmp.path().join(name), &bytes).expect("write");
        std::fs::write(tmp.path().join("notes.txt"), b"not looked at").expect("write");
        let dir = tmp.path().to_str().expect("utf-8");
        let (ok, out) = maxfs(&["check", dir]);
        assert!(!ok, "{name} must fail the run:\n{out}");
        let line = out
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no line for {name} in\n{out}"));
        assert!(!line.starts_with("ok"), "{line}");
        assert!(line.contains(says), "{name}: {line}");
        assert!(out
            .lines()
            .any(|l| l.starts_with("ok") && l.contains("good.max")));
        assert!(!out.contains("notes.txt"));
        // The JSON names the failing file and why; the good one passed.
        let (ok, out) = maxfs(&["check", "--json", dir]);
        assert!(!ok, "{name} must fail the --json run");
        let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
        let files = v["files"].as_array().expect("files");
        assert_eq!(files.len(), 2, "{out}");
        for f in files {
            let path = f["path"].as_str().expect("path");
            if path.ends_with("good.max") {
                assert_eq!(f["passed"], true, "{f}");
                assert!(f.get("why").is_none(), "{f}");
            } else {
                assert!(path.ends_with(name), "{f}");
                assert_eq!(f["passed"], false, "{f}");
                let why = f["why"].as_str().expect("why");
                assert!(why.contains(says), "{name}: {why}");
            }
        }
        // Without the bad file the same directory passes.
        std::fs::remove_file(tmp.path().join(name)).expect("rm");
        let (ok, out) = maxfs(&["check", dir]);
        assert!(ok, "{out}");
    }
}

#[test]
fn a_missing_path_fails_the_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let gone = tmp.path().join("gone.max");
    let (ok, out) = maxfs(&["check", gone.to_str().expect("utf-8")]);
    assert!(!ok, "{out}");
    assert!(out.contains("no such file"), "{out}");
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

/// `--coverage` names what the evaluation does not compute and calls such a
/// file partial: its own exit status (2), distinct from a failed gate (1) and
/// from a complete file (0). The chair's two TurboSmooths at 9 iterations
/// (1.57 million quads each, over the memory cap) are not evaluated; a single
/// Editable Mesh triangle is.
#[test]
fn coverage_marks_partial_files_and_exits_2() {
    let chair = corpus().join("max/kenji-room/Kenjis_chair.max");
    let simple = corpus().join("max/babylon/SimpleTriangle.max");
    let run = |p: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_maxfs"))
            .args(["check", "--coverage", "--json"])
            .arg(p)
            .output()
            .expect("maxfs runs");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
        (out.status.code(), v)
    };
    let (code, v) = run(&chair);
    let f = &v["files"][0];
    assert_eq!(code, Some(2), "{v}");
    assert_eq!(f["partial"], true, "{f}");
    assert_eq!(f["passed"], true, "{f}");
    let gaps = f["unevaluated"].as_array().expect("unevaluated");
    assert!(
        gaps.iter()
            .any(|g| g.as_str().is_some_and(|g| g.contains("\"TurboSmooth\""))),
        "{f}"
    );
    assert_eq!(v["summary"]["by_outcome"]["partial"], 1, "{v}");
    let (code, v) = run(&simple);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["files"][0]["partial"], false, "{v}");
    assert_eq!(v["summary"]["by_outcome"]["ok"], 1, "{v}");
    // The text form says it in the status column.
    let (_, out) = maxfs(&["check", "--coverage", chair.to_str().expect("utf-8 path")]);
    assert!(out.starts_with("part "), "{out}");
}
