//! The user guide's examples run as written: every `maxfs ls` / `maxfs cat`
//! line of docs/user-guide.md runs against the corpus (`../shared/corpus` in
//! the guide) and succeeds with output, and every `MNT/…` path of the mount
//! examples (the corpus mounted on MNT) resolves in the same tree.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    std::env::var_os("MAXFS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
}

fn guide() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/user-guide.md"))
        .expect("user guide")
}

fn maxfs(args: &[String]) -> (bool, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_maxfs"))
        .args(args)
        .output()
        .expect("maxfs runs");
    (
        out.status.success(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The guide's corpus prefix replaced by the corpus used here.
fn in_corpus(word: &str) -> String {
    word.replace("../shared/corpus", &corpus().display().to_string())
}

/// A path with `*` in it, expanded by the shell over the real corpus (the part
/// up to the last component holding a `*`), the rest appended.
fn expand(path: &str) -> Vec<String> {
    let comps: Vec<&str> = path.split('/').collect();
    let Some(last) = comps.iter().rposition(|c| c.contains('*')) else {
        return vec![path.to_string()];
    };
    let pattern = comps[..=last].join("/");
    let rest = comps[last + 1..].join("/");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("printf '%s\\n' {pattern}"))
        .output()
        .expect("sh");
    let found: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.contains('*'))
        .map(|l| format!("{l}/{rest}"))
        .collect();
    assert!(!found.is_empty(), "{pattern} matches nothing");
    found
}

#[test]
fn cli_examples_run_as_written() {
    let mut ran = 0;
    for line in guide().lines() {
        let Some(cmd) = line.strip_prefix("    maxfs ") else {
            continue;
        };
        let cmd = cmd.split(" #").next().unwrap_or("").trim();
        let cmd = cmd.split(" >").next().unwrap_or("").trim();
        let words: Vec<String> = cmd.split_whitespace().map(in_corpus).collect();
        if !matches!(words.first().map(String::as_str), Some("ls" | "cat")) {
            continue;
        }
        let (ok, out, err) = maxfs(&words);
        assert!(ok, "maxfs {cmd}: {err}");
        assert!(!out.is_empty(), "maxfs {cmd}: no output");
        if words.iter().any(|w| w.ends_with("street.max")) && words[0] == "ls" {
            assert!(String::from_utf8_lossy(&out).contains("json"), "{cmd}");
        }
        ran += 1;
    }
    assert!(ran >= 7, "{ran} examples found");
}

#[test]
fn mount_example_paths_exist() {
    let mut checked = 0;
    let text = guide();
    let start = text
        .find("Examples on a mounted checkout")
        .expect("section");
    let end = start + text[start..].find("\n\n- ").expect("end of the examples");
    for line in text[start..end].lines().filter(|l| l.starts_with("    ")) {
        for word in line.split_whitespace().take_while(|w| !w.starts_with('#')) {
            let word = word.trim_matches(|c| c == '\'' || c == ')' || c == '(');
            let path = if let Some(rest) = word.strip_prefix("MNT/") {
                corpus().join(rest).display().to_string()
            } else if word.contains("../shared/corpus") {
                in_corpus(word.trim_start_matches("<(maxfs"))
            } else {
                continue;
            };
            for p in expand(&path) {
                let dir = p.ends_with('/');
                let verb = if dir { "ls" } else { "cat" };
                let (ok, out, err) = maxfs(&[verb.into(), p.trim_end_matches('/').into()]);
                assert!(ok, "{line}: maxfs {verb} {p}: {err}");
                assert!(!out.is_empty(), "{p}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 6, "{checked} paths");
}

#[test]
fn grep_example_finds_its_key() {
    // `grep -l '"NEL3D_APPDATA_DONTEXPORT"' MNT/max/*/*.max/json/appdata.json`
    let hits = expand(&format!(
        "{}/max/*/*.max/json/appdata.json",
        corpus().display()
    ))
    .into_iter()
    .filter(|p| {
        let (ok, out, _) = maxfs(&["cat".into(), p.clone()]);
        ok && String::from_utf8_lossy(&out).contains("\"NEL3D_APPDATA_DONTEXPORT\"")
    })
    .count();
    assert!(hits >= 1);
}
