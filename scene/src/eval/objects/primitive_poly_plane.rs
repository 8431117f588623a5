//! The polygon form of a Plane. The Plane (SDK sample gridobj.cpp) has no
//! polygon builder: a poly modifier receives its triangle mesh converted
//! (`poly_join`). The builder makes each grid cell two triangles sharing the
//! hidden diagonal, so the polygons are the cells, one quad per cell in cell
//! order, counter-clockwise from the start of the hidden diagonal in the
//! cell's first triangle — its (x0, y0) corner, so the diagonal runs from
//! corner 0 to 2, as `MNMesh` triangulates a quad. That corner is Max's:
//! Shotgun's RubberGrips (Plane → Edit Poly → … → Unwrap UVW) cache their
//! cells as [0, 1, 6, 5] …, and the Shell's offset directions there fit
//! only this diagonal (docs/evaluation.md, "Shell"). Edges are numbered as
//! the triangle mesh walks them without the hidden ones
//! (`poly::triangle_walk_edges`), which the corner order does not change.

use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;
use crate::eval::objects::primitive::{plane_mesh, Params};

/// The Plane's polygon form (parameters as [`plane_mesh`]).
pub(crate) fn poly_plane(p: &Params) -> Result<PolyMesh, EvalError> {
    let tri = plane_mesh(p)?;
    let mut poly = super::poly_join::join_hidden_pairs(&tri)?;
    start_at_hidden_edges(&tri, &mut poly)?;
    let identity: Vec<Option<u32>> = (0..tri.vertices.len() as u32).map(Some).collect();
    let edges = super::poly::triangle_walk_edges(&tri.faces, &identity)?;
    poly.set_edges(edges)?;
    Ok(poly)
}

/// Turns each quad (two triangles of `tri`, in face order) to start at the
/// first triangle's hidden edge, keeping its triangles and map corners.
fn start_at_hidden_edges(
    tri: &crate::eval::objects::mesh::Mesh,
    poly: &mut PolyMesh,
) -> Result<(), EvalError> {
    for (i, f) in poly.faces.iter_mut().enumerate() {
        let first = tri
            .faces
            .get(2 * i)
            .filter(|_| f.v.len() == 4)
            .ok_or_else(|| {
                EvalError::malformed("", format!("Plane cell {i} is not two triangles"))
            })?;
        let start = (0..3)
            .find(|&e| first.flags & (1 << e) == 0)
            .map(|e| first.v[e])
            .ok_or_else(|| {
                EvalError::malformed("", format!("Plane cell {i} has no hidden edge"))
            })?;
        let r = f.v.iter().position(|&v| v == start).ok_or_else(|| {
            EvalError::malformed("", format!("Plane cell {i}'s diagonal is not its corner"))
        })?;
        f.v.rotate_left(r);
        for t in &mut f.tris {
            *t = t.map(|c| (c + 4 - r) % 4);
        }
        for m in &mut poly.maps {
            if let Some(mf) = m.faces.get_mut(i) {
                mf.rotate_left(r);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Value;

    fn plane(l: f32, w: f32, ls: i32, ws: i32) -> Params {
        Params::from_values(vec![
            Value::Float(l),
            Value::Float(w),
            Value::Int(ls),
            Value::Int(ws),
            Value::Float(1.0),
            Value::Float(1.0),
            Value::Bool(true),
        ])
    }

    /// One quad per cell, counter-clockwise from above, keeping the
    /// triangle mesh's vertices, its diagonal and its map corners.
    #[test]
    fn plane_cells_become_quads() {
        let tri = plane_mesh(&plane(50.0, 50.0, 3, 3)).expect("plane");
        let poly = poly_plane(&plane(50.0, 50.0, 3, 3)).expect("poly plane");
        assert_eq!(poly.vertices, tri.vertices);
        assert_eq!(poly.faces.len(), 9);
        assert_eq!(poly.mn_edges().expect("edges").len(), 24);
        // Cell (0, 0): vertices 0, 1 below 4, 5 (rows of 4 along +Y),
        // from (x0, y0) as Max's cache of RubberGrip has them.
        assert_eq!(poly.faces[0].v, [0, 1, 5, 4]);
        assert_eq!(poly.faces[8].v, [10, 11, 15, 14]);
        for f in &poly.faces {
            let p =
                f.v.iter()
                    .map(|&i| poly.vertices[i as usize])
                    .collect::<Vec<_>>();
            let area: f64 = (0..4)
                .map(|k| p[k].0 * p[(k + 1) % 4].1 - p[(k + 1) % 4].0 * p[k].1)
                .sum();
            assert!(area > 0.0);
            // The triangles are the triangle mesh's: diagonal corner 0–2.
            let mut t: Vec<Vec<usize>> = f
                .tris
                .iter()
                .map(|t| {
                    let mut x = t.to_vec();
                    x.sort_unstable();
                    x
                })
                .collect();
            t.sort();
            assert_eq!(t, [vec![0, 1, 2], vec![0, 2, 3]]);
        }
        // Map corners follow the vertices (the Plane's map is its grid).
        let m = &poly.maps[0];
        for f in poly.faces.iter().zip(&m.faces) {
            assert_eq!(f.0.v, *f.1);
        }
        // Interior edges are shared by two quads, border edges by one.
        let edges = poly.mn_edges().expect("edges");
        let border = edges
            .iter()
            .filter(|e| {
                poly.faces
                    .iter()
                    .filter(|f| {
                        (0..4).any(|k| {
                            let (a, b) = (f.v[k], f.v[(k + 1) % 4]);
                            (a, b) == (e[0], e[1]) || (b, a) == (e[0], e[1])
                        })
                    })
                    .count()
                    == 1
            })
            .count();
        assert_eq!(border, 12);
    }
}
