//! Polygon forms of the primitives without a polygon builder (Plane, Sphere,
//! Torus, Tube: their `ConvertToType` hands a poly request to the generic
//! object conversion, public SDK samples gridobj.cpp, sphere.cpp, torus.cpp,
//! tube.cpp): a poly modifier receives the triangle mesh converted
//! (`poly_join`). Those builders emit each quad as two consecutive triangles
//! sharing a hidden diagonal, and every other face as a lone triangle, so the
//! polygons are the quads and the lone triangles in face order. A quad runs
//! counter-clockwise from the start of the hidden diagonal in its first
//! triangle, so the diagonal runs from corner 0 to 2, as `MNMesh`
//! triangulates a quad. That corner is Max's on the Plane: Shotgun's
//! RubberGrips (Plane → Edit Poly → … → Unwrap UVW) cache their cells as
//! [0, 1, 6, 5] …, and the Shell's offset directions there fit only this
//! diagonal (docs/evaluation.md, "Shell"); the version-1 Cylinder's side
//! quads, whose hidden edge starts at the first corner, follow it too.
//! Edges are numbered as the triangle mesh walks them without the hidden
//! ones (`poly::triangle_walk_edges`), which the corner order does not
//! change. A builder whose hidden edges make larger regions (a sliced
//! Torus's or Tube's cut fans) is refused by `join_hidden_pairs`.

use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::poly::PolyMesh;
use crate::eval::objects::primitive::{plane_mesh, Params};

/// All three edge visibility bits.
const ALL_EDGES: u16 = 0b111;

/// The Plane's polygon form (parameters as [`plane_mesh`]).
pub(crate) fn poly_plane(p: &Params) -> Result<PolyMesh, EvalError> {
    converted(&plane_mesh(p)?)
}

/// The polygon form of a primitive's triangle mesh `tri` (module
/// documentation).
pub(crate) fn converted(tri: &Mesh) -> Result<PolyMesh, EvalError> {
    let mut poly = super::poly_join::join_hidden_pairs(tri)?;
    start_at_hidden_edges(tri, &mut poly)?;
    let identity: Vec<Option<u32>> = (0..tri.vertices.len() as u32).map(Some).collect();
    let edges = super::poly::triangle_walk_edges(&tri.faces, &identity)?;
    poly.set_edges(edges)?;
    Ok(poly)
}

