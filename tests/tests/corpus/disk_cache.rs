//! The persistent export cache (`--cache-dir`): a second tree over the same
//! sources serves every NeL export, export twin and JSON view from disk without
//! evaluating, byte for byte what the first tree generated; damaged or foreign
//! entries are regenerated; a changed source misses. (`scene.glb` and
//! `errors.txt` depend on image files beside the source and are not kept.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use maxfs_fs::disk_cache::DiskCache;
use maxfs_fs::{MaxFs, Options};
use maxfs_tests::corpus_dir;

const SOURCES: [&str; 3] = [
    "max/ryzomcore/street.max",
    "max/babylon/RiggedFigure.max",
    "max/misc/Crate.max",
];

fn tree(src: &Path, cache: &Path) -> MaxFs {
    let disk = DiskCache::open(cache, src).expect("cache dir");
    MaxFs::new(
        src,
        Options {
            disk_cache: Some(Arc::new(disk)),
            ..Options::default()
        },
    )
}

/// Every file the cache keeps of every source: JSON views, NeL exports and
/// their JSON twins, by path.
fn read_all(fs: &MaxFs) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for s in SOURCES {
        let max = PathBuf::from(Path::new(s).file_name().expect("name"));
        let mut paths = Vec::new();
        for dir in ["json", "shape", "export"] {
            let d = max.join(dir);
            let entry = fs.lookup(&d).expect("dir");
            for (name, _) in fs.list(&entry).expect("list") {
                if name != "scene.glb" && name != "errors.txt" {
                    paths.push(d.join(name));
                }
            }
        }
        for p in paths {
            let b = fs
                .read(&p)
                .unwrap_or_else(|e| panic!("{}: {e:?}", p.display()));
            out.insert(p, b);
        }
    }
    out
}

fn copy_sources(to: &Path) {
    for s in SOURCES {
        let from = corpus_dir().join(s);
        std::fs::copy(&from, to.join(from.file_name().expect("name"))).expect("copy");
    }
}

#[test]
fn second_tree_serves_from_disk_without_evaluating() {
    let src = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("tempdir");
    copy_sources(src.path());

    let first = tree(src.path(), cache.path());
    let generated = read_all(&first);
    let s1 = first.stats().disk;
    assert!(first.generation_counts().values().sum::<u64>() > 0);
    assert_eq!(s1.hits, 0);
    assert!(s1.writes > 0 && s1.write_errors == 0, "{s1:?}");
    assert!(
        generated
            .keys()
            .any(|p| p.extension().is_some_and(|e| e == "shape")),
        "the sources export shapes"
    );

    // A new tree (a remount) over the same sources and cache directory.
    let second = tree(src.path(), cache.path());
    let served = read_all(&second);
    assert_eq!(served, generated, "the cache serves the same bytes");
    let s2 = second.stats().disk;
    assert_eq!(s2.writes, 0, "{s2:?}");
    assert_eq!(s2.rejected, 0, "{s2:?}");
    assert_eq!(s2.hits, s1.writes, "every entry written is served: {s2:?}");
    assert!(
        second.generation_counts().is_empty(),
        "nothing generated: {:?}",
        second.generation_counts()
    );
    for s in SOURCES {
        let name = Path::new(s).file_name().expect("name");
        assert!(
            second.eval_stats(Path::new(name)).is_none(),
            "{s}: no scene evaluated on a warm cache"
        );
    }

    // Damage every entry: each is refused, regenerated, and rewritten.
    let mut entries = 0;
    for e in walk(cache.path()) {
        let mut b = std::fs::read(&e).expect("entry");
        let last = b.len() - 1;
        b[last] ^= 0x5a;
        std::fs::write(&e, b).expect("damage");
        entries += 1;
    }
    assert_eq!(entries as u64, s1.writes);
    let third = tree(src.path(), cache.path());
    assert_eq!(
        read_all(&third),
        generated,
        "damaged entries are regenerated"
    );
    let s3 = third.stats().disk;
    assert_eq!(s3.hits, 0, "{s3:?}");
    assert_eq!(s3.rejected, s1.writes, "{s3:?}");
    assert_eq!(s3.writes, s1.writes, "{s3:?}");

    // A changed source is another key: it misses and is generated again.
    std::fs::copy(
        corpus_dir().join("max/ryzomcore/road_flag.max"),
        src.path().join("street.max"),
    )
    .expect("replace street.max");
    let fourth = tree(src.path(), cache.path());
    fourth
        .read(Path::new("street.max/json/meshes.json"))
        .expect("meshes");
    let s4 = fourth.stats().disk;
    assert_eq!((s4.hits, s4.misses), (0, 1), "{s4:?}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
