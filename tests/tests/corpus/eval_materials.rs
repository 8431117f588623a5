//! Materials, texmaps, lights and cameras against independent exports of the same
//! .max files: the Babylon.js exporter's glTF, 3ds Max's own ASE and kW X-port's
//! DirectX .x / COLLADA .dae.
//!
//! Tolerances: colours and angles 1e-4 (the references print 6-9 digits of f32
//! values), ASE values 6e-5 (4 decimals), .x values 1e-5 (6 decimals).
//!
//! Fields that cannot match by design, and are not compared:
//! - glTF `baseColorTexture` / `images[].uri` of diffuse maps: Babylon bakes the
//!   diffuse map (with opacity) into a new `<material>_baseColor.<ext>` image, so
//!   only the presence of a diffuse Bitmap map is checked; emissive textures are
//!   copied as they are, so their file names are compared.
//! - glTF `emissiveFactor` of Standard materials: Babylon writes 127/255 grey
//!   whatever the stored self-illumination colour or amount (0.506 and 0.486 in
//!   Emissive.max both export as 0.498), so it is not a stored value.
//! - glTF `roughnessFactor`/`metallicFactor`: derived by Babylon's
//!   specular-to-PBR conversion (version dependent).
//! - glTF camera `znear`/`zfar`: Babylon writes its own defaults (0.1 / 10000), not
//!   Max's clipping planes (1 / 1000 in the file).
//! - glTF camera `yfov`: Max stores the horizontal FOV; the vertical one depends on
//!   the render aspect, which Babylon takes as 4:3 — compared under that assumption.
//! - The ASE files of the assimp set list no materials (MATERIAL_COUNT 0); only the
//!   camera is compared there.

use std::collections::BTreeMap;

use maxfs_fs::views::material_view::{self, MaterialSummary};
use maxfs_scene::eval::render::material::{self, Assets};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use serde_json::Value;

const TOL: f64 = 1e-4;

struct Scene {
    materials: Vec<MaterialSummary>,
    cameras: Vec<maxfs_scene::eval::render::camera::Camera>,
    lights: Vec<maxfs_scene::eval::render::light::Light>,
}

fn load(rel: &str) -> Scene {
    let doc = Document::open(&corpus_dir().join("max").join(rel)).expect(rel);
    let eval = SceneEval::from_document(doc).expect("scene graph");
    let doc = &*eval.doc;
    let assets = Assets::of(doc);
    let s = Scene {
        materials: material_view::materials_with_assets(&eval, &assets),
        cameras: material_view::cameras(&eval),
        lights: material_view::lights(&eval),
    };
    // The summaries serialize, deterministically.
    let a = serde_json::to_string(&s.materials).unwrap();
    let b = serde_json::to_string(&material_view::materials_with_assets(&eval, &assets)).unwrap();
    assert_eq!(a, b, "{rel}: material JSON not deterministic");
    for m in &s.materials {
        assert!(
            m.errors.is_empty(),
            "{rel}: material {}: {:?}",
            m.name,
            m.errors
        );
    }
    s
}

fn gltf(rel: &str) -> Value {
    let p = corpus_dir().join("ref/babylon-gltf").join(rel);
    serde_json::from_str(&std::fs::read_to_string(&p).expect(rel)).expect(rel)
}

fn f3(v: &Value) -> Option<[f64; 3]> {
    let a = v.as_array()?;
    Some([
        a.first()?.as_f64()?,
        a.get(1)?.as_f64()?,
        a.get(2)?.as_f64()?,
    ])
}

fn close3(a: [f32; 3], b: [f64; 3], tol: f64) -> bool {
    (0..3).all(|i| (a[i] as f64 - b[i]).abs() <= tol)
}

/// The Max material a glTF material stands for: same name, preferring one that a
/// node uses (the material editor's slots may hold unused namesakes).
fn by_name<'a>(s: &'a Scene, name: &str) -> Option<&'a MaterialSummary> {
    let used: Vec<usize> = s
        .materials
        .iter()
        .filter(|m| !m.nodes.is_empty())
        .flat_map(|m| std::iter::once(m.index).chain(m.sub_materials.iter().flatten().copied()))
        .collect();
    let named = || s.materials.iter().filter(|m| m.name == name);
    named()
        .find(|m| used.contains(&m.index))
        .or_else(|| named().next())
}

