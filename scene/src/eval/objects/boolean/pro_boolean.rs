//! ProBoolean (class (0x31cea620, 0x2257f993)): a compound object whose result
//! Max computes with its own mesh boolean engine and saves with the object.
//!
//! Layout, from the corpus (Kenjis_Room.max): references are the operand
//! objects and, after each, the PRS controller placing it (Box, PRS, Box, PRS);
//! chunk 0x0160 holds the operand count, 0x0161… the operand names, 0x0165…
//! one container per operand (a matrix 0x03e8 and its operation 0x03f2), and
//! 0x0150 the result mesh as `Mesh::Save` writes it (vertices 0x0914, faces
//! 0x0912, map channels 0x0959/0x2394/0x2396, selections 0x092c…).
//!
//! That stored mesh is Max's own result, vertex and face numbering included, so
//! it is the evaluation: recomputing the CSG would give the same surface with
//! other triangles (and other vertex totals than Max's "Mesh Totals"). It is
//! the result at the time Max last evaluated the object, so a ProBoolean whose
//! operands or placements are animated (any controller it reaches that takes
//! another value at another time, `core::still`) is refused by name rather
//! than shown frozen.

use crate::eval::error::EvalError;

use crate::typed::ClassId;

use crate::eval::core::still;
use crate::eval::objects::mesh::{self, Mesh, MissingMap};
use crate::eval::SceneEval;

pub const PRO_BOOLEAN: ClassId = ClassId(0x31cea620, 0x2257f993);

/// The chunk holding the result mesh Max saved.
const RESULT: u16 = 0x0150;

/// The ProBoolean's result: the mesh Max stored with the object.
pub fn eval(se: &SceneEval, obj: usize) -> Result<Mesh, EvalError> {
    let result = se
        .chunks(obj)
        .iter()
        .find(|c| c.id == RESULT)
        .ok_or_else(|| {
            EvalError::malformed(
                "",
                "ProBoolean without its stored result mesh (chunk 0x0150)",
            )
        })?;
    // Operands are objects and their PRS controllers, never nodes.
    if let Some(why) = still::first_varying(se, &[obj], &[])? {
        return Err(EvalError::malformed(
            format!("ProBoolean with animated operands ({why})"),
            "its stored result holds one \
             moment only",
        ));
    }
    mesh::mesh_buffers(result.children()).map_err(|e| e.inside("ProBoolean result (0x0150)"))
}

/// The ProBoolean's result as a poly modifier above it receives it: the
/// stored mesh converted as Max converts any triangle mesh
/// (`poly_make`; ProBoolean saves no polygon form of its own), and the map
/// channels that conversion leaves out.
pub fn as_poly(
    se: &SceneEval,
    obj: usize,
) -> Result<(crate::eval::objects::poly::PolyMesh, Vec<MissingMap>), EvalError> {
    let tri = eval(se, obj)?;
    let (poly, seams) = crate::eval::objects::poly_make::make_poly_mesh(&tri)
        .map_err(|e| e.inside("ProBoolean"))?;
    let missing = seams
        .into_iter()
        .map(|(channel, reason)| MissingMap {
            channel: Some(channel),
            modifier: "ProBoolean".to_string(),
            reason: format!("converted to polygons: {reason}"),
        })
        .collect();
    Ok((poly, missing))
}
