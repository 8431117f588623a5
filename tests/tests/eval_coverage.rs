//! Classes the evaluation does not compute are reported by name (info.json,
//! `maxfs check`), never silently evaluated as identity or dropped.

use maxfs_scene::eval::coverage::{scene_gaps, Gap};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::{corpus_dir, corpus_max_files};

fn gaps(rel: &str) -> Vec<Gap> {
    let doc = Document::open(&corpus_dir().join("max").join(rel)).unwrap();
    let typed = doc.typed();
    let graph = typed.scene.as_ref().unwrap();
    scene_gaps(&SceneEval::new(&doc, graph))
}

fn has(g: &[Gap], role: &str, class: &str, node: &str) -> bool {
    g.iter()
        .any(|x| x.role == role && x.class == class && x.nodes.iter().any(|n| n == node))
}

#[test]
fn rigs_the_evaluation_does_not_compute_are_named() {
    let rabbit = gaps("biped/RabbitSkin.max");
    assert!(has(
        &rabbit,
        "transform controller",
        "Vertical/Horizontal/Turn",
        "Bip01"
    ));
    assert!(has(
        &rabbit,
        "transform controller",
        "BipSlave Control",
        "Bip01 Pelvis"
    ));
    assert!(has(
        &rabbit,
        "transform controller",
        "Footsteps",
        "Bip01 Footsteps"
    ));
    assert!(has(&rabbit, "object", "Biped Object", "Bip01"));

    let ik = gaps("ik/ikPoping.max");
    assert!(has(&ik, "transform controller", "IKChainControl", "ikGoal"));
    assert!(has(&ik, "transform controller", "IKControl", "firstBone"));
    // Bone objects build their mesh (tests/eval_bone.rs).
    assert!(!ik.iter().any(|g| g.role == "object" && g.class == "Bone"));
    assert!(!rabbit
        .iter()
        .any(|g| g.role == "object" && g.class == "Bone"));

    let cat = gaps("cat/LD33_Character.max");
    assert!(has(
        &cat,
        "transform controller",
        "CATParentTrans",
        "Base Human"
    ));
    assert!(has(
        &cat,
        "transform controller",
        "HubTrans",
        "Base HumanPelvis"
    ));

    // Boolean compound objects evaluate (tests/eval_boolean.rs); road_flag's Edit
    // Mesh above its Boolean addresses Max's own triangulation and is refused.
    let street = gaps("ryzomcore/street.max");
    assert!(!street.iter().any(|g| g.nodes.iter().any(|n| n == "Box02")));
    let road_flag = gaps("ryzomcore/road_flag.max");
    assert!(!has(&road_flag, "object", "Boolean", "Box01"));
    assert!(has(&road_flag, "modifier", "Edit Mesh", "Box01"));
}

#[test]
fn fully_evaluated_scenes_report_nothing_and_targets_are_not_geometry() {
    for rel in [
        "neloid/block.max",
        "neloid/tile.max",
        "assimp/RotatingCube.max",
    ] {
        assert_eq!(gaps(rel), [], "{rel}");
    }
    // Camera targets are geometry by superclass but never meshes.
    assert!(gaps("pegasus/1.max").iter().all(|g| g.class != "Target"));
}

#[test]
fn every_file_lists_its_gaps_in_info_json_and_check() {
    let fs = maxfs_fs::MaxFs::new(corpus_dir().join("max"), Default::default());
    let mut with_gaps = 0;
    for p in corpus_max_files() {
        let rel = p.strip_prefix(corpus_dir().join("max")).unwrap();
        let info: serde_json::Value =
            serde_json::from_slice(&fs.read(&rel.join("info.json")).unwrap()).unwrap();
        let listed = info
            .get("unevaluated")
            .and_then(|u| u.as_array())
            .map_or(0, Vec::len);
        let bytes = std::fs::read(&p).unwrap();
        let report = maxfs_scene::check::check_bytes(&bytes, false);
        assert_eq!(listed, report.unevaluated.len(), "{}", p.display());
        let doc_gaps = gaps(&rel.to_string_lossy());
        assert_eq!(doc_gaps.len(), listed, "{}", p.display());
        for (g, line) in doc_gaps.iter().zip(&report.unevaluated) {
            assert!(line.contains(&format!("{:?}", g.class)), "{line}");
            assert!(!g.nodes.is_empty());
        }
        with_gaps += usize::from(listed > 0);
    }
    assert!(with_gaps >= 10, "only {with_gaps} files with gaps");
}
