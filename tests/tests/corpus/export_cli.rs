//! `maxfs export` against the tree: the batch command writes exactly the files
//! that `shape/` and `export/` serve (same names, same bytes), through the
//! kernel as well; tags make the second run incremental; outputs are written
//! atomically and only into the output directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use maxfs::export_cmd::{run, ExportArgs};
use maxfs::fuse::{config, MaxFuse};
use maxfs_fs::{Kind, MaxFs, Options};
use maxfs_tests::corpus_dir;

fn args(paths: Vec<PathBuf>, out: &Path) -> ExportArgs {
    ExportArgs {
        paths,
        out: out.to_path_buf(),
        kind: Vec::new(),
        gltf: false,
        maps: Vec::new(),
        ps_path: Vec::new(),
        bank: None,
        jobs: Some(2),
        meshes_mb: maxfs_scene::eval::DEFAULT_MESH_BUDGET >> 20,
        tag_dir: None,
        force: false,
        json: true,
        report: None,
        layout: maxfs::export_cmd::Layout::Flat,
    }
}

/// Every NeL export the tree serves for `rel` (a .max relative to `root`):
/// file name → bytes, from `shape/` and `export/` (without errors.txt,
/// scene.glb and the .json twins).
fn tree_exports(tree: &MaxFs, rel: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for dir in ["shape", "export"] {
        let d = rel.join(dir);
        let e = tree.lookup(&d).expect("lookup export dir");
        for (name, kind) in tree.list(&e).expect("list export dir") {
            let name = name.to_string_lossy().into_owned();
            assert_eq!(kind, Kind::File, "{}/{name}", d.display());
            if name == "errors.txt" || name == "scene.glb" || name.ends_with(".json") {
                continue;
            }
            let bytes = tree.read(&d.join(&name)).expect("read export");
            // Every NeL file has its decoded twin, and it parses as JSON.
            let twin = tree
                .read(&d.join(format!("{name}.json")))
                .expect("read json twin");
            serde_json::from_slice::<serde_json::Value>(&twin)
                .unwrap_or_else(|e| panic!("{}/{name}.json: {e}", d.display()));
            assert!(out.insert(name.clone(), bytes).is_none(), "{name} twice");
        }
    }
    out
}

fn files_in(dir: &Path, ext_not: &str) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_file() && !name.ends_with(ext_not) {
            out.insert(name, std::fs::read(e.path()).unwrap());
        }
    }
    out
}

