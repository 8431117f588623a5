//! Physical Material's roughness and metalness maps packed into glTF's one
//! metallic-roughness image, against Babylon.js's 3ds Max exporter:
//! WaterBottle.max (ref/babylon-gltf/WaterBottle, the same scene) — the
//! factors (1 and 1: the maps replace the values) and the texture slot
//! from Babylon's glTF; the texels from Babylon's packing rule (roughness
//! from the roughness image's green channel, metalness from the metalness
//! image's blue channel, the smaller size), applied to grey images of the
//! file's names written here (the corpus holds no images; for grey images
//! Max's RGB intensity, which we read, and Babylon's single channel agree).
//! Measured once on the real images (Babylon's samples; `metal_rough_compare`):
//! our texels equal Babylon's rule exactly; Babylon's stored JPEG differs
//! from its own rule by its compression only (mean 1.9 / 1.3 levels).
//! A missing image stays refused by name; the other map is still packed.

use maxfs_exporters::gltf::{glb, TextureSearch};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::{corpus_dir, gltf_texture_image};
use serde_json::Value;

/// A grey gradient image (distinct texels), written as `name` (JPEG by its
/// extension) into `dir`; returns it as decoded back.
fn grey(dir: &std::path::Path, name: &str, w: u32, h: u32, seed: u32) -> image::RgbImage {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        let v = ((x * 37 + y * 11 + seed) % 256) as u8;
        image::Rgb([v; 3])
    });
    let path = dir.join(name);
    img.save(&path).expect("image written");
    image::open(&path).expect("read back").to_rgb8()
}

/// Our GLB of WaterBottle.max with stand-in images plus the given grey
/// roughness / metalness images (`None`: that file removed).
fn export(
    rough: Option<(u32, u32)>,
    metal: Option<(u32, u32)>,
) -> (
    Value,
    Vec<u8>,
    Vec<String>,
    Option<image::RgbImage>,
    Option<image::RgbImage>,
) {
    let doc = Document::open(&corpus_dir().join("max/babylon/WaterBottle.max")).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let dir = maxfs_tests::stand_in_images(&eval);
    let place = |name: &str, size: Option<(u32, u32)>, seed| match size {
        Some((w, h)) => Some(grey(dir.path(), name, w, h, seed)),
        None => {
            let _ = std::fs::remove_file(dir.path().join(name));
            None
        }
    };
    let r = place("WaterBottle_Roughness.jpg", rough, 5);
    let m = place("WaterBottle_Metallic.jpg", metal, 90);
    let search = TextureSearch {
        max_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let e = maxfs_exporters::gltf::export_scene_with(&eval, &search).expect("export");
    let (json, bin) = glb::read(&e.glb).expect("glb");
    let g: Value = serde_json::from_slice(json).expect("json");
    (g, bin.to_vec(), e.warnings, r, m)
}

fn material<'a>(g: &'a Value, name: &str) -> &'a Value {
    g["materials"]
        .as_array()
        .and_then(|a| a.iter().find(|m| m["name"] == name))
        .unwrap_or_else(|| panic!("no material {name:?}"))
}

#[test]
fn waterbottle_maps_packed_as_babylon_does() {
    let babylon: Value = serde_json::from_slice(
        &std::fs::read(corpus_dir().join("ref/babylon-gltf/WaterBottle/WaterBottle.gltf"))
            .expect("babylon gltf"),
    )
    .expect("json");
    let theirs = &material(&babylon, "WaterBottleMat")["pbrMetallicRoughness"];
    let (g, bin, warnings, r, m) = export(Some((16, 8)), Some((16, 8)));
    let ours = &material(&g, "WaterBottleMat")["pbrMetallicRoughness"];
    for f in ["metallicFactor", "roughnessFactor"] {
        assert_eq!(
            ours[f].as_f64().unwrap_or(1.0),
            theirs[f].as_f64().unwrap_or(1.0),
            "{f}: {ours}"
        );
    }
    let t = &ours["metallicRoughnessTexture"];
    assert!(theirs["metallicRoughnessTexture"].is_object());
    assert_eq!(
        t["texCoord"].as_u64().unwrap_or(0),
        theirs["metallicRoughnessTexture"]["texCoord"]
            .as_u64()
            .unwrap_or(0)
    );
    assert!(
        !warnings
            .iter()
            .any(|w| w.contains("roughness") || w.contains("metalness")),
        "{warnings:?}"
    );
    let packed = gltf_texture_image(&g, &bin, t).expect("packed image");
    let (r, m) = (r.expect("roughness"), m.expect("metalness"));
    assert_eq!(packed.dimensions(), r.dimensions());
    for (x, y, p) in packed.enumerate_pixels() {
        // Babylon: G = roughness.G (no inversion: roughness_inv off), B = metal.B.
        assert_eq!(p.0[1], r.get_pixel(x, y).0[1], "G at {x},{y}");
        assert_eq!(p.0[2], m.get_pixel(x, y).0[2], "B at {x},{y}");
    }
}

#[test]
fn smaller_map_sets_the_size_and_a_missing_one_is_named() {
    // Sizes differ: the smaller width and height (Babylon's rule).
    let (g, bin, _, _, m) = export(Some((16, 8)), Some((8, 4)));
    let t = &material(&g, "WaterBottleMat")["pbrMetallicRoughness"]["metallicRoughnessTexture"];
    let packed = gltf_texture_image(&g, &bin, t).expect("packed image");
    assert_eq!(packed.dimensions(), m.expect("metalness").dimensions());
    // No roughness image: named, and the metalness alone is packed, the
    // roughness value carried by its factor (green full).
    let (g, bin, warnings, _, m) = export(None, Some((8, 4)));
    assert!(
        warnings.iter().any(|w| w.contains("WaterBottleMat")
            && w.contains("roughness map \"WaterBottle_Roughness.jpg\" not exported")),
        "{warnings:?}"
    );
    let pbr = &material(&g, "WaterBottleMat")["pbrMetallicRoughness"];
    assert_eq!(pbr["roughnessFactor"].as_f64().unwrap_or(1.0), 1.0);
    let packed = gltf_texture_image(&g, &bin, &pbr["metallicRoughnessTexture"]).expect("image");
    let m = m.expect("metalness");
    for (x, y, p) in packed.enumerate_pixels() {
        assert_eq!(p.0[1], 255);
        assert_eq!(p.0[2], m.get_pixel(x, y).0[2]);
    }
    // Neither image: no texture, both named.
    let (g, _, warnings, _, _) = export(None, None);
    let pbr = &material(&g, "WaterBottleMat")["pbrMetallicRoughness"];
    assert!(pbr["metallicRoughnessTexture"].is_null(), "{pbr}");
    assert_eq!(
        warnings
            .iter()
            .filter(|w| w.contains("WaterBottleMat") && w.contains(" map \"WaterBottle_"))
            .count(),
        2,
        "{warnings:?}"
    );
}
