//! Shape streams (`.shape`, `.skel`, `.ps`): the `SHAP` magic then one polymorphic `IShape`.

pub mod bbcluster;
pub mod flare;
pub mod material;
pub mod mesh;
pub mod mrm;
pub mod multilod;
pub mod seg_remanence;
pub mod vertex_buffer;
pub mod water;

use serde::Serialize;

use super::ps::ParticleSystemShape;
use super::skel::SkeletonShape;
use super::stream::{PolyClass, Ptr, Serial, Stream};
use super::NelError;

/// Every shape class this crate reads.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "class")]
pub enum Shape {
    CMesh(mesh::Mesh),
    CMeshMRM(mrm::MeshMrm),
    CMeshMRMSkinned(mrm::MeshMrmSkinned),
    CMeshMultiLod(multilod::MeshMultiLod),
    CSkeletonShape(SkeletonShape),
    CParticleSystemShape(ParticleSystemShape),
    CBBClusterShape(bbcluster::BbClusterShape),
    CWaterShape(water::WaterShape),
    CWaveMakerShape(water::WaveMakerShape),
    CFlareShape(flare::FlareShape),
    CSegRemanenceShape(seg_remanence::SegRemanenceShape),
}

impl PolyClass for Shape {
    const FAMILY: &'static str = "IShape";
    fn create(class: &str) -> Option<Self> {
        Some(match class {
            "CMesh" => Shape::CMesh(Default::default()),
            "CMeshMRM" => Shape::CMeshMRM(Default::default()),
            "CMeshMRMSkinned" => Shape::CMeshMRMSkinned(Default::default()),
            "CMeshMultiLod" => Shape::CMeshMultiLod(Default::default()),
            "CSkeletonShape" => Shape::CSkeletonShape(Default::default()),
            "CParticleSystemShape" => Shape::CParticleSystemShape(Default::default()),
            "CBBClusterShape" => Shape::CBBClusterShape(Default::default()),
            "CWaterShape" => Shape::CWaterShape(Default::default()),
            "CWaveMakerShape" => Shape::CWaveMakerShape(Default::default()),
            "CFlareShape" => Shape::CFlareShape(Default::default()),
            "CSegRemanenceShape" => Shape::CSegRemanenceShape(Default::default()),
            _ => return None,
        })
    }
    fn class_name(&self) -> &str {
        match self {
            Shape::CMesh(_) => "CMesh",
            Shape::CMeshMRM(_) => "CMeshMRM",
            Shape::CMeshMRMSkinned(_) => "CMeshMRMSkinned",
            Shape::CMeshMultiLod(_) => "CMeshMultiLod",
            Shape::CSkeletonShape(_) => "CSkeletonShape",
            Shape::CParticleSystemShape(_) => "CParticleSystemShape",
            Shape::CBBClusterShape(_) => "CBBClusterShape",
            Shape::CWaterShape(_) => "CWaterShape",
            Shape::CWaveMakerShape(_) => "CWaveMakerShape",
            Shape::CFlareShape(_) => "CFlareShape",
            Shape::CSegRemanenceShape(_) => "CSegRemanenceShape",
        }
    }
    fn serial_body<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        match self {
            Shape::CMesh(x) => s.ctx("CMesh", |s| x.serial(s)),
            Shape::CMeshMRM(x) => s.ctx("CMeshMRM", |s| x.serial(s)),
            Shape::CMeshMRMSkinned(x) => s.ctx("CMeshMRMSkinned", |s| x.serial(s)),
            Shape::CMeshMultiLod(x) => s.ctx("CMeshMultiLod", |s| x.serial(s)),
            Shape::CSkeletonShape(x) => s.ctx("CSkeletonShape", |s| x.serial(s)),
            Shape::CParticleSystemShape(x) => s.ctx("CParticleSystemShape", |s| x.serial(s)),
            Shape::CBBClusterShape(x) => s.ctx("CBBClusterShape", |s| x.serial(s)),
            Shape::CWaterShape(x) => s.ctx("CWaterShape", |s| x.serial(s)),
            Shape::CWaveMakerShape(x) => s.ctx("CWaveMakerShape", |s| x.serial(s)),
            Shape::CFlareShape(x) => s.ctx("CFlareShape", |s| x.serial(s)),
            Shape::CSegRemanenceShape(x) => s.ctx("CSegRemanenceShape", |s| x.serial(s)),
        }
    }
}

/// `CShapeStream`: `SHAP` then the shape pointer.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ShapeStream {
    pub shape: Ptr<Shape>,
}

impl Serial for ShapeStream {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.check(b"SHAP")?;
        s.poly(&mut self.shape)
    }
}

impl ShapeStream {
    /// Class name of the stored shape, if any.
    pub fn class_name(&self) -> Option<&str> {
        self.shape.get().map(|x| x.class_name())
    }
}