/// Turns each quad of `poly` (two consecutive triangles of `tri`, as
/// `join_hidden_pairs` joined them) to start at its first triangle's hidden
/// edge, keeping its triangles and map corners.
fn start_at_hidden_edges(tri: &Mesh, poly: &mut PolyMesh) -> Result<(), EvalError> {
    let mut first = 0usize;
    for (i, f) in poly.faces.iter_mut().enumerate() {
        let t = tri
            .faces
            .get(first)
            .ok_or_else(|| EvalError::malformed("", format!("polygon {i} has no triangle left")))?;
        let at = first;
        first += f.tris.len();
        if f.v.len() != 4 {
            continue;
        }
        // A fan of hidden edges (a sliced Torus's or Tube's cut) makes one
        // polygon of many triangles in Max, with its centre dropped; the pair
        // join would split it.
        let hidden = |t: &crate::eval::objects::mesh::Face| {
            (0..3).filter(|&e| t.flags & (1 << e) == 0).count()
        };
        if tri
            .faces
            .get(at..first)
            .is_none_or(|ts| ts.iter().any(|t| hidden(t) != 1))
        {
            return Err(EvalError::not_evaluated(format!(
                "the polygon form of a primitive whose hidden edges join more than two triangles (triangle {at}: a sliced cut's fan)"
            )));
        }
        let start = (0..3)
            .find(|&e| t.flags & ALL_EDGES & (1 << e) == 0)
            .map(|e| t.v[e])
            .ok_or_else(|| {
                EvalError::malformed("", format!("quad {i} (triangle {at}) has no hidden edge"))
            })?;
        let r = f.v.iter().position(|&v| v == start).ok_or_else(|| {
            EvalError::malformed("", format!("quad {i}'s diagonal is not its corner"))
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
    use crate::eval::objects::primitive::plane_params;

    fn params(v: Vec<Value>) -> Params {
        Params::from_values(v)
    }

    /// Checks what every converted form must hold: the triangles are the
    /// mesh's, each quad's diagonal runs from corner 0 to 2 along a hidden
    /// edge of the triangle mesh, the walked edges close a surface of Euler
    /// characteristic `euler`, and the polygons are `quads` quads and
    /// `tris` lone triangles.
    fn check_converted(tri: &Mesh, quads: usize, tris: usize, euler: i64) -> PolyMesh {
        let poly = converted(tri).expect("converted");
        assert_eq!(poly.vertices, tri.vertices);
        let n4 = poly.faces.iter().filter(|f| f.v.len() == 4).count();
        let n3 = poly.faces.iter().filter(|f| f.v.len() == 3).count();
        assert_eq!((n4, n3), (quads, tris));
        assert_eq!(2 * n4 + n3, tri.faces.len());
        let hidden: std::collections::HashSet<(u32, u32)> = tri
            .faces
            .iter()
            .flat_map(|f| {
                (0..3)
                    .filter(move |&e| f.flags & (1 << e) == 0)
                    .map(move |e| (f.v[e], f.v[(e + 1) % 3]))
            })
            .collect();
        for f in poly.faces.iter().filter(|f| f.v.len() == 4) {
            assert!(
                hidden.contains(&(f.v[2], f.v[0])) || hidden.contains(&(f.v[0], f.v[2])),
                "quad {:?} does not start at its diagonal",
                f.v
            );
        }
        let e = poly.mn_edges().expect("edges").len() as i64;
        let v = poly.vertices.len() as i64;
        assert_eq!(v - e + poly.faces.len() as i64, euler);
        poly
    }

    /// A whole sphere of `segs` segments: fans of triangles at the poles,
    /// quads between (segs/2 − 2 bands), a closed surface.
    #[test]
    fn sphere_rows_become_quads_and_poles_stay_triangles() {
        let segs = 16;
        let p = params(vec![
            Value::Float(10.0),
            Value::Int(segs),
            Value::Bool(true),
            Value::Float(0.0),
            Value::Int(0),
            Value::Bool(false),
            Value::Bool(true),
            Value::Bool(false),
        ]);
        let tri =
            crate::eval::objects::primitive::build(crate::eval::objects::primitive::SPHERE, &p)
                .expect("sphere");
        let s = segs as usize;
        let poly = check_converted(&tri, s * (s / 2 - 2), 2 * s, 2);
        // The north fan comes first, as in the triangle mesh.
        assert_eq!(poly.faces[0].v, [0, 1, 2]);
    }

    /// A torus is all quads, a closed surface of genus one.
    #[test]
    fn torus_is_all_quads_of_genus_one() {
        let p = params(vec![
            Value::Float(10.0),
            Value::Float(2.0),
            Value::Float(0.0),
            Value::Float(0.0),
            Value::Int(12),
            Value::Int(8),
            Value::Int(1),
            Value::Int(0),
            Value::Float(0.0),
            Value::Float(0.0),
            Value::Int(1),
        ]);
        let tri =
            crate::eval::objects::primitive::build(crate::eval::objects::primitive::TORUS, &p)
                .expect("torus");
        check_converted(&tri, 12 * 8, 0, 0);
    }

    /// A tube: quads around, on its caps and inside; a closed ring (genus one).
    #[test]
    fn tube_is_all_quads_of_genus_one() {
        let p = params(vec![
            Value::Float(10.0),
            Value::Float(6.0),
            Value::Float(8.0),
            Value::Int(12),
            Value::Int(2),
            Value::Int(3),
            Value::Int(1),
            Value::Int(0),
            Value::Float(0.0),
            Value::Float(0.0),
            Value::Int(1),
        ]);
        let tri = crate::eval::objects::primitive::build(crate::eval::objects::primitive::TUBE, &p)
            .expect("tube");
        // 3 height segments outside and inside, 2 cap segments on each cap.
        check_converted(&tri, 12 * (3 + 3 + 2 + 2), 0, 0);
    }

    /// One quad per cell, counter-clockwise from above, keeping the
    /// triangle mesh's vertices, its diagonal and its map corners.
    #[test]
    fn plane_cells_become_quads() {
        let tri = plane_mesh(&plane_params(50.0, 50.0, 3, 3, 1.0)).expect("plane");
        let poly = poly_plane(&plane_params(50.0, 50.0, 3, 3, 1.0)).expect("poly plane");
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
