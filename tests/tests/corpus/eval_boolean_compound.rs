//! The Boolean compounds of Max 2017+ on the real corpus.
//!
//! ProBoolean (Kenjis_Room.max: Box002, Box004, Box006) is the result mesh Max
//! stored; it is compared with the FBX the author exported from the same scene
//! (ref/kenji-room/Kenjis_Room.FBX): vertex and triangle counts, world positions
//! as sets both ways.
//!
//! The Max 2017+ Boolean (Robot.max: 12 spheres minus boxes) stores no result
//! and the corpus has no export of it, so its result is checked against the
//! definition of the operation on its operands: at points of a grid over the
//! operands, "inside the result" (ray parity, three directions) must equal
//! "inside A and not inside B" (or ∪, ∩); the result is closed, and its volume
//! equals the volume the grid measures.

use maxfs_scene::eval::core::math::Vec3;
use maxfs_scene::eval::objects::boolean::{self, Op};
use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;

use crate::eval_fbx::{diagonal, fbx_triangles, fbx_world_vertices, load_fbx, worst_nearest};

const PRO_BOOLEANS: &[&str] = &["Box002", "Box004", "Box006"];

#[test]
fn pro_boolean_stored_result_matches_fbx() {
    let dir = corpus_dir();
    let doc = Document::open(&dir.join("max/kenji-room/Kenjis_Room.max")).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
    let scene = load_fbx(
        &dir.join("ref/kenji-room/Kenjis_Room.FBX"),
        unit.metres_per_unit,
    );
    let mut failures = Vec::new();
    for name in PRO_BOOLEANS {
        let (o, _) = eval
            .graph
            .nodes()
            .find(|(_, n)| n.name == *name)
            .unwrap_or_else(|| panic!("no {name}"));
        let mesh = match eval.mesh(o.index, 0) {
            Some(Ok(m)) => m,
            other => panic!("{name}: not evaluated: {other:?}"),
        };
        let tm = eval.object_tm(o.index, 0);
        let ours: Vec<[f64; 3]> = mesh
            .vertices
            .iter()
            .map(|v| tm.transform_point(*v).to_array())
            .collect();
        let theirs = fbx_world_vertices(&scene, name).expect("FBX mesh");
        let size = diagonal(&theirs);
        let worst = worst_nearest(&theirs, &ours).max(worst_nearest(&ours, &theirs));
        let (tris, fbx_tris) = (mesh.faces.len(), fbx_triangles(&scene, name));
        eprintln!(
            "{name}: {} / {} vertices, {tris} / {fbx_tris} triangles, worst {:.2e} of size {size:.1}",
            ours.len(),
            theirs.len(),
            worst / size
        );
        if ours.len() != theirs.len() || tris != fbx_tris || worst > 1e-5 * size {
            failures.push(name.to_string());
        }
    }
    assert!(failures.is_empty(), "differ from the FBX: {failures:?}");
}

/// Whether the ray from `p` along `d` crosses triangle `t` (Möller–Trumbore).
fn crosses(p: Vec3, d: Vec3, t: [Vec3; 3]) -> bool {
    let (e1, e2) = (t[1].minus(t[0]), t[2].minus(t[0]));
    let h = d.cross(e2);
    let a = e1.dot(h);
    if a.abs() < 1e-12 {
        return false;
    }
    let s = p.minus(t[0]);
    let u = s.dot(h) / a;
    if !(0.0..=1.0).contains(&u) {
        return false;
    }
    let q = s.cross(e1);
    let v = d.dot(q) / a;
    if v < 0.0 || u + v > 1.0 {
        return false;
    }
    e2.dot(q) / a > 0.0
}

/// Inside by ray parity along three directions; None when they disagree (a
/// ray grazing an edge).
fn inside(m: &Mesh, p: Vec3) -> Option<bool> {
    let dirs = [
        Vec3(0.5812, 0.5741, 0.5771),
        Vec3(-0.3127, 0.8421, 0.4393),
        Vec3(0.6901, -0.1234, -0.7129),
    ];
    let votes: Vec<bool> = dirs
        .iter()
        .map(|&d| {
            m.faces
                .iter()
                .filter(|f| crosses(p, d, f.v.map(|i| m.vertices[i as usize])))
                .count()
                % 2
                == 1
        })
        .collect();
    (votes.iter().all(|&v| v == votes[0])).then_some(votes[0])
}

