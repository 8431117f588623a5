//! Extended primitives against the FBX their authors exported from the same
//! scenes (ref/kenji-room, read with ufbx): world-space vertex positions as
//! sets, triangle counts, vertex order (index by index) and that every
//! triangle lies in one FBX polygon with the same winding.

use maxfs_scene::eval::core::coverage::scene_gaps;
use maxfs_scene::eval::{core::controller::Controller, core::transform::invert, Mat43, SceneEval};
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;

use crate::eval_fbx::{diagonal, fbx_world_vertices, load_fbx, worst_nearest};

/// ChamferBox nodes whose whole stack we evaluate, each (max, fbx, node).
const CHAMFER_BOXES: &[(&str, &str, &str)] = &[
    ("Kenjis_Bed.max", "Kenjis_Bed.FBX", "ChamferBox001"),
    ("Kenjis_Bed.max", "Kenjis_Bed.FBX", "ChamferBox002"),
    ("Kenjis_Sofa.max", "Kenjis_Sofa.FBX", "ChamferBox001"),
    ("Kenjis_Sofa.max", "Kenjis_Sofa.FBX", "ChamferBox002"),
];

fn fbx_triangles(scene: &ufbx::Scene, name: &str) -> usize {
    let node = scene
        .nodes
        .iter()
        .find(|n| n.element.name.as_ref() == name)
        .expect("FBX node");
    let mesh = node.mesh.as_ref().expect("FBX mesh");
    mesh.faces
        .iter()
        .map(|f| (f.num_indices as usize).saturating_sub(2))
        .sum()
}

/// World vertices with the node's local transform replaced by `local`.
fn world_with_local(eval: &SceneEval, node: usize, local: &Mat43) -> Vec<[f64; 3]> {
    let off = eval.offset_tm(node);
    let parent_world = invert(&eval.local_tm(node, 0))
        .then(&invert(&off))
        .then(&eval.object_tm(node, 0));
    let m = off.then(local).then(&parent_world);
    let mesh = eval.mesh(node, 0).expect("mesh").expect("evaluated");
    mesh.vertices
        .iter()
        .map(|p| m.transform_point(*p).to_array())
        .collect()
}

#[test]
fn chamfer_boxes_match_fbx() {
    let dir = corpus_dir();
    let mut failures = Vec::new();
    for (max, fbx, name) in CHAMFER_BOXES {
        let doc = Document::open(&dir.join("max/kenji-room").join(max)).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
        let scene = load_fbx(&dir.join("ref/kenji-room").join(fbx), unit.metres_per_unit);
        let (o, _) = eval
            .graph
            .nodes()
            .find(|(_, n)| n.name == *name)
            .unwrap_or_else(|| panic!("{max}: no {name}"));
        let node = o.index;
        let mesh = match eval.mesh(node, 0) {
            Some(Ok(m)) => m,
            other => panic!("{max} {name}: not evaluated: {other:?}"),
        };
        let theirs = fbx_world_vertices(&scene, name).expect("FBX mesh");
        let tm = eval.object_tm(node, 0);
        let ours: Vec<[f64; 3]> = mesh
            .vertices
            .iter()
            .map(|v| tm.transform_point(*v).to_array())
            .collect();
        let size = diagonal(&theirs);
        let worst = worst_nearest(&theirs, &ours).max(worst_nearest(&ours, &theirs));
        // The same placement without the scale axis (S·R·T), for the record.
        let ctl = eval.tm_controller(node).expect("TM controller");
        let Some(Controller::Prs {
            position,
            rotation,
            scale,
        }) = eval.controller(ctl)
        else {
            panic!("{name}: not a PRS node")
        };
        let plain = Mat43::scaling(eval.scale_at(*scale, 0))
            .then(&eval.rotation_at(*rotation, 0))
            .then(&Mat43::translation(eval.position_at(*position, 0)));
        let without = world_with_local(&eval, node, &plain);
        let worst_plain = worst_nearest(&theirs, &without).max(worst_nearest(&without, &theirs));
        let (tris, fbx_tris) = (mesh.faces.len(), fbx_triangles(&scene, name));
        eprintln!(
            "{max} {name}: {} / {} vertices, {tris} / {fbx_tris} triangles; worst {:.2e} of size \
             {size:.1} (without the scale axis {:.2e})",
            ours.len(),
            theirs.len(),
            worst / size,
            worst_plain / size
        );
        let fnode = scene
            .nodes
            .iter()
            .find(|n| n.element.name.as_ref() == *name)
            .expect("FBX node");
        let fm = fnode.mesh.as_ref().expect("FBX mesh");
        // Vertex order: index by index in node space.
        let off = eval.offset_tm(node);
        let misplaced = fm
            .vertices
            .iter()
            .zip(&mesh.vertices)
            .filter(|(a, b)| {
                let a = ufbx::transform_position(&fnode.geometry_to_node, **a);
                let b = off.transform_point(**b);
                ((a.x - b.0).powi(2) + (a.y - b.1).powi(2) + (a.z - b.2).powi(2)).sqrt()
                    > 1e-5 * size
            })
            .count();
        // Topology: every triangle of ours lies in one FBX polygon, wound as it.
        let polys: Vec<Vec<u32>> = fm
            .faces
            .iter()
            .map(|f| {
                (f.index_begin..f.index_begin + f.num_indices)
                    .map(|i| fm.vertex_indices[i as usize])
                    .collect()
            })
            .collect();
        let outside = mesh
            .faces
            .iter()
            .filter(|f| {
                !polys.iter().any(|p| {
                    let at = |x: u32| p.iter().position(|&y| y == x);
                    let (Some(i), Some(j), Some(k)) = (at(f.v[0]), at(f.v[1]), at(f.v[2])) else {
                        return false;
                    };
                    [i < j, j < k, k < i].iter().filter(|&&x| x).count() == 2
                })
            })
            .count();
        eprintln!("  {misplaced} vertices out of Max's order, {outside} triangles outside the FBX polygons");
        // Kenjis_Sofa.FBX predates the .max (its Box001–004 are another
        // revision): ChamferBox002's placement differs by 5.2e-4 of its size
        // without the scale axis, 1.6e-3 with it, 4.3e-4 … 2.6e-3 with any other
        // composition, so this node checks the mesh, not the placement.
        let placement_checked = !(*max == "Kenjis_Sofa.max" && *name == "ChamferBox002");
        if misplaced > 0 || outside > 0 {
            failures.push(format!("{max} {name}: layout"));
        }
        if placement_checked && worst > 1e-5 * size {
            failures.push(format!("{max} {name}: placement"));
        }
        if ours.len() != theirs.len() || tris != fbx_tris {
            failures.push(format!("{max} {name}: counts"));
        }
        // The mesh has no generated mapping: coverage says so.
        assert!(
            scene_gaps(&eval)
                .iter()
                .any(|g| g.role == "generated mapping"
                    && g.class == "ChamferBox"
                    && g.nodes.iter().any(|n| n == name)),
            "{max} {name}: generated mapping not named"
        );
    }
    assert!(failures.is_empty(), "{failures:?}");
}
