//! Hidden nodes in the glTF export: `KHR_node_visibility` (ratified; the
//! Khronos validator of the test suite does not know it, so its form is
//! checked here). The hide flag is bit 0x40 of a node's flags chunk 0x0963
//! (the seed, S:279); Max hides the node alone, its children stay shown.
//!
//! - prims-pranto/1st_island.max: four rendered Lines are hidden (meshes)
//!   and two group heads (helpers, their members shown).
//! - babylon/AnimatedMeshCameraLight.max's AnimatedMesh (a keyed mesh with
//!   a child) hidden through the writer: its mesh moves to a hidden child
//!   node, its place, animation and child stay.
//! - biped/RabbitSkin.max's skinned mesh hidden through the writer: its
//!   glTF skin node hides.
//! - babylon/AnimatedMorphCube.max's Box001 given a child and hidden
//!   through the writer: its weights channel follows its mesh.

use std::collections::BTreeSet;

use maxfs_exporters::gltf::{export_scene, GltfExport};
use maxfs_scene::eval::SceneEval;
use maxfs_tests::corpus_eval;
use maxfs_tests::rewrite::SceneEdit;
use serde_json::Value;

fn root(e: &GltfExport) -> Value {
    maxfs_tests::gltf_json(&e.glb)
}

/// Names of the glTF nodes carrying the extension, each checked against
/// its schema (one boolean `visible`, written only when false).
fn hidden_nodes(root: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for n in root["nodes"].as_array().expect("nodes") {
        let Some(ext) = n.pointer("/extensions/KHR_node_visibility") else {
            continue;
        };
        assert_eq!(ext, &serde_json::json!({ "visible": false }), "{n}");
        out.insert(n["name"].as_str().expect("named").to_string());
    }
    if !out.is_empty() {
        let used = root["extensionsUsed"].as_array().expect("extensionsUsed");
        assert!(used.iter().any(|e| e == "KHR_node_visibility"), "{used:?}");
        // Optional: an importer without it shows the node, as Max's FBX does.
        assert!(root.get("extensionsRequired").is_none(), "{root}");
    }
    out
}

#[test]
fn hidden_meshes_are_invisible_and_hidden_helpers_leave_their_members_shown() {
    let eval = corpus_eval("max/prims-pranto/1st_island.max");
    let hidden: BTreeSet<String> = eval
        .graph
        .nodes()
        .filter(|(o, _)| eval.is_hidden(o.index))
        .map(|(_, n)| n.name.clone())
        .collect();
    let e = export_scene(&eval).expect("export");
    let root = root(&e);
    let nodes = root["nodes"].as_array().expect("nodes");
    let by_name = |name: &str| {
        nodes
            .iter()
            .position(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("{name} in the glTF"))
    };
    let lines: BTreeSet<String> = ["Line001", "Line002", "Line004", "Line005"]
        .map(String::from)
        .into();
    assert!(hidden.is_superset(&lines), "{hidden:?}");
    // Hidden, not dropped: each keeps its mesh, with nothing named.
    assert_eq!(hidden_nodes(&root), lines);
    for l in &lines {
        assert!(nodes[by_name(l)].get("mesh").is_some(), "{l}");
        assert!(!e.gaps().any(|g| g.contains(l.as_str())), "{l}");
    }
    // The hidden group heads carry no mesh and no extension: their
    // members, shown in Max, stay shown.
    let heads: Vec<&String> = hidden.difference(&lines).collect();
    assert!(!heads.is_empty(), "{hidden:?}");
    let mut members = 0;
    for h in heads {
        let n = &nodes[by_name(h)];
        assert!(n.get("mesh").is_none(), "{h}: {n}");
        for c in n["children"].as_array().into_iter().flatten() {
            let child = &nodes[c.as_u64().expect("index") as usize];
            if child.get("mesh").is_some() {
                members += 1;
            }
        }
    }
    assert!(members > 0, "the hidden heads hold shown meshes");
}

/// Sets the hide bit of `node` in its flags chunk.
fn hide(edit: &mut SceneEdit, node: usize) {
    let flags = edit.leaf(node, 0x0963).expect("node flags");
    let mut v = u32::from_le_bytes(flags[..4].try_into().expect("4 bytes"));
    v |= 0x40;
    let mut p = flags.clone();
    p[..4].copy_from_slice(&v.to_le_bytes());
    edit.set_leaf(node, 0x0963, p);
}

