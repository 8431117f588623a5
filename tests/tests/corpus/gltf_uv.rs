//! Texture coordinates in our GLB (issue 18 item 1): every primitive has the
//! TEXCOORD set its material's textures read, every node Babylon exports with
//! TEXCOORD_0 has it in ours with the same UVs, and a mesh with two map channels
//! (nebula2 example.max, channel 2 from a UVW Map) carries both.

use std::collections::BTreeSet;

use maxfs_exporters::gltf::glb;
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{accessor, Gltf, MODELS};
use serde_json::Value;

fn ours(rel: &str) -> (Value, Vec<u8>, Vec<String>) {
    let e = maxfs_tests::export_with_stand_in_images(&corpus_dir().join(rel));
    let (json, bin) = glb::read(&e.glb).expect("glb");
    (
        serde_json::from_slice(json).expect("json"),
        bin.to_vec(),
        e.warnings,
    )
}

/// TEXCOORD sets read by a material's textures.
fn sets_used(g: &Value, material: &Value) -> Vec<u64> {
    let m = &g["materials"][material.as_u64().unwrap_or(u64::MAX) as usize];
    [
        &m["pbrMetallicRoughness"]["baseColorTexture"],
        &m["emissiveTexture"],
        &m["normalTexture"],
        &m["occlusionTexture"],
        &m["pbrMetallicRoughness"]["metallicRoughnessTexture"],
    ]
    .into_iter()
    .filter(|t| t.is_object())
    .map(|t| t["texCoord"].as_u64().unwrap_or(0))
    .collect()
}

#[test]
fn every_textured_primitive_has_its_texcoord_set() {
    let (mut primitives, mut textured, mut failures) = (0, 0, Vec::new());
    for p in maxfs_tests::corpus_max_files() {
        let rel = p
            .strip_prefix(corpus_dir())
            .expect("in corpus")
            .display()
            .to_string();
        let e = maxfs_tests::export_with_stand_in_images(&p);
        let g = maxfs_tests::gltf_json(&e.glb);
        for mesh in g["meshes"].as_array().into_iter().flatten() {
            for prim in mesh["primitives"].as_array().into_iter().flatten() {
                primitives += 1;
                let used = sets_used(&g, &prim["material"]);
                textured += usize::from(!used.is_empty());
                for k in used {
                    if prim["attributes"][format!("TEXCOORD_{k}")].is_null() {
                        failures.push(format!(
                            "{rel}: mesh {} reads TEXCOORD_{k}, not written",
                            mesh["name"]
                        ));
                    }
                }
            }
        }
    }
    eprintln!("{primitives} primitives, {textured} textured");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // 104 measured (89 before PSD and DDS were decoded: their 15 primitives
    // had no texture).
    assert!(textured >= 104, "only {textured} textured primitives");
}

/// UV grid key (1e-4 cells).
fn key(uv: [f64; 2]) -> [i64; 2] {
    uv.map(|x| (x / 1e-4).round() as i64)
}

fn near(set: &BTreeSet<[i64; 2]>, uv: [f64; 2]) -> bool {
    let k = key(uv);
    (-1..=1).any(|a| (-1..=1).any(|b| set.contains(&[k[0] + a, k[1] + b])))
}

/// All UVs of a mesh's primitives' TEXCOORD_0, in Max's convention.
fn mesh_uvs(g: &Value, bin: &[u8], mesh: &Value, flip: fn(f64) -> f64) -> Option<Vec<[f64; 2]>> {
    let mut out = Vec::new();
    for prim in mesh["primitives"].as_array().into_iter().flatten() {
        let i = prim["attributes"]["TEXCOORD_0"].as_u64()? as usize;
        out.extend(accessor(g, bin, i).iter().map(|t| [t[0], flip(t[1])]));
    }
    Some(out)
}

