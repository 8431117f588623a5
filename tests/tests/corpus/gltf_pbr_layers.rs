//! Physical Material's parameter table and its glTF layers against the FBX
//! Max 2024 wrote of the same scene (ref/max2024-rico/Shotgun.fbx, read with
//! ufbx). Max's FBX writer saves every value of a Physical Material by its
//! MAXScript name (`3dsMax|Parameters|<name>`): each one must equal the value
//! stored at the id `physical::PARAMS` gives that name (the FBX writes the
//! SSS scatter colour in percent and 0 for the thin film's thickness: the
//! first is scaled, the second not compared), and the exported
//! glTF must carry them as the extensions say — the Fresnel IOR
//! (`trans_ior`) as KHR_materials_ior, no KHR_materials_specular at full
//! white reflectivity, a clear coat, sheen or thin film only where the FBX
//! shows one, and transparency as KHR_materials_transmission (with
//! KHR_materials_volume from thin_walled, trans_depth and trans_color)
//! only where the FBX shows some.

use maxfs_scene::eval::core::pblock::{self, Value};
use maxfs_scene::eval::render::material;
use maxfs_scene::eval::render::physical::{PARAMS, PHYSICAL};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use serde_json::Value as Json;

const TOL: f64 = 1e-4;

/// The FBX value of `3dsMax|Parameters|<name>` as up to four numbers.
fn fbx_value(fm: &ufbx::Material, name: &str) -> Option<[f64; 4]> {
    let key = format!("3dsMax|Parameters|{name}");
    fm.element
        .props
        .props
        .iter()
        .find(|p| p.name.as_ref() as &str == key)
        .map(|p| {
            let v = p.value_vec4;
            [v.x, v.y, v.z, v.w]
        })
}

/// Differences between the stored value `v` and the FBX's `f`.
fn same(v: &Value, f: [f64; 4]) -> bool {
    let close = |a: f32, b: f64| (a as f64 - b).abs() <= TOL;
    match v {
        Value::Float(x) => close(*x, f[0]),
        Value::Int(x) => close(*x as f32, f[0]),
        Value::Bool(b) => close(f32::from(u8::from(*b)), f[0]),
        Value::Vector(c) => close(c[0], f[0]) && close(c[1], f[1]) && close(c[2], f[2]),
        _ => false,
    }
}

#[test]
fn physical_material_ids_and_layers_match_fbx() {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join("max/max2024-rico/Shotgun.max")).expect("Shotgun.max");
    let eval = SceneEval::from_document(doc).expect("scene graph");
    let scene = super::eval_fbx::load_fbx(&corpus.join("ref/max2024-rico/Shotgun.fbx"), 1.0);
    let search = maxfs_exporters::gltf::TextureSearch::default();
    let (mut materials, mut values) = (0, 0);
    for fm in scene.materials.iter() {
        if fbx_value(fm, "trans_ior").is_none() {
            continue; // not a Physical Material
        }
        let name: &str = fm.element.name.as_ref();
        let ours: Vec<usize> = (0..eval.graph.objects.len())
            .filter(|&i| {
                eval.graph.objects[i]
                    .class
                    .as_ref()
                    .is_some_and(|c| (c.class_id.0, c.class_id.1) == PHYSICAL)
                    && material::mtl_name(eval.chunks(i)).as_deref() == Some(name)
            })
            .collect();
        assert!(!ours.is_empty(), "no Physical Material named {name:?}");
        let mut mismatches = Vec::new();
        let mut best = usize::MAX;
        for &idx in &ours {
            let pbi = pblock::reference(&eval.graph, idx, 0).expect("block reference");
            let pb = pblock::param_block2(eval.chunks(pbi)).expect("block");
            let mut diffs = Vec::new();
            let mut n = 0;
            for (id, pname) in PARAMS {
                // The FBX writer writes 0 for the thin film's thickness
                // where the file keeps Max's default 555 nm (its place in
                // the order and that default pin id 81).
                if pname == "thin_film_thickness" {
                    continue;
                }
                let (Some(mut f), Some(p)) = (fbx_value(fm, pname), pb.param(id)) else {
                    continue;
                };
                // The scatter colour is written in percent.
                if pname == "sss_scatter_color" {
                    f = [f[0] / 100.0, f[1] / 100.0, f[2] / 100.0, f[3]];
                }
                n += 1;
                if !same(&p.value, f) {
                    diffs.push(format!("{pname} (id {id}): {:?}, FBX {f:?}", p.value));
                }
            }
            if diffs.len() < best {
                best = diffs.len();
                values = values.max(n);
                mismatches = diffs;
                if best == 0 {
                    // The glTF layers of this material against the FBX.
                    let (ms, _) = maxfs_exporters::gltf::materials_only(&eval, &search, &[idx]);
                    let g = serde_json::to_value(ms[0].clone().expect("material")).expect("json");
                    check_layers(fm, &g);
                }
            }
        }
        assert!(mismatches.is_empty(), "{name:?}: {mismatches:?}");
        materials += 1;
    }
    eprintln!("{materials} Physical Materials, {values} parameters each");
    assert!(materials >= 1 && values >= 49, "{materials} {values}");
}

