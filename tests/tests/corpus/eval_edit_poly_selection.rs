//! A deformer above an Edit Poly left at a sub-object level (issue 19, "no
//! silent drops"): Max's deformer moves only the vertices of the selection
//! the Edit Poly passes up, the bits it saves in its local data (0x0200
//! vertices, 0x0210 edges, 0x0220 faces, sized to its output), unless the
//! Edit Poly passes up the stack's selection below it instead
//! (`epm_stack_selection`, parameter 4 of its block in iEPolyMod.h's order)
//! or soft-selects (`epm_ss_use`, 5).
//!
//! The corpus holds no deformer over an Edit Poly's selection, so the test
//! writes one: misc/Barrel.max's Cylinder001 (Cylinder → Edit Poly) with its
//! Edit Poly put at vertex level (0x0100 = 1) and every third vertex's bit
//! set, and an XForm on top whose gizmo is the node's own pure translation
//! t. The rule alone gives the expected result: each selected vertex at the
//! saved scene's position plus t, every other vertex exactly where it was.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::node_index as index;
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/misc/Barrel.max";
const NODE: &str = "Cylinder001";
const XFORM: ClassId = ClassId(0x25215824, 0);

/// The payload of the BitArray 0x2700 under `c`, with the bits `selected`
/// set and every other bit cleared (the stored count kept).
fn with_bits(c: &Chunk, selected: impl Fn(usize) -> bool) -> (Vec<u8>, usize) {
    let p = c
        .children()
        .iter()
        .find(|x| x.id == 0x2700)
        .and_then(Chunk::payload)
        .expect("a BitArray");
    let n = u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize;
    let mut out = p.to_vec();
    for b in &mut out[4..] {
        *b = 0;
    }
    for i in (0..n).filter(|&i| selected(i)) {
        out[4 + i / 8] |= 1 << (i % 8);
    }
    (out, n)
}

/// Barrel.max with Cylinder001's Edit Poly at vertex level, every third
/// vertex selected, its stack-selection and soft-selection switches set as
/// given, and an XForm on top. Returns the scene and the selected count.
fn edited(stack_selection: bool, soft: bool) -> (SceneEval, usize) {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let n = index(&plain, NODE);
    let ep = plain.modifier_stack(n).expect("stack").0[0].object;
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    e.set_leaf(ep, 0x0100, 1u32.to_le_bytes().to_vec());
    let pb = e.reference(ep, 0);
    e.set_pb2_constant(pb, 4, &u32::from(stack_selection).to_le_bytes());
    e.set_pb2_constant(pb, 5, &u32::from(soft).to_le_bytes());
    let derived = e.current_reference(node, 1);
    let chunks = e.object_chunks(derived);
    let sel = chunks
        .iter()
        .find(|c| c.id == 0x2500)
        .and_then(|a| a.children().iter().find(|c| c.id == 0x2512))
        .and_then(|l| l.children().iter().find(|c| c.id == 0x0200))
        .expect("the Edit Poly's saved vertex selection");
    let (bits, count) = with_bits(sel, |i| i % 3 == 0);
    e.put_nested_leaf(derived, &[0x2500, 0x2512, 0x0200], 0x2700, bits);
    let gizmo = e.reference(node, 0);
    e.add_modifier_with_refs(node, 0, XFORM, "XForm", "xform.dlm", &[0, 0, gizmo as i32]);
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");
    (eval, count)
}

#[test]
fn a_deformer_moves_only_the_vertices_an_edit_poly_leaves_selected() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let n = index(&plain, NODE);
    let before = plain.mesh(n, 0).expect("a mesh").expect("evaluates");
    let t = plain
        .local_tm(n, 0)
        .transform_point(maxfs_scene::eval::Vec3(0.0, 0.0, 0.0));
    assert!(t.0.abs() + t.1.abs() > 1.0, "the gizmo moves: {t:?}");

    let (eval, count) = edited(false, false);
    assert_eq!(
        count,
        before.vertices.len(),
        "the bits are sized to the output"
    );
    let ne = index(&eval, NODE);
    let after = match eval.mesh(ne, 0).expect("a mesh") {
        Ok(m) => m,
        Err(e) => panic!("refused: {e}"),
    };
    assert_eq!(after.faces, before.faces);
    let mut moved = 0;
    for (i, (b, a)) in before.vertices.iter().zip(&after.vertices).enumerate() {
        let want = if i % 3 == 0 {
            moved += 1;
            [b.0 + t.0, b.1 + t.1, b.2 + t.2]
        } else {
            [b.0, b.1, b.2]
        };
        let d = (want[0] - a.0)
            .abs()
            .max((want[1] - a.1).abs())
            .max((want[2] - a.2).abs());
        assert!(d <= 1e-5, "vertex {i}: {a:?}, expected {want:?}");
    }
    assert!(moved > 0 && moved < before.vertices.len());
}

#[test]
fn an_edit_poly_passing_up_the_stack_selection_or_soft_selecting_is_refused_by_name() {
    for (stack, soft, why) in [
        (true, false, "epm_stack_selection"),
        (false, true, "soft selection"),
    ] {
        let (eval, _) = edited(stack, soft);
        let ne = index(&eval, NODE);
        let err = match eval.mesh(ne, 0).expect("a mesh") {
            Ok(_) => panic!("evaluated with {why} on"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains("XForm"), "{err}");
        assert!(err.contains("Edit Poly"), "{err}");
        assert!(err.contains(why), "{err}");
    }
}
