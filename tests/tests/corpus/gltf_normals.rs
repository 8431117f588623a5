//! Vertex normals of our glTF against the Babylon.js exporter's glTF of the
//! same .max files: Babylon takes its normals from 3ds Max itself, so they
//! are Max's render normals (smoothing groups, weighting) as Max computed
//! them. Ours come from `eval::objects::normals`, the rule the NeL shapes use.

use std::collections::HashMap;

use maxfs_exporters::gltf::{export_scene, glb};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{accessor, Gltf, MODELS};
use serde_json::Value;

/// Position (relative to the bounding-box centre) and unit normal of every
/// vertex of a glTF mesh, in the mesh's own space. Both exporters bake the
/// object offset into the mesh with the same axes, but place the mesh
/// differently (Babylon re-orients nodes below lights and cameras), so the
/// meshes are compared centred in their own space.
fn mesh_vertices(g: &Value, bin: &[u8], mesh: usize) -> Vec<([f64; 3], [f64; 3])> {
    let mut out = Vec::new();
    for prim in g["meshes"][mesh]["primitives"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let attr = |k: &str| {
            prim["attributes"][k]
                .as_u64()
                .map(|i| accessor(g, bin, i as usize))
        };
        let (Some(pos), Some(nrm)) = (attr("POSITION"), attr("NORMAL")) else {
            continue;
        };
        for (p, n) in pos.iter().zip(&nrm) {
            let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            if l > 0.0 {
                out.push(([p[0], p[1], p[2]], [n[0] / l, n[1] / l, n[2] / l]));
            }
        }
    }
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for (p, _) in &out {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    for (p, _) in &mut out {
        for a in 0..3 {
            p[a] -= (lo[a] + hi[a]) / 2.0;
        }
    }
    out
}

/// Meshes whose normals are known not to match Babylon's. Empty: WaterBottle,
/// whose Editable Mesh stores specified normals (MeshNormalSpec), was 6.9° off
/// on average (up to 26°) with smoothing groups alone and now matches. Kept so
/// a known gap can be listed and the test notices when it closes.
const NOT_SMOOTHING_GROUP_NORMALS: &[&str] = &[];

#[test]
fn smooth_normals_match_babylon_gltf() {
    let (mut compared, mut worst, mut over) = (0usize, 0.0f64, Vec::new());
    let mut per: std::collections::BTreeMap<String, (usize, usize, f64)> = Default::default();
    for (model, rel) in MODELS {
        let doc =
            Document::open(&corpus_dir().join(format!("max/babylon/{model}.max"))).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let ours = export_scene(&eval).expect("glTF");
        let (json, bin) = glb::read(&ours.glb).expect("glb");
        let og: Value = serde_json::from_slice(json).expect("json");
        let Gltf { g, bin: their_bin } = Gltf::open(rel);
        for node in g["nodes"].as_array().into_iter().flatten() {
            let (Some(name), Some(mi)) = (node["name"].as_str(), node["mesh"].as_u64()) else {
                continue;
            };
            // Skinned meshes are placed by their joints, not their node.
            if !node["skin"].is_null() {
                continue;
            }
            let Some(on) = og["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|n| n["name"] == name && !n["mesh"].is_null())
            else {
                continue;
            };
            let theirs = mesh_vertices(&g, &their_bin, mi as usize);
            let mine = mesh_vertices(&og, bin, on["mesh"].as_u64().unwrap_or(0) as usize);
            let extent = theirs
                .iter()
                .flat_map(|(p, _)| p.iter().map(|x| x.abs()))
                .fold(1.0f64, f64::max);
            let tol = 1e-4 * extent;
            let cell = |p: &[f64; 3]| p.map(|x| (x / tol).floor() as i64);
            let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
            for (i, (p, _)) in mine.iter().enumerate() {
                grid.entry(cell(p)).or_default().push(i);
            }
            for (p, n) in &theirs {
                let c = cell(p);
                // Our vertices at this position (one per normal/UV split);
                // the best-aligned one is the corner Babylon wrote.
                let mut best: Option<f64> = None;
                for d in 0..27 {
                    let k = [c[0] + d % 3 - 1, c[1] + d / 3 % 3 - 1, c[2] + d / 9 - 1];
                    for &i in grid.get(&k).into_iter().flatten() {
                        let (q, m) = mine[i];
                        if (0..3).all(|a| (q[a] - p[a]).abs() <= tol) {
                            let cos = (n[0] * m[0] + n[1] * m[1] + n[2] * m[2]).clamp(-1.0, 1.0);
                            // (DoubleSidedMaterial: both write the back faces
                            // with negated normals, so they are compared too.)
                            let deg = cos.acos().to_degrees();
                            best = Some(best.map_or(deg, |b: f64| b.min(deg)));
                        }
                    }
                }
                let Some(deg) = best else { continue };
                compared += 1;
                worst = worst.max(deg);
                let e = per
                    .entry(format!("{model}/{name}"))
                    .or_insert((0usize, 0usize, 0.0f64));
                e.0 += 1;
                e.2 = e.2.max(deg);
                if deg > 0.5 {
                    e.1 += 1;
                    if !NOT_SMOOTHING_GROUP_NORMALS.contains(&format!("{model}/{name}").as_str()) {
                        over.push(format!("{model}/{name}: {deg:.3}° at {p:?}"));
                    }
                }
            }
        }
    }
    for (k, v) in &per {
        eprintln!("{k}: {} compared, {} over, worst {:.3}", v.0, v.1, v.2);
    }
    eprintln!(
        "{compared} Babylon vertices compared, worst normal {worst:.4}°, {} over 0.5°",
        over.len()
    );
    assert!(compared > 1000, "{compared} vertices compared");
    for known in NOT_SMOOTHING_GROUP_NORMALS {
        assert!(
            per.get(*known).is_some_and(|e| e.1 > 0),
            "{known} now matches: take it off NOT_SMOOTHING_GROUP_NORMALS"
        );
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}
