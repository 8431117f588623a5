//! .skel, .anim, .swt and skin weights exported from the corpus, checked against
//! the Babylon.js exporter's glTF of the same .max files (axis conversion as in
//! eval_babylon.rs: a Max point (x, y, z) is the glTF point (x, z, −y)).

use std::collections::BTreeMap;

use maxfs_exporters::nel::anim::Track;
use maxfs_exporters::nel::export::{self, anim, skel, skinning, Context, ExportKind};
use maxfs_exporters::nel::shape::Shape;
use maxfs_exporters::nel::skel::SkeletonShape;
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::eval::core::transform::invert;
use maxfs_scene::eval::Vec3;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{accessor, max_to_gltf, reoriented, Gltf, SINGLE_CLIP};
use serde_json::Value;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1.0)
}

fn open(model: &str) -> (Document, maxfs_scene::Typed) {
    let doc = Document::open(&corpus_dir().join(format!("max/babylon/{model}.max"))).expect("max");
    let typed = doc.typed();
    (doc, typed)
}

/// Exports `kind` and checks every output reads back and re-serializes identically.
fn exported(model: &str, kind: ExportKind) -> export::Exports {
    let (doc, _) = open(model);
    let out = maxfs_tests::export_doc(model, &doc, &[kind]);
    for o in &out.outputs {
        let f = read_nel(&o.bytes, &o.name).unwrap_or_else(|e| panic!("{model} {}: {e}", o.name));
        assert_eq!(
            write_nel(&f).expect("writes"),
            o.bytes,
            "{model} {} re-serializes",
            o.name
        );
    }
    out
}

fn skeleton_of(bytes: &[u8], name: &str) -> SkeletonShape {
    match read_nel(bytes, name).expect("skel reads") {
        NelFile::Shape(s) => match s.shape.get() {
            Some(Shape::CSkeletonShape(k)) => k.clone(),
            _ => panic!("{name}: not a skeleton"),
        },
        _ => panic!("{name}: not a shape stream"),
    }
}

const RIGGED: [&str; 2] = ["RiggedElf", "RiggedFigure"];

