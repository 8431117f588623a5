//! Evaluated scenes against the FBX their authors exported from the same .max
//! files (ref/kenji-room, ref/max2024-rico; read with ufbx, converted by ufbx
//! to Max's Z-up axes and the file's system unit).
//!
//! World-space vertices of nodes with a non-uniform scale and a stored scale
//! axis against the FBX's. The local transform is `Q⁻¹·S·Q·R·T` (the scale
//! factors act along the scale axis `Q`, docs/evaluation.md); on these nodes
//! the axis is a turn about a scaled axis or a few 1e-8 rad, so the FBX, which
//! cannot hold shear, still pins the factors, the rotation and the placement.

#[path = "../../dev/fbx.rs"]
pub(crate) mod fbx_dev;

use maxfs_scene::eval::SceneEval;
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;

/// Nodes with a non-uniform scale whose mesh we evaluate, each (max, fbx, node).
const NODES: &[(&str, &str, &str)] = &[
    (
        "max/kenji-room/Kenjis_Room.max",
        "ref/kenji-room/Kenjis_Room.FBX",
        "Box007",
    ),
    (
        "max/kenji-room/Kenjis_Room.max",
        "ref/kenji-room/Kenjis_Room.FBX",
        "Box008",
    ),
    (
        "max/kenji-room/Kenjis_Wardrobe.max",
        "ref/kenji-room/Kenjis_Wardrobe.FBX",
        "Cylinder003",
    ),
];

/// The FBX scene in Max's axes (right-handed Z-up) and in `metres` per unit.
pub(crate) fn load_fbx(path: &std::path::Path, metres: f64) -> ufbx::SceneRoot {
    fbx_dev::load_in_max_axes(path.to_str().expect("utf-8 path"), metres)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Triangles in FBX node `name`'s mesh: each polygon of n corners counts
/// n − 2, as Max triangulates it.
pub(crate) fn fbx_triangles(scene: &ufbx::Scene, name: &str) -> usize {
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

/// World-space vertex positions of an FBX node's mesh.
pub(crate) fn fbx_world_vertices(scene: &ufbx::Scene, name: &str) -> Option<Vec<[f64; 3]>> {
    let node = scene
        .nodes
        .iter()
        .find(|n| n.element.name.as_ref() == name)?;
    let mesh = node.mesh.as_ref()?;
    Some(fbx_dev::world_vertices(node, mesh))
}

/// Our world-space vertex positions of a node's evaluated mesh at time 0.
pub(crate) fn our_world_vertices(eval: &SceneEval, node: usize) -> Vec<[f64; 3]> {
    let tm = eval.object_tm(node, 0);
    let mesh = eval
        .mesh(node, 0)
        .expect("a mesh object")
        .expect("evaluated mesh");
    mesh.vertices
        .iter()
        .map(|v| {
            let p = tm.transform_point(*v);
            [p.0, p.1, p.2]
        })
        .collect()
}

/// The largest distance from a point of `a` to its nearest point of `b`.
pub(crate) fn worst_nearest(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter()
        .map(|p| {
            b.iter()
                .map(|q| (0..3).map(|i| (p[i] - q[i]).powi(2)).sum::<f64>())
                .fold(f64::INFINITY, f64::min)
                .sqrt()
        })
        .fold(0.0, f64::max)
}

pub(crate) fn diagonal(pts: &[[f64; 3]]) -> f64 {
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for p in pts {
        for i in 0..3 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
    }
    (0..3).map(|i| (hi[i] - lo[i]).powi(2)).sum::<f64>().sqrt()
}

#[test]
fn scaled_nodes_match_fbx_vertices() {
    let corpus = corpus_dir();
    let mut failures = Vec::new();
    for (max, fbx, name) in NODES {
        let doc = Document::open(&corpus.join(max)).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let (doc, graph) = (&*eval.doc, &*eval.graph);
        let unit = settings::system_unit(doc, graph).expect("unit");
        let scene = load_fbx(&corpus.join(fbx), unit.metres_per_unit);
        let (o, _) = graph
            .nodes()
            .find(|(_, n)| n.name == *name)
            .unwrap_or_else(|| panic!("{max}: no node {name}"));
        let theirs = fbx_world_vertices(&scene, name)
            .unwrap_or_else(|| panic!("{fbx}: no mesh node {name}"));
        let ours = our_world_vertices(&eval, o.index);
        let size = diagonal(&theirs);
        let worst = worst_nearest(&theirs, &ours).max(worst_nearest(&ours, &theirs));
        eprintln!(
            "{name} ({max}): {} FBX / {} our vertices, worst {worst:.3e} of size {size:.3}",
            theirs.len(),
            ours.len()
        );
        if theirs.len() != ours.len() || worst > 1e-6 * size {
            failures.push(format!("{max} {name}: worst {worst} of size {size}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
