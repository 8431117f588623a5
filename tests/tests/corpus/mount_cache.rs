//! Kernel caching of the mount (issue 11/13): OPEN and OPENDIR answered
//! ENOSYS (content resolved by inode, page and directory caches kept), lifetimes
//! of real entries and `.max` directories, `source.max` under an in-place
//! overwrite, and the option that leaves `chunks/` out of listings. Expected
//! bytes come from the files themselves and from the tree without FUSE.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use maxfs::fuse::{config, FuseOptions, MaxFuse, DEFAULT_TTL};
use maxfs_fs::{MaxFs, Options};
use maxfs_scene::Document;
use maxfs_tests::{corpus_dir, fuse_available};

/// A mounted tree, unmounted on drop (also when a test panics).
struct Mounted {
    session: Option<fuser::BackgroundSession>,
    dir: tempfile::TempDir,
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

fn mount(src: &Path, options: Options, fuse: FuseOptions) -> Option<Mounted> {
    if !fuse_available() {
        return None;
    }
    let tree = Arc::new(MaxFs::new(src, options));
    let dir = tempfile::tempdir().expect("tempdir");
    let session = fuser::spawn_mount(MaxFuse::with_options(tree, fuse), dir.path(), &config(2))
        .unwrap_or_else(|e| panic!("mount on {}: {e}", dir.path().display()));
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
    })
}

fn cli_default() -> FuseOptions {
    FuseOptions { ttl: DEFAULT_TTL }
}

