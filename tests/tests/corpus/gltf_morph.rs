//! glTF morph targets from the Morpher (exporters/src/gltf/morph.rs) against
//! the Babylon.js exporter's glTF of AnimatedMorphCube.max: target count,
//! per-target displacements (as sets of world base position → world
//! displacement, both in metres), default weights and the weight animation
//! keys.

use std::collections::BTreeMap;

use maxfs_exporters::gltf::{export_file, glb};
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{accessor, gltf_worlds, Gltf, M4};
use serde_json::Value;

/// Per target of node mesh `mesh`: (world base position, world displacement)
/// of every vertex of every primitive, and the mesh's bounding size.
fn displacement_sets(g: &Value, bin: &[u8], mesh: usize, w: &M4) -> (Vec<Vec<[f64; 6]>>, f64) {
    let lin = |v: &[f64]| [0, 1, 2].map(|i| w[i][0] * v[0] + w[i][1] * v[1] + w[i][2] * v[2]);
    let point = |v: &[f64]| {
        let l = lin(v);
        [0, 1, 2].map(|i| l[i] + w[i][3])
    };
    let mut sets: Vec<Vec<[f64; 6]>> = Vec::new();
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for prim in g["meshes"][mesh]["primitives"]
        .as_array()
        .expect("primitives")
    {
        let pos = accessor(
            g,
            bin,
            prim["attributes"]["POSITION"].as_u64().expect("pos") as usize,
        );
        for p in &pos {
            let q = point(p);
            for k in 0..3 {
                lo[k] = lo[k].min(q[k]);
                hi[k] = hi[k].max(q[k]);
            }
        }
        let targets = prim["targets"].as_array().cloned().unwrap_or_default();
        sets.resize(sets.len().max(targets.len()), Vec::new());
        for (t, target) in targets.iter().enumerate() {
            let d = accessor(
                g,
                bin,
                target["POSITION"].as_u64().expect("target") as usize,
            );
            assert_eq!(d.len(), pos.len(), "target {t}: count");
            for (p, d) in pos.iter().zip(&d) {
                let (p, d) = (point(p), lin(d));
                sets[t].push([p[0], p[1], p[2], d[0], d[1], d[2]]);
            }
        }
    }
    let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
    (sets, size)
}

/// Entries of `a` with no entry of `b` within `tol` (every component).
fn unmatched(a: &[[f64; 6]], b: &[[f64; 6]], tol: f64) -> usize {
    a.iter()
        .filter(|x| !b.iter().any(|y| (0..6).all(|k| (x[k] - y[k]).abs() <= tol)))
        .count()
}

/// Our `weights` sample of glTF node `node` at `t` seconds (linear between
/// samples, held after the last one as glTF and Max both do) and whether `t`
/// is one of our sample times or after them.
fn weights_at(g: &Value, bin: &[u8], node: usize, n: usize, t: f64) -> Option<(Vec<f64>, bool)> {
    for anim in g["animations"].as_array().into_iter().flatten() {
        for ch in anim["channels"].as_array().into_iter().flatten() {
            if ch["target"]["node"].as_u64() != Some(node as u64)
                || ch["target"]["path"] != "weights"
            {
                continue;
            }
            let s = &anim["samplers"][ch["sampler"].as_u64()? as usize];
            let times = accessor(g, bin, s["input"].as_u64()? as usize);
            let values = accessor(g, bin, s["output"].as_u64()? as usize);
            assert_eq!(values.len(), times.len() * n, "weights output count");
            let at = |k: usize| -> Vec<f64> { (0..n).map(|i| values[k * n + i][0]).collect() };
            let Some(k) = times.iter().position(|x| x[0] >= t - 1e-6) else {
                return Some((at(times.len() - 1), true));
            };
            if k == 0 || (times[k][0] - t).abs() < 1e-6 {
                return Some((at(k), (times[k][0] - t).abs() < 1e-6));
            }
            let u = (t - times[k - 1][0]) / (times[k][0] - times[k - 1][0]);
            let (a, b) = (at(k - 1), at(k));
            return Some(((0..n).map(|i| a[i] * (1.0 - u) + b[i] * u).collect(), false));
        }
    }
    None
}

