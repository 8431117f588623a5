//! Physical / PBR materials and opacity in the glTF export.
//!
//! - WaterBottle.max (Physical Material) against the Babylon.js exporter's glTF
//!   of the same file: metallic and roughness factors (Babylon copies Max's
//!   metalness and roughness for this material; 1e-6), the base colour texture
//!   (presence: Babylon bakes a new image) and the emissive image's file name.
//!   By design not compared: Babylon turns the plain Bitmap on the bump slot
//!   into a normal map and writes emissive factor 1 although the emission
//!   weight is 0; Max renders that bitmap as a height bump and no emission, so
//!   we write neither and name the bump map in the warnings.
//! - NewModularWallWindowCorner.max (PBR Material Metal/Rough): the cutout map
//!   makes the material MASK, the Normal Bump's bitmap is the normal texture
//!   with the bump amount as scale, the roughness Bitmap is packed into the
//!   metallic-roughness image, and the displacement map that glTF cannot
//!   hold is named in the warnings. Expected values are
//!   the file's stored ones (its FBX lists no materials).
//! - Wire_Fence.max (Standard with an enabled opacity map): BLEND.

use maxfs_exporters::gltf::{self, TextureSearch};
use maxfs_fs::views::material_view;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use serde_json::Value;

fn ours(rel: &str) -> (Value, Vec<String>) {
    let e = maxfs_tests::export_with_stand_in_images(&corpus_dir().join("max").join(rel));
    (maxfs_tests::gltf_json(&e.glb), e.warnings)
}

fn material<'a>(g: &'a Value, name: &str) -> &'a Value {
    g["materials"]
        .as_array()
        .and_then(|a| a.iter().find(|m| m["name"] == name))
        .unwrap_or_else(|| panic!("no glTF material {name:?}"))
}

/// The image name (ours) or uri (Babylon) of texture info `t`.
fn image_of(g: &Value, t: &Value) -> Option<String> {
    let src = g["textures"][t["index"].as_u64()? as usize]["source"].as_u64()?;
    let img = &g["images"][src as usize];
    img["name"]
        .as_str()
        .or(img["uri"].as_str())
        .map(str::to_string)
}

#[test]
fn physical_material_matches_babylon() {
    let (g, _) = ours("babylon/WaterBottle.max");
    let path = corpus_dir().join("ref/babylon-gltf/WaterBottle/WaterBottle.gltf");
    let b: Value =
        serde_json::from_slice(&std::fs::read(path).expect("babylon gltf")).expect("json");
    let ours = material(&g, "WaterBottleMat");
    let theirs = material(&b, "WaterBottleMat");
    for f in ["metallicFactor", "roughnessFactor"] {
        let o = ours["pbrMetallicRoughness"][f].as_f64().unwrap_or(1.0);
        let t = theirs["pbrMetallicRoughness"][f].as_f64().unwrap_or(1.0);
        assert!((o - t).abs() < 1e-6, "{f}: ours {o}, Babylon {t}");
    }
    assert!(ours["pbrMetallicRoughness"]["baseColorTexture"].is_object());
    assert!(theirs["pbrMetallicRoughness"]["baseColorTexture"].is_object());
    let emissive = |g: &Value, m: &Value| image_of(g, &m["emissiveTexture"]);
    assert_eq!(emissive(&g, ours), emissive(&b, theirs));
    assert_eq!(
        emissive(&g, ours).as_deref(),
        Some("WaterBottle_Emissive.png")
    );
    assert_eq!(ours["alphaMode"], theirs["alphaMode"]);
}

/// The glTF materials (as JSON) of the Max materials named `names` in `rel`,
/// exported without geometry with stand-in images, and the warnings.
fn materials_only(rel: &str, names: &[&str]) -> (Vec<Value>, Vec<String>) {
    let doc = Document::open(&corpus_dir().join("max").join(rel)).expect(rel);
    let eval = SceneEval::from_document(doc).expect("scene");
    let all = material_view::materials(&eval);
    let idx: Vec<usize> = names
        .iter()
        .map(|n| {
            all.iter()
                .find(|m| m.name == *n && !m.nodes.is_empty())
                .unwrap_or_else(|| panic!("{rel}: no material {n:?} on a node"))
                .index
        })
        .collect();
    let dir = maxfs_tests::stand_in_images(&eval);
    let search = TextureSearch {
        max_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let (ms, warnings) = gltf::materials_only(&eval, &search, &idx);
    let ms = ms
        .into_iter()
        .map(|m| serde_json::to_value(m.expect("a material")).expect("json"))
        .collect();
    (ms, warnings)
}

#[test]
fn pbr_metal_rough_cutout_normal_and_named_maps() {
    // Its meshes carry a Shell modifier (not evaluated): the material alone.
    let (ms, warnings) = materials_only(
        "max2024-rico/NewModularWallWindowCorner.max",
        &["Material #2"],
    );
    let m = &ms[0];
    assert_eq!(m["alphaMode"], "MASK", "{m}");
    let pbr = &m["pbrMetallicRoughness"];
    assert!(pbr["baseColorTexture"].is_object(), "{m}");
    assert!(m["normalTexture"].is_object(), "{m}");
    assert_eq!(m["normalTexture"]["scale"].as_f64().unwrap_or(1.0), 1.0);
    assert_eq!(pbr["metallicFactor"].as_f64().unwrap_or(1.0), 0.0);
    // The roughness Bitmap is packed (green), the map replacing the value.
    assert!(pbr["metallicRoughnessTexture"].is_object(), "{m}");
    assert_eq!(pbr["roughnessFactor"].as_f64().unwrap_or(0.0), 1.0);
    assert!(
        !warnings.iter().any(|w| w.contains("roughness map")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("Material #2") && w.contains("displacement map")),
        "displacement map not named: {warnings:?}"
    );
    assert!(
        !warnings.iter().any(|w| w.contains("not embedded")),
        "{warnings:?}"
    );
}

#[test]
fn standard_opacity_map_blends() {
    let (ms, _) = materials_only("kenji-room/Wire_Fence.max", &["Material #25"]);
    assert_eq!(ms[0]["alphaMode"], "BLEND", "{}", ms[0]);
    // A material without transparency or opacity map stays opaque.
    let (ms, _) = materials_only("kenji-room/Kenjis_Bed.max", &["Material #2"]);
    assert_eq!(ms[0]["alphaMode"], "OPAQUE", "{}", ms[0]);
}
