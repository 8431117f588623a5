//! `.veget`: `CVegetableShape` (facts: `nel/src/3d/vegetable_shape.cpp`).
//! Layout: version, then the checks `NEL_` `_VEG` `ETAB` `LE__`, flags, bend mode, vertex
//! buffer, triangle indices, [v1: best-sided precomputed lighting].

use serde::Serialize;

use super::shape::vertex_buffer::VertexBuffer;
use super::stream::{opt, Bool, Serial, Stream};
use super::NelError;

/// `CVegetableShape` (versions 0..1).
#[derive(Debug, Clone, Default, Serialize)]
pub struct VegetableShape {
    pub version: u32,
    pub lighted: Bool,
    pub double_sided: Bool,
    pub pre_compute_lighting: Bool,
    pub alpha_blend: Bool,
    /// `TBendCenterMode` (serialEnum: sint32).
    pub bend_center_mode: i32,
    pub vb: VertexBuffer,
    pub triangle_indices: Vec<u32>,
    /// Version 1+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_sided_pre_compute_lighting: Option<Bool>,
}

/// Bytes 1..17 of every `.veget` file.
pub const MAGIC: &[u8; 16] = b"NEL__VEGETABLE__";

impl Serial for VegetableShape {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CVegetableShape", |s| {
            s.version(&mut self.version, 1, "CVegetableShape")?;
            s.check(b"NEL_")?;
            s.check(b"_VEG")?;
            s.check(b"ETAB")?;
            s.check(b"LE__")?;
            s.ser(&mut self.lighted)?;
            s.ser(&mut self.double_sided)?;
            s.ser(&mut self.pre_compute_lighting)?;
            s.ser(&mut self.alpha_blend)?;
            s.ser(&mut self.bend_center_mode)?;
            s.ser(&mut self.vb)?;
            s.field("triangle_indices", &mut self.triangle_indices)?;
            opt(
                s,
                &mut self.best_sided_pre_compute_lighting,
                self.version >= 1,
            )
        })
    }
}
