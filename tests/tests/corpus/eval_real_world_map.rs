//! A primitive's "Real-World Map Size" switch (issue 19: no silent drops).
//! Max keeps it as AppData keyed by the object's own class and superclass,
//! sub id 0, an int; with it on, the generated channel 1 is scaled by the
//! object's sizes (Buwaka's Door boxes, whose UVs a ProBoolean kept:
//! docs/unseen-files.md). That scaling is not built, so the channel must be
//! left out by name — never the 0 … 1 coordinates of the switch off, which
//! would look valid — while the geometry stays, and a UVW Map above, which
//! writes the channel again, makes it whole.

use maxfs_scene::eval::SceneEval;
use maxfs_tests::rewrite::SceneEdit;

fn flagged(file: &str, node: &str) -> SceneEval {
    let mut e = SceneEdit::open(file);
    let base = {
        let plain = maxfs_tests::corpus_eval(file);
        let idx = maxfs_tests::node_named(&plain.graph, node);
        let (_, base) = plain.modifier_stack(idx).expect("a stack");
        let c = plain.graph.objects[base].class.clone().expect("a class");
        (base, c.class_id, c.super_class)
    };
    e.add_appdata_bytes(base.0, (base.1, base.2), 0, 1u32.to_le_bytes().to_vec());
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn a_real_world_mapped_primitive_names_its_channel_and_keeps_its_geometry() {
    const FILE: &str = "max/misc/Crate.max";
    let plain = maxfs_tests::corpus_eval(FILE);
    let before = plain
        .mesh(maxfs_tests::node_named(&plain.graph, "Box001"), 0)
        .expect("a mesh")
        .expect("evaluates");
    assert!(before.maps.iter().any(|c| c.channel == 1));
    let eval = flagged(FILE, "Box001");
    let after = eval
        .mesh(maxfs_tests::node_named(&eval.graph, "Box001"), 0)
        .expect("a mesh")
        .expect("the geometry evaluates");
    assert_eq!(after.vertices, before.vertices);
    assert_eq!(after.faces, before.faces);
    assert!(after.maps.iter().all(|c| c.channel != 1));
    let why = format!("{:?}", after.missing_maps);
    assert!(why.contains("real-world map size"), "{why}");
    let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&eval);
    assert!(
        gaps.iter().any(|g| g.class.contains("real-world")),
        "{gaps:?}"
    );
}

#[test]
fn a_uvw_map_above_a_real_world_mapped_primitive_writes_the_channel_again() {
    const FILE: &str = "max/kenji-room/house_thing.max";
    let plain = maxfs_tests::corpus_eval(FILE);
    let before = plain
        .mesh(maxfs_tests::node_named(&plain.graph, "Plane001"), 0)
        .expect("a mesh")
        .expect("evaluates");
    let eval = flagged(FILE, "Plane001");
    let after = eval
        .mesh(maxfs_tests::node_named(&eval.graph, "Plane001"), 0)
        .expect("a mesh")
        .expect("evaluates");
    assert!(after.missing_maps.is_empty(), "{:?}", after.missing_maps);
    assert_eq!(after.maps, before.maps);
}
