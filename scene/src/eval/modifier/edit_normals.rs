//! Edit Normals (0x4aa52ae3, 0x35ca1cde, epoly.dlo): sets the specified
//! normals of its input and changes nothing else — not the vertices, faces,
//! maps or smoothing groups (the SDK sample EditNormals.cpp,
//! `EditNormalsMod::ModifyTriObject` / `ModifyPolyObject`).
//!
//! Its local data (0x2512) holds the normals it edits (`SaveLocalData`):
//! 0x0240 an `MNNormalSpec` when its input is a poly object, 0x0250 a
//! `MeshNormalSpec` when it is a triangle mesh, in the layout the Editable
//! Mesh and Editable Poly objects save theirs (`specified_normals`). What the
//! sample does with them:
//! - no saved normals (never evaluated before the save): the input's own
//!   normals are copied, so the input passes up unchanged;
//! - an input without vertices or faces passes up unchanged;
//! - otherwise, on the first evaluation after loading the topology and
//!   geometry are not yet valid for its cache, so it rebuilds the corners it
//!   does not specify (smoothing groups decide them) and recomputes the
//!   normals that are not explicit from the faces (`CheckNormals` after
//!   clearing the built and computed flags), then copies its normals onto the
//!   pipeline mesh and sets its selection level to object.
//!
//! Where the saved normals do not fit the input (another face count, another
//! polygon form) or cannot be decoded, the geometry still passes up and the
//! normals are left out by name (`Mesh::missing_normals`): what Max renders
//! there is not derived.

use super::{Applied, ModContext};
use crate::chunk::Chunk;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Mesh, MissingNormals};
use crate::eval::objects::poly::PolyMesh;
use crate::eval::objects::poly_normals::PolyNormals;
use crate::eval::objects::specified_normals::SpecifiedNormals;
use crate::typed::ClassId;

pub const EDIT_NORMALS: ClassId = ClassId(0x4aa5_2ae3, 0x35ca_1cde);

/// Local-data child: the normals of a poly input (`kDataChunkPolyNormals`).
const POLY_NORMALS: u16 = 0x0240;
/// Local-data child: the normals of a triangle input (`kDataChunkTriNormals`).
const TRI_NORMALS: u16 = 0x0250;

/// Applies the Edit Normals `m` (its local data `local`) to `mesh`.
pub(super) fn apply(
    m: &Applied,
    local: Option<&Chunk>,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    apply_saved(m.name, local, mesh, || input_polygons(m, cx));
    Ok(())
}

/// The polygons the modifier below the Edit Normals `m` outputs.
fn input_polygons(m: &Applied, cx: &ModContext) -> Result<PolyMesh, EvalError> {
    let (stack, base, at) = cx.place(m)?;
    super::edit_poly::polygons_from(&stack, at + 1, base, cx)
        .map_err(|e| e.inside("its input's polygons"))
}

/// Sets the normals saved in `local` on `mesh` (a poly input's polygons
/// from `polygons`, asked only for saved polygon normals), or names them
/// left out; the geometry always passes up.
fn apply_saved(
    name: &str,
    local: Option<&Chunk>,
    mesh: &mut Mesh,
    polygons: impl FnOnce() -> Result<PolyMesh, EvalError>,
) {
    if mesh.vertices.is_empty() || mesh.faces.is_empty() {
        return;
    }
    let children = local.map_or(&[][..], Chunk::children);
    let tri = children.iter().find(|c| c.id == TRI_NORMALS);
    let poly = children.iter().find(|c| c.id == POLY_NORMALS);
    let result = match (tri, poly) {
        // Never evaluated before the save: the input's normals pass up.
        (None, None) => return,
        (Some(_), Some(_)) => Err(EvalError::malformed(
            "",
            "both polygon (0x0240) and triangle (0x0250) normals are saved",
        )),
        (Some(t), None) => tri_normals(t, mesh),
        (None, Some(p)) => polygons().and_then(|poly| poly_normals(poly, p, mesh)),
    };
    match result {
        Ok(normals) => {
            mesh.normals = Some(normals);
            mesh.missing_normals = None;
        }
        Err(e) => {
            mesh.normals = None;
            mesh.missing_normals = Some(MissingNormals {
                modifier: name.to_string(),
                reason: e.to_string(),
            });
        }
    }
}

