//! Physique deformation against the authors' FBX of max2024-rico/Wire.max,
//! where the FBX exporter turned the Physique into skin clusters (weights,
//! each bone's bind TM, the mesh's bind TM).
//!
//! Wire's stack holds an Edit Poly below the Physique that is not evaluated,
//! so the deformation is run on Physique's own stored data: its attach
//! positions (0x2807, which equal the FBX mesh) are the input. Nothing in
//! Wire.max or its FBX is animated, so besides the stored pose the bones are
//! animated in a copy of the scene written through the project's writers
//! (Bezier keys on three bones' Euler rotations); at each tick both sides
//! use the bone TMs our evaluator gives, so what is compared is Physique's
//! decoded weights, bind TMs and mesh TM against the FBX's clusters.

use std::collections::BTreeMap;

use maxfs_scene::eval::core::transform::invert;
use maxfs_scene::eval::modifier::physique::{self, deform};
use maxfs_scene::eval::{Mat43, SceneEval, Vec3};
use maxfs_scene::Document;
use maxfs_tests::rewrite::SceneEdit;
use maxfs_tests::{corpus_dir, node_named};

const WIRE: &str = "max/max2024-rico/Wire.max";

/// A ufbx matrix as Max's row-vector Mat43, each axis scaled to unit length
/// (the FBX's nodes carry the unit conversion as a 2.54 scale on their
/// axes, translations stay in the .max's units).
fn unit_axes(m: &ufbx::Matrix) -> Mat43 {
    let axis = |x: f64, y: f64, z: f64| Vec3(x, y, z).normalized();
    Mat43([
        axis(m.m00, m.m10, m.m20),
        axis(m.m01, m.m11, m.m21),
        axis(m.m02, m.m12, m.m22),
        Vec3(m.m03, m.m13, m.m23),
    ])
}

fn apply(m: &ufbx::Matrix, v: &ufbx::Vec3) -> Vec3 {
    Vec3(
        m.m00 * v.x + m.m01 * v.y + m.m02 * v.z + m.m03,
        m.m10 * v.x + m.m11 * v.y + m.m12 * v.z + m.m13,
        m.m20 * v.x + m.m21 * v.y + m.m22 * v.z + m.m23,
    )
}

fn dist(a: Vec3, b: Vec3) -> f64 {
    a.minus(b).len()
}

fn max_diff(a: &Mat43, b: &Mat43) -> f64 {
    a.0.iter()
        .zip(&b.0)
        .map(|(x, y)| dist(*x, *y))
        .fold(0.0, f64::max)
}

struct Fbx {
    /// Per FBX vertex: its bind-pose world position.
    world: Vec<Vec3>,
    /// Per FBX vertex: (bone name, weight).
    weights: Vec<Vec<(String, f64)>>,
    /// Per bone name: the cluster's bind TM (unit axes).
    bind: BTreeMap<String, Mat43>,
    /// The mesh's bind TM (unit axes).
    mesh_bind: Mat43,
}

fn fbx() -> Fbx {
    let scene = crate::eval_fbx::load_fbx(&corpus_dir().join("ref/max2024-rico/Wire.fbx"), 0.0254);
    let mesh = scene
        .nodes
        .iter()
        .find(|n| n.element.name.as_ref() == "Wire")
        .and_then(|n| n.mesh.as_ref())
        .expect("FBX Wire mesh");
    let sk = scene
        .skin_deformers
        .iter()
        .next()
        .expect("one skin deformer");
    let name = |c: &ufbx::SkinCluster| {
        c.bone_node
            .as_ref()
            .map(|b| b.element.name.to_string())
            .unwrap_or_default()
    };
    let geom = &sk
        .clusters
        .iter()
        .next()
        .expect("a cluster")
        .geometry_to_world;
    let world = mesh.vertices.iter().map(|v| apply(geom, v)).collect();
    let weights = sk
        .vertices
        .iter()
        .map(|v| {
            (0..v.num_weights)
                .map(|k| {
                    let w = sk.weights[(v.weight_begin + k) as usize];
                    (name(&sk.clusters[w.cluster_index as usize]), w.weight)
                })
                .collect()
        })
        .collect();
    let bind = sk
        .clusters
        .iter()
        .map(|c| (name(c), unit_axes(&c.bind_to_world)))
        .collect();
    Fbx {
        world,
        weights,
        bind,
        mesh_bind: unit_axes(geom),
    }
}

