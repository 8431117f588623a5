//! `CMeshMultiLod`: a list of geometry slots, each a polymorphic `IMeshGeom`.

use serde::Serialize;

use super::mesh::{MeshBase, MeshGeom};
use super::mrm::{MeshMrmGeom, MeshMrmSkinnedGeom};
use crate::stream::{Bool, PolyClass, Ptr, Serial, Stream, F32};
use crate::NelError;

/// The `IMeshGeom` classes.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "class")]
pub enum MeshGeomClass {
    CMeshGeom(MeshGeom),
    CMeshMRMGeom(MeshMrmGeom),
    CMeshMRMSkinnedGeom(MeshMrmSkinnedGeom),
}

impl PolyClass for MeshGeomClass {
    const FAMILY: &'static str = "IMeshGeom";
    fn create(class: &str) -> Option<Self> {
        Some(match class {
            "CMeshGeom" => MeshGeomClass::CMeshGeom(Default::default()),
            "CMeshMRMGeom" => MeshGeomClass::CMeshMRMGeom(Default::default()),
            "CMeshMRMSkinnedGeom" => MeshGeomClass::CMeshMRMSkinnedGeom(Default::default()),
            _ => return None,
        })
    }
    fn class_name(&self) -> &str {
        match self {
            MeshGeomClass::CMeshGeom(_) => "CMeshGeom",
            MeshGeomClass::CMeshMRMGeom(_) => "CMeshMRMGeom",
            MeshGeomClass::CMeshMRMSkinnedGeom(_) => "CMeshMRMSkinnedGeom",
        }
    }
    fn serial_body<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        match self {
            MeshGeomClass::CMeshGeom(g) => g.serial(s),
            MeshGeomClass::CMeshMRMGeom(g) => g.serial(s),
            MeshGeomClass::CMeshMRMSkinnedGeom(g) => g.serial(s),
        }
    }
}

/// `CMeshMultiLod::CMeshSlot`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeshSlot {
    pub version: u32,
    pub mesh_geom: Ptr<MeshGeomClass>,
    pub a: F32,
    pub b: F32,
    pub dist_max: F32,
    pub end_polygon_count: F32,
    pub blend_length: F32,
    pub flags: u8,
}

impl Serial for MeshSlot {
    const MIN_SIZE: usize = 30;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 0, "CMeshMultiLod::CMeshSlot")?;
        s.poly(&mut self.mesh_geom)?;
        s.ser(&mut self.a)?;
        s.ser(&mut self.b)?;
        s.ser(&mut self.dist_max)?;
        s.ser(&mut self.end_polygon_count)?;
        s.ser(&mut self.blend_length)?;
        s.ser(&mut self.flags)
    }
}

/// `CMeshMultiLod`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeshMultiLod {
    pub version: u32,
    pub base: MeshBase,
    pub static_lod: Bool,
    pub mesh_vector: Vec<MeshSlot>,
}

impl Serial for MeshMultiLod {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 0, "CMeshMultiLod")?;
        s.ser(&mut self.base)?;
        s.ser(&mut self.static_lod)?;
        s.field("mesh_vector", &mut self.mesh_vector)
    }
}
