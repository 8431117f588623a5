//! The mount as tools use it (issue 13): what Python's `open()` and other
//! routine calls log, how often a bad file is warned about, and symlinks inside
//! the checkout (a link to `..` must not turn a walk into an endless one).
//!
//! The tests of this file share one capturing logger, so they run one at a time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use log::{Level, LevelFilter, Log, Metadata, Record};
use maxfs::fuse::{config, MaxFuse};
use maxfs_fs::{Kind, MaxFs, Options};
use maxfs_tests::corpus_dir;

/// Every warning or error logged in this process (fuser's included).
struct Capture;

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());
static SERIAL: Mutex<()> = Mutex::new(());
static CAPTURE: Capture = Capture;

impl Log for Capture {
    fn enabled(&self, m: &Metadata) -> bool {
        m.level() <= Level::Warn
    }
    fn log(&self, r: &Record) {
        if self.enabled(r.metadata()) {
            let line = format!("{} [{}] {}", r.level(), r.target(), r.args());
            LINES.lock().unwrap_or_else(|p| p.into_inner()).push(line);
        }
    }
    fn flush(&self) {}
}

/// Serializes the tests and starts capturing; the returned lines are those
/// logged since.
fn capture() -> (std::sync::MutexGuard<'static, ()>, usize) {
    let guard = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if log::set_logger(&CAPTURE).is_ok() {
        log::set_max_level(LevelFilter::Warn);
    }
    let n = LINES.lock().unwrap_or_else(|p| p.into_inner()).len();
    (guard, n)
}

fn logged_since(n: usize) -> Vec<String> {
    LINES.lock().unwrap_or_else(|p| p.into_inner())[n..].to_vec()
}

/// A mounted tree, unmounted on drop (also when a test panics).
struct Mounted {
    session: Option<fuser::BackgroundSession>,
    dir: tempfile::TempDir,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Some(s) = self.session.take() {
            if s.umount_and_join().is_err() {
                let _ = maxfs::mount_cmd::lazy_unmount(self.dir.path());
            }
        }
    }
}

