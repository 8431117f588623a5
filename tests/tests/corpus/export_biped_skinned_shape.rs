//! The skinned `.shape` of each biped-ld35 character (a Skin over `B_*` bones
//! Link-Constrained to the Biped) against the FBX 3ds Max's exporter wrote
//! from the same scene (ref/biped-ld35, read with ufbx in Max's axes and the
//! file's unit). The FBX is the independent reference for three things:
//!
//! - **bones**: the shape's bone names are the FBX clusters' bones that carry
//!   weight;
//! - **vertices at bind**: every shape vertex (world space, as the plug-in
//!   writes a skinned mesh) is within 1e-4 × the rig's height of an FBX
//!   vertex placed by its mesh node (not animated in any take, so at bind),
//!   and every FBX vertex of a shape vertex, both ways. The clusters' own
//!   mesh bind (`geometry_to_world`, the FBX `Transform`) is not that
//!   placement in every file (Yellow@Spawn's sits ~1150 units up) and is not
//!   used;
//! - **weights**: each shape vertex's bone weights (palette → matrix block →
//!   bone name) equal, within 1e-3, those of an FBX vertex at that position
//!   after NeL's `buildSkinning` rule — the 4 heaviest influences kept and
//!   renormalised (seed §10b) — applied here to the FBX's cluster weights.

use std::collections::{BTreeSet, HashMap};

use crate::eval_biped_motion::load_fbx;
use crate::export_skinned_shape::{channel, floats, key, shape_weights, Weights};
use maxfs_exporters::nel::export::ExportKind;
use maxfs_exporters::nel::shape::Shape;
use maxfs_exporters::nel::{read_nel, NelFile};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;

const FILES: &[&str] = &[
    "Yellow",
    "Yellow@Spawn",
    "Player",
    "Player@Idle",
    "Player@Run",
    "Red@Run",
    "Red@Spawn",
];
/// Positions agree within this fraction of the rig's height.
const POSITION: f64 = 1e-4;
/// Weights agree within this (in `key` units of 1e-4: 10).
const WEIGHT: i64 = 10;
/// NeL keeps this many influences per vertex.
const NEL_INFLUENCES: usize = 4;

/// Per FBX vertex: its world position (the mesh node is not animated: its
/// placement is the bind) and its NeL-ruled weights; and the most influences
/// a vertex has before the rule.
type FbxVertex = (Option<[f64; 3]>, Weights);

fn fbx_vertices(node: &ufbx::Node, mesh: &ufbx::Mesh) -> (Vec<FbxVertex>, usize) {
    let mut inf: Vec<Vec<(String, f64)>> = vec![Vec::new(); mesh.num_vertices];
    let mut pos: Vec<Option<[f64; 3]>> = vec![None; mesh.num_vertices];
    for c in mesh.skin_deformers.iter().flat_map(|d| d.clusters.iter()) {
        let Some(bone) = c.bone_node.as_ref() else {
            continue;
        };
        for (&v, &w) in c.vertices.iter().zip(c.weights.iter()) {
            let v = v as usize;
            if w <= 0.0 || v >= mesh.num_vertices {
                continue;
            }
            inf[v].push((bone.element.name.to_string(), w));
            let p = ufbx::transform_position(&node.geometry_to_world, mesh.vertices[v]);
            pos[v].get_or_insert([p.x, p.y, p.z]);
        }
    }
    let most = inf.iter().map(Vec::len).max().unwrap_or(0);
    let v = inf
        .into_iter()
        .zip(pos)
        .map(|(mut i, p)| {
            i.sort_by(|a, b| b.1.total_cmp(&a.1));
            i.truncate(NEL_INFLUENCES);
            let sum: f64 = i.iter().map(|x| x.1).sum();
            let mut w = Weights::new();
            for (b, x) in i {
                *w.entry(b).or_default() += key(x / sum);
            }
            (p, w)
        })
        .collect();
    (v, most)
}

fn close(a: &Weights, b: &Weights) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| (v - w).abs() <= WEIGHT))
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt()
}

