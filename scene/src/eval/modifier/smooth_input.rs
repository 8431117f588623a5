//! Polygon forms a subdividing modifier (TurboSmooth, MeshSmooth) takes from
//! a stack that does not end in polygons directly below it.
//!
//! - Above a modifier that outputs polygons as an Edit Poly above it would
//!   take them (`edit_poly::polygons_from`: an Edit Poly, Unwrap UVW, Shell,
//!   Symmetry, Smooth, Conform …), with only vertex-moving or map-writing
//!   modifiers between: that modifier's polygons, read over the incoming
//!   triangle mesh (`turbo_smooth::from_triangles`), whose triangles are the
//!   polygons' in polygon order — so the positions, map channels and
//!   smoothing groups are those the modifiers between gave them.
//! - On a primitive with a polygon builder below deformers that move a point
//!   by where it is (Bend, Taper, Twist): the polygon form's vertices moved
//!   as the triangle mesh's vertex at the same place moved (the triangle and
//!   polygon forms share their points; a cylinder's cap centres are the
//!   triangle mesh's only others).
//!
//! Also the polygons of a triangle mesh a stack outputs (an Edit Mesh's), as
//! Max converts it for an Edit Poly above (`triangles_joined`).

use std::collections::HashMap;

use super::{Applied, ModContext, BEND, TAPER, TWIST};
use crate::eval::error::EvalError;
use crate::eval::modifier::subdivide::Polys;
use crate::eval::objects::mesh::{Mesh, MissingMap, Poly};
use crate::eval::objects::poly::PolyMesh;

/// Deformers whose displacement depends on the point's position alone.
pub(super) const POSITIONAL: [crate::typed::ClassId; 4] = [BEND, TAPER, TWIST, super::xform::XFORM];

/// The polygons of `stack[from]`'s output over `mesh`, the triangle mesh
/// that reaches the subdividing modifier (see the module comment).
pub(super) fn over_triangles(
    stack: &[Applied],
    from: usize,
    base: usize,
    mesh: &Mesh,
    cx: &ModContext,
) -> Result<Polys, EvalError> {
    let poly = super::edit_poly::polygons_from(stack, from, base, cx)?;
    let loops: Vec<Poly> = poly
        .faces
        .iter()
        .map(|f| Poly {
            v: f.v.clone(),
            material: f.material,
            smoothing: f.smoothing,
            cuts: Vec::new(),
        })
        .collect();
    if poly.vertices.len() != mesh.vertices.len() {
        return Err(EvalError::malformed(
            "",
            format!(
                "{} polygon vertices under a triangle mesh of {}",
                poly.vertices.len(),
                mesh.vertices.len()
            ),
        ));
    }
    super::turbo_smooth::from_triangles(mesh, &loops)
}

/// The triangle mesh a node's stack outputs up to and including `stack[at]`,
/// joined across its hidden edges as Max converts a triangle mesh to
/// polygons (`poly_make`), edges numbered as Max numbers them. A map
/// channel whose two triangles hold different map vertices where they join
/// is left out by name (which one the polygon keeps is not derived), as
/// for a ProBoolean's result: the geometry does not depend on it.
pub(super) fn triangles_joined(
    at: usize,
    cx: &ModContext,
    layer: &str,
) -> Result<(PolyMesh, Vec<MissingMap>), EvalError> {
    use crate::eval::objects::poly_make;
    let node = cx
        .node
        .ok_or_else(|| EvalError::not_evaluated("a triangle mesh on a compound operand"))?;
    let tri = cx
        .eval
        .mesh_up_to(node, at, cx.t)
        .ok_or_else(|| EvalError::malformed("", "the stack below is not a mesh"))??;
    let (poly, seams) = poly_make::make_poly_mesh(&tri)?;
    let missing = seams
        .into_iter()
        .map(|(channel, reason)| MissingMap {
            channel: Some(channel),
            modifier: layer.to_string(),
            reason: format!("converted to polygons for the Edit Poly above: {reason}"),
        })
        .collect();
    Ok((poly, missing))
}

/// `poly` (a primitive's polygon form) with each vertex where `moved` (the
/// primitive's triangle mesh `tri` after positional deformers) put the
/// triangle vertex at its place; an unmatched vertex is an error.
pub(super) fn deformed_like(
    mut poly: PolyMesh,
    tri: &Mesh,
    moved: &Mesh,
) -> Result<PolyMesh, EvalError> {
    if tri.vertices.len() != moved.vertices.len() {
        return Err(EvalError::malformed(
            "",
            format!(
                "the deformers below turned {} vertices into {}",
                tri.vertices.len(),
                moved.vertices.len()
            ),
        ));
    }
    let size = tri
        .vertices
        .iter()
        .flat_map(|v| [v.0.abs(), v.1.abs(), v.2.abs()])
        .fold(0.0f64, f64::max);
    let eps = (size * 1e-9).max(1e-12);
    let key = |c: f64| (c / eps).round() as i64;
    let mut cells: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, v) in tri.vertices.iter().enumerate() {
        cells
            .entry([key(v.0), key(v.1), key(v.2)])
            .or_default()
            .push(i);
    }
    for (i, p) in poly.vertices.iter_mut().enumerate() {
        let k = [key(p.0), key(p.1), key(p.2)];
        let mut found = None;
        'search: for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if let Some(list) = cells.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) {
                        if let Some(&j) = list.iter().find(|&&j| {
                            let d = tri.vertices[j].minus(*p);
                            d.dot(d) <= 4.0 * eps * eps
                        }) {
                            found = Some(j);
                            break 'search;
                        }
                    }
                }
            }
        }
        let j = found.ok_or_else(|| {
            EvalError::malformed(
                format!("polygon vertex {i}"),
                "no triangle vertex at its place",
            )
        })?;
        *p = moved.vertices[j];
    }
    Ok(poly)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::objects::poly::PolyFace;

    fn mesh_of(vertices: Vec<Vec3>) -> Mesh {
        Mesh {
            vertices,
            faces: Vec::new(),
            maps: Vec::new(),
            ..Default::default()
        }
    }

    /// Polygon vertices take the moved position of the triangle vertex at
    /// their place (a centre the polygons lack is skipped); a polygon vertex
    /// with no triangle vertex there is an error.
    #[test]
    fn polygon_vertices_follow_their_triangle_twins() {
        let tri = mesh_of(vec![
            Vec3(0.0, 0.0, 0.0),
            Vec3(1.0, 0.0, 0.0),
            Vec3(0.0, 1.0, 0.0),
            Vec3(1.0, 1.0, 1e-12),
        ]);
        let moved = mesh_of(
            tri.vertices
                .iter()
                .map(|v| Vec3(v.0 + 10.0, v.1, v.2 * 2.0))
                .collect(),
        );
        let poly = PolyMesh {
            vertices: vec![
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
            ],
            faces: vec![PolyFace::fan(vec![0, 1, 2], 0, 0)],
            maps: Vec::new(),
            edges: None,
            normals: None,
        };
        let out = deformed_like(poly.clone(), &tri, &moved).expect("matched");
        assert_eq!(out.vertices[0], Vec3(11.0, 0.0, 0.0));
        assert_eq!(out.vertices[1], Vec3(11.0, 1.0, 2e-12));
        assert_eq!(out.vertices[2], Vec3(10.0, 1.0, 0.0));
        let mut far = poly;
        far.vertices[2] = Vec3(0.5, 0.5, 0.0);
        assert!(deformed_like(far, &tri, &moved).is_err());
    }
}
