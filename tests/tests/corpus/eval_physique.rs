//! Physique against an independent reference: max2024-rico/Wire.max and the
//! authors' FBX of the same scene (ref/max2024-rico/Wire.fbx, read with
//! ufbx), where the FBX exporter turned the Physique into skin clusters.
//!
//! The FBX is an earlier save: its skeleton stops at Bone008 (the .max has
//! Bone001..Bone018) and the vertices the .max binds to Bone009 and later
//! carry no cluster weight in it. Every vertex the FBX weights is compared
//! (bones as sets, weights within 1e-3); every other vertex must use a bone
//! the FBX does not have. The geometry is compared through Physique's own
//! attach positions (0x2807), since Wire's stack holds an Edit Poly Detach
//! below the Physique that is not evaluated: the weights and vertex order are
//! tested on the decode directly, not through the evaluated stack.

use std::collections::{BTreeMap, HashSet};

use maxfs_exporters::nel::export::{skinning, Context};
use maxfs_scene::eval::modifier::physique::{self, SkinKind};
use maxfs_scene::eval::modifier::skin::{Skin, SkinBone};
use maxfs_scene::eval::{Mat43, SceneEval, Vec3};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

fn wire() -> (SceneEval, usize) {
    let doc = Document::open(&corpus_dir().join("max/max2024-rico/Wire.max")).expect("Wire.max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let node = eval
        .graph
        .nodes()
        .find(|(_, n)| n.name == "Wire")
        .map(|(o, _)| o.index)
        .expect("node Wire");
    (eval, node)
}

/// Per FBX vertex: bone name → weight.
fn fbx_weights(scene: &ufbx::Scene) -> Vec<BTreeMap<String, f64>> {
    let sk = scene
        .skin_deformers
        .iter()
        .next()
        .expect("one skin deformer");
    sk.vertices
        .iter()
        .map(|v| {
            (0..v.num_weights)
                .map(|k| {
                    let w = sk.weights[(v.weight_begin + k) as usize];
                    let c = &sk.clusters[w.cluster_index as usize];
                    let name = c.bone_node.as_ref().map(|b| b.element.name.to_string());
                    (name.unwrap_or_default(), w.weight)
                })
                .collect()
        })
        .collect()
}

#[test]
fn wire_physique_weights_match_the_fbx_clusters() {
    let (eval, node) = wire();
    let phy = physique::node_physique(&eval, node)
        .expect("Wire has a Physique")
        .expect("Physique decodes");
    assert_eq!(phy.refs.len(), 18, "Bone001..Bone018");
    let scene = crate::eval_fbx::load_fbx(&corpus_dir().join("ref/max2024-rico/Wire.fbx"), 0.0254);
    let fbx = fbx_weights(&scene);
    assert_eq!(phy.weights.len(), fbx.len(), "vertex count");
    let fbx_nodes: HashSet<String> = scene
        .nodes
        .iter()
        .map(|n| n.element.name.to_string())
        .collect();
    let (mut compared, mut later_bones) = (0, 0);
    for (v, (ours, theirs)) in phy.weights.iter().zip(&fbx).enumerate() {
        let ours: BTreeMap<String, f64> = ours
            .iter()
            .map(|&(n, w)| (eval.graph.node_name(n).to_string(), f64::from(w)))
            .collect();
        if theirs.is_empty() {
            // Bound in the .max to a bone the earlier FBX save does not have.
            assert!(
                ours.keys().all(|b| !fbx_nodes.contains(b)),
                "vertex {v}: FBX has no weight, ours {ours:?}"
            );
            later_bones += 1;
            continue;
        }
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "vertex {v}: bones"
        );
        for (b, w) in &ours {
            assert!(
                (w - theirs[b]).abs() < 1e-3,
                "vertex {v} bone {b}: {w} vs {}",
                theirs[b]
            );
        }
        compared += 1;
    }
    // 60 vertices on Bone001 (the root attachment included), 24 on each of
    // Bone002..Bone008; the rest on Bone009..Bone017.
    assert_eq!(compared, 228);
    assert_eq!(later_bones, 444 - 228);
}

#[test]
fn wire_attach_positions_match_the_fbx_mesh() {
    let (eval, node) = wire();
    let phy = physique::node_physique(&eval, node)
        .expect("Physique")
        .expect("decodes");
    let scene = crate::eval_fbx::load_fbx(&corpus_dir().join("ref/max2024-rico/Wire.fbx"), 0.0254);
    let mesh = scene
        .nodes
        .iter()
        .find(|n| n.element.name.as_ref() == "Wire")
        .and_then(|n| n.mesh.as_ref())
        .expect("FBX Wire mesh");
    let ours: Vec<Vec3> = phy
        .local
        .init_positions
        .iter()
        .map(|p| p.expect("every vertex has its attach position"))
        .collect();
    assert_eq!(ours.len(), mesh.vertices.len());
    // The FBX declares another unit than the one its numbers are in; the
    // scale is fitted once from the extents, then every vertex must agree.
    let len = |v: &Vec3| (v.0 * v.0 + v.1 * v.1 + v.2 * v.2).sqrt();
    let ext_ours = ours.iter().map(len).fold(0.0, f64::max);
    let ext_fbx = mesh
        .vertices
        .iter()
        .map(|v| Vec3(v.x, v.y, v.z))
        .map(|v| len(&v))
        .fold(0.0, f64::max);
    let s = ext_ours / ext_fbx;
    let mut worst = 0.0f64;
    for (p, q) in ours.iter().zip(mesh.vertices.iter()) {
        let d = Vec3(p.0 - q.x * s, p.1 - q.y * s, p.2 - q.z * s);
        worst = worst.max(len(&d));
    }
    assert!(
        worst < 1e-3 * ext_ours,
        "worst {worst} of {ext_ours} (scale {s})"
    );
}

