//! Edit Poly's quad chamfer (2 segments, tension 1) of one edge whose ends
//! each meet two more edges and three faces: Table.max's rounded corner.
//! Read off the Edit Poly's output as Max left it: the Transforms recorded
//! after the chamfer (sized 34, moving the two new vertices that sit on
//! moved old ones), the saved sizes (34 vertices, 55 edges, 24 faces) and the
//! Unwrap UVW above, whose cached input keeps the new vertices' order and
//! every polygon of that corner (through Symmetry and Smooth).
//!
//! What Max builds. The edge v1 → v2 has f1 (walking it v1 → v2) and f2. At
//! each end C the two faces slide C along their other side at C (`slide`:
//! `amount` along it, the far end itself when the side is shorter); the two
//! points P, Q and C, as a quadratic Bézier's ends and control point, give
//! the profile at t = 0, ¼, ½, ¾, 1. P is the slide of the face along which
//! the chamfered edge enters C (f2 at v1, f1 at v2). Numbering: v1's then
//! v2's new vertices appended as ½, P, ¼, Q, ¾; C stays, used by no face (the
//! saved vertex count holds it and the Transforms' indices do not move down).
//! f1 and f2 take their slide points; the third face at C takes the whole
//! profile in place of C, starting from the point on its side before C; then
//! per face (f1, f2 in face order) and its chamfered side a → b, the quads
//! [P0(b), P0(a), P1(a), P1(b)] and [P1(b), P1(a), H(a), H(b)] are appended
//! (P0 the face's slide point, P1 the profile point next to it, H = ½) with
//! the face's material and the two faces' smoothing groups (as Mug's loop
//! chamfer; Table's Smooth above replaces them, so they are not seen there).
//! Map channels leave the mesh, as for the loop chamfer.

