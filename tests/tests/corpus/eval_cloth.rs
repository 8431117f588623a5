//! Cloth (Kenjis_Sofa.max: Box005 and Box006, instances of one Editable Poly
//! → Cloth → TurboSmooth) against the FBX its authors exported
//! (ref/kenji-room/Kenjis_Sofa.FBX; the copy they exported to their Unity
//! project 32 s after the .max's last save holds the same two meshes). The
//! FBX has these nodes' meshes below TurboSmooth (242 vertices, where the
//! viewport's TurboSmooth gives 962 and Max's Mesh Totals count 962 each,
//! eval_mesh_totals.rs): Cloth's output at frame 0, which is its stored start
//! state. The tolerance (1e-9 of the size, 9.4e-8) tells it apart from the
//! other stored state (moved by up to 1.6 units) and from the input itself
//! (the Editable Poly's positions differ from state 0 by up to 5.7e-6).

use maxfs_scene::eval::{SceneEval, Stack};
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;

use super::eval_fbx::{diagonal, fbx_world_vertices, load_fbx};

const MAX: &str = "max/kenji-room/Kenjis_Sofa.max";
const FBX: &str = "ref/kenji-room/Kenjis_Sofa.FBX";
const NODES: [&str; 2] = ["Box005", "Box006"];
const TURBO_SMOOTH: &str = "TurboSmooth";

#[test]
fn cloth_start_state_matches_fbx() {
    let corpus = corpus_dir();
    let eval =
        SceneEval::from_document(Document::open(&corpus.join(MAX)).expect("max")).expect("scene");
    let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
    let scene = load_fbx(&corpus.join(FBX), unit.metres_per_unit);
    let mut failures = Vec::new();
    for name in NODES {
        let (o, _) = eval
            .graph
            .nodes()
            .find(|(_, n)| n.name == name)
            .unwrap_or_else(|| panic!("no node {name}"));
        let node = o.index;
        let (stack, _) = eval.modifier_stack(node).expect("stack");
        let names: Vec<&str> = stack.iter().map(|a| a.name).collect();
        assert_eq!(names, [TURBO_SMOOTH, "Cloth"], "{name}'s stack, top first");
        let below = eval
            .mesh_with(node, 0, Stack::Without(stack[0].object))
            .expect("a mesh")
            .unwrap_or_else(|e| panic!("{name} below TurboSmooth: {e}"));
        let tm = eval.object_tm(node, 0);
        let ours: Vec<[f64; 3]> = below
            .vertices
            .iter()
            .map(|v| {
                let p = tm.transform_point(*v);
                [p.0, p.1, p.2]
            })
            .collect();
        let theirs = fbx_world_vertices(&scene, name).expect("FBX mesh");
        let size = diagonal(&theirs);
        // Max's vertex order: compared index by index.
        let worst = ours
            .iter()
            .zip(&theirs)
            .map(|(a, b)| (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt())
            .fold(0.0, f64::max);
        eprintln!(
            "{name}: {} ours / {} FBX vertices, {} triangles, worst {worst:.2e} of size {size:.3}",
            ours.len(),
            theirs.len(),
            below.faces.len()
        );
        if ours.len() != theirs.len() || below.faces.len() != 480 || worst > 1e-9 * size {
            failures.push(format!("{name}: worst {worst:.3e} of size {size:.3}"));
        }
        // The whole stack: TurboSmooth on the cloth's quads.
        let full = eval.mesh(node, 0).expect("a mesh").expect("evaluated");
        if full.vertices.len() != 962 || full.faces.len() != 1920 {
            failures.push(format!(
                "{name}: {} vertices, {} triangles with TurboSmooth",
                full.vertices.len(),
                full.faces.len()
            ));
        }
        // Any other time is not known from the file: refused, naming Cloth.
        match eval.mesh(node, 160) {
            Some(Err(e)) if e.to_string().contains("Cloth") => {}
            other => failures.push(format!("{name} at frame 1: {:?}", other.map(|r| r.is_ok()))),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
