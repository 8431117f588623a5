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
