//! Edit Poly's standard Chamfer Edge (type 0) of one edge whose ends each
//! meet two more edges and one more face: the Buwaka doors' Box003 (a
//! Box whose four edges across its trapezoid profile are rounded with 10
//! segments; four edges sharing no vertex are chamfered one by one).
//!
//! What Max builds, read off the ProBoolean that subtracts Box003 from the
//! door (its saved mesh keeps Box003's end caps, 90 vertices each, among
//! them the 44 profile points) and the sizes the Edit Poly saved. At each
//! end C of the edge v1 → v2 (f1 walking it v1 → v2, f2 the other face) the
//! two faces slide C along their other side at C (`slide`: `amount` along
//! it, the far end itself when the side is shorter): A on f2's side, B on
//! f1's. The profile is the quadratic Bézier A → (control C) → B at t =
//! k / segments, k = 0 … segments — whatever the recorded tension (Max's
//! help: tension is the quad chamfer's; Box003 records 0.5 and its profile
//! is this one). f2 takes A in place of C, f1 B; the third face at C takes
//! the whole profile in place of C, starting from the point on the side of
//! its corner before C; per edge the strip of quads [R_k(v2), R_k(v1),
//! R_k−1(v1), R_k−1(v2)], k = segments … 1 (R_k the profile points), is
//! appended, the half next to each face with its material and all with the
//! two faces' smoothing groups, as the ring chamfer (`edit_poly_chamfer_ring`).
//!
//! Numbering, as the ring chamfer's (not pinned here: nothing after the
//! chamfer addresses Box003's vertices or faces): C keeps its index and
//! becomes B; v1's then v2's A are appended, then per end the inner points
//! from t = (segments − 1) / segments down to 1 / segments. The saved sizes
//! (88 vertices, 132 edges, 46 faces) hold C reused: no vertex is left over.
//! Map channels leave the mesh, named by the caller, as for every chamfer.

