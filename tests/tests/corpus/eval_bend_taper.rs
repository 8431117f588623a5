//! Bend and Taper against the FBX their authors exported from the same .max
//! files (ref/kenji-room, read with ufbx in Max's axes and system unit): every
//! node of these scenes whose stack holds a Bend, its evaluated world-space
//! vertices against the FBX's as point sets, same vertex counts.
//!
//! The corpus's one Taper (prims-greejesh/TreeAnim) has no reference export;
//! its own parts are tested by stated invariants in scene (taper.rs), and here
//! the file is only required to evaluate.

use maxfs_scene::eval::modifier::{BEND, TAPER};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;

use crate::eval_fbx::{diagonal, fbx_world_vertices, load_fbx, our_world_vertices, worst_nearest};

/// Worst distance allowed, relative to the node's extent: Max keeps f32, so a
/// few 1e-7 of the extent, and the FBX stores f64 of Max's f32 results.
const TOL: f64 = 2e-6;

const SCENES: &[(&str, &str)] = &[
    (
        "max/kenji-room/Kenjis_Room.max",
        "ref/kenji-room/Kenjis_Room.FBX",
    ),
    (
        "max/kenji-room/Kenjis_Wardrobe.max",
        "ref/kenji-room/Kenjis_Wardrobe.FBX",
    ),
];

/// Nodes of `eval` with `class` in their modifier stack.
fn nodes_with(eval: &SceneEval, class: maxfs_scene::typed::ClassId) -> Vec<(usize, String)> {
    eval.graph
        .nodes()
        .filter(|(o, _)| {
            eval.modifier_stack(o.index)
                .is_some_and(|(mods, _)| mods.iter().any(|m| m.class == class))
        })
        .map(|(o, n)| (o.index, n.name.clone()))
        .collect()
}

#[test]
fn bent_nodes_match_fbx_vertices() {
    let corpus = corpus_dir();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (max, fbx) in SCENES {
        let doc = Document::open(&corpus.join(max)).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
        let scene = load_fbx(&corpus.join(fbx), unit.metres_per_unit);
        let nodes = nodes_with(&eval, BEND);
        assert!(!nodes.is_empty(), "{max}: no Bend");
        for (node, name) in nodes {
            let theirs = fbx_world_vertices(&scene, &name)
                .unwrap_or_else(|| panic!("{fbx}: no mesh node {name}"));
            let ours = our_world_vertices(&eval, node);
            let size = diagonal(&theirs);
            let worst = worst_nearest(&theirs, &ours).max(worst_nearest(&ours, &theirs));
            eprintln!(
                "{name} ({max}): {} FBX / {} our vertices, worst {worst:.3e} of size {size:.3}",
                theirs.len(),
                ours.len()
            );
            if theirs.len() != ours.len() {
                failures.push(format!(
                    "{max} {name}: {} FBX vertices, {} ours",
                    theirs.len(),
                    ours.len()
                ));
            }
            checked += 1;
            // The bend must matter: the unmodified mesh is far from the FBX.
            let tm = eval.object_tm(node, 0);
            let base: Vec<[f64; 3]> = eval
                .base_mesh(node)
                .expect("a mesh object")
                .expect("base mesh")
                .vertices
                .iter()
                .map(|v| tm.transform_point(*v).to_array())
                .collect();
            let unbent = worst_nearest(&theirs, &base);
            assert!(
                unbent > 1e-2 * size,
                "{name}: unbent mesh only {unbent} off"
            );
            if worst > TOL * size {
                failures.push(format!("{max} {name}: worst {worst} of size {size}"));
            }
        }
    }
    assert_eq!(checked, 6, "Bend nodes in the FBX-referenced scenes");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn tapered_node_evaluates() {
    let doc = Document::open(&corpus_dir().join("max/prims-greejesh/TreeAnim.max")).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let nodes = nodes_with(&eval, TAPER);
    assert_eq!(nodes.len(), 1, "{nodes:?}");
    let (node, name) = &nodes[0];
    let mesh = eval.mesh(*node, 0).expect("a mesh object");
    assert!(mesh.is_ok(), "{name}: {:?}", mesh.err());
}
