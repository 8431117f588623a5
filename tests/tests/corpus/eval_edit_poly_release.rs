//! Edit Poly's record 0x0450, read as the release of Edit Poly that recorded
//! each operation (docs/max-format.md, "Edit Poly"). The corpus' Edit Polys
//! are Max 2024 and 2026 ones (4 and 6); Max 2019's 2 is only on public files
//! (Buwaka/Level-editing-2, where the replays were checked against the
//! authors' FBX and the Unwrap UVW caches; docs/unseen-files.md). So corpus
//! Edit Polys have their records rewritten to 2 through the project's writer:
//! on the operations checked for Max 2019 the result must be unchanged (and
//! Mug's, with its Attach, the mesh the Unwrap UVW above cached); on another
//! the operation must be refused by name, and the Unwrap UVW cache above then
//! stands in for it.

use maxfs_scene::chunk::{Body, Chunk};
use maxfs_scene::eval::modifier::edit_poly_output;
use maxfs_scene::eval::SceneEval;
use maxfs_tests::rewrite::SceneEdit;
use maxfs_tests::{corpus_eval, unwrap_cache};

const TRANSFORM: u32 = 53;
const DELETE_FACE: u32 = 11;
const EXTRUDE_FACE: u32 = 41;
const AUTOSMOOTH: u32 = 68;
const SET_MATERIAL: u32 = 70;
const ATTACH: u32 = 58;
const CONNECT_VERTEX: u32 = 44;
const CUT: u32 = 35;
const WELD_VERTEX: u32 = 22;
const TARGET_WELD: u32 = 59;

/// Sets record 0x0450 of every operation in `ops` found under `chunks` (an
/// Edit Poly's local data: 0x0230 operation id, then 0x0234 → 0x0600 basics)
/// to `release`, adding it to basics without one (a file of Max 2018 or
/// earlier); returns how many were set.
fn set_release(chunks: &mut [Chunk], ops: &[u32], release: u32) -> usize {
    let mut set = 0;
    let mut id = None;
    for c in chunks.iter_mut() {
        if c.id == 0x0230 {
            id = c
                .payload()
                .filter(|p| p.len() == 4)
                .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]));
            continue;
        }
        let Body::Container(kids) = &mut c.body else {
            continue;
        };
        if c.id == 0x0234 && id.is_some_and(|i| ops.contains(&i)) {
            for b in kids.iter_mut().filter(|b| b.id == 0x0600) {
                let Body::Container(basics) = &mut b.body else {
                    continue;
                };
                let record = Chunk::leaf(0x0450, release.to_le_bytes().to_vec());
                match basics.iter_mut().find(|r| r.id == 0x0450) {
                    Some(r) => *r = record,
                    None => basics.push(record),
                }
                set += 1;
            }
        } else {
            set += set_release(kids, ops, release);
        }
    }
    set
}

/// `file` with the operations `ops` of node `o`'s Edit Polys recorded by
/// release `release`, and how many were rewritten.
fn rewritten(file: &str, o: usize, ops: &[u32], release: u32) -> (SceneEval, usize) {
    let mut e = SceneEdit::open(file);
    let derived = e.reference(o, 1);
    let mut chunks = e.object_chunks(derived);
    let n = set_release(&mut chunks, ops, release);
    e.set_object_chunks(derived, chunks);
    (
        SceneEval::from_document(e.finish()).expect("edited scene"),
        n,
    )
}

fn node(eval: &SceneEval, name: &str) -> usize {
    eval.graph
        .nodes()
        .find(|(o, n)| {
            n.name == name
                && eval
                    .modifier_stack(o.index)
                    .is_some_and(|(s, _)| s.iter().any(|m| m.name == "Edit Poly"))
        })
        .map(|(o, _)| o.index)
        .unwrap_or_else(|| panic!("no node {name} with an Edit Poly"))
}

