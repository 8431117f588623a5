//! glTF skins (exporters/src/gltf/skin.rs) against two independent references:
//!
//! - the Babylon.js exporter's glTF of RiggedFigure and RiggedElf: per skinned
//!   mesh the joint name set, per vertex (matched by its position skinned at
//!   frame 0) the joint names and weights within 1e-3, and per joint name the
//!   inverse bind matrix (Babylon's vertices are in the mesh node's space:
//!   its IBM is ours · the node's world matrix);
//! - the evaluated scene: our GLB re-read, its skin applied with the joints'
//!   sampled animation at sampled frames, gives the Skin-deformed mesh the
//!   scene evaluates at those ticks (per vertex, within 1e-4 of the mesh size),
//!   for every skinned node of the whole corpus.

use std::collections::BTreeMap;

use maxfs_exporters::gltf::{export_file, glb};
use maxfs_scene::eval::modifier::skin;
use maxfs_scene::eval::{SceneEval, Stack};
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{accessor, local, max_to_gltf, mul, Gltf, M4};
use serde_json::Value;

/// Our GLB as JSON and BIN, and the gltf crate's verdict on it.
fn read_glb(name: &str, bytes: &[u8]) -> (Value, Vec<u8>) {
    gltf::Gltf::from_slice(bytes).unwrap_or_else(|e| panic!("{name}: invalid glTF: {e}"));
    let (json, bin) = glb::read(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    (serde_json::from_slice(json).expect("json"), bin.to_vec())
}

/// JOINTS_0 data (u8 or u16) of an accessor.
fn joints(g: &Value, bin: &[u8], index: usize) -> Vec<[usize; 4]> {
    let acc = &g["accessors"][index];
    let size = match acc["componentType"].as_u64() {
        Some(5121) => 1,
        Some(5123) => 2,
        other => panic!("JOINTS_0 component type {other:?}"),
    };
    assert_eq!(acc["type"], "VEC4");
    let view = &g["bufferViews"][acc["bufferView"].as_u64().expect("view") as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    let stride = view["byteStride"].as_u64().map_or(4 * size, |s| s as usize);
    (0..acc["count"].as_u64().expect("count") as usize)
        .map(|i| {
            std::array::from_fn(|k| {
                let at = start + i * stride + k * size;
                if size == 1 {
                    usize::from(bin[at])
                } else {
                    usize::from(u16::from_le_bytes([bin[at], bin[at + 1]]))
                }
            })
        })
        .collect()
}

fn apply(m: &M4, p: &[f64]) -> [f64; 3] {
    std::array::from_fn(|i| m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3])
}

fn col_major(v: &[f64]) -> M4 {
    let mut o = [[0.0; 4]; 4];
    for c in 0..4 {
        for r in 0..4 {
            o[r][c] = v[c * 4 + r];
        }
    }
    o
}

fn inverse_affine(m: &M4) -> M4 {
    let a = |r: usize, c: usize| m[r][c];
    let det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1))
        - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0))
        + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
    // Cofactors of the 3×3 part, transposed, over the determinant.
    let cof = |r: usize, c: usize| {
        let (r1, r2) = ((c + 1) % 3, (c + 2) % 3);
        let (c1, c2) = ((r + 1) % 3, (r + 2) % 3);
        (a(r1, c1) * a(r2, c2) - a(r1, c2) * a(r2, c1)) / det
    };
    let lin: [[f64; 3]; 3] = std::array::from_fn(|r| std::array::from_fn(|c| cof(r, c)));
    std::array::from_fn(|r| {
        if r == 3 {
            return [0.0, 0.0, 0.0, 1.0];
        }
        let t = -(0..3).map(|k| lin[r][k] * m[k][3]).sum::<f64>();
        [lin[r][0], lin[r][1], lin[r][2], t]
    })
}

/// One skinned glTF mesh: per vertex its bind position, joint names and
/// weights (non-zero), the joints' names and inverse bind matrices.
struct SkinView {
    node: usize,
    positions: Vec<Vec<f64>>,
    influences: Vec<Vec<(usize, f64)>>,
    joints: Vec<usize>,
    ibm: Vec<M4>,
}

