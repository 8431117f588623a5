//! Edit Poly's Remove Vertex (49), Remove Edge (50) and Collapse Vertex (16).
//! The corpus holds none (they are only on public files, where no replay
//! reaches one: docs/unseen-files.md), so each is written through the
//! project's writer onto Key.max's Plane001 (a flat Plane under one Edit
//! Poly whose 18 operations replay, MNMesh's edge numbering known), as Max
//! stores them: the operation id, its selection in the basics, Remove Edge's
//! Ctrl byte 0x1601 beside them; and the sizes the modifier saves are set to
//! the counts expected. The expectations are independent of the replay: the
//! counts from the operations' definitions (Max's manual; the counts Max
//! recorded around them on public files), the surface's Euler characteristic
//! (a disc: V − E + F = 1), the joined polygon's sides as the union of the
//! joined faces' outlines, a collapsed group's vertex at its centre.

use std::collections::HashSet;

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::modifier::edit_poly_output;
use maxfs_scene::eval::objects::poly::PolyMesh;
use maxfs_scene::eval::SceneEval;
use maxfs_tests::rewrite::{bit_array, local_data_holding, SceneEdit};
use maxfs_tests::{corpus_eval, node_index as node};

const FILE: &str = "max/misc/Key.max";
const NODE: &str = "Plane001";
const COLLAPSE_VERTEX: u32 = 16;
const REMOVE_VERTEX: u32 = 49;
const REMOVE_EDGE: u32 = 50;

/// Plane001's Edit Poly with the operations `ops` (id, selection size, the
/// selected indices, Ctrl byte) appended, and its saved sizes set to
/// `sizes` (vertices, edges, faces).
fn with_operations(ops: &[(u32, usize, &[usize], Option<u8>)], sizes: [usize; 3]) -> SceneEval {
    let plain = corpus_eval(FILE);
    let o = node(&plain, NODE);
    let mut e = SceneEdit::open(FILE);
    let derived = e.reference(o, 1);
    let mut chunks = e.object_chunks(derived);
    let local = local_data_holding(&mut chunks, 0x0230).expect("the Edit Poly's local data");
    for &(id, n, set, ctrl) in ops {
        local.push(Chunk::leaf(0x0230, id.to_le_bytes().to_vec()));
        let mut op = vec![Chunk::container(
            0x0600,
            vec![Chunk::container(0x0400, vec![bit_array(n, set)])],
        )];
        if let Some(b) = ctrl {
            op.push(Chunk::leaf(0x1601, vec![b]));
        }
        local.push(Chunk::container(0x0234, op));
        local.push(Chunk::container(0x0238, Vec::new()));
    }
    for (id, n) in [0x0200u16, 0x0210, 0x0220].into_iter().zip(sizes) {
        if let Some(c) = local.iter_mut().find(|c| c.id == id) {
            *c = Chunk::container(id, vec![bit_array(n, &[])]);
        }
    }
    e.set_object_chunks(derived, chunks);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

/// Plane001's Edit Poly output (its only modifier).
fn output(eval: &SceneEval) -> Result<PolyMesh, String> {
    edit_poly_output(eval, node(eval, NODE), 0, 0).map_err(|e| e.to_string())
}

fn counts(p: &PolyMesh) -> [usize; 3] {
    [p.vertices.len(), p.walked_edges().len(), p.faces.len()]
}

fn euler(p: &PolyMesh) -> i64 {
    let [v, e, f] = counts(p).map(|x| x as i64);
    v - e + f
}

/// The directed sides of `faces` of `p` whose reverse none of them runs.
fn outline(p: &PolyMesh, faces: &[usize]) -> HashSet<(u32, u32)> {
    let sides: HashSet<(u32, u32)> = faces
        .iter()
        .flat_map(|&f| {
            let v = &p.faces[f].v;
            (0..v.len()).map(move |j| (v[j], v[(j + 1) % v.len()]))
        })
        .collect();
    sides
        .iter()
        .filter(|(a, b)| !sides.contains(&(*b, *a)))
        .copied()
        .collect()
}

fn sides(v: &[u32]) -> HashSet<(u32, u32)> {
    (0..v.len()).map(|j| (v[j], v[(j + 1) % v.len()])).collect()
}

/// The index of the edge a–b in the mesh's numbering.
fn edge(p: &PolyMesh, a: u32, b: u32) -> usize {
    p.edges
        .as_ref()
        .and_then(|e| e.iter().position(|&x| x == [a, b] || x == [b, a]))
        .unwrap_or_else(|| panic!("no edge {a}–{b}"))
}

#[test]
fn removing_a_vertex_joins_its_polygons_on_their_outline() {
    let before = output(&corpus_eval(FILE)).expect("Plane001 replays");
    assert_eq!(counts(&before), [20, 31, 12]);
    assert_eq!(euler(&before), 1);
    // Vertex 5 is inside faces 0, 1, 3, 4 (four edges).
    let around: Vec<usize> = (0..before.faces.len())
        .filter(|&f| before.faces[f].v.contains(&5))
        .collect();
    assert_eq!(around, [0, 1, 3, 4]);
    let expected = [20 - 1, 31 - 4, 12 - 3];
    let after = output(&with_operations(
        &[(REMOVE_VERTEX, 20, &[5], None)],
        expected,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counts(&after), expected);
    assert_eq!(euler(&after), 1);
    // The joined polygon's sides: the four faces' outline, past vertex 5.
    let down = |v: u32| if v > 5 { v - 1 } else { v };
    let want: HashSet<(u32, u32)> = outline(&before, &around)
        .into_iter()
        .map(|(a, b)| (down(a), down(b)))
        .collect();
    let joined = after
        .faces
        .iter()
        .position(|f| sides(&f.v) == want)
        .expect("a polygon on the outline");
    assert_eq!(after.faces[joined].v.len(), want.len());
    // Flat: its triangles cover the four faces' area (the plane is z = 0).
    let area = |p: &PolyMesh, f: usize| -> f64 {
        p.faces[f]
            .tris
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|k| p.vertices[p.faces[f].v[k] as usize]);
                b.minus(a).cross(c.minus(a)).2 / 2.0
            })
            .sum()
    };
    let was: f64 = around.iter().map(|&f| area(&before, f)).sum();
    assert!(
        (area(&after, joined) - was).abs() < 1e-6 * was.abs(),
        "area"
    );
    // The node's mesh evaluates through it.
    let eval = with_operations(&[(REMOVE_VERTEX, 20, &[5], None)], expected);
    let mesh = eval
        .mesh(node(&eval, NODE), 0)
        .expect("a mesh")
        .unwrap_or_else(|e| panic!("{e}"));
    let tris: usize = after.faces.iter().map(|f| f.v.len() - 2).sum();
    assert_eq!(mesh.faces.len(), tris);
}

