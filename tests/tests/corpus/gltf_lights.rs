//! KHR_lights_punctual against the Babylon.js exporter's glTF of the same
//! scenes. Measured in the references: Babylon writes the Max multiplier
//! unchanged as `intensity` (LightOrientation's four Free Spots store 100000
//! and carry 100000; CustomAttributes' Free Direct 1 → 1), the colour
//! unchanged, `outerConeAngle` = falloff / 2, no `innerConeAngle`, and
//! `range` 3.4e38 (no cut-off) on spots without far attenuation.
//! AnimatedMeshCameraLight's reference has no lights at all (Babylon skipped
//! them), so it cannot be compared.

use maxfs_exporters::gltf::export_file;
use maxfs_tests::corpus_dir;
use serde_json::Value;

fn light_of<'a>(g: &'a Value, node: &Value) -> Option<&'a Value> {
    let i = node["extensions"]["KHR_lights_punctual"]["light"].as_u64()?;
    g["extensions"]["KHR_lights_punctual"]["lights"].get(i as usize)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-3 * a.abs().max(b.abs()).max(1e-9)
}

#[test]
fn light_intensities_match_babylon() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for (model, gltf) in [
        ("LightOrientation", "LightOrientation/LightOrientation.gltf"),
        ("CustomAttributes", "CustomAttributes/CustomAttributes.gltf"),
    ] {
        let path = corpus_dir().join("ref/babylon-gltf").join(gltf);
        let theirs: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("gltf")).expect("json");
        let e =
            export_file(&corpus_dir().join(format!("max/babylon/{model}.max"))).expect("export");
        let ours = maxfs_tests::gltf_json(&e.glb);
        for tn in theirs["nodes"].as_array().into_iter().flatten() {
            let Some(tl) = light_of(&theirs, tn) else {
                continue;
            };
            let name = tn["name"].as_str().unwrap_or_default();
            let want = format!("{name}_light");
            let Some(ol) = ours["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|n| n["name"].as_str() == Some(&want))
                .and_then(|n| light_of(&ours, n))
            else {
                failures.push(format!("{model}/{name}: no light of ours"));
                continue;
            };
            compared += 1;
            let num = |l: &Value, k: &str| l[k].as_f64().unwrap_or(1.0);
            if ol["type"] != tl["type"] {
                failures.push(format!(
                    "{model}/{name}: type {} vs {}",
                    ol["type"], tl["type"]
                ));
            }
            if !close(num(ol, "intensity"), num(tl, "intensity")) {
                failures.push(format!(
                    "{model}/{name}: intensity {} vs {}",
                    ol["intensity"], tl["intensity"]
                ));
            }
            for k in 0..3 {
                let c = |l: &Value| l["color"][k].as_f64().unwrap_or(1.0);
                if !close(c(ol), c(tl)) {
                    failures.push(format!(
                        "{model}/{name}: colour {} vs {}",
                        ol["color"], tl["color"]
                    ));
                }
            }
            if let Some(outer) = tl["spot"]["outerConeAngle"].as_f64() {
                let o = ol["spot"]["outerConeAngle"].as_f64().unwrap_or(f64::NAN);
                if !close(o, outer) {
                    failures.push(format!("{model}/{name}: outer cone {o} vs {outer}"));
                }
            }
            // No cut-off on either side: Babylon writes f32::MAX, we omit range.
            let their_range = tl["range"].as_f64().filter(|r| *r < 1e30);
            if their_range.is_some() != ol.get("range").is_some() {
                failures.push(format!(
                    "{model}/{name}: range {} vs {}",
                    ol["range"], tl["range"]
                ));
            }
        }
    }
    eprintln!("lights vs Babylon: {compared} compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        compared, 5,
        "LightOrientation's 4 spots and CustomAttributes' direct light"
    );
}