fn wire_node(eval: &SceneEval) -> usize {
    eval.graph
        .nodes()
        .find(|(_, n)| n.name == "Wire")
        .map(|(o, _)| o.index)
        .expect("node Wire")
}

/// The stored bind pose equals the FBX clusters' bind TMs and mesh TM.
#[test]
fn wire_physique_bind_pose_matches_the_fbx_clusters() {
    let eval = maxfs_tests::corpus_eval(WIRE);
    let node = wire_node(&eval);
    let phy = physique::node_physique(&eval, node)
        .expect("Physique")
        .expect("decodes");
    let bind = phy.bind.as_ref().expect("bind pose decodes");
    assert_eq!(bind.bones.len(), 18, "one link table entry per slot");
    let f = fbx();
    assert_eq!(f.bind.len(), 8, "Bone001..Bone008");
    for (name, theirs) in &f.bind {
        let ours = phy
            .bind_tm(node_named(&eval.graph, name))
            .unwrap_or_else(|| panic!("{name}: no stored TM"));
        let d = max_diff(&ours, theirs);
        assert!(d < 1e-4, "{name}: bind TM {d}");
    }
    let d = max_diff(&bind.mesh.expect("mesh TM"), &f.mesh_bind);
    assert!(d < 1e-5, "mesh bind TM {d}");
}

/// The FBX's skinning at the bone TMs `bones` (by name), per vertex it weights.
fn fbx_skinned(f: &Fbx, bones: &BTreeMap<String, Mat43>) -> Vec<Option<Vec3>> {
    f.world
        .iter()
        .zip(&f.weights)
        .map(|(p, ws)| {
            if ws.is_empty() {
                return None;
            }
            let mut acc = Vec3::default();
            for (b, w) in ws {
                let delta = invert(&f.bind[b]).then(&bones[b]);
                acc = acc.plus(delta.transform_point(*p).scale(*w));
            }
            Some(acc)
        })
        .collect()
}

/// Deforms Physique's attach positions at `t` and compares them, in world
/// space, with the FBX's skinning at the same bone TMs; returns the largest
/// distance and how many vertices were compared.
fn compare(eval: &SceneEval, f: &Fbx, t: i32) -> (f64, usize, f64) {
    let node = wire_node(eval);
    let phy = physique::node_physique(eval, node)
        .expect("Physique")
        .expect("decodes");
    let mut points: Vec<Vec3> = phy
        .local
        .init_positions
        .iter()
        .map(|p| p.expect("attach position"))
        .collect();
    let before = points.clone();
    deform::deform(eval, node, &phy, &mut points, t).expect("Physique deforms");
    let obj = eval.object_tm(node, t);
    let bones: BTreeMap<String, Mat43> = f
        .bind
        .keys()
        .map(|b| (b.clone(), eval.world_tm(node_named(&eval.graph, b), t)))
        .collect();
    let theirs = fbx_skinned(f, &bones);
    assert_eq!(theirs.len(), points.len());
    let (mut worst, mut n, mut moved) = (0.0f64, 0, 0.0f64);
    for ((p, b), q) in points.iter().zip(&before).zip(&theirs) {
        let Some(q) = q else { continue };
        worst = worst.max(dist(obj.transform_point(*p), *q));
        moved = moved.max(dist(*p, *b));
        n += 1;
    }
    (worst, n, moved)
}

