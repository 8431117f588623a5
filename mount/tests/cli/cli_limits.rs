//! `maxfs check` on a hostile file (issue 13): 100 gzip bombs of 16 MiB each in
//! a 1.7 MB file, written by the project's container writer. The run fails,
//! names the per-file decompression budget, and its peak memory (VmHWM from
//! /proc while it runs) stays near that budget instead of the 1.6 GiB the
//! bombs inflate to.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use maxfs_scene::container::InflateLimits;

use crate::hostile::write_bombs;

fn bomb_file(dir: &Path) -> (PathBuf, u64) {
    let path = dir.join("bombs.max");
    let len = write_bombs(&path);
    (path, len)
}

/// Runs `maxfs ARGS`, polling its peak resident size (VmHWM, KiB) until it
/// exits: (success, stdout, peak bytes).
fn run_measured(args: &[&str]) -> (bool, String, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_maxfs"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("maxfs runs");
    let status_path = format!("/proc/{}/status", child.id());
    // stdout is small (one line per file and a summary): read it after exit.
    let mut peak = 0u64;
    let t0 = Instant::now();
    let status = loop {
        if let Ok(s) = std::fs::read_to_string(&status_path) {
            for l in s.lines() {
                if let Some(v) = l.strip_prefix("VmHWM:") {
                    let kib: u64 = v.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
                    peak = peak.max(kib * 1024);
                }
            }
        }
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "check did not end");
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut out = String::new();
    if let Some(mut o) = child.stdout.take() {
        std::io::Read::read_to_string(&mut o, &mut out).expect("stdout");
    }
    (status.success(), out, peak)
}

#[test]
fn check_of_many_small_bombs_is_bounded_by_the_file_budget() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (path, len) = bomb_file(dir.path());
    let p = path.to_str().expect("utf-8");
    let budget = InflateLimits::default().budget(len);
    let (ok, out, peak) = run_measured(&["check", "--json", p]);
    assert!(!ok, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let f = &v["files"][0];
    assert_eq!(f["passed"], false);
    let why = f["why"].as_str().expect("why");
    assert!(why.contains(&format!("{budget} bytes")), "{why}");
    assert!(why.contains("Bomb"), "{why}");
    // The bombs inflate to 1.6 GiB; the run holds at most the budget of them
    // (~110 MB here) plus the process itself.
    assert!(
        peak < budget + (150 << 20),
        "peak {} MB, budget {} MB",
        peak >> 20,
        budget >> 20
    );
    // A tighter cap given on the command line holds too, and is named.
    let (ok, out, peak_tight) = run_measured(&["check", "--inflate-max-mb", "32", p]);
    eprintln!(
        "file {len} bytes, budget {budget}: peak RSS {} MiB; with --inflate-max-mb 32: {} MiB",
        peak >> 20,
        peak_tight >> 20
    );
    assert!(!ok);
    assert!(out.contains(&format!("{} bytes", 32u64 << 20)), "{out}");
    assert!(peak_tight < peak, "{peak_tight} vs {peak}");
    assert!(
        peak_tight < (32 << 20) + (150 << 20),
        "{}",
        peak_tight >> 20
    );
}
