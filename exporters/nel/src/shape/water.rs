//! `CWaterShape` and `CWaveMakerShape` (facts: `nel/src/3d/water_shape.cpp`).

use serde::Serialize;

use super::material::{Texture, TrackDefaultQuat, TrackDefaultVector};
use crate::nel_versioned;
use crate::stream::{opt, Bool, Ptr, Serial, Stream, Vec2, F32};
use crate::NelError;

nel_versioned!(
    /// `NLMISC::CPolygon2D`.
    Polygon2D(0) { vertices: Vec<Vec2> }
);

/// `CWaterShape` (versions 0..4).
#[derive(Debug, Clone, Default, Serialize)]
pub struct WaterShape {
    pub version: u32,
    pub poly: Polygon2D,
    pub water_pool_id: u32,
    pub env_map: [Ptr<Texture>; 2],
    pub bump_map: [Ptr<Texture>; 2],
    pub color_map: Ptr<Texture>,
    pub height_map_scale: [Vec2; 2],
    pub height_map_speed: [Vec2; 2],
    pub color_map_mat_column0: Vec2,
    pub color_map_mat_column1: Vec2,
    pub color_map_mat_pos: Vec2,
    pub default_pos: TrackDefaultVector,
    pub default_scale: TrackDefaultVector,
    pub default_rot_quat: TrackDefaultQuat,
    pub transition_ratio: F32,
    pub wave_height_factor: F32,
    /// Version 1+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compute_lightmap: Option<Bool>,
    /// Version 2+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dist_max: Option<F32>,
    /// Version 3+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub splash_enabled: Option<Bool>,
    /// Version 4+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uses_scene_water_env_map: Option<[Bool; 2]>,
}

impl Serial for WaterShape {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 4, "CWaterShape")?;
        let v = self.version;
        s.field("poly", &mut self.poly)?;
        s.ser(&mut self.water_pool_id)?;
        s.ctx("maps", |s| {
            for m in self.env_map.iter_mut() {
                s.poly(m)?;
            }
            for m in self.bump_map.iter_mut() {
                s.poly(m)?;
            }
            s.poly(&mut self.color_map)
        })?;
        s.ser(&mut self.height_map_scale)?;
        s.ser(&mut self.height_map_speed)?;
        s.ser(&mut self.color_map_mat_column0)?;
        s.ser(&mut self.color_map_mat_column1)?;
        s.ser(&mut self.color_map_mat_pos)?;
        s.ser(&mut self.default_pos)?;
        s.ser(&mut self.default_scale)?;
        s.ser(&mut self.default_rot_quat)?;
        s.ser(&mut self.transition_ratio)?;
        s.ser(&mut self.wave_height_factor)?;
        opt(s, &mut self.compute_lightmap, v >= 1)?;
        opt(s, &mut self.dist_max, v >= 2)?;
        opt(s, &mut self.splash_enabled, v >= 3)?;
        opt(s, &mut self.uses_scene_water_env_map, v >= 4)
    }
}

nel_versioned!(
    /// `CWaveMakerShape`.
    WaveMakerShape(0) {
        period: F32,
        radius: F32,
        intensity: F32,
        pool_id: u32,
        impulsion_mode: Bool,
    }
);