/// A `MeshNormalSpec` saved for a triangle input, its non-explicit normals
/// to be recomputed from the faces they now lie on.
fn tri_normals(c: &Chunk, mesh: &Mesh) -> Result<SpecifiedNormals, EvalError> {
    let mut spec = SpecifiedNormals::decode(c.children(), mesh.faces.len())?;
    spec.computed = false;
    Ok(spec)
}

/// An `MNNormalSpec` saved for a poly input: split over the triangles of the
/// polygons the modifier below outputs, which must be the triangles it got.
fn poly_normals(mut poly: PolyMesh, c: &Chunk, mesh: &Mesh) -> Result<SpecifiedNormals, EvalError> {
    let degrees: Vec<usize> = poly.faces.iter().map(|f| f.v.len()).collect();
    let (mut pool, faces) = SpecifiedNormals::decode_poly(c.children(), &degrees)?;
    pool.computed = false;
    poly.normals = Some(PolyNormals { pool, faces });
    let tris = poly.to_mesh()?;
    let same = tris.vertices == mesh.vertices
        && tris.faces.len() == mesh.faces.len()
        && tris.faces.iter().zip(&mesh.faces).all(|(a, b)| a.v == b.v);
    if !same {
        return Err(EvalError::not_evaluated_why(
            "its polygon normals",
            format!(
                "the polygons below ({} vertices, {} triangles) are not the triangles it gets \
                 ({} vertices, {} triangles)",
                tris.vertices.len(),
                tris.faces.len(),
                mesh.vertices.len(),
                mesh.faces.len()
            ),
        ));
    }
    tris.normals
        .ok_or_else(|| EvalError::malformed("", "no normals after triangulation"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::objects::mesh::Face;

    fn u32s(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// Two triangles of a unit square in z = 0, smoothing group 1.
    fn square() -> Mesh {
        let face = |v| Face {
            v,
            smoothing: 1,
            material: 0,
            flags: 0b011,
        };
        Mesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
            ],
            faces: vec![face([0, 1, 2]), face([0, 2, 3])],
            ..Mesh::default()
        }
    }

    /// A MeshNormalSpec of `nfaces` triangles over a pool of two normals (the
    /// first explicit, pointing along x; the second computed, stored wrong
    /// along y), flags "built, computed", corner 0 of face 0 specified with
    /// the explicit normal and corner 1 with the computed one.
    fn tri_spec(nfaces: u32) -> Chunk {
        let mut pool = u32s(&[2]);
        for f in [1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0] {
            pool.extend(f.to_le_bytes());
        }
        let mut kids = vec![
            Chunk::leaf(0x0130, u32s(&[1])),
            Chunk::leaf(0x0100, u32s(&[0x03])),
            Chunk::leaf(0x0110, pool),
            Chunk::container(
                0x0114,
                vec![Chunk::leaf(0x2700, [u32s(&[2]), vec![1]].concat())],
            ),
            Chunk::leaf(0x0120, u32s(&[nfaces])),
        ];
        kids.push(Chunk::leaf(0x0124, u32s(&[0])));
        kids.push(Chunk::container(
            0x0128,
            vec![
                Chunk::leaf(0x0200, u32s(&[0, 1, 1])),
                Chunk::leaf(0x0210, u32s(&[0b011])),
            ],
        ));
        Chunk::container(TRI_NORMALS, kids)
    }

    /// Runs the modifier with local data `local` on a square (a triangle
    /// input: its polygons are never asked for).
    fn run(local: Option<&Chunk>) -> Mesh {
        let mut mesh = square();
        apply_saved("Edit Normals", local, &mut mesh, || {
            panic!("a triangle input's polygons are not read")
        });
        mesh
    }

    #[test]
    fn saved_triangle_normals_are_specified_and_the_rest_recomputed() {
        let local = Chunk::container(0x2512, vec![tri_spec(2)]);
        let mesh = run(Some(&local));
        let before = square();
        assert_eq!(mesh.vertices, before.vertices);
        assert_eq!(mesh.faces, before.faces);
        let n = mesh.normals.as_ref().expect("normals set");
        assert_eq!(n.faces, [[Some(0), Some(1), None], [None, None, None]]);
        assert!(
            !n.computed,
            "recomputed on the first evaluation after loading"
        );
        let p: Vec<[f64; 3]> = mesh.vertices.iter().map(|v| [v.0, v.1, v.2]).collect();
        let resolved = n.resolved(&p, &mesh.faces);
        // The explicit normal is kept; the computed one is rebuilt from face 0
        // (normal +z), not the stale +y saved.
        assert_eq!(resolved[0], [1.0, 0.0, 0.0]);
        assert!((resolved[1][2] - 1.0).abs() < 1e-12 && resolved[1][1].abs() < 1e-12);
        assert!(mesh.missing_normals.is_none());
    }

    #[test]
    fn no_saved_normals_pass_the_input_up() {
        let local = Chunk::container(0x2512, vec![]);
        assert_eq!(run(Some(&local)), square());
        assert_eq!(run(None), square());
    }

    #[test]
    fn normals_that_do_not_fit_are_left_out_by_name() {
        let local = Chunk::container(0x2512, vec![tri_spec(3)]);
        let mesh = run(Some(&local));
        assert_eq!(mesh.vertices, square().vertices);
        assert_eq!(mesh.faces, square().faces);
        assert!(mesh.normals.is_none());
        let missing = mesh.missing_normals.expect("named");
        assert_eq!(missing.modifier, "Edit Normals");
        assert!(
            missing.reason.contains("3 normal faces for 2 mesh faces"),
            "{}",
            missing.reason
        );
    }

    /// An MNNormalSpec of the unit cube's six quads: one explicit normal
    /// (−z) on the four corners of the bottom quad, every other corner
    /// unspecified; a 0x0118 bit array (the normal selection) beside it.
    fn cube_spec() -> Chunk {
        let mut pool = u32s(&[1]);
        for f in [0.0f32, 0.0, -1.0] {
            pool.extend(f.to_le_bytes());
        }
        let bits = |n: u32, b: u8| {
            Chunk::container(
                0x0210,
                vec![Chunk::leaf(0x2700, [u32s(&[n]), vec![b]].concat())],
            )
        };
        let mut kids = vec![
            Chunk::leaf(0x0130, u32s(&[1])),
            Chunk::leaf(0x0100, u32s(&[0x0b])),
            Chunk::leaf(0x0110, pool),
            Chunk::container(
                0x0114,
                vec![Chunk::leaf(0x2700, [u32s(&[1]), vec![1]].concat())],
            ),
            Chunk::container(
                0x0118,
                vec![Chunk::leaf(0x2700, [u32s(&[1]), vec![1]].concat())],
            ),
            Chunk::leaf(0x0120, u32s(&[6])),
            Chunk::leaf(0x0124, u32s(&[0])),
        ];
        kids.push(Chunk::container(
            0x0128,
            vec![Chunk::leaf(0x0200, u32s(&[4, 0, 0, 0, 0])), bits(4, 0x0f)],
        ));
        Chunk::container(POLY_NORMALS, kids)
    }

    #[test]
    fn saved_polygon_normals_follow_each_polygon_onto_its_triangles() {
        let cube = crate::eval::objects::poly::unit_cube();
        let mut mesh = cube.to_mesh().expect("cube");
        let local = Chunk::container(0x2512, vec![cube_spec()]);
        apply_saved("Edit Normals", Some(&local), &mut mesh, || Ok(cube.clone()));
        assert!(mesh.missing_normals.is_none(), "{:?}", mesh.missing_normals);
        let n = mesh.normals.expect("normals set");
        assert_eq!(n.faces.len(), 12);
        // The bottom quad's two triangles take the explicit normal at every
        // corner; the other ten triangles specify nothing.
        assert!(n.faces[..2].iter().flatten().all(|c| *c == Some(0)));
        assert!(n.faces[2..].iter().flatten().all(Option::is_none));
        assert_eq!(n.explicit, [true]);
        assert!(!n.computed);
    }

    #[test]
    fn polygons_other_than_the_triangles_leave_the_normals_out() {
        let cube = crate::eval::objects::poly::unit_cube();
        let mut mesh = cube.to_mesh().expect("cube");
        mesh.faces.pop();
        let before = mesh.clone();
        let local = Chunk::container(0x2512, vec![cube_spec()]);
        apply_saved("Edit Normals", Some(&local), &mut mesh, || Ok(cube.clone()));
        assert_eq!(mesh.faces, before.faces);
        assert!(mesh.normals.is_none());
        let why = mesh.missing_normals.expect("named").reason;
        assert!(
            why.contains("12 triangles) are not the triangles it gets"),
            "{why}"
        );
        // Polygons that cannot be had are named too.
        let mut mesh = before.clone();
        apply_saved("Edit Normals", Some(&local), &mut mesh, || {
            Err(EvalError::malformed("", "no polygons"))
        });
        let why = mesh.missing_normals.expect("named").reason;
        assert!(why.contains("no polygons"), "{why}");
    }
}
