//! Extrude Edge on open borders, Create and Target Weld on Chair.max's
//! LowerChairBody (Editable Poly → Edit Poly: three border extrusions and five
//! Connect Vertex → Edit Poly: 190 operations → Unwrap UVW), against what 3ds
//! Max recorded apart from our replay, read here from the raw chunks:
//!
//! - the lower Edit Poly's output: the selection sizes it saved (vertices,
//!   edges, faces) and the input bounding box the Edit Poly above saved in its
//!   ModApp (0x2511), which our output's box equals to the float bit (the
//!   extruded border keeps the input indices: the third extrusion's Transform
//!   moves it by 9.5e-7 in z, and Max's box carries that);
//! - the upper Edit Poly, operation by operation up to its first Extrude Face
//!   by Move end (92): the face count each Delete Face and Extrude Face selected
//!   from, the vertex count each Transform holds offsets for, and each Create
//!   polygon closing a hole (its sides border faces running them the other
//!   way, or are new), which pins the vertex numbering the Creates index;
//! - the node stays refused at operation 92: its 294-bit selection follows an
//!   extrusion of face 223 that left 260 faces and names faces 272 and 273
//!   (Can's names the extruded face, and is evaluated), and the face order
//!   after it is not Max's
//!   (the Extrude Face after it picks, by the walls the Unwrap UVW above
//!   saved, the top our order holds 18 places later; the replay pushed past
//!   it ends at 536 vertices where Max saved 502).

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::core::memo::Stack;
use maxfs_scene::eval::modifier::{edit_poly_output, edit_poly_output_after};
use maxfs_tests::{corpus_eval, le_words as words, node_index as node};

fn child(c: &Chunk, id: u16) -> Option<&Chunk> {
    c.children().iter().find(|x| x.id == id)
}

/// Bit count of a saved bit array container (0x2700: u32 count, bits).
fn bit_count(c: &Chunk) -> usize {
    let p = child(c, 0x2700)
        .and_then(Chunk::payload)
        .expect("bit array");
    words(&p[..4])[0] as usize
}

/// One operation as recorded: id, selection size, Transform vertex count,
/// Create polygons.
struct Recorded {
    id: u32,
    selection: Option<usize>,
    offsets: Option<usize>,
    created: Vec<Vec<u32>>,
}

