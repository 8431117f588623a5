//! List controllers (eval/core/list.rs) on the corpus's one used list:
//! animation.max's "snow man" moves along a path through a Position List
//! (Position XYZ, then a Path Constraint). The values checked are what Max
//! stored: two entries, their classes, and the weight block's 100 % weights
//! (0x3f800000) with averaging off.

use maxfs_scene::eval::core::controller::{Controller, ListKind};
use maxfs_scene::eval::core::coverage::scene_gaps;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

fn class_name(eval: &SceneEval, idx: usize) -> String {
    eval.graph.objects[idx]
        .class
        .as_ref()
        .map(|c| c.name.clone())
        .unwrap_or_default()
}

#[test]
fn a_position_list_is_decoded_and_its_entries_are_what_coverage_names() {
    let doc = Document::open(&corpus_dir().join("max/prims-pranto/animation.max")).unwrap();
    let eval = SceneEval::from_document(doc).unwrap();
    let (o, _) = eval
        .graph
        .nodes()
        .find(|(_, n)| n.name == "snow man")
        .expect("snow man");
    let tm = eval.tm_controller(o.index).expect("TM controller");
    let Some(Controller::Prs {
        position: Some(pos),
        ..
    }) = eval.controller(tm)
    else {
        panic!("snow man has no PRS with a position controller");
    };
    let Some(Controller::List {
        kind,
        subs,
        weights,
        average,
        weight_block,
        ..
    }) = eval.controller(*pos)
    else {
        panic!("{:?}", eval.controller(*pos));
    };
    assert_eq!(*kind, ListKind::Position);
    assert!(weight_block.is_some());
    assert_eq!(weights, &[1.0, 1.0]);
    assert!(!average);
    let classes: Vec<String> = subs
        .iter()
        .map(|s| class_name(&eval, s.expect("entry")))
        .collect();
    assert_eq!(classes, ["Position XYZ", "Path Constraint"]);

    // Neither the list nor the Path Constraint inside it is a gap (the
    // constraint's own checks: eval_path_constraint.rs).
    let gaps = scene_gaps(&eval);
    assert!(
        !gaps
            .iter()
            .any(|g| g.class.starts_with("Position List") || g.class.starts_with("Path Constraint")),
        "{gaps:?}"
    );
}
