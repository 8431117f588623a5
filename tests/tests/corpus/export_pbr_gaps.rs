//! A NeL shape whose material keeps its colours only in physically based
//! parameters (Physical Material, Arnold …) is written with the plug-in's
//! material defaults, since the plug-in's rules read Standard colours: the
//! export names that per node, so the file counts as approximated, not
//! exact. Checked on max2024-rico, whose materials are Physical / PBR ones
//! (their values are checked against the authors' FBX in eval_pbr_fbx).

use maxfs_exporters::nel::export::{export, ExportKind};
use maxfs_scene::eval::render::material as mtl;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

/// Whether `node`'s material (or one of its sub-materials) has physically
/// based values and no Standard diffuse colour.
fn pbr_only(eval: &SceneEval, node: usize) -> bool {
    let Some(top) = mtl::node_material(&eval.graph, node).and_then(|i| mtl::material(eval, i))
    else {
        return false;
    };
    let subs: Vec<mtl::Material> = if top.class_id == [0x200, 0] {
        top.sub_materials
            .iter()
            .filter_map(|s| s.and_then(|i| mtl::material(eval, i)))
            .collect()
    } else {
        vec![top]
    };
    subs.iter().any(|m| m.pbr.is_some() && m.diffuse.is_none())
}

#[test]
fn shapes_with_physically_based_materials_name_their_default_colours() {
    let dir = corpus_dir().join("max/max2024-rico");
    let (mut named, mut plain) = (0, 0);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("max2024-rico")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "max"))
        .collect();
    files.sort();
    for path in files {
        let eval = SceneEval::from_document(Document::open(&path).expect("opens")).expect("scene");
        let out = export("rico", &eval, &[ExportKind::Shape]);
        let nodes: Vec<(usize, String)> = eval
            .graph
            .nodes()
            .map(|(o, n)| (o.index, n.name.clone()))
            .collect();
        for (node, name) in nodes {
            // Shape files are named after the node, lower-cased.
            let stem = format!("{}.shape", name.to_lowercase());
            let written = out
                .outputs
                .iter()
                .any(|o| o.kind == ExportKind::Shape && o.name == stem);
            if !written {
                continue;
            }
            let says = out.errors.iter().any(|e| {
                e.node == name && e.reason.contains("exported without the colours of its")
            });
            if pbr_only(&eval, node) {
                assert!(
                    says,
                    "{}: {name} not named: {}",
                    path.display(),
                    out.errors_text()
                );
                named += 1;
            } else {
                assert!(
                    !says,
                    "{}: {name} named without a PBR-only material",
                    path.display()
                );
                plain += 1;
            }
        }
    }
    assert!(
        named > 0,
        "no shape with a physically based material ({plain} others)"
    );
}