/// The file read with pread in pieces of several sizes (what the kernel asks
/// of READ once no OPEN is sent), joined back: must equal `want`. Byte-sized
/// pieces only over the first 4 KiB.
fn read_in_pieces(path: &Path, want: &[u8]) {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for step in [1usize, 4093, 65536, 1 << 20] {
        let limit = if step == 1 {
            want.len().min(4096)
        } else {
            usize::MAX
        };
        let mut got = Vec::with_capacity(want.len());
        let mut buf = vec![0u8; step];
        while got.len() < limit {
            let n = f.read_at(&mut buf, got.len() as u64).expect("pread");
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        let want = &want[..limit.min(want.len())];
        assert!(got == want, "{} read in pieces of {step}", path.display());
    }
}

#[test]
fn passthrough_and_generated_files_read_right_under_kernel_caching() {
    let src = tempfile::tempdir().expect("tempdir");
    let street = std::fs::read(corpus_dir().join("max/ryzomcore/street.max")).expect("corpus");
    std::fs::write(src.path().join("street.max"), &street).expect("write");
    std::fs::write(src.path().join("notes.txt"), b"plain file\n").expect("write");
    let Some(m) = mount(src.path(), Options::default(), cli_default()) else {
        return;
    };
    // The same tree without FUSE is the reference for generated files.
    let tree = MaxFs::new(src.path(), Options::default());
    let doc = Document::from_bytes(&street).expect("street parses");
    for round in 0..2 {
        // Pass-through files: the source itself and a real file.
        read_in_pieces(&m.path().join("street.max/source.max"), &street);
        read_in_pieces(&m.path().join("notes.txt"), b"plain file\n");
        // Streams, from the parsed file.
        for s in &doc.file.streams {
            let name = maxfs_fs::names::escape_stream_name(&s.name);
            let p = m.path().join("street.max/streams").join(&name);
            assert_eq!(
                std::fs::metadata(&p).expect("stat").len(),
                s.data.len() as u64
            );
            assert!(
                std::fs::read(&p).expect("read") == s.data,
                "{name} round {round}"
            );
        }
        // Generated files: their size is known at lookup (generated then), so
        // st_size is exact before any read and no direct I/O is needed.
        let shapes: Vec<PathBuf> = std::fs::read_dir(m.path().join("street.max/shape"))
            .expect("shape/")
            .map(|e| e.expect("entry").path())
            .collect();
        assert!(!shapes.is_empty());
        let mut generated = vec![
            PathBuf::from("street.max/info.json"),
            PathBuf::from("street.max/json/nodes.json"),
            PathBuf::from("street.max/json/meshes.json"),
            PathBuf::from("street.max/export/scene.glb"),
        ];
        generated.extend(
            shapes
                .iter()
                .map(|p| p.strip_prefix(m.path()).expect("below").to_path_buf()),
        );
        for rel in &generated {
            let want = tree.read(rel).expect("tree reads it");
            let p = m.path().join(rel);
            assert_eq!(
                std::fs::metadata(&p).expect("stat").len(),
                want.len() as u64,
                "{}",
                rel.display()
            );
            read_in_pieces(&p, &want);
        }
    }
    // A failing open is still refused: writing, and directories as files.
    assert!(std::fs::OpenOptions::new()
        .write(true)
        .open(m.path().join("street.max/info.json"))
        .is_err());
    assert!(std::fs::read(m.path().join("street.max/json")).is_err());
}

#[test]
fn a_changed_source_shows_its_new_version_after_the_ttl() {
    let src = tempfile::tempdir().expect("tempdir");
    let street = std::fs::read(corpus_dir().join("max/ryzomcore/street.max")).expect("corpus");
    let road = std::fs::read(corpus_dir().join("max/ryzomcore/road_flag.max")).expect("corpus");
    std::fs::write(src.path().join("a.max"), &street).expect("write");
    std::fs::write(src.path().join("plain.txt"), b"one").expect("write");
    let Some(m) = mount(src.path(), Options::default(), cli_default()) else {
        return;
    };
    let scene = m.path().join("a.max/streams/Scene");
    let source = m.path().join("a.max/source.max");
    let plain = m.path().join("plain.txt");
    let old_scene = Document::from_bytes(&street).expect("parses");
    assert!(
        std::fs::read(&scene).expect("read") == old_scene.file.stream("Scene").expect("Scene").data
    );
    assert_eq!(std::fs::read(&source).expect("read"), street);
    assert_eq!(std::fs::read(&plain).expect("read"), b"one");
    let listed_before = std::fs::read_dir(m.path()).expect("ls").count();

    // Replace the .max (a new inode), rewrite the plain file in place with
    // another length, add a file.
    let tmp = src.path().join("a.tmp");
    std::fs::write(&tmp, &road).expect("write");
    std::fs::rename(&tmp, src.path().join("a.max")).expect("rename");
    std::fs::write(src.path().join("plain.txt"), b"second").expect("write");
    std::fs::write(src.path().join("b.max"), &street).expect("write");
    // Past the lifetime, everything shows the new version, sizes included.
    std::thread::sleep(DEFAULT_TTL + Duration::from_millis(300));
    let new_scene = Document::from_bytes(&road).expect("parses");
    let want = &new_scene.file.stream("Scene").expect("Scene").data;
    assert_eq!(
        std::fs::metadata(&scene).expect("stat").len(),
        want.len() as u64
    );
    assert!(std::fs::read(&scene).expect("read") == *want);
    assert_eq!(
        std::fs::metadata(&source).expect("stat").len(),
        road.len() as u64
    );
    assert_eq!(std::fs::read(&source).expect("read"), road);
    assert_eq!(std::fs::read(&plain).expect("read"), b"second");
    assert_eq!(
        std::fs::read_dir(m.path()).expect("ls").count(),
        listed_before + 1
    );
    assert!(m.path().join("b.max/json/nodes.json").exists());
}

#[test]
fn source_max_overwritten_in_place_reads_old_bytes_or_fails() {
    // Larger than the kernel's readahead, so later reads reach the mount.
    let rabbit = std::fs::read(corpus_dir().join("max/biped/RabbitSkin.max")).expect("corpus");
    assert!(rabbit.len() > 1 << 20);
    for (label, new_len) in [
        ("longer", rabbit.len() + 4096),
        ("same length", rabbit.len()),
    ] {
        let src = tempfile::tempdir().expect("tempdir");
        let path = src.path().join("a.max");
        std::fs::write(&path, &rabbit).expect("write");
        let Some(m) = mount(src.path(), Options::default(), cli_default()) else {
            return;
        };
        let f = std::fs::File::open(m.path().join("a.max/source.max")).expect("open");
        let mut got = vec![0u8; 8192];
        f.read_exact_at(&mut got, 0).expect("first read");
        // Overwrite in place (same inode): other bytes, maybe another length.
        std::thread::sleep(Duration::from_millis(20)); // a later mtime tick
        let new: Vec<u8> = (0..new_len).map(|i| (i % 251) as u8 ^ 0x5a).collect();
        {
            use std::io::Write;
            let mut w = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .expect("open for write");
            w.write_all(&new).expect("overwrite");
        }
        // Read on through the handle opened before the overwrite.
        let mut rest = Vec::new();
        let mut off = got.len() as u64;
        let mut failed = None;
        loop {
            let mut buf = vec![0u8; 1 << 16];
            match f.read_at(&mut buf, off) {
                Ok(0) => break,
                Ok(n) => {
                    rest.extend_from_slice(&buf[..n]);
                    off += n as u64;
                }
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        got.extend_from_slice(&rest);
        match failed {
            Some(e) => assert_eq!(e.raw_os_error(), Some(libc::EIO), "{label}: {e}"),
            None => assert!(got == rabbit, "{label}: a read mixed two versions"),
        }
        // A new open (after the lifetime) sees the new version, whole.
        std::thread::sleep(DEFAULT_TTL + Duration::from_millis(300));
        let now = std::fs::read(m.path().join("a.max/source.max")).expect("new version");
        assert!(now == new, "{label}: new version");
    }
}

#[test]
fn hide_chunks_leaves_chunks_out_of_listings_but_reachable() {
    let src = tempfile::tempdir().expect("tempdir");
    let street = std::fs::read(corpus_dir().join("max/ryzomcore/street.max")).expect("corpus");
    std::fs::write(src.path().join("street.max"), &street).expect("write");
    let options = Options {
        list_chunks: false,
        ..Options::default()
    };
    let Some(m) = mount(src.path(), options, cli_default()) else {
        return;
    };
    let names: Vec<String> = std::fs::read_dir(m.path().join("street.max"))
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n == "chunks"), "{names:?}");
    for want in [
        "streams",
        "json",
        "shape",
        "export",
        "info.json",
        "source.max",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    // find, du and grep -r do not go into chunks/.
    let out = Command::new("find")
        .arg(m.path())
        .arg("-type")
        .arg("f")
        .output()
        .expect("find");
    assert!(out.status.success());
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.lines().count() > 10);
    assert!(!listed.contains("/chunks/"), "{listed}");
    // Still reachable by path, with the same bytes as in the default tree.
    let default_tree = MaxFs::new(src.path(), Options::default());
    let chunks = default_tree
        .lookup(Path::new("street.max/chunks/Scene"))
        .expect("chunks/Scene");
    let first = default_tree.list(&chunks).expect("list")[0].0.clone();
    let mut leaf = PathBuf::from("street.max/chunks/Scene").join(&first);
    loop {
        let e = default_tree.lookup(&leaf).expect("lookup");
        if e.kind == maxfs_fs::Kind::File {
            break;
        }
        leaf = leaf.join(&default_tree.list(&e).expect("list")[0].0);
    }
    assert_eq!(
        std::fs::read(m.path().join(&leaf)).expect("reachable by path"),
        default_tree.read(&leaf).expect("default tree")
    );
    assert!(
        std::fs::read_dir(m.path().join("street.max/chunks/Scene"))
            .expect("ls by path")
            .count()
            > 0
    );
}
