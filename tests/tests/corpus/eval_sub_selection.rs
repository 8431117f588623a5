//! A deformer above a live sub-object selection (issue 19, "no silent
//! drops"). Max's deformers move only the vertices of the selection the
//! layers below leave live (an Editable Poly left at vertex, edge or face
//! level: the flagged vertices, the ends of the flagged edges, the corners
//! of the flagged faces) and leave every other vertex where it was.
//!
//! The corpus holds no Editable Poly at a sub-object level under a deformer
//! that moves anything, so these tests write one: Kenji's Room's Cylinder002
//! (Editable Poly → Bend, checked against the authors' FBX in
//! eval_bend_taper) with its MNMesh's selection level (GeomBuffers 0x0130)
//! and MN_SEL flags set through the project's writer. Expected values come
//! from that rule alone: each selected vertex exactly where the whole-object
//! Bend puts it, each other vertex exactly at its base position. Soft
//! selection (`ep_ss_use`) and an Editable Mesh's selection are refused by
//! name.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::core::math::Vec3;
use maxfs_scene::eval::SceneEval;
use maxfs_tests::rewrite::SceneEdit;

const FILE: &str = "max/kenji-room/Kenjis_Room.max";
const NODE: &str = "Cylinder002";
const GEOM: u16 = 0x08fe;

fn node_of(eval: &SceneEval, name: &str) -> usize {
    eval.graph
        .nodes()
        .find(|(_, n)| n.name == name)
        .map(|(o, _)| o.index)
        .expect("node")
}

/// The raw MNMesh vertex records (0x0100) of the Editable Poly: per vertex
/// the byte offset of its flags word, dead ones (flag 2) skipped.
fn vertex_flag_offsets(p: &[u8]) -> Vec<usize> {
    let n = u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize;
    let mut at = 4;
    let mut out = Vec::new();
    for _ in 0..n {
        let flags = u32::from_le_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]]);
        if flags & 2 == 0 {
            out.push(at);
            at += 16;
        } else {
            at += 4;
        }
    }
    out
}

/// Kenji's Room with Cylinder002's Editable Poly left at MNMesh level
/// `level`, vertices `selected` (live numbering) flagged MN_SEL, and its
/// soft selection set to `soft` when Some; returns the edited scene and the
/// node.
fn edited(level: u32, selected: &[usize], soft: Option<bool>) -> (SceneEval, usize) {
    edited_with(level, selected, &[], soft)
}

/// [`edited`], also flagging MN_SEL on the edges `edges` (indices into the
/// MNMesh edge list 0x010a: u32 count, then flags, v1, v2 per edge) and
/// clearing it on every other edge.
fn edited_with(
    level: u32,
    selected: &[usize],
    edges: &[usize],
    soft: Option<bool>,
) -> (SceneEval, usize) {
    let mut e = SceneEdit::open(FILE);
    let node = e.node(NODE);
    let (orig, _) = original();
    let base = orig.node_object(node).expect("base object");
    // The Editable Poly's parameter block (superclass 0x82).
    let pb = orig.graph.objects[base].references.iter().find_map(|r| {
        let t = usize::try_from(r.target).ok()?;
        let c = orig.graph.objects.get(t)?.class.as_ref()?;
        (c.super_class == 0x82).then_some(t)
    });
    let chunks = e.object_chunks(base);
    let geom = chunks.iter().find(|c| c.id == GEOM).expect("GeomBuffers");
    let mut verts = geom
        .children()
        .iter()
        .find(|c| c.id == 0x0100)
        .and_then(Chunk::payload)
        .expect("vertices")
        .to_vec();
    let offsets = vertex_flag_offsets(&verts);
    for (i, &at) in offsets.iter().enumerate() {
        let mut flags =
            u32::from_le_bytes([verts[at], verts[at + 1], verts[at + 2], verts[at + 3]]);
        flags &= !1;
        if selected.contains(&i) {
            flags |= 1;
        }
        verts[at..at + 4].copy_from_slice(&flags.to_le_bytes());
    }
    e.put_nested_leaf(base, &[GEOM], 0x0100, verts);
    let mut edge_list = geom
        .children()
        .iter()
        .find(|c| c.id == 0x010a)
        .and_then(Chunk::payload)
        .expect("edges")
        .to_vec();
    for (k, r) in edge_list[4..].chunks_exact_mut(12).enumerate() {
        let mut flags = u32::from_le_bytes([r[0], r[1], r[2], r[3]]) & !1;
        if edges.contains(&k) {
            flags |= 1;
        }
        r[..4].copy_from_slice(&flags.to_le_bytes());
    }
    e.put_nested_leaf(base, &[GEOM], 0x010a, edge_list);
    e.put_nested_leaf(base, &[GEOM], 0x0130, level.to_le_bytes().to_vec());
    if let Some(on) = soft {
        // ep_ss_use (iEPoly.h: parameter 4 of the Editable Poly's block).
        let pb = pb.expect("the Editable Poly's parameter block");
        e.set_pb2_constant(pb, 4, &u32::from(on).to_le_bytes());
    }
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");
    (eval, node)
}

