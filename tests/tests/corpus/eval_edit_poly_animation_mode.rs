//! Edit Poly's animation mode. The SDK sample (EditPoly.cpp) saves the
//! animation-mode point ranges and node names (chunks 0x0138 / 0x0130,
//! 0x0148 / 0x0140) with the modifier, and references a point controller
//! per animated vertex from reference 3 on; each evaluation overwrites the
//! pending Transform's offsets of the vertices that have a controller and
//! leaves the others. So the chunks with no controller referenced change
//! nothing (SnubbleJr/GameJam1's gun.max holds them so, and then stops at a
//! Tessellate: docs/unseen-files.md, sixteenth sweep), and a referenced
//! controller is refused by name. No corpus file has the mode: Mug.max's
//! Edit Poly gets the chunks through the project's writer.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::modifier::edit_poly_output;
use maxfs_scene::eval::SceneEval;
use maxfs_tests::corpus_eval;
use maxfs_tests::rewrite::SceneEdit;

const FILE: &str = "max/max2024-rico/Mug.max";

/// The Mug node and its Edit Poly modifier object.
fn mug(eval: &SceneEval) -> (usize, usize) {
    eval.graph
        .nodes()
        .filter(|(_, n)| n.name == "Mug")
        .find_map(|(o, _)| {
            let (stack, _) = eval.modifier_stack(o.index)?;
            let m = stack.get(1).filter(|m| m.name == "Edit Poly")?;
            Some((o.index, m.object))
        })
        .expect("Mug.max's Mug has an Edit Poly second in its stack")
}

/// Mug.max with the animation-mode chunks of one node's `vertices` points
/// on its Edit Poly, and, with `controller`, its reference 3 (the first
/// point controller) set to an object (its parameter block stands for one:
/// the refusal is decided by the reference).
fn with_animation_mode(vertices: i32, controller: bool) -> SceneEval {
    let before = corpus_eval(FILE);
    let (_, modifier) = mug(&before);
    let mut e = SceneEdit::open(FILE);
    let mut chunks = e.object_chunks(modifier);
    let int = |v: i32| v.to_le_bytes().to_vec();
    let name: Vec<u8> = "Mug"
        .encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect();
    chunks.push(Chunk::leaf(0x0138, int(2)));
    chunks.push(Chunk::leaf(0x0130, [int(0), int(vertices)].concat()));
    chunks.push(Chunk::leaf(0x0148, int(1)));
    chunks.push(Chunk::leaf(0x0140, name));
    e.set_object_chunks(modifier, chunks);
    if controller {
        let target = e.reference(modifier, 0) as i32;
        e.set_reference(modifier, 3, target);
    }
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn point_ranges_without_controllers_change_nothing_and_a_controller_is_refused() {
    let before = corpus_eval(FILE);
    let (node, _) = mug(&before);
    let theirs = edit_poly_output(&before, node, 1, 0).map_err(|e| e.to_string());
    assert!(theirs.is_ok(), "{theirs:?}");
    let n = theirs.as_ref().map_or(0, |p| p.vertices.len()) as i32;
    let ours =
        edit_poly_output(&with_animation_mode(n, false), node, 1, 0).map_err(|e| e.to_string());
    assert_eq!(ours, theirs);
    // A point controller referenced: refused by name.
    let e = edit_poly_output(&with_animation_mode(n, true), node, 1, 0).expect_err("refused");
    assert!(
        e.to_string()
            .contains("animation mode (animated vertices) is not evaluated"),
        "{e}"
    );
}
