//! TurboSmooth numbers its edge points by the Editable Poly's stored edge
//! list (0x010a). Where that list cannot be used, first use stands in: the
//! surface is the same, so the node still evaluates where nothing above
//! addresses vertices by number (Kenjis_chair.max's ChamferBox001: a Bend
//! above), and is refused by name where something does (an Edit Mesh put
//! on top). The corpus has no damaged list, so one is damaged through the
//! project's writer.

use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::{EvalErrorKind, SceneEval};
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

const CHAIR: &str = "max/kenji-room/Kenjis_chair.max";
const NODE: &str = "ChamferBox001";
/// GeomBuffers and its MNMesh edge list.
const GEOM_BUFFERS: u16 = 0x08fe;
const POLY_EDGES: u16 = 0x010a;
const EDIT_MESH: ClassId = ClassId(0x50, 0);

/// Kenjis_chair.max, its edge list under ChamferBox001's TurboSmooth
/// claiming 5 edges of 12 bytes in 4 bytes when `damaged`, an Edit Mesh on
/// top of the stack when `edit_mesh`.
fn chair(damaged: bool, edit_mesh: bool) -> (SceneEval, usize) {
    let mut e = SceneEdit::open(CHAIR);
    let n = e.node(NODE);
    if damaged {
        let original = maxfs_tests::corpus_eval(CHAIR);
        let (_, base) = original.modifier_stack(n).expect("a stack");
        let mut list = 5u32.to_le_bytes().to_vec();
        list.extend_from_slice(&[0; 4]);
        e.put_nested_leaf(base, &[GEOM_BUFFERS], POLY_EDGES, list);
    }
    if edit_mesh {
        e.add_bare_modifier(n, 0, "EditableMesh.dlm", EDIT_MESH, "Edit Mesh");
    }
    (
        SceneEval::from_document(e.finish()).expect("edited scene"),
        n,
    )
}

fn sorted(m: &Mesh) -> Vec<[i64; 3]> {
    let mut v: Vec<[i64; 3]> = m
        .vertices
        .iter()
        .map(|p| [p.0, p.1, p.2].map(|x| (x * 1e4).round() as i64))
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn a_damaged_edge_list_keeps_the_surface_where_nothing_above_counts_vertices() {
    let (original, n) = chair(false, false);
    let (edited, _) = chair(true, false);
    let (stack, _) = edited.modifier_stack(n).expect("a stack");
    assert_eq!(
        stack.iter().map(|a| a.name).collect::<Vec<_>>(),
        ["Bend", "TurboSmooth"]
    );
    let before = original.mesh(n, 0).expect("a mesh").expect("evaluates");
    let after = edited.mesh(n, 0).expect("a mesh").expect("still evaluates");
    assert_eq!(after.faces.len(), before.faces.len());
    assert_eq!(sorted(&after), sorted(&before));
}

#[test]
fn a_damaged_edge_list_under_an_edit_mesh_is_refused_by_name() {
    let (whole, n) = chair(false, true);
    let intact = match whole.mesh(n, 0).expect("a mesh") {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    };
    assert!(!intact.contains("edge list"), "{intact}");

    let (edited, n) = chair(true, true);
    let Err(err) = edited.mesh(n, 0).expect("a mesh") else {
        panic!("an Edit Mesh cannot address vertices numbered otherwise than by Max");
    };
    let text = err.to_string();
    assert!(text.contains("Edit Mesh above TurboSmooth"), "{text}");
    assert!(text.contains("poly edges (0x010a)"), "{text}");
    assert_eq!(err.kind(), EvalErrorKind::NotEvaluated, "{text}");
}