#[test]
fn biped_skinned_shapes_match_the_fbx_skin() {
    let corpus = corpus_dir();
    let (mut report, mut failures) = (Vec::new(), Vec::new());
    for name in FILES {
        let max = corpus.join("max/biped-ld35").join(format!("{name}.max"));
        let doc = Document::open(&max).expect("max file");
        let eval = SceneEval::from_document(doc.clone()).expect("scene");
        let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
        let height = eval
            .biped_rigs()
            .values()
            .find_map(|r| r.as_ref().ok()?.figure.height)
            .expect("a rig with a height");
        let scene = load_fbx(
            &corpus.join("ref/biped-ld35").join(format!("{name}.FBX")),
            unit.metres_per_unit,
        );
        let out = maxfs_tests::export_doc(name, &doc, &[ExportKind::Shape]);
        let skinned: Vec<&ufbx::Node> = scene
            .nodes
            .iter()
            .filter(|n| {
                n.mesh
                    .as_ref()
                    .is_some_and(|m| !m.skin_deformers.is_empty())
            })
            .map(|n| &**n)
            .collect();
        if skinned.is_empty() {
            failures.push(format!("{name}: no skinned mesh in the FBX"));
        }
        for node in skinned {
            let mesh_name = node.element.name.to_string();
            let file = format!("{}.shape", mesh_name.to_lowercase());
            let Some(o) = out.outputs.iter().find(|o| o.name == file) else {
                failures.push(format!("{name}: no {file}; errors {:?}", out.errors));
                continue;
            };
            let f = read_nel(&o.bytes, &o.name).expect("reads back");
            let mesh = match &f {
                NelFile::Shape(s) => match s.shape.get() {
                    Some(Shape::CMesh(m)) => m,
                    other => panic!("{name}: {file} is {other:?}"),
                },
                _ => panic!("{name}: {file} is not a shape"),
            };
            let geom = mesh.geom.as_ref().expect("geom");
            assert!(geom.skinned.get(), "{file} is skinned");
            let fmesh = node.mesh.as_ref().expect("a mesh");
            let (theirs, most) = fbx_vertices(node, fmesh);

            // Bones: the shape's against the FBX clusters' weighted bones.
            let ours_bones: BTreeSet<String> = geom
                .bones_name
                .as_ref()
                .map(|b| b.iter().cloned().collect())
                .unwrap_or_default();
            let their_bones: BTreeSet<String> =
                theirs.iter().flat_map(|(_, w)| w.keys().cloned()).collect();
            if ours_bones != their_bones {
                failures.push(format!(
                    "{name} {file}: bones {ours_bones:?}, FBX weights {their_bones:?}"
                ));
            }

            // Vertices and their weights.
            let p = floats(channel(mesh, "position"));
            let ws = shape_weights(mesh);
            let tol = POSITION * height;
            let (mut worst_pos, mut worst_w, mut unmatched) = (0.0f64, 0i64, Vec::new());
            let mut used = vec![false; theirs.len()];
            let mut index: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
            let cell = |q: [f64; 3]| q.map(|x| (x / (4.0 * tol)).floor() as i64);
            for (i, (q, _)) in theirs.iter().enumerate() {
                if let Some(q) = q {
                    index.entry(cell(*q)).or_default().push(i);
                }
            }
            for (v, w) in ws.iter().enumerate() {
                let at = [
                    f64::from(p[3 * v]),
                    f64::from(p[3 * v + 1]),
                    f64::from(p[3 * v + 2]),
                ];
                let c = cell(at);
                let mut near: Vec<(f64, usize)> = Vec::new();
                for dx in -1..=1 {
                    for dy in -1..=1 {
                        for dz in -1..=1 {
                            for &i in index
                                .get(&[c[0] + dx, c[1] + dy, c[2] + dz])
                                .into_iter()
                                .flatten()
                            {
                                let d = theirs[i].0.map_or(f64::MAX, |q| dist(at, q));
                                if d <= tol {
                                    near.push((d, i));
                                }
                            }
                        }
                    }
                }
                let Some(&(d, _)) = near.iter().min_by(|a, b| a.0.total_cmp(&b.0)) else {
                    unmatched.push(format!(
                        "vertex {v} at {at:?}: no FBX vertex within {tol:.2e}"
                    ));
                    continue;
                };
                worst_pos = worst_pos.max(d);
                let best = near
                    .iter()
                    .map(|&(_, i)| {
                        let t = &theirs[i].1;
                        let off = if t.len() == w.len() && t.keys().eq(w.keys()) {
                            t.iter().map(|(k, x)| (x - w[k]).abs()).max().unwrap_or(0)
                        } else {
                            i64::MAX
                        };
                        (off, i)
                    })
                    .min();
                match best {
                    Some((off, i)) if off <= WEIGHT => {
                        worst_w = worst_w.max(off);
                        used[i] = true;
                        debug_assert!(close(w, &theirs[i].1));
                    }
                    _ => unmatched.push(format!(
                        "vertex {v}: weights {w:?}, FBX at that place {:?}",
                        near.iter().map(|&(_, i)| &theirs[i].1).collect::<Vec<_>>()
                    )),
                }
            }
            let unused = used.iter().filter(|u| !**u).count();
            report.push(format!(
                "{name} {file}: {} shape vertices, {} FBX vertices ({unused} not met), {} bones, at most {most} FBX influences a vertex; worst position {:.2e} × height {height:.2}, worst weight {:.1e}",
                ws.len(),
                theirs.len(),
                ours_bones.len(),
                worst_pos / height,
                worst_w as f64 * 1e-4
            ));
            if !unmatched.is_empty() {
                failures.push(format!(
                    "{name} {file}: {} of {} vertices unmatched, first {:?}",
                    unmatched.len(),
                    ws.len(),
                    &unmatched[..unmatched.len().min(5)]
                ));
            }
            if unused != 0 {
                failures.push(format!(
                    "{name} {file}: {unused} FBX vertices have no shape vertex"
                ));
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
