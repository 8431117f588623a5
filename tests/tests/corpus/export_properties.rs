//! NeL export properties and node selection on the real corpus: every NeL
//! AppData of every .max decodes without panic, and street.max decodes and
//! selects what the NeL export scripts would.

use std::path::Path;

use maxfs_exporters::nel::export::properties::{accel, id};
use maxfs_exporters::nel::export::{select, Context};
use maxfs_scene::Document;

fn with_ctx<R>(path: &Path, f: impl FnOnce(&Context) -> R) -> Option<R> {
    let doc = Document::open(path).ok()?;
    let stem = path.file_stem()?.to_str()?;
    let eval = maxfs_scene::eval::SceneEval::from_document(doc).ok()?;
    let ctx = Context::new(stem, &eval);
    Some(f(&ctx))
}

fn street() -> std::path::PathBuf {
    maxfs_tests::corpus_dir().join("max/ryzomcore/street.max")
}

fn node_by_name(ctx: &Context, name: &str) -> usize {
    ctx.graph
        .objects
        .iter()
        .position(|o| o.node.as_ref().is_some_and(|n| n.name == name))
        .unwrap_or_else(|| panic!("no node {name}"))
}

#[test]
fn whole_corpus_decodes() {
    let mut files = 0;
    let mut nodes_with_nel = 0;
    let mut warnings = 0;
    for path in maxfs_tests::corpus_max_files() {
        let r = with_ctx(&path, |ctx| {
            let mut n = 0;
            let mut w = 0;
            for i in 0..ctx.graph.objects.len() {
                let p = ctx.props.node(i);
                if !p.set.is_empty() {
                    n += 1;
                }
                w += p.warnings.len();
            }
            // Selection must not panic either.
            let _ = select::shape_nodes(ctx);
            let _ = select::ig_groups(ctx);
            let _ = select::anim_nodes(ctx);
            let _ = select::swt_nodes(ctx);
            let _ = select::skel_root(ctx);
            // The ig builder runs on every file without panicking; only files
            // prepared for NeL export one.
            let igs = maxfs_exporters::nel::export::export(
                ctx.stem,
                ctx.eval,
                &[maxfs_exporters::nel::export::ExportKind::Ig],
            );
            if n == 0 {
                assert!(igs.outputs.is_empty(), "{}", path.display());
            }
            (n, w)
        });
        if let Some((n, w)) = r {
            files += 1;
            nodes_with_nel += n;
            warnings += w;
        }
    }
    eprintln!("{files} files, {nodes_with_nel} nodes with NeL AppData, {warnings} warnings");
    assert!(files > 0);
    assert!(nodes_with_nel > 0);
}

#[test]
fn street_properties() {
    with_ctx(&street(), |ctx| {
        for c in ["cluster01", "cluster02", "cluster03", "cluster04"] {
            let p = ctx.props.node(node_by_name(ctx, c));
            assert_eq!(p.accel, 10, "{c}");
            assert!(p.is_cluster());
            assert_eq!(
                p.accel & accel::VISIBLE_FROM_FATHER,
                accel::VISIBLE_FROM_FATHER
            );
            assert!(p.set.contains(&"accel"));
            assert!(p.script_is_accelerator());
            assert!(!p.dont_export);
            assert!(p.export_realtime_light);
            assert!(!p.lod_blend_in, "LOD_BLEND_IN is stored as 0");
            assert_eq!(p.ig_name, "");
            assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        }
        for c in ["Portal01", "Portal02", "Portal03", "Portal04"] {
            let p = ctx.props.node(node_by_name(ctx, c));
            assert_eq!(p.accel, 1, "{c}");
            assert!(p.is_portal());
            assert_eq!(p.raw(id::ACCEL), Some("1"));
        }
        // No AppData at all: every default.
        let b = ctx.props.node(node_by_name(ctx, "Box02"));
        assert_eq!(b.accel, accel::DEFAULT);
        assert!(b.set.is_empty());
        assert_eq!(b.lod_dist_max, 1000.0);
        assert_eq!(b.softshadow_radius, 1.4);
        assert!(!b.script_is_accelerator());
    })
    .expect("street.max opens");
}

#[test]
fn street_shape_selection() {
    let names = with_ctx(&street(), |ctx| {
        select::shape_nodes(ctx)
            .into_iter()
            .map(|s| s.name)
            .collect::<Vec<_>>()
    })
    .expect("street.max opens");
    let mut want = vec!["box02.shape".to_string()];
    want.extend((1..=8).map(|i| format!("sphere0{i}.shape")));
    assert_eq!(names, want);
}

#[test]
fn street_ig_groups() {
    with_ctx(&street(), |ctx| {
        // street.max carries no IGNAME: ig_export.ms would write nothing.
        assert!(select::ig_groups(ctx).is_empty());
        let all = select::scene_group_nodes(ctx);
        let names: Vec<&str> = all
            .iter()
            .filter_map(|&i| ctx.graph.objects[i].node.as_ref().map(|n| n.name.as_str()))
            .collect();
        assert_eq!(names.first(), Some(&"Box02"));
        assert_eq!(names.len(), 17, "{names:?}");
    })
    .expect("street.max opens");
}

#[test]
fn street_nel_properties_view() {
    use maxfs_fs::views::{render, JsonView};
    let doc = Document::open(&street()).expect("street.max opens");
    let eval = maxfs_scene::eval::SceneEval::from_document(doc).expect("scene");
    let (doc, typed) = (&*eval.doc, &*eval.typed);
    let view = JsonView::from_file_name("nel_properties.json").expect("view listed");
    let bytes = render(view, doc, typed, Ok(&eval));
    assert_eq!(bytes, render(view, doc, typed, Ok(&eval)), "deterministic");
    let v: serde_json::Value = serde_json::from_slice(&bytes).expect("valid JSON");
    let nodes = v["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 17);
    let c1 = nodes
        .iter()
        .find(|n| n["name"] == "cluster01")
        .expect("cluster01");
    assert_eq!(c1["properties"]["accel"], 10);
    assert_eq!(c1["properties"]["softshadow_radius"], 1.4);
    assert!(c1["set"]
        .as_array()
        .is_some_and(|s| s.iter().any(|f| f == "accel")));
    let b = nodes.iter().find(|n| n["name"] == "Box02").expect("Box02");
    assert_eq!(b["properties"]["accel"], 32);
    assert_eq!(b["set"].as_array().map(Vec::len), Some(0));
}
