//! The virtual tree through the fs API (no kernel): every stream and chunk leaf
//! is served byte-exact with an exact size, views are deterministic, bad files
//! show error.txt, changed files are re-read, concurrent readers generate once.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use maxfs_fs::{Kind, MaxFs, Options};
use maxfs_scene::chunk::Chunk;
use maxfs_scene::{Document, Layout};
use maxfs_tests::{corpus_dir, corpus_max_files};

fn tree() -> MaxFs {
    MaxFs::new(corpus_dir(), Options::default())
}

fn rel(p: &Path) -> PathBuf {
    p.strip_prefix(corpus_dir()).unwrap().to_path_buf()
}

fn check_leaves(fs: &MaxFs, dir: &Path, chunks: &[Chunk], leaves: &mut usize) {
    for (i, c) in chunks.iter().enumerate() {
        let name = maxfs_fs::names::chunk_name(i, c.id, !c.is_container());
        let p = dir.join(&name);
        match c.payload() {
            Some(payload) => {
                let e = fs
                    .lookup(&p)
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                assert_eq!(e.size, payload.len() as u64, "{}", p.display());
                assert_eq!(fs.read(&p).unwrap(), payload, "{}", p.display());
                *leaves += 1;
            }
            None => check_leaves(fs, &p, c.children(), leaves),
        }
    }
}

#[test]
fn streams_and_chunk_leaves_are_exact() {
    let fs = tree();
    let mut leaves = 0;
    for f in corpus_max_files() {
        let doc = Document::open(&f).unwrap();
        let r = rel(&f);
        for (s, sd) in doc.file.streams.iter().zip(&doc.streams) {
            let name = maxfs_fs::names::escape_stream_name(&s.name);
            let p = r.join("streams").join(&name);
            let e = fs
                .lookup(&p)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            assert_eq!(e.size, s.data.len() as u64, "{}", p.display());
            assert_eq!(fs.read(&p).unwrap(), s.data, "{}", p.display());
            if let Layout::Chunks(c) = &sd.layout {
                check_leaves(&fs, &r.join("chunks").join(&name), c, &mut leaves);
            }
        }
        assert_eq!(
            fs.read(&r.join("source.max")).unwrap(),
            std::fs::read(&f).unwrap()
        );
    }
    assert!(leaves > 100_000, "only {leaves} leaves checked");
}

/// Every path below `rel`, with kind and size, through the same walk the CLI uses.
fn walk(fs: &MaxFs, rel: &Path) -> Vec<(PathBuf, Kind, u64)> {
    maxfs::tree_cmd::walk(fs, rel).unwrap()
}

#[test]
fn every_generated_file_has_its_exact_size_and_is_deterministic() {
    let a = tree();
    let b = tree();
    for f in corpus_max_files() {
        let r = rel(&f);
        let names: Vec<_> = a.list(&a.lookup(&r).unwrap()).unwrap();
        assert!(
            !names.iter().any(|(n, _)| n == "error.txt"),
            "{}",
            r.display()
        );
        for p in ["info.json", "thumbnail.png"]
            .iter()
            .map(|n| r.join(n))
            .chain(
                maxfs_fs::views::JsonView::ALL
                    .iter()
                    .map(|v| r.join("json").join(v.file_name())),
            )
        {
            let Ok(e) = a.lookup(&p) else {
                assert!(p.ends_with("thumbnail.png"), "{} missing", p.display());
                continue;
            };
            let bytes = a.read(&p).unwrap();
            assert_eq!(e.size, bytes.len() as u64, "{}", p.display());
            assert_eq!(
                bytes,
                b.read(&p).unwrap(),
                "{} differs between runs",
                p.display()
            );
            if p.extension().is_some_and(|x| x == "json") {
                let v: serde_json::Value = serde_json::from_slice(&bytes)
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                assert!(v.get("error").is_none(), "{}: {v}", p.display());
            }
        }
    }
    // The NeL key names are greppable.
    let appdata = a
        .read(Path::new("max/ryzomcore/street.max/json/appdata.json"))
        .unwrap();
    assert!(String::from_utf8_lossy(&appdata).contains("\"NEL3D_APPDATA_DONTEXPORT\""));
    let png = a
        .read(Path::new("max/babylon/Emissive.max/thumbnail.png"))
        .unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    let summary = a
        .read(Path::new(
            "max/babylon/Emissive.max/json/summary_information.json",
        ))
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&summary).unwrap();
    assert_eq!(
        v["document_summary_information"]["max"]["build"],
        "19.0.1072.0"
    );
    assert_eq!(v["summary_information"]["last_author"], "Fabrice");
}

