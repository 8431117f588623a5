//! Edit Poly's quad chamfer beyond Mug's loop (eval_edit_poly_ops.rs), against
//! what 3ds Max saved of its own result; neither node is evaluated to the
//! end (Table stops at its Smooth, Can at the Boolean above its Edit Poly),
//! so the Edit Poly's output is checked on its own:
//!
//! - Table.max (Box → Edit Poly: …, Chamfer Edge of one edge, 3 Transforms →
//!   Symmetry → Smooth → Edit Poly → Unwrap UVW): the Edit Poly's saved sizes
//!   (34 vertices, 55 edges, 24 faces), the Transforms recorded after the
//!   chamfer (34 offsets; the last moves 13, 14 and the two new vertices
//!   that sit on them, 27 and 30), and the Unwrap UVW's cache of its input
//!   (0x0330 / 0x0870), which keeps the chamfer's ten new vertices in Max's
//!   order (its vertices 17–26) and the eight polygons around them;
//! - Can.max (Cylinder → Edit Poly: …, Chamfer Edge of the top cap's rim,
//!   whose side edges are shorter than the amount and not at right angles,
//!   Extrude Face by Move, … → Boolean → Edit Poly → Unwrap UVW): the sizes
//!   the next two operations recorded (164 faces, 198 = 180 + 18 vertices)
//!   and every new vertex's position in the Unwrap's cache and in the FBX;
//!   past its Extrude Face by Move end, the Edit Poly's saved sizes.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::objects::poly::PolyMesh;
use maxfs_scene::eval::SceneEval;
use maxfs_tests::{corpus_dir, corpus_eval, le_words as words, node_index as node, unwrap_cache};

pub(crate) fn local(eval: &SceneEval, o: usize, at: usize) -> &Chunk {
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    maxfs_tests::local_data(&stack[at])
}

/// Per operation of an Edit Poly's local data, the Transform's offset count
/// (0x0238 → 0x12c3), None for other operations.
pub(crate) fn transform_counts(local: &Chunk) -> Vec<Option<u32>> {
    let mut out = Vec::new();
    for c in local.children() {
        if c.id == 0x0230 {
            out.push(None);
        } else if c.id == 0x0238 {
            let n = c
                .children()
                .iter()
                .find(|x| x.id == 0x12c3)
                .and_then(Chunk::payload)
                .map(|p| words(p)[0]);
            if let Some(last) = out.last_mut() {
                *last = n;
            }
        }
    }
    out
}

pub(crate) fn saved_sizes(local: &Chunk) -> Vec<u32> {
    [0x0200u16, 0x0210, 0x0220]
        .iter()
        .map(|&id| {
            let c = local.children().iter().find(|c| c.id == id).expect("size");
            let p = c
                .children()
                .first()
                .and_then(Chunk::payload)
                .or(c.payload())
                .expect("bits");
            words(p)[0]
        })
        .collect()
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn nearest(set: &[[f64; 3]], p: [f64; 3]) -> (usize, f64) {
    set.iter()
        .enumerate()
        .map(|(i, &q)| (i, dist(p, q)))
        .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a })
}

fn fbx_vertices(rel: &str, name: &str) -> Vec<[f64; 3]> {
    let scene = ufbx::load_file(
        corpus_dir().join("ref").join(rel).to_str().expect("path"),
        ufbx::LoadOpts::default(),
    )
    .expect("fbx loads");
    let m = scene
        .nodes
        .iter()
        .find(|n| n.element.name.as_ref() == name)
        .and_then(|n| n.mesh.as_ref())
        .expect("FBX mesh");
    m.vertices.iter().map(|v| [v.x, v.y, v.z]).collect()
}

fn p3(poly: &PolyMesh, v: u32) -> [f64; 3] {
    let p = poly.vertices[v as usize];
    [p.0, p.1, p.2]
}

/// Equal up to rotation.
fn same_cycle(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && (0..a.len()).any(|r| (0..a.len()).all(|i| a[(i + r) % a.len()] == b[i]))
}

