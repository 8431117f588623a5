//! Edit Poly's standard Chamfer Edge of 1 segment at corners where three
//! chamfered edges meet (`edit_poly_chamfer_standard_corner`). The corpus
//! holds none (only public files do: containerBody.max's and Gold.max's
//! Boxes, docs/max-format.md), so one is written through the project's writer
//! onto PictureFrame.max's Box: Mug.max's Chamfer Edge record (operation id,
//! basics, local data) replaces the Edit Poly's first operation, made
//! standard (type 0), 1 segment, amount 0.125 (the Box is 0.59 deep), selecting all 12 of the Box's
//! edges. The expectations are independent of the replay: the sizes Max
//! saved for the same chamfer of a Box (containerBody's Edit Poly: 24
//! vertices, 48 edges, 26 faces), the documented geometry (each new vertex
//! `amount` along both chamfered edges of its face corner, so `amount` from
//! two of the box's planes and on the third; the six faces stay in their
//! planes; the corner polygons flat), a closed, consistently wound surface;
//! and the refusals by name where the numbering, which no reference pins,
//! would be read (the Inset after it, the Unwrap UVW above).

use maxfs_scene::chunk::{Body, Chunk};
use maxfs_scene::eval::modifier::{edit_poly_output, edit_poly_output_after};
use maxfs_scene::eval::objects::poly::PolyMesh;
use maxfs_scene::eval::SceneEval;
use maxfs_tests::rewrite::{bit_array, local_data_holding, SceneEdit};
use maxfs_tests::{corpus_eval, le_words as words, node_index as node};

const FRAME: &str = "max/max2024-rico/PictureFrame.max";
const MUG: &str = "max/max2024-rico/Mug.max";
const AMOUNT: f32 = 0.125;

/// The chunks of the first operation with id `op`: its id leaf, body
/// (0x0234) and local data (0x0238).
fn operation(local: &[Chunk], op: u32) -> Vec<Chunk> {
    let i = local
        .iter()
        .position(|c| c.id == 0x0230 && c.payload().map(words).as_deref() == Some(&[op]))
        .expect("the operation");
    local[i..i + 3].to_vec()
}

/// Sets parameter `id` (0x0410: u32 id, 4-byte value) under `c`.
fn set_param(c: &mut Chunk, id: u32, value: [u8; 4]) -> usize {
    let Body::Container(kids) = &mut c.body else {
        return 0;
    };
    let mut set = 0;
    for k in kids.iter_mut() {
        if k.id == 0x0410
            && k.payload()
                .map(words)
                .is_some_and(|w| w.first() == Some(&id))
        {
            let mut bytes = id.to_le_bytes().to_vec();
            bytes.extend(value);
            *k = Chunk::leaf(0x0410, bytes);
            set += 1;
        } else {
            set += set_param(k, id, value);
        }
    }
    set
}

/// Replaces every selection bit array (0x2700) under `c` by `n` bits, all set.
fn select_all(c: &mut Chunk, n: u32) -> usize {
    let Body::Container(kids) = &mut c.body else {
        return 0;
    };
    let mut set = 0;
    for k in kids.iter_mut() {
        if k.id == 0x2700 {
            let mut p = n.to_le_bytes().to_vec();
            let mut words = vec![0u32; (n as usize).div_ceil(32)];
            for i in 0..n as usize {
                words[i / 32] |= 1 << (i % 32);
            }
            p.extend(words.iter().flat_map(|w| w.to_le_bytes()));
            *k = Chunk::leaf(0x2700, p);
            set += 1;
        } else {
            set += select_all(k, n);
        }
    }
    set
}