/// Listing the checkout parses nothing; listing a `foo.max/` parses that file
/// once (whether `error.txt` is listed depends on every stage building) and
/// listing its `streams/` and `json/` needs nothing more.
#[test]
fn listing_the_checkout_parses_nothing_and_a_file_once() {
    let fs = tree();
    let all = walk(&fs, Path::new("max/ryzomcore"));
    assert!(all.len() > 1000);
    let fresh = tree();
    let root = fresh.lookup(Path::new("")).unwrap();
    fresh.list(&root).unwrap();
    let max_dir = fresh.lookup(Path::new("max/ryzomcore")).unwrap();
    fresh.list(&max_dir).unwrap();
    assert_eq!(
        fresh.document_loads(),
        0,
        "listing the checkout parsed a document"
    );
    let max = fresh.lookup(Path::new("max/ryzomcore/street.max")).unwrap();
    fresh.list(&max).unwrap();
    assert_eq!(fresh.document_loads(), 1);
    let streams = fresh
        .lookup(Path::new("max/ryzomcore/street.max/streams"))
        .unwrap();
    fresh.list(&streams).unwrap();
    fresh
        .lookup(Path::new("max/ryzomcore/street.max/streams/Scene"))
        .unwrap();
    let json = fresh
        .lookup(Path::new("max/ryzomcore/street.max/json"))
        .unwrap();
    let names: Vec<String> = fresh
        .list(&json)
        .unwrap()
        .into_iter()
        .map(|(n, _)| n.to_string_lossy().into_owned())
        .collect();
    for n in [
        "nodes.json",
        "meshes.json",
        "animation.json",
        "materials.json",
        "cameras.json",
        "lights.json",
    ] {
        assert!(names.iter().any(|x| x == n), "{n} not in {names:?}");
    }
    assert_eq!(fresh.document_loads(), 1, "streams/ or json/ parsed again");
    // A compressed stream's size needs the document, without listing its file.
    fresh
        .lookup(Path::new("max/compressed/roof_merge_M8.max/streams/Scene"))
        .unwrap();
    assert_eq!(fresh.document_loads(), 2);
}

fn temp_checkout(files: &[(&str, Vec<u8>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    dir
}

fn street() -> Vec<u8> {
    std::fs::read(corpus_dir().join("max/ryzomcore/street.max")).unwrap()
}

#[test]
fn bad_files_show_error_txt_and_neighbours_work() {
    let good = street();
    let truncated = good[..good.len() / 3].to_vec();
    let dir = temp_checkout(&[
        ("good.max", good.clone()),
        ("text.max", b"this is not a max file\n".to_vec()),
        ("empty.max", Vec::new()),
        ("truncated.max", truncated),
        ("notes.txt", b"plain\n".to_vec()),
    ]);
    let fs = MaxFs::new(dir.path(), Options::default());
    for bad in ["text.max", "empty.max", "truncated.max"] {
        let r = Path::new(bad);
        let names: Vec<String> = fs
            .list(&fs.lookup(r).unwrap())
            .unwrap()
            .into_iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect();
        assert!(names.contains(&"error.txt".to_string()), "{bad}: {names:?}");
        let err = String::from_utf8(fs.read(&r.join("error.txt")).unwrap()).unwrap();
        assert!(err.starts_with(bad), "{err}");
        let info: serde_json::Value =
            serde_json::from_slice(&fs.read(&r.join("info.json")).unwrap()).unwrap();
        assert_eq!(info["status"], "error", "{bad}");
        // Every listed file reads.
        for (p, kind, size) in walk(&fs, r) {
            if kind == Kind::File {
                assert_eq!(fs.read(&r.join(&p)).unwrap().len() as u64, size);
            }
        }
    }
    assert_eq!(fs.read(Path::new("notes.txt")).unwrap(), b"plain\n");
    assert_eq!(fs.read(Path::new("good.max/source.max")).unwrap(), good);
    assert!(fs.read(Path::new("good.max/json/nodes.json")).is_ok());
}

#[test]
fn a_replaced_file_is_seen_on_next_access() {
    let dir = temp_checkout(&[("a.max", street())]);
    let fs = MaxFs::new(dir.path(), Options::default());
    let p = Path::new("a.max/json/nodes.json");
    let before = fs.read(p).unwrap();
    let other = std::fs::read(corpus_dir().join("max/ryzomcore/road_flag.max")).unwrap();
    let tmp = dir.path().join("a.max.tmp");
    std::fs::write(&tmp, &other).unwrap();
    std::fs::rename(&tmp, dir.path().join("a.max")).unwrap();
    let after = fs.read(p).unwrap();
    assert_ne!(before, after);
    assert_eq!(fs.lookup(p).unwrap().size, after.len() as u64);
    let expect = MaxFs::new(corpus_dir(), Options::default())
        .read(Path::new("max/ryzomcore/road_flag.max/json/nodes.json"))
        .unwrap();
    assert_eq!(after, expect);
    std::fs::write(dir.path().join("b.max"), street()).unwrap();
    assert!(fs.lookup(Path::new("b.max/info.json")).is_ok());
    std::fs::remove_file(dir.path().join("b.max")).unwrap();
    assert!(fs.lookup(Path::new("b.max")).is_err());
}

#[test]
fn concurrent_readers_generate_each_file_once() {
    let fs = Arc::new(tree());
    let files: Vec<PathBuf> = [
        "ryzomcore/street.max",
        "neloid/tile.max",
        "babylon/Emissive.max",
    ]
    .iter()
    .flat_map(|f| {
        let r = Path::new("max").join(f);
        maxfs_fs::views::JsonView::ALL
            .iter()
            .map(move |v| r.join("json").join(v.file_name()))
            .chain([Path::new("max").join(f).join("info.json")])
            .collect::<Vec<_>>()
    })
    .collect();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let fs = fs.clone();
            let files = files.clone();
            std::thread::spawn(move || {
                let mut out = Vec::new();
                for k in 0..files.len() {
                    let p = &files[(k + t) % files.len()];
                    out.push((p.clone(), fs.read(p).unwrap()));
                }
                out
            })
        })
        .collect();
    let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    for r in &results[1..] {
        for (p, bytes) in r {
            let first = &results[0].iter().find(|(q, _)| q == p).unwrap().1;
            assert_eq!(bytes, first, "{}", p.display());
        }
    }
    let counts = fs.generation_counts();
    assert_eq!(counts.len(), files.len(), "{counts:?}");
    assert!(counts.values().all(|&n| n == 1), "{counts:?}");
    assert_eq!(fs.document_loads(), 3);
}

