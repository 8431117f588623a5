//! `maxfs mount` says when it is up (a "ready" line on stderr, at the default
//! log level), and `maxfs ls` takes several paths, each listing headed as ls does.
#![allow(unsafe_code)] // signals sent to the mount under test

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn corpus() -> PathBuf {
    std::env::var_os("MAXFS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
}

#[test]
fn mount_prints_ready_once_it_serves() {
    let mnt = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_maxfs"))
        .arg("mount")
        .arg(corpus())
        .arg(mnt.path())
        .stderr(Stdio::piped())
        .spawn()
        .expect("maxfs mount runs");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = rx.recv_timeout(Duration::from_secs(30));
    let ready = first.as_deref().unwrap_or("");
    let served = std::fs::read_dir(mnt.path()).map(|d| {
        d.flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
    });
    // SAFETY: signalling the child we started, by its id.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "mount did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        ready.starts_with("maxfs: ready: serving ")
            && ready.contains(&mnt.path().display().to_string()),
        "first stderr line: {first:?}"
    );
    // Right after the ready line the mount answers with the checkout's top level.
    let served = served.expect("the mount answers");
    assert!(served.iter().any(|n| n == "max"), "{served:?}");
    assert!(status.success(), "{status:?}");
    // Nothing else was logged at the default level.
    let rest: Vec<String> = rx.try_iter().collect();
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn ls_takes_several_paths() {
    let a = corpus().join("max/neloid/tile.max");
    let b = corpus().join("max/neloid/block.max/json");
    let out = Command::new(env!("CARGO_BIN_EXE_maxfs"))
        .arg("ls")
        .arg(&a)
        .arg(&b)
        .output()
        .expect("maxfs ls runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let one = |p: &Path| {
        let o = Command::new(env!("CARGO_BIN_EXE_maxfs"))
            .arg("ls")
            .arg(p)
            .output()
            .expect("maxfs ls runs");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let want = format!(
        "{}:\n{}\n{}:\n{}",
        a.display(),
        one(&a),
        b.display(),
        one(&b)
    );
    assert_eq!(text, want);
    assert!(one(&a).contains("json\n") && one(&b).contains("nodes.json\n"));
    // A missing path among them fails the run; the others are still listed.
    let out = Command::new(env!("CARGO_BIN_EXE_maxfs"))
        .arg("ls")
        .arg(corpus().join("max/neloid/nothing.max"))
        .arg(&b)
        .output()
        .expect("maxfs ls runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("nodes.json"));
}

/// `--stats` prints the caches' statistics as one JSON line at unmount: a file
/// read twice is one document load and one miss then one hit of the content cache.
#[test]
fn mount_stats_count_loads_hits_and_bytes() {
    let mnt = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_maxfs"))
        .arg("mount")
        .arg(corpus())
        .arg(mnt.path())
        .args(["--stats", "3600"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("maxfs mount runs");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = std::io::BufReader::new(stderr).lines();
    let ready = lines.next().and_then(Result::ok).unwrap_or_default();
    let view = mnt.path().join("max/neloid/block.max/json/appdata.json");
    let first = std::fs::read(&view);
    let second = std::fs::read(&view);
    // SAFETY: signalling the child we started, by its id.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().expect("wait");
    assert!(ready.starts_with("maxfs: ready"), "{ready}");
    assert!(status.success(), "{status:?}");
    assert_eq!(first.expect("read"), second.expect("read again"));
    let line = rest
        .iter()
        .find_map(|l| l.strip_prefix("maxfs: stats: "))
        .unwrap_or_else(|| panic!("no stats line in {rest:?}"));
    let v: serde_json::Value = serde_json::from_str(line).expect("stats are JSON");
    assert_eq!(v["document_loads"], 1, "{v}");
    assert!(v["documents"]["bytes"].as_u64().unwrap_or(0) > 0, "{v}");
    assert_eq!(v["documents"]["budget"], 1u64 << 30, "{v}");
    assert!(v["content"]["hits"].as_u64().unwrap_or(0) >= 1, "{v}");
    assert_eq!(v["content"]["entries"], 1, "{v}");
}
