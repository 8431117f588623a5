//! Tags of `maxfs export` record what was exported (NeL kinds, glTF, tool
//! version): a later run that asks for other outputs, or runs a new version,
//! exports what is missing instead of skipping the source (issue 13).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use maxfs::export_cmd::{run, ExportArgs, Tag, TOOL_VERSION};
use maxfs_exporters::nel::export::ExportKind;
use maxfs_tests::corpus_dir;

/// RiggedFigure.max exports a shape, a skeleton and an animation.
const SOURCE: &str = "babylon/RiggedFigure.max";

fn export(src: &Path, out: &Path, kinds: &[&str], gltf: bool) -> ExitCode {
    run(ExportArgs {
        paths: vec![src.to_path_buf()],
        out: out.to_path_buf(),
        kind: kinds.iter().map(|k| k.to_string()).collect(),
        gltf,
        maps: Vec::new(),
        ps_path: Vec::new(),
        bank: None,
        jobs: Some(1),
        meshes_mb: maxfs_scene::eval::DEFAULT_MESH_BUDGET >> 20,
        tag_dir: None,
        force: false,
        json: true,
        report: None,
        layout: maxfs::export_cmd::Layout::Flat,
    })
}

/// The output files (not tags) and their modification times.
fn outputs(out: &Path) -> BTreeSet<(String, std::time::SystemTime)> {
    std::fs::read_dir(out)
        .expect("out dir")
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".tag"))
        .map(|e| {
            let m = e.metadata().expect("stat").modified().expect("mtime");
            (e.file_name().to_string_lossy().into_owned(), m)
        })
        .collect()
}

fn names(o: &BTreeSet<(String, std::time::SystemTime)>) -> BTreeSet<String> {
    o.iter().map(|(n, _)| n.clone()).collect()
}

fn set(v: &[&str]) -> BTreeSet<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// A private copy of the source (the test ages its tag), and an output dir.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = tmp.path().join("RiggedFigure.max");
    std::fs::copy(corpus_dir().join("max").join(SOURCE), &src).expect("copy");
    let out = tmp.path().join("out");
    (tmp, src, out)
}

fn tag(out: &Path) -> Tag {
    Tag::parse(&std::fs::read_to_string(out.join("RiggedFigure.max.tag")).expect("tag"))
}

#[test]
fn other_kinds_in_a_later_run_are_exported() {
    let (_tmp, src, out) = setup();
    assert_eq!(export(&src, &out, &["shape"], false), ExitCode::SUCCESS);
    let first = outputs(&out);
    assert_eq!(names(&first), set(&["proxy.shape"]));
    let t = tag(&out);
    assert_eq!(
        (t.kinds.as_slice(), t.gltf),
        (&[ExportKind::Shape][..], false)
    );
    assert_eq!(t.tool, TOOL_VERSION);
    // The case: skel,anim after shape used to be skipped (tag newer than source).
    assert_eq!(
        export(&src, &out, &["skel", "anim"], false),
        ExitCode::SUCCESS
    );
    let second = outputs(&out);
    assert_eq!(
        names(&second),
        set(&["proxy.shape", "RiggedFigure.skel", "RiggedFigure.anim"])
    );
    // Only what was missing was written: the shape is the first run's file.
    let shape = |o: &BTreeSet<(String, _)>| o.iter().find(|(n, _)| n == "proxy.shape").cloned();
    assert_eq!(shape(&first), shape(&second));
    let t = tag(&out);
    assert_eq!(
        t.kinds,
        vec![ExportKind::Shape, ExportKind::Skel, ExportKind::Anim]
    );
    // Everything asked for is recorded: the next run with any of them skips.
    let before = outputs(&out);
    assert_eq!(
        export(&src, &out, &["anim", "shape"], false),
        ExitCode::SUCCESS
    );
    assert_eq!(outputs(&out), before);
}

#[test]
fn nel_kinds_after_gltf_and_gltf_after_nel_are_exported() {
    let (_tmp, src, out) = setup();
    assert_eq!(export(&src, &out, &[], true), ExitCode::SUCCESS);
    assert_eq!(names(&outputs(&out)), set(&["RiggedFigure.glb"]));
    let t = tag(&out);
    assert!(t.gltf && t.kinds.is_empty(), "{t:?}");
    // A NeL export of every kind (the default) after --gltf alone.
    assert_eq!(export(&src, &out, &[], false), ExitCode::SUCCESS);
    let all = outputs(&out);
    assert_eq!(
        names(&all),
        set(&[
            "RiggedFigure.glb",
            "proxy.shape",
            "RiggedFigure.skel",
            "RiggedFigure.anim"
        ])
    );
    let t = tag(&out);
    assert!(t.gltf, "{t:?}");
    assert_eq!(t.kinds, ExportKind::ALL.to_vec());
    // Both recorded: glTF and all kinds again is a skip.
    assert_eq!(export(&src, &out, &[], true), ExitCode::SUCCESS);
    assert_eq!(outputs(&out), all);

    // The other order, in a fresh directory: shape first, then --gltf.
    let (_tmp2, src2, out2) = setup();
    assert_eq!(export(&src2, &out2, &["shape"], false), ExitCode::SUCCESS);
    assert_eq!(export(&src2, &out2, &[], true), ExitCode::SUCCESS);
    assert_eq!(
        names(&outputs(&out2)),
        set(&["proxy.shape", "RiggedFigure.glb"])
    );
}

#[test]
fn a_tag_of_another_version_or_without_a_record_exports_again() {
    let (_tmp, src, out) = setup();
    assert_eq!(export(&src, &out, &["shape"], false), ExitCode::SUCCESS);
    let tag_path = out.join("RiggedFigure.max.tag");
    // A tag written by another maxfs version, recording the same kinds.
    let old = Tag {
        tool: "maxfs 0.0.1".into(),
        kinds: ExportKind::ALL.to_vec(),
        gltf: true,
    };
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::write(&tag_path, old.render(later)).expect("write tag");
    let before = outputs(&out);
    assert_eq!(export(&src, &out, &["shape"], false), ExitCode::SUCCESS);
    let after = outputs(&out);
    assert_ne!(
        before, after,
        "the shape of another version was not rewritten"
    );
    let t = tag(&out);
    assert_eq!(t.tool, TOOL_VERSION);
    // What the old version recorded does not carry over.
    assert_eq!(
        (t.kinds.as_slice(), t.gltf),
        (&[ExportKind::Shape][..], false)
    );
    // A pipeline tag (the stamp line only) records nothing: the source is exported.
    std::fs::write(&tag_path, "2099-01-01 00:00GMT\n").expect("write tag");
    assert_eq!(export(&src, &out, &["skel"], false), ExitCode::SUCCESS);
    assert!(out.join("RiggedFigure.skel").exists());
    assert_eq!(tag(&out).kinds, vec![ExportKind::Skel]);
}

#[test]
fn the_tag_keeps_the_pipeline_stamp_as_its_first_line() {
    let t = Tag {
        tool: TOOL_VERSION.into(),
        kinds: vec![ExportKind::Anim, ExportKind::Shape],
        gltf: false,
    };
    let text = t.render(std::time::SystemTime::UNIX_EPOCH);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("1970-01-01 00:00GMT"));
    // Kinds are written in the fixed order and read back.
    assert!(text.contains("\nkinds shape,anim\n"), "{text}");
    let back = Tag::parse(&text);
    assert_eq!(back.kinds, vec![ExportKind::Shape, ExportKind::Anim]);
    assert_eq!(back.tool, TOOL_VERSION);
}