#[test]
fn babylon_texcoords_are_in_our_glb() {
    let (mut nodes, mut uvs, mut failures) = (0, 0, Vec::new());
    for (model, gltf) in MODELS {
        let (g, bin, _) = ours(&format!("max/babylon/{model}.max"));
        let r = Gltf::open(gltf);
        for node in r.g["nodes"].as_array().into_iter().flatten() {
            let (Some(name), Some(mi)) = (node["name"].as_str(), node["mesh"].as_u64()) else {
                continue;
            };
            // Babylon writes V as −V, we as 1 − V.
            let Some(theirs) = mesh_uvs(&r.g, &r.bin, &r.g["meshes"][mi as usize], |v| -v) else {
                continue;
            };
            let Some(mine) = g["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|n| n["name"] == name && n["mesh"].is_u64())
                // A skinned mesh sits on its own root node (gltf/skin.rs).
                .or_else(|| {
                    g["nodes"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .find(|n| n["name"] == format!("{name}_skin").as_str())
                })
                .and_then(|n| n["mesh"].as_u64())
            else {
                failures.push(format!("{model}/{name}: no mesh in our GLB"));
                continue;
            };
            let Some(mine) = mesh_uvs(&g, &bin, &g["meshes"][mine as usize], |v| 1.0 - v) else {
                failures.push(format!(
                    "{model}/{name}: TEXCOORD_0 in Babylon's glTF, not in ours"
                ));
                continue;
            };
            let a: BTreeSet<_> = mine.iter().map(|&u| key(u)).collect();
            let b: BTreeSet<_> = theirs.iter().map(|&u| key(u)).collect();
            let missing = theirs.iter().filter(|&&u| !near(&a, u)).count();
            let extra = mine.iter().filter(|&&u| !near(&b, u)).count();
            nodes += 1;
            uvs += theirs.len();
            if missing + extra > 0 {
                failures.push(format!(
                    "{model}/{name}: {missing} of {} Babylon UVs not in ours, {extra} of {} ours not in Babylon's",
                    theirs.len(),
                    mine.len()
                ));
            }
        }
    }
    eprintln!("babylon TEXCOORD_0 in our GLB: {nodes} nodes, {uvs} UVs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(nodes >= 86, "only {nodes} nodes");
}

#[test]
fn two_map_channels_become_two_texcoord_sets() {
    let (g, bin, warnings) = ours("max/nebula2/example.max");
    let mesh = g["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| n["name"] == "Box01")
        .and_then(|n| n["mesh"].as_u64())
        .expect("Box01 has a mesh");
    let mut sets = BTreeSet::new();
    let mut differ = 0;
    for prim in g["meshes"][mesh as usize]["primitives"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let set = |k: &str| {
            let i = prim["attributes"][k]
                .as_u64()
                .unwrap_or_else(|| panic!("{k}"));
            accessor(&g, &bin, i as usize)
        };
        let (t0, t1) = (set("TEXCOORD_0"), set("TEXCOORD_1"));
        assert_eq!(t0.len(), t1.len());
        differ += t0.iter().zip(&t1).filter(|(a, b)| a != b).count();
        sets.extend(sets_used(&g, &prim["material"]));
    }
    // Channel 2 is another mapping (a UVW Map), not a copy of channel 1; the
    // diffuse texture reads channel 1. The bump map (channel 2, its UV
    // generator's 0x900b) has no glTF slot.
    assert!(differ > 0, "TEXCOORD_1 equals TEXCOORD_0");
    assert_eq!(sets, BTreeSet::from([0]));
    assert!(
        !warnings.iter().any(|w| w.contains("Box01")),
        "{warnings:?}"
    );
    let doc =
        maxfs_scene::Document::open(&corpus_dir().join("max/nebula2/example.max")).expect("max");
    let eval = maxfs_scene::eval::SceneEval::from_document(doc).expect("scene");
    let doc = &*eval.doc;
    let assets = maxfs_scene::eval::render::material::Assets::of(doc);
    let channels: BTreeSet<(String, Option<i32>)> =
        maxfs_fs::views::material_view::texmaps(&eval, &assets)
            .into_iter()
            .filter_map(|t| Some((t.file?, t.uv?.channel)))
            .map(|(f, c)| {
                (
                    maxfs_scene::eval::render::material::file_base(&f).to_string(),
                    c,
                )
            })
            .collect();
    assert!(
        channels.contains(&("wall_brick_b.png".into(), Some(2))),
        "{channels:?}"
    );
    assert!(
        channels.contains(&("atlanta.jpg".into(), Some(1))),
        "{channels:?}"
    );
}

/// The ChamferBox's generated mapping reaches the GLB: the TEXCOORD_0 of
/// Kenjis_Bed's and Kenjis_Sofa's ChamferBoxes (V back to Max's, 1 − v) as a
/// set equals the UVs of 3ds Max's FBX export of the same nodes (read with
/// ufbx), both ways within 1e-4.
#[test]
fn chamfer_box_texcoords_are_the_fbx_uvs() {
    let mut compared = 0;
    for (max, fbx) in [
        ("Kenjis_Bed.max", "Kenjis_Bed.FBX"),
        ("Kenjis_Sofa.max", "Kenjis_Sofa.FBX"),
    ] {
        let (g, bin, _) = ours(&format!("max/kenji-room/{max}"));
        let path = corpus_dir().join("ref/kenji-room").join(fbx);
        let scene = ufbx::load_file(path.to_str().expect("path"), ufbx::LoadOpts::default())
            .expect("fbx loads");
        for name in ["ChamferBox001", "ChamferBox002"] {
            let fm = scene
                .nodes
                .iter()
                .find(|n| n.element.name.as_ref() == name)
                .and_then(|n| n.mesh.as_ref())
                .expect("FBX mesh");
            let theirs: Vec<[f64; 2]> = fm.vertex_uv.values.iter().map(|t| [t.x, t.y]).collect();
            let mesh = g["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|n| n["name"] == name)
                .and_then(|n| n["mesh"].as_u64())
                .unwrap_or_else(|| panic!("{max} {name}: no mesh in our GLB"));
            let mine = mesh_uvs(&g, &bin, &g["meshes"][mesh as usize], |v| 1.0 - v)
                .unwrap_or_else(|| panic!("{max} {name}: no TEXCOORD_0"));
            let a: BTreeSet<_> = mine.iter().map(|&u| key(u)).collect();
            let b: BTreeSet<_> = theirs.iter().map(|&u| key(u)).collect();
            let missing = theirs.iter().filter(|&&u| !near(&a, u)).count();
            let extra = mine.iter().filter(|&&u| !near(&b, u)).count();
            eprintln!(
                "{max} {name}: {} FBX UVs, {missing} not in our TEXCOORD_0; {} ours, {extra} not in the FBX",
                theirs.len(),
                mine.len()
            );
            assert_eq!(missing + extra, 0, "{max} {name}");
            compared += 1;
        }
    }
    assert_eq!(compared, 4);
}
