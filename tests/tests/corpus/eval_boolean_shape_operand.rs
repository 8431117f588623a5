//! A Boolean operand whose base object is a shape (a Line under Extrude,
//! Lathe …, as public chess-piece and house files use them: 19 nodes of 12
//! swept files, docs/unseen-files.md) takes the mesh its stack makes of the
//! shape, as a node holding that stack shows it. The corpus holds no such
//! Boolean, so this test writes one into Sword.max: operand A is Line001's
//! own modifier stack (Line → Extrude → Edit Poly), operand B is left
//! empty, and the operation is copied with road_flag.max's Boolean's
//! parameter block (a union). A Boolean without operand B shows A, so the
//! result must hold the 180 vertices Max saved with that Edit Poly (and its
//! Mesh Totals count); the operand's placement is the identity here.
//!
//! Poly modifiers in an operand's stack (TurboSmooth, Relax, MeshSmooth)
//! read the polygon form below them from the operand's own stack, as Edit
//! Poly does: Kenjis_chair's ChamferBox001 (Editable Poly → TurboSmooth →
//! Bend) as an operand gives the node's own mesh, not a refusal.

use maxfs_scene::eval::objects::boolean;
use maxfs_scene::eval::SceneEval;
use maxfs_tests::rewrite::SceneEdit;

const SWORD: &str = "max/prims-greejesh/Sword.max";
const FLAG: &str = "max/ryzomcore/road_flag.max";
const CHAIR: &str = "max/kenji-room/Kenjis_chair.max";

/// The road_flag Boolean's parameter block (a union: with no operand B the
/// result is operand A) copied into `e`; returns the new object.
fn union_block(e: &mut SceneEdit) -> usize {
    let flag = maxfs_tests::corpus_eval(FLAG);
    let node = maxfs_tests::node_named(&flag.graph, "Box01");
    let (_, base) = flag
        .object_stack(flag.node_object(node).expect("an object"))
        .expect("a stack");
    // Union (road_flag's) and A − B both show A when B is empty.
    let op = boolean::operation(&flag, base).expect("an operation");
    assert!(
        matches!(op, boolean::Op::Union | boolean::Op::AMinusB),
        "{op:?}"
    );
    let pb = flag.graph.objects[base]
        .references
        .iter()
        .find(|r| r.slot == 4)
        .and_then(|r| usize::try_from(r.target).ok())
        .expect("parameter block");
    let pb_class = flag.graph.objects[pb].class.clone().expect("its class");
    let pb_chunks = SceneEdit::open(FLAG).object_chunks(pb);
    let pb_index = e
        .class_index_of(pb_class.class_id, pb_class.super_class)
        .expect("the file holds parameter blocks of that class");
    e.add_object(pb_index, pb_chunks)
}

/// `file` with a Boolean whose operand A is node `name`'s object (its
/// whole stack) and whose operand B is empty; the Boolean object's index.
fn wrapped(file: &str, name: &str) -> (SceneEval, usize) {
    let mut e = SceneEdit::open(file);
    let node = e.node(name);
    let stack = e.reference(node, 1);
    let pb = union_block(&mut e);
    let dll = e.add_dll("Boolean (synthetic)", "geom.dlo");
    let class = e.add_class(dll, boolean::BOOLEAN, 0x10, "Boolean");
    let refs: Vec<u8> = [stack as i32, -1, -1, -1, pb as i32]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let obj = e.add_object(class, vec![maxfs_scene::chunk::Chunk::leaf(0x2034, refs)]);
    (
        SceneEval::from_document(e.finish()).expect("edited scene"),
        obj,
    )
}

#[test]
fn a_shape_under_its_stack_is_a_boolean_operand() {
    let (eval, obj) = wrapped(SWORD, "Line001");
    let result = boolean::eval(&eval, obj, 0).unwrap_or_else(|e| panic!("{e}"));
    // Max's own count for Line001's stack (its Edit Poly's saved sizes).
    assert_eq!(result.vertices.len(), 180);
    let node = maxfs_tests::node_named(&eval.graph, "Line001");
    let own = eval.mesh(node, 0).expect("a mesh").expect("evaluates");
    assert_eq!(result.vertices, own.vertices);
    assert_eq!(result.faces.len(), own.faces.len());
}

#[test]
fn a_turbo_smooth_in_an_operand_reads_the_operand_stack() {
    let (eval, obj) = wrapped(CHAIR, "ChamferBox001");
    let result = boolean::eval(&eval, obj, 0).unwrap_or_else(|e| panic!("{e}"));
    let node = maxfs_tests::node_named(&eval.graph, "ChamferBox001");
    let (stack, _) = eval.modifier_stack(node).expect("a stack");
    assert!(stack.iter().any(|a| a.name == "TurboSmooth"));
    let own = eval.mesh(node, 0).expect("a mesh").expect("evaluates");
    assert_eq!(result.vertices, own.vertices);
    assert_eq!(result.faces.len(), own.faces.len());
}
