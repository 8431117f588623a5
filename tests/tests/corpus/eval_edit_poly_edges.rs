//! MNMesh's edge numbering and the edge operations replayed on it, against 3ds
//! Max's own records:
//!
//! - Insert Vertex Edge records (edge index, proportion from the edge's first
//!   vertex) on a fresh version-1 Cylinder (Can.max's Can, Shotgun.max's
//!   Shell): under our numbering each record picks a side edge of the
//!   cylinder, all 18 distinct, and the recorded proportions put the 18 new
//!   vertices at one height — which also pins each edge's direction (edge 19
//!   runs down and its proportion is the complement of the others'). The
//!   face-walk numbering fails both: its edge 19 is a rim edge.
//! - Shotgun.max's Shell (Cylinder → Edit Poly: two rings of Insert Vertex
//!   Edge + Connect Vertex, Delete Face → Boolean → …): the replay reaches the
//!   sizes Max saved for the modifier's output (72 vertices, 108 edges, 38
//!   faces, checked by the replay itself), the two rings lie in their planes,
//!   and the deleted faces are the band between them (every face left lies
//!   below the first ring or above the second); the node then stops at the
//!   Boolean modifier, named.
//! - Every Editable Poly's stored edge list holds each face side once.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::core::memo::Stack;
use maxfs_scene::eval::modifier::edit_poly_output;
use maxfs_scene::eval::objects::{primitive, primitive_poly};
use maxfs_scene::eval::SceneEval;
use maxfs_tests::{corpus_eval, le_words as words, node_index as node};

/// The first Insert Vertex Edge record of the node's lowest Edit Poly:
/// (edge, proportion) pairs, as stored (0x0238 → 0x1600).
fn first_insert_record(eval: &SceneEval, o: usize) -> Vec<(usize, f64)> {
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let m = stack
        .iter()
        .rev()
        .find(|m| m.name == "Edit Poly")
        .expect("an Edit Poly");
    let local = maxfs_tests::local_data(m);
    let kids: &[Chunk] = local.children();
    let at = kids
        .iter()
        .position(|c| c.id == 0x0230 && c.payload().map(words) == Some(vec![66]))
        .expect("an Insert Vertex Edge");
    let data = kids[at..]
        .iter()
        .find(|c| c.id == 0x0238)
        .and_then(|c| c.children().iter().find(|c| c.id == 0x1600))
        .and_then(Chunk::payload)
        .expect("0x1600");
    let w = words(data);
    let n = w[0] as usize;
    (0..n)
        .map(|i| (w[1 + i] as usize, f64::from(f32::from_bits(w[1 + n + i]))))
        .collect()
}

#[test]
fn cylinder_edges_are_numbered_as_max_records_them() {
    for (rel, name) in [
        ("max/max2024-rico/Can.max", "Can"),
        ("max/max2024-rico/Shotgun.max", "Shell"),
    ] {
        let eval = corpus_eval(rel);
        let o = node(&eval, name);
        let (_, base) = eval.modifier_stack(o).expect("stack");
        let class = eval.graph.objects[base].class.as_ref().expect("class");
        let p = primitive::params(&eval, base, 0).expect("params");
        let poly =
            primitive_poly::build(class.class_id, &p, eval.chunks(base)).expect("polygon form");
        let edges = poly.edges.as_ref().expect("edge numbering known");
        let height = p.float(1).expect("height");
        let record = first_insert_record(&eval, o);
        assert_eq!(record.len(), 18, "{name}");
        let mut picked = Vec::new();
        let mut heights = Vec::new();
        for &(e, t) in &record {
            let [a, b] = edges[e];
            let (pa, pb) = (poly.vertices[a as usize], poly.vertices[b as usize]);
            assert!(
                ((pa.2 - pb.2).abs() - height.abs()).abs() < 1e-9,
                "{name}: edge {e} ({a}, {b}) is not a side edge"
            );
            picked.push(a.min(b));
            heights.push(pa.2 + (pb.2 - pa.2) * t);
        }
        picked.sort_unstable();
        picked.dedup();
        assert_eq!(picked.len(), 18, "{name}: 18 distinct side edges");
        let lo = heights.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = heights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert!(hi - lo <= 1e-6 * height.abs(), "{name}: ring not planar");
        // The face-walk order would not give that.
        let walked = poly.walked_edges();
        assert_ne!(&walked, edges, "{name}");
    }
}