#[derive(Default, Debug)]
struct Counts {
    materials: usize,
    base_colors: usize,
    diffuse_maps: usize,
    emissive_maps: usize,
}

fn check_gltf_materials(max: &str, gl: &str) -> Counts {
    let s = load(max);
    let doc = gltf(gl);
    let images: Vec<String> = doc["images"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i["uri"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    let tex_uri = |t: &Value| -> Option<String> {
        let src = doc["textures"][t["index"].as_u64()? as usize]["source"].as_u64()?;
        images.get(src as usize).cloned()
    };
    let mut c = Counts::default();
    for gm in doc["materials"].as_array().into_iter().flatten() {
        let name = gm["name"].as_str().unwrap_or("");
        let m = by_name(&s, name).unwrap_or_else(|| panic!("{max}: no material {name:?}"));
        c.materials += 1;
        let pbr = &gm["pbrMetallicRoughness"];
        if pbr.get("baseColorTexture").is_some() {
            assert!(
                m.maps
                    .iter()
                    .any(|r| r.slot == "diffuse" && r.class == "Bitmap"),
                "{max}: {name}: glTF has a base colour texture, Max no diffuse bitmap: {:?}",
                m.maps
            );
            c.diffuse_maps += 1;
        } else if let Some(want) = f3(&pbr["baseColorFactor"]) {
            let got = m
                .diffuse
                .unwrap_or_else(|| panic!("{max}: {name}: no diffuse"));
            assert!(
                close3(got, want, TOL),
                "{max}: {name}: diffuse {got:?}, glTF base colour {want:?}"
            );
            c.base_colors += 1;
        }
        if let Some(t) = gm.get("emissiveTexture") {
            let uri = tex_uri(t).expect("emissive texture uri");
            let ours = m
                .maps
                .iter()
                .find(|r| r.slot == "self_illumination")
                .and_then(|r| r.file.clone());
            assert_eq!(
                ours.as_deref(),
                Some(material::file_base(&uri)),
                "{max}: {name}: emissive texture"
            );
            c.emissive_maps += 1;
        }
    }
    eprintln!("{max}: {c:?}");
    c
}

#[test]
fn babylon_materials_match_gltf() {
    let cases = [
        ("babylon/Emissive.max", "Emissive/Emission.gltf"),
        (
            "babylon/CartoonHouses.max",
            "CartoonHouses/CartoonHouses.gltf",
        ),
        (
            "babylon/LightOrientation.max",
            "LightOrientation/LightOrientation.gltf",
        ),
        (
            "babylon/DoubleSidedMaterial.max",
            "DoubleSidedMaterial/DoubleSidedMaterial.gltf",
        ),
        (
            "babylon/CubesImageFormat.max",
            "CubesImageFormat/CubesImageFormat.gltf",
        ),
        ("babylon/Instances.max", "Instances/Instances.gltf"),
    ];
    let mut total = Counts::default();
    for (max, gl) in cases {
        let c = check_gltf_materials(max, gl);
        total.materials += c.materials;
        total.base_colors += c.base_colors;
        total.diffuse_maps += c.diffuse_maps;
        total.emissive_maps += c.emissive_maps;
    }
    eprintln!("total: {total:?}");
    assert!(total.materials >= 15, "{total:?}");
    assert!(total.emissive_maps >= 2, "{total:?}");
}

#[test]
fn babylon_lights_match_gltf() {
    let s = load("babylon/LightOrientation.max");
    let doc = gltf("LightOrientation/LightOrientation.gltf");
    let lights = doc["extensions"]["KHR_lights_punctual"]["lights"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut n = 0;
    for node in doc["nodes"].as_array().into_iter().flatten() {
        let Some(li) = node["extensions"]["KHR_lights_punctual"]["light"].as_u64() else {
            continue;
        };
        let gl = &lights[li as usize];
        let name = node["name"].as_str().unwrap_or("");
        let l = s
            .lights
            .iter()
            .find(|l| l.node.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no Max light on node {name}"));
        let kind = match l.kind.as_str() {
            "omni" => "point",
            k => k,
        };
        assert_eq!(Some(kind), gl["type"].as_str(), "{name}: type");
        assert!(
            close3(l.color.expect("colour"), f3(&gl["color"]).unwrap(), TOL),
            "{name}: colour {:?}",
            l.color
        );
        let want = gl["intensity"].as_f64().unwrap();
        assert!(
            (l.multiplier.unwrap() as f64 - want).abs() <= want * 1e-6,
            "{name}: multiplier {:?} vs intensity {want}",
            l.multiplier
        );
        if let Some(outer) = gl["spot"]["outerConeAngle"].as_f64() {
            let half = (l.falloff.unwrap() as f64 / 2.0).to_radians();
            assert!(
                (half - outer).abs() <= TOL,
                "{name}: falloff {:?}° vs outer cone {outer} rad",
                l.falloff
            );
        }
        n += 1;
    }
    eprintln!("LightOrientation: {n} lights compared");
    assert_eq!(n, 4);
}

#[test]
fn babylon_cameras_match_gltf() {
    let s = load("babylon/AnimatedMeshCameraLight.max");
    let doc = gltf("AnimatedMeshCameraLight/AnimatedMeshCameraLight.gltf");
    let cams = doc["cameras"].as_array().cloned().unwrap_or_default();
    let mut n = 0;
    for node in doc["nodes"].as_array().into_iter().flatten() {
        let Some(ci) = node["camera"].as_u64() else {
            continue;
        };
        let name = node["name"].as_str().unwrap_or("");
        let c = s
            .cameras
            .iter()
            .find(|c| c.node.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no Max camera on node {name}"));
        let yfov = cams[ci as usize]["perspective"]["yfov"].as_f64().unwrap();
        let h = c.fov.expect("fov") as f64;
        let v = 2.0 * ((h / 2.0).tan() * 3.0 / 4.0).atan();
        assert!(
            (v - yfov).abs() <= TOL,
            "{name}: vertical fov {v} vs {yfov}"
        );
        if c.kind == "target" {
            assert!(c.target.is_some(), "{name}: target camera without target");
        }
        n += 1;
    }
    eprintln!("AnimatedMeshCameraLight: {n} cameras compared");
    assert_eq!(n, 5);
}

fn ase_value(text: &str, tag: &str) -> Option<f64> {
    text.lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix(tag))
        .and_then(|v| v.trim().parse().ok())
}

#[test]
fn ase_camera_matches() {
    let s = load("assimp/CameraRollAnim.max");
    let text = std::fs::read_to_string(corpus_dir().join("ref/assimp/CameraRollAnim.ase")).unwrap();
    assert!(text.contains("*MATERIAL_COUNT 0"));
    let c = s
        .cameras
        .iter()
        .find(|c| c.node.as_deref() == Some("Camera01"))
        .expect("Camera01");
    assert_eq!(c.kind, "target");
    assert_eq!(c.target.as_deref(), Some("Camera01.Target"));
    for (tag, got) in [
        ("*CAMERA_FOV", c.fov),
        // ASE's NEAR/FAR are the environment ranges (clipping would be HITHER/YON).
        ("*CAMERA_NEAR", c.near_range),
        ("*CAMERA_FAR", c.far_range),
    ] {
        let want = ase_value(&text, tag).expect(tag);
        let got = got.unwrap_or_else(|| panic!("{tag}: not decoded")) as f64;
        assert!(
            (got - want).abs() <= 6e-5 * want.abs().max(1.0),
            "{tag}: {got} vs {want}"
        );
    }
    // *CAMERA_TDIST is the distance to the (animated) target at t = 0, not the
    // stored target-distance parameter of a target camera — not compared.
}

/// `Material name { r;g;b;a;; power; sr;sg;sb;; er;eg;eb;; TextureFilename {"…";} }`
fn x_materials(text: &str) -> BTreeMap<String, (Vec<f64>, String)> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines().map(str::trim);
    while let Some(l) = lines.next() {
        let Some(rest) = l.strip_prefix("Material ") else {
            continue;
        };
        let name = rest.trim_end_matches('{').trim().to_string();
        let mut nums = Vec::new();
        let mut file = String::new();
        for l in lines.by_ref() {
            if l.starts_with('}') {
                break;
            }
            if l.starts_with('"') {
                file = l.trim_matches(|c| c == '"' || c == ';').to_string();
            }
            nums.extend(l.split(';').filter_map(|w| w.trim().parse::<f64>().ok()));
        }
        out.insert(name, (nums, file));
    }
    out
}

#[test]
fn kwxport_materials_match_x_and_dae() {
    let s = load("misc/kwxport_cube.max");
    let text = std::fs::read_to_string(corpus_dir().join("ref/kwxport/cube.x")).unwrap();
    let dae = std::fs::read_to_string(corpus_dir().join("ref/kwxport/cube.dae")).unwrap();
    let xm = x_materials(&text);
    assert_eq!(xm.len(), 3, "{xm:?}");
    let multi = s
        .materials
        .iter()
        .find(|m| m.nodes.iter().any(|n| n == "Box01"))
        .expect("Box01's material");
    assert_eq!(multi.class, "Multi/Sub-Object");
    assert_eq!(multi.sub_materials.len(), 3);
    let mut n = 0;
    for sub in multi.sub_materials.iter().flatten() {
        let m = s.materials.iter().find(|m| m.index == *sub).unwrap();
        let (nums, file) = xm
            .get(&m.name)
            .unwrap_or_else(|| panic!("{} not in .x", m.name));
        // face colour RGBA, power, specular RGB, emissive RGB
        assert_eq!(nums.len(), 11, "{}: {nums:?}", m.name);
        let d = m.diffuse.unwrap();
        assert!(
            close3(d, [nums[0], nums[1], nums[2]], 1e-5),
            "{}: diffuse {d:?}",
            m.name
        );
        assert!((m.opacity.unwrap() as f64 - nums[3]).abs() <= 1e-5);
        // kW X-port writes power = glossiness × 100 and specular = level as grey.
        assert!((m.glossiness.unwrap() as f64 * 100.0 - nums[4]).abs() <= 1e-4);
        let lvl = m.specular_level.unwrap() as f64;
        assert!(
            (0..3).all(|i| (lvl - nums[5 + i]).abs() <= 1e-5),
            "{}",
            m.name
        );
        let si = m.self_illum_amount.unwrap() as f64;
        assert!(
            (0..3).all(|i| (si - nums[8 + i]).abs() <= 1e-5),
            "{}",
            m.name
        );
        let ours = m
            .maps
            .iter()
            .find(|r| r.slot == "diffuse")
            .and_then(|r| r.file.clone());
        assert_eq!(
            ours.as_deref(),
            Some(material::file_base(file)),
            "{}",
            m.name
        );
        assert!(dae.contains(&format!("<init_from>{}</init_from>", ours.unwrap())));
        n += 1;
    }
    eprintln!("kwxport_cube: {n} sub-materials compared");
    assert_eq!(n, 3);
}

#[test]
fn every_corpus_file_decodes_materials_without_panic() {
    let mut mats = 0;
    let mut errs = Vec::new();
    for p in maxfs_tests::corpus_max_files() {
        let Ok(doc) = Document::open(&p) else {
            continue;
        };
        let Ok(eval) = SceneEval::from_document(doc) else {
            continue;
        };
        let assets = Assets::of(&eval.doc);
        for m in material_view::materials_with_assets(&eval, &assets) {
            mats += 1;
            errs.extend(
                m.errors
                    .iter()
                    .map(|e| format!("{}: {}: {e}", p.display(), m.name)),
            );
        }
        material_view::texmaps(&eval, &assets);
        material_view::cameras(&eval);
        material_view::lights(&eval);
    }
    eprintln!("{mats} materials, {} errors", errs.len());
    assert!(errs.is_empty(), "{errs:#?}");
}