#[test]
fn operations_checked_for_max_2019_replay_the_same_when_recorded_by_it() {
    // (file, node, Edit Poly's place in the stack, operations rewritten,
    // how many records that is in the file: Mug's four Transforms and a
    // Delete Face, PictureFrame's two Extrude Faces and a Delete Face of
    // Max 2026 (6), the Rivet's Auto Smooth, Barrel's two Transforms and two
    // Set Materials).
    let cases: [(&str, &str, usize, &[u32], usize); 4] = [
        (
            "max/max2024-rico/Mug.max",
            "Mug",
            1,
            &[TRANSFORM, DELETE_FACE],
            5,
        ),
        (
            "max/max2024-rico/PictureFrame.max",
            "PictureFrame",
            1,
            &[EXTRUDE_FACE, DELETE_FACE],
            3,
        ),
        ("max/max2024-rico/Shotgun.max", "Rivet", 1, &[AUTOSMOOTH], 1),
        // Max 2013: the records are added.
        (
            "max/misc/Barrel.max",
            "Cylinder001",
            0,
            &[SET_MATERIAL, TRANSFORM],
            4,
        ),
    ];
    for (file, name, at, ops, count) in cases {
        let before = corpus_eval(file);
        let o = node(&before, name);
        let (after, n) = rewritten(file, o, ops, 2);
        assert_eq!(n, count, "{name}: records rewritten");
        assert_eq!(node(&after, name), o);
        let theirs =
            edit_poly_output(&before, o, at, 0).unwrap_or_else(|e| panic!("{name} as saved: {e}"));
        let ours = edit_poly_output(&after, o, at, 0)
            .unwrap_or_else(|e| panic!("{name} recorded by Max 2019: {e}"));
        assert_eq!(ours.vertices, theirs.vertices, "{name}");
        assert_eq!(ours.faces, theirs.faces, "{name}");
        let full = |eval: &SceneEval| eval.mesh(o, 0).expect("a mesh").expect("evaluates");
        let (a, b) = (full(&before), full(&after));
        assert_eq!(b.vertices, a.vertices, "{name}");
        assert_eq!(b.faces, a.faces, "{name}");
        assert_eq!(b.missing_parts, a.missing_parts, "{name}");
    }
}

#[test]
fn an_attach_recorded_by_max_2019_gives_the_mesh_the_unwrap_above_cached() {
    // Mug's Edit Poly (Transforms, Delete Face, Attach) all recorded by
    // release 2; the Unwrap UVW above cached Max's result of it: every
    // vertex in order and every polygon.
    let file = "max/max2024-rico/Mug.max";
    let o = node(&corpus_eval(file), "Mug");
    let (eval, n) = rewritten(file, o, &[ATTACH, TRANSFORM, DELETE_FACE], 2);
    assert_eq!(n, 6, "Mug's Attach, four Transforms and Delete Face");
    let ours = edit_poly_output(&eval, o, 1, 0).unwrap_or_else(|e| panic!("{e}"));
    let (cached, polygons) = cache(&eval, o, 0);
    assert_eq!(ours.vertices.len(), cached.len());
    let worst = ours
        .vertices
        .iter()
        .zip(&cached)
        .map(|(v, c)| {
            (v.0 - c[0])
                .abs()
                .max((v.1 - c[1]).abs())
                .max((v.2 - c[2]).abs())
        })
        .fold(0.0f64, f64::max);
    assert!(worst < 1e-5, "worst {worst}");
    assert_eq!(ours.faces.len(), polygons.len());
    for (i, (f, c)) in ours.faces.iter().zip(&polygons).enumerate() {
        assert_eq!(f.v, c.0, "polygon {i}");
    }
}

/// The cache of the Unwrap UVW at `at` in node `o`'s stack: Max's mesh below it.
fn cache(
    eval: &SceneEval,
    o: usize,
    at: usize,
) -> (Vec<[f64; 3]>, Vec<maxfs_tests::CachedPolygon>) {
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    assert_eq!(stack[at].name, "Unwrap UVW");
    let local = maxfs_tests::local_data(&stack[at]);
    unwrap_cache(local)
}

#[test]
fn cuts_and_connected_vertices_recorded_by_max_2019_give_the_polygons_max_cached() {
    // Shotgun's RubberGrip: its lowest Edit Poly's Cut (four segments) and
    // Connect Vertex operations recorded by release 2. The Unwrap UVW on top
    // cached the Shell's inner copies of that Edit Poly's 20 polygons first,
    // in order (eval_edit_poly_cut.rs).
    let file = "max/max2024-rico/Shotgun.max";
    let o = node(&corpus_eval(file), "RubberGrip");
    let (eval, n) = rewritten(file, o, &[CUT, CONNECT_VERTEX], 2);
    assert!(n >= 1, "RubberGrip's Cut");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let at = stack.len() - 1;
    let ours = edit_poly_output(&eval, o, at, 0).unwrap_or_else(|e| panic!("{e}"));
    let (_, polygons) = cache(&eval, o, 0);
    assert_eq!(ours.faces.len(), 20);
    for (i, (f, c)) in ours.faces.iter().zip(&polygons).enumerate() {
        let same =
            (0..f.v.len()).any(|r| (0..f.v.len()).all(|k| f.v[(k + r) % f.v.len()] == c.0[k]));
        assert!(
            same && f.v.len() == c.0.len(),
            "polygon {i}: {:?} cached {:?}",
            f.v,
            c.0
        );
    }
}