#[test]
fn skel_bones_hierarchy_and_bind_poses_match_gltf_skins() {
    let mut compared = 0;
    let mut compared_defaults = 0;
    let mut failures = Vec::new();
    for model in RIGGED {
        let out = exported(model, ExportKind::Skel);
        assert!(out.errors.is_empty(), "{model}: {:?}", out.errors);
        let o = out
            .outputs
            .iter()
            .find(|o| o.name == format!("{model}.skel"))
            .unwrap_or_else(|| panic!("{model}: no .skel"));
        let sk = skeleton_of(&o.bytes, &o.name);
        let gl = Gltf::open(&format!("{model}/{model}.gltf"));
        let skin = &gl.g["skins"][0];
        let joints: Vec<usize> = skin["joints"]
            .as_array()
            .expect("joints")
            .iter()
            .filter_map(Value::as_u64)
            .map(|j| j as usize)
            .collect();
        let ibm = accessor(
            &gl.g,
            &gl.bin,
            skin["inverseBindMatrices"].as_u64().expect("ibm") as usize,
        );
        // glTF parent of every node.
        let mut parent = BTreeMap::new();
        for (i, n) in gl.g["nodes"].as_array().expect("nodes").iter().enumerate() {
            for c in n["children"].as_array().into_iter().flatten() {
                parent.insert(c.as_u64().expect("child") as usize, i);
            }
        }
        // The skinned mesh node: the glTF node carrying the skin.
        let mesh_name = gl.g["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .find(|n| n.get("skin").is_some())
            .and_then(|n| n["name"].as_str())
            .expect("skinned node")
            .to_string();
        let (doc, typed) = open(model);
        let graph = typed.scene.as_ref().expect("scene");
        let eval = maxfs_tests::eval_with_graph(&doc, maxfs_scene::graph::SceneGraph::clone(graph));
        let ctx = Context::new(model, &eval);
        let (mesh, _) = graph
            .nodes()
            .find(|(_, n)| n.name == mesh_name)
            .expect("mesh node");
        let mesh_world = ctx.eval.world_tm(mesh.index, 0);
        let by_name: BTreeMap<&str, usize> = sk
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.as_str(), i))
            .collect();
        for (k, &j) in joints.iter().enumerate() {
            let name = gl.node_name(j);
            let Some(&bi) = by_name.get(name.as_str()) else {
                failures.push(format!("{model}: joint {name:?} has no bone"));
                continue;
            };
            compared += 1;
            let bone = &sk.bones[bi];
            // Hierarchy: the glTF parent joint is the bone's father.
            let gl_parent = parent
                .get(&j)
                .filter(|p| joints.contains(p))
                .map(|&p| gl.node_name(p));
            let father = usize::try_from(bone.father_id)
                .ok()
                .map(|f| sk.bones[f].name.clone());
            if gl_parent.is_some() && gl_parent != father {
                failures.push(format!(
                    "{model}: {name}: father {father:?}, glTF parent {gl_parent:?}"
                ));
            }
            // Default tracks: the bone's local TRS at frame 0 = the glTF node's.
            if gl_parent.is_some() && bone.father_id >= 0 {
                compared_defaults += 1;
                let gn = &gl.g["nodes"][j];
                let num =
                    |v: &Value, i: usize, d: f64| v.get(i).and_then(Value::as_f64).unwrap_or(d);
                let p = &bone.default_pos.value;
                let pos = [p.x.get(), p.z.get(), -p.y.get()].map(f64::from);
                let q = &bone.default_rot_quat.value;
                let rot = [q.x.get(), q.z.get(), -q.y.get(), q.w.get()].map(f64::from);
                let sc = &bone.default_scale.value;
                let scale = [sc.x.get(), sc.z.get(), sc.y.get()].map(f64::from);
                let gt: Vec<f64> = (0..3).map(|i| num(&gn["translation"], i, 0.0)).collect();
                let gr: Vec<f64> = (0..4)
                    .map(|i| num(&gn["rotation"], i, if i == 3 { 1.0 } else { 0.0 }))
                    .collect();
                let gs: Vec<f64> = (0..3).map(|i| num(&gn["scale"], i, 1.0)).collect();
                let dot: f64 = (0..4).map(|i| rot[i] * gr[i]).sum();
                let ok = (0..3).all(|i| close(pos[i], gt[i]) && close(scale[i], gs[i]))
                    && (0..4).all(|i| (rot[i] * dot.signum() - gr[i]).abs() <= 1e-4);
                if !ok {
                    failures.push(format!(
                        "{model}: {name}: default T/R/S {pos:?} {rot:?} {scale:?}, glTF {gt:?} {gr:?} {gs:?}"
                    ));
                }
            }
            // Bind pose: glTF IBM = mesh world · InvBindPos (row vectors).
            let inv = skel::mat43_of(&bone.inv_bind_pos);
            let ours = max_to_gltf(&mesh_world.then(&inv));
            let theirs = &ibm[k];
            let ok = (0..4).all(|r| (0..4).all(|c| close(ours[r][c], theirs[c * 4 + r])));
            if !ok {
                failures.push(format!(
                    "{model}: {name}: IBM ours {ours:?} glTF {theirs:?}"
                ));
            }
        }
        assert_eq!(sk.bone_map.len(), sk.bones.len(), "{model}: bone map");
    }
    eprintln!("skel: {compared} joints compared, {compared_defaults} default tracks");
    assert!(compared >= 40, "only {compared} joints");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn skin_weights_match_gltf_joints_and_weights() {
    let mut failures = Vec::new();
    for model in RIGGED {
        let (doc, typed) = open(model);
        let graph = typed.scene.as_ref().expect("scene");
        let eval = maxfs_tests::eval_with_graph(&doc, maxfs_scene::graph::SceneGraph::clone(graph));
        let ctx = Context::new(model, &eval);
        let gl = Gltf::open(&format!("{model}/{model}.gltf"));
        let skin = &gl.g["skins"][0];
        let joints: Vec<String> = skin["joints"]
            .as_array()
            .expect("joints")
            .iter()
            .map(|j| gl.node_name(j.as_u64().expect("joint") as usize))
            .collect();
        let gnode = gl.g["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .find(|n| n.get("skin").is_some())
            .expect("skinned node");
        let (mesh, _) = graph
            .nodes()
            .find(|(_, n)| n.name == gnode["name"].as_str().unwrap_or_default())
            .expect("mesh node");
        let b = skinning::node_skin(&ctx, mesh.index)
            .expect("node has a skin")
            .unwrap_or_else(|e| panic!("{model}: {e}"));
        let base = ctx
            .eval
            .base_mesh(mesh.index)
            .expect("mesh")
            .expect("mesh decodes");
        assert_eq!(
            base.vertices.len(),
            b.weights.len(),
            "{model}: vertex count"
        );
        // Babylon writes the mesh as Skin deforms it at frame 0, in the node's
        // space: Σ w · v·meshInit·boneInit⁻¹·boneWorld(0), then · meshWorld(0)⁻¹.
        // Computing that from the decoded Skin also checks its stored bind poses.
        let to_local = invert(&ctx.eval.world_tm(mesh.index, 0));
        let mesh_init = b.skin.mesh_init_tm.expect("mesh init TM");
        let deformed = |vi: usize, v: &Vec3| -> Vec3 {
            let mut acc = Vec3::default();
            for &(bone, w) in &b.skin.vertices[vi] {
                let bb = &b.skin.bones[bone as usize];
                let m = mesh_init
                    .then(&invert(&bb.init_tm.expect("bone init TM")))
                    .then(&ctx.eval.world_tm(bb.node.expect("bone node"), 0));
                acc = acc.plus(m.transform_point(*v).scale(f64::from(w)));
            }
            to_local.transform_point(acc)
        };
        // Ours: (glTF-axes position, {bone name: weight}).
        // Ours: (glTF-axes position, NeL weights by bone name, and for vertices
        // with more than 4 influences Babylon's own reduction: the first 4 stored
        // influences, not renormalised).
        type Weights = BTreeMap<String, f64>;
        let ours: Vec<([f64; 3], Weights, Option<Weights>)> = base
            .vertices
            .iter()
            .zip(&b.weights)
            .enumerate()
            .map(|(vi, (v, w))| {
                let p = deformed(vi, v);
                let mut m = BTreeMap::new();
                for k in 0..4 {
                    if w.weight[k] > 0.0 {
                        *m.entry(b.bone_names[w.matrix_id[k] as usize].clone())
                            .or_insert(0.0) += f64::from(w.weight[k]);
                    }
                }
                let raw = &b.skin.vertices[vi];
                let babylon = (raw.len() > 4).then(|| {
                    let mut m = BTreeMap::new();
                    for &(bone, w) in raw.iter().take(4) {
                        let node = b.skin.bones[bone as usize].node.expect("bone node");
                        let name = graph.objects[node]
                            .node
                            .as_ref()
                            .expect("node")
                            .name
                            .clone();
                        *m.entry(name).or_insert(0.0) += f64::from(w);
                    }
                    m
                });
                ([p.0, p.2, -p.1], m, babylon)
            })
            .collect();
        let prim = &gnode["mesh"]
            .as_u64()
            .map(|m| &gl.g["meshes"][m as usize]["primitives"])
            .expect("mesh")[0]["attributes"];
        let pos = accessor(
            &gl.g,
            &gl.bin,
            prim["POSITION"].as_u64().expect("pos") as usize,
        );
        let jn = gl.any_accessor(prim["JOINTS_0"].as_u64().expect("joints") as usize);
        let wt = gl.any_accessor(prim["WEIGHTS_0"].as_u64().expect("weights") as usize);
        let scale = pos
            .iter()
            .flatten()
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .max(1e-6);
        let mut matched = 0;
        let mut babylon_reduced = 0;
        for ((p, j), w) in pos.iter().zip(&jn).zip(&wt) {
            let mut theirs = BTreeMap::new();
            for k in 0..4 {
                if w[k] > 0.0 {
                    *theirs.entry(joints[j[k] as usize].clone()).or_insert(0.0) += w[k];
                }
            }
            let same_pos = |q: &[f64; 3]| (0..3).all(|i| (q[i] - p[i]).abs() <= 1e-4 * scale);
            let same_w = |m: &BTreeMap<String, f64>| {
                m.len() == theirs.len()
                    && m.iter()
                        .all(|(k, v)| theirs.get(k).is_some_and(|t| (t - v).abs() <= 1e-4))
            };
            if ours.iter().any(|(q, m, _)| same_pos(q) && same_w(m)) {
                matched += 1;
            } else if ours
                .iter()
                .any(|(q, _, bm)| same_pos(q) && bm.as_ref().is_some_and(&same_w))
            {
                babylon_reduced += 1;
            } else if failures.len() < 20 {
                let near: Vec<_> = ours.iter().filter(|(q, _, _)| same_pos(q)).collect();
                failures.push(format!(
                    "{model}: vertex {p:?} {theirs:?}; ours at that position: {near:?}"
                ));
            }
        }
        eprintln!(
            "{model}: {matched}/{} glTF vertices match the NeL weights, {babylon_reduced} more \
             (over 4 influences) match Babylon's first-4 reduction of the same Skin data",
            pos.len()
        );
        assert!(matched > 0, "{model}: nothing matched");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn anim_tracks_match_gltf_animation() {
    let mut compared = 0;
    let mut failures = Vec::new();
    let rigged = [("RiggedFigure", "RiggedFigure/RiggedFigure.gltf")];
    for &(model, gltf) in SINGLE_CLIP.iter().chain(&rigged) {
        let out = exported(model, ExportKind::Anim);
        let Some(o) = out.outputs.first() else {
            failures.push(format!("{model}: no .anim ({:?})", out.errors));
            continue;
        };
        assert_eq!(o.name, format!("{model}.anim"));
        let NelFile::Animation(a) = read_nel(&o.bytes, &o.name).expect("anim reads") else {
            panic!("{model}: not an animation");
        };
        let track = |name: &str| -> Option<&Track> {
            let (_, i) = a.id_by_name.iter().find(|(n, _)| n == name)?;
            a.tracks.get(*i as usize)?.0.get()
        };
        let (_, typed) = open(model);
        let graph = typed.scene.as_ref().expect("scene");
        let gl = Gltf::open(gltf);
        for an in gl.g["animations"].as_array().into_iter().flatten() {
            for ch in an["channels"].as_array().into_iter().flatten() {
                let name = gl.node_name(ch["target"]["node"].as_u64().expect("node") as usize);
                let Some((node, _)) = graph.nodes().find(|(_, n)| n.name == name) else {
                    continue;
                };
                let what = ch["target"]["path"].as_str().unwrap_or_default();
                if reoriented(graph, node.index) && what == "rotation" {
                    continue;
                }
                let channel = match what {
                    "translation" => anim::POS,
                    "rotation" => anim::ROTQUAT,
                    "scale" => anim::SCALE,
                    _ => continue,
                };
                let s = &an["samplers"][ch["sampler"].as_u64().expect("sampler") as usize];
                let times = accessor(&gl.g, &gl.bin, s["input"].as_u64().expect("in") as usize);
                let values = accessor(&gl.g, &gl.bin, s["output"].as_u64().expect("out") as usize);
                let Some(t) = track(&format!("{name}.{channel}")) else {
                    // A constant glTF channel has no Max keys to export.
                    let constant = values
                        .windows(2)
                        .all(|w| w[0].iter().zip(&w[1]).all(|(a, b)| close(*a, *b)));
                    if !constant {
                        failures.push(format!("{model}: no track {name}.{channel}"));
                    }
                    continue;
                };
                for (tm, v) in times.iter().zip(&values) {
                    let Some(x) = anim::linear_value(t, tm[0] as f32) else {
                        failures.push(format!("{model}: {name}.{channel}: not a linear track"));
                        break;
                    };
                    let x = x.map(f64::from);
                    compared += 1;
                    let ok = match what {
                        "translation" => {
                            let g = [x[0], x[2], -x[1]];
                            (0..3).all(|i| close(g[i], v[i]))
                        }
                        "scale" => {
                            let g = [x[0], x[2], x[1]];
                            (0..3).all(|i| close(g[i], v[i]))
                        }
                        _ => {
                            let g = [x[0], x[2], -x[1], x[3]];
                            let d: f64 = (0..4).map(|i| g[i] * v[i]).sum();
                            let s = d.signum();
                            (0..4).all(|i| (g[i] * s - v[i]).abs() <= 1e-4)
                        }
                    };
                    if !ok {
                        failures.push(format!(
                            "{model}: {name}.{channel} at {}: ours {x:?} glTF {v:?}",
                            tm[0]
                        ));
                    }
                }
            }
        }
    }
    eprintln!("anim: {compared} samples compared");
    assert!(compared > 200, "only {compared} samples");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// street.max carries EXPORT_SWT = "0" on its nodes: the AppData decodes, and
/// no node is selected, so no .swt is written (the plug-in writes none either).
#[test]
fn swt_appdata_decodes_and_unset_nodes_export_nothing() {
    let path = corpus_dir().join("max/ryzomcore/street.max");
    let doc = Document::open(&path).expect("max");
    let typed = doc.typed();
    let graph = typed.scene.as_ref().expect("scene");
    let eval = maxfs_tests::eval_with_graph(&doc, maxfs_scene::graph::SceneGraph::clone(graph));
    let ctx = Context::new("street", &eval);
    let with_key = (0..graph.objects.len())
        .filter(|&i| {
            ctx.props
                .node(i)
                .raw(export::properties::id::EXPORT_SWT)
                .is_some()
        })
        .count();
    assert!(with_key > 0, "street.max has EXPORT_SWT keys");
    assert!((0..graph.objects.len()).all(|i| !ctx.props.node(i).export_swt));
    let out = maxfs_tests::export_doc("street", &doc, &[ExportKind::Swt]);
    assert!(out.outputs.is_empty() && out.errors.is_empty());
}

/// Every corpus file: skel/anim/swt export without panics; outputs read back
/// byte-identically; Biped, CAT and IK rigs are errors naming the controller.
#[test]
fn corpus_sweep_skel_anim_swt() {
    let kinds = [ExportKind::Skel, ExportKind::Anim, ExportKind::Swt];
    let mut outputs = 0;
    let mut errors = Vec::new();
    for path in maxfs_tests::corpus_max_files() {
        let Ok(doc) = Document::open(&path) else {
            continue;
        };
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("x")
            .to_string();
        let out = maxfs_tests::export_doc(&stem, &doc, &kinds);
        for o in &out.outputs {
            let f = read_nel(&o.bytes, &o.name).expect("reads back");
            assert_eq!(write_nel(&f).expect("writes"), o.bytes, "{}", o.name);
            outputs += 1;
        }
        for e in &out.errors {
            assert!(!e.reason.is_empty());
            errors.push(format!(
                "{stem}: {} {}: {}",
                e.kind.name(),
                e.node,
                e.reason
            ));
        }
    }
    eprintln!("sweep: {outputs} outputs\n{}", errors.join("\n"));
    assert!(outputs >= 4, "only {outputs} outputs");
}

/// UnheritScale and bone LODs. The corpus rigs inherit scale on every bone
/// (their TM controllers store inheritance flags 0) and set no
/// BONE_LOD_DISTANCE: UnheritScale false everywhere, one LOD. A copy of
/// RiggedFigure written through the chunk and container writers, with
/// INHERIT_SCL_X|Y|Z set on one bone's controller (chunk 0x7230) and
/// BONE_LOD_DISTANCE on two others, exports that bone with UnheritScale and
/// the node TM's scale, and a second LOD disabling the other bones, the child's
/// larger distance clamped to its father's (CSkeletonShape::build).
#[test]
fn unherit_scale_and_bone_lods() {
    use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
    use maxfs_scene::eval::core::transform::INHERIT_SCALE;
    use maxfs_tests::rewrite::SceneEdit;

    let skel_of = |doc: &Document, model: &str| {
        let out = maxfs_tests::export_doc(model, doc, &[ExportKind::Skel]);
        assert!(out.errors.is_empty(), "{model}: {}", out.errors_text());
        let o = out
            .outputs
            .iter()
            .find(|o| o.kind == ExportKind::Skel)
            .expect("skel");
        let f = read_nel(&o.bytes, &o.name).expect("reads");
        assert_eq!(write_nel(&f).expect("writes"), o.bytes, "re-serializes");
        skeleton_of(&o.bytes, &o.name)
    };
    let mut bones = 0;
    for model in RIGGED {
        let (doc, typed) = open(model);
        let graph = typed.scene.as_ref().expect("scene");
        let eval = maxfs_tests::eval_with_graph(&doc, maxfs_scene::graph::SceneGraph::clone(graph));
        let ctx = Context::new(model, &eval);
        let sk = skel_of(&doc, model);
        for b in &sk.bones {
            let node = graph
                .nodes()
                .find(|(_, n)| n.name == b.name)
                .map(|(o, _)| o.index)
                .expect("bone node");
            assert_eq!(
                ctx.eval.inheritance_flags(node),
                Some(0),
                "{model} {}",
                b.name
            );
            assert_eq!(b.unherit_scale.0, 0, "{model} {}", b.name);
            bones += 1;
        }
        assert_eq!(sk.lods.as_ref().map(Vec::len), Some(1), "{model}: one LOD");
    }

    let mut e = SceneEdit::open("max/babylon/RiggedFigure.max");
    let unherited = e.node("arm_joint_L_2");
    let ctl = e.reference(unherited, 0);
    e.set_leaf(ctl, 0x7230, INHERIT_SCALE.to_le_bytes().to_vec());
    let nel = (NEL_CLASS_ID, NEL_SUPER_CLASS);
    let r1 = e.node("arm_joint_R_1");
    e.add_appdata(r1, nel, id::BONE_LOD_DISTANCE, "40");
    let r2 = e.node("arm_joint_R_2");
    e.add_appdata(r2, nel, id::BONE_LOD_DISTANCE, "100");
    let doc = e.finish();
    let sk = skel_of(&doc, "RiggedFigure");
    let typed = doc.typed();
    let graph = typed.scene.as_ref().expect("scene");
    let eval = maxfs_tests::eval_with_graph(&doc, maxfs_scene::graph::SceneGraph::clone(graph));
    let ctx = Context::new("RiggedFigure", &eval);
    assert_eq!(ctx.eval.inheritance_flags(unherited), Some(INHERIT_SCALE));
    let lods = sk.lods.as_ref().expect("lods");
    assert_eq!(lods.len(), 2);
    assert_eq!(lods[1].distance.get(), 40.0);
    let off = ["arm_joint_R_1", "arm_joint_R_2", "arm_joint_R_3"];
    for (i, b) in sk.bones.iter().enumerate() {
        let unherit = b.name == "arm_joint_L_2";
        assert_eq!(b.unherit_scale.0, u8::from(unherit), "{}", b.name);
        if unherit {
            // getNELBoneLocalScale: the node TM's own scale.
            let (s, _, _) = skel::decompose(&ctx.eval.world_tm(unherited, 0));
            let d = &b.default_scale.value;
            let got = [d.x.get(), d.y.get(), d.z.get()];
            assert_eq!(got, [s.0 as f32, s.1 as f32, s.2 as f32]);
        }
        let dist = b.lod_disable_distance.map(|d| d.get());
        let want = if off.contains(&b.name.as_str()) {
            40.0
        } else {
            0.0
        };
        assert_eq!(dist, Some(want), "{}: lod distance", b.name);
        let active = if off.contains(&b.name.as_str()) {
            0
        } else {
            0xff
        };
        assert_eq!(lods[1].active_bones[i], active, "{}", b.name);
        assert_eq!(lods[0].active_bones[i], 0xff);
    }
    eprintln!("{bones} corpus bones inherit scale; synthetic unherit + 2 LOD distances checked");
}