#[test]
fn morpher_becomes_gltf_morph_targets_like_babylon() {
    let path = corpus_dir().join("max/babylon/AnimatedMorphCube.max");
    let e = export_file(&path).expect("export");
    assert!(e.dropped.is_empty(), "{:?}", e.dropped);
    assert!(
        !e.warnings.iter().any(|w| w.contains("Morpher")),
        "{:?}",
        e.warnings
    );
    gltf::Gltf::from_slice(&e.glb).expect("valid glTF");
    let (json, bin) = glb::read(&e.glb).expect("glb");
    let ours: Value = serde_json::from_slice(json).expect("json");
    let theirs = Gltf::open("AnimatedMorphCube/AnimatedMorphCube.gltf");
    let doc = Document::open(&path).expect("max");
    let typed = doc.typed();
    let graph = typed.scene.as_ref().expect("scene");
    let unit = settings::system_unit(&doc, graph)
        .expect("system unit")
        .metres_per_unit;
    let time = settings::time_config(&doc).expect("time configuration");
    let origin = ours["scenes"][0]["extras"]["time_origin_ticks"]
        .as_f64()
        .expect("time origin");
    let start = (f64::from(time.start) - origin) / 4800.0;
    let ow = gltf_worlds(&ours);
    // Babylon's lengths are Max units: its world matrices scaled to metres.
    let tw: BTreeMap<String, M4> = gltf_worlds(&theirs.g)
        .into_iter()
        .map(|(k, mut m)| {
            m.iter_mut().take(3).flatten().for_each(|v| *v *= unit);
            (k, m)
        })
        .collect();
    let (mut meshes, mut entries, mut keys) = (0, 0, 0);
    let mut failures = Vec::new();
    for (ti, tnode) in theirs.g["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .enumerate()
    {
        let Some(tmesh) = tnode["mesh"].as_u64() else {
            continue;
        };
        let tm = &theirs.g["meshes"][tmesh as usize];
        if tm["primitives"][0]["targets"].is_null() {
            continue;
        }
        let name = theirs.node_name(ti);
        let oi = ours["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .position(|n| n["name"].as_str() == Some(&name))
            .unwrap_or_else(|| panic!("{name}: not in our export"));
        let om = &ours["meshes"][ours["nodes"][oi]["mesh"].as_u64().expect("our mesh") as usize];
        let (want, size) = displacement_sets(&theirs.g, &theirs.bin, tmesh as usize, &tw[&name]);
        let mi = ours["nodes"][oi]["mesh"].as_u64().expect("mesh") as usize;
        let (got, _) = displacement_sets(&ours, bin, mi, &ow[&name]);
        let n = want.len();
        assert_eq!(got.len(), n, "{name}: target count");
        let names = om["extras"]["targetNames"].as_array().expect("targetNames");
        assert_eq!(names.len(), n, "{name}: targetNames");
        let tol = 1e-4 * size;
        for t in 0..n {
            entries += want[t].len();
            let (a, b) = (
                unmatched(&want[t], &got[t], tol),
                unmatched(&got[t], &want[t], tol),
            );
            if a + b > 0 {
                failures.push(format!(
                    "{name}: target {t}: {a} reference entries unmatched, {b} of ours (tol {tol})"
                ));
            }
            // Not all zero: the comparison is not vacuous.
            assert!(
                want[t]
                    .iter()
                    .any(|e| e[3..].iter().any(|v| v.abs() > 100.0 * tol)),
                "{name}: target {t} moves nothing"
            );
        }
        let tw0: Vec<f64> = tm["weights"]
            .as_array()
            .expect("weights")
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        let ow0: Vec<f64> = om["weights"]
            .as_array()
            .expect("our weights")
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        assert_eq!(tw0.len(), n);
        assert!(
            ow0.len() == n && ow0.iter().zip(&tw0).all(|(a, b)| (a - b).abs() < 1e-6),
            "{name}: default weights {ow0:?}, reference {tw0:?}"
        );
        meshes += 1;
        for anim in theirs.g["animations"].as_array().into_iter().flatten() {
            for ch in anim["channels"].as_array().into_iter().flatten() {
                if ch["target"]["node"].as_u64() != Some(ti as u64)
                    || ch["target"]["path"] != "weights"
                {
                    continue;
                }
                let s = &anim["samplers"][ch["sampler"].as_u64().expect("sampler") as usize];
                let times = accessor(
                    &theirs.g,
                    &theirs.bin,
                    s["input"].as_u64().expect("in") as usize,
                );
                let values = accessor(
                    &theirs.g,
                    &theirs.bin,
                    s["output"].as_u64().expect("out") as usize,
                );
                for (k, t) in times.iter().enumerate() {
                    let want: Vec<f64> = (0..n).map(|i| values[k * n + i][0]).collect();
                    let Some((got, on_sample)) = weights_at(&ours, bin, oi, n, start + t[0]) else {
                        failures.push(format!("{name}: no weights channel"));
                        break;
                    };
                    keys += 1;
                    if !on_sample || got.iter().zip(&want).any(|(a, b)| (a - b).abs() > 1e-4) {
                        failures.push(format!(
                            "{name}: weights at {} s: ours {got:?} (on a sample: {on_sample}), reference {want:?}",
                            t[0]
                        ));
                    }
                }
            }
        }
    }
    eprintln!("gltf morph vs babylon: {meshes} meshes, {entries} displacement entries, {keys} weight keys");
    assert!(meshes >= 2 && keys >= 10, "{meshes} meshes, {keys} keys");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The scene's channel API (what the exporter writes) is the Morpher's own
/// sum: at every frame of the weight keys, the evaluated mesh equals the
/// Morpher's input plus Σ displacement · weight / 100.
#[test]
fn morpher_channels_rebuild_the_evaluated_mesh() {
    use maxfs_scene::eval::modifier::{morpher, MORPHER};
    use maxfs_scene::eval::{SceneEval, Stack};
    let path = corpus_dir().join("max/babylon/AnimatedMorphCube.max");
    let eval = SceneEval::from_document(Document::open(&path).expect("max")).expect("scene");
    let nodes: Vec<usize> = eval.graph.nodes().map(|(o, _)| o.index).collect();
    let mut checked = 0;
    for n in nodes {
        let Some((stack, _)) = eval.modifier_stack(n) else {
            continue;
        };
        let Some(m) = stack.iter().find(|a| a.class == MORPHER).map(|a| a.object) else {
            continue;
        };
        let base0 = eval
            .mesh_with(n, 0, Stack::Without(m))
            .expect("mesh")
            .expect("base");
        let channels = morpher::channels(&eval, m, base0.vertices.len()).expect("channels");
        assert_eq!(channels.len(), 2, "{}", eval.graph.node_name(n));
        let last = channels
            .iter()
            .flat_map(|c| c.key_times.iter().copied())
            .max()
            .expect("animated weights");
        for t in (0..=last).step_by(160) {
            let full = eval.mesh(n, t).expect("mesh").expect("evaluated");
            let base = eval
                .mesh_with(n, t, Stack::Without(m))
                .expect("mesh")
                .expect("base");
            let w: Vec<f64> = channels
                .iter()
                .map(|c| morpher::channel_weight(&eval, m, c, t).expect("weight"))
                .collect();
            for (k, p) in full.vertices.iter().enumerate() {
                let mut q = base.vertices[k];
                for (c, w) in channels.iter().zip(&w) {
                    q = q.plus(c.displacement[k].scale(w / 100.0));
                }
                assert!(q.minus(*p).len() < 1e-6, "t {t}, point {k}: {q:?} vs {p:?}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 2 * 90, "{checked} frames checked");
}