#[test]
fn an_operation_not_checked_for_max_2019_is_refused_by_name() {
    // Chair's Target Weld, recorded by release 2: a record of ten pairs,
    // where Max 2019's 72 public records hold one each (docs/max-format.md).
    let file = "max/max2024-rico/Chair.max";
    let before = corpus_eval(file);
    let welded: Vec<usize> = before
        .graph
        .nodes()
        .filter(|(o, _)| {
            before
                .modifier_stack(o.index)
                .is_some_and(|(s, _)| s.first().is_some_and(|m| m.name == "Unwrap UVW"))
        })
        .map(|(o, _)| o.index)
        .filter(|&o| rewritten(file, o, &[TARGET_WELD], 2).1 > 0)
        .collect();
    assert!(
        !welded.is_empty(),
        "a node of Chair.max target-welds under an Unwrap UVW"
    );
    for o in welded {
        let (eval, _) = rewritten(file, o, &[TARGET_WELD], 2);
        let (stack, _) = eval.modifier_stack(o).expect("stack");
        let refusals: Vec<String> = (0..stack.len())
            .filter(|&at| stack[at].name == "Edit Poly")
            .filter_map(|at| edit_poly_output(&eval, o, at, 0).err())
            .map(|e| e.to_string())
            .collect();
        assert!(
            refusals.iter().any(|e| e
                .starts_with("operation Target Weld Vertex (59): a Target Weld of ")
                && e.ends_with(
                    " pairs recorded by Edit Poly release 2 is not evaluated (only \
                    records of one pair are checked against Max at that release)"
                )),
            "{refusals:?}"
        );
        // The node still evaluates: the Unwrap UVW on top holds Max's
        // result of the stack below it and stands in, naming what for.
        let mesh = eval.mesh(o, 0).expect("a mesh").expect("evaluates");
        assert!(
            mesh.missing_parts.iter().any(|p| p
                .describe()
                .contains("recorded by Edit Poly release 2 is not")),
            "{:?}",
            mesh.missing_parts
        );
    }
    // Weld Vertex is checked for release 2 since (Buwaka's Plane001): Chair's
    // welds recorded by it replay as recorded by release 4.
    let mut checked = 0;
    let edit_polys: Vec<usize> = before
        .graph
        .nodes()
        .map(|(o, _)| o.index)
        .filter(|&o| {
            before
                .modifier_stack(o)
                .is_some_and(|(s, _)| s.iter().any(|m| m.name == "Edit Poly"))
        })
        .collect();
    for o in edit_polys {
        let (eval, n) = rewritten(file, o, &[WELD_VERTEX], 2);
        if n == 0 {
            continue;
        }
        let (stack, _) = eval.modifier_stack(o).expect("stack");
        for at in (0..stack.len()).filter(|&at| stack[at].name == "Edit Poly") {
            let ours = edit_poly_output(&eval, o, at, 0).map_err(|e| e.to_string());
            let theirs = edit_poly_output(&before, o, at, 0).map_err(|e| e.to_string());
            assert_eq!(ours, theirs, "node {o}, Edit Poly {at}");
            checked += 1;
        }
    }
    assert!(checked > 0, "Chair.max has Weld Vertex operations");
    // Release 3 (Max 2019.3): Transform is checked (IKToolkit's
    // DemoScene.FBX, docs/unseen-files.md, fifteenth sweep) and replays as
    // at release 4; any other operation is refused naming the release.
    let file = "max/max2024-rico/Mug.max";
    let before = corpus_eval(file);
    let o = node(&before, "Mug");
    let (eval, n) = rewritten(file, o, &[TRANSFORM], 3);
    assert!(n > 0);
    let ours = edit_poly_output(&eval, o, 1, 0).map_err(|e| e.to_string());
    let theirs = edit_poly_output(&before, o, 1, 0).map_err(|e| e.to_string());
    assert!(theirs.is_ok(), "{theirs:?}");
    assert_eq!(ours, theirs);
    let (eval, n) = rewritten(file, o, &[ATTACH], 3);
    assert!(n > 0);
    let e = edit_poly_output(&eval, o, 1, 0).expect_err("refused");
    assert!(
        e.to_string()
            .starts_with("operation Attach (58) recorded by Edit Poly release 3"),
        "{e}"
    );
}
