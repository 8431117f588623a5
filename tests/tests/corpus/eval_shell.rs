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

/// Shotgun.max's RubberGrip (Plane → Edit Poly: Transforms, Cut → Conform →
/// Shell, outer 0.007874 → Edit Poly: 6 Transforms → Edit Poly: Delete Face
/// → Unwrap UVW): its Shell's input bends at every vertex, and the Unwrap
/// cached Max's result of the stack below it. Our replay of the two Edit
/// Polys above the Shell — which need its polygons in Max's numbering — has
/// the cache's 48 vertices at their index within f32 noise of a 2.5 size
/// (the Shell's directions: angle-weighted triangle normals over Max's
/// diagonals), and its 38 polygons corner for corner except the last piece
/// of the Cut (face 19, same loop from another corner: Max's start there is
/// not derived) and, through it, the order of its two rim quads (36, 37).
#[test]
fn rubber_grip_shell_equals_the_unwrap_cache() {
    use maxfs_scene::eval::modifier::edit_poly_output;
    use maxfs_tests::{corpus_eval, node_index, unwrap_cache};
    let eval = corpus_eval("max/max2024-rico/Shotgun.max");
    let o = node_index(&eval, "RubberGrip");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let names: Vec<&str> = stack.iter().map(|a| a.name).collect();
    assert_eq!(
        names,
        [
            "Unwrap UVW",
            "Edit Poly",
            "Edit Poly",
            "Shell",
            "Conform",
            "Edit Poly"
        ]
    );
    let local = maxfs_tests::local_data(&stack[0]);
    let (cache, polys) = unwrap_cache(local);
    let ours = edit_poly_output(&eval, o, 1, 0).unwrap_or_else(|e| panic!("RubberGrip: {e}"));
    assert_eq!(ours.vertices.len(), cache.len());
    let worst = ours
        .vertices
        .iter()
        .zip(&cache)
        .map(|(v, c)| {
            let d = [v.0 - c[0], v.1 - c[1], v.2 - c[2]];
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        })
        .fold(0.0, f64::max);
    let size = diagonal(&cache);
    eprintln!("RubberGrip: 48 vertices, worst {worst:.2e} from the Unwrap cache (size {size:.3})");
    assert!(worst < 1e-6, "worst {worst}");
    // The Shell moved them: the outer side lies 0.007874 off the input,
    // which bends (a planar input would move every vertex alike).
    let input = eval.mesh_up_to(o, 4, 0).expect("a mesh").expect("Conform");
    let moved: Vec<f64> = input
        .vertices
        .iter()
        .zip(&ours.vertices)
        .map(|(a, b)| b.minus(*a).len())
        .collect();
    assert!(moved.iter().all(|d| d > &0.007), "{moved:?}");
    assert_eq!(ours.faces.len(), polys.len());
    let mut differ = Vec::new();
    for (i, (f, (c, _))) in ours.faces.iter().zip(&polys).enumerate() {
        if f.v != *c {
            differ.push(i);
        }
    }
    assert_eq!(differ, [19, 36, 37], "polygons other than Max's");
    let same_loop = |a: &[u32], b: &[u32]| {
        a.len() == b.len()
            && (0..a.len()).any(|r| (0..a.len()).all(|k| a[(k + r) % a.len()] == b[k]))
    };
    assert!(same_loop(&ours.faces[19].v, &polys[19].0));
    assert_eq!(ours.faces[36].v, polys[37].0);
    assert_eq!(ours.faces[37].v, polys[36].0);
}
