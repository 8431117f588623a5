//! Classes the evaluation does not compute are reported by name (info.json,
//! `maxfs check`), never silently evaluated as identity or dropped.

use maxfs_scene::eval::core::coverage::{scene_gaps, Gap};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::{corpus_dir, corpus_max_files, node_named};

fn gaps(rel: &str) -> Vec<Gap> {
    let doc = Document::open(&corpus_dir().join("max").join(rel)).unwrap();
    scene_gaps(&SceneEval::from_document(doc).unwrap())
}

/// Biped parts and Link Constraints are reported per node with the reason
/// after the class name: `BipSlave Control (figure pose of … not evaluated)`.
fn has(g: &[Gap], role: &str, class: &str, node: &str) -> bool {
    g.iter().any(|x| {
        x.role == role
            && (x.class == class || x.class.starts_with(&format!("{class} (")))
            && x.nodes.iter().any(|n| n == node)
    })
}

#[test]
fn rigs_the_evaluation_does_not_compute_are_named() {
    let rabbit = gaps("biped/RabbitSkin.max");
    // Yellow's ears are extra limbs (ids 200/201, nubs 400/401): evaluated in
    // the figure and from their keys (eval_biped.rs, eval_biped_motion.rs).
    // (RabbitSkin's COM, named here before, now evaluates at the tick the
    // gaps are taken: its 99° turn segment is no longer refused.)
    let yellow = gaps("biped-ld35/Yellow.max");
    assert!(
        !yellow.iter().any(|g| g.role == "transform controller"
            && g.nodes
                .iter()
                .any(|n| n.contains("Ear") || n.contains("Xtra"))),
        "{yellow:?}"
    );
    assert!(has(&rabbit, "object", "Biped Object", "Bip01"));
    // A rule refused inside the take, not at frame 0, is named too:
    // RabbitSkin's toe bases turn between keys storing continuity 0 (16000
    // → 48000 on the left), where the half-cosine toe rule is not measured.
    // Yellow@Spawn's toes, refused here before (their bends and bases
    // between the FK key 3840 and the IK key 5760, and between the IK keys),
    // now evaluate at every tick, and so do its legs, refused here before
    // between the FK key 3840 and the IK key 5760 (FK ↔ IK segments are FK),
    // and its COM, whose key 5920 (continuity −0.8, time record word [9] =
    // 5) was refused here before (eval_biped_motion.rs).
    assert!(
        rabbit.iter().any(|g| g.role == "transform controller"
            && g.class.starts_with("BipSlave Control (at tick ")
            && g.class.contains("toe base rotations changing")
            && g.nodes.iter().any(|n| n == "Bip01 L Toe0")),
        "{rabbit:?}"
    );
    let spawn = gaps("biped-ld35/Yellow@Spawn.max");
    assert!(
        !spawn.iter().any(|g| g.role == "transform controller"),
        "{spawn:?}"
    );
    assert!(
        !spawn
            .iter()
            .any(|g| g.role == "transform controller"
                && g.nodes.iter().any(|n| n == "Bip01 L Thigh")),
        "{spawn:?}"
    );
    assert!(
        !spawn.iter().any(|g| g.role == "transform controller"
            && g.nodes.iter().any(|n| n == "Bip01" || n == "Bip01 Pelvis")),
        "{spawn:?}"
    );

    // What Skin deforming at a tick and the glTF sampling it ask
    // (`tm_gaps_at`): at tick 0 and at frame 30 (inside the FK → IK
    // segment 3840 → 5760) the ears, the legs and the toes evaluate. At a
    // tick where RabbitSkin's toe base is refused the toe is refused with
    // that reason while the foot evaluates.
    {
        use maxfs_scene::eval::core::coverage::tm_gaps_at;
        let doc = Document::open(&corpus_dir().join("max/biped-ld35/Yellow@Spawn.max")).unwrap();
        let eval = SceneEval::from_document(doc).unwrap();
        let node = |name: &str| node_named(&eval.graph, name);
        for ear in ["Bip01 R Ear1", "Bip01 Xtra01OppNub", "B_L_Ear0"] {
            assert!(tm_gaps_at(&eval, node(ear), 0).is_empty(), "{ear} at 0");
            let at30 = tm_gaps_at(&eval, node(ear), 4800);
            assert!(at30.is_empty(), "{ear} at 4800: {at30:?}");
        }
        for leg in ["B_L_Calf", "Bip01 R Foot"] {
            assert!(tm_gaps_at(&eval, node(leg), 0).is_empty(), "{leg} at 0");
            let at30 = tm_gaps_at(&eval, node(leg), 4800);
            assert!(at30.is_empty(), "{leg} at 4800: {at30:?}");
        }
        for toe in ["B_L_Toe", "B_R_Toe"] {
            assert!(tm_gaps_at(&eval, node(toe), 0).is_empty(), "{toe} at 0");
            let at30 = tm_gaps_at(&eval, node(toe), 4800);
            assert!(at30.is_empty(), "{toe} at 4800: {at30:?}");
        }
        let doc = Document::open(&corpus_dir().join("max/biped/RabbitSkin.max")).unwrap();
        let eval = SceneEval::from_document(doc).unwrap();
        let node = |name: &str| node_named(&eval.graph, name);
        let toe = tm_gaps_at(&eval, node("Bip01 L Toe0"), 16160);
        assert!(
            toe.iter()
                .any(|g| g.contains("toe base rotations changing")),
            "Bip01 L Toe0 at 16160: {toe:?}"
        );
        let foot = tm_gaps_at(&eval, node("Bip01 L Foot"), 16160);
        assert!(foot.is_empty(), "Bip01 L Foot at 16160: {foot:?}");
    }

    // HI IK chains evaluate (eval/ik/plug.rs; tests/eval_ik_chains.rs checks a
    // refused chain is named).
    let ik = gaps("ik/ikPoping.max");
    assert!(!ik.iter().any(|g| g.class.starts_with("IK")), "{ik:?}");
    // Bone objects build their mesh (tests/eval_bone.rs).
    assert!(!ik.iter().any(|g| g.role == "object" && g.class == "Bone"));
    assert!(!rabbit
        .iter()
        .any(|g| g.role == "object" && g.class == "Bone"));

    // CAT: the CATParent, hubs, spine, limbs, toes (both segments) and the
    // bones' and hubs' boxes evaluate (eval/rigs/cat; tests/eval_cat.rs,
    // tests/eval_cat_mesh.rs): the file reports nothing.
    let cat = gaps("cat/LD33_Character.max");
    assert_eq!(cat, [], "cat/LD33_Character.max");

    // Boolean compound objects evaluate (tests/eval_boolean.rs); road_flag's Edit
    // Mesh above its Boolean addresses Max's own triangulation and is refused.
    let street = gaps("ryzomcore/street.max");
    assert!(!street.iter().any(|g| g.nodes.iter().any(|n| n == "Box02")));
    let road_flag = gaps("ryzomcore/road_flag.max");
    assert!(!has(&road_flag, "object", "Boolean", "Box01"));
    assert!(has(&road_flag, "modifier", "Edit Mesh", "Box01"));

    // Gizmo modifiers evaluate (tests/eval_modifiers.rs): planar UVW Map,
    // Mirror and Symmetry are no longer gaps; Head's stack now stops at its Skin.
    let nebula = gaps("nebula2/example.max");
    assert!(!has(&nebula, "modifier", "UVW Map", "Box01"));
    let roof = gaps("compressed/roof_merge_M8.max");
    assert!(!roof.iter().any(|g| g.class == "UVW Map"));
    assert!(!has(&cat, "modifier", "Mirror", "Box002"));
    let sean = gaps("biped/SeanConway_Character.max");
    assert!(!sean.iter().any(|g| g.class == "Symmetry"));
    // Saved in figure mode, its rig is at its figure at every tick, and its
    // Skins deform (tests/eval_biped_figure_mode.rs).
    assert!(!has(&sean, "modifier", "Skin", "Head"));
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
        let gates_only = maxfs_scene::check::check_bytes(&bytes, false);
        assert!(
            gates_only.unevaluated.is_empty(),
            "the gates alone evaluate nothing"
        );
        let report = maxfs_scene::check::check_bytes_with(
            &bytes,
            maxfs_scene::check::CheckOptions {
                container: false,
                coverage: Some(maxfs_scene::check::coverage),
            },
        );
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

/// Skin and Morpher evaluate (tests/eval_deform.rs): the Babylon rigs, the
/// morph cube and LD33's Skin over its CAT bones (tests/eval_cat.rs) report
/// no modifier. Skin over Biped bones fails at the ticks where those
/// bones' transforms are not evaluated, naming them.
#[test]
fn skin_and_morpher_are_evaluated_unless_their_bones_are_not() {
    for rel in [
        "babylon/RiggedElf.max",
        "babylon/RiggedFigure.max",
        "babylon/AnimatedMorphCube.max",
        "cat/LD33_Character.max",
    ] {
        let g = gaps(rel);
        assert!(g.iter().all(|x| x.role != "modifier"), "{rel}: {g:?}");
    }
    // RabbitSkin's Skin over Biped bones deforms where its bones evaluate
    // (tick 0: every limb held at an FK key) and is refused, naming the
    // bones' controllers, where one is not (50000: inside the right arm's
    // IK keys 49600 → 50400), and the bone is named in the gaps.
    let (rel, controller) = ("biped/RabbitSkin.max", "BipSlave Control");
    let g = gaps(rel);
    assert!(
        g.iter()
            .any(|x| x.role == "transform controller" && x.class.starts_with(controller)),
        "{rel}: {g:?}"
    );
    let doc = Document::open(&corpus_dir().join("max").join(rel)).unwrap();
    let eval = SceneEval::from_document(doc).unwrap();
    let node = eval
        .graph
        .nodes()
        .find(|(_, n)| n.name == "RabbitSkin")
        .map(|(o, _)| o.index)
        .unwrap();
    assert!(eval.mesh(node, 0).unwrap().is_ok(), "{rel}: tick 0");
    let err = eval.mesh(node, 50000).unwrap().unwrap_err();
    eprintln!("{rel} RabbitSkin t=50000: {err}");
    assert!(
        err.to_string().starts_with(
            "modifier Skin (0x95c723, 0x15666): Skin bones whose transforms are not evaluated: "
        ) && err.to_string().contains(controller),
        "{err}"
    );
}

/// A node whose own transform evaluates but whose parent's does not has a
/// wrong world transform too: it is named (role "inherited transform", with
/// the ancestor), never left at an identity parent silently. Over the whole
/// corpus, every node `tm_gaps` finds inexact appears in the gaps.
#[test]
fn nodes_under_an_unevaluated_parent_are_named() {
    use maxfs_scene::eval::core::coverage::tm_gaps;
    let mut inherited = 0;
    for p in corpus_max_files() {
        let eval = SceneEval::from_document(Document::open(&p).unwrap()).unwrap();
        let g = scene_gaps(&eval);
        // Named under an ancestor refused at tick 0 or at some frame of the
        // take (RabbitSkin's Hummer under Bip01 R Hand, between arm IK keys).
        inherited += g
            .iter()
            .filter(|x| x.role == "inherited transform")
            .map(|x| x.nodes.len())
            .sum::<usize>();
        for (o, n) in eval.graph.nodes() {
            if tm_gaps(&eval, o.index).is_empty() {
                continue;
            }
            let named = g.iter().any(|x| {
                x.nodes.contains(&n.name)
                    && (x.role.ends_with("controller") || x.role == "inherited transform")
            });
            assert!(named, "{}: {} is not named in {g:#?}", p.display(), n.name);
        }
    }
    assert!(
        inherited > 0,
        "no node under an unevaluated parent in the corpus"
    );
    // prims-pranto/animation.max: the snow man's Path Constraint is
    // evaluated, so neither it nor its children are named (with follow on it
    // is not, and they are: eval_path_constraint.rs).
    let anim = gaps("prims-pranto/animation.max");
    assert!(
        !anim.iter().any(|x| x.role == "inherited transform"
            || x.nodes.iter().any(|n| n == "snow man" || n == "Sphere011")),
        "{anim:#?}"
    );
}
