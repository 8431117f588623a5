//! Node transforms against the Babylon.js exporter's glTF of the same .max files.
//!
//! Axis conversion: Max is Z-up right-handed, glTF Y-up right-handed; a Max point
//! (x, y, z) is the glTF point (x, z, −y). A Max row-vector world matrix M (3×3
//! part) and translation t become A·Mᵀ·Aᵀ and A·t with A that mapping.

use maxfs_scene::eval::core::transform::invert;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{
    accessor, gltf_worlds, local, max_to_gltf, reoriented, reoriented_ancestor, Gltf, M4, MODELS,
    SINGLE_CLIP,
};
use serde_json::Value;

fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-4 * scale.max(1.0)
}

/// Compares every sampled value of a single-clip glTF animation with our local
/// transform at that time; returns (samples compared, mismatches).
fn compare_animation(model: &str, gltf: &str) -> (usize, Vec<String>) {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join(format!("max/babylon/{model}.max"))).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let graph = &*eval.graph;
    let Gltf { g, bin } = Gltf::open(gltf);
    let mut compared = 0;
    let mut bad = Vec::new();
    for anim in g["animations"].as_array().into_iter().flatten() {
        for ch in anim["channels"].as_array().into_iter().flatten() {
            let node = &g["nodes"][ch["target"]["node"].as_u64().expect("node") as usize];
            let name = node["name"].as_str().unwrap_or_default();
            let Some((o, _)) = graph.nodes().find(|(_, n)| n.name == name) else {
                continue;
            };
            if reoriented(graph, o.index) {
                continue;
            }
            let sampler = &anim["samplers"][ch["sampler"].as_u64().expect("sampler") as usize];
            let times = accessor(&g, &bin, sampler["input"].as_u64().expect("input") as usize);
            let values = accessor(
                &g,
                &bin,
                sampler["output"].as_u64().expect("output") as usize,
            );
            let what = ch["target"]["path"].as_str().unwrap_or_default();
            for (t, v) in times.iter().zip(&values) {
                let ticks = (t[0] * 4800.0).round() as i32;
                let ours = max_to_gltf(&eval.local_tm(o.index, ticks));
                compared += 1;
                let ok = match what {
                    "translation" => (0..3).all(|i| close(ours[i][3], v[i], v[i].abs())),
                    "rotation" | "scale" => {
                        // Compare the whole 3×3 with glTF's local T·R·S at this time.
                        let mut n = node.clone();
                        n[what] = Value::from(v.clone());
                        let other = if what == "rotation" {
                            "scale"
                        } else {
                            "rotation"
                        };
                        if let Some(oc) = anim["channels"].as_array().and_then(|cs| {
                            cs.iter().find(|c| {
                                c["target"]["node"] == ch["target"]["node"]
                                    && c["target"]["path"] == other
                            })
                        }) {
                            let s2 = &anim["samplers"]
                                [oc["sampler"].as_u64().expect("sampler") as usize];
                            let t2 =
                                accessor(&g, &bin, s2["input"].as_u64().expect("input") as usize);
                            let v2 =
                                accessor(&g, &bin, s2["output"].as_u64().expect("output") as usize);
                            if let Some(k) = t2.iter().position(|x| (x[0] - t[0]).abs() < 1e-6) {
                                n[other] = Value::from(v2[k].clone());
                            }
                        }
                        let lm = local(&n);
                        (0..3).all(|i| (0..3).all(|j| close(ours[i][j], lm[i][j], lm[i][j].abs())))
                    }
                    _ => true,
                };
                if !ok {
                    bad.push(format!(
                        "{name}.{what} at {ticks}: ours {:?} gltf {v:?}",
                        ours
                    ));
                }
            }
        }
    }
    (compared, bad)
}

struct Outcome {
    compared: usize,
    translation_bad: Vec<String>,
    rotation_bad: Vec<String>,
    missing: Vec<String>,
}

