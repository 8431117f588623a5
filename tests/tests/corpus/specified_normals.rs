//! Specified normals (Max's MeshNormalSpec / MNNormalSpec, GeomBuffers child
//! 0x23a0 / 0x0300) across the corpus: every Editable Mesh and Editable Poly
//! that stores them decodes them, and the survey says which files carry them. Their effect on the exported normals is
//! checked against Babylon's glTF (Max's own normals) in `gltf_normals`.

use maxfs_scene::eval::objects::mesh::{EDITABLE_MESH, EDITABLE_POLY};
use maxfs_scene::eval::objects::specified_normals::{MESH_NORMAL_SPEC, POLY_NORMAL_SPEC};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_max_files;

/// GeomBuffers: the mesh an Editable Mesh / Poly saves.
const GEOM_BUFFERS: u16 = 0x08fe;

#[test]
fn corpus_specified_normals_decode() {
    let (mut files, mut meshes, mut corners) = (Vec::new(), 0usize, 0usize);
    for path in corpus_max_files() {
        let Ok(doc) = Document::open(&path) else {
            continue;
        };
        let Ok(eval) = SceneEval::from_document(doc) else {
            continue;
        };
        let mut here = 0usize;
        for (o, n) in eval.graph.nodes() {
            let Some(obj) = eval.node_object(o.index) else {
                continue;
            };
            let Some(class) = eval.graph.objects.get(obj).and_then(|x| x.class.as_ref()) else {
                continue;
            };
            let Some(geom) = eval.chunks(obj).iter().find(|c| c.id == GEOM_BUFFERS) else {
                continue;
            };
            let id = if class.class_id == EDITABLE_MESH {
                MESH_NORMAL_SPEC
            } else if class.class_id == EDITABLE_POLY {
                POLY_NORMAL_SPEC
            } else {
                continue;
            };
            let stored = geom.children().iter().any(|c| c.id == id);
            let mesh = eval.base_mesh(o.index).expect("an editable mesh");
            if stored {
                let mesh = mesh.unwrap_or_else(|e| {
                    panic!("{}: {}: specified normals: {e}", path.display(), n.name)
                });
                let spec = mesh.normals.as_ref().expect("decoded");
                assert_eq!(spec.faces.len(), mesh.faces.len());
                here += 1;
                corners += spec.faces.iter().flatten().flatten().count();
            } else if let Ok(mesh) = mesh {
                assert!(mesh.normals.is_none(), "{}: {}", path.display(), n.name);
            }
        }
        if here > 0 {
            meshes += here;
            files.push(format!("{} ({here})", path.display()));
        }
    }
    eprintln!(
        "specified normals: {meshes} editable meshes in {} files, {corners} corners: {}",
        files.len(),
        files.join(", ")
    );
    assert!(
        files.iter().any(|f| f.contains("WaterBottle")),
        "WaterBottle stores specified normals"
    );
}