fn json_of(fs: &MaxFs, p: &str) -> serde_json::Value {
    let bytes = fs.read(Path::new(p)).unwrap();
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// The entry called `name` in a JSON view's array `list` ("nodes",
/// "animation", "meshes").
fn entry<'a>(view: &'a serde_json::Value, list: &str, name: &str) -> &'a serde_json::Value {
    view[list]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {list}"))
}

#[test]
fn evaluation_views_are_valid_deterministic_and_right() {
    const VIEWS: [&str; 6] = [
        "nodes.json",
        "meshes.json",
        "animation.json",
        "materials.json",
        "cameras.json",
        "lights.json",
    ];
    // No generated-content cache: every read generates again.
    let uncached = MaxFs::new(
        corpus_dir(),
        Options {
            cache_bytes: 0,
            ..Options::default()
        },
    );
    for f in corpus_max_files() {
        let r = rel(&f);
        for v in VIEWS {
            let p = r.join("json").join(v);
            let first = uncached.read(&p).unwrap();
            let second = uncached.read(&p).unwrap();
            assert_eq!(first, second, "{} differs between generations", p.display());
            let j: serde_json::Value =
                serde_json::from_slice(&first).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let key = if v == "nodes.json" {
                "nodes"
            } else {
                v.trim_end_matches(".json")
            };
            assert!(j[key].is_array(), "{}: {j}", p.display());
        }
        // Every node of nodes.json carries its evaluated transform, or null
        // with the reasons: never a stand-in matrix.
        let nodes = json_of(&uncached, &format!("{}/json/nodes.json", r.display()));
        assert!(nodes.get("evaluation_error").is_none(), "{}", r.display());
        for n in nodes["nodes"].as_array().unwrap() {
            let gaps = n["transform_gaps"].as_array().map_or(0, Vec::len);
            for k in ["local", "world", "object_offset"] {
                let rows = n[k].as_array().map(Vec::len);
                if rows.is_none() && k != "object_offset" {
                    assert!(n[k].is_null() && gaps > 0, "{}: {n}", r.display());
                } else {
                    assert_eq!(rows, Some(4), "{}: {n}", r.display());
                }
            }
            if gaps > 0 {
                assert!(n["world"].is_null(), "{}: {n}", r.display());
            }
            assert!(n["hidden"].is_boolean() && n["frozen"].is_boolean());
        }
    }

    let fs = tree();
    // RotatingCube: Box01's world translation at t = 0, as 3ds Max's ASE export has it.
    let nodes = json_of(&fs, "max/assimp/RotatingCube.max/json/nodes.json");
    let box01 = entry(&nodes, "nodes", "Box01");
    let row3: Vec<f64> = box01["world"][3]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    for (got, want) in row3.iter().zip([3.9886, -5.6980, 0.0]) {
        assert!((got - want).abs() < 1e-3, "Box01 world row 3: {row3:?}");
    }
    assert_eq!(box01["class"], "Node");
    assert!(box01["tm_controller"].is_string(), "{box01}");
    // A node we do not evaluate (RabbitSkin's centre of mass, linked under
    // a transformed parent) shows no matrix, and says why; CAT bones (the
    // pelvis, a thigh, a toe's second segment) and the mesh show theirs.
    let rabbit = json_of(&fs, "max/biped/RabbitSkin.max/json/nodes.json");
    let com = entry(&rabbit, "nodes", "Bip01");
    assert!(com["local"].is_null() && com["world"].is_null(), "{com}");
    let why = com["transform_gaps"][0].as_str().unwrap_or_default();
    assert!(why.contains("Vertical/Horizontal/Turn"), "{com}");
    let cat = json_of(&fs, "max/cat/LD33_Character.max/json/nodes.json");
    for name in [
        "Base HumanPelvis",
        "Base HumanLThigh",
        "Base HumanLToe12",
        "Box001",
    ] {
        let n = entry(&cat, "nodes", name);
        assert_eq!(n["world"].as_array().map(Vec::len), Some(4), "{n}");
        assert!(n.get("transform_gaps").is_none(), "{n}");
    }
    // ... and its rotation is keyed per axis.
    let anim = json_of(&fs, "max/assimp/RotatingCube.max/json/animation.json");
    let box01 = entry(&anim, "animation", "Box01");
    let channels: Vec<&str> = box01["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["channel"].as_str().unwrap())
        .collect();
    assert!(channels.contains(&"rotation.x"), "{channels:?}");
    // CartoonHouses: the "rdc" mesh.
    let meshes = json_of(&fs, "max/babylon/CartoonHouses.max/json/meshes.json");
    let rdc = entry(&meshes, "meshes", "rdc");
    assert_eq!(rdc["vertices"], 291);
    assert_eq!(rdc["faces"], 457);
    // Floats are in their shortest f32 form.
    let text = String::from_utf8(
        fs.read(Path::new("max/babylon/CartoonHouses.max/json/meshes.json"))
            .unwrap(),
    )
    .unwrap();
    assert!(
        !text.contains("00000001") && !text.contains("99999999"),
        "widened f32 in meshes.json"
    );
}

/// A file whose container opens but whose Scene stream is not a chunk tree
/// (built through the container writer: street.max with its Scene stream
/// replaced by a chunk header claiming more bytes than the stream holds):
/// `error.txt` appears beside the views and names the stream and the failure;
/// the intact streams still read.
#[test]
fn a_stage_that_fails_after_the_container_shows_error_txt() {
    use maxfs_scene::container::MaxFile;
    let mut file = MaxFile::from_bytes(&street()).unwrap();
    let scene = file
        .streams
        .iter_mut()
        .find(|s| s.name == "Scene")
        .expect("street.max has a Scene stream");
    // Chunk 0x2004, length 0x1000 (no container bit), 16 bytes present.
    let mut bad = vec![0x04, 0x20, 0x00, 0x10, 0x00, 0x00];
    bad.extend([0u8; 10]);
    scene.data = bad.into();
    scene.compressed = false;
    let bytes = file.to_bytes().unwrap();
    let dir = temp_checkout(&[("bad_scene.max", bytes), ("good.max", street())]);
    let fs = MaxFs::new(dir.path(), Options::default());
    let names = |p: &str| -> Vec<String> {
        fs.list(&fs.lookup(Path::new(p)).unwrap())
            .unwrap()
            .into_iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect()
    };
    let listed = names("bad_scene.max");
    assert!(listed.contains(&"error.txt".to_string()), "{listed:?}");
    assert!(listed.contains(&"streams".to_string()), "{listed:?}");
    let err = String::from_utf8(fs.read(Path::new("bad_scene.max/error.txt")).unwrap()).unwrap();
    assert!(
        err.starts_with("bad_scene.max: stream Scene: not a chunk tree"),
        "{err}"
    );
    // The other streams read as stored.
    let original = MaxFile::from_bytes(&street()).unwrap();
    let config = original
        .streams
        .iter()
        .find(|s| s.name == "Config")
        .unwrap();
    assert_eq!(
        fs.read(Path::new("bad_scene.max/streams/Config")).unwrap(),
        config.data.as_ref()
    );
    // A good file lists no error.txt and has none.
    assert!(!names("good.max").contains(&"error.txt".to_string()));
    assert!(fs.read(Path::new("good.max/error.txt")).is_err());
}
