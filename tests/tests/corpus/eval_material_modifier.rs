//! Material modifier (0xf8612, 0; issue 19, fourteenth sweep). The corpus
//! holds none, so the test writes one onto a real object through our
//! writer: kenji-room/Kenjis_Bed.max's Box001 (an Editable Poly), whose faces carry
//! several material IDs. Its block is laid out as the public Max SDK sample
//! (surfmod.cpp, `MatMod`) saves it and as radobaychev/3D-RoomProject's
//! couch.max and scene.max hold it: an old ParamBlock (reference 0) whose
//! int parameter 0 is the ID the user sees, 1-based. The rule is the
//! sample's `ModifyObject`: every face takes ID − 1, clamped to 0..=0xffff;
//! nothing else changes.

use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::node_index;
use maxfs_tests::rewrite::{OldParam, SceneEdit};

const SOURCE: &str = "max/kenji-room/Kenjis_Bed.max";
const NODE: &str = "Box001";
const MATERIAL: ClassId = ClassId(0xf8612, 0);

/// Kenjis_Bed with a Material modifier of ID `id` on top of Box001.
fn edited(id: i32) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    let pb = e.add_old_param_block(&[OldParam::Int(id)]);
    e.add_modifier_with_refs(
        node,
        0,
        MATERIAL,
        "Material",
        "mods.dlm",
        &[0, 0, pb as i32],
    );
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn material_modifier_sets_every_face_to_its_id_less_one() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let before = plain
        .mesh(node_index(&plain, NODE), 0)
        .expect("a mesh")
        .expect("evaluates");
    let ids: std::collections::BTreeSet<u16> = before.faces.iter().map(|f| f.material).collect();
    assert!(ids.len() > 1, "the source faces carry several IDs: {ids:?}");
    for (id, want) in [(3, 2u16), (1, 0), (0, 0), (-5, 0), (70_000, 0xffff)] {
        let eval = edited(id);
        let after = eval
            .mesh(node_index(&eval, NODE), 0)
            .expect("a mesh")
            .unwrap_or_else(|e| panic!("Material {id} evaluates: {e}"));
        assert_eq!(
            after.vertices, before.vertices,
            "Material {id} keeps the vertices"
        );
        assert_eq!(after.faces.len(), before.faces.len());
        for (a, b) in after.faces.iter().zip(&before.faces) {
            assert_eq!(a.material, want, "Material {id}");
            assert_eq!((a.v, a.smoothing, a.flags), (b.v, b.smoothing, b.flags));
        }
        assert_eq!(after.maps, before.maps, "Material {id} keeps the maps");
    }
}