fn check_layers(fm: &ufbx::Material, g: &Json) {
    let num = |n: &str| fbx_value(fm, n).map_or(0.0, |v| v[0]);
    let ext = &g["extensions"];
    let ior = ext["KHR_materials_ior"]["ior"].as_f64().unwrap_or(-1.0);
    assert!((ior - num("trans_ior")).abs() <= TOL, "{g}");
    let white = fbx_value(fm, "refl_color").is_some_and(|c| c[..3].iter().all(|&x| x == 1.0));
    assert_eq!(
        ext["KHR_materials_specular"].is_null(),
        white && num("reflectivity") == 1.0,
        "{g}"
    );
    if num("coating") > 0.0 {
        let c = &ext["KHR_materials_clearcoat"];
        let f = c["clearcoatFactor"].as_f64().unwrap_or(-1.0);
        assert!((f - num("coating")).abs() <= TOL, "{g}");
        let r = num("coat_roughness");
        let r = if num("coat_roughness_inv") != 0.0 {
            1.0 - r
        } else {
            r
        };
        let got = c["clearcoatRoughnessFactor"].as_f64().unwrap_or(-1.0);
        assert!((got - r).abs() <= TOL, "{g}");
    } else {
        assert!(ext["KHR_materials_clearcoat"].is_null(), "{g}");
    }
    assert_eq!(
        ext["KHR_materials_sheen"].is_null(),
        num("sheen") == 0.0,
        "{g}"
    );
    assert_eq!(
        ext["KHR_materials_iridescence"].is_null(),
        num("thin_film") == 0.0,
        "{g}"
    );
    // Refraction: transparency is the transmission's weight; a volume
    // unless thin-walled, attenuated to trans_color at trans_depth
    // (materials_only writes scene units: 1 m each).
    let t = num("transparency");
    let tr = &ext["KHR_materials_transmission"];
    assert_eq!(tr.is_null(), t == 0.0, "{g}");
    let vol = &ext["KHR_materials_volume"];
    if t > 0.0 {
        let f = tr["transmissionFactor"].as_f64().unwrap_or(-1.0);
        assert!((f - t).abs() <= TOL, "{g}");
        assert_eq!(vol.is_null(), num("thin_walled") != 0.0, "{g}");
        let depth = num("trans_depth");
        if depth > 0.0 && !vol.is_null() {
            let d = vol["attenuationDistance"].as_f64().unwrap_or(-1.0);
            assert!((d - depth).abs() <= TOL * depth.max(1.0), "{g}");
            let c = fbx_value(fm, "trans_color").unwrap_or_default();
            for k in 0..3 {
                let got = vol["attenuationColor"][k].as_f64().unwrap_or(-1.0);
                assert!((got - c[k]).abs() <= TOL, "{g}");
            }
        }
        assert_eq!(g["alphaMode"], "OPAQUE", "{g}");
    } else {
        assert!(vol.is_null(), "{g}");
    }
}