/// PictureFrame with its Edit Poly's first operation replaced by the
/// standard chamfer of the Box's 12 edges; without `rest` the operations
/// after it are dropped and the saved sizes set to Max's for that chamfer.
fn chamfered_frame(rest: bool) -> (SceneEval, usize) {
    let mug = corpus_eval(MUG);
    let mut m = SceneEdit::open(MUG);
    let mug_derived = m.reference(node(&mug, "Mug"), 1);
    let mut mug_chunks = m.object_chunks(mug_derived);
    let mut chamfer = operation(
        local_data_holding(&mut mug_chunks, 0x0230).expect("Mug's Edit Poly"),
        34,
    );
    assert_eq!(
        set_param(&mut chamfer[1], 108, 0u32.to_le_bytes()),
        1,
        "type"
    );
    assert_eq!(
        set_param(&mut chamfer[1], 86, 1u32.to_le_bytes()),
        1,
        "segments"
    );
    assert_eq!(
        set_param(&mut chamfer[1], 35, AMOUNT.to_le_bytes()),
        1,
        "amount"
    );
    assert_eq!(select_all(&mut chamfer[1], 12), 1, "selection");

    let frame = corpus_eval(FRAME);
    let o = node(&frame, "PictureFrame");
    let mut e = SceneEdit::open(FRAME);
    let derived = e.reference(o, 1);
    let mut chunks = e.object_chunks(derived);
    let local = local_data_holding(&mut chunks, 0x0230).expect("PictureFrame's Edit Poly");
    let first = local
        .iter()
        .position(|c| c.id == 0x0230)
        .expect("an operation");
    if rest {
        local.splice(first..first + 3, chamfer);
    } else {
        let ops = local
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c.id, 0x0230 | 0x0234 | 0x0238))
            .map(|(i, _)| i)
            .collect::<Vec<_>>();
        for i in ops.into_iter().rev() {
            local.remove(i);
        }
        let at = first.min(local.len());
        local.splice(at..at, chamfer);
        for (id, n) in [0x0200u16, 0x0210, 0x0220].into_iter().zip([24, 48, 26]) {
            let c = local.iter_mut().find(|c| c.id == id).expect("saved size");
            *c = Chunk::container(id, vec![bit_array(n, &[])]);
        }
    }
    e.set_object_chunks(derived, chunks);
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");
    (eval, o)
}

#[test]
fn a_box_chamfered_on_all_twelve_edges_has_max_sizes_and_documented_geometry() {
    let (eval, o) = chamfered_frame(true);
    // The Edit Poly sits under the Unwrap UVW (stack index 1).
    let at = 1;
    let input = edit_poly_output_after(&eval, o, at, 0, 0).expect("the Box");
    assert_eq!(
        (input.vertices.len(), input.faces.len()),
        (8, 6),
        "a plain Box"
    );
    let lo: Vec<f64> = (0..3)
        .map(|k| {
            input
                .vertices
                .iter()
                .map(|p| [p.0, p.1, p.2][k])
                .fold(f64::MAX, f64::min)
        })
        .collect();
    let hi: Vec<f64> = (0..3)
        .map(|k| {
            input
                .vertices
                .iter()
                .map(|p| [p.0, p.1, p.2][k])
                .fold(f64::MIN, f64::max)
        })
        .collect();
    let out = edit_poly_output_after(&eval, o, at, 0, 1).expect("the chamfer replayed");
    // Max's sizes for this chamfer of a Box (containerBody.max's Edit Poly).
    assert_eq!(
        (
            out.vertices.len(),
            out.walked_edges().len(),
            out.faces.len()
        ),
        (24, 48, 26)
    );
    assert!(
        PolyMesh::is_closed_surface(&out),
        "closed and consistently wound"
    );
    let a = f64::from(AMOUNT);
    let tol = 1e-5 * (1.0 + hi.iter().chain(&lo).fold(0.0f64, |m, x| m.max(x.abs())));
    for p in &out.vertices {
        let c = [p.0, p.1, p.2];
        let on = (0..3)
            .filter(|&k| (c[k] - lo[k]).abs() < tol || (c[k] - hi[k]).abs() < tol)
            .count();
        let inset = (0..3)
            .filter(|&k| (c[k] - lo[k] - a).abs() < tol || (hi[k] - c[k] - a).abs() < tol)
            .count();
        assert_eq!((on, inset), (1, 2), "{p:?} in box {lo:?} … {hi:?}");
    }
    // The Box's faces keep their index, stay quads in their planes; eight
    // corner triangles and twelve strips follow.
    let tris = out.faces.iter().filter(|f| f.v.len() == 3).count();
    assert_eq!(tris, 8);
    for f in &out.faces[..6] {
        assert_eq!(f.v.len(), 4);
        let pts: Vec<[f64; 3]> =
            f.v.iter()
                .map(|&v| {
                    let p = out.vertices[v as usize];
                    [p.0, p.1, p.2]
                })
                .collect();
        let shared = (0..3).any(|k| pts.iter().all(|p| (p[k] - pts[0][k]).abs() < tol));
        assert!(shared, "face {pts:?} in an axis plane");
    }
}

#[test]
fn reading_the_chamfers_numbering_is_refused_by_name() {
    let (eval, o) = chamfered_frame(true);
    // The operations after it (an extrusion first) select by index.
    let err = edit_poly_output(&eval, o, 1, 0)
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains("after a chamfer whose numbering is not Max's"),
        "{err}"
    );
    // Without the later selections the Attach that stays (or the Unwrap
    // UVW above, whose cache and map address vertices and faces by index)
    // is refused for the same reason.
    let (eval, o) = chamfered_frame(false);
    let err = edit_poly_output(&eval, o, 1, 0)
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains("a chamfer whose numbering is not Max's"),
        "{err}"
    );
}
