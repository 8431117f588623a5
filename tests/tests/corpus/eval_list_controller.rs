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

/// The weight block as MassFX's baking leaves it (cube game.max, a public
/// Max 2020 file of the sixth sweep): the weight tab's elements are flag
/// bytes 0x80 without values, each weight a keyless Boolean Controller
/// (chunk 0x3006 its value: 0.0 the baked entry, 1.0 the other) in the
/// block's references 0 and 1. Built here on the snow man's list.
fn switched(on: [f32; 2]) -> SceneEval {
    use maxfs_scene::chunk::Chunk;
    use maxfs_scene::eval::rigs::ik::chain::BOOLEAN_CONTROLLER;
    use maxfs_tests::rewrite::SceneEdit;
    let mut e = SceneEdit::open("max/prims-pranto/animation.max");
    let snow = e.node("snow man");
    let prs = e.reference(snow, 0);
    let list = e.reference(prs, 0);
    let block = e.reference(list, 4);
    assert!(e.graph.objects[block].references.is_empty());
    let dll = e.add_dll("Boolean Controller", "boolcntrl.dlc");
    let class = e.add_class(dll, BOOLEAN_CONTROLLER, 0x9003, "Boolean Controller");
    for v in on {
        let b = e.add_object(
            class,
            vec![
                Chunk::leaf(0x3006, v.to_le_bytes().to_vec()),
                Chunk::leaf(0x3002, 0u32.to_le_bytes().to_vec()),
            ],
        );
        e.append_reference(block, b as i32);
    }
    let mut chunks = e.object_chunks(block);
    let rec = chunks
        .iter_mut()
        .find(|c| matches!(c.id, 0x000e | 0x100e) && c.payload().is_some_and(|p| p[..2] == [0, 0]))
        .expect("weight record");
    let mut p = rec.payload().expect("leaf")[..15].to_vec();
    p.extend(2u32.to_le_bytes());
    p.extend([0x80, 0x80]);
    *rec = Chunk::leaf(rec.id, p);
    e.set_object_chunks(block, chunks);
    SceneEval::from_document(e.finish()).expect("scene")
}

#[test]
fn list_weights_driven_by_boolean_controllers_switch_entries() {
    let original = SceneEval::from_document(
        Document::open(&corpus_dir().join("max/prims-pranto/animation.max")).unwrap(),
    )
    .unwrap();
    let snow = maxfs_tests::node_index(&original, "snow man");
    for on in [[0.0, 1.0], [1.0, 0.0]] {
        let eval = switched(on);
        let tm = eval.tm_controller(snow).expect("TM controller");
        let Some(Controller::Prs {
            position: Some(pos),
            ..
        }) = eval.controller(tm)
        else {
            panic!("no PRS position");
        };
        let Some(Controller::List { subs, weights, .. }) = eval.controller(*pos) else {
            panic!("{:?}", eval.controller(*pos));
        };
        assert_eq!(weights, &[f64::from(on[0]), f64::from(on[1])]);
        let gaps = scene_gaps(&eval);
        assert!(
            !gaps.iter().any(|g| g.class.starts_with("Position List")),
            "{gaps:?}"
        );
        for t in [0, 4800] {
            let w = eval.world_tm(snow, t);
            if on[0] == 0.0 {
                // The Path Constraint alone places the node, as it did on
                // top of the 100 % Position XYZ.
                let d = maxfs_tests::tm_diff(&w, &original.world_tm(snow, t));
                assert!(d.0 < 1e-9 && d.1 < 1e-9, "t {t}: {d:?}");
            } else {
                // The Position XYZ alone: the list's value is its entry's.
                let xyz = eval.position_at(subs[0], t);
                let got = eval.position_at(Some(*pos), t);
                assert_eq!((got.0, got.1, got.2), (xyz.0, xyz.1, xyz.2));
            }
        }
    }
}
