//! Shell against the FBX its authors exported from the same scenes
//! (ref/max2024-rico, read with ufbx in Max's axes and system unit): every
//! node whose stack holds a Shell and evaluates has the FBX's vertex count,
//! triangle count and vertex positions (as point sets, within 1e-5 of the
//! node's size: Max keeps f32). A node that does not evaluate must be refused
//! by another modifier of its stack (named in its error), never by Shell.
//! The FBX come from an earlier save of the scenes; nodes they do not hold
//! are listed (and their files' vertex totals are checked against Max's own
//! Mesh Totals by eval_mesh_totals).

use maxfs_scene::eval::SceneEval;
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;

use crate::eval_fbx::{diagonal, fbx_world_vertices, load_fbx, our_world_vertices, worst_nearest};

const SCENES: &[(&str, &str)] = &[
    (
        "max/max2024-rico/PictureFrame.max",
        "ref/max2024-rico/PictureFrame.fbx",
    ),
    (
        "max/max2024-rico/NewModularWallWindowCorner.max",
        "ref/max2024-rico/NewModularWallWindowCorner.fbx",
    ),
];

#[test]
fn shelled_nodes_match_fbx() {
    let corpus = corpus_dir();
    let (mut checked, mut refused_elsewhere, mut absent) = (0, 0, Vec::new());
    for (max, fbx) in SCENES {
        let eval = SceneEval::from_document(Document::open(&corpus.join(max)).expect("max"))
            .expect("scene");
        let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
        let scene = load_fbx(&corpus.join(fbx), unit.metres_per_unit);
        for (o, n) in eval.graph.nodes() {
            let Some((stack, _)) = eval.modifier_stack(o.index) else {
                continue;
            };
            if !stack.iter().any(|a| a.name == "Shell") {
                continue;
            }
            let mesh = eval.mesh(o.index, 0).expect("a mesh object");
            let mesh = match mesh {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("{max} {}: {e}", n.name);
                    assert!(
                        !e.to_string().contains("modifier Shell"),
                        "{}: Shell refused: {e}",
                        n.name
                    );
                    refused_elsewhere += 1;
                    continue;
                }
            };
            let Some(theirs) = fbx_world_vertices(&scene, &n.name) else {
                absent.push(format!("{max} {}", n.name));
                continue;
            };
            let tris = scene
                .nodes
                .iter()
                .find(|x| x.element.name.as_ref() == n.name.as_str())
                .and_then(|x| x.mesh.as_ref())
                .map(|m| m.num_triangles)
                .expect("FBX mesh");
            let ours = our_world_vertices(&eval, o.index);
            let size = diagonal(&theirs);
            let worst = worst_nearest(&theirs, &ours).max(worst_nearest(&ours, &theirs));
            eprintln!(
                "{max} {}: {} FBX / {} our vertices, {tris} / {} triangles, worst {worst:.3e} of size {size:.3}",
                n.name,
                theirs.len(),
                ours.len(),
                mesh.faces.len()
            );
            assert_eq!(ours.len(), theirs.len(), "{}", n.name);
            assert_eq!(mesh.faces.len(), tris, "{}", n.name);
            assert!(worst <= 1e-5 * size, "{}: worst {worst}", n.name);
            checked += 1;
        }
    }
    eprintln!(
        "{checked} shelled nodes checked, {refused_elsewhere} refused by another modifier, not in the FBX: {absent:?}"
    );
    assert!(checked >= 1, "no shelled node checked");
    assert!(absent.len() <= 4, "{absent:?}");
}