use super::edit_poly_chamfer::slide;
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// Chamfers the one edge `e` (Max's v1, v2) by `amount` with `segments`
/// rows of quads; returns the map channels it removed.
pub(super) fn chamfer_one_edge_standard(
    poly: &mut PolyMesh,
    e: [u32; 2],
    amount: f64,
    segments: i32,
) -> Result<Vec<i32>, EvalError> {
    let refuse = |why: String| {
        Err(EvalError::not_evaluated(format!(
            "a standard chamfer of 1 edge {why} (only an edge between two faces whose ends \
             each meet two more edges and one more face is checked against Max)"
        )))
    };
    let s = usize::try_from(segments)
        .ok()
        .filter(|&s| (1..=1000).contains(&s))
        .ok_or_else(|| EvalError::malformed("", format!("chamfer segments {segments}")))?;
    let [v1, v2] = e;
    let f1s = super::edit_poly_topo::faces_walking(poly, v1, v2);
    let f2s = super::edit_poly_topo::faces_walking(poly, v2, v1);
    let (&[f1], &[f2]) = (f1s.as_slice(), f2s.as_slice()) else {
        return refuse(format!("on {} + {} faces", f1s.len(), f2s.len()));
    };
    if s % 2 == 1 && poly.faces[f1].material != poly.faces[f2].material {
        return refuse(format!(
            "of {s} segment{} between faces of two materials",
            if s == 1 { "" } else { "s" }
        ));
    }
    let at = |v: u32| poly.vertices[v as usize];
    // The far end of face `f`'s side at `c` that is not the chamfered edge.
    let far = |f: usize, c: u32, other: u32| -> Option<u32> {
        let v = &poly.faces[f].v;
        let n = v.len();
        let j = v.iter().position(|&x| x == c)?;
        let (prev, next) = (v[(j + n - 1) % n], v[(j + 1) % n]);
        Some(if next == other { prev } else { next })
    };

    /// One end: its profile R_0 = A … R_s = B, the far end of A's side, and
    /// the face that takes the profile (none on the border).
    struct End {
        c: u32,
        points: Vec<Vec3>,
        far_a: u32,
        third: Option<usize>,
    }
    let mut ends = Vec::new();
    for (c, other) in [(v1, v2), (v2, v1)] {
        let (Some(far_a), Some(far_b)) = (far(f2, c, other), far(f1, c, other)) else {
            return Err(EvalError::malformed(
                "",
                "chamfered edge's face lost its corner",
            ));
        };
        let around = super::edit_poly_chamfer::faces_at(poly, c);
        let others: Vec<usize> = around
            .iter()
            .copied()
            .filter(|&f| f != f1 && f != f2)
            .collect();
        let third = match others.as_slice() {
            &[third] => {
                let Some(j) = poly.faces[third].v.iter().position(|&x| x == c) else {
                    return Err(EvalError::malformed("", "face lost its corner"));
                };
                let tv = &poly.faces[third].v;
                let n = tv.len();
                let mut sides = [tv[(j + n - 1) % n], tv[(j + 1) % n]];
                sides.sort_unstable();
                let mut want = [far_a, far_b];
                want.sort_unstable();
                if sides != want || far_a == far_b {
                    return refuse(format!("whose end {c} has more than two other edges"));
                }
                Some(third)
            }
            // An end on the border (blockout 3–5's Box024, a Box without
            // its end faces): both other sides border nothing else, and no
            // face takes the profile, which becomes border.
            [] if far_a != far_b
                && [(c, far_a), (c, far_b)].iter().all(|&(x, y)| {
                    super::edit_poly_topo::faces_walking(poly, x, y).len()
                        + super::edit_poly_topo::faces_walking(poly, y, x).len()
                        == 1
                }) =>
            {
                None
            }
            _ => return refuse(format!("whose end {c} is on {} faces", around.len())),
        };
        let across = [at(other)];
        let (Some(a), Some(b)) = (
            slide(at(c), at(far_a), &across, amount),
            slide(at(c), at(far_b), &across, amount),
        ) else {
            return refuse(format!(
                "whose end {c} does not meet its other edges at right angles"
            ));
        };
        let points = (0..=s)
            .map(|k| super::edit_poly_chamfer::quadratic_bezier(a, at(c), b, k as f64 / s as f64))
            .collect();
        ends.push(End {
            c,
            points,
            far_a,
            third,
        });
    }

    // Indices: R_s = C, the A points appended, then the inner points.
    let base = u32::try_from(poly.vertices.len())
        .ok()
        .filter(|b| u64::from(*b) + 2 * s as u64 <= u64::from(u32::MAX))
        .ok_or_else(|| EvalError::limit("vertices", u32::MAX))?;
    let mut index = vec![vec![0u32; s + 1]; 2];
    for (k, end) in ends.iter().enumerate() {
        index[k][s] = end.c;
        index[k][0] = base + k as u32;
        poly.vertices.push(end.points[0]);
    }
    for (k, end) in ends.iter().enumerate() {
        for i in (1..s).rev() {
            index[k][i] = u32::try_from(poly.vertices.len())
                .map_err(|_| EvalError::limit("vertices", u32::MAX))?;
            poly.vertices.push(end.points[i]);
        }
    }
    for (k, end) in ends.iter().enumerate() {
        poly.vertices[end.c as usize] = end.points[s];
        for v in poly.faces[f2].v.iter_mut() {
            if *v == end.c {
                *v = index[k][0];
            }
        }
        let Some(third) = end.third else {
            continue;
        };
        let face = &mut poly.faces[third];
        let Some(j) = face.v.iter().position(|&x| x == end.c) else {
            return Err(EvalError::malformed("", "face lost its corner"));
        };
        let n = face.v.len();
        let before = face.v[(j + n - 1) % n];
        let mut profile = index[k].clone();
        if before != end.far_a {
            profile.reverse();
        }
        let mut v = face.v[..j].to_vec();
        v.extend(profile);
        v.extend_from_slice(&face.v[j + 1..]);
        *face = PolyFace::fan(v, face.material, face.smoothing);
    }
    let (x, y) = (&poly.faces[f1], &poly.faces[f2]);
    let sg = x.smoothing | y.smoothing;
    let strips = (1..=s)
        .rev()
        .map(|k| {
            let material = if 2 * k > s { x.material } else { y.material };
            PolyFace::fan(
                vec![index[1][k], index[0][k], index[0][k - 1], index[1][k - 1]],
                material,
                sg,
            )
        })
        .collect();
    super::edit_poly_chamfer_edge::append_strips(poly, strips)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::unit_cube;

    #[test]
    fn one_edge_becomes_a_profile_of_segments_plus_one_points_per_end() {
        let mut m = unit_cube();
        // Face 1 walks 1 → 5 (f1), face 2 walks 5 → 1 (f2).
        chamfer_one_edge_standard(&mut m, [1, 5], 0.25, 4).expect("chamfer");
        // Each end: C reused at B, A and three inner points appended.
        assert_eq!(m.vertices.len(), 8 + 2 * 4);
        assert_eq!(m.faces.len(), 6 + 4);
        let euler = m.vertices.len() as i64 - m.walked_edges().len() as i64 + m.faces.len() as i64;
        assert_eq!(euler, 2, "still one closed surface");
        // Vertex 1 (1, 0, 0): B slides along face 1's side towards 0, A along
        // face 2's towards 2.
        assert_eq!(m.vertices[1], Vec3(0.75, 0.0, 0.0));
        assert_eq!(m.vertices[8], Vec3(1.0, 0.25, 0.0));
        assert_eq!(m.vertices[9], Vec3(1.0, 0.25, 1.0));
        // Inner points of vertex 1, t = ¾, ½, ¼.
        let bezier = |t: f64| {
            Vec3(1.0, 0.25, 0.0)
                .scale((1.0 - t) * (1.0 - t))
                .plus(Vec3(1.0, 0.0, 0.0).scale(2.0 * t * (1.0 - t)))
                .plus(Vec3(0.75, 0.0, 0.0).scale(t * t))
        };
        for (i, t) in [0.75, 0.5, 0.25].into_iter().enumerate() {
            assert!(m.vertices[10 + i].minus(bezier(t)).len() < 1e-12, "{t}");
        }
        // f2 takes A; the bottom takes the profile from the side before C.
        assert_eq!(m.faces[2].v, [8, 2, 6, 9]);
        assert_eq!(m.faces[0].v, [3, 2, 8, 12, 11, 10, 1, 0]);
        // The strip, from f1's row to f2's.
        assert_eq!(m.faces[6].v, [5, 1, 10, 13]);
        assert_eq!(m.faces[9].v, [15, 12, 8, 9]);
        let mats: Vec<u16> = m.faces[6..].iter().map(|f| f.material).collect();
        assert_eq!(mats, [1, 1, 2, 2]);
        assert!(m.faces[6..].iter().all(|f| f.smoothing == 2 | 4));
        // Every side is run once each way.
        let mut runs = std::collections::HashSet::new();
        for f in &m.faces {
            for j in 0..f.v.len() {
                assert!(runs.insert((f.v[j], f.v[(j + 1) % f.v.len()])), "{f:?}");
            }
        }
        assert!(runs.iter().all(|&(a, b)| runs.contains(&(b, a))));
        m.validate().expect("valid");
    }

    #[test]
    fn an_end_on_the_border_leaves_its_profile_as_border() {
        // The cube without its bottom and top: the edge 1 → 5 has both
        // ends on the border.
        let mut m = unit_cube();
        m.faces.remove(5);
        m.faces.remove(0);
        chamfer_one_edge_standard(&mut m, [1, 5], 0.25, 2).expect("chamfer");
        assert_eq!(m.vertices.len(), 8 + 2 * 2);
        assert_eq!(m.faces.len(), 4 + 2);
        // f2 (now face 1) takes the A points, 8 and 9.
        assert_eq!(m.faces[1].v, [8, 2, 6, 9]);
        assert_eq!(m.vertices[5], Vec3(0.75, 0.0, 1.0));
        assert_eq!(m.faces[4].v, [5, 1, 10, 11]);
        assert_eq!(m.faces[5].v, [11, 10, 8, 9]);
        m.validate().expect("valid");
    }

    #[test]
    fn other_configurations_are_refused() {
        let mut m = unit_cube();
        m.vertices[2] = Vec3(1.0, 1.0, 0.3);
        let err = chamfer_one_edge_standard(&mut m, [1, 5], 0.25, 4).unwrap_err();
        assert!(err.to_string().contains("right angles"), "{err}");
        let mut m = unit_cube();
        m.faces.remove(2);
        let err = chamfer_one_edge_standard(&mut m, [1, 5], 0.25, 4).unwrap_err();
        assert!(err.to_string().contains("on 1 + 0 faces"), "{err}");
        let mut m = unit_cube();
        let err = chamfer_one_edge_standard(&mut m, [1, 5], 0.25, 3).unwrap_err();
        assert!(err.to_string().contains("two materials"), "{err}");
        // sofa.max's case (one segment: which face's material the one quad
        // takes is not pinned), named in the singular.
        let mut m = unit_cube();
        let err = chamfer_one_edge_standard(&mut m, [1, 5], 0.25, 1).unwrap_err();
        assert!(
            err.to_string()
                .contains("of 1 segment between faces of two materials"),
            "{err}"
        );
    }
}