#[test]
fn a_hidden_node_with_children_hands_its_mesh_to_a_hidden_child() {
    let file = "max/babylon/AnimatedMeshCameraLight.max";
    let before = root(&export_scene(&corpus_eval(file)).expect("export"));
    let mut edit = SceneEdit::open(file);
    let node = edit.node("AnimatedMesh");
    hide(&mut edit, node);
    let eval = SceneEval::from_document(edit.finish()).expect("scene");
    assert!(eval.is_hidden(node));
    let e = export_scene(&eval).expect("export");
    gltf::Gltf::from_slice(&e.glb).expect("our GLB reads");
    let after = root(&e);
    assert_eq!(
        hidden_nodes(&after),
        ["AnimatedMesh_mesh".to_string()].into()
    );
    let find = |r: &Value, name: &str| {
        r["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .position(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let (i0, i) = (find(&before, "AnimatedMesh"), find(&after, "AnimatedMesh"));
    assert_eq!(i0, i, "Max nodes keep their glTF positions");
    let (was, now) = (&before["nodes"][i], &after["nodes"][i]);
    assert!(
        was.get("mesh").is_some() && now.get("mesh").is_none(),
        "{now}"
    );
    for k in ["translation", "rotation", "scale", "matrix"] {
        assert_eq!(was.get(k), now.get(k), "{k}");
    }
    // The old child stays, the carrier is added: identity, the old mesh.
    let kids = now["children"].as_array().expect("children");
    assert_eq!(
        kids.len(),
        was["children"].as_array().expect("one").len() + 1
    );
    assert_eq!(
        kids[..kids.len() - 1],
        was["children"].as_array().expect("c")[..]
    );
    let carrier = &after["nodes"][kids[kids.len() - 1].as_u64().expect("index") as usize];
    assert_eq!(carrier["name"], "AnimatedMesh_mesh");
    assert_eq!(carrier["mesh"], was["mesh"]);
    for k in ["translation", "rotation", "scale", "matrix", "children"] {
        assert!(carrier.get(k).is_none(), "{k}: {carrier}");
    }
    // The node's keys still move the node (and with it the carrier).
    let targets = |r: &Value| -> Vec<Value> {
        r["animations"][0]["channels"]
            .as_array()
            .expect("channels")
            .iter()
            .map(|c| c["target"].clone())
            .collect()
    };
    assert_eq!(targets(&before), targets(&after));
    assert!(targets(&after).iter().any(|t| t["node"] == i as u64));
    assert_eq!(e.gaps().count(), {
        let b = export_scene(&corpus_eval(file)).expect("export");
        b.gaps().count()
    });
}

/// biped/RabbitSkin.max's skinned mesh hidden through the writer: the glTF
/// skin node (a root of its own, not under the Max node) is what hides.
#[test]
fn a_hidden_skinned_mesh_hides_its_skin_node() {
    let mut edit = SceneEdit::open("max/biped/RabbitSkin.max");
    let node = edit.node("RabbitSkin");
    hide(&mut edit, node);
    let eval = SceneEval::from_document(edit.finish()).expect("scene");
    let e = export_scene(&eval).expect("export");
    gltf::Gltf::from_slice(&e.glb).expect("our GLB reads");
    let root = root(&e);
    assert_eq!(hidden_nodes(&root), ["RabbitSkin_skin".to_string()].into());
    let skin = root["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["name"] == "RabbitSkin_skin")
        .expect("the skin node");
    assert!(
        skin.get("skin").is_some() && skin.get("mesh").is_some(),
        "{skin}"
    );
}

/// babylon/AnimatedMorphCube.max's Box001 (a Morpher with keyed weights)
/// given Box002 as a child and hidden, both through the writer: its mesh
/// moves to a hidden child, and the weights channel follows the mesh there
/// (a weights channel must target the node holding the mesh).
#[test]
fn a_hidden_morphed_node_with_children_moves_its_weights_channel_too() {
    let file = "max/babylon/AnimatedMorphCube.max";
    let mut edit = SceneEdit::open(file);
    let (parent, child) = (edit.node("Box001"), edit.node("Box002"));
    let mut link = edit.leaf(child, 0x0960).expect("the parent chunk");
    link[..4].copy_from_slice(&(parent as u32).to_le_bytes());
    edit.set_leaf(child, 0x0960, link);
    hide(&mut edit, parent);
    let eval = SceneEval::from_document(edit.finish()).expect("scene");
    let e = export_scene(&eval).expect("export");
    gltf::Gltf::from_slice(&e.glb).expect("our GLB reads");
    let r = root(&e);
    assert_eq!(hidden_nodes(&r), ["Box001_mesh".to_string()].into());
    let nodes = r["nodes"].as_array().expect("nodes");
    let at = |name: &str| nodes.iter().position(|n| n["name"] == name).expect(name);
    let (box1, box2, carrier) = (at("Box001"), at("Box002"), at("Box001_mesh"));
    assert!(nodes[box1].get("mesh").is_none());
    let kids: Vec<u64> = nodes[box1]["children"]
        .as_array()
        .expect("children")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert_eq!(kids, [box2 as u64, carrier as u64]);
    let weights: Vec<u64> = r["animations"]
        .as_array()
        .expect("animations")
        .iter()
        .flat_map(|a| a["channels"].as_array().expect("channels").clone())
        .filter(|c| c["target"]["path"] == "weights")
        .filter_map(|c| c["target"]["node"].as_u64())
        .collect();
    assert!(weights.contains(&(carrier as u64)), "{weights:?}");
    assert!(!weights.contains(&(box1 as u64)), "{weights:?}");
    for w in weights {
        assert!(
            nodes[w as usize].get("mesh").is_some(),
            "channel on node {w}"
        );
    }
}