#[test]
fn skin_and_physique_with_equal_weights_bind_alike() {
    let (eval, node) = wire();
    let ctx = Context::new("Wire", &eval);
    let phy = physique::node_physique(&eval, node)
        .expect("Physique")
        .expect("decodes")
        .to_skin();
    // The same weights as a Skin would store them: bones in another order
    // (reversed), each with a bind pose, weights referring to that order.
    let n = phy.bones.len() as u32;
    let skin = Skin {
        modifier: phy.modifier,
        bones: phy
            .bones
            .iter()
            .rev()
            .map(|b| SkinBone {
                node: b.node,
                init_tm: Some(Mat43::IDENTITY),
            })
            .collect(),
        mesh_init_tm: Some(Mat43::IDENTITY),
        vertices: phy
            .vertices
            .iter()
            .map(|v| v.iter().map(|&(b, w)| (n - 1 - b, w)).collect())
            .collect(),
    };
    let a = skinning::binding(&ctx, node, phy).expect("Physique binds");
    let b = skinning::binding(&ctx, node, skin).expect("Skin binds");
    assert_eq!(a.skeleton, b.skeleton);
    assert_eq!(a.bone_names, b.bone_names);
    assert_eq!(a.weights, b.weights);
    assert_eq!(a.weights.len(), 444);
    // The exporter takes the topmost skinning modifier: on Wire the Skin
    // above the Physique.
    let kinds: Vec<SkinKind> = physique::node_skinnings(&eval, node)
        .into_iter()
        .map(|k| k.0)
        .collect();
    assert_eq!(kinds, [SkinKind::Skin, SkinKind::Physique]);
}

#[test]
fn skin_json_lists_physique_weights() {
    let (eval, node) = wire();
    let view = physique::view::view(&eval);
    let wire = view.iter().find(|n| n.index == node).expect("Wire listed");
    let phy = wire
        .modifiers
        .iter()
        .find(|m| m.class == "Physique")
        .expect("Physique listed");
    assert_eq!(phy.error, None);
    assert_eq!(phy.vertices.len(), 444);
    let names: Vec<&str> = phy.bones.iter().filter_map(|b| b.name.as_deref()).collect();
    assert!(
        names.contains(&"Bone001") && names.contains(&"Bone017"),
        "{names:?}"
    );
    for v in &phy.vertices {
        let s: f32 = v.iter().map(|x| x.1).sum();
        assert!((s - 1.0).abs() < 1e-6 && v.len() <= 4);
    }
}

/// Damaged Physique local data (word edits and cuts inside Wire's ModApp)
/// gives errors, never a panic; allocation stays bounded by the payload.
#[test]
fn mutated_physique_data_is_an_error_not_a_panic() {
    use maxfs_scene::chunk::Chunk;
    let (eval, node) = wire();
    let m = maxfs_scene::eval::modifier::skin::modifiers(&eval, node)
        .into_iter()
        .find(|m| {
            physique::node_physique(&eval, node)
                .is_some_and(|p| p.is_ok_and(|p| p.modifier == m.modifier))
        })
        .expect("the Physique use");
    let app = m.mod_app.expect("ModApp").clone();
    fn leaves(c: &Chunk, path: Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if c.payload().is_some() {
            out.push(path);
        } else {
            for (i, k) in c.children().iter().enumerate() {
                let mut p = path.clone();
                p.push(i);
                leaves(k, p, out);
            }
        }
    }
    fn edit(c: &Chunk, path: &[usize], f: &dyn Fn(&[u8]) -> Vec<u8>) -> Chunk {
        match path.split_first() {
            None => Chunk::leaf(c.id, f(c.payload().unwrap_or(&[]))),
            Some((&i, rest)) => Chunk::container(
                c.id,
                c.children()
                    .iter()
                    .enumerate()
                    .map(|(k, x)| if k == i { edit(x, rest, f) } else { x.clone() })
                    .collect(),
            ),
        }
    }
    let mut paths = Vec::new();
    leaves(&app, Vec::new(), &mut paths);
    let mut state = 0x7068_7973_6971_7565u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut errors = 0;
    for _ in 0..2000 {
        let path = &paths[next() as usize % paths.len()];
        let r = next();
        let f = move |p: &[u8]| -> Vec<u8> {
            let mut p = p.to_vec();
            match r % 3 {
                0 if p.len() >= 4 => {
                    let at = (r >> 8) as usize % (p.len() - 3);
                    p[at..at + 4].copy_from_slice(&((r >> 32) as u32).to_le_bytes());
                }
                1 => p.truncate((r >> 8) as usize % (p.len() + 1)),
                _ => p.extend(((r >> 16) as u32).to_le_bytes()),
            }
            p
        };
        let damaged = edit(&app, path, &f);
        match physique::decode_modifier(&eval, m.modifier, Some(&damaged)) {
            Ok(p) => assert!(p.weights.len() <= 444),
            Err(e) => {
                assert!(e.to_string().starts_with("Physique: "), "{e}");
                errors += 1;
            }
        }
    }
    assert!(errors > 0, "some edits must be refused");
}
