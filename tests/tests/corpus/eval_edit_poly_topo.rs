//! Edit Poly operations that change topology (Weld Vertex, Delete Face, Attach,
//! Detach Face) replayed on real files, against references apart from our
//! replay:
//!
//! - Chair.max's UpperChairBody (Editable Poly → Edit Poly: weld, three face
//!   deletions → Edit Poly: face deletion, attach → Unwrap UVW) against the FBX
//!   the author exported from the same scene (ref/max2024-rico/Chair.fbx):
//!   vertex count, world-space vertex positions as a set, triangle count;
//! - Wire.max's Edit Poly (Cylinder → 17 × detach + delete of a side row, 17
//!   attaches) against the selection sizes Max saved for the mesh it output
//!   (vertices, edges, faces), which the replay checks itself; the node's
//!   mesh (Physique above deforms it) then has the FBX's vertex and triangle
//!   counts.

use maxfs_scene::eval::SceneEval;
use maxfs_scene::{settings, Document};
use maxfs_tests::{corpus_dir, node_index as node};

use crate::eval_fbx::{diagonal, fbx_world_vertices, load_fbx, our_world_vertices, worst_nearest};

fn eval(rel: &str) -> SceneEval {
    let doc = Document::open(&corpus_dir().join("max").join(rel)).expect("max");
    SceneEval::from_document(doc).expect("scene")
}

#[test]
fn chair_upper_body_matches_fbx() {
    let eval = eval("max2024-rico/Chair.max");
    let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
    let fbx = load_fbx(
        &corpus_dir().join("ref/max2024-rico/Chair.fbx"),
        unit.metres_per_unit,
    );
    let name = "UpperChairBody";
    let o = node(&eval, name);
    let mesh = eval
        .mesh(o, 0)
        .expect("a mesh object")
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let theirs = fbx_world_vertices(&fbx, name).expect("FBX mesh");
    let ours = our_world_vertices(&eval, o);
    let size = diagonal(&theirs);
    let worst = worst_nearest(&theirs, &ours).max(worst_nearest(&ours, &theirs));
    let fbx_node = fbx
        .nodes
        .iter()
        .find(|n| n.element.name.as_ref() == name)
        .expect("FBX node");
    let fbx_tris = fbx_node.mesh.as_ref().expect("FBX mesh").num_triangles;
    eprintln!(
        "{name}: {} FBX / {} our vertices, {fbx_tris} / {} triangles, worst {worst:.3e} of size {size:.3}",
        theirs.len(),
        ours.len(),
        mesh.faces.len()
    );
    assert_eq!(ours.len(), theirs.len(), "vertex count");
    assert_eq!(mesh.faces.len(), fbx_tris, "triangle count");
    assert!(worst <= 1e-6 * size, "worst vertex {worst} of size {size}");
}

#[test]
fn wire_edit_poly_replays_to_the_saved_sizes() {
    let eval = eval("max2024-rico/Wire.max");
    let o = node(&eval, "Wire");
    // The Edit Poly (below Physique) replays to Max's saved sizes, or it would
    // be the error; Physique above it deforms without changing the topology.
    let mesh = match eval.mesh(o, 0).expect("a mesh object") {
        Ok(m) => m,
        Err(e) => panic!("Wire: {e}"),
    };
    let scene = load_fbx(&corpus_dir().join("ref/max2024-rico/Wire.fbx"), 0.0254);
    let fbx = scene
        .nodes
        .iter()
        .find(|n| n.element.name.as_ref() == "Wire")
        .and_then(|n| n.mesh.as_ref())
        .expect("FBX Wire mesh");
    assert_eq!(mesh.vertices.len(), fbx.vertices.len(), "vertices");
    assert_eq!(mesh.faces.len(), fbx.num_triangles, "triangles");
}
