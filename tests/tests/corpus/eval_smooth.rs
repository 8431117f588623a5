//! TurboSmooth against references another tool wrote. Kenjis_chair.max's
//! two boxes at 9 iterations (1.57 million quads each) are beyond the size we
//! evaluate (`MAX_SMOOTH_QUADS`, the mount's memory budgets): they must be
//! refused naming that limit, with the count the cage predicts; without the
//! limit the file's vertex total equalled Max's Mesh Totals (3,147,430). Each
//! other smoothed node is checked against the FBX its author exported from the
//! same scene (ref/kenji-room), which holds the unsmoothed cage: the cage's
//! vertex, edge and face counts give the subdivided counts (V + E + F at the
//! first step; a closed quad mesh of F faces then has 2F edges). The FBX
//! cages are the base objects (the exporter left out the whole stack; our base
//! meshes match them to 2e-7), and every Catmull-Clark point is a convex
//! combination of cage points: TurboSmooth's output (the stack without the
//! Bend above it on the chamfer boxes) lies inside the FBX cage's bounding
//! box, and pulls the cage's corners in.

use maxfs_scene::eval::core::memo::Stack;
use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::modifier::turbo_smooth::{MAX_SMOOTH_QUADS, TURBO_SMOOTH};
use maxfs_scene::eval::objects::primitive::block_params;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;

use crate::eval_fbx::{diagonal, fbx_world_vertices, load_fbx, our_world_vertices, worst_nearest};

fn bounds(pts: &[[f64; 3]]) -> ([f64; 3], [f64; 3]) {
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for p in pts {
        for i in 0..3 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
    }
    (lo, hi)
}

#[test]
fn turbo_smoothed_nodes_match_the_fbx_cages() {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join("max/kenji-room/Kenjis_chair.max")).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
    let scene = load_fbx(
        &corpus.join("ref/kenji-room/Kenjis_Chair.FBX"),
        unit.metres_per_unit,
    );
    let (mut checked, mut refused) = (0, 0);
    for (o, n) in eval.graph.nodes() {
        let Some((stack, _)) = eval.modifier_stack(o.index) else {
            continue;
        };
        let Some(ts) = stack.iter().find(|a| a.class == TURBO_SMOOTH) else {
            continue;
        };
        let pb = pblock::reference(&eval.graph, ts.object, 0).expect("parameter block");
        let iterations = block_params(&eval, pb, 0).expect("params").int_or(0, -1);
        let fbx_node = scene
            .nodes
            .iter()
            .find(|x| x.element.name.as_ref() == n.name.as_str())
            .unwrap_or_else(|| panic!("no FBX node {}", n.name));
        let cage = fbx_node.mesh.as_ref().expect("FBX mesh");
        let (mut v, mut e, mut f) = (cage.num_vertices, cage.num_edges, cage.num_faces);
        for _ in 0..iterations {
            let quads: usize = if v == cage.num_vertices {
                cage.faces.iter().map(|x| x.num_indices as usize).sum()
            } else {
                4 * f
            };
            (v, e, f) = (v + e + f, 2 * quads, quads);
        }
        let evaluated = eval.mesh(o.index, 0).expect("mesh");
        if f > MAX_SMOOTH_QUADS {
            let e = evaluated.expect_err("beyond the limit");
            eprintln!("{}: {f} quads refused: {e}", n.name);
            assert!(
                e.to_string().contains(&format!("give {f} faces")),
                "{}: {e}",
                n.name
            );
            refused += 1;
            continue;
        }
        let mesh = evaluated.expect("evaluated");
        let ours = our_world_vertices(&eval, o.index);
        eprintln!(
            "{}: {iterations} iterations, cage {} vertices / {} edges / {} faces, expected {v} vertices {f} quads, ours {} vertices {} triangles",
            n.name,
            cage.num_vertices,
            cage.num_edges,
            cage.num_faces,
            ours.len(),
            mesh.faces.len()
        );
        assert_eq!(ours.len(), v, "{}", n.name);
        assert_eq!(mesh.faces.len(), 2 * f, "{}", n.name);
        let cage_pts = fbx_world_vertices(&scene, &n.name).expect("cage");
        // TurboSmooth's own output: the stack without what lies above it.
        let above: Vec<usize> = stack
            .iter()
            .take_while(|a| a.object != ts.object)
            .map(|a| a.object)
            .collect();
        let request = match above[..] {
            [] => Stack::Full,
            [m] => Stack::Without(m),
            _ => panic!("{}: more than one modifier above TurboSmooth", n.name),
        };
        let tm = eval.object_tm(o.index, 0);
        let smoothed: Vec<[f64; 3]> = eval
            .mesh_with(o.index, 0, request)
            .expect("mesh")
            .expect("TurboSmooth's output")
            .vertices
            .iter()
            .map(|v| tm.transform_point(*v).to_array())
            .collect();
        let ((clo, chi), (lo, hi)) = (bounds(&cage_pts), bounds(&smoothed));
        let size = diagonal(&cage_pts);
        for i in 0..3 {
            assert!(
                lo[i] >= clo[i] - 1e-4 * size && hi[i] <= chi[i] + 1e-4 * size,
                "{}: smoothed box {lo:?}..{hi:?} leaves the cage's {clo:?}..{chi:?}",
                n.name
            );
        }
        // Smoothing pulls the cage's corners in: some cage vertex is no
        // longer a point of the result.
        let moved = worst_nearest(&cage_pts, &smoothed);
        assert!(
            moved > 1e-3 * size,
            "{}: smoothing moved no cage vertex",
            n.name
        );
        checked += 1;
    }
    assert_eq!(
        (checked, refused),
        (2, 2),
        "TurboSmooth nodes of Kenjis_chair"
    );
}
