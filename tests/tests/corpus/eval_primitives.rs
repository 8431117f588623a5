//! Extended primitives against the FBX their authors exported from the same
//! scenes (ref/kenji-room, read with ufbx): world-space vertex positions as
//! sets, triangle counts, vertex order (index by index) and that every
//! triangle lies in one FBX polygon with the same winding; the ChamferBox's
//! generated mapping per face corner, and against invariants where no export
//! exists (Robot.max).

use maxfs_scene::eval::core::coverage::scene_gaps;
use maxfs_scene::eval::{core::controller::Controller, core::transform::invert, Mat43, SceneEval};
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;

use crate::eval_fbx::{diagonal, fbx_triangles, fbx_world_vertices, load_fbx, worst_nearest};

/// ChamferBox nodes whose whole stack we evaluate, each (max, fbx, node).
const CHAMFER_BOXES: &[(&str, &str, &str)] = &[
    ("Kenjis_Bed.max", "Kenjis_Bed.FBX", "ChamferBox001"),
    ("Kenjis_Bed.max", "Kenjis_Bed.FBX", "ChamferBox002"),
    ("Kenjis_Sofa.max", "Kenjis_Sofa.FBX", "ChamferBox001"),
    ("Kenjis_Sofa.max", "Kenjis_Sofa.FBX", "ChamferBox002"),
];

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
        // Its generated mapping is built: coverage no longer names it.
        assert!(
            !scene_gaps(&eval)
                .iter()
                .any(|g| g.role == "generated mapping" && g.nodes.iter().any(|n| n == name)),
            "{max} {name}: generated mapping still named in coverage"
        );
    }
    assert!(failures.is_empty(), "{failures:?}");
}

/// The ChamferBox's generated mapping against the FBX, per face corner: each
/// triangle of ours lies in one FBX polygon (checked above), and each of its
/// corners must carry that polygon's UV at the same vertex within 1e-5 and
/// the same UV index (Max's texture vertex order); the texture vertex counts
/// must be equal.
#[test]
fn chamfer_box_uvs_match_fbx() {
    let dir = corpus_dir();
    let mut failures = Vec::new();
    let mut corners = 0;
    for (max, fbx, name) in CHAMFER_BOXES {
        let doc = Document::open(&dir.join("max/kenji-room").join(max)).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let scene = load_fbx(&dir.join("ref/kenji-room").join(fbx), 1.0);
        let (o, _) = eval
            .graph
            .nodes()
            .find(|(_, n)| n.name == *name)
            .unwrap_or_else(|| panic!("{max}: no {name}"));
        let mesh = match eval.mesh(o.index, 0) {
            Some(Ok(m)) => m,
            other => panic!("{max} {name}: not evaluated: {other:?}"),
        };
        let ch = mesh
            .maps
            .iter()
            .find(|c| c.channel == 1)
            .unwrap_or_else(|| panic!("{max} {name}: no channel 1"));
        let fm = scene
            .nodes
            .iter()
            .find(|n| n.element.name.as_ref() == *name)
            .and_then(|n| n.mesh.as_ref())
            .expect("FBX mesh");
        assert!(fm.vertex_uv.exists, "{fbx} {name}: no UVs");
        // Each FBX polygon as its corners (vertex, UV index, UV).
        let polys: Vec<Vec<(u32, u32, [f64; 2])>> = fm
            .faces
            .iter()
            .map(|f| {
                (f.index_begin..f.index_begin + f.num_indices)
                    .map(|i| {
                        let uv = fm.vertex_uv[i as usize];
                        (
                            fm.vertex_indices[i as usize],
                            fm.vertex_uv.indices[i as usize],
                            [uv.x, uv.y],
                        )
                    })
                    .collect()
            })
            .collect();
        let (mut worst, mut wrong_index, mut unplaced) = (0.0f64, 0, 0);
        for (f, tf) in mesh.faces.iter().zip(&ch.faces) {
            let Some(poly) = polys
                .iter()
                .find(|p| f.v.iter().all(|v| p.iter().any(|c| c.0 == *v)))
            else {
                unplaced += 1;
                continue;
            };
            for (&v, &t) in f.v.iter().zip(tf) {
                let &(_, index, uv) = poly.iter().find(|c| c.0 == v).expect("corner");
                let ours = ch.vertices[t as usize];
                worst = worst
                    .max((f64::from(ours[0]) - uv[0]).abs())
                    .max((f64::from(ours[1]) - uv[1]).abs());
                wrong_index += usize::from(index != t);
                corners += 1;
            }
        }
        eprintln!(
            "{max} {name}: {} / {} texture vertices; {} corners, worst UV difference {worst:.2e}, \
             {wrong_index} with another UV index, {unplaced} triangles in no FBX polygon",
            ch.vertices.len(),
            fm.vertex_uv.values.len(),
            3 * mesh.faces.len()
        );
        if worst > 1e-5 || wrong_index > 0 || unplaced > 0 {
            failures.push(format!("{max} {name}: UVs"));
        }
        if ch.vertices.len() != fm.vertex_uv.values.len() {
            failures.push(format!("{max} {name}: texture vertex count"));
        }
    }
    assert!(corners > 0);
    assert!(failures.is_empty(), "{failures:?}");
}

