//! Edit Poly's standard Chamfer Edge (type 0, closed) of one segment whose
//! edges are the whole border of one face (the cap), each loop vertex on
//! exactly one more edge: a box's top face rounded off into a bevelled panel
//! (KyleCRat/DestinyWall-ModularModeling's Wall_Greeble_Panel_A, 46 nodes of
//! Wall_Constructed_WithUV.max).
//!
//! What Max builds, read off the Unwrap UVW cache above those Edit Polys
//! (Max's positions and polygons, in its order, of the chamfer followed by a
//! Transform that moves the whole top rigidly). Each loop vertex C gives A,
//! moved into the cap so that it lies `amount` from both of the cap's sides
//! there, and B, moved `amount` along its other edge (the quad chamfer's
//! points, `edit_poly_chamfer::Loop::points`). Numbering: C keeps its index
//! and becomes B; the A points are appended in increasing index of their C
//! (the cache's 8 … 11 for loop 4, 5, 7, 6). The cap takes the A points,
//! every other face keeps C (now B). Per chamfered edge, in edge order, the
//! quad [A(a), B(a), B(b), A(b)] is appended, a → b as the cap runs the edge,
//! with the cap's material (the cache's four strips take the cap's 0, the
//! sides have 2 … 5). Smoothing: the union of the cap's and the side's
//! groups, as every chamfer replay here (the cache holds none, so this is
//! not pinned).
//! Map channels leave the mesh, named by the caller, as for every chamfer.

use super::edit_poly_chamfer::Loop;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// Chamfers the cap loop `shape` (of the selected edges `picked`, Max's v1,
/// v2 in edge index order) by `amount` with one segment; returns the map
/// channels removed.
pub(super) fn chamfer_cap_standard(
    poly: &mut PolyMesh,
    shape: &Loop,
    picked: &[[u32; 2]],
    amount: f64,
) -> Result<Vec<i32>, EvalError> {
    let (a_of, b_of) = shape.points(poly, amount)?;
    let cap = poly
        .faces
        .get(shape.cap)
        .ok_or_else(|| EvalError::malformed("", "the cap is not a face"))?
        .clone();
    let mut loop_vertices: Vec<u32> = cap.v.clone();
    loop_vertices.sort_unstable();
    let mut a_index = std::collections::HashMap::new();
    let first =
        u32::try_from(poly.vertices.len()).map_err(|_| EvalError::limit("vertices", u32::MAX))?;
    for (k, &c) in loop_vertices.iter().enumerate() {
        a_index.insert(c, first + k as u32);
        poly.vertices.push(a_of[&c]);
    }
    for &c in &loop_vertices {
        poly.vertices[c as usize] = b_of[&c];
    }
    let a = |c: u32| a_index[&c];
    if let Some(f) = poly.faces.get_mut(shape.cap) {
        for v in f.v.iter_mut() {
            *v = a(*v);
        }
    }
    // Each chamfered edge as the cap runs it.
    let n = cap.v.len();
    let runs: std::collections::HashMap<(u32, u32), (u32, u32)> = (0..n)
        .map(|j| {
            let (x, y) = (cap.v[j], cap.v[(j + 1) % n]);
            ((x.min(y), x.max(y)), (x, y))
        })
        .collect();
    let mut strips = Vec::with_capacity(picked.len());
    for e in picked {
        let key = (e[0].min(e[1]), e[0].max(e[1]));
        let (from, to) = *runs.get(&key).ok_or_else(|| {
            EvalError::malformed("", format!("edge {e:?} is not a side of the cap"))
        })?;
        let sg = cap.smoothing | shape.side_sg.get(&key).copied().unwrap_or(0);
        strips.push(PolyFace::fan(
            vec![a(from), from, to, a(to)],
            cap.material,
            sg,
        ));
    }
    super::edit_poly_chamfer_edge::append_strips(poly, strips)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::objects::poly::unit_cube;

    #[test]
    fn a_face_border_becomes_a_bevel_of_one_quad_per_side() {
        // The unit cube's bottom face [3, 2, 1, 0] (material 0) and its four
        // edges, chamfered by a quarter: worked by hand from the rule.
        let mut m = unit_cube();
        let edges = m.edges.clone().expect("edges");
        let picked: Vec<[u32; 2]> = edges[..4].to_vec();
        let shape = Loop::find(&m, &picked).expect("the bottom face's border");
        assert_eq!(shape.cap, 0);
        chamfer_cap_standard(&mut m, &shape, &picked, 0.25).expect("chamfer");
        let q = 0.25;
        let want = [
            // C kept as B, a quarter up its vertical edge.
            Vec3(0.0, 0.0, q),
            Vec3(1.0, 0.0, q),
            Vec3(1.0, 1.0, q),
            Vec3(0.0, 1.0, q),
            Vec3(0.0, 0.0, 1.0),
            Vec3(1.0, 0.0, 1.0),
            Vec3(1.0, 1.0, 1.0),
            Vec3(0.0, 1.0, 1.0),
            // A of 0, 1, 2, 3: a quarter inside both sides of the bottom.
            Vec3(q, q, 0.0),
            Vec3(1.0 - q, q, 0.0),
            Vec3(1.0 - q, 1.0 - q, 0.0),
            Vec3(q, 1.0 - q, 0.0),
        ];
        assert_eq!(m.vertices.len(), want.len());
        for (got, w) in m.vertices.iter().zip(&want) {
            assert!(got.minus(*w).len() < 1e-12, "{got:?} vs {w:?}");
        }
        assert_eq!(m.faces[0].v, vec![11, 10, 9, 8]);
        // One strip per edge, in edge order, from A of the edge's start as
        // the cap runs it; the cap's material, both faces' groups.
        let strips: Vec<Vec<u32>> = m.faces[6..].iter().map(|f| f.v.clone()).collect();
        let mut expected = Vec::new();
        for e in &picked {
            let (a, b) = [(3u32, 2u32), (2, 1), (1, 0), (0, 3)]
                .into_iter()
                .find(|&(x, y)| (x.min(y), x.max(y)) == (e[0].min(e[1]), e[0].max(e[1])))
                .expect("a cap side");
            expected.push(vec![a + 8, a, b, b + 8]);
        }
        assert_eq!(strips, expected);
        assert!(m.faces[6..].iter().all(|f| f.material == 0));
        assert!(m.faces[6..]
            .iter()
            .all(|f| f.smoothing & 1 == 1 && f.smoothing.count_ones() == 2));
    }
}
