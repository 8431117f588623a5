//! The source watch (issue 13): with entry lifetimes of an hour, a source
//! overwritten in place, replaced by a rename, or renamed away shows through
//! the mount as soon as inotify reports it, not when the lifetime ends.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use maxfs::fuse::{config, FuseOptions, MaxFuse, SourceWatch};
use maxfs_fs::{MaxFs, Options};
use maxfs_tests::{corpus_dir, fuse_available};

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

/// Waits (a generous bound, for a loaded machine) until `done` holds; the
/// assertion is about what shows, not how fast.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !done() {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "{what}: never shown"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn changed_sources_show_through_long_entry_lifetimes() {
    if !fuse_available() {
        return;
    }
    let corpus = corpus_dir();
    let [a, b, c] = [
        "ryzomcore/street.max",
        "ryzomcore/road_flag.max",
        "misc/Crate.max",
    ]
    .map(|p| std::fs::read(corpus.join("max").join(p)).expect("corpus file"));
    let src = tempfile::tempdir().expect("temp dir");
    let file = src.path().join("sub/a.max");
    std::fs::create_dir(src.path().join("sub")).expect("mkdir");
    std::fs::write(&file, &a).expect("write");

    let tree = Arc::new(MaxFs::new(src.path(), Options::default()));
    let watch = SourceWatch::new().expect("inotify");
    let binding = MaxFuse::with_options(
        tree.clone(),
        FuseOptions {
            ttl: Duration::from_secs(3600),
        },
    )
    .with_watch(watch.clone());
    let dir = tempfile::tempdir().expect("temp dir");
    let session = fuser::spawn_mount(binding, dir.path(), &config(4)).expect("mount");
    watch.start(session.notifier(), tree).expect("watch thread");
    let m = Mounted {
        session: Some(session),
        dir,
    };
    let mnt = m.dir.path();
    let source = mnt.join("sub/a.max/source.max");
    let read = |p: &Path| std::fs::read(p).ok();
    eventually("the mount", || read(&source).as_deref() == Some(&a[..]));
    // A stream of it, so the version's inner entries are in the kernel too.
    let streams: Vec<_> = std::fs::read_dir(mnt.join("sub/a.max/streams"))
        .expect("streams/")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(!streams.is_empty());
    for s in &streams {
        std::fs::read(s).expect("stream reads");
    }

    // 1. Overwritten in place (same path, same inode of the source tree).
    std::fs::write(&file, &b).expect("overwrite");
    eventually("an in-place overwrite", || {
        read(&source).as_deref() == Some(&b[..])
    });

    // 2. Replaced by a rename over it.
    let tmp = src.path().join("sub/new.tmp");
    std::fs::write(&tmp, &c).expect("write");
    std::fs::rename(&tmp, &file).expect("rename over");
    eventually("a rename over the source", || {
        read(&source).as_deref() == Some(&c[..])
    });

    // 3. Renamed away: the old name is gone, the new one serves the bytes.
    std::fs::rename(&file, src.path().join("sub/b.max")).expect("rename away");
    eventually("a rename away", || {
        !mnt.join("sub/a.max").exists()
            && read(&mnt.join("sub/b.max/source.max")).as_deref() == Some(&c[..])
    });
    let listed: Vec<_> = std::fs::read_dir(mnt.join("sub"))
        .expect("sub/")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(listed, ["b.max"], "the listing shows the rename");
}