#[test]
fn batch_export_equals_the_tree_and_is_incremental() {
    // Copies, so that the test can touch source times; the corpus stays untouched.
    let src = tempfile::tempdir().unwrap();
    let corpus = corpus_dir().join("max");
    let sources = ["neloid/block.max", "ryzomcore/street.max"];
    for s in sources {
        let name = Path::new(s).file_name().unwrap();
        std::fs::copy(corpus.join(s), src.path().join(name)).unwrap();
    }
    // The tree serves the files and says which nodes failed (errors.txt).
    let tree = MaxFs::new(src.path(), Options::default());
    let mut served = BTreeMap::new();
    let mut complete = Vec::new();
    for s in sources {
        let name = Path::new(s).file_name().unwrap();
        served.extend(tree_exports(&tree, Path::new(name)));
        let errors = tree
            .read(&Path::new(name).join("export/errors.txt"))
            .unwrap();
        if errors.is_empty() {
            complete.push(name.to_str().unwrap());
        }
    }
    // A source with a failed node (street.max while its Boolean Box02 is not
    // exported) is partial: no tag, and the run fails.
    assert!(complete.contains(&"block.max"), "{complete:?}");
    let street_complete = complete.contains(&"street.max");
    let expected = if street_complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };

    let out = tempfile::tempdir().unwrap();
    assert_eq!(
        run(args(vec![src.path().to_path_buf()], out.path())),
        expected
    );
    let written = files_in(out.path(), ".tag");
    assert_eq!(
        written.keys().collect::<Vec<_>>(),
        served.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &written {
        assert!(
            served.get(name) == Some(bytes),
            "{name} differs from the tree"
        );
    }
    // street.max gives 8 spheres and the street instance group, block.max its box.
    for n in [
        "sphere01.shape",
        "sphere08.shape",
        "street.ig",
        "box01.shape",
    ] {
        assert!(written.contains_key(n), "{n} missing: {:?}", written.keys());
    }
    // Every output is a NeL file our reader takes and rewrites identically.
    for (name, bytes) in &written {
        let f =
            maxfs_exporters::nel::read_nel(bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            &maxfs_exporters::nel::write_nel(&f).unwrap() == bytes,
            "{name} does not rewrite identically"
        );
    }

    // No temporary file is left behind; the complete source got its pipeline tag.
    for e in std::fs::read_dir(out.path()).unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        assert!(!n.ends_with(".tmp"), "left over {n}");
    }
    let tags: Vec<String> = files_in(out.path(), ".shape")
        .into_keys()
        .filter(|n| n.ends_with(".max.tag"))
        .collect();
    let want: Vec<String> = complete.iter().map(|n| format!("{n}.tag")).collect();
    assert_eq!(tags, want);
    let tag = std::fs::read_to_string(out.path().join("block.max.tag")).unwrap();
    assert!(
        tag.lines().next().is_some_and(|l| l.ends_with("GMT")),
        "{tag:?}"
    );

    // Second run: the tagged source is skipped and its output not rewritten;
    // the untagged one is exported again.
    let m = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let block_shape = out.path().join("box01.shape");
    let sphere = out.path().join("sphere01.shape");
    let before = [m(&block_shape), m(&sphere)];
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(
        run(args(vec![src.path().to_path_buf()], out.path())),
        expected
    );
    let after = [m(&block_shape), m(&sphere)];
    assert_eq!(before[0], after[0], "a skipped source rewrote its outputs");
    if street_complete {
        assert_eq!(before[1], after[1], "a skipped source rewrote its outputs");
    } else {
        assert!(after[1] > before[1], "an untagged source was skipped");
    }

    // A source newer than its tag is exported again; --force exports anyway.
    let block = src.path().join("block.max");
    let later = SystemTime::now() + Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&block)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let t0 = m(&block_shape);
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(
        run(args(vec![block.clone()], out.path())),
        ExitCode::SUCCESS
    );
    let t1 = m(&block_shape);
    assert!(
        t1 > t0,
        "block.max (newer than its tag) was not re-exported"
    );
    // The new tag is newer than the source only once the clock passes `later`.
    std::fs::File::options()
        .write(true)
        .open(out.path().join("block.max.tag"))
        .unwrap()
        .set_modified(later + Duration::from_secs(1))
        .unwrap();
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(
        run(args(vec![block.clone()], out.path())),
        ExitCode::SUCCESS
    );
    assert_eq!(m(&block_shape), t1, "block.max was re-exported");
    let mut forced = args(vec![block], out.path());
    forced.force = true;
    forced.kind = vec!["shape".into()];
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(run(forced), ExitCode::SUCCESS);
    assert!(m(&block_shape) > t1, "--force did not re-export");
}

#[test]
fn the_later_source_wins_a_shared_name_and_the_run_says_so() {
    // Every neloid scene names its mesh Box01: both export box01.shape.
    let corpus = corpus_dir().join("max/neloid");
    let out = tempfile::tempdir().unwrap();
    let paths = vec![corpus.join("tile.max"), corpus.join("block.max")];
    assert_eq!(run(args(paths, out.path())), ExitCode::FAILURE);
    let tree = MaxFs::new(&corpus, Options::default());
    let tile = tree.read(Path::new("tile.max/shape/box01.shape")).unwrap();
    let block = tree.read(Path::new("block.max/shape/box01.shape")).unwrap();
    assert!(tile != block);
    // Path order: block.max, then tile.max, which wins.
    assert!(std::fs::read(out.path().join("box01.shape")).unwrap() == tile);
}

#[test]
fn kinds_select_outputs_and_bad_kinds_are_refused() {
    let street = corpus_dir().join("max/ryzomcore/street.max");
    let out = tempfile::tempdir().unwrap();
    let mut a = args(vec![street.clone()], out.path());
    a.kind = vec!["ig".into()];
    assert_eq!(run(a), ExitCode::SUCCESS);
    let names: Vec<String> = files_in(out.path(), ".tag").into_keys().collect();
    assert_eq!(names, ["street.ig"]);

    let mut bad = args(vec![street], out.path());
    bad.kind = vec!["shape".into(), "mesh".into()];
    assert_eq!(run(bad), ExitCode::from(2));
}

