use super::*;
use crate::eval::objects::poly::{PolyFace, PolyMap};

/// A flat 2 × 2 grid of unit quads: vertices 0–2 along y = 0, 3–5 along
/// y = 1, 6–8 along y = 2; faces f0 [0,1,4,3], f1 [1,2,5,4], f2 [3,4,7,6],
/// f3 [4,5,8,7], each with material = its index; edges numbered as
/// `FillInMesh` walks them; map channel 1 on the vertices' own places.
fn grid() -> PolyMesh {
    let faces = [[0, 1, 4, 3], [1, 2, 5, 4], [3, 4, 7, 6], [4, 5, 8, 7]];
    let mut m = PolyMesh {
        vertices: (0..9)
            .map(|i| Vec3((i % 3) as f64, (i / 3) as f64, 0.0))
            .collect(),
        faces: faces
            .iter()
            .enumerate()
            .map(|(i, f)| PolyFace::fan(f.to_vec(), i as u16, 0))
            .collect(),
        maps: vec![PolyMap {
            channel: 1,
            vertices: (0..9)
                .map(|i| [(i % 3) as f32, (i / 3) as f32, 0.0])
                .collect(),
            faces: faces.iter().map(|f| f.to_vec()).collect(),
        }],
        ..PolyMesh::default()
    };
    let e = m.walked_edges();
    m.set_edges(e).expect("edges");
    m
}

fn euler(m: &PolyMesh) -> i64 {
    m.vertices.len() as i64 - m.walked_edges().len() as i64 + m.faces.len() as i64
}

/// The directed outline sides of faces `fs` of `m`: those whose reverse no
/// other of them runs (the independent expectation of a joined polygon).
fn outline(m: &PolyMesh, fs: &[usize]) -> HashSet<(u32, u32)> {
    let sides: HashSet<(u32, u32)> = fs
        .iter()
        .flat_map(|&f| {
            let v = &m.faces[f].v;
            (0..v.len()).map(move |j| (v[j], v[(j + 1) % v.len()]))
        })
        .collect();
    sides
        .iter()
        .filter(|(a, b)| !sides.contains(&(*b, *a)))
        .copied()
        .collect()
}

fn sides_of(v: &[u32]) -> HashSet<(u32, u32)> {
    (0..v.len()).map(|j| (v[j], v[(j + 1) % v.len()])).collect()
}

#[test]
fn removing_the_middle_vertex_joins_its_four_quads() {
    let mut m = grid();
    let expect = outline(&m, &[0, 1, 2, 3]);
    let mut sel = [false; 9];
    sel[4] = true;
    let left = remove_vertices(&mut m, &sel).expect("remove");
    assert!(left.is_empty());
    assert_eq!((m.vertices.len(), m.faces.len()), (8, 1));
    // The outline less the removed vertex, renumbered past it.
    let renumber = |v: u32| if v > 4 { v - 1 } else { v };
    let expect: HashSet<(u32, u32)> = expect
        .iter()
        .map(|&(a, b)| (renumber(a), renumber(b)))
        .collect();
    assert_eq!(sides_of(&m.faces[0].v), expect);
    // The lowest face's index and first corner, its material.
    assert_eq!(m.faces[0].v, vec![0, 1, 2, 4, 7, 6, 5, 3]);
    assert_eq!(m.faces[0].material, 0);
    assert_eq!(m.faces[0].tris.len(), 6);
    assert_eq!(euler(&m), 1);
    // Map corners follow their vertices.
    assert_eq!(m.maps[0].faces[0], vec![0, 1, 2, 5, 8, 7, 6, 3]);
    // The four edges on the vertex died, the eight others kept their order.
    let edges = m.edges.clone().expect("numbering");
    assert_eq!(edges.len(), 8);
    assert_eq!(edges[..2], [[0, 1], [3, 0]]);
}