fn skin_views(g: &Value, bin: &[u8]) -> Vec<SkinView> {
    let mut out = Vec::new();
    for (i, n) in g["nodes"].as_array().into_iter().flatten().enumerate() {
        let (Some(s), Some(m)) = (n["skin"].as_u64(), n["mesh"].as_u64()) else {
            continue;
        };
        let skin = &g["skins"][s as usize];
        let joint_nodes: Vec<usize> = skin["joints"]
            .as_array()
            .expect("joints")
            .iter()
            .map(|j| j.as_u64().expect("joint") as usize)
            .collect();
        let ibm = accessor(
            g,
            bin,
            skin["inverseBindMatrices"].as_u64().expect("ibm") as usize,
        )
        .iter()
        .map(|v| col_major(v))
        .collect();
        let mut positions = Vec::new();
        let mut influences = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for prim in g["meshes"][m as usize]["primitives"]
            .as_array()
            .expect("prims")
        {
            let a = &prim["attributes"];
            let pos = a["POSITION"].as_u64().expect("pos") as usize;
            // Primitives of one mesh share their vertex streams.
            if !seen.insert(pos) {
                continue;
            }
            let p = accessor(g, bin, pos);
            let j = joints(g, bin, a["JOINTS_0"].as_u64().expect("joints") as usize);
            let w = accessor(g, bin, a["WEIGHTS_0"].as_u64().expect("weights") as usize);
            for ((p, j), w) in p.into_iter().zip(j).zip(w) {
                positions.push(p);
                influences.push(
                    (0..4)
                        .filter(|&k| w[k] > 0.0)
                        .map(|k| (joint_nodes[j[k]], w[k]))
                        .collect(),
                );
            }
        }
        out.push(SkinView {
            node: i,
            positions,
            influences,
            joints: joint_nodes,
            ibm,
        });
    }
    out
}

fn name_of(g: &Value, i: usize) -> String {
    g["nodes"][i]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// World matrices of every glTF node from per-node locals.
fn worlds(g: &Value, locals: &[M4]) -> Vec<M4> {
    let nodes = g["nodes"].as_array().cloned().unwrap_or_default();
    let mut parent = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for c in n["children"].as_array().into_iter().flatten() {
            parent[c.as_u64().expect("child") as usize] = Some(i);
        }
    }
    (0..nodes.len())
        .map(|i| {
            let mut m = locals[i];
            let mut p = parent[i];
            while let Some(pi) = p {
                m = mul(&locals[pi], &m);
                p = parent[pi];
            }
            m
        })
        .collect()
}

/// Σ w · jointWorld · IBM · v for every vertex.
fn skinned_positions(s: &SkinView, world: &[M4]) -> Vec<[f64; 3]> {
    let by_node: BTreeMap<usize, M4> = s
        .joints
        .iter()
        .zip(&s.ibm)
        .map(|(&j, ibm)| (j, mul(&world[j], ibm)))
        .collect();
    s.positions
        .iter()
        .zip(&s.influences)
        .map(|(p, inf)| {
            let mut acc = [0.0; 3];
            for &(j, w) in inf {
                let q = apply(&by_node[&j], p);
                for i in 0..3 {
                    acc[i] += w * q[i];
                }
            }
            acc
        })
        .collect()
}