fn compare(model: &str, gltf: &str) -> Outcome {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join(format!("max/babylon/{model}.max"))).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let graph = &*eval.graph;
    let g: Value = serde_json::from_str(
        &std::fs::read_to_string(corpus.join("ref/babylon-gltf").join(gltf)).expect("gltf"),
    )
    .expect("gltf json");
    let worlds = gltf_worlds(&g);
    let mut out = Outcome {
        compared: 0,
        translation_bad: Vec::new(),
        rotation_bad: Vec::new(),
        missing: Vec::new(),
    };
    for (name, gw) in &worlds {
        let Some((o, _)) = graph.nodes().find(|(_, n)| &n.name == name) else {
            out.missing.push(name.clone());
            continue;
        };
        out.compared += 1;
        let ow = max_to_gltf(&eval.world_tm(o.index, 0));
        let scale = (0..3).fold(1.0f64, |m, i| m.max(gw[i][3].abs()));
        if !(0..3).all(|i| close(ow[i][3], gw[i][3], scale)) {
            out.translation_bad.push(format!(
                "{name}: ours {:?} gltf {:?}",
                [ow[0][3], ow[1][3], ow[2][3]],
                [gw[0][3], gw[1][3], gw[2][3]]
            ));
        }
        if !(0..3).all(|i| (0..3).all(|j| close(ow[i][j], gw[i][j], 1.0))) {
            out.rotation_bad.push(name.clone());
        }
    }
    out
}

#[test]
fn world_transforms_match_babylon_gltf() {
    let mut failures = Vec::new();
    let mut total = 0;
    for (model, gltf) in MODELS {
        let corpus = corpus_dir();
        let doc = Document::open(&corpus.join(format!("max/babylon/{model}.max"))).expect("max");
        let typed = doc.typed();
        let graph = typed.scene.as_ref().expect("scene");
        let o = compare(model, gltf);
        total += o.compared;
        assert!(o.compared > 0, "{model}: nothing compared");
        // Babylon adds a "Default light" node to scenes without lights; nothing else may be missing.
        for m in &o.missing {
            if m != "Default light" {
                failures.push(format!("{model}: glTF node {m:?} has no Max node"));
            }
        }
        failures.extend(
            o.translation_bad
                .iter()
                .map(|t| format!("{model}: translation {t}")),
        );
        for r in &o.rotation_bad {
            let (node, _) = graph
                .nodes()
                .find(|(_, n)| &n.name == r)
                .expect("compared node exists");
            if !reoriented(graph, node.index) {
                failures.push(format!("{model}: rotation of {r}"));
            }
        }
    }
    eprintln!("babylon world transforms: {total} nodes compared");
    assert!(total > 150, "only {total} nodes compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Single-clip animations; RiggedElf and RiggedFigure hold several clips cut from
/// Max's timeline by the exporter's animation groups, whose offsets are not in the glTF.
#[test]
fn animation_samples_match_babylon_gltf() {
    let mut total = 0;
    let mut failures = Vec::new();
    for &(model, gltf) in SINGLE_CLIP {
        let (n, bad) = compare_animation(model, gltf);
        total += n;
        failures.extend(bad.into_iter().map(|b| format!("{model}: {b}")));
    }
    eprintln!("babylon animation: {total} samples compared");
    assert!(total > 50, "only {total} samples compared");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// glTF mesh nodes this comparison does not check, with the reason (none since
/// Skin and Morpher are evaluated). Anything else that fails to evaluate or
/// differs is a failure, and a listed node that matches fails too.
const NOT_COMPARED: &[(&str, &str, &str)] = &[];

/// World-space positions of a glTF mesh (all primitives) and its triangle count.
fn gltf_mesh(g: &Value, bin: &[u8], mesh: usize, world: &M4) -> (Vec<[f64; 3]>, usize) {
    let mut positions = Vec::new();
    let mut triangles = 0;
    for prim in g["meshes"][mesh]["primitives"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let pos = accessor(
            g,
            bin,
            prim["attributes"]["POSITION"].as_u64().expect("pos") as usize,
        );
        positions.extend(pos.iter().map(|p| {
            [0, 1, 2]
                .map(|i| world[i][0] * p[0] + world[i][1] * p[1] + world[i][2] * p[2] + world[i][3])
        }));
        triangles += g["accessors"][prim["indices"].as_u64().expect("indices") as usize]["count"]
            .as_u64()
            .unwrap_or(0) as usize
            / 3;
    }
    (positions, triangles)
}

/// Points of `a` with no point of `b` within `tol` on every axis (a grid of
/// `tol`-sized cells keeps this linear).
fn unmatched(a: &[[f64; 3]], b: &[[f64; 3]], tol: f64) -> usize {
    use std::collections::HashMap;
    let cell = |p: &[f64; 3]| p.map(|x| (x / tol).floor() as i64);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, p) in b.iter().enumerate() {
        grid.entry(cell(p)).or_default().push(i);
    }
    a.iter()
        .filter(|p| {
            let c = cell(p);
            let mut found = false;
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let key = [c[0] + dx, c[1] + dy, c[2] + dz];
                        found |= grid.get(&key).is_some_and(|l| {
                            l.iter()
                                .any(|&j| (0..3).all(|k| (p[k] - b[j][k]).abs() <= tol))
                        });
                    }
                }
            }
            !found
        })
        .count()
}