#[test]
fn a_file_that_cannot_be_read_fails_without_tag_and_neighbours_export() {
    let src = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("broken.max"), b"not an OLE file at all").unwrap();
    std::fs::copy(
        corpus_dir().join("max/neloid/block.max"),
        src.path().join("block.max"),
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    assert_eq!(
        run(args(vec![src.path().to_path_buf()], out.path())),
        ExitCode::FAILURE
    );
    assert!(!out.path().join("broken.max.tag").exists());
    assert!(out.path().join("block.max.tag").exists());
    assert!(out.path().join("box01.shape").exists());
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

#[test]
fn exports_read_through_the_kernel_equal_the_batch_export() {
    if !maxfs_tests::fuse_available() {
        return;
    }
    let root = corpus_dir().join("max/ryzomcore");
    let tree = Arc::new(MaxFs::new(&root, Options::default()));
    let dir = tempfile::tempdir().unwrap();
    let session = fuser::spawn_mount(MaxFuse::new(tree), dir.path(), &config(2))
        .unwrap_or_else(|e| panic!("mount on {}: {e}", dir.path().display()));
    let m = Mounted {
        session: Some(session),
        dir,
    };
    let t0 = Instant::now();
    while std::fs::read_dir(m.dir.path()).map_or(true, |mut d| d.next().is_none()) {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "mount did not come up"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = tempfile::tempdir().unwrap();
    let mut a = args(vec![root.join("street.max")], out.path());
    a.tag_dir = Some(out.path().join("tags"));
    // A partial export (a node in errors.txt) writes its outputs but no tag.
    let errors =
        std::fs::read_to_string(m.dir.path().join("street.max/export/errors.txt")).unwrap();
    let code = run(a);
    assert_eq!(code == ExitCode::SUCCESS, errors.is_empty(), "{errors}");
    assert_eq!(
        out.path().join("tags/street.max.tag").exists(),
        errors.is_empty()
    );
    let written = files_in(out.path(), ".tag");
    let mounted = m.dir.path().join("street.max");
    let mut seen = 0;
    for (sub, ext) in [("shape", ".shape"), ("export", ".ig")] {
        for e in std::fs::read_dir(mounted.join(sub)).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.ends_with(ext) {
                continue;
            }
            // `cat` through the kernel, with the size stat reported.
            let via_cat = std::process::Command::new("cat")
                .arg(e.path())
                .output()
                .unwrap();
            assert!(via_cat.status.success());
            assert_eq!(e.metadata().unwrap().len(), via_cat.stdout.len() as u64);
            assert!(
                Some(&via_cat.stdout) == written.get(&name),
                "{name} differs"
            );
            seen += 1;
        }
    }
    assert_eq!(seen, written.len());
    assert!(seen >= 9, "only {seen} exports");
    for line in errors.lines() {
        assert_eq!(line.split('\t').count(), 3, "kind, node, reason: {line}");
    }
    // The mount stays read-only.
    let err = std::fs::write(mounted.join("shape/new.shape"), b"x").unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EROFS));
}

/// A scene using something the evaluation does not compute (a CAT rig, issue
/// 16) exports what it can, but the file is partial: the gaps are named, no
/// tag is written and the run fails — the outputs are not what Max shows.
#[test]
fn unevaluated_parts_make_the_export_partial() {
    let cat = corpus_dir().join("max/cat/LD33_Character.max");
    let out = tempfile::tempdir().unwrap();
    let mut a = args(vec![cat], out.path());
    a.gltf = true;
    assert_eq!(run(a), ExitCode::FAILURE);
    assert!(out.path().join("LD33_Character.glb").exists());
    assert!(!out.path().join("LD33_Character.max.tag").exists());
    // A complete scene in the same run is exported and tagged.
    let block = corpus_dir().join("max/neloid/block.max");
    let mut b = args(vec![block], out.path());
    b.gltf = true;
    assert_eq!(run(b), ExitCode::SUCCESS);
    assert!(out.path().join("block.max.tag").exists());
}

/// `--meshes-mb`: a file whose meshes do not fit the per-file budget is
/// partial (no tag, the run fails) and its report names the budget; with
/// the default budget the same file exports whole.
#[test]
fn the_mesh_budget_makes_an_export_partial_by_name() {
    let sofa = corpus_dir().join("max/kenji-room/Kenjis_Sofa.max");
    let out = tempfile::tempdir().unwrap();
    let report = out.path().join("report.json");
    let mut a = args(vec![sofa.clone()], out.path());
    a.meshes_mb = 0;
    a.report = Some(report.clone());
    assert_eq!(run(a), ExitCode::FAILURE);
    assert!(!out.path().join("Kenjis_Sofa.max.tag").exists());
    let text = std::fs::read_to_string(&report).expect("report");
    assert!(text.contains("per-file budget"), "{text}");
    let mut b = args(vec![sofa], out.path());
    b.report = Some(report.clone());
    assert_eq!(run(b), ExitCode::SUCCESS);
    assert!(out.path().join("Kenjis_Sofa.max.tag").exists());
    let text = std::fs::read_to_string(&report).expect("report");
    assert!(!text.contains("per-file budget"), "{text}");
}