#[test]
fn table_edge_chamfer_matches_max_records_and_the_unwrap_cache() {
    let eval = corpus_eval("max/max2024-rico/Table.max");
    let o = node(&eval, "Table");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let names: Vec<_> = stack.iter().map(|m| m.name).collect();
    assert_eq!(
        names,
        ["Unwrap UVW", "Edit Poly", "Smooth", "Symmetry", "Edit Poly"]
    );
    let poly = maxfs_scene::eval::modifier::edit_poly_output(&eval, o, 4, 0)
        .unwrap_or_else(|e| panic!("Table's Edit Poly: {e}"));
    let ep = local(&eval, o, 4);
    let sizes = saved_sizes(ep);
    assert_eq!(sizes, [34, 55, 24]);
    assert_eq!(
        [
            poly.vertices.len(),
            poly.walked_edges().len(),
            poly.faces.len()
        ],
        [34, 55, 24].map(|x: u32| x as usize)
    );
    // The Transforms after the chamfer are sized to its output.
    let counts = transform_counts(ep);
    assert_eq!(&counts[18..], [Some(34), Some(34), Some(34)]);
    // The chamfered edge's ends (3, 7) stay, on no face; 27 and 30 slid onto
    // 13 and 14 (shorter sides than the amount) and moved with them.
    for c in [3, 7] {
        assert!(poly.faces.iter().all(|f| !f.v.contains(&c)), "vertex {c}");
    }
    assert_eq!(poly.vertices[27], poly.vertices[13]);
    assert_eq!(poly.vertices[30], poly.vertices[14]);

    let (cache, polys) = unwrap_cache(local(&eval, o, 0));
    let size = 90.0; // the table's diagonal
                     // The new vertices, in Max's order.
    let mut worst = 0.0f64;
    for k in 0..10u32 {
        worst = worst.max(dist(p3(&poly, 24 + k), cache[17 + k as usize]));
    }
    // Every other used vertex is where Max has one (Symmetry kept the +X half).
    let used: Vec<u32> = (0..24u32)
        .filter(|&v| poly.faces.iter().any(|f| f.v.contains(&v)))
        .collect();
    for &v in &used {
        worst = worst.max(nearest(&cache, p3(&poly, v)).1);
    }
    // The polygons around the chamfer: cache 17..26 are ours 24..33, the
    // others ours by position.
    let ours = |c: u32| -> u32 {
        if (17..27).contains(&c) {
            c + 7
        } else {
            let (i, d) = nearest(
                &used.iter().map(|&v| p3(&poly, v)).collect::<Vec<_>>(),
                cache[c as usize],
            );
            assert!(d < 1e-5 * size, "cache vertex {c}");
            used[i]
        }
    };
    let mut matched = 0;
    for (cv, material) in &polys {
        if !cv.iter().any(|c| (17..27).contains(c)) {
            continue;
        }
        let mapped: Vec<u32> = cv.iter().map(|&c| ours(c)).collect();
        let f = poly
            .faces
            .iter()
            .find(|f| same_cycle(&f.v, &mapped))
            .unwrap_or_else(|| panic!("no face {mapped:?}"));
        assert_eq!(u32::from(f.material), *material, "{mapped:?}");
        matched += 1;
    }
    assert_eq!(matched, 8, "polygons on the chamfer");
    // The FBX (after Symmetry, Smooth and the attachments) has them too.
    let fbx = fbx_vertices("max2024-rico/Table.fbx", "Table");
    let mut fbx_worst = 0.0f64;
    for v in used.iter().copied().chain(24..34) {
        fbx_worst = fbx_worst.max(nearest(&fbx, p3(&poly, v)).1);
    }
    eprintln!(
        "Table: chamfer vertices worst {worst:.2e} against the Unwrap cache, {fbx_worst:.2e} \
         against the FBX, of size {size}; {matched} polygons equal"
    );
    assert!(worst < 1e-6 * size, "cache: {worst}");
    assert!(fbx_worst < 1e-6 * size, "FBX: {fbx_worst}");
}

#[test]
fn can_rim_chamfer_clamps_to_the_short_side_edges() {
    let eval = corpus_eval("max/max2024-rico/Can.max");
    let o = node(&eval, "Can");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let names: Vec<_> = stack.iter().map(|m| m.name).collect();
    assert_eq!(names, ["Unwrap UVW", "Edit Poly", "Boolean", "Edit Poly"]);
    let ep = local(&eval, o, 3);
    let (name, faces) =
        maxfs_scene::eval::modifier::edit_poly_operation_selection(&eval, o, 3, 15).expect("op");
    assert!(name.contains("Extrude Face by Move"), "{name}");
    let before = maxfs_scene::eval::modifier::edit_poly_output_after(&eval, o, 3, 0, 14)
        .unwrap_or_else(|e| panic!("{e}"));
    let poly = maxfs_scene::eval::modifier::edit_poly_output_after(&eval, o, 3, 0, 15)
        .unwrap_or_else(|e| panic!("{e}"));
    // The chamfer's output: the faces the extrusion selected among, and the
    // vertices the Transform after the extrusion (of the 18-sided cap) moved.
    assert_eq!(poly.faces.len(), faces);
    let after_extrusion = maxfs_scene::eval::modifier::edit_poly_output_after(&eval, o, 3, 0, 16)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        Some(after_extrusion.vertices.len() as u32),
        transform_counts(ep)[16]
    );
    assert_eq!(poly.vertices.len(), before.vertices.len() - 18 + 90);
    let (cache, _) = unwrap_cache(local(&eval, o, 0));
    let fbx = fbx_vertices("max2024-rico/Can.fbx", "Can");
    let size = 5.6;
    let (mut worst, mut fbx_worst) = (0.0f64, 0.0f64);
    for v in 90..180u32 {
        worst = worst.max(nearest(&cache, p3(&poly, v)).1);
        fbx_worst = fbx_worst.max(nearest(&fbx, p3(&poly, v)).1);
    }
    eprintln!(
        "Can: 90 chamfer vertices worst {worst:.2e} against the Unwrap cache, {fbx_worst:.2e} \
         against the FBX, of size {size}"
    );
    assert!(worst < 1e-6 * size, "cache: {worst}");
    assert!(fbx_worst < 1e-6 * size, "FBX: {fbx_worst}");
}

