//! A node's visibility track (its reference 4): `json/nodes.json` shows its
//! value at frame 0 and whether it changes. The glTF export hides a node
//! whose track stays at 0 (`KHR_node_visibility`) and names one the track
//! fades or animates (`export/errors.txt`), shown whole: never silently.
//!
//! - babylon/CartoonHouses.max: Sky001 (a light) holds a constant 0 track
//!   (Babylon's glTF of the file writes that node without a mesh). A light's
//!   visibility changes nothing rendered: shown in nodes.json, not named.
//! - assimp/RotatingCube.max's Box01 given, through the writer, a keyed
//!   Bezier Float of the same file (values −0.142 … 0.827) and then
//!   neloid/block.max's key-less one set to 0, then to 0.5.

use maxfs_exporters::gltf::export_scene;
use maxfs_fs::views::scene_summary::node_transforms;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::rewrite::SceneEdit;

fn open(rel: &str) -> SceneEval {
    SceneEval::from_document(Document::open(&corpus_dir().join(rel)).expect("opens"))
        .expect("scene")
}

#[test]
fn a_lights_visibility_track_is_shown_not_named() {
    let eval = open("max/babylon/CartoonHouses.max");
    let nodes = node_transforms(&eval);
    let with: Vec<_> = nodes.iter().filter(|n| n.visibility.is_some()).collect();
    assert_eq!(with.len(), 1, "{with:?}");
    let v = with[0].visibility.as_ref().expect("a track");
    assert_eq!(with[0].name, "Sky001");
    assert_eq!((v.value, v.animated), (Some(0.0), false), "{v:?}");
    let e = export_scene(&eval).expect("export");
    assert!(
        !e.gaps().any(|g| g.contains("visibility")),
        "{:?}",
        e.gaps().collect::<Vec<_>>()
    );
}

/// RotatingCube's keyed Bezier Float (object 355: −0.142 at frame 0).
const KEYED_FLOAT: usize = 355;
/// block.max's key-less Bezier Float (a Position XYZ axis; its value the
/// leaf 0x2501).
const KEYLESS_FLOAT: usize = 354;

#[test]
fn a_geometry_nodes_visibility_track_is_shown_and_named() {
    let mut edit = SceneEdit::open("max/assimp/RotatingCube.max");
    let node = edit.node("Box01");
    edit.set_reference(node, 4, KEYED_FLOAT as i32);
    let eval = SceneEval::from_document(edit.finish()).expect("scene");
    let nodes = node_transforms(&eval);
    let b = nodes.iter().find(|n| n.name == "Box01").expect("Box01");
    let v = b.visibility.as_ref().expect("a track");
    assert!(v.animated, "{v:?}");
    assert!(
        (v.value.expect("evaluated") + 0.142_486).abs() < 1e-5,
        "{v:?}"
    );
    let e = export_scene(&eval).expect("export");
    assert!(
        e.gaps()
            .any(|g| g.starts_with("Box01: animated visibility track")),
        "{:?}",
        e.gaps().collect::<Vec<_>>()
    );

    for (value, gap) in [
        (0f32, None),
        (
            0.5,
            Some("Box01: visibility 0.5 (a fade) not exported (glTF shows the node whole)"),
        ),
    ] {
        let mut edit = SceneEdit::open("max/assimp/RotatingCube.max");
        let mut block = SceneEdit::open("max/neloid/block.max");
        let copied = edit.transplant(&mut block, KEYLESS_FLOAT)[0].1;
        edit.set_leaf(copied, 0x2501, value.to_le_bytes().to_vec());
        let node = edit.node("Box01");
        edit.set_reference(node, 4, copied as i32);
        let eval = SceneEval::from_document(edit.finish()).expect("scene");
        let nodes = node_transforms(&eval);
        let b = nodes.iter().find(|n| n.name == "Box01").expect("Box01");
        let v = b.visibility.as_ref().expect("a track");
        assert_eq!((v.value, v.animated), (Some(value as f64), false), "{v:?}");
        let e = export_scene(&eval).expect("export");
        let gaps: Vec<&String> = e.gaps().filter(|g| g.contains("visibility")).collect();
        assert_eq!(gaps, gap.iter().collect::<Vec<_>>());
        let root = maxfs_tests::gltf_json(&e.glb);
        let box01 = root["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .find(|n| n["name"] == "Box01")
            .expect("Box01 in the glTF");
        assert!(box01.get("mesh").is_some(), "{box01}");
        let ext = box01.pointer("/extensions/KHR_node_visibility");
        match gap {
            None => assert_eq!(ext, Some(&serde_json::json!({ "visible": false }))),
            Some(_) => assert_eq!(ext, None),
        }
    }
}