/// At the stored pose the deformation is the identity and lands on the FBX
/// mesh; in a copy with the bones animated it follows the FBX's skinning
/// at every sampled tick.
#[test]
fn wire_physique_deforms_like_the_fbx_skin() {
    let f = fbx();
    let eval = maxfs_tests::corpus_eval(WIRE);
    // The wire is 47.2 units long; 1e-5 of it.
    let tol = 47.2 * 1e-5;
    let (worst, n, moved) = compare(&eval, &f, 0);
    assert_eq!(n, 228, "the vertices the FBX weights");
    assert!(worst < tol, "bind pose: {worst}");
    assert!(moved < tol, "bind pose moves vertices by {moved}");

    // Animate Bone001 (the root: everything follows), Bone003 and Bone006
    // about their Z axes from 0 at tick 0 to the given angle at tick 4800.
    let mut e = SceneEdit::open(WIRE);
    for (bone, angle) in [("Bone001", 0.3f32), ("Bone003", 0.5), ("Bone006", -0.7)] {
        let n = e.node(bone);
        let prs = e.reference(n, 0);
        let euler = e.reference(prs, 1);
        let z = e.reference(euler, 2);
        assert_eq!(
            e.graph.objects[z].class.as_ref().map(|c| c.name.as_str()),
            Some("Bezier Float")
        );
        let mut keys = Vec::new();
        for (time, value) in [(0i32, 0.0f32), (4800, angle)] {
            keys.extend(time.to_le_bytes());
            keys.extend(0u32.to_le_bytes());
            for x in [value, 0.0, 0.0, 1.0 / 3.0, 1.0 / 3.0] {
                keys.extend(x.to_le_bytes());
            }
        }
        e.put_nested_leaf(z, &[0x7127], 0x2525, keys);
    }
    let doc: Document = e.finish();
    let posed = SceneEval::from_document(doc).expect("posed scene");
    let b6 = node_named(&posed.graph, "Bone006");
    let mut worst_all = 0.0f64;
    for t in [1200, 2400, 4800] {
        let (worst, n, moved) = compare(&posed, &f, t);
        assert_eq!(n, 228);
        assert!(worst < tol, "tick {t}: {worst}");
        assert!(
            moved > 1.0,
            "tick {t}: the bones must move the mesh ({moved})"
        );
        worst_all = worst_all.max(worst);
    }
    // The pose really changed the bones.
    let d = max_diff(&posed.world_tm(b6, 4800), &eval.world_tm(b6, 4800));
    assert!(d > 1.0, "Bone006 moved by {d}");
    eprintln!("Physique vs FBX skinning: worst {worst_all:.3e} (tolerance {tol:.1e})");
}

/// Damaged link tables (word edits, cuts and extensions of the leaves of
/// Wire's Physique modifier chunks) give errors or bind TMs, never a panic,
/// and never more TMs than link entries.
#[test]
fn mutated_link_tables_are_an_error_not_a_panic() {
    use maxfs_scene::chunk::Chunk;
    use maxfs_scene::eval::modifier::physique::frames;
    let eval = maxfs_tests::corpus_eval(WIRE);
    let node = wire_node(&eval);
    let phy = physique::node_physique(&eval, node)
        .expect("Physique")
        .expect("decodes");
    let chunks: Vec<Chunk> = eval.chunks(phy.modifier).to_vec();
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
    fn edit(c: &Chunk, path: &[usize], r: u64) -> Chunk {
        match path.split_first() {
            None => {
                let mut p = c.payload().unwrap_or(&[]).to_vec();
                match r % 3 {
                    0 if p.len() >= 4 => {
                        let at = (r >> 8) as usize % (p.len() - 3);
                        p[at..at + 4].copy_from_slice(&((r >> 32) as u32).to_le_bytes());
                    }
                    1 => p.truncate((r >> 8) as usize % (p.len() + 1)),
                    _ => p.extend(((r >> 16) as u32).to_le_bytes()),
                }
                Chunk::leaf(c.id, p)
            }
            Some((&i, rest)) => Chunk::container(
                c.id,
                c.children()
                    .iter()
                    .enumerate()
                    .map(|(k, x)| if k == i { edit(x, rest, r) } else { x.clone() })
                    .collect(),
            ),
        }
    }
    let mut paths = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        leaves(c, vec![i], &mut paths);
    }
    let mut state = 0x6c69_6e6b_7461_626cu64;
    let (mut refused, mut read) = (0, 0);
    for _ in 0..2000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let path = &paths[state as usize % paths.len()];
        let mut damaged = chunks.clone();
        damaged[path[0]] = edit(&chunks[path[0]], &path[1..], state.rotate_left(17));
        match frames::bone_tms(&damaged) {
            Ok(tms) => {
                assert!(tms.len() <= 18);
                read += 1;
            }
            Err(e) => {
                assert!(e.to_string().starts_with("Physique: "), "{e}");
                refused += 1;
            }
        }
    }
    assert!(refused > 0 && read > 0, "{refused} refused, {read} read");
}
