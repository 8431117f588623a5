//! No silent drops (issue 19, item 9): every node that is geometry in Max but
//! has no evaluated mesh — an unsupported primitive, a modifier we cannot
//! apply, a spline under Extrude/Lathe/Bevel/Sweep — is named in the scene's
//! gaps (info.json, `maxfs check`) and in the glTF export's `dropped` list
//! (which makes `maxfs export` call the file partial and write no tag).

use maxfs_scene::eval::core::coverage::{mesh_coverage, scene_gaps, MeshCoverage};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_max_files;

/// Superclass of shapes (splines).
const SC_SHAPE: u32 = 0x40;

#[test]
fn every_geometry_node_without_a_mesh_is_named_everywhere() {
    let (mut files, mut dropped_nodes, mut shapes_under_modifiers) = (0, 0, 0);
    let mut failures = Vec::new();
    for p in corpus_max_files() {
        let doc = Document::open(&p).expect("opens");
        let eval = SceneEval::from_document(doc).expect("scene");
        let gaps = scene_gaps(&eval);
        let gltf = maxfs_exporters::gltf::export_scene(&eval).expect("glTF");
        let mut in_file = 0;
        for (o, n) in eval.graph.nodes() {
            let cov = mesh_coverage(&eval, o.index);
            let role = match &cov {
                MeshCoverage::Evaluated | MeshCoverage::NotGeometry => continue,
                MeshCoverage::Object(_) => "object",
                MeshCoverage::Modifiers(_) => "modifier",
            };
            in_file += 1;
            let is_shape = eval
                .node_object(o.index)
                .and_then(|b| eval.graph.objects.get(b))
                .and_then(|b| b.class.as_ref())
                .is_some_and(|c| c.super_class == SC_SHAPE);
            shapes_under_modifiers += usize::from(is_shape);
            if !gaps
                .iter()
                .any(|g| g.role == role && g.nodes.contains(&n.name))
            {
                failures.push(format!(
                    "{}: {} ({cov:?}) not in the gaps",
                    p.display(),
                    n.name
                ));
            }
            let prefix = format!("{}: mesh not exported: ", n.name);
            if !gltf.dropped.iter().any(|d| d.starts_with(&prefix)) {
                failures.push(format!(
                    "{}: {} ({cov:?}) not in glTF dropped",
                    p.display(),
                    n.name
                ));
            }
        }
        // Nothing is dropped that coverage does not name.
        if gltf.dropped.len() != in_file {
            failures.push(format!(
                "{}: glTF dropped {} meshes, coverage names {in_file}: {:?}",
                p.display(),
                gltf.dropped.len(),
                gltf.dropped
            ));
        }
        for d in &gltf.dropped {
            assert!(gltf.warnings.contains(d), "{d} is not a warning");
        }
        // Each dropped mesh is also named in its glTF node's extras.
        let doc = gltf::Gltf::from_slice(&gltf.glb).expect("our GLB reads");
        for d in &gltf.dropped {
            let on_node = doc.nodes().any(|n| {
                n.extras().as_ref().is_some_and(|x| {
                    let v: serde_json::Value = serde_json::from_str(x.get()).unwrap_or_default();
                    v["maxfs_unevaluated"]
                        .as_array()
                        .is_some_and(|a| a.iter().any(|e| e.as_str() == Some(d.as_str())))
                })
            });
            if !on_node {
                failures.push(format!("{}: {d}: not in any node's extras", p.display()));
            }
        }
        files += usize::from(in_file > 0);
        dropped_nodes += in_file;
    }
    eprintln!(
        "{files} files with {dropped_nodes} geometry nodes not evaluated, \
         {shapes_under_modifiers} of them splines under modifiers"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The corpus's extruded splines (prims-greejesh: Line + Extrude, Sword's
    // under an Edit Poly too) all evaluate now; one that stops is counted
    // above like any other node, by the same checks.
}
