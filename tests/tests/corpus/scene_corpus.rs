//! The fidelity gates on every .max of the corpus, file by file.

use maxfs_scene::check::{check_bytes, container_roundtrip, Outcome};
use maxfs_scene::container::MaxFile;
use maxfs_scene::{version, Document};
use maxfs_tests::corpus_max_files;

#[test]
fn corpus_has_the_expected_files() {
    // Files are added between sessions: check that every folder the README's
    // max/ table names is there with .max files in it, not a total.
    let readme = std::fs::read_to_string(maxfs_tests::corpus_dir().join("README.md"))
        .expect("corpus README");
    let section = readme
        .split("## max/")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README has a max/ section");
    let folders: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .filter_map(|f| f.strip_suffix('/'))
        .collect();
    assert!(folders.len() >= 10, "README folders: {folders:?}");
    let files = corpus_max_files();
    for folder in folders {
        let dir = maxfs_tests::corpus_dir().join("max").join(folder);
        assert!(
            files.iter().any(|f| f.starts_with(&dir)),
            "README lists max/{folder}/ but it holds no .max file"
        );
    }
}

#[test]
fn t1_and_t2_pass_on_every_corpus_file() {
    let mut failures = Vec::new();
    for path in corpus_max_files() {
        let bytes = std::fs::read(&path).expect("corpus file readable");
        let report = check_bytes(&bytes, false);
        let name = path.display().to_string();
        if report.outcome != Outcome::Ok {
            failures.push(format!("{name}: {:?}", report.outcome));
            continue;
        }
        if !report.warnings.is_empty() {
            failures.push(format!(
                "{name}: typed layer degraded: {:?}",
                report.warnings
            ));
        }
        if report.chunk_streams < 5 || report.typed_values == 0 {
            failures.push(format!(
                "{name}: only {} chunk streams / {} typed values",
                report.chunk_streams, report.typed_values
            ));
        }
        let v = report.version.expect("Scene version");
        assert!(
            version::release_name(v).is_some(),
            "{name}: unknown version {v:#x}"
        );
    }
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}

#[test]
fn whole_compound_file_round_trips() {
    let mut compressed = 0;
    for path in corpus_max_files() {
        let file = MaxFile::open(&path).expect("opens");
        compressed += usize::from(file.streams.iter().any(|s| s.compressed));
        assert!(
            container_roundtrip(&file).is_none(),
            "{}: {:?}",
            path.display(),
            container_roundtrip(&file)
        );
        // And the bytes written are a compound file other readers accept.
        let again = MaxFile::from_bytes(&file.to_bytes().expect("writes")).expect("re-reads");
        assert_eq!(again.clsid, file.clsid);
        assert_eq!(again.streams.len(), file.streams.len());
    }
    assert_eq!(compressed, 2, "two corpus files are saved with compression");
}

#[test]
fn scene_graph_is_read_from_every_file() {
    for path in corpus_max_files() {
        let doc = Document::open(&path).expect("opens");
        let typed = doc.typed();
        let name = path.display();
        let graph = typed
            .scene
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!typed.dlls.is_empty(), "{name}: no DLL entries");
        assert!(!typed.classes.is_empty(), "{name}: no class entries");
        let nodes: Vec<_> = graph.nodes().collect();
        assert!(!nodes.is_empty(), "{name}: no nodes");
        // Every object resolves to a class, and every reference points inside the container.
        for o in &graph.objects {
            assert!(o.class.is_some(), "{name}: object {} has no class", o.index);
            for r in &o.references {
                assert!(
                    r.target >= -1 && (r.target as i64) < graph.objects.len() as i64,
                    "{name}: object {} slot {} points at {}",
                    o.index,
                    r.slot,
                    r.target
                );
            }
        }
        // Every node's parent is a node (the root node has none of its own).
        for (o, n) in &nodes {
            if let Some(p) = n.parent {
                let parent = graph.objects.get(p as usize);
                assert!(
                    parent.is_some_and(|p| p.node.is_some()),
                    "{name}: node {} ({:?}) has parent {p} which is not a node",
                    o.index,
                    n.name
                );
            }
        }
    }
}

#[test]
fn known_names_are_read() {
    let corpus = maxfs_tests::corpus_dir();
    let doc = Document::open(&corpus.join("max/ryzomcore/street.max")).expect("opens");
    let typed = doc.typed();
    let graph = typed.scene.expect("scene");
    let names: Vec<&str> = graph.nodes().map(|(_, n)| n.name.as_str()).collect();
    assert!(names.contains(&"Box02"), "{names:?}");
    assert!(names.contains(&"cluster01"), "{names:?}");
    assert_eq!(doc.version(), Some(0x2004));
    assert!(typed
        .dlls
        .iter()
        .any(|d| d.filename.eq_ignore_ascii_case("prim.dlo")));
    // NeL AppData (MAXSCRIPT utility class, superclass 0x1020) is present on street's nodes.
    let nel = graph
        .objects
        .iter()
        .flat_map(|o| &o.appdata)
        .filter(|a| a.class_id.0 == 0x04d6_4858 && a.super_class == 0x1020)
        .count();
    assert!(nel > 0);
}

/// The release each root chunk id is named for agrees with the version 3ds Max
/// itself wrote into DocumentSummaryInformation ("3ds Max Version: 19.00" is
/// Max 2017: releases from 10 on are named 1998 + N, the earlier ones N), in
/// every corpus file that carries it; "A/B" names accept either release.
#[test]
fn release_names_agree_with_the_saved_version() {
    let fs = maxfs_fs::MaxFs::new(maxfs_tests::corpus_dir().join("max"), Default::default());
    let mut checked = 0;
    for p in corpus_max_files() {
        let rel = p
            .strip_prefix(maxfs_tests::corpus_dir().join("max"))
            .expect("in corpus");
        let Ok(json) = fs.read(&rel.join("json/summary_information.json")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&json);
        let Some(at) = text.find("ax Version: ") else {
            continue;
        };
        let major: u32 = text[at + 12..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .expect("a version number");
        let saved = if major >= 10 {
            format!("{}", 1998 + major)
        } else {
            format!("{major}")
        };
        let id = Document::open(&p)
            .expect("opens")
            .version()
            .expect("a Scene root chunk");
        let name = version::release_name(id)
            .unwrap_or_else(|| panic!("{}: root chunk {id:#06x} not named", rel.display()));
        let releases: Vec<&str> = name.trim_start_matches("3ds Max ").split('/').collect();
        assert!(
            releases.contains(&saved.as_str()),
            "{}: {name} ({id:#06x}) but saved by 3ds Max {saved}",
            rel.display()
        );
        checked += 1;
    }
    assert!(checked >= 50, "{checked} files carry their saved version");
}
