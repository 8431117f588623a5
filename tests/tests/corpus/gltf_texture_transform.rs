//! Bitmap placement in our GLBs against the values 3ds Max stored (issue 18
//! item 3): for every corpus Bitmap that becomes a glTF texture, the
//! sampler's wrap modes follow its stored tiling flags (chunk 0x9002: tile U/V
//! bits 1/2, mirror 4/8), and `KHR_texture_transform` is present exactly when
//! the stored offset / tiling / W angle is not the identity. The Max → glTF
//! matrix itself is checked against the specification's T·R·S matrix in the
//! exporter's unit tests (no corpus Bitmap has a non-identity placement and no
//! reference writes the extension; this test says so if that changes).

use maxfs_scene::eval::render::material as mtl;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::{corpus_dir, corpus_max_files};
use serde_json::Value;

const REPEAT: u64 = 10497;
const MIRRORED: u64 = 33648;
const CLAMP: u64 = 33071;

#[test]
fn wrap_modes_and_transforms_follow_the_stored_placement() {
    let (mut textures, mut flags_seen, mut non_identity) = (0, Vec::new(), 0);
    let mut failures = Vec::new();
    for p in corpus_max_files() {
        let rel = p
            .strip_prefix(corpus_dir())
            .unwrap_or(&p)
            .display()
            .to_string();
        let eval = SceneEval::from_document(Document::open(&p).expect("opens")).expect("scene");
        let assets = mtl::Assets::of(&eval.doc);
        // Stored placement per image base name (a base name with differing
        // placements is skipped: textures are matched by image name).
        let mut by_name: std::collections::BTreeMap<String, Vec<mtl::UvGen>> = Default::default();
        for i in 0..eval.graph.objects.len() {
            if let Some(t) = mtl::texmap(&eval, i, &assets) {
                if let (Some(f), Some(uv)) = (t.file, t.uv) {
                    by_name
                        .entry(mtl::file_base(&f).to_string())
                        .or_default()
                        .push(uv);
                }
            }
        }
        let e = maxfs_tests::export_with_stand_in_images(&p);
        let g = maxfs_tests::gltf_json(&e.glb);
        let infos: Vec<&Value> = g["materials"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|m| {
                [
                    &m["pbrMetallicRoughness"]["baseColorTexture"],
                    &m["emissiveTexture"],
                    &m["normalTexture"],
                ]
            })
            .filter(|t| t.is_object())
            .collect();
        for info in infos {
            let tex = &g["textures"][info["index"].as_u64().expect("index") as usize];
            let image = &g["images"][tex["source"].as_u64().expect("source") as usize];
            let name = image["name"].as_str().expect("image name");
            let Some(uvs) = by_name.get(name) else {
                failures.push(format!("{rel}: image {name} of no Bitmap"));
                continue;
            };
            if uvs.iter().any(|u| u != &uvs[0]) {
                continue;
            }
            let uv = &uvs[0];
            textures += 1;
            let flags = uv
                .tiling
                .expect("every corpus Bitmap stores its tiling flags");
            flags_seen.push(flags & 0xf);
            let mode = |tile: u32, mirror: u32| {
                if flags & mirror != 0 {
                    MIRRORED
                } else if flags & tile != 0 {
                    REPEAT
                } else {
                    CLAMP
                }
            };
            let sampler = &g["samplers"][tex["sampler"].as_u64().expect("sampler") as usize];
            let got = |k: &str| sampler[k].as_u64().unwrap_or(REPEAT);
            if (got("wrapS"), got("wrapT")) != (mode(1, 4), mode(2, 8)) {
                failures.push(format!(
                    "{rel} {name}: sampler {sampler} for flags {flags:#x}"
                ));
            }
            let off = |v: Option<f32>, id: f32| v.is_some_and(|x| (x - id).abs() > 1e-6);
            let identity = !(off(uv.u_offset, 0.0)
                || off(uv.v_offset, 0.0)
                || off(uv.u_tiling, 1.0)
                || off(uv.v_tiling, 1.0)
                || off(uv.angle_uvw[2], 0.0)
                || flags & 0xc != 0);
            non_identity += usize::from(!identity);
            let has = info["extensions"]["KHR_texture_transform"].is_object();
            if has == identity {
                failures.push(format!(
                    "{rel} {name}: KHR_texture_transform {has} for stored {uv:?}"
                ));
            }
        }
    }
    flags_seen.sort_unstable();
    flags_seen.dedup();
    eprintln!("{textures} textures, {non_identity} with a placement, tiling flags {flags_seen:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 48 measured, all with tiling flags 3 (tile U and V) and no placement.
    assert!(textures >= 48, "only {textures} textures compared");
}