fn recorded(local: &Chunk) -> Vec<Recorded> {
    let mut out: Vec<Recorded> = Vec::new();
    for c in local.children() {
        match c.id {
            0x0230 => out.push(Recorded {
                id: words(c.payload().expect("id"))[0],
                selection: None,
                offsets: None,
                created: Vec::new(),
            }),
            0x0234 => {
                let op = out.last_mut().expect("op");
                let basics = child(c, 0x0600).expect("basics");
                if let Some(s) = child(basics, 0x0400).filter(|s| !s.children().is_empty()) {
                    op.selection = Some(bit_count(s));
                }
            }
            0x0238 => {
                let op = out.last_mut().expect("op");
                for x in c.children() {
                    match x.id {
                        0x12c3 => op.offsets = Some(words(x.payload().expect("count"))[0] as usize),
                        0x0610 => op
                            .created
                            .push(words(x.payload().expect("polygon"))[2..].to_vec()),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn f32_box(mod_app: &Chunk) -> Vec<f32> {
    child(mod_app, 0x2511)
        .and_then(Chunk::payload)
        .expect("box")
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

#[test]
fn chair_border_extrusions_give_maxs_sizes_and_box() {
    let eval = corpus_eval("max/max2024-rico/Chair.max");
    let o = node(&eval, "LowerChairBody");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let names: Vec<_> = stack.iter().map(|m| m.name).collect();
    assert_eq!(names, ["Unwrap UVW", "Edit Poly", "Edit Poly"]);
    let poly = edit_poly_output(&eval, o, 2, 0).unwrap_or_else(|e| panic!("lower Edit Poly: {e}"));
    let local = stack[2]
        .mod_app
        .and_then(|a| child(a, 0x2512))
        .expect("local data");
    let ops = recorded(local);
    assert_eq!(
        ops.iter().filter(|r| r.id == 40).count(),
        3,
        "three Extrude Edge"
    );
    let saved = [0x0200, 0x0210, 0x0220].map(|id| bit_count(child(local, id).expect("saved")));
    let ours = [
        poly.vertices.len(),
        poly.walked_edges().len(),
        poly.faces.len(),
    ];
    eprintln!("LowerChairBody lower Edit Poly: {ours:?} vs saved {saved:?}");
    assert_eq!(ours, saved);
    assert_eq!(saved, [885, 1652, 768]);
    // The box the Edit Poly above saved of its input, as stored (f32).
    let above = f32_box(stack[1].mod_app.expect("ModApp"));
    let below = f32_box(stack[2].mod_app.expect("ModApp"));
    let mut lo = [f32::MAX; 3];
    let mut hi = [f32::MIN; 3];
    for v in &poly.vertices {
        for (k, x) in [v.0, v.1, v.2].into_iter().enumerate() {
            lo[k] = lo[k].min(x as f32);
            hi[k] = hi[k].max(x as f32);
        }
    }
    let ours: Vec<f32> = lo.iter().chain(&hi).copied().collect();
    eprintln!("box ours {ours:?}, above {above:?}, base {below:?}");
    assert_eq!(ours, above, "bit for bit");
    // The walls reach below the base object (its box is the lower ModApp's).
    assert!(above[2] < below[2] - 1.0);
}

#[test]
fn chair_create_and_target_weld_follow_maxs_records() {
    let eval = corpus_eval("max/max2024-rico/Chair.max");
    let o = node(&eval, "LowerChairBody");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let local = stack[1]
        .mod_app
        .and_then(|a| child(a, 0x2512))
        .expect("local data");
    let ops = recorded(local);
    let stop = ops.iter().position(|r| r.id == 92).expect("operation 92");
    assert_eq!(stop, 129);
    let (mut creates, mut welds, mut checked) = (0, 0, 0);
    for (i, r) in ops[..stop].iter().enumerate() {
        if !matches!(r.id, 11 | 41 | 53 | 56 | 91) {
            if r.id == 59 {
                welds += 1;
            }
            continue;
        }
        let poly = edit_poly_output_after(&eval, o, 1, 0, i)
            .unwrap_or_else(|e| panic!("before operation {i}: {e}"));
        if let (11 | 41 | 91, Some(n)) = (r.id, r.selection) {
            assert_eq!(poly.faces.len(), n, "faces before operation {i}");
            checked += 1;
        }
        if let Some(n) = r.offsets {
            assert_eq!(poly.vertices.len(), n, "vertices before operation {i}");
            checked += 1;
        }
        for p in &r.created {
            // Each side of a created polygon borders a face running it the
            // other way, or is new; never one running it the same way.
            let sides: std::collections::HashSet<(u32, u32)> = poly
                .faces
                .iter()
                .flat_map(|f| (0..f.v.len()).map(move |j| (f.v[j], f.v[(j + 1) % f.v.len()])))
                .collect();
            let mut bordering = 0;
            for j in 0..p.len() {
                let (a, b) = (p[j], p[(j + 1) % p.len()]);
                assert!(
                    !sides.contains(&(a, b)),
                    "operation {i}: side {a}-{b} taken"
                );
                bordering += usize::from(sides.contains(&(b, a)));
            }
            assert!(bordering >= 2, "operation {i}: {p:?} closes no hole");
            creates += 1;
        }
    }
    // The Transform right after operation 91 (a quad extruded by Shift-move).
    let after = edit_poly_output_after(&eval, o, 1, 0, stop - 1).expect("after 91");
    assert_eq!(Some(after.vertices.len()), ops[stop - 1].offsets);
    eprintln!("LowerChairBody upper Edit Poly: {checked} recorded sizes equal, {creates} Creates close holes, {welds} Target Weld");
    assert_eq!((creates, welds), (20, 1));
    assert!(checked > 100, "{checked}");
    // The stack's own evaluation (the Unwrap UVW cache stands in for it in
    // the node's mesh: eval_unwrap_cache.rs).
    let err = eval
        .mesh_with(o, 0, Stack::Replayed)
        .expect("a mesh object")
        .expect_err("refused at operation 92");
    assert!(
        err.to_string().contains(
            "operation Extrude Face by Move end (92): a selection of 294 faces naming faces \
             [272, 273] is not evaluated (the extrusion left 260 faces and moved faces [223]"
        ),
        "{err}"
    );
}
