//! The persistent export cache (`--cache-dir`): a second tree over the same
//! sources serves every NeL export, export twin and JSON view from disk without
//! evaluating, byte for byte what the first tree generated; damaged or foreign
//! entries are regenerated; a changed source misses. `scene.glb` (and the
//! glTF lines of `errors.txt`) also depend on the texture images found beside
//! the source: a kept glTF is served only while those lookups resolve to the
//! same unchanged files.

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
/// their JSON twins, `scene.glb` and `errors.txt`, by path.
fn read_all(fs: &MaxFs) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for s in SOURCES {
        let max = PathBuf::from(Path::new(s).file_name().expect("name"));
        let mut paths = Vec::new();
        for dir in ["json", "shape", "export"] {
            let d = max.join(dir);
            let entry = fs.lookup(&d).expect("dir");
            for (name, _) in fs.list(&entry).expect("list") {
                paths.push(d.join(name));
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
    // errors.txt is put together again from the kept export and glTF stages.
    let generated_again: Vec<String> = second
        .generation_counts()
        .into_keys()
        .filter(|k| !k.ends_with("/export/errors.txt"))
        .collect();
    assert!(
        generated_again.is_empty(),
        "nothing generated: {generated_again:?}"
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

/// Images beside the source decide what `scene.glb` embeds: adding one,
/// rewriting it, or taking it away makes the kept glTF stale, and it is built
/// again; unchanged, it is served from disk.
#[test]
fn kept_gltf_follows_the_images_beside_the_source() {
    let src = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("tempdir");
    let crate_max = corpus_dir().join("max/misc/Crate.max");
    std::fs::copy(&crate_max, src.path().join("Crate.max")).expect("copy");
    let glb = Path::new("Crate.max/export/scene.glb");
    let errors = Path::new("Crate.max/export/errors.txt");
    let built = |fs: &MaxFs| {
        fs.generation_counts()
            .iter()
            .filter(|(k, _)| k.ends_with("scene.glb"))
            .map(|(_, n)| *n)
            .sum::<u64>()
    };

    // No images: the glTF names them as missing.
    let first = tree(src.path(), cache.path());
    let bare = first.read(glb).expect("glb");
    let bare_errors = String::from_utf8(first.read(errors).expect("errors")).expect("utf-8");
    assert_eq!(built(&first), 1);
    assert!(bare_errors.contains("not found"), "{bare_errors}");

    // Unchanged: served from disk, nothing evaluated.
    let second = tree(src.path(), cache.path());
    assert_eq!(second.read(glb).expect("glb"), bare);
    assert_eq!(second.read(errors).expect("errors"), bare_errors.as_bytes());
    assert_eq!(built(&second), 0, "{:?}", second.generation_counts());
    assert!(second.eval_stats(Path::new("Crate.max")).is_none());

    // The images appear beside the source: built again, and they are embedded.
    let doc = maxfs_scene::Document::open(&crate_max).expect("Crate.max");
    let eval = maxfs_scene::eval::SceneEval::from_document(doc).expect("scene");
    let images = maxfs_tests::stand_in_images(&eval);
    let mut names = Vec::new();
    for e in std::fs::read_dir(images.path()).expect("images").flatten() {
        std::fs::copy(e.path(), src.path().join(e.file_name())).expect("copy image");
        names.push(e.file_name());
    }
    assert!(!names.is_empty(), "Crate.max names texture images");
    let third = tree(src.path(), cache.path());
    let with_images = third.read(glb).expect("glb");
    assert_eq!(built(&third), 1, "a new image makes the kept glTF stale");
    assert!(with_images.len() > bare.len(), "the images are embedded");
    let fourth = tree(src.path(), cache.path());
    assert_eq!(fourth.read(glb).expect("glb"), with_images);
    assert_eq!(built(&fourth), 0, "unchanged images: served from disk");

    // One image rewritten with other pixels (another size on disk): stale.
    let first_image = src.path().join(&names[0]);
    let mut bytes = std::fs::read(&first_image).expect("image");
    bytes.extend_from_slice(&[0; 16]);
    std::fs::write(&first_image, bytes).expect("rewrite image");
    let fifth = tree(src.path(), cache.path());
    fifth.read(glb).expect("glb");
    assert_eq!(
        built(&fifth),
        1,
        "a rewritten image makes the kept glTF stale"
    );

    // The images taken away: stale again, and back to the bare glTF.
    for n in &names {
        std::fs::remove_file(src.path().join(n)).expect("remove image");
    }
    let sixth = tree(src.path(), cache.path());
    assert_eq!(sixth.read(glb).expect("glb"), bare);
    assert_eq!(built(&sixth), 1);
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