fn signed_volume(m: &Mesh) -> f64 {
    m.faces
        .iter()
        .map(|f| {
            let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
            a.dot(b.cross(c)) / 6.0
        })
        .sum()
}

fn closed(m: &Mesh) -> bool {
    let mut edges = std::collections::HashMap::new();
    for f in &m.faces {
        for k in 0..3 {
            *edges.entry((f.v[k], f.v[(k + 1) % 3])).or_insert(0) += 1;
        }
    }
    edges
        .iter()
        .all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1))
}

#[test]
fn boolean3_results_follow_their_operands() {
    let dir = corpus_dir();
    let doc = Document::open(&dir.join("max/prims-greejesh/Robot.max")).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (o, n) in eval.graph.nodes() {
        let Some((_, base)) = eval.modifier_stack(o.index) else {
            continue;
        };
        let is_b3 = eval.graph.objects[base]
            .class
            .as_ref()
            .is_some_and(|c| c.class_id == boolean::BOOLEAN3);
        if !is_b3 {
            continue;
        }
        let result = match eval.base_mesh(o.index) {
            Some(Ok(m)) => m,
            other => panic!("{}: not evaluated: {other:?}", n.name),
        };
        let operands = boolean::boolean3_operands(&eval, base, 0).expect("operands");
        let (lo, hi) = maxfs_tests::bounds(operands.iter().flat_map(|(m, _)| &m.vertices));
        // An irrational-looking offset keeps grid points off the primitives'
        // planes of symmetry.
        let steps = 14;
        let cell: [f64; 3] = std::array::from_fn(|i| (hi[i] - lo[i]) / steps as f64);
        let (mut wrong, mut ambiguous, mut inside_count) = (0, 0, 0);
        for i in 0..steps {
            for j in 0..steps {
                for k in 0..steps {
                    let p = Vec3(
                        lo[0] + (i as f64 + 0.4142) * cell[0],
                        lo[1] + (j as f64 + 0.7321) * cell[1],
                        lo[2] + (k as f64 + 0.2361) * cell[2],
                    );
                    let mut want = None::<bool>;
                    let mut unsure = false;
                    for (m, op) in &operands {
                        let Some(x) = inside(m, p) else {
                            unsure = true;
                            break;
                        };
                        want = Some(match (want, op) {
                            (None, _) | (_, None) => x,
                            (Some(w), Some(Op::Union)) => w || x,
                            (Some(w), Some(Op::Intersection)) => w && x,
                            (Some(w), Some(Op::AMinusB)) => w && !x,
                            (Some(w), Some(Op::BMinusA)) => x && !w,
                        });
                    }
                    let got = inside(&result, p);
                    match (unsure, want, got) {
                        (false, Some(w), Some(g)) => {
                            inside_count += usize::from(g);
                            if w != g {
                                wrong += 1;
                            }
                        }
                        _ => ambiguous += 1,
                    }
                }
            }
        }
        let grid_volume = inside_count as f64 * cell[0] * cell[1] * cell[2];
        let volume = signed_volume(&result);
        eprintln!(
            "{}: {} vertices, {} triangles, {wrong} wrong of {} grid points ({ambiguous} \
             ambiguous), volume {volume:.1}, grid {grid_volume:.1}",
            n.name,
            result.vertices.len(),
            result.faces.len(),
            steps * steps * steps
        );
        // The grid measures volume to within its cell layer over the surface.
        let tolerance = 0.15 * volume.abs();
        if wrong != 0
            || ambiguous > 20
            || !closed(&result)
            || (volume - grid_volume).abs() > tolerance
        {
            failures.push(n.name.clone());
        }
        checked += 1;
    }
    assert_eq!(checked, 12, "Robot.max has 12 Booleans");
    assert!(failures.is_empty(), "wrong Boolean results: {failures:?}");
}