fn mount(src: &Path) -> Mounted {
    assert!(
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/fuse")
            .is_ok(),
        "these tests need FUSE (/dev/fuse)"
    );
    let tree = Arc::new(MaxFs::new(src, Options::default()));
    let dir = tempfile::tempdir().expect("tempdir");
    let session = fuser::spawn_mount(MaxFuse::new(tree), dir.path(), &config(4))
        .unwrap_or_else(|e| panic!("mount on {}: {e}", dir.path().display()));
    let t0 = Instant::now();
    while std::fs::read_dir(dir.path()).map_or(true, |mut d| d.next().is_none()) {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "mount did not come up"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Mounted {
        session: Some(session),
        dir,
    }
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("command runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_thousand_python_opens_log_nothing() {
    let (_serial, since) = capture();
    let m = mount(&corpus_dir());
    let street = m.dir.path().join("max/ryzomcore/street.max");
    // Text and binary opens of generated, stream, chunk-free and pass-through files:
    // Python asks isatty (ioctl TCGETS) on each, and seeks, reads, closes.
    let script = r#"
import os, sys
base = sys.argv[1]
files = ["json/nodes.json", "streams/Scene", "source.max", "info.json"]
n = 0
for i in range(250):
    for f in files:
        p = os.path.join(base, f)
        with open(p, "rb") as h:
            h.read(16)
        n += 1
with open(os.path.join(base, "json/scene.json")) as h:
    assert h.read(1) == "{"
print(n)
"#;
    let (code, out, err) = run(Command::new("python3").arg("-c").arg(script).arg(&street));
    assert_eq!(code, 0, "python: {err}");
    assert_eq!(out.trim(), "1000");
    let logged = logged_since(since);
    assert!(
        logged.is_empty(),
        "{} warning lines, first: {:?}",
        logged.len(),
        logged.first()
    );
}

#[test]
fn a_bad_file_is_warned_about_once_per_version() {
    let (_serial, since) = capture();
    let src = tempfile::tempdir().expect("tempdir");
    let street = std::fs::read(corpus_dir().join("max/ryzomcore/street.max")).expect("corpus");
    std::fs::write(src.path().join("cut.max"), &street[..street.len() / 3]).expect("write");
    std::fs::write(
        src.path().join("lfs.max"),
        b"version https://git-lfs.github.com/spec/v1\n",
    )
    .expect("write");
    let m = mount(src.path());
    // What users and tools do to a file, several times over.
    for _ in 0..4 {
        for name in ["cut.max", "lfs.max"] {
            let at = m.dir.path().join(name);
            let listed: Vec<_> = std::fs::read_dir(&at)
                .expect("a bad file is still a directory")
                .map(|e| e.expect("entry").file_name())
                .collect();
            assert!(listed.iter().any(|n| n == "error.txt"), "{listed:?}");
            let error = std::fs::read_to_string(at.join("error.txt")).expect("error.txt");
            assert!(!error.is_empty());
            std::fs::read(at.join("info.json")).expect("info.json");
            assert!(std::fs::metadata(at.join("streams")).is_err());
            assert!(std::fs::read(at.join("json/nodes.json")).is_err());
        }
    }
    let logged = logged_since(since);
    for name in ["cut.max", "lfs.max"] {
        let about: Vec<&String> = logged.iter().filter(|l| l.contains(name)).collect();
        assert_eq!(about.len(), 1, "{name}: {about:#?}");
    }
    assert_eq!(logged.len(), 2, "{logged:#?}");
    // A new version of the file is a new file: its failure is warned about again.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(src.path().join("cut.max"), &street[..street.len() / 2]).expect("write");
    let again = m.dir.path().join("cut.max/error.txt");
    std::fs::read(&again).expect("error.txt of the new version");
    std::fs::read(&again).expect("error.txt of the new version");
    let logged = logged_since(since);
    assert_eq!(logged.len(), 3, "{logged:#?}");
    assert!(logged[2].contains("cut.max"), "{logged:#?}");
}

/// Every path `find` prints under `dir`, relative to it; a walk that does not
/// end within 60 s fails (coreutils `timeout`).
fn find(dir: &Path, args: &[&str]) -> Vec<PathBuf> {
    let (code, out, err) = run(Command::new("timeout")
        .arg("60")
        .arg("find")
        .arg(dir)
        .args(args));
    assert_ne!(code, 124, "find over {} did not end in 60 s", dir.display());
    assert_eq!(code, 0, "{err}");
    out.lines()
        .map(|l| Path::new(l).strip_prefix(dir).expect("below").to_path_buf())
        .collect()
}

#[test]
fn symlinks_are_served_as_links_and_never_followed() {
    let (_serial, since) = capture();
    let src = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("secret.txt"), b"outside").expect("write");
    let sub = src.path().join("zones");
    std::fs::create_dir(&sub).expect("mkdir");
    std::fs::copy(
        corpus_dir().join("max/ryzomcore/street.max"),
        sub.join("street.max"),
    )
    .expect("copy");
    use std::os::unix::fs::symlink;
    symlink("..", sub.join("up")).expect("symlink"); // a loop: zones/up/zones/up/…
    symlink(".", src.path().join("here")).expect("symlink");
    symlink("street.max", sub.join("alias.max")).expect("symlink");
    symlink(outside.path(), src.path().join("out")).expect("symlink"); // leaves the checkout
    symlink("../nowhere", src.path().join("dangling")).expect("symlink");
    let m = mount(src.path());
    let mnt = m.dir.path();

    // find terminates and lists each link once, as a link.
    let all = find(mnt, &["-mindepth", "1"]);
    let links = find(mnt, &["-type", "l"]);
    let mut want_links: Vec<PathBuf> = ["dangling", "here", "out", "zones/alias.max", "zones/up"]
        .iter()
        .map(PathBuf::from)
        .collect();
    want_links.sort();
    let mut got_links = links.clone();
    got_links.sort();
    assert_eq!(got_links, want_links);
    // Nothing below a link was walked: no second copy of the tree, nothing from outside.
    for p in &all {
        assert!(
            !want_links.iter().any(|l| p != l && p.starts_with(l)),
            "walked through a link: {}",
            p.display()
        );
        assert!(!p.ends_with("secret.txt"), "{}", p.display());
    }
    // The .max itself is there once, with its virtual tree.
    assert!(all.contains(&PathBuf::from("zones/street.max/json/nodes.json")));
    assert_eq!(
        all.iter()
            .filter(|p| p.ends_with("json/nodes.json"))
            .count(),
        1
    );

    // readlink gives each target as stored; lstat says link.
    for (link, target) in [
        ("zones/up", PathBuf::from("..")),
        ("here", PathBuf::from(".")),
        ("zones/alias.max", PathBuf::from("street.max")),
        ("out", outside.path().to_path_buf()),
        ("dangling", PathBuf::from("../nowhere")),
    ] {
        let p = mnt.join(link);
        assert_eq!(std::fs::read_link(&p).expect("readlink"), target, "{link}");
        let meta = std::fs::symlink_metadata(&p).expect("lstat");
        assert!(meta.file_type().is_symlink(), "{link}");
        assert_eq!(meta.len(), target.as_os_str().len() as u64, "{link}");
    }
    // The kernel resolves a link inside the checkout through the mount itself
    // (alias.max is street.max's virtual directory, same bytes).
    assert_eq!(
        std::fs::read(mnt.join("zones/alias.max/json/nodes.json")).expect("through the link"),
        std::fs::read(mnt.join("zones/street.max/json/nodes.json")).expect("direct")
    );

    // The tree without FUSE says the same.
    let tree = MaxFs::new(src.path(), Options::default());
    let zones = tree.lookup(Path::new("zones")).expect("zones");
    let listed = tree.list(&zones).expect("list");
    let kind_of = |n: &str| listed.iter().find(|(x, _)| x == n).map(|(_, k)| *k);
    assert_eq!(kind_of("up"), Some(Kind::Symlink));
    assert_eq!(kind_of("alias.max"), Some(Kind::Symlink));
    assert_eq!(kind_of("street.max"), Some(Kind::Dir));
    let up = tree.lookup(Path::new("zones/up")).expect("up");
    assert_eq!(tree.readlink(&up).expect("readlink"), PathBuf::from(".."));
    assert!(tree.lookup(Path::new("zones/up/zones")).is_err());
    assert!(tree.lookup(Path::new("out/secret.txt")).is_err());
    assert!(logged_since(since).is_empty(), "{:#?}", logged_since(since));
}