#[test]
fn shell_edit_poly_cuts_two_rings_and_removes_the_band_between() {
    let eval = corpus_eval("max/max2024-rico/Shotgun.max");
    let o = node(&eval, "Shell");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let at = stack
        .iter()
        .rposition(|m| m.name == "Edit Poly")
        .expect("an Edit Poly");
    let poly = edit_poly_output(&eval, o, at, 0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (
            poly.vertices.len(),
            poly.walked_edges().len(),
            poly.faces.len()
        ),
        (72, 108, 38)
    );
    let z = |v: u32| poly.vertices[v as usize].2;
    let ring = |r: std::ops::Range<u32>| {
        let lo = r.clone().map(z).fold(f64::INFINITY, f64::min);
        let hi = r.map(z).fold(f64::NEG_INFINITY, f64::max);
        assert!(hi - lo < 1e-6, "ring spread {lo}..{hi}");
        lo
    };
    let (z1, z2) = (ring(36..54), ring(54..72));
    assert!(z1 < z2);
    for (i, f) in poly.faces.iter().enumerate() {
        let below = f.v.iter().all(|&v| z(v) <= z1 + 1e-6);
        let above = f.v.iter().all(|&v| z(v) >= z2 - 1e-6);
        assert!(below || above, "face {i} crosses the deleted band");
    }
    // The stack's own evaluation (the Unwrap UVW cache stands in for it in
    // the node's mesh: eval_unwrap_cache.rs).
    let err = match eval
        .mesh_with(o, 0, Stack::Replayed)
        .expect("a mesh object")
    {
        Ok(_) => panic!("Shell evaluates, Boolean included: update this test"),
        Err(e) => e,
    };
    assert!(err.to_string().contains("Boolean"), "{err}");
}

/// Every Editable Poly in the corpus stores its edge list (0x010a); read as
/// (flags, v1, v2) it holds each side of every face exactly once, so the
/// numbering is known. Lists of polys never edited after their conversion are
/// in the face-walk order (`walk_edges`); the others, edited, are not.
#[test]
fn editable_poly_edge_lists_are_the_faces_sides() {
    use maxfs_scene::eval::objects::mesh::{geom_buffers, mnmesh, mnmesh_edges, EDITABLE_POLY};
    let (mut polys, mut walked) = (0usize, 0usize);
    for path in maxfs_tests::corpus_max_files() {
        let Ok(doc) = maxfs_scene::Document::open(&path) else {
            continue;
        };
        let Ok(eval) = SceneEval::from_document(doc) else {
            continue;
        };
        for (i, obj) in eval.graph.objects.iter().enumerate() {
            if obj.class.as_ref().map(|c| c.class_id) != Some(EDITABLE_POLY) {
                continue;
            }
            let Ok(geom) = geom_buffers(eval.chunks(i)) else {
                continue;
            };
            let where_ = format!("{} object {i}", path.display());
            let stored = mnmesh_edges(geom)
                .unwrap_or_else(|e| panic!("{where_}: {e}"))
                .unwrap_or_else(|| panic!("{where_}: no edge list"));
            let poly = mnmesh(geom).unwrap_or_else(|e| panic!("{where_}: {e}"));
            assert_eq!(poly.edges.as_ref(), Some(&stored), "{where_}");
            polys += 1;
            walked += usize::from(poly.walked_edges() == stored);
        }
    }
    eprintln!("{polys} Editable Poly edge lists, {walked} in face-walk order");
    assert!(
        polys >= 100 && walked >= 50,
        "{polys} lists, {walked} walked"
    );
}
