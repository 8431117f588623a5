//! `CSegRemanenceShape` (facts: `nel/src/3d/seg_remanence_shape.cpp`).

use serde::Serialize;

use super::material::{Material, MaterialBase, TrackDefaultQuat, TrackDefaultVector};
use crate::stream::{opt, AaBox, Bool, Ptr, Serial, Stream, Vec3, F32};
use crate::NelError;

/// `CSegRemanenceShape` (versions 0..2).
#[derive(Debug, Clone, Default, Serialize)]
pub struct SegRemanenceShape {
    pub version: u32,
    pub num_slices: u32,
    pub slice_time: F32,
    pub corners: Vec<Vec3>,
    pub material: Material,
    pub bbox: AaBox,
    pub texture_shifting: Bool,
    /// `serialPtr` of a `CMaterialBase` (null when the material is not animated).
    pub animated_material: Ptr<MaterialBase>,
    /// Version 1+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roll_up_ratio: Option<F32>,
    /// Version 2+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_pos: Option<TrackDefaultVector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_rot_quat: Option<TrackDefaultQuat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_scale: Option<TrackDefaultVector>,
}

impl Serial for SegRemanenceShape {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 2, "CSegRemanenceShape")?;
        let v = self.version;
        s.ser(&mut self.num_slices)?;
        s.ser(&mut self.slice_time)?;
        s.field("corners", &mut self.corners)?;
        s.field("material", &mut self.material)?;
        s.ser(&mut self.bbox)?;
        s.ser(&mut self.texture_shifting)?;
        s.ctx("animated_material", |s| s.ptr(&mut self.animated_material))?;
        opt(s, &mut self.roll_up_ratio, v >= 1)?;
        opt(s, &mut self.default_pos, v >= 2)?;
        opt(s, &mut self.default_rot_quat, v >= 2)?;
        opt(s, &mut self.default_scale, v >= 2)
    }
}