/// Can's Extrude Face by Move end (operation 17) records 200 bits for the 182
/// faces its extrusion left, naming face 19, the 18-gon cap the extrusion
/// (15) moved. It adds nothing: the Delete Face after it selects among 182
/// faces and the Transform after that holds 198 offsets. The Edit Poly then
/// replays to the sizes it saved (198 vertices, 378 edges, 181 faces), and
/// every one of its 198 vertices, the 36 its last Transform moved (rings
/// 0–17 and 72–89) among them, lies where the Unwrap UVW's cache and the FBX
/// have one.
#[test]
fn can_move_extrusion_end_adds_nothing() {
    let eval = corpus_eval("max/max2024-rico/Can.max");
    let o = node(&eval, "Can");
    let ep = local(&eval, o, 3);
    let (name, bits) =
        maxfs_scene::eval::modifier::edit_poly_operation_selection(&eval, o, 3, 17).expect("op");
    assert!(name.contains("Move end"), "{name}");
    assert_eq!(bits, 200);
    let (name, faces) =
        maxfs_scene::eval::modifier::edit_poly_operation_selection(&eval, o, 3, 18).expect("op");
    assert!(name.contains("Delete Face"), "{name}");
    let after = maxfs_scene::eval::modifier::edit_poly_output_after(&eval, o, 3, 0, 18)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(after.faces.len(), faces);
    assert_eq!(Some(after.vertices.len() as u32), transform_counts(ep)[19]);
    let poly = maxfs_scene::eval::modifier::edit_poly_output(&eval, o, 3, 0)
        .unwrap_or_else(|e| panic!("{e}"));
    let ours = [
        poly.vertices.len() as u32,
        poly.walked_edges().len() as u32,
        poly.faces.len() as u32,
    ];
    assert_eq!(ours.to_vec(), saved_sizes(ep));
    let (cache, _) = unwrap_cache(local(&eval, o, 0));
    let fbx = fbx_vertices("max2024-rico/Can.fbx", "Can");
    let size = 5.6;
    // Every vertex, the 36 the last Transform moved among them.
    let (mut worst, mut fbx_worst) = (0.0f64, 0.0f64);
    for v in 0..poly.vertices.len() as u32 {
        worst = worst.max(nearest(&cache, p3(&poly, v)).1);
        fbx_worst = fbx_worst.max(nearest(&fbx, p3(&poly, v)).1);
    }
    eprintln!(
        "Can: sizes {ours:?}; all {} vertices worst {worst:.2e} against the Unwrap cache, \
         {fbx_worst:.2e} against the FBX, of size {size}",
        poly.vertices.len()
    );
    assert!(worst < 1e-6 * size, "cache: {worst}");
    assert!(fbx_worst < 1e-6 * size, "FBX: {fbx_worst}");
    // The Boolean above evaluates: eval_boolean_modifier.rs checks the node.
}

/// Sets parameter `id` (0x0410: u32 id, value) of every Chamfer Edge (34)
/// under `chunks` (an Edit Poly's local data: 0x0230 operation id, then
/// 0x0234 → 0x0600 basics) to `value`; returns how many were set.
fn set_chamfer_param(chunks: &mut [Chunk], id: u32, value: u32) -> usize {
    use maxfs_scene::chunk::Body;
    let mut set = 0;
    let mut op = None;
    for c in chunks.iter_mut() {
        if c.id == 0x0230 {
            op = c.payload().map(words);
            continue;
        }
        let Body::Container(kids) = &mut c.body else {
            continue;
        };
        if c.id == 0x0234 && op.as_deref() == Some(&[34]) {
            for b in kids.iter_mut().filter(|b| b.id == 0x0600) {
                let Body::Container(basics) = &mut b.body else {
                    continue;
                };
                for r in basics.iter_mut().filter(|r| r.id == 0x0410) {
                    if r.payload()
                        .map(words)
                        .is_some_and(|w| w.first() == Some(&id))
                    {
                        let mut bytes = id.to_le_bytes().to_vec();
                        bytes.extend(value.to_le_bytes());
                        *r = Chunk::leaf(0x0410, bytes);
                        set += 1;
                    }
                }
            }
        } else {
            set += set_chamfer_param(kids, id, value);
        }
    }
    set
}

