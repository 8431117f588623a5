//! `.cmb`: `NLPACS::CCollisionMeshBuild` (facts: `nel/include/nel/pacs/collision_mesh_build.h`).
//! No magic and no version: vertices then faces.

use serde::Serialize;

use super::stream::{Bool, Serial, Stream, Vec3};
use super::NelError;
use crate::nel_struct;

nel_struct!(
    /// `CCollisionFace` (only the stored part: vertices, edge visibility, surface, material).
    CollisionFace {
        v: [u32; 3],
        visibility: [Bool; 3],
        surface: i32,
        material: i32,
    }
);

/// `CCollisionMeshBuild`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CollisionMeshBuild {
    pub vertices: Vec<Vec3>,
    pub faces: Vec<CollisionFace>,
}

impl Serial for CollisionMeshBuild {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CCollisionMeshBuild", |s| {
            s.field("vertices", &mut self.vertices)?;
            s.field("faces", &mut self.faces)
        })
    }
}