/// `--layout nel` (build_gamedata's `*ExportDirectory` names): every NeL
/// file of the flat export, byte for byte, in its process's directory —
/// shapes in shape_not_optimized/, the shape process's per-node animation in
/// shape_anim/, the file's animation in anim_export/ — and nothing else at
/// the top but the tags. The LOD routing (shape_export.ms haveCoarseMesh) is
/// checked on a street.max copy whose LOD slave is a coarse mesh.
#[test]
fn nel_layout_puts_each_kind_in_its_pipeline_directory() {
    use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
    use maxfs_fs::exports::pipeline_dir;
    let src = tempfile::tempdir().unwrap();
    std::fs::copy(
        corpus_dir().join("max/neloid/block.max"),
        src.path().join("block.max"),
    )
    .unwrap();
    let mut e = maxfs_tests::rewrite::SceneEdit::open("max/babylon/AnimatedCubePosition.max");
    let eval = maxfs_tests::corpus_eval("max/babylon/AnimatedCubePosition.max");
    let ctx = maxfs_exporters::nel::export::Context::new("x", &eval);
    let cube = e
        .graph
        .nodes()
        .find(|(o, _)| maxfs_exporters::nel::export::anim::animated(&ctx, o.index))
        .map(|(o, n)| (o.index, n.name.clone()))
        .expect("an animated node");
    e.add_appdata(
        cube.0,
        (NEL_CLASS_ID, NEL_SUPER_CLASS),
        id::AUTOMATIC_ANIMATION,
        "1",
    );
    let bytes = e.finish_file().to_bytes().expect("writes");
    std::fs::write(src.path().join("AnimatedCubePosition.max"), bytes).unwrap();

    let flat = tempfile::tempdir().unwrap();
    let nel = tempfile::tempdir().unwrap();
    run(args(vec![src.path().to_path_buf()], flat.path()));
    let mut a = args(vec![src.path().to_path_buf()], nel.path());
    a.layout = maxfs::export_cmd::Layout::Nel;
    run(a);
    let flat_files = files_in(flat.path(), ".tag");
    let mut seen = 0;
    for (name, bytes) in &flat_files {
        let (dir, kind) = if name.ends_with(".shape") {
            ("shape_not_optimized", "shape")
        } else if name == &format!("{}.anim", cube.1) {
            ("shape_anim", "shape_anim")
        } else if name.ends_with(".anim") {
            ("anim_export", "anim")
        } else if name.ends_with(".ig") {
            ("ig_static_other", "ig")
        } else {
            continue;
        };
        let kind = maxfs_exporters::nel::export::ExportKind::from_name(kind).expect("kind");
        assert_eq!(pipeline_dir(kind, false), dir);
        let got = std::fs::read(nel.path().join(dir).join(name))
            .unwrap_or_else(|e| panic!("{dir}/{name}: {e}"));
        assert_eq!(&got, bytes, "{dir}/{name}");
        seen += 1;
    }
    assert!(
        flat_files.contains_key(&format!("{}.anim", cube.1))
            && flat_files.contains_key("AnimatedCubePosition.anim"),
        "{:?}",
        flat_files.keys().collect::<Vec<_>>()
    );
    assert!(seen >= 4, "{seen} files compared");
    let top = files_in(nel.path(), ".tag");
    assert!(top.is_empty(), "files at the top: {:?}", top.keys());

    // haveCoarseMesh: a LOD set whose slave has LOD_COARSE_MESH routes the
    // master to shape_with_coarse_mesh (the coarse slave itself is refused).
    let mut e = maxfs_tests::rewrite::SceneEdit::open("max/ryzomcore/street.max");
    let master = e.node("Sphere01");
    let slave = e.node("Sphere02");
    let key = (NEL_CLASS_ID, NEL_SUPER_CLASS);
    e.add_appdata(master, key, id::LOD_NAME_COUNT, "1");
    e.add_appdata(master, key, id::LOD_NAME, "Sphere02");
    e.add_appdata(slave, key, id::LOD_COARSE_MESH, "1");
    let doc = e.finish();
    let eval = maxfs_scene::eval::SceneEval::from_document(doc).expect("scene");
    let ctx = maxfs_exporters::nel::export::Context::new("street", &eval);
    let sel = maxfs_exporters::nel::export::select::shape_nodes(&ctx);
    let s = sel
        .iter()
        .find(|s| s.name == "sphere01.shape")
        .expect("sphere01");
    assert!(s.with_coarse_mesh);
    assert!(sel
        .iter()
        .filter(|x| x.name != "sphere01.shape")
        .all(|x| !x.with_coarse_mesh));
    assert_eq!(
        pipeline_dir(
            maxfs_exporters::nel::export::ExportKind::Shape,
            s.with_coarse_mesh
        ),
        "shape_with_coarse_mesh"
    );
}