/// A standard chamfer of one face's whole border replays with one segment
/// (`edit_poly_chamfer_cap_standard`, pinned on KyleCRat's
/// Wall_Greeble_Panel_A: Max's Unwrap UVW cache above it, every position and
/// polygon equal, docs/unseen-files.md) and is refused by name with more. No
/// corpus file holds a standard chamfer, so Mug's and Can's quad chamfers (a
/// loop that is one cap face's whole border, 2 segments) are rewritten to
/// type 0 through the writer. With 2 segments they must be refused for that
/// configuration, not replayed as a quad chamfer nor as a ring. With 1
/// segment, the standard chamfer's two points per loop vertex are those the
/// saved quad chamfer puts at the ends of its profile (A in the cap, B on
/// the other edge; Mug's rows are Max's own, its Unwrap cache): each of our
/// vertices is one of the saved result's, and the saved result has three
/// more (the ¼, ½, ¾ rows) per loop vertex, less the loop vertex itself.
fn chamfer_rewritten(file: &str, o: usize, params: &[(u32, u32)]) -> SceneEval {
    let mut e = maxfs_tests::rewrite::SceneEdit::open(file);
    let derived = e.reference(o, 1);
    let mut chunks = e.object_chunks(derived);
    for &(id, value) in params {
        assert_eq!(set_chamfer_param(&mut chunks, id, value), 1, "{file}: {id}");
    }
    e.set_object_chunks(derived, chunks);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn a_standard_chamfer_of_one_faces_border() {
    for (file, name, at) in [
        ("max/max2024-rico/Mug.max", "Mug", 1),
        ("max/max2024-rico/Can.max", "Can", 3),
    ] {
        let before = corpus_eval(file);
        let o = node(&before, name);
        // The mesh right after the chamfer (operation 34), before the rest.
        let count = (0..)
            .find(|&i| {
                maxfs_scene::eval::modifier::edit_poly_operation_record(&before, o, at, i)
                    .map(|r| r.id == 34)
                    .unwrap_or_else(|e| panic!("{name}: no chamfer among the records: {e}"))
            })
            .expect("a chamfer")
            + 1;
        let after = |eval: &SceneEval| {
            maxfs_scene::eval::modifier::edit_poly_output_after(eval, o, at, 0, count)
        };
        let saved = after(&before).unwrap_or_else(|e| panic!("{name} as saved: {e}"));
        // Type 0 (standard), the saved 2 segments: refused by name.
        let eval = chamfer_rewritten(file, o, &[(108, 0)]);
        let err = after(&eval).expect_err("refused").to_string();
        assert!(
            err.contains("standard chamfer with 2 segments is not evaluated")
                && err.contains("a standard chamfer of a face's border with 2 segments"),
            "{err}"
        );
        // Type 0, 1 segment: replayed.
        let eval = chamfer_rewritten(file, o, &[(108, 0), (86, 1)]);
        let ours = after(&eval).unwrap_or_else(|e| panic!("{name} standard, 1 segment: {e}"));
        let theirs: Vec<[f64; 3]> = (0..saved.vertices.len() as u32)
            .map(|v| p3(&saved, v))
            .collect();
        let size = theirs
            .iter()
            .flat_map(|a| theirs.iter().map(move |b| dist(*a, *b)))
            .fold(0.0, f64::max);
        for v in 0..ours.vertices.len() as u32 {
            let (_, d) = nearest(&theirs, p3(&ours, v));
            assert!(
                d < 1e-5 * size,
                "{name}: vertex {v} is {d} from the saved rows"
            );
        }
        let below =
            maxfs_scene::eval::modifier::edit_poly_output_after(&before, o, at, 0, count - 1)
                .unwrap_or_else(|e| panic!("{name} below the chamfer: {e}"));
        let added = ours.vertices.len() - below.vertices.len();
        assert!(added > 0, "{name}: one A per loop vertex");
        assert_eq!(
            saved.vertices.len() - ours.vertices.len(),
            3 * added,
            "{name}: the quad chamfer has three more rows per loop vertex"
        );
        assert!(
            ours.faces.len() < saved.faces.len(),
            "{name}: one strip per edge"
        );
    }
}
