//! The tree through the kernel: the corpus is mounted with FUSE into a temporary
//! directory and read with ordinary tools (ls -R, cat, grep -r, diff -r, find | xargs cat).

use std::collections::BTreeSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use maxfs::fuse::{config, MaxFuse, Prefill};
use maxfs_fs::{Kind, MaxFs, Options};
use maxfs_scene::{Document, Layout};
use maxfs_tests::{corpus_dir, corpus_max_files};

/// A mounted tree, unmounted on drop (also when a test panics).
struct Mounted {
    session: Option<fuser::BackgroundSession>,
    dir: tempfile::TempDir,
    tree: Arc<MaxFs>,
    prefill: Arc<Prefill>,
}

impl Mounted {
    fn path(&self) -> &Path {
        self.dir.path()
    }
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

use maxfs_tests::fuse_available;

fn mount(src: &Path) -> Option<Mounted> {
    if !fuse_available() {
        return None;
    }
    let tree = Arc::new(MaxFs::new(src, Options::default()));
    let dir = tempfile::tempdir().unwrap();
    let binding = MaxFuse::new(tree.clone());
    let prefill = binding.prefill();
    let session = fuser::spawn_mount(binding, dir.path(), &config(4))
        .unwrap_or_else(|e| panic!("mount on {}: {e}", dir.path().display()));
    prefill.start(session.notifier());
    // Wait until the kernel answers on the mount point.
    let t0 = Instant::now();
    while std::fs::read_dir(dir.path()).map_or(true, |mut d| d.next().is_none()) {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "mount did not come up"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(Mounted {
        session: Some(session),
        dir,
        tree,
        prefill,
    })
}

/// Every path below `dir` via readdir only (what `ls -R` does), with kinds.
fn ls_r(dir: &Path, at: &Path, out: &mut BTreeSet<(PathBuf, bool)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let is_dir = e.file_type().unwrap().is_dir();
        let p = at.join(e.file_name());
        out.insert((p.clone(), is_dir));
        if is_dir {
            ls_r(&e.path(), &p, out);
        }
    }
}

#[test]
fn ls_r_of_the_mount_lists_what_the_cli_lists() {
    let Some(m) = mount(&corpus_dir()) else {
        return;
    };
    let mut seen = BTreeSet::new();
    ls_r(&m.path().join("max"), Path::new(""), &mut seen);
    let cli = MaxFs::new(corpus_dir(), Options::default());
    let want: BTreeSet<(PathBuf, bool)> = maxfs::tree_cmd::walk(&cli, Path::new("max"))
        .unwrap()
        .into_iter()
        .map(|(p, k, _)| (p, k == Kind::Dir))
        .collect();
    assert_eq!(seen.len(), want.len());
    assert!(seen == want, "mount and CLI listings differ");
}

fn leaves(dir: &Path, chunks: &[maxfs_scene::chunk::Chunk], out: &mut Vec<(PathBuf, Vec<u8>)>) {
    for (i, c) in chunks.iter().enumerate() {
        let p = dir.join(maxfs_fs::names::chunk_name(i, c.id, !c.is_container()));
        match c.payload() {
            Some(d) => out.push((p, d.to_vec())),
            None => leaves(&p, c.children(), out),
        }
    }
}

#[test]
fn streams_and_chunk_leaves_read_exactly_through_the_kernel() {
    let Some(m) = mount(&corpus_dir()) else {
        return;
    };
    // Every chunk leaf of these files (all files with MAXFS_MOUNT_FULL=1); every stream of all.
    let full = std::env::var_os("MAXFS_MOUNT_FULL").is_some();
    let mut n_leaves = 0;
    for f in corpus_max_files() {
        let rel = f.strip_prefix(corpus_dir()).unwrap();
        let at = m.path().join(rel);
        let doc = Document::open(&f).unwrap();
        let deep = full || f.to_string_lossy().contains("ryzomcore") || f.ends_with("tile.max");
        for (s, sd) in doc.file.streams.iter().zip(&doc.streams) {
            let name = maxfs_fs::names::escape_stream_name(&s.name);
            let p = at.join("streams").join(&name);
            assert_eq!(
                std::fs::metadata(&p).unwrap().len(),
                s.data.len() as u64,
                "{}",
                p.display()
            );
            assert!(std::fs::read(&p).unwrap() == s.data, "{}", p.display());
            if let (true, Layout::Chunks(c)) = (deep, &sd.layout) {
                let mut all = Vec::new();
                leaves(&at.join("chunks").join(&name), c, &mut all);
                for (p, payload) in all {
                    assert_eq!(std::fs::metadata(&p).unwrap().len(), payload.len() as u64);
                    assert!(std::fs::read(&p).unwrap() == payload, "{}", p.display());
                    n_leaves += 1;
                }
            }
        }
    }
    assert!(n_leaves > 10_000, "{n_leaves}");
}

/// What `grep -r` does: list each directory (READDIRPLUS links every entry),
/// then read its files in order. The leaves after the first of each directory
/// come from the page cache the first read filled (`Prefill`); every byte must
/// still be the chunk's payload as the parser holds it.
#[test]
fn chunk_trees_read_by_a_walk_equal_the_payloads() {
    let Some(m) = mount(&corpus_dir()) else {
        return;
    };
    let mut compared = 0;
    let mut expected_total = 0;
    for f in corpus_max_files() {
        if !(f.to_string_lossy().contains("ryzomcore") || f.ends_with("tile.max")) {
            continue;
        }
        let rel = f.strip_prefix(corpus_dir()).unwrap();
        let at = m.path().join(rel);
        let doc = Document::open(&f).unwrap();
        let mut expected = std::collections::HashMap::new();
        for (s, sd) in doc.file.streams.iter().zip(&doc.streams) {
            if let Layout::Chunks(c) = &sd.layout {
                let name = maxfs_fs::names::escape_stream_name(&s.name);
                let mut all = Vec::new();
                leaves(&at.join("chunks").join(&name), c, &mut all);
                expected.extend(all);
            }
        }
        expected_total += expected.len();
        for p in walk_files(&at.join("chunks")) {
            let want = expected
                .get(&p)
                .unwrap_or_else(|| panic!("listed but not a leaf: {}", p.display()));
            let got = std::fs::read(&p).unwrap();
            assert_eq!(got.len(), want.len(), "{}", p.display());
            assert!(got == *want, "{}", p.display());
            assert_eq!(std::fs::metadata(&p).unwrap().len(), want.len() as u64);
            compared += 1;
        }
    }
    assert_eq!(compared, expected_total, "every leaf listed and read once");
    assert!(compared > 10_000, "{compared}");
    // Listing json/ hands out placeholders for the views: nothing is generated
    // until a view is looked up, and then its real size shows.
    let tile = corpus_max_files()
        .into_iter()
        .find(|f| f.ends_with("tile.max"))
        .expect("tile.max in the corpus");
    let json = m
        .path()
        .join(tile.strip_prefix(corpus_dir()).unwrap())
        .join("json");
    let listed = std::fs::read_dir(&json).unwrap().count();
    assert_eq!(listed, maxfs_fs::views::JsonView::ALL.len());
    let generated = |m: &Mounted| {
        m.tree
            .generation_counts()
            .keys()
            .filter(|k| k.contains("tile.max/json/"))
            .count()
    };
    assert_eq!(generated(&m), 0, "{:?}", m.tree.generation_counts());
    let nodes = json.join("nodes.json");
    let bytes = std::fs::read(&nodes).unwrap();
    assert!(!bytes.is_empty());
    assert_eq!(std::fs::metadata(&nodes).unwrap().len(), bytes.len() as u64);
    assert_eq!(generated(&m), 1, "{:?}", m.tree.generation_counts());
    // The page-cache path was taken, not only one READ per file.
    assert!(m.prefill.stored() > 1_000, "{}", m.prefill.stored());
}

fn run(cmd: &mut Command) -> (i32, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn grep_diff_find_and_writes() {
    let Some(m) = mount(&corpus_dir()) else {
        return;
    };
    let max = m.path().join("max");
    // grep -r finds a decoded NeL AppData key across the mount.
    let (code, out) = run(Command::new("grep")
        .arg("-rl")
        .arg("\"NEL3D_APPDATA_DONTEXPORT\"")
        .arg(max.join("ryzomcore"))
        .arg(max.join("neloid")));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("street.max/json/appdata.json"), "{out}");
    // diff -r of a file's tree against itself, and against a copy made through the CLI API.
    let street = max.join("ryzomcore/street.max");
    let (code, out) = run(Command::new("diff").arg("-r").arg(&street).arg(&street));
    assert_eq!((code, out.as_str()), (0, ""));
    let copy = tempfile::tempdir().unwrap();
    let cli = MaxFs::new(corpus_dir(), Options::default());
    let base = Path::new("max/ryzomcore/street.max");
    for (p, kind, _) in maxfs::tree_cmd::walk(&cli, base).unwrap() {
        let dst = copy.path().join(&p);
        match kind {
            Kind::Dir => std::fs::create_dir_all(&dst).unwrap(),
            Kind::File => std::fs::write(&dst, cli.read(&base.join(&p)).unwrap()).unwrap(),
            Kind::Symlink => panic!("the corpus holds no symlinks: {}", p.display()),
        }
    }
    let (code, out) = run(Command::new("diff").arg("-r").arg(&street).arg(copy.path()));
    assert_eq!((code, out.as_str()), (0, ""));
    // find -type f | xargs cat reads every file; st_size equals the bytes read.
    let (code, out) = run(Command::new("sh").arg("-c").arg(format!(
        "find '{0}' -type f | xargs cat | wc -c; find '{0}' -type f -printf '%s\\n' | awk '{{s+=$1}} END {{print s}}'",
        max.join("ryzomcore").display()
    )));
    assert_eq!(code, 0, "{out}");
    let nums: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(nums.len(), 2, "{out}");
    assert_eq!(nums[0], nums[1], "bytes read vs sizes");
    for e in walk_files(&max.join("neloid")) {
        assert_eq!(
            std::fs::read(&e).unwrap().len() as u64,
            std::fs::metadata(&e).unwrap().len(),
            "{}",
            e.display()
        );
    }
    // Writes fail with EROFS.
    let erofs = |r: std::io::Result<()>| {
        let e = r.expect_err("write succeeded");
        assert_eq!(e.raw_os_error(), Some(libc::EROFS), "{e}");
    };
    erofs(std::fs::write(m.path().join("new.txt"), b"x"));
    erofs(std::fs::write(street.join("info.json"), b"x"));
    erofs(std::fs::create_dir(street.join("d")));
    erofs(std::fs::remove_file(street.join("source.max")));
    erofs(
        std::fs::OpenOptions::new()
            .append(true)
            .open(
                corpus_dir()
                    .join("README.md")
                    .strip_prefix(corpus_dir())
                    .map(|r| m.path().join(r))
                    .unwrap(),
            )
            .map(|_| ()),
    );
    assert_eq!(
        std::fs::read(m.path().join("README.md")).unwrap(),
        std::fs::read(corpus_dir().join("README.md")).unwrap()
    );
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            out.extend(walk_files(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

#[test]
fn concurrent_readers_get_identical_bytes_and_one_generation_per_file() {
    let Some(m) = mount(&corpus_dir()) else {
        return;
    };
    let mut files = Vec::new();
    for f in [
        "ryzomcore/street.max",
        "ryzomcore/road_flag.max",
        "neloid/block.max",
        "babylon/Emissive.max",
    ] {
        let at = m.path().join("max").join(f);
        files.push(at.join("info.json"));
        files.push(at.join("json/appdata.json"));
        files.push(at.join("json/scene.json"));
        files.push(at.join("json/nodes.json"));
        files.push(at.join("json/summary_information.json"));
    }
    let files = Arc::new(files);
    let deadline = Instant::now() + Duration::from_secs(3);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let files = files.clone();
            std::thread::spawn(move || {
                let mut seen: Vec<Option<Vec<u8>>> = vec![None; files.len()];
                let mut k = t;
                while Instant::now() < deadline {
                    let i = k % files.len();
                    let b = std::fs::read(&files[i]).unwrap();
                    match &seen[i] {
                        Some(prev) => assert!(prev == &b, "{} changed", files[i].display()),
                        None => seen[i] = Some(b),
                    }
                    k += 3;
                }
                seen
            })
        })
        .collect();
    let all: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    for i in 0..files.len() {
        let versions: BTreeSet<_> = all.iter().filter_map(|s| s[i].clone()).collect();
        assert_eq!(versions.len(), 1, "{}", files[i].display());
    }
    let counts = m.tree.generation_counts();
    assert_eq!(counts.len(), files.len(), "{counts:?}");
    assert!(counts.values().all(|&n| n == 1), "{counts:?}");
}

#[test]
fn a_file_replaced_while_mounted_shows_new_content_and_size() {
    let src = tempfile::tempdir().unwrap();
    let street = std::fs::read(corpus_dir().join("max/ryzomcore/street.max")).unwrap();
    let road = std::fs::read(corpus_dir().join("max/ryzomcore/road_flag.max")).unwrap();
    std::fs::write(src.path().join("a.max"), &street).unwrap();
    std::fs::write(src.path().join("plain.txt"), b"one").unwrap();
    let Some(m) = mount(src.path()) else { return };
    let info = m.path().join("a.max/info.json");
    let scene = m.path().join("a.max/streams/Scene");
    let before = std::fs::read(&info).unwrap();
    assert_eq!(
        std::fs::read(m.path().join("a.max/source.max")).unwrap(),
        street
    );
    let tmp = src.path().join("a.tmp");
    std::fs::write(&tmp, &road).unwrap();
    std::fs::rename(&tmp, src.path().join("a.max")).unwrap();
    std::fs::write(src.path().join("plain.txt"), b"second").unwrap();
    let after = std::fs::read(&info).unwrap();
    assert_ne!(before, after);
    assert_eq!(std::fs::metadata(&info).unwrap().len(), after.len() as u64);
    let doc = Document::from_bytes(&road).unwrap();
    let scene_now = std::fs::read(&scene).unwrap();
    assert!(scene_now == doc.file.stream("Scene").unwrap().data);
    assert_eq!(
        std::fs::metadata(&scene).unwrap().len(),
        scene_now.len() as u64
    );
    assert_eq!(
        std::fs::read(m.path().join("a.max/source.max")).unwrap(),
        road
    );
    assert_eq!(
        std::fs::read(m.path().join("plain.txt")).unwrap(),
        b"second"
    );
    // Added and removed files appear and disappear without remount.
    std::fs::write(src.path().join("b.max"), &street).unwrap();
    assert!(m.path().join("b.max/json/nodes.json").exists());
    std::fs::remove_file(src.path().join("b.max")).unwrap();
    assert!(!m.path().join("b.max").exists());
    assert_eq!(
        std::fs::metadata(m.path().join("b.max"))
            .unwrap_err()
            .kind(),
        ErrorKind::NotFound
    );
}

#[test]
fn a_bad_file_shows_error_txt_and_the_mount_stays_up() {
    let src = tempfile::tempdir().unwrap();
    let street = std::fs::read(corpus_dir().join("max/ryzomcore/street.max")).unwrap();
    std::fs::write(src.path().join("good.max"), &street).unwrap();
    std::fs::write(
        src.path().join("truncated.max"),
        &street[..street.len() / 3],
    )
    .unwrap();
    std::fs::write(
        src.path().join("text.max"),
        b"version https://git-lfs.github.com/spec/v1\n",
    )
    .unwrap();
    let Some(m) = mount(src.path()) else { return };
    for bad in ["truncated.max", "text.max"] {
        let err = std::fs::read_to_string(m.path().join(bad).join("error.txt")).unwrap();
        assert!(err.contains(bad), "{err}");
        for f in walk_files(&m.path().join(bad)) {
            std::fs::read(&f).unwrap();
        }
    }
    assert!(!m.path().join("good.max/error.txt").exists());
    for f in walk_files(&m.path().join("good.max/json")) {
        std::fs::read(&f).unwrap();
    }
    assert_eq!(std::fs::read_dir(m.path()).unwrap().count(), 3);
}
