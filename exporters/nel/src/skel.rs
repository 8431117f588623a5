//! `.skel`: `CSkeletonShape` with its `CBoneBase` list and lods (inside a shape stream).

use serde::Serialize;

use super::shape::material::{TrackDefaultQuat, TrackDefaultVector};
use super::stream::{opt, Bool, Matrix, Serial, Stream, Vec3, F32};
use super::NelError;
use crate::nel_versioned;

/// `CBoneBase`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BoneBase {
    pub version: u32,
    pub name: String,
    pub inv_bind_pos: Matrix,
    pub father_id: i32,
    pub unherit_scale: Bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lod_disable_distance: Option<F32>,
    pub default_pos: TrackDefaultVector,
    pub default_rot_euler: TrackDefaultVector,
    pub default_rot_quat: TrackDefaultQuat,
    pub default_scale: TrackDefaultVector,
    pub default_pivot: TrackDefaultVector,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skin_scale: Option<Vec3>,
}

impl Serial for BoneBase {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 2, "CBoneBase")?;
        s.ser(&mut self.name)?;
        s.ser(&mut self.inv_bind_pos)?;
        s.ser(&mut self.father_id)?;
        s.ser(&mut self.unherit_scale)?;
        opt(s, &mut self.lod_disable_distance, self.version >= 1)?;
        s.ser(&mut self.default_pos)?;
        s.ser(&mut self.default_rot_euler)?;
        s.ser(&mut self.default_rot_quat)?;
        s.ser(&mut self.default_scale)?;
        s.ser(&mut self.default_pivot)?;
        opt(s, &mut self.skin_scale, self.version >= 2)
    }
}

nel_versioned!(
    /// `CSkeletonShape::CLod`: distance and one active flag per bone.
    SkeletonLod(0) { distance: F32, active_bones: Vec<u8> }
);

/// `CSkeletonShape`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SkeletonShape {
    pub version: u32,
    pub bones: Vec<BoneBase>,
    /// Bone name -> index, in stored (sorted) order.
    pub bone_map: Vec<(String, u32)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lods: Option<Vec<SkeletonLod>>,
}

impl Serial for SkeletonShape {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CSkeletonShape")?;
        s.field("bones", &mut self.bones)?;
        s.field("bone_map", &mut self.bone_map)?;
        opt(s, &mut self.lods, self.version >= 1)
    }
}