#[test]
fn removing_edges_joins_the_faces_on_both_sides() {
    let before = output(&corpus_eval(FILE)).expect("Plane001 replays");
    // Edge 9–10 lies between faces 4 and 7, edge 6–10 between 4 and 5.
    let (e1, e2) = (edge(&before, 9, 10), edge(&before, 6, 10));
    let expected = [20, 30, 11];
    let after = output(&with_operations(
        &[(REMOVE_EDGE, 31, &[e1], Some(0))],
        expected,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counts(&after), expected);
    assert_eq!(euler(&after), 1);
    let want = outline(&before, &[4, 7]);
    assert!(after.faces.iter().any(|f| sides(&f.v) == want));
    // Both edges with Ctrl: vertex 10, left on two edges (10–11, 10–14),
    // goes too; its two edges become one.
    let expected = [19, 28, 10];
    let after = output(&with_operations(
        &[(REMOVE_EDGE, 31, &[e1, e2], Some(1))],
        expected,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counts(&after), expected);
    assert_eq!(euler(&after), 1);
    let down = |v: u32| if v > 10 { v - 1 } else { v };
    let want: HashSet<(u32, u32)> = outline(&before, &[4, 5, 7])
        .into_iter()
        .filter_map(|(a, b)| match (a, b) {
            (10, _) | (_, 10) => None,
            _ => Some((down(a), down(b))),
        })
        .chain([(down(11), down(14))])
        .collect();
    assert!(
        after.faces.iter().any(|f| sides(&f.v) == want),
        "{:?}",
        after.faces
    );
    // Without Ctrl vertex 10 stays.
    let after = output(&with_operations(
        &[(REMOVE_EDGE, 31, &[e1, e2], Some(0))],
        [20, 29, 10],
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counts(&after), [20, 29, 10]);
}

#[test]
fn collapsing_vertices_joins_each_connected_group_at_its_centre() {
    let before = output(&corpus_eval(FILE)).expect("Plane001 replays");
    // Vertices 5 and 6 (an edge between faces 1 and 4): one vertex at their
    // midpoint, both quads triangles; 0 alone (not joined to them) stays.
    let expected = [19, 30, 12];
    let after = output(&with_operations(
        &[(COLLAPSE_VERTEX, 20, &[0, 5, 6], None)],
        expected,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counts(&after), expected);
    assert_eq!(euler(&after), 1);
    let mid = before.vertices[5].plus(before.vertices[6]).scale(0.5);
    assert!(after.vertices.iter().any(|v| v.minus(mid).len() < 1e-9));
    assert_eq!(after.faces.iter().filter(|f| f.v.len() == 3).count(), 2 + 2);
    // Face 4's four corners: the face dies, its four edges with it.
    let expected = [17, 27, 11];
    let after = output(&with_operations(
        &[(COLLAPSE_VERTEX, 20, &[5, 6, 9, 10], None)],
        expected,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counts(&after), expected);
    assert_eq!(euler(&after), 1);
    let centre = [5, 6, 9, 10]
        .iter()
        .fold(before.vertices[0].scale(0.0), |s, &v| {
            s.plus(before.vertices[v])
        })
        .scale(0.25);
    assert!(after.vertices.iter().any(|v| v.minus(centre).len() < 1e-9));
}

#[test]
fn what_is_not_derived_is_refused_by_name() {
    // Vertex 0 is on the border.
    let err = output(&with_operations(
        &[(REMOVE_VERTEX, 20, &[0], None)],
        [19, 29, 12],
    ))
    .expect_err("border vertex");
    assert!(err.contains("removing vertex 0 on an open border"), "{err}");
    // A Remove Edge's Ctrl byte other than 0 or 1 is damage.
    let err = output(&with_operations(
        &[(REMOVE_EDGE, 31, &[13], Some(7))],
        [20, 30, 11],
    ))
    .expect_err("bad byte");
    assert!(err.contains("0x1601"), "{err}");
}
