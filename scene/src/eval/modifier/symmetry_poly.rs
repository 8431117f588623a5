//! Symmetry on a polygon mesh, as it reaches an Edit Poly above it: Max's
//! Symmetry works on the MNMesh of a poly object and passes polygons up, so
//! an Edit Poly (or Smooth) above it sees the mirrored polygons, not their
//! triangles.
//!
//! The same plane, slice and seam weld as on triangles (`symmetry`): faces
//! wholly below the plane go, and so do faces lying in it; vertices no face
//! uses any more are removed (the survivors keep their order); every kept
//! vertex gets a reflected copy, appended in vertex order, and every kept
//! face a turned-over copy, appended in face order. A face turns over as
//! MNFace::Flip does: its first corner stays and the rest run backwards
//! (Table.max's Unwrap UVW cache holds [0, 3, 10, 29] and its mirror
//! [0, 29, 28, 27]); its triangles follow. Map faces turn over the same way,
//! over the same map vertices. The seam then welds as `symmetry::pair_seam`
//! pairs its border vertices (lower index survives); a face left with a
//! repeated corner loses it.
//!
//! Not derived: a polygon that crosses the plane (refused: where Max puts
//! the cut's new vertices and how it splits the polygon is not pinned here),
//! and the order Max numbers the output in — on Table.max, Max keeps the
//! reflected copy of five of the six seam vertices and numbers the copies in
//! the walk of its faces, so the positions and polygons agree with Max's
//! but not their indices. The edge numbering is left unknown.

use std::collections::HashMap;

use super::symmetry::{pair_seam, Plane};
use super::symmetry_slice::ON_PLANE;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// Slices, mirrors and welds `poly` about `pl`.
pub(super) fn apply(poly: &mut PolyMesh, pl: &Plane) -> Result<(), EvalError> {
    poly.validate()?;
    if pl.slice {
        slice(poly, pl)?;
    }
    mirror(poly, pl)?;
    if pl.weld {
        weld(poly, pl);
    }
    poly.edges = None;
    Ok(())
}

/// Which side of the plane a distance is on (0: on it, within MNMesh's
/// tolerance).
fn side(d: f64) -> i32 {
    if d > ON_PLANE {
        1
    } else if d < -ON_PLANE {
        -1
    } else {
        0
    }
}

/// Removes the faces below the plane and those lying in it, then the
/// vertices left unused.
fn slice(poly: &mut PolyMesh, pl: &Plane) -> Result<(), EvalError> {
    let sides: Vec<i32> = poly
        .vertices
        .iter()
        .map(|&p| side(pl.n.dot(p) - pl.offset))
        .collect();
    let mut keep = Vec::with_capacity(poly.faces.len());
    for (i, f) in poly.faces.iter().enumerate() {
        let s: Vec<i32> = f.v.iter().map(|&v| sides[v as usize]).collect();
        let above = s.iter().any(|&x| x > 0);
        if above && s.iter().any(|&x| x < 0) {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "slicing polygon {i} ({} corners) across the plane",
                    f.v.len()
                ),
                "where Max puts the cut's vertices in the polygon mesh is not derived",
            ));
        }
        keep.push(above);
    }
    retain_faces(poly, &keep);
    drop_unused_vertices(poly);
    Ok(())
}

fn retain_faces(poly: &mut PolyMesh, keep: &[bool]) {
    let mut k = keep.iter();
    poly.faces.retain(|_| *k.next().unwrap_or(&false));
    for m in &mut poly.maps {
        let mut k = keep.iter();
        m.faces.retain(|_| *k.next().unwrap_or(&false));
    }
}

/// Removes vertices no face uses, keeping the order of the others.
fn drop_unused_vertices(poly: &mut PolyMesh) {
    let mut used = vec![false; poly.vertices.len()];
    for f in &poly.faces {
        for &v in &f.v {
            used[v as usize] = true;
        }
    }
    let mut index = vec![0u32; used.len()];
    let mut next = 0u32;
    for (i, &u) in used.iter().enumerate() {
        index[i] = next;
        next += u32::from(u);
    }
    let mut u = used.iter();
    poly.vertices.retain(|_| *u.next().unwrap_or(&false));
    for f in &mut poly.faces {
        f.v.iter_mut().for_each(|v| *v = index[*v as usize]);
    }
}

/// A face turned over as MNFace::Flip does: corner 0 stays, corner k moves
/// to n − k; the triangles follow with their winding reversed.
fn flipped(f: &PolyFace, offset: u32) -> PolyFace {
    let n = f.v.len();
    let at = |k: usize| (n - k) % n;
    PolyFace {
        v: (0..n).map(|k| f.v[at(k)] + offset).collect(),
        tris: f
            .tris
            .iter()
            .map(|t| [at(t[0]), at(t[2]), at(t[1])])
            .collect(),
        material: f.material,
        smoothing: f.smoothing,
    }
}

fn flip_corners(c: &[u32]) -> Vec<u32> {
    let n = c.len();
    (0..n).map(|k| c[(n - k) % n]).collect()
}

