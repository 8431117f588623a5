//! A linked drawing's block head (File Link Manager's LinkComposite) holds
//! no geometry of its own: its block is its child nodes, and 3ds Max's Mesh
//! Totals count nothing for it (docs/unseen-files.md, sohaibshams' 1.max).
//! The corpus has no linked drawing, so ShoulderBone.max's Bone01 (two
//! child nodes) and Sphere01 (none) are given empty LinkComposite objects
//! through the project's writer: the head is not geometry, while a
//! composite without children, not known to be empty, stays named.

use maxfs_scene::eval::core::coverage::{base_object_coverage, MeshCoverage};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

const LINK_COMPOSITE: ClassId = ClassId(0x608b_1c8f, 0x2f0b_0d2d);

#[test]
fn a_linked_block_head_is_not_geometry_and_a_childless_composite_stays_named() {
    let mut e = SceneEdit::open("max/ik/ShoulderBone.max");
    let (head, leaf) = (e.node("Bone01"), e.node("Sphere01"));
    let dll = e.add_dll("File Link (synthetic)", "LinkComposite.dlo");
    let class = e.add_class(dll, LINK_COMPOSITE, 0x10, "LinkComposite");
    for node in [head, leaf] {
        let composite = e.add_object(class, Vec::new());
        e.set_reference(node, 1, composite as i32);
    }
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");

    assert_eq!(base_object_coverage(&eval, head), MeshCoverage::NotGeometry);
    assert!(eval.mesh(head, 0).is_none());
    assert_eq!(
        base_object_coverage(&eval, leaf),
        MeshCoverage::Object("LinkComposite".into())
    );

    let gltf = maxfs_exporters::gltf::export_scene(&eval).expect("glTF");
    assert!(
        !gltf.dropped.iter().any(|d| d.starts_with("Bone01:")),
        "{:?}",
        gltf.dropped
    );
    assert!(
        gltf.dropped
            .iter()
            .any(|d| d.starts_with("Sphere01: mesh not exported: object LinkComposite")),
        "{:?}",
        gltf.dropped
    );
}
