//! Edit Poly's Extrude Face of a cluster of adjacent faces as one group,
//! against what 3ds Max recorded of its result:
//!
//! - Sword.max's Line001 (Line → Extrude → Edit Poly: Transform, Extrude Face
//!   of the 14 side quads 60–73 as a group, Weld Vertex ×n, Connect Vertex ×4,
//!   …): every operation after the extrusion selects among 180 vertices
//!   (150 + the strip's 30 border vertices), the Edit Poly saved 180
//!   vertices, 286 edges and 108 faces, and the Mesh Totals (205 vertices
//!   with Plane001's 25) are reached (`eval_mesh_totals.rs` checks the sum);
//! - WaterCooler.max's lowest Edit Poly: its Extrude Face by Move (91) of
//!   the top cap's outer band, 18 quads in a ring (two border loops), gives
//!   counts that fit neither a by-polygon nor a group extrusion, so it is
//!   refused at that operation, naming the faces.

use maxfs_scene::eval::core::memo::Stack;
use std::collections::HashMap;

use maxfs_scene::eval::modifier::{
    edit_poly_operation_selection as selection, edit_poly_output, edit_poly_output_after,
};
use maxfs_tests::{corpus_eval, node_index as node};

use crate::eval_edit_poly_chamfer::{local, saved_sizes, transform_counts};

/// The border sides (each once) and vertices of a set of faces.
fn border(faces: &[&[u32]]) -> (usize, usize) {
    let mut sides: HashMap<(u32, u32), usize> = HashMap::new();
    for f in faces {
        for k in 0..f.len() {
            let (a, b) = (f[k], f[(k + 1) % f.len()]);
            *sides.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    let open: Vec<(u32, u32)> = sides
        .into_iter()
        .filter(|&(_, n)| n == 1)
        .map(|(e, _)| e)
        .collect();
    let mut verts: Vec<u32> = open.iter().flat_map(|&(a, b)| [a, b]).collect();
    verts.sort_unstable();
    verts.dedup();
    (open.len(), verts.len())
}

#[test]
fn sword_group_extrusion_gives_max_sizes() {
    let eval = corpus_eval("max/prims-greejesh/Sword.max");
    let o = node(&eval, "Line001");
    let (name, _) = selection(&eval, o, 0, 1).expect("op 1");
    assert!(name.contains("Extrude Face"), "{name}");
    let input = edit_poly_output_after(&eval, o, 0, 0, 1).expect("input");
    let strip: Vec<&[u32]> = (60..74).map(|f| input.faces[f].v.as_slice()).collect();
    let (sides, border_vertices) = border(&strip);
    assert_eq!((sides, border_vertices), (30, 30));
    // After the extrusion: one new vertex per border vertex and one wall
    // per border side, which Max's next selections count.
    let after = edit_poly_output_after(&eval, o, 0, 0, 2).expect("extruded");
    let (weld, verts) = selection(&eval, o, 0, 2).expect("op 2");
    assert!(weld.contains("Weld Vertex"), "{weld}");
    assert_eq!(verts, 180);
    assert_eq!(after.vertices.len(), verts);
    assert_eq!(after.faces.len(), input.faces.len() + sides);
    // The strip keeps its faces, each on the new vertices only; the walls
    // are quads of two old and two new vertices.
    let new = |v: u32| v as usize >= input.vertices.len();
    for f in 60..74 {
        let old_corners = input.faces[f]
            .v
            .iter()
            .zip(&after.faces[f].v)
            .filter(|(a, b)| a != b)
            .count();
        assert!(old_corners > 0, "face {f} took no new vertex");
        assert!(after.faces[f].v.iter().all(|&v| new(v)), "face {f}");
    }
    for w in &after.faces[input.faces.len()..] {
        assert_eq!(w.v.len(), 4);
        assert_eq!(w.v.iter().filter(|&&v| new(v)).count(), 2);
        assert_eq!(w.smoothing, 0);
    }
    // Every later operation selects among as many vertices as Max's (its
    // welds merged nothing), and the output has the sizes Max saved.
    let ep = local(&eval, o, 0);
    let mut k = 3;
    while let Ok((name, n)) = selection(&eval, o, 0, k) {
        if !name.contains("Transform") {
            assert_eq!(n, 180, "operation {k} ({name})");
        }
        k += 1;
    }
    let poly = edit_poly_output(&eval, o, 0, 0).unwrap_or_else(|e| panic!("Line001: {e}"));
    let ours = [
        poly.vertices.len(),
        poly.walked_edges().len(),
        poly.faces.len(),
    ];
    assert_eq!(ours.map(|x| x as u32).to_vec(), saved_sizes(ep));
    assert_eq!(saved_sizes(ep), [180, 286, 108]);
    let mesh = eval
        .mesh(o, 0)
        .expect("a mesh object")
        .unwrap_or_else(|e| panic!("Line001: {e}"));
    assert_eq!(mesh.vertices.len(), 180);
}

#[test]
fn watercooler_band_move_extrusion_is_refused_with_max_counts() {
    let eval = corpus_eval("max/max2024-rico/WaterCooler.max");
    let o = node(&eval, "WaterCooler01");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let at = stack.len() - 1;
    assert_eq!(stack[at].name, "Edit Poly");
    let input = edit_poly_output_after(&eval, o, at, 0, 0).expect("input");
    assert_eq!((input.vertices.len(), input.faces.len()), (218, 234));
    let (name, n) = selection(&eval, o, at, 0).expect("op 0");
    assert!(name.contains("(91)"), "{name}");
    assert_eq!(n, 234);
    let band: Vec<&[u32]> = (162..180).map(|f| input.faces[f].v.as_slice()).collect();
    // A ring of quads: two loops of 18 sides.
    assert_eq!(border(&band), (36, 36));
    // Max's Transform after it holds 254 offsets: 36 new vertices, one per
    // border vertex as a group would make (a by-polygon extrusion: 72).
    let counts = transform_counts(local(&eval, o, at));
    assert_eq!(counts[1], Some(254));
    assert_eq!(254 - 218, 36);
    // The next move extrusion selects among 252 faces: 18 new, where a
    // group's walls would be 36 and a by-polygon extrusion's 72.
    let (name, n) = selection(&eval, o, at, 3).expect("op 3");
    assert!(name.contains("(91)"), "{name}");
    assert_eq!(n - 234, 18);
    // The stack's own evaluation (the Unwrap UVW cache stands in for it in
    // the node's mesh: eval_unwrap_cache.rs).
    let err = eval
        .mesh_with(o, 0, Stack::Replayed)
        .expect("a mesh object")
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains(
            "Extrude Face by Move (91): a move extrusion (type 2) of the adjacent faces [162,"
        ),
        "{err}"
    );
}