#[test]
fn a_vertex_on_two_edges_is_dropped_from_its_polygons() {
    // Two quads of the grid's bottom row joined across 1–4 first.
    let mut m = grid();
    let mut sel = vec![false; m.walked_edges().len()];
    let e14 = m
        .edges
        .as_ref()
        .and_then(|e| e.iter().position(|e| *e == [1, 4] || *e == [4, 1]))
        .expect("edge 1–4");
    let e47 = m
        .edges
        .as_ref()
        .and_then(|e| e.iter().position(|e| *e == [4, 7] || *e == [7, 4]))
        .expect("edge 4–7");
    sel[e14] = true;
    sel[e47] = true;
    let mut plain = m.clone();
    remove_edges(&mut plain, &sel, false).expect("remove");
    // Two hexagons, each the union of its two quads' outlines.
    assert_eq!(plain.faces.len(), 2);
    assert_eq!(sides_of(&plain.faces[0].v), outline(&grid(), &[0, 1]));
    assert_eq!(sides_of(&plain.faces[1].v), outline(&grid(), &[2, 3]));
    assert_eq!(plain.vertices.len(), 9);
    assert_eq!(euler(&plain), 1);
    // Edges 1–4 and 4–7 died, the rest kept their order.
    assert_eq!(plain.edges.as_ref().map(Vec::len), Some(10));
    // With Ctrl the middle vertex, left on two edges (3–4, 4–5), goes too.
    remove_edges(&mut m, &sel, true).expect("remove with ctrl");
    assert_eq!((m.vertices.len(), m.faces.len()), (8, 2));
    assert_eq!(m.faces[0].v, vec![0, 1, 2, 4, 3]);
    assert_eq!(m.faces[1].v, vec![3, 4, 7, 6, 5]);
    assert_eq!(euler(&m), 1);
    assert_eq!(m.edges, None);
    // Removing a vertex on two edges directly does the same.
    let mut v = plain.clone();
    let mut sel = [false; 9];
    sel[4] = true;
    remove_vertices(&mut v, &sel).expect("remove vertex");
    assert_eq!(v.faces, m.faces);
}

#[test]
fn border_vertices_and_edges_and_bent_joins_are_refused_by_name() {
    let mut sel = [false; 9];
    sel[1] = true;
    let e = remove_vertices(&mut grid(), &sel).expect_err("border");
    assert!(
        e.to_string()
            .contains("removing vertex 1 on an open border"),
        "{e}"
    );
    let mut sel = vec![false; 12];
    sel[0] = true;
    let e = remove_edges(&mut grid(), &sel, false).expect_err("border edge");
    assert!(e.to_string().contains("removing border edge 0"), "{e}");
    // Bent along x = 1: the joined polygon is not flat.
    let mut m = grid();
    for v in [2, 5, 8] {
        m.vertices[v].2 = 1.0;
    }
    let mut sel = [false; 9];
    sel[4] = true;
    let e = remove_vertices(&mut m, &sel).expect_err("bent");
    assert!(e.to_string().contains("not flat"), "{e}");
    // A selection not sized to the mesh.
    assert!(remove_vertices(&mut grid(), &[true; 3]).is_err());
}

#[test]
fn a_map_seam_inside_the_join_leaves_the_channel_out() {
    let mut m = grid();
    // Face 1 gets its own map vertex at vertex 1: a seam along 1–4.
    m.maps[0].vertices.push([1.0, 0.0, 0.0]);
    m.maps[0].faces[1][0] = 9;
    let mut sel = vec![false; 12];
    let e14 = m
        .edges
        .as_ref()
        .and_then(|e| e.iter().position(|e| *e == [1, 4] || *e == [4, 1]))
        .expect("edge 1–4");
    sel[e14] = true;
    let left = remove_edges(&mut m, &sel, false).expect("remove");
    assert_eq!(left, vec![1]);
    assert!(m.maps.is_empty());
}

#[test]
fn concave_joins_are_triangulated_in_their_plane() {
    // An L-shaped outline of three unit squares (concave at corner 3).
    let p = |x: f64, y: f64| Vec3(x, y, 0.0);
    let ring = [
        p(0.0, 0.0),
        p(2.0, 0.0),
        p(2.0, 1.0),
        p(1.0, 1.0),
        p(1.0, 2.0),
        p(0.0, 2.0),
    ];
    let t = crate::eval::modifier::unwrap_cache::triangulate(&ring).expect("ears");
    assert_eq!(t.len(), 4);
    let area: f64 = t
        .iter()
        .map(|&[a, b, c]| {
            let (a, b, c) = (ring[a], ring[b], ring[c]);
            b.minus(a).cross(c.minus(a)).2 / 2.0
        })
        .sum();
    assert!((area - 3.0).abs() < 1e-12, "{area}");
}
