//! `CFlareShape` (facts: `nel/src/3d/flare_shape.cpp`).

use serde::Serialize;

use super::material::Texture;
use crate::stream::Serial;
use crate::stream::{opt, Bool, Ptr, Rgba, Stream, F32};
use crate::NelError;

/// Number of flares of a flare shape (`MaxFlareNum`).
pub const MAX_FLARE_NUM: usize = 10;

/// One of the 10 flares: texture, size, position along the flare line.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Flare {
    pub texture: Ptr<Texture>,
    pub size: F32,
    pub pos: F32,
}

/// Version 4+ fields: occlusion test mesh and disappearance.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FlareOcclusion {
    pub occlusion_test_mesh_name: String,
    pub scale_when_disappear: Bool,
    pub size_disappear: F32,
    pub angle_disappear: F32,
    pub occlusion_test_mesh_inherit_scale_rot: Bool,
    pub look_at_mode: Bool,
}

crate::nel_struct!(
    /// Parts present only when the flare is not at infinite distance.
    ViewDist { max_view_dist: F32, max_view_dist_ratio: F32 }
);
crate::nel_struct!(
    /// Parts present only when dazzle is enabled.
    Dazzle { color: Rgba, attenuation_range: F32 }
);

impl Serial for FlareOcclusion {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ser(&mut self.occlusion_test_mesh_name)?;
        s.ser(&mut self.scale_when_disappear)?;
        s.ser(&mut self.size_disappear)?;
        s.ser(&mut self.angle_disappear)?;
        s.ser(&mut self.occlusion_test_mesh_inherit_scale_rot)?;
        s.ser(&mut self.look_at_mode)
    }
}

/// `CFlareShape` (versions 0..5). Optional parts follow the stored flags, as in NeL;
/// `infinite_dist` is stored twice (NeL serializes it again after the dazzle part).
#[derive(Debug, Clone, Default, Serialize)]
pub struct FlareShape {
    pub version: u32,
    pub color: Rgba,
    pub persistence: F32,
    pub spacing: F32,
    pub attenuable: Bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attenuation_range: Option<F32>,
    /// Stored in every version (NeL resets it after reading a version <= 4).
    pub first_flare_keep_size: Bool,
    pub flares: Vec<Flare>,
    pub infinite_dist: Bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view_dist: Option<ViewDist>,
    pub dazzle_enabled: Bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dazzle: Option<Dazzle>,
    /// The second copy of `infinite_dist`.
    pub infinite_dist_again: Bool,
    /// Version 2+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dist_max: Option<F32>,
    /// Version 4+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occlusion: Option<FlareOcclusion>,
}

impl Serial for FlareShape {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 5, "CFlareShape")?;
        let v = self.version;
        s.ser(&mut self.color)?;
        s.ser(&mut self.persistence)?;
        s.ser(&mut self.spacing)?;
        s.ser(&mut self.attenuable)?;
        opt(s, &mut self.attenuation_range, self.attenuable.get())?;
        s.ser(&mut self.first_flare_keep_size)?;
        if s.reading() {
            self.flares = vec![Flare::default(); MAX_FLARE_NUM];
        } else if self.flares.len() != MAX_FLARE_NUM {
            return Err(s.err(format!(
                "a flare shape has {MAX_FLARE_NUM} flares, model has {}",
                self.flares.len()
            )));
        }
        s.ctx("flares", |s| {
            for f in self.flares.iter_mut() {
                s.poly(&mut f.texture)?;
                s.ser(&mut f.size)?;
                s.ser(&mut f.pos)?;
            }
            Ok(())
        })?;
        s.ser(&mut self.infinite_dist)?;
        opt(s, &mut self.view_dist, !self.infinite_dist.get())?;
        s.ser(&mut self.dazzle_enabled)?;
        opt(s, &mut self.dazzle, self.dazzle_enabled.get())?;
        s.ser(&mut self.infinite_dist_again)?;
        opt(s, &mut self.dist_max, v >= 2)?;
        opt(s, &mut self.occlusion, v >= 4)
    }
}
