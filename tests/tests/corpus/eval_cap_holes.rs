//! Cap Holes (issue 19). The corpus holds none, so the test puts one through
//! our writer on a real scene: babylon/CartoonHouses.max's Object009 (36
//! vertices, 60 faces, open edges). Expected values are geometry invariants
//! of the documented modifier (closes every loop of open edges with faces
//! between the loop's vertices) and the count Max recorded on Gate.max
//! (docs/unseen-files.md: an Edit Poly above a Cap Holes read each 6-edge
//! hole as one polygon, so no vertex is added and a hole of n edges gives
//! n − 2 triangles).

use std::collections::HashMap;

use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::node_index;
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/babylon/CartoonHouses.max";
const NODE: &str = "Object009";
const CAP_HOLES: ClassId = ClassId(0x470a1d7a, 0x53955c31);
const BOOL: u16 = 4;

/// CartoonHouses with a Cap Holes on top of Object009's stack, its three
/// parameters (smooth new faces, smooth with old faces, all new edges
/// visible) as given.
fn edited(values: [i32; 3]) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    let v: Vec<[u8; 4]> = values.iter().map(|x| x.to_le_bytes()).collect();
    let params: Vec<(u16, u16, &[u8])> = (0..3).map(|i| (i as u16, BOOL, &v[i][..])).collect();
    e.add_pb2_modifier(node, CAP_HOLES, "Cap Holes", "capholes.dlm", &params);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

/// Directed edges used by more than one face, edges of one face, and the
/// number of loops those open edges make.
fn borders(m: &Mesh) -> (usize, usize, usize) {
    let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
    for f in &m.faces {
        for k in 0..3 {
            *directed.entry((f.v[k], f.v[(k + 1) % 3])).or_default() += 1;
        }
    }
    let twice = directed.values().filter(|&&n| n > 1).count();
    let open: Vec<(u32, u32)> = directed
        .keys()
        .filter(|(a, b)| !directed.contains_key(&(*b, *a)))
        .copied()
        .collect();
    let next: HashMap<u32, u32> = open.iter().copied().collect();
    let mut seen = std::collections::HashSet::new();
    let mut loops = 0;
    for &(a, _) in &open {
        if seen.contains(&a) {
            continue;
        }
        loops += 1;
        let mut v = a;
        while seen.insert(v) {
            v = next[&v];
        }
    }
    (twice, open.len(), loops)
}

#[test]
fn cap_holes_closes_every_loop_with_n_minus_2_triangles() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let before = plain
        .mesh(node_index(&plain, NODE), 0)
        .expect("a mesh")
        .expect("evaluates");
    let (twice, open, loops) = borders(&before);
    assert_eq!(
        twice, 0,
        "Object009 is a manifold, consistently facing mesh"
    );
    assert!(open > 0 && loops > 0, "Object009 has holes");
    let eval = edited([1, 0, 0]);
    let after = eval
        .mesh(node_index(&eval, NODE), 0)
        .expect("a mesh")
        .expect("the Cap Holes evaluates");
    assert_eq!(after.vertices, before.vertices, "no vertex added or moved");
    assert_eq!(after.faces[..before.faces.len()], before.faces[..]);
    assert_eq!(after.faces.len(), before.faces.len() + open - 2 * loops);
    // Closed: no open edge is left.
    assert_eq!(borders(&after).1, 0);
    // The caps face outward as their neighbours do: each open edge a → b of
    // an old face is walked b → a by a new one. (Object009's hole is not
    // planar, and one of its corners is a lone triangle: a cap may run
    // along an old edge, so edges walked twice one way are not checked.)
    let new = &after.faces[before.faces.len()..];
    let walked: std::collections::HashSet<(u32, u32)> = new
        .iter()
        .flat_map(|f| (0..3).map(move |k| (f.v[k], f.v[(k + 1) % 3])))
        .collect();
    let mut old: HashMap<(u32, u32), usize> = HashMap::new();
    for f in &before.faces {
        for k in 0..3 {
            *old.entry((f.v[k], f.v[(k + 1) % 3])).or_default() += 1;
        }
    }
    for &(a, b) in old.keys() {
        if !old.contains_key(&(b, a)) {
            assert!(walked.contains(&(b, a)), "open edge {a} → {b} not closed");
        }
    }
    let used = before.faces.iter().fold(0, |g, f| g | f.smoothing);
    for f in new {
        assert_eq!(f.smoothing.count_ones(), 1, "one smoothing group");
        assert_eq!(f.smoothing & used, 0, "a group no old face uses");
    }
    // Diagonals hidden: each cap's visible edges are its hole's edges.
    let visible: u32 = new.iter().map(|f| (f.flags & 7).count_ones()).sum();
    assert_eq!(visible as usize, open);
    for map in &after.maps {
        assert_eq!(map.faces.len(), after.faces.len());
    }
}

#[test]
fn cap_holes_options_all_edges_visible_and_no_smoothing() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let before = plain.mesh(node_index(&plain, NODE), 0).unwrap().unwrap();
    let eval = edited([0, 0, 1]);
    let after = eval.mesh(node_index(&eval, NODE), 0).unwrap().unwrap();
    for f in &after.faces[before.faces.len()..] {
        assert_eq!(f.smoothing, 0);
        assert_eq!(f.flags & 7, 7);
    }
}

#[test]
fn cap_holes_smooth_with_old_faces_is_refused_by_name() {
    let eval = edited([1, 1, 0]);
    let err = match eval.mesh(node_index(&eval, NODE), 0) {
        Some(Err(e)) => e.to_string(),
        Some(Ok(_)) => panic!("evaluated an option whose rule is not measured"),
        None => panic!("no mesh"),
    };
    assert!(err.contains("Smooth With Old Faces"), "{err}");
    assert!(err.contains("Cap Holes"), "{err}");
}