/// Every glTF mesh node against our evaluated mesh — the whole modifier stack at
/// time 0, placed by the object TM — in world space: equal triangle counts and
/// equal position sets within 1e-4 of the mesh's extent (at least 1). Babylon
/// splits vertices by normal and UV, so only the sets are compared.
#[test]
fn evaluated_meshes_match_babylon_gltf() {
    let (mut nodes, mut vertices, mut relative) = (0, 0, 0);
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    for (model, gltf) in MODELS {
        let corpus = corpus_dir();
        let doc = Document::open(&corpus.join(format!("max/babylon/{model}.max"))).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let graph = &*eval.graph;
        let Gltf { g, bin } = Gltf::open(gltf);
        let worlds = gltf_worlds(&g);
        for node in g["nodes"].as_array().into_iter().flatten() {
            let (Some(name), Some(mi)) = (node["name"].as_str(), node["mesh"].as_u64()) else {
                continue;
            };
            let reason = NOT_COMPARED
                .iter()
                .find(|(m, n, _)| m == model && *n == name)
                .map(|e| e.2);
            let Some((o, _)) = graph.nodes().find(|(_, n)| n.name == name) else {
                failures.push(format!("{model}/{name}: no Max node"));
                continue;
            };
            let mesh = match eval.mesh(o.index, 0) {
                Some(Ok(m)) => m,
                other => {
                    let why = match other {
                        Some(Err(e)) => e.to_string(),
                        _ => "not a mesh object".into(),
                    };
                    match reason {
                        Some(r) => skipped.push(format!("{model}/{name}: {r} ({why})")),
                        None => failures.push(format!("{model}/{name}: {why}")),
                    }
                    continue;
                }
            };
            let (theirs, triangles) = gltf_mesh(&g, &bin, mi as usize, &worlds[name]);
            // The exporter writes a double-sided material's back faces as extra triangles.
            let factor = if *model == "DoubleSidedMaterial" {
                2
            } else {
                1
            };
            // Below a camera or light, Babylon replaces the light's rotation and
            // either compensates in the children (LightOrientation) or keeps their
            // Max local transforms (AnimatedMeshCameraLight). The second case is
            // compared relative to that node, put where the glTF has it.
            let otm = eval.object_tm(o.index, 0);
            let world: Vec<[f64; 3]> = mesh
                .vertices
                .iter()
                .map(|v| {
                    let w = otm.transform_point(*v);
                    [w.0, w.2, -w.1]
                })
                .collect();
            let anchored = reoriented_ancestor(graph, o.index).and_then(|a| {
                let name = &graph.objects[a].node.as_ref()?.name;
                let (inv, gw) = (invert(&eval.world_tm(a, 0)), worlds.get(name)?);
                Some(
                    mesh.vertices
                        .iter()
                        .map(|v| {
                            let r = inv.transform_point(otm.transform_point(*v));
                            let p = [r.0, r.2, -r.1];
                            [0, 1, 2].map(|i| {
                                gw[i][0] * p[0] + gw[i][1] * p[1] + gw[i][2] * p[2] + gw[i][3]
                            })
                        })
                        .collect::<Vec<_>>(),
                )
            });
            let extent = theirs.iter().flatten().fold(1.0f64, |m, v| m.max(v.abs()));
            let tol = 1e-4 * extent;
            let count =
                |ours: &[[f64; 3]]| (unmatched(ours, &theirs, tol), unmatched(&theirs, ours, tol));
            let (mut uo, mut ut) = count(&world);
            if let (Some(a), true) = (&anchored, uo + ut > 0) {
                let (ao, at) = count(a);
                if ao + at == 0 {
                    (uo, ut) = (0, 0);
                    relative += 1;
                }
            }
            let ours = world;
            let faces_ok = triangles == factor * mesh.faces.len();
            let ok = faces_ok && uo + ut == 0;
            if let (Some(r), false) = (reason, ok) {
                skipped.push(format!("{model}/{name}: {r} (differs)"));
                continue;
            }
            if let Some(r) = reason {
                failures.push(format!(
                    "{model}/{name}: listed as not compared ({r}) but matches"
                ));
            }
            nodes += 1;
            vertices += ours.len();
            if !faces_ok {
                failures.push(format!(
                    "{model}/{name}: {} faces, glTF {triangles} triangles",
                    mesh.faces.len()
                ));
            }
            if uo + ut > 0 {
                failures.push(format!(
                    "{model}/{name}: {uo} of {} vertices unmatched, {ut} of {} glTF positions unmatched",
                    ours.len(),
                    theirs.len()
                ));
            }
        }
    }
    eprintln!(
        "babylon meshes: {nodes} nodes ({relative} placed below their light), {vertices} vertices compared; not compared:"
    );
    for s in &skipped {
        eprintln!("  {s}");
    }
    assert!(nodes >= 86, "only {nodes} meshes compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn mesh_view_summarises_editable_meshes() {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join("max/babylon/CartoonHouses.max")).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let meshes = maxfs_fs::views::scene_summary::meshes(&eval);
    let rdc = meshes.iter().find(|m| m.name == "rdc").expect("rdc");
    assert_eq!((rdc.vertices, rdc.faces), (291, 457));
    assert_eq!(rdc.map_channels, [1]);
    assert!(rdc.error.is_none() && !rdc.has_modifiers);
    assert!(meshes.iter().all(|m| m.error.is_none()), "{meshes:?}");
}

/// Triangle indices of a glTF primitive (u8, u16 or u32).
fn indices(g: &Value, bin: &[u8], index: usize) -> Vec<usize> {
    let acc = &g["accessors"][index];
    let size = match acc["componentType"].as_u64() {
        Some(5121) => 1,
        Some(5123) => 2,
        Some(5125) => 4,
        other => panic!("index type {other:?}"),
    };
    let view = &g["bufferViews"][acc["bufferView"].as_u64().expect("view") as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    (0..acc["count"].as_u64().expect("count") as usize)
        .map(|i| {
            let b = &bin[start + i * size..start + (i + 1) * size];
            b.iter()
                .rev()
                .fold(0usize, |n, &x| (n << 8) | usize::from(x))
        })
        .collect()
}

fn unit_normal(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> [f64; 3] {
    let (u, v) = (
        [0, 1, 2].map(|i| b[i] - a[i]),
        [0, 1, 2].map(|i| c[i] - a[i]),
    );
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt().max(1e-300);
    n.map(|x| x / l)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Smoothing groups of the parametric primitives against Babylon's normals:
/// a triangle is flat-shaded when all its corner normals are its face normal.
/// In Max that is a face sharing no smoothing group with a neighbour at an
/// angle; the counts of flat triangles must agree per node.
#[test]
fn primitive_smoothing_groups_match_babylon_normals() {
    let primitives = ["Box", "Sphere", "Cylinder", "Cone", "Pyramid", "Plane"];
    let (mut nodes, mut flat_total) = (0, 0);
    let mut failures = Vec::new();
    for (model, gltf) in MODELS {
        let corpus = corpus_dir();
        let doc = Document::open(&corpus.join(format!("max/babylon/{model}.max"))).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let graph = &*eval.graph;
        let Gltf { g, bin } = Gltf::open(gltf);
        for node in g["nodes"].as_array().into_iter().flatten() {
            let (Some(name), Some(mi)) = (node["name"].as_str(), node["mesh"].as_u64()) else {
                continue;
            };
            let Some((o, _)) = graph.nodes().find(|(_, n)| n.name == name) else {
                continue;
            };
            let Some((stack, base)) = eval.modifier_stack(o.index) else {
                continue;
            };
            let class = graph.objects[base].class.as_ref().map(|c| c.name.as_str());
            if !stack.is_empty() || !class.is_some_and(|c| primitives.contains(&c)) {
                continue;
            }
            let mesh = eval.mesh(o.index, 0).expect("primitive").expect("mesh");
            // Ours: flat unless a neighbour sharing a group bit is at an angle.
            let v: Vec<[f64; 3]> = mesh.vertices.iter().map(|p| p.to_array()).collect();
            let normals: Vec<[f64; 3]> = mesh
                .faces
                .iter()
                .map(|f| unit_normal(v[f.v[0] as usize], v[f.v[1] as usize], v[f.v[2] as usize]))
                .collect();
            let mut around = vec![Vec::new(); v.len()];
            for (i, f) in mesh.faces.iter().enumerate() {
                for k in f.v {
                    around[k as usize].push(i);
                }
            }
            let ours = mesh
                .faces
                .iter()
                .enumerate()
                .filter(|&(i, f)| {
                    f.v.iter().all(|&k| {
                        around[k as usize].iter().all(|&j| {
                            mesh.faces[j].smoothing & f.smoothing == 0
                                || dot(normals[i], normals[j]) > 0.9999
                        })
                    })
                })
                .count();
            // Theirs: corner normals equal to the face normal.
            let mut theirs = 0;
            for prim in g["meshes"][mi as usize]["primitives"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let at = |k: &str| prim["attributes"][k].as_u64().expect(k) as usize;
                let pos = accessor(&g, &bin, at("POSITION"));
                let nrm = accessor(&g, &bin, at("NORMAL"));
                let idx = indices(
                    &g,
                    &bin,
                    prim["indices"].as_u64().expect("indices") as usize,
                );
                let p3 = |i: usize| [pos[i][0], pos[i][1], pos[i][2]];
                theirs += idx
                    .chunks_exact(3)
                    .filter(|t| {
                        let n = unit_normal(p3(t[0]), p3(t[1]), p3(t[2]));
                        t.iter()
                            .all(|&i| dot(n, [nrm[i][0], nrm[i][1], nrm[i][2]]).abs() > 0.9999)
                    })
                    .count();
            }
            nodes += 1;
            flat_total += ours;
            if ours != theirs {
                failures.push(format!(
                    "{model}/{name} ({}): {ours} flat faces, glTF {theirs} flat triangles",
                    class.unwrap_or_default()
                ));
            }
        }
    }
    eprintln!("babylon primitive smoothing: {nodes} nodes, {flat_total} flat faces");
    assert!(nodes >= 20, "only {nodes} primitive nodes");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