fn static_locals(g: &Value) -> Vec<M4> {
    g["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(local)
        .collect()
}

/// For each written vertex, the Max vertex (below the Skin) whose bind
/// position it has: the nearest one.
fn bind_sources(written: &[Vec<f64>], bind_world: &[[f64; 3]]) -> Vec<usize> {
    written
        .iter()
        .map(|p| {
            let d = |q: &[f64; 3]| (0..3).map(|i| (q[i] - p[i]).powi(2)).sum::<f64>();
            (0..bind_world.len())
                .min_by(|&a, &b| d(&bind_world[a]).total_cmp(&d(&bind_world[b])))
                .expect("vertices")
        })
        .collect()
}

fn extent(p: &[[f64; 3]]) -> f64 {
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for q in p {
        for i in 0..3 {
            lo[i] = lo[i].min(q[i]);
            hi[i] = hi[i].max(q[i]);
        }
    }
    (0..3).map(|i| hi[i] - lo[i]).fold(0.0, f64::max)
}

#[test]
fn gltf_skins_match_babylon_skins() {
    let mut failures = Vec::new();
    let (mut vertices, mut reduced, mut ibms, mut skinned) = (0, 0, 0, 0);
    for model in ["RiggedElf", "RiggedFigure"] {
        let path = corpus_dir().join(format!("max/babylon/{model}.max"));
        let e = export_file(&path).expect("export");
        let (ours, obin) = read_glb(model, &e.glb);
        let theirs = Gltf::open(&format!("{model}/{model}.gltf"));
        let doc = Document::open(&path).expect("max");
        let typed = doc.typed();
        let unit = settings::system_unit(&doc, typed.scene.as_ref().expect("scene"))
            .expect("unit")
            .metres_per_unit;
        let eval =
            SceneEval::new(std::sync::Arc::new(doc), std::sync::Arc::new(typed)).expect("scene");
        let our_skins = skin_views(&ours, &obin);
        let their_skins = skin_views(&theirs.g, &theirs.bin);
        assert!(!their_skins.is_empty(), "{model}: reference has no skin");
        assert_eq!(
            our_skins.len(),
            their_skins.len(),
            "{model}: skinned meshes"
        );
        // Babylon writes Max units; scaled to metres whole.
        let tw: Vec<M4> = worlds(&theirs.g, &static_locals(&theirs.g))
            .into_iter()
            .map(|mut m| {
                m.iter_mut().take(3).for_each(|r| r[3] *= unit);
                m
            })
            .collect();
        for ts in &their_skins {
            let mesh_name = name_of(&theirs.g, ts.node);
            let Some(os) = our_skins
                .iter()
                .find(|s| name_of(&ours, s.node) == format!("{mesh_name}_skin"))
            else {
                failures.push(format!("{model}: no skin for {mesh_name}"));
                continue;
            };
            let tn = |j: usize| name_of(&theirs.g, j);
            let on = |j: usize| name_of(&ours, j);
            let tj: std::collections::BTreeSet<String> = ts.joints.iter().map(|&j| tn(j)).collect();
            let oj: std::collections::BTreeSet<String> = os.joints.iter().map(|&j| on(j)).collect();
            // Babylon lists every bone of the hierarchy; ours are the Skin's bones.
            if !oj.is_subset(&tj) || oj.is_empty() {
                failures.push(format!(
                    "{model}/{mesh_name}: joints {oj:?}, reference {tj:?}"
                ));
            }
            // Vertices deformed at frame 0 in world space (metres, glTF axes):
            // Babylon's node-space vertices placed by its node (they are
            // Max's full Skin deformation at frame 0), and for ours the
            // evaluated deformation of the Max vertex each was written from.
            let tpos: Vec<[f64; 3]> = ts
                .positions
                .iter()
                .map(|p| {
                    apply(
                        &tw[ts.node],
                        &p.iter().map(|v| v * unit).collect::<Vec<_>>(),
                    )
                })
                .collect();
            let tol = 1e-4 * extent(&tpos).max(1e-9);
            // Raw Skin influences per Max vertex, for Babylon's reduction of
            // vertices with more than 4 (its first 4 stored ones, unnormalised).
            let max_node = eval
                .graph
                .nodes()
                .find(|(_, n)| n.name == mesh_name)
                .map(|(o, _)| o.index)
                .expect("mesh node");
            let sk = skin::node_skin(&eval, max_node)
                .expect("skin")
                .expect("decodes");
            let bind = eval
                .mesh_with(max_node, 0, Stack::Without(sk.modifier))
                .expect("mesh")
                .expect("evaluates");
            let mesh_init = sk.mesh_init_tm.expect("mesh init");
            let bind_world: Vec<[f64; 3]> = bind
                .vertices
                .iter()
                .map(|v| {
                    let p = mesh_init.transform_point(*v);
                    [p.0 * unit, p.2 * unit, -p.1 * unit]
                })
                .collect();
            let source = bind_sources(&os.positions, &bind_world);
            let deformed = eval.mesh(max_node, 0).expect("mesh").expect("evaluates");
            let otm0 = eval.object_tm(max_node, 0);
            let opos: Vec<[f64; 3]> = source
                .iter()
                .map(|&v| {
                    let p = otm0.transform_point(deformed.vertices[v]);
                    [p.0 * unit, p.2 * unit, -p.1 * unit]
                })
                .collect();
            let first4 = |vi: usize| -> BTreeMap<String, f64> {
                let mut m = BTreeMap::new();
                for &(b, w) in sk.vertices[vi].iter().take(4) {
                    let n = sk.bones[b as usize].node.expect("bone node");
                    *m.entry(eval.graph.node_name(n).to_string()).or_insert(0.0) += f64::from(w);
                }
                m
            };
            let close_map = |a: &BTreeMap<String, f64>, b: &BTreeMap<String, f64>| {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.get(k).is_some_and(|x| (x - v).abs() <= 1e-3))
            };
            for (k, tp) in tpos.iter().enumerate() {
                let theirs_w: BTreeMap<String, f64> =
                    ts.influences[k].iter().map(|&(j, w)| (tn(j), w)).collect();
                let near: Vec<usize> = (0..opos.len())
                    .filter(|&i| (0..3).all(|c| (opos[i][c] - tp[c]).abs() <= tol))
                    .collect();
                if near.is_empty() {
                    if failures.len() < 30 {
                        failures.push(format!(
                            "{model}/{mesh_name}: reference vertex {tp:?} has no vertex of ours"
                        ));
                    }
                    continue;
                }
                let ours_w = |i: usize| -> BTreeMap<String, f64> {
                    os.influences[i].iter().map(|&(j, w)| (on(j), w)).collect()
                };
                if near.iter().any(|&i| close_map(&ours_w(i), &theirs_w)) {
                    vertices += 1;
                    continue;
                }
                let babylon_way = near.iter().any(|&i| {
                    sk.vertices[source[i]].len() > 4 && close_map(&first4(source[i]), &theirs_w)
                });
                if babylon_way {
                    reduced += 1;
                } else if failures.len() < 30 {
                    failures.push(format!(
                        "{model}/{mesh_name}: vertex {tp:?}: reference {theirs_w:?}, ours {:?}",
                        near.iter().map(|&i| ours_w(i)).collect::<Vec<_>>()
                    ));
                }
            }
            // Inverse bind matrices. Babylon binds at frame 0, vertices in its
            // mesh node's space: IBM_B = J(0)⁻¹ · node world, so its joint
            // world at frame 0 is node world · IBM_B⁻¹. Ours bind where the
            // Skin stored it (RiggedFigure's bones were bound at 100× their
            // frame-0 scale, RiggedElf in another pose), so the matrices
            // themselves differ; what must agree is (a) each joint's world at
            // frame 0 and (b) our IBMs applied: J(0) · IBM · bind vertex gives
            // Babylon's frame-0 vertex wherever the weights are the same.
            let ow = worlds(&ours, &static_locals(&ours));
            let size = extent(&tpos).max(1e-9);
            for &j in &os.joints {
                let Some(tk) = ts.joints.iter().position(|&x| tn(x) == on(j)) else {
                    continue;
                };
                let mut t_ibm = ts.ibm[tk];
                t_ibm.iter_mut().take(3).for_each(|r| r[3] *= unit);
                let want = mul(&tw[ts.node], &inverse_affine(&t_ibm));
                let got = ow[j];
                ibms += 1;
                let ok = (0..3).all(|r| {
                    (0..4).all(|c| {
                        let s = if c == 3 { size } else { 1.0 };
                        (want[r][c] - got[r][c]).abs() <= 1e-4 * s
                    })
                });
                if !ok {
                    failures.push(format!(
                        "{model}: joint {}: world at frame 0 {got:?}, Babylon's bind {want:?}",
                        on(j)
                    ));
                }
            }
            let skinned0 = skinned_positions(os, &ow);
            for (k, tp) in tpos.iter().enumerate() {
                let theirs_w: BTreeMap<String, f64> =
                    ts.influences[k].iter().map(|&(j, w)| (tn(j), w)).collect();
                let same = (0..opos.len()).find(|&i| {
                    (0..3).all(|c| (opos[i][c] - tp[c]).abs() <= tol)
                        && close_map(
                            &os.influences[i].iter().map(|&(j, w)| (on(j), w)).collect(),
                            &theirs_w,
                        )
                });
                let Some(i) = same else { continue };
                let d = (0..3)
                    .map(|c| (skinned0[i][c] - tp[c]).abs())
                    .fold(0.0, f64::max);
                skinned += 1;
                if d > 1e-4 * size && failures.len() < 40 {
                    failures.push(format!(
                        "{model}/{mesh_name}: vertex {tp:?} skinned by our IBMs at {:?}",
                        skinned0[i]
                    ));
                }
            }
        }
    }
    eprintln!(
        "glTF skins vs Babylon: {vertices} vertices with equal weights, {reduced} with Babylon's \
         first-4 reduction of the same Skin data, {ibms} joint binds, {skinned} vertices skinned \
         by our IBMs onto Babylon's frame 0"
    );
    assert!(
        vertices > 1000 && ibms > 30 && skinned > 1000,
        "{vertices} vertices, {ibms} joints, {skinned} skinned"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Our sampled local TRS of every animated node at `s` seconds (linear
/// between samples, as glTF's LINEAR), over the static locals.
fn animated_locals(g: &Value, bin: &[u8], s: f64) -> Vec<M4> {
    let nodes = g["nodes"].as_array().cloned().unwrap_or_default();
    let mut trs: Vec<Value> = nodes.clone();
    for anim in g["animations"].as_array().into_iter().flatten() {
        for ch in anim["channels"].as_array().into_iter().flatten() {
            let node = ch["target"]["node"].as_u64().expect("node") as usize;
            let path = ch["target"]["path"].as_str().expect("path").to_string();
            let smp = &anim["samplers"][ch["sampler"].as_u64().expect("sampler") as usize];
            let times = accessor(g, bin, smp["input"].as_u64().expect("in") as usize);
            let values = accessor(g, bin, smp["output"].as_u64().expect("out") as usize);
            let k = times
                .iter()
                .position(|x| x[0] >= s - 1e-7)
                .unwrap_or(times.len() - 1);
            let v: Vec<f64> = if k == 0 || (times[k][0] - s).abs() < 1e-7 {
                values[k].clone()
            } else {
                let u = (s - times[k - 1][0]) / (times[k][0] - times[k - 1][0]);
                let mut v: Vec<f64> = (0..values[k].len())
                    .map(|i| values[k - 1][i] * (1.0 - u) + values[k][i] * u)
                    .collect();
                if path == "rotation" {
                    let l = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                    v.iter_mut().for_each(|x| *x /= l);
                }
                v
            };
            trs[node][path] = Value::from(v);
            if let Some(o) = trs[node].as_object_mut() {
                o.remove("matrix");
            }
        }
    }
    trs.iter().map(local).collect()
}

/// Every animation input time of a GLB, sorted, without repeats.
fn sample_times(g: &Value, bin: &[u8]) -> Vec<f64> {
    let mut t: Vec<f64> = g["animations"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|a| a["samplers"].as_array().cloned().unwrap_or_default())
        .flat_map(|s| accessor(g, bin, s["input"].as_u64().expect("input") as usize))
        .map(|v| v[0])
        .collect();
    t.sort_by(f64::total_cmp);
    t.dedup();
    t
}

#[test]
fn skinned_glb_follows_the_evaluated_scene() {
    let mut checked = Vec::new();
    let mut failures = Vec::new();
    let files = maxfs_tests::corpus_max_files();
    for f in &files {
        let doc = Document::open(f).expect("max");
        let name = f
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let eval = SceneEval::from_document(doc).expect("scene");
        // Nodes whose Skin evaluates: each is a glTF skin, or named in a warning.
        let skinned: Vec<usize> = eval
            .graph
            .nodes()
            .map(|(o, _)| o.index)
            .filter(|&n| {
                matches!(skin::node_skin(&eval, n), Some(Ok(_)))
                    && matches!(eval.mesh(n, 0), Some(Ok(_)))
            })
            .collect();
        if skinned.is_empty() {
            continue;
        }
        let e = maxfs_exporters::gltf::export_scene(&eval).expect("export");
        let (g, bin) = read_glb(&name, &e.glb);
        let views = skin_views(&g, &bin);
        let unit = settings::system_unit(&eval.doc, &eval.graph).map_or(1.0, |u| u.metres_per_unit);
        let extras = &g["scenes"][0]["extras"];
        let origin_ticks = extras["time_origin_ticks"].as_f64().unwrap_or(0.0);
        for &n in &skinned {
            let node_name = eval.graph.node_name(n).to_string();
            let Some(view) = views
                .iter()
                .find(|v| name_of(&g, v.node) == format!("{node_name}_skin"))
            else {
                let named = e
                    .warnings
                    .iter()
                    .any(|w| w.starts_with(&format!("{node_name}: Skin exported as")));
                if !named {
                    failures.push(format!("{name}/{node_name}: no glTF skin and no warning"));
                }
                continue;
            };
            // Our vertex → Max vertex by bind position.
            let sk = skin::node_skin(&eval, n).expect("skin").expect("decodes");
            let bind = eval
                .mesh_with(n, 0, Stack::Without(sk.modifier))
                .expect("mesh")
                .expect("evaluates");
            let mesh_init = sk.mesh_init_tm.expect("mesh init");
            let to_g = |p: maxfs_scene::eval::Vec3| [p.0 * unit, p.2 * unit, -p.1 * unit];
            let bind_world: Vec<[f64; 3]> = bind
                .vertices
                .iter()
                .map(|v| to_g(mesh_init.transform_point(*v)))
                .collect();
            let size = extent(&bind_world).max(1e-9);
            let source = bind_sources(&view.positions, &bind_world);
            // Six of the sample times (all channels sample the same frames).
            let mut worst = 0.0f64;
            let mut joint_worst = (0.0f64, String::new(), 0);
            let times = sample_times(&g, &bin);
            let picks: Vec<f64> = if times.is_empty() {
                vec![0.0]
            } else {
                (0..6).map(|k| times[k * (times.len() - 1) / 5]).collect()
            };
            let mut refused_ticks = 0;
            for &s in &picks {
                let tick = (4800.0 * s + origin_ticks).round() as i32;
                // A tick where a bone is refused (biped-ld35/Yellow@Spawn:
                // IK in-betweens, toe bends) refuses the
                // Skin there; the glTF samples it all the same and must list
                // the refused bones among what it approximates.
                if let Some(Err(why)) = eval.mesh(n, tick) {
                    refused_ticks += 1;
                    let listed = e
                        .approximated
                        .iter()
                        .any(|a| a.contains("transform not evaluated at"));
                    if !listed {
                        failures.push(format!(
                            "{name}/{node_name}: Skin refused at tick {tick} ({why}) and no sampled transform named"
                        ));
                    }
                    continue;
                }
                let locals = animated_locals(&g, &bin, s);
                let world = worlds(&g, &locals);
                let ours = skinned_positions(view, &world);
                // The joints themselves: glTF world = Max world at the tick.
                let index: BTreeMap<String, usize> = eval
                    .graph
                    .nodes()
                    .map(|(o, n)| (n.name.clone(), o.index))
                    .collect();
                for &j in &view.joints {
                    let Some(&mn) = index.get(&name_of(&g, j)) else {
                        continue;
                    };
                    let mut want = max_to_gltf(&eval.world_tm(mn, tick));
                    want.iter_mut().take(3).for_each(|r| r[3] *= unit);
                    let d = (0..3)
                        .flat_map(|r| (0..4).map(move |c| (r, c)))
                        .map(|(r, c)| {
                            let k = if c == 3 { size } else { 1.0 };
                            (world[j][r][c] - want[r][c]).abs() / k
                        })
                        .fold(0.0, f64::max);
                    if d > 0.1 && std::env::var("SKIN_DEBUG").is_ok() {
                        eprintln!(
                            "{} tick {tick}: glTF {:?}\n max {:?}",
                            name_of(&g, j),
                            world[j],
                            want
                        );
                    }
                    if d > joint_worst.0 {
                        joint_worst = (d, name_of(&g, j), tick);
                    }
                }
                let max_mesh = eval.mesh(n, tick).expect("mesh").expect("evaluates");
                let otm = eval.object_tm(n, tick);
                for (i, p) in ours.iter().enumerate() {
                    let q = to_g(otm.transform_point(max_mesh.vertices[source[i]]));
                    let d = (0..3).map(|c| (p[c] - q[c]).abs()).fold(0.0, f64::max);
                    worst = worst.max(d / size);
                }
            }
            checked.push(format!(
                "{name}/{node_name}: {} vertices, worst {worst:.2e}, {refused_ticks} of {} ticks refused",
                view.positions.len(),
                picks.len()
            ));
            if worst > 1e-4 {
                failures.push(format!(
                    "{name}/{node_name}: skinned GLB differs from the evaluated mesh by {worst:.2e} of its size \
                     (joint worlds: worst {:.2e} on {:?} at tick {})",
                    joint_worst.0, joint_worst.1, joint_worst.2
                ));
            }
        }
    }
    eprintln!("skinned GLB vs evaluated scene:\n{}", checked.join("\n"));
    assert!(
        checked.len() >= 2,
        "only {} skinned nodes checked",
        checked.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