/// Robot.max's ChamferBox (5 fillet segments; no export) and the FBX-checked
/// ones against invariants of a mapping seen from outside: every UV in the
/// unit square, every texture face wound as its face (positive area), the
/// side bands tiling the unit square exactly (total area 1) and the top and
/// bottom parts covering the share of the outer box's footprint that the
/// outline at the fillet's end encloses.
#[test]
fn chamfer_box_mapping_invariants() {
    let dir = corpus_dir();
    let cases = CHAMFER_BOXES
        .iter()
        .map(|(max, _, name)| (format!("max/kenji-room/{max}"), *name))
        .chain([("max/prims-greejesh/Robot.max".to_string(), "ChamferBox001")]);
    for (max, name) in cases {
        let doc = Document::open(&dir.join(&max)).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let (o, _) = eval
            .graph
            .nodes()
            .find(|(_, n)| n.name == name)
            .unwrap_or_else(|| panic!("{max}: no {name}"));
        let mesh = match eval.mesh(o.index, 0) {
            Some(Ok(m)) => m,
            other => panic!("{max} {name}: not evaluated: {other:?}"),
        };
        let ch = mesh
            .maps
            .iter()
            .find(|c| c.channel == 1)
            .expect("channel 1");
        assert!(
            ch.vertices
                .iter()
                .all(|t| (0.0..=1.0).contains(&t[0]) && (0.0..=1.0).contains(&t[1])),
            "{max} {name}: UV outside the unit square"
        );
        // Extents of the box's footprint, from the vertices.
        let ext = |k: usize| {
            let vals = mesh.vertices.iter().map(|v| v.to_array()[k]);
            vals.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)))
        };
        let ((x0, x1), (y0, y1)) = (ext(0), ext(1));
        let (mut top, mut side, mut bottom) = (0.0, 0.0, 0.0);
        // The outline where the fillets meet the straight sides: the corners
        // of the vertical faces.
        let mut outline: Vec<[f64; 2]> = Vec::new();
        for (f, tf) in mesh.faces.iter().zip(&ch.faces) {
            let t = tf.map(|i| ch.vertices[i as usize]);
            let area = 0.5
                * f64::from(
                    (t[1][0] - t[0][0]) * (t[2][1] - t[0][1])
                        - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]),
                );
            assert!(
                area > 0.0,
                "{max} {name}: texture face {tf:?} flipped or empty"
            );
            let p = f.v.map(|i| mesh.vertices[i as usize]);
            let n = p[1].minus(p[0]).cross(p[2].minus(p[0]));
            if n.2.abs() < 1e-9 * n.len() {
                side += area;
                outline.extend(p.iter().map(|v| [v.0, v.1]));
            } else if n.2 > 0.0 {
                top += area;
            } else {
                bottom += area;
            }
        }
        // The outline is convex around the pivot: sorted by angle, one copy of
        // each point, its area by the shoelace formula.
        outline.sort_by(|a, b| a[1].atan2(a[0]).total_cmp(&b[1].atan2(b[0])));
        outline.dedup_by(|a, b| (a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9);
        let shoelace = 0.5
            * (0..outline.len())
                .map(|i| {
                    let (a, b) = (outline[i], outline[(i + 1) % outline.len()]);
                    a[0] * b[1] - b[0] * a[1]
                })
                .sum::<f64>();
        let share = shoelace / ((x1 - x0) * (y1 - y0));
        eprintln!(
            "{max} {name}: UV area top {top:.6}, sides {side:.6}, bottom {bottom:.6}; \
             outline share of the footprint {share:.6} ({} outline points)",
            outline.len()
        );
        assert!(
            (side - 1.0).abs() < 1e-5,
            "{max} {name}: sides cover {side}"
        );
        assert!((top - share).abs() < 1e-5, "{max} {name}: top covers {top}");
        assert!(
            (bottom - share).abs() < 1e-5,
            "{max} {name}: bottom covers {bottom}"
        );
    }
}