/// Appends the reflected vertices and turned-over faces.
fn mirror(poly: &mut PolyMesh, pl: &Plane) -> Result<(), EvalError> {
    let nv = u32::try_from(poly.vertices.len())
        .ok()
        .filter(|n| n.checked_mul(2).is_some())
        .ok_or_else(|| EvalError::limit("vertices", u32::MAX / 2))?;
    let copies: Vec<_> = poly
        .vertices
        .iter()
        .map(|&p| pl.reflect.transform_point(p))
        .collect();
    poly.vertices.extend(copies);
    let faces: Vec<PolyFace> = poly.faces.iter().map(|f| flipped(f, nv)).collect();
    poly.faces.extend(faces);
    for m in &mut poly.maps {
        let faces: Vec<Vec<u32>> = m.faces.iter().map(|c| flip_corners(c)).collect();
        m.faces.extend(faces);
    }
    Ok(())
}

/// Welds the seam's border vertex pairs and tidies the faces after it.
fn weld(poly: &mut PolyMesh, pl: &Plane) {
    let mut uses: HashMap<(u32, u32), u32> = HashMap::new();
    for f in &poly.faces {
        let n = f.v.len();
        for j in 0..n {
            let (a, b) = (f.v[j], f.v[(j + 1) % n]);
            *uses.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let mut border = vec![false; poly.vertices.len()];
    for (&(a, b), &count) in &uses {
        if count == 1 {
            border[a as usize] = true;
            border[b as usize] = true;
        }
    }
    let into = pair_seam(&mut poly.vertices, &border, pl.n, pl.offset, pl.threshold);
    let mut keep = Vec::with_capacity(poly.faces.len());
    for (i, f) in poly.faces.iter_mut().enumerate() {
        f.v.iter_mut().for_each(|v| *v = into[*v as usize] as u32);
        let n = f.v.len();
        let repeated: Vec<usize> = (0..n).filter(|&j| f.v[j] == f.v[(j + 1) % n]).collect();
        if repeated.is_empty() {
            keep.push(true);
            continue;
        }
        // A side collapsed: the corner goes (the triangulation is refanned).
        let kept: Vec<usize> = (0..n).filter(|j| !repeated.contains(j)).collect();
        let v: Vec<u32> = kept.iter().map(|&j| f.v[j]).collect();
        keep.push(v.len() >= 3);
        *f = PolyFace::fan(v, f.material, f.smoothing);
        for m in &mut poly.maps {
            if let Some(mf) = m.faces.get_mut(i) {
                *mf = kept.iter().filter_map(|&j| mf.get(j).copied()).collect();
            }
        }
    }
    retain_faces(poly, &keep);
    drop_unused_vertices(poly);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::{Mat43, Vec3};

    #[test]
    fn a_half_box_open_on_the_plane_mirrors_into_a_closed_box() {
        // A unit box's +X half (x from 0 to 1), open on x = 0: four quads.
        let vertices = vec![
            Vec3(0.0, 0.0, 0.0),
            Vec3(1.0, 0.0, 0.0),
            Vec3(1.0, 1.0, 0.0),
            Vec3(0.0, 1.0, 0.0),
            Vec3(0.0, 0.0, 1.0),
            Vec3(1.0, 0.0, 1.0),
            Vec3(1.0, 1.0, 1.0),
            Vec3(0.0, 1.0, 1.0),
            Vec3(-5.0, 0.0, 0.0), // used by nothing: dropped
        ];
        let quads = [
            [0, 3, 2, 1],
            [4, 5, 6, 7],
            [0, 1, 5, 4],
            [1, 2, 6, 5],
            [2, 3, 7, 6],
        ];
        let mut poly = PolyMesh {
            vertices,
            faces: quads
                .iter()
                .map(|q| PolyFace::fan(q.to_vec(), 0, 1))
                .collect(),
            ..PolyMesh::default()
        };
        let pl = Plane {
            n: Vec3(1.0, 0.0, 0.0),
            offset: 0.0,
            reflect: Mat43::scaling(Vec3(-1.0, 1.0, 1.0)),
            slice: true,
            weld: true,
            threshold: 0.1,
        };
        apply(&mut poly, &pl).unwrap();
        // 8 + 8 copies − 4 welded on the seam.
        assert_eq!(poly.vertices.len(), 12);
        assert_eq!(poly.faces.len(), 10);
        // Closed: every side on exactly two faces, run both ways.
        let mut sides: HashMap<(u32, u32), i32> = HashMap::new();
        for f in &poly.faces {
            for j in 0..4 {
                *sides.entry((f.v[j], f.v[(j + 1) % 4])).or_default() += 1;
            }
        }
        assert!(sides.keys().all(|&(a, b)| sides.get(&(b, a)) == Some(&1)));
        // The copy of face 0 keeps its first corner (welded into 0) and runs
        // backwards: [0, 1', 2', 3] with 3 on the seam.
        let f5 = &poly.faces[5].v;
        assert_eq!(f5[0], 0);
        assert_eq!(f5[3], 3);
        assert_eq!(poly.vertices[f5[1] as usize], Vec3(-1.0, 0.0, 0.0));
        // A polygon across the plane is refused by name.
        let mut across = PolyMesh {
            vertices: vec![
                Vec3(-1.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
            ],
            faces: vec![PolyFace::fan(vec![0, 1, 2], 0, 0)],
            ..PolyMesh::default()
        };
        let e = apply(&mut across, &pl).unwrap_err().to_string();
        assert!(e.contains("slicing polygon 0"), "{e}");
    }
}
