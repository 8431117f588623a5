//! The glTF exporter on arbitrary bytes: container, chunks, typed scene,
//! evaluation, then the scene's GLB (materials, textures looked for beside
//! nothing, skins, morphs, hidden nodes). Nothing may panic, and whatever is
//! written must be a GLB the `gltf` crate loads and validates (every index
//! inside its array, accessors inside their views), with each node's
//! `KHR_node_visibility` exactly `{"visible": false}`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use maxfs_exporters::gltf::{export_scene, glb};
use maxfs_scene::Document;

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Document::from_bytes(data) else {
        return;
    };
    let Ok(eval) = maxfs_scene::eval::SceneEval::from_document(doc) else {
        return;
    };
    let Ok(e) = export_scene(&eval) else {
        return;
    };
    gltf::Gltf::from_slice(&e.glb).expect("our GLB loads and validates");
    let (json, _) = glb::read(&e.glb).expect("a GLB");
    let root: serde_json::Value = serde_json::from_slice(json).expect("JSON");
    for n in root["nodes"].as_array().into_iter().flatten() {
        if let Some(v) = n.pointer("/extensions/KHR_node_visibility") {
            assert_eq!(v, &serde_json::json!({ "visible": false }), "{n}");
        }
    }
});
