//! Embedded scripts with unsafe commands are reported (`maxfs check`,
//! info.json) with a path the mount serves. The independent evidence is the
//! raw stream bytes: the corpus's Babylon scenes carry Autodesk's "ALC" 3ds Max
//! malware (functions named `…CleanBeta`, hidden in a Scale Script on a
//! helper node), which a plain byte search of the inflated streams finds
//! without the chunk parser; every such file must be flagged and named ALC,
//! and no file without it may be flagged (a new corpus file with a legitimate
//! scripted tool would fail here and is worth a look before changing the rule).

use maxfs_fs::{MaxFs, Options};
use maxfs_scene::check::{check_path, CheckOptions};
use maxfs_scene::container::InflateLimits;
use maxfs_scene::scripts::scan;
use maxfs_scene::Document;
use maxfs_tests::{corpus_dir, corpus_max_files};

fn raw_holds(doc: &Document, needle: &[u8]) -> bool {
    doc.file
        .streams
        .iter()
        .any(|s| s.data.windows(needle.len()).any(|w| w == needle))
}

#[test]
fn malware_in_the_corpus_is_flagged_and_nothing_else() {
    let fs = MaxFs::new(corpus_dir(), Options::default());
    let (mut flagged, mut clean) = (Vec::new(), 0);
    for p in corpus_max_files() {
        let rel = p.strip_prefix(corpus_dir()).expect("in corpus");
        let doc = Document::open(&p).expect("opens");
        let typed = doc.typed();
        let found = scan(&doc, typed.scene.as_deref().ok());
        let infected = raw_holds(&doc, b"CleanBeta");
        let text = maxfs_fs::textconv::textconv("", &std::fs::read(&p).expect("reads"));
        assert_eq!(
            text.contains("\n[unsafe scripts]\n"),
            infected,
            "{}: textconv",
            rel.display()
        );
        if !infected {
            assert!(
                found.is_empty(),
                "{}: flagged without the malware: {:#?}",
                rel.display(),
                found
            );
            clean += 1;
            continue;
        }
        assert!(
            found.iter().any(|f| f.known_malware.contains(&"ALC")),
            "{}: ALC not named: {found:#?}",
            rel.display()
        );
        for f in &found {
            // The text sits in a script controller that a node evaluates, and
            // uses what ALC needs to spread: callbacks and the startup folder.
            let class = f.class.as_deref().unwrap_or_default();
            assert!(
                class.ends_with("Script"),
                "{}: class {class}",
                rel.display()
            );
            assert!(!f.nodes.is_empty(), "{}: no node", rel.display());
            for what in ["callbacks.addScript", "startup-script folders"] {
                assert!(
                    f.indicators.iter().any(|i| i.contains(what)),
                    "{}: {what} missing from {:?}",
                    rel.display(),
                    f.indicators
                );
            }
            // The path is one the mount serves, and it holds the text.
            let leaf = rel.join("chunks").join(&f.stream).join(&f.chunk);
            let bytes = fs
                .read(&leaf)
                .unwrap_or_else(|e| panic!("{}: {e}", leaf.display()));
            assert_eq!(bytes.len(), f.bytes, "{}", leaf.display());
            assert!(bytes.windows(9).any(|w| w == b"CleanBeta"));
        }
        // `maxfs check` and info.json carry the same findings.
        let report = check_path(&p, CheckOptions::default(), &InflateLimits::default());
        assert_eq!(report.unsafe_scripts, found, "{}", rel.display());
        let info: serde_json::Value =
            serde_json::from_slice(&fs.read(&rel.join("info.json")).expect("info.json"))
                .expect("json");
        assert_eq!(
            info["unsafe_scripts"],
            serde_json::to_value(&found).expect("json"),
            "{}",
            rel.display()
        );
        flagged.push(rel.display().to_string());
    }
    assert!(!flagged.is_empty(), "the Babylon scenes carry ALC");
    println!("flagged {}: {flagged:?}; clean {clean}", flagged.len());
}

