//! Face Extrude (0xc3a32, 0, the class files save; the SDK sample
//! modifiers/BasicOps/fextrude.cpp declares "FaceExtrude2", 0x70884612,
//! 0x012059e7, with the same parameters: 0 amount, 1 scale (percent),
//! 2 type — 0 along each face cluster's normal, 1 each vertex's local
//! normal, 2 away from the centre controller, reference 1).
//!
//! Refused by name. The sample gives the moves: each vertex of a selected
//! face goes `amount` along its direction (from the centre: the unit vector
//! from the centre to the vertex in mod-context space), then each face
//! cluster is scaled about its centre. But the extrusion it moves is Max
//! library code the sample only calls: which vertices are copied and the
//! side faces between them, in what numbering (`MeshDelta::ExtrudeFaces`
//! on a mesh, `MNMesh::ExtrudeFaceClusters` on polygons), and the cluster
//! and local directions (`MeshTempData::FaceExtDir`). Building them our
//! own way would give a mesh no reference pins, and an Edit Poly above
//! (getFacesByMatID-dev.max stacks three Face Extrudes under Edit Polys)
//! addresses that output by index.

use super::{Applied, ModContext};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

/// The class Max saves for Face Extrude.
pub const FACE_EXTRUDE: ClassId = ClassId(0xc3a32, 0);
/// The SDK sample's class of the same modifier.
pub const FACE_EXTRUDE2: ClassId = ClassId(0x7088_4612, 0x0120_59e7);

/// Whether `class` is Face Extrude, either class.
pub fn is_face_extrude(class: ClassId) -> bool {
    class == FACE_EXTRUDE || class == FACE_EXTRUDE2
}

pub(super) fn apply(_m: &Applied, _mesh: &mut Mesh, _cx: &ModContext) -> Result<(), EvalError> {
    Err(EvalError::not_evaluated_why(
        "its extrusion",
        "the copied vertices, the side faces and their numbering (MeshDelta::ExtrudeFaces, \
         MNMesh::ExtrudeFaceClusters) and the cluster and local directions \
         (MeshTempData::FaceExtDir) are Max library code the SDK sample only calls",
    ))
}