use super::edit_poly_chamfer::slide;
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// Chamfers the one edge `e` (Max's v1, v2) by `amount`; returns the map
/// channels it removed.
pub(super) fn chamfer_one_edge(
    poly: &mut PolyMesh,
    e: [u32; 2],
    amount: f64,
) -> Result<Vec<i32>, EvalError> {
    let refuse = |why: String| {
        Err(EvalError::not_evaluated(format!(
            "a chamfer of 1 edge {why} (only an edge between two faces whose ends each meet \
             two more edges and one more face is checked against Max)"
        )))
    };
    let [v1, v2] = e;
    let f1s = super::edit_poly_topo::faces_walking(poly, v1, v2);
    let f2s = super::edit_poly_topo::faces_walking(poly, v2, v1);
    let (&[f1], &[f2]) = (f1s.as_slice(), f2s.as_slice()) else {
        return refuse(format!("on {} + {} faces", f1s.len(), f2s.len()));
    };
    let corner = |f: usize, c: u32| {
        let v = &poly.faces[f].v;
        let n = v.len();
        v.iter()
            .position(|&x| x == c)
            .map(|j| (v[(j + n - 1) % n], v[(j + 1) % n]))
    };
    let at = |v: u32| poly.vertices[v as usize];

    /// One end's profile: points at t = 0, ¼, ½, ¾, 1, the slide targets
    /// (far ends) of t = 0 and t = 1, and the face that takes the profile.
    struct End {
        c: u32,
        points: [Vec3; 5],
        far: [u32; 2],
        third: usize,
    }
    let mut ends = Vec::new();
    for (c, first, second) in [(v1, f2, f1), (v2, f1, f2)] {
        // `first` walks the edge into C and slides along its side after C;
        // `second` leaves C along the edge and slides along its side before.
        let (Some((_, far_first)), Some((far_second, _))) = (corner(first, c), corner(second, c))
        else {
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
        let &[third] = others.as_slice() else {
            return refuse(format!("whose end {c} is on {} faces", around.len()));
        };
        let Some((tp, tn)) = corner(third, c) else {
            return Err(EvalError::malformed("", "face lost its corner"));
        };
        let mut sides = [tp, tn];
        sides.sort_unstable();
        let mut want = [far_first, far_second];
        want.sort_unstable();
        if sides != want || far_first == far_second {
            return refuse(format!("whose end {c} has more than two other edges"));
        }
        let other_end = if c == v1 { v2 } else { v1 };
        let across = [at(other_end)];
        let (Some(p), Some(q)) = (
            slide(at(c), at(far_first), &across, amount),
            slide(at(c), at(far_second), &across, amount),
        ) else {
            return refuse(format!(
                "whose end {c} does not meet its other edges at right angles"
            ));
        };
        let bezier = |t: f64| super::edit_poly_chamfer::quadratic_bezier(p, at(c), q, t);
        ends.push(End {
            c,
            points: [0.0, 0.25, 0.5, 0.75, 1.0].map(bezier),
            far: [far_first, far_second],
            third,
        });
    }

    // New vertices: per end ½, P, ¼, Q, ¾ (profile indices 2, 0, 1, 4, 3).
    let base = u32::try_from(poly.vertices.len())
        .ok()
        .filter(|b| b.checked_add(10).is_some())
        .ok_or_else(|| EvalError::limit("vertices", u32::MAX))?;
    let mut index = [[0u32; 5]; 2];
    for (k, end) in ends.iter().enumerate() {
        for (n, t) in [2usize, 0, 1, 4, 3].into_iter().enumerate() {
            index[k][t] = base + (5 * k + n) as u32;
            poly.vertices.push(end.points[t]);
        }
    }
    // Per end, per face: (slide point, its neighbour on the profile).
    let rows = |k: usize, f: usize| -> (u32, u32) {
        // f2 slides to t = 0 at v1, f1 at v2.
        let first = if k == 0 { f2 } else { f1 };
        if f == first {
            (index[k][0], index[k][1])
        } else {
            (index[k][4], index[k][3])
        }
    };
    for (k, end) in ends.iter().enumerate() {
        for f in [f1, f2] {
            let (p0, _) = rows(k, f);
            for v in poly.faces[f].v.iter_mut() {
                if *v == end.c {
                    *v = p0;
                }
            }
        }
        let face = &mut poly.faces[end.third];
        let Some(j) = face.v.iter().position(|&x| x == end.c) else {
            return Err(EvalError::malformed("", "face lost its corner"));
        };
        let n = face.v.len();
        let before = face.v[(j + n - 1) % n];
        let mut profile = index[k].to_vec();
        if before != end.far[0] {
            profile.reverse();
        }
        let mut v = face.v[..j].to_vec();
        v.extend(profile);
        v.extend_from_slice(&face.v[j + 1..]);
        *face = PolyFace::fan(v, face.material, face.smoothing);
    }
    let sg = poly.faces[f1].smoothing | poly.faces[f2].smoothing;
    let mut strips = Vec::new();
    let mut both = [f1, f2];
    both.sort_unstable();
    for f in both {
        // The face's chamfered side a → b (f1 walks v1 → v2).
        let (a, b) = if f == f1 { (0, 1) } else { (1, 0) };
        let (p0a, p1a) = rows(a, f);
        let (p0b, p1b) = rows(b, f);
        let (ha, hb) = (index[a][2], index[b][2]);
        let material = poly.faces[f].material;
        strips.push(PolyFace::fan(vec![p0b, p0a, p1a, p1b], material, sg));
        strips.push(PolyFace::fan(vec![p1b, p1a, ha, hb], material, sg));
    }
    append_strips(poly, strips)
}

/// The chamfer's new faces appended; the map channels, whose corners across
/// the strips are not derived, leave (their numbers returned to be named)
/// and Max's edge numbering is no longer known.
pub(super) fn append_strips(
    poly: &mut PolyMesh,
    strips: Vec<PolyFace>,
) -> Result<Vec<i32>, EvalError> {
    poly.faces.extend(strips);
    let removed: Vec<i32> = poly.maps.iter().map(|m| m.channel).collect();
    poly.maps.clear();
    poly.edges = None;
    poly.validate()?;
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::unit_cube;

    #[test]
    fn one_vertical_edge_becomes_a_rounded_corner() {
        let mut m = unit_cube();
        // Face 1 walks 1 → 5: that is v1 → v2.
        chamfer_one_edge(&mut m, [1, 5], 0.25).expect("chamfer");
        assert_eq!(m.vertices.len(), 8 + 10);
        assert_eq!(m.faces.len(), 6 + 4);
        // The ends stay, on no face.
        assert!(m
            .faces
            .iter()
            .all(|f| !f.v.contains(&1) && !f.v.contains(&5)));
        // Vertex 1's profile: ½, P (face 2's slide towards 2), ¼, Q (face
        // 1's towards 0), ¾.
        assert_eq!(m.vertices[9], Vec3(1.0, 0.25, 0.0));
        assert_eq!(m.vertices[11], Vec3(0.75, 0.0, 0.0));
        assert!(m.vertices[8].minus(Vec3(0.9375, 0.0625, 0.0)).len() < 1e-12);
        // The bottom takes the whole profile from the side of its corner
        // before vertex 1.
        assert_eq!(m.faces[0].v, [3, 2, 9, 10, 8, 12, 11, 0]);
        // Vertex 5's: ½ 13, P 14 (face 1's, towards 4), ¼ 15, Q 16, ¾ 17.
        assert_eq!(m.faces[1].v, [0, 11, 14, 4]);
        assert_eq!(m.faces[2].v, [9, 2, 6, 16]);
        assert_eq!(m.faces[5].v, [4, 14, 15, 13, 17, 16, 6, 7]);
        // Strips: face 1's side (1 → 5) then face 2's (5 → 1), two quads each.
        assert_eq!(m.faces[6].v, [14, 11, 12, 15]);
        assert_eq!(m.faces[7].v, [15, 12, 8, 13]);
        assert_eq!(m.faces[8].v, [9, 16, 17, 10]);
        assert_eq!(m.faces[9].v, [10, 17, 13, 8]);
        assert_eq!((m.faces[6].material, m.faces[8].material), (1, 2));
        assert_eq!(m.faces[9].smoothing, 2 | 4);
        m.validate().expect("valid");
    }

    #[test]
    fn a_side_shorter_than_the_amount_is_slid_to_its_end() {
        let mut m = unit_cube();
        chamfer_one_edge(&mut m, [1, 5], 2.0).expect("chamfer");
        assert_eq!(m.vertices[9], m.vertices[2]);
        assert_eq!(m.vertices[11], m.vertices[0]);
    }

    #[test]
    fn other_configurations_are_refused() {
        // A side at another angle, longer than the amount.
        let mut m = unit_cube();
        m.vertices[2] = Vec3(1.0, 1.0, 0.3);
        let err = chamfer_one_edge(&mut m, [1, 5], 0.25).unwrap_err();
        assert!(err.to_string().contains("right angles"), "{err}");
        // An edge on the border.
        let mut m = unit_cube();
        m.faces.remove(2);
        let err = chamfer_one_edge(&mut m, [1, 5], 0.25).unwrap_err();
        assert!(err.to_string().contains("on 1 + 0 faces"), "{err}");
    }
}
