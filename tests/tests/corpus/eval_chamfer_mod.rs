//! The Chamfer modifier (0x332c9510, 0x38bb548c; issue 19). The corpus holds
//! none, so the test puts one through our writer on misc/Crate.max's Box001
//! (a Box: 8 vertices, 12 triangles) with the parameter ids measured on the
//! sweep files (docs/unseen-files.md, "Chamfer modifier"): 0 amount, 1
//! segments, 2 tension, 5 and 6 undecoded, 12 minimum angle. It is refused,
//! named, with its settings and the edges it would chamfer. Expected values
//! are the box's own geometry: 12 edges at right angles (the 6 face
//! diagonals are flat), three meeting at each of the 8 corners, none open —
//! and none at all when the minimum angle is above 90°.

use maxfs_scene::eval::error::EvalError;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/misc/Crate.max";
const NODE: &str = "Box001";
const CHAMFER: ClassId = ClassId(0x332c_9510, 0x38bb_548c);
const FLOAT: u16 = 0;
const INT: u16 = 1;

/// Crate with a Chamfer on top of Box001's stack: amount 1, segments 0 (as
/// Gate.max stores it), tension 1, settings 5 / 6 = 0, minimum angle `angle`.
fn edited(angle: f32) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    let values: [(u16, u16, [u8; 4]); 6] = [
        (0, FLOAT, 1.0f32.to_le_bytes()),
        (1, INT, 0i32.to_le_bytes()),
        (2, FLOAT, 1.0f32.to_le_bytes()),
        (5, INT, 0i32.to_le_bytes()),
        (6, INT, 0i32.to_le_bytes()),
        (12, FLOAT, angle.to_le_bytes()),
    ];
    let params: Vec<(u16, u16, &[u8])> = values.iter().map(|(i, t, v)| (*i, *t, &v[..])).collect();
    e.add_pb2_modifier(node, CHAMFER, "Chamfer", "chamfermod.dlm", &params);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

fn refusal(eval: &SceneEval) -> String {
    let node = eval
        .graph
        .nodes()
        .find(|(_, n)| n.name == NODE)
        .map(|(o, _)| o.index)
        .expect("Box001");
    match eval.mesh(node, 0).expect("a mesh") {
        Ok(m) => panic!("evaluated to {} vertices", m.vertices.len()),
        Err(e) => {
            assert!(
                matches!(&e, EvalError::Modifier { class, .. } if *class == CHAMFER),
                "{e}"
            );
            e.to_string()
        }
    }
}

#[test]
fn chamfer_modifier_is_refused_naming_the_box_edges() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let box001 = plain
        .graph
        .nodes()
        .find(|(_, n)| n.name == NODE)
        .map(|(o, _)| o.index)
        .expect("Box001");
    let m = plain.mesh(box001, 0).expect("a mesh").expect("evaluates");
    assert_eq!((m.vertices.len(), m.faces.len()), (8, 12));

    let text = refusal(&edited(30.0));
    assert!(text.contains("Chamfer"), "{text}");
    assert!(
        text.contains(
            "amount 1, 0 segments (stored), tension 1, minimum angle 30° (settings 5 = 0, 6 = 0"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "12 edges at that angle or more (8 vertices joining three or more of them, \
             0 joining two), 0 open and 0 non-manifold edges"
        ),
        "{text}"
    );
    assert!(
        text.contains("one row of polygons on these edges"),
        "{text}"
    );
    let text = refusal(&edited(91.0));
    assert!(text.contains("0 edges at that angle or more"), "{text}");
    assert!(text.contains("no edge at the minimum angle"), "{text}");
}