fn original() -> (SceneEval, usize) {
    let eval = maxfs_tests::eval_of(maxfs_tests::corpus_dir().join(FILE).to_str().expect("path"))
        .expect("scene");
    let node = node_of(&eval, NODE);
    (eval, node)
}

#[test]
fn bend_moves_only_the_selected_vertices() {
    let (eval, node) = original();
    let whole: Vec<Vec3> = eval
        .mesh(node, 0)
        .expect("mesh")
        .expect("evaluates")
        .vertices
        .clone();
    let base: Vec<Vec3> = eval
        .base_mesh(node)
        .expect("base")
        .expect("builds")
        .vertices
        .clone();
    assert_eq!(whole.len(), base.len());
    // The Bend moves vertices: otherwise this test could not fail.
    let moved: Vec<usize> = (0..base.len()).filter(|&i| whole[i] != base[i]).collect();
    assert!(moved.len() > 4, "the Bend moves {} vertices", moved.len());
    // Every other moved vertex, and one that does not move, selected.
    let selected: Vec<usize> = moved.iter().step_by(2).copied().collect();
    let (edited, node) = edited(1, &selected, Some(false));
    let got = edited.mesh(node, 0).expect("mesh").expect("evaluates");
    assert_eq!(got.vertices.len(), base.len());
    for i in 0..base.len() {
        let want = if selected.contains(&i) {
            whole[i]
        } else {
            base[i]
        };
        assert_eq!(
            got.vertices[i],
            want,
            "vertex {i} (selected {})",
            selected.contains(&i)
        );
    }
}

#[test]
fn object_level_keeps_the_whole_object_result() {
    let (eval, node) = original();
    let whole = eval
        .mesh(node, 0)
        .expect("mesh")
        .expect("evaluates")
        .vertices
        .clone();
    // Flags set but the level at object: every vertex bends.
    let (edited, node) = edited(0, &[0, 1, 2], None);
    let got = edited.mesh(node, 0).expect("mesh").expect("evaluates");
    assert_eq!(got.vertices, whole);
}

#[test]
fn soft_selection_is_refused_by_name() {
    let (edited, node) = edited(1, &[0], Some(true));
    let err = edited.mesh(node, 0).expect("mesh").expect_err("refused");
    let text = err.to_string();
    assert!(
        text.contains("Bend") && text.contains("Editable Poly") && text.contains("soft selection"),
        "{text}"
    );
}

/// At edge level the ends of the flagged edges move, nothing else.
#[test]
fn edge_level_moves_the_ends_of_the_selected_edges() {
    let (eval, node) = original();
    let whole = eval
        .mesh(node, 0)
        .expect("mesh")
        .expect("evaluates")
        .vertices
        .clone();
    let base = eval
        .base_mesh(node)
        .expect("base")
        .expect("builds")
        .vertices
        .clone();
    // The edge list straight from the file; the test needs no dead vertices
    // (then MNMesh's numbering is the mesh's).
    let obj = eval.node_object(node).expect("base object");
    let geom = eval
        .chunks(obj)
        .iter()
        .find(|c| c.id == GEOM)
        .expect("GeomBuffers");
    let raw = geom
        .children()
        .iter()
        .find(|c| c.id == 0x0100)
        .and_then(Chunk::payload)
        .expect("vertices");
    assert_eq!(
        vertex_flag_offsets(raw).len(),
        base.len(),
        "no dead vertices"
    );
    let list = geom
        .children()
        .iter()
        .find(|c| c.id == 0x010a)
        .and_then(Chunk::payload)
        .expect("edges");
    let ends: Vec<[usize; 2]> = list[4..]
        .chunks_exact(12)
        .map(|r| {
            let w = |k: usize| u32::from_le_bytes([r[k], r[k + 1], r[k + 2], r[k + 3]]) as usize;
            [w(4), w(8)]
        })
        .collect();
    // An edge whose two ends the Bend moves.
    let k = ends
        .iter()
        .position(|[a, b]| whole[*a] != base[*a] && whole[*b] != base[*b])
        .expect("an edge the Bend moves");
    let (edited, node) = edited_with(2, &[], &[k], Some(false));
    let got = edited.mesh(node, 0).expect("mesh").expect("evaluates");
    for i in 0..base.len() {
        let want = if ends[k].contains(&i) {
            whole[i]
        } else {
            base[i]
        };
        assert_eq!(got.vertices[i], want, "vertex {i}");
    }
}
