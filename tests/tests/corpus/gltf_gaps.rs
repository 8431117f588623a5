//! A glTF export that leaves something out or bakes it (a light glTF cannot
//! hold, a Skin baked at frame 0, a map slot with no counterpart) is partial:
//! the part is named in `GltfExport::approximated`, in `maxfs export`'s node
//! errors and in `export/errors.txt`, never only in a warning.

use std::path::Path;

use maxfs_exporters::gltf::export_scene;
use maxfs_fs::tree::{MaxFs, Options};
use maxfs_scene::eval::modifier::skin::SKIN;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::{corpus_dir, corpus_max_files};
use serde_json::Value;

/// Superclass of lights.
const SC_LIGHT: u32 = 0x30;

/// The glTF JSON of a GLB.
fn json_of(glb: &[u8]) -> Value {
    let g = gltf::Gltf::from_slice(glb).expect("our GLB reads");
    serde_json::to_value(g.document.into_json()).expect("json")
}

#[test]
fn every_light_and_skin_is_exported_or_named_as_a_gap() {
    let (mut lights, mut skins, mut named) = (0, 0, 0);
    let mut failures = Vec::new();
    for p in corpus_max_files() {
        let doc = Document::open(&p).expect("opens");
        let eval = SceneEval::from_document(doc).expect("scene");
        let e = export_scene(&eval).expect("glTF");
        for a in &e.approximated {
            assert!(
                e.warnings.contains(a),
                "{}: {a} is not a warning",
                p.display()
            );
        }
        let g = json_of(&e.glb);
        let empty = Vec::new();
        let nodes = g["nodes"].as_array().unwrap_or(&empty);
        let gltf_node = |name: &str| nodes.iter().find(|n| n["name"] == name);
        let gap = |name: &str| {
            let prefix = format!("{name}: ");
            e.approximated.iter().any(|a| a.starts_with(&prefix))
        };
        for (o, n) in eval.graph.nodes() {
            let class = eval
                .node_object(o.index)
                .and_then(|b| eval.graph.objects.get(b))
                .and_then(|b| b.class.as_ref());
            if class.is_some_and(|c| c.super_class == SC_LIGHT) {
                lights += 1;
                // The light sits on the node itself or on a child turning
                // Max's light axis into glTF's.
                let is_light =
                    |j: &Value| !j["extensions"]["KHR_lights_punctual"]["light"].is_null();
                let as_light = gltf_node(&n.name).is_some_and(|j| {
                    is_light(j)
                        || j["children"].as_array().is_some_and(|c| {
                            c.iter()
                                .filter_map(|i| nodes.get(i.as_u64().unwrap_or(u64::MAX) as usize))
                                .any(is_light)
                        })
                });
                named += usize::from(!as_light && gap(&n.name));
                if !as_light && !gap(&n.name) {
                    failures.push(format!(
                        "{}: light {} neither exported nor named",
                        p.display(),
                        n.name
                    ));
                }
            }
            let has_skin = eval
                .modifier_stack(o.index)
                .is_some_and(|(s, _)| s.iter().any(|a| a.class == SKIN));
            // A Skin whose mesh does not evaluate is a dropped mesh (eval_drops.rs).
            if has_skin && matches!(eval.mesh(o.index, 0), Some(Ok(_))) {
                skins += 1;
                // glTF ignores a skinned node's transform, so the skinned
                // mesh is a root node of its own (`<name>_skin`).
                let skinned = nodes.iter().any(|j| {
                    !j["skin"].is_null()
                        && (j["name"] == n.name.as_str() || j["name"] == format!("{}_skin", n.name))
                });
                named += usize::from(!skinned && gap(&n.name));
                if !skinned && !gap(&n.name) {
                    failures.push(format!(
                        "{}: Skin of {} neither a glTF skin nor named",
                        p.display(),
                        n.name
                    ));
                }
            }
        }
    }
    eprintln!("{lights} lights, {skins} evaluated Skins, {named} of them named as gaps");
    assert!(lights > 0 && skins > 0, "the corpus has lights and Skins");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_skin_baked_at_frame_0_makes_the_file_partial_in_errors_txt() {
    // Blue's root joint carries a shear at some frame: glTF's TRS joints
    // cannot hold it, so the skin is baked (gltf/skin.rs).
    let src = corpus_dir().join("max/ik-ld35/Blue@Spawn.max");
    let doc = Document::open(&src).expect("opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let e = export_scene(&eval).expect("glTF");
    let baked: Vec<_> = e
        .approximated
        .iter()
        .filter(|a| a.starts_with("Blue: Skin exported as its mesh deformed at frame 0"))
        .collect();
    assert_eq!(baked.len(), 1, "{:?}", e.approximated);

    let dir = tempfile::tempdir().expect("tmp");
    std::fs::copy(&src, dir.path().join("Blue@Spawn.max")).expect("copy");
    let tree = MaxFs::new(dir.path(), Options::default());
    let errors = String::from_utf8(
        tree.read(Path::new("Blue@Spawn.max/export/errors.txt"))
            .expect("errors.txt"),
    )
    .expect("utf8");
    assert!(
        errors
            .lines()
            .any(|l| l == format!("gltf\t-\t{}", baked[0])),
        "errors.txt:\n{errors}"
    );
}

/// Roles of [`maxfs_scene::eval::core::coverage::Gap`] that place a node.
const TRANSFORM_ROLES: [&str; 6] = [
    "transform controller",
    "position controller",
    "rotation controller",
    "scale controller",
    "float controller",
    "inherited transform",
];

#[test]
fn every_node_with_a_transform_not_evaluated_is_named_in_errors_txt() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for p in corpus_max_files() {
        let doc = Document::open(&p).expect("opens");
        let eval = SceneEval::from_document(doc).expect("scene");
        // The nodes `maxfs check` and info.json name for their transforms.
        let nodes: Vec<String> = maxfs_scene::eval::core::coverage::scene_gaps(&eval)
            .into_iter()
            .filter(|g| TRANSFORM_ROLES.contains(&g.role))
            .flat_map(|g| g.nodes)
            .collect();
        if nodes.is_empty() {
            continue;
        }
        let dir = tempfile::tempdir().expect("tmp");
        let name = p.file_name().expect("file name");
        std::fs::copy(&p, dir.path().join(name)).expect("copy");
        let tree = MaxFs::new(dir.path(), Options::default());
        let errors = tree
            .read(&Path::new(name).join("export/errors.txt"))
            .expect("errors.txt");
        let errors = String::from_utf8_lossy(&errors);
        for n in nodes {
            checked += 1;
            let named = errors
                .lines()
                .any(|l| l.starts_with("gltf\t") && l.contains(&format!("{n}: ")));
            if !named {
                failures.push(format!("{}: {n} not in errors.txt", p.display()));
            }
        }
    }
    eprintln!("{checked} nodes with transforms not evaluated");
    assert!(
        checked > 0,
        "the corpus has such nodes (ShoulderBone's Float Script)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