/// `maxfs export` names the scripts of each source in its results (`--report`
/// holds what `--json` prints) and counts the files carrying them; a clean
/// source of the same run has none.
#[test]
fn batch_export_names_unsafe_scripts() {
    use maxfs::export_cmd::{run, ExportArgs, Layout};
    let infected = corpus_dir().join("max/babylon/AnimatedCubePosition.max");
    let clean = corpus_dir().join("max/babylon/SimpleTriangle.max");
    let out = tempfile::tempdir().expect("tmp");
    let report = out.path().join("report.json");
    let _ = run(ExportArgs {
        paths: vec![infected.clone(), clean.clone()],
        out: out.path().join("out"),
        kind: Vec::new(),
        gltf: true,
        maps: Vec::new(),
        ps_path: Vec::new(),
        bank: None,
        jobs: Some(1),
        meshes_mb: maxfs_scene::eval::DEFAULT_MESH_BUDGET >> 20,
        tag_dir: None,
        force: false,
        json: false,
        report: Some(report.clone()),
        layout: Layout::Flat,
    });
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report written")).expect("json");
    assert_eq!(v["summary"]["unsafe_scripts"], 1, "{v}");
    let file = |p: &std::path::Path| {
        v["files"]
            .as_array()
            .and_then(|a| a.iter().find(|f| f["path"] == p.display().to_string()))
            .cloned()
            .unwrap_or_else(|| panic!("{} not in the report", p.display()))
    };
    // The raw bytes hold the family's marker (as in the test above).
    let doc = Document::open(&infected).expect("opens");
    assert!(raw_holds(&doc, b"CleanBeta"));
    let scripts = file(&infected)["unsafe_scripts"].clone();
    let scripts = scripts.as_array().expect("listed");
    assert!(!scripts.is_empty());
    assert!(scripts
        .iter()
        .all(|s| s["known_malware"] == serde_json::json!(["ALC"])));
    assert!(file(&clean).get("unsafe_scripts").is_none());
}

/// The ALC helper's Scale Script ends in a literal, so its node is placed
/// without running it: the evaluated scale is the `[x,y,z]` the raw text ends
/// with (found here by a byte search, not by our tokenizer), and the file
/// names no transform gap for it. ShoulderBone's Float Script computes its
/// value and stays refused, with the end of its text.
#[test]
fn script_controllers_ending_in_a_literal_are_evaluated() {
    use maxfs_scene::eval::core::controller::Controller;
    use maxfs_scene::eval::core::coverage::{scene_gaps, tm_gaps};
    use maxfs_scene::eval::SceneEval;
    let mut helpers = 0;
    for p in corpus_max_files() {
        let doc = Document::open(&p).expect("opens");
        if !raw_holds(&doc, b"CleanBeta") {
            continue;
        }
        let typed = doc.typed();
        let found = scan(&doc, typed.scene.as_deref().ok());
        let eval = SceneEval::from_document(Document::open(&p).expect("opens")).expect("eval");
        for f in found
            .iter()
            .filter(|f| f.class.as_deref() == Some("Scale Script"))
        {
            // The text as stored ends `…;[1,1,1];` before its blank lines.
            let fs = MaxFs::new(corpus_dir(), Options::default());
            let rel = p.strip_prefix(corpus_dir()).expect("in corpus");
            let text = fs
                .read(&rel.join("chunks").join(&f.stream).join(&f.chunk))
                .expect("script text");
            let end = text
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .expect("not blank");
            assert!(text[..=end].ends_with(b";[1,1,1];"), "{}", p.display());
            for name in &f.nodes {
                let node = maxfs_tests::node_named(&eval.graph, name);
                let prs = eval.tm_controller(node).expect("a transform controller");
                let scale = eval.graph.objects[prs]
                    .references
                    .iter()
                    .find(|r| r.slot == 2)
                    .and_then(|r| usize::try_from(r.target).ok())
                    .expect("a scale controller");
                assert!(
                    matches!(eval.controller(scale), Some(Controller::Scale { .. })),
                    "{}: {:?}",
                    p.display(),
                    eval.controller(scale)
                );
                let s = eval.scale_at(Some(scale), 4800);
                assert_eq!([s.0, s.1, s.2], [1.0; 3], "{}", p.display());
                assert!(tm_gaps(&eval, node).is_empty(), "{}", p.display());
                helpers += 1;
            }
        }
        assert!(
            scene_gaps(&eval)
                .iter()
                .all(|g| !g.class.contains("Script")),
            "{}",
            p.display()
        );
    }
    assert!(helpers > 0, "the Babylon scenes carry ALC helpers");
    let p = corpus_dir().join("max/ik/ShoulderBone.max");
    let eval = SceneEval::from_document(Document::open(&p).expect("opens")).expect("eval");
    let gaps = scene_gaps(&eval);
    assert!(
        gaps.iter().any(|g| g.class.starts_with("Float Script (")
            && g.class.contains("not a constant")
            && g.class.contains("res * 50.0")),
        "{gaps:?}"
    );
}
