//! `.zone` / `.zonel` / `.zonew`: `CZone` — patches, tiles, colours, lumels, bind info.

use serde::Serialize;

use super::ig::PointLightArray;
use super::stream::{opt, AaBox, Serial, Stream, Vec3, F32};
use super::NelError;
use crate::{nel_struct, nel_versioned};

nel_versioned!(
    /// `CBorderVertex`.
    BorderVertex(0) { current_vertex: u16, neighbor_zone_id: u16, neighbor_vertex: u16 }
);
nel_versioned!(
    /// `CPatchInfo::CBindInfo`: neighbours of one patch edge.
    BindInfo(0) { n_patchs: u8, zone_id: u16, next: [u16; 4], edge: [u8; 4] }
);

/// `CZone::CPatchConnect`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PatchConnect {
    pub version: u32,
    /// Version 0 only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_order: Option<[u8; 2]>,
    pub error_size: F32,
    pub base_vertices: [u16; 4],
    pub bind_edges: [BindInfo; 4],
}

impl Serial for PatchConnect {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CZone::CPatchConnect")?;
        opt(s, &mut self.old_order, self.version < 1)?;
        s.ser(&mut self.error_size)?;
        s.ser(&mut self.base_vertices)?;
        s.ser(&mut self.bind_edges)
    }
}

nel_struct!(
    /// `CVector3s`: a compressed position (scaled by the zone's patch scale/bias).
    Vec3s { x: i16, y: i16, z: i16 }
);
nel_struct!(
    /// `CTileElement`: orientation/flags and up to 3 tile layers.
    TileElement { flags: u16, tile: [u16; 3] }
);
nel_struct!(
    /// `CTileColor` (version >= 7): 565 colour.
    TileColor { color565: u16 }
);
nel_struct!(
    /// `CTileColorOldPatchVersion6`: 565 colour and an unused light vector.
    TileColorV6 { color565: u16, light: [u8; 3] }
);
nel_struct!(
    /// `CTileLightInfluence`: two light ids and their packed factors.
    TileLightInfluence { light: [u8; 2], packed_light_factor: u8 }
);

/// `CPatch`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Patch {
    pub version: u32,
    pub vertices: [Vec3s; 4],
    pub tangents: [Vec3s; 8],
    pub interiors: [Vec3s; 4],
    pub tiles: Vec<TileElement>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tile_colors_v6: Vec<TileColorV6>,
    pub tile_colors: Vec<TileColor>,
    pub order_s: u8,
    pub order_t: u8,
    pub compressed_lumels: Vec<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise_rotation: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corner_smooth_flag: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tile_light_influences: Option<Vec<TileLightInfluence>>,
}

impl Serial for Patch {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 7, "CPatch")?;
        let v = self.version;
        if v < 2 {
            return Err(s.err(format!(
                "CPatch version {v} is refused by NeL itself (too old)"
            )));
        }
        s.ser(&mut self.vertices)?;
        s.ser(&mut self.tangents)?;
        s.ser(&mut self.interiors)?;
        s.field("tiles", &mut self.tiles)?;
        if v <= 6 {
            s.field("tile_colors_v6", &mut self.tile_colors_v6)?;
        } else {
            s.field("tile_colors", &mut self.tile_colors)?;
        }
        s.ser(&mut self.order_s)?;
        s.ser(&mut self.order_t)?;
        s.bytes(&mut self.compressed_lumels)?;
        opt(s, &mut self.noise_rotation, v >= 3)?;
        opt(s, &mut self.corner_smooth_flag, v >= 3)?;
        opt(s, &mut self.flags, v >= 4)?;
        opt(s, &mut self.tile_light_influences, v >= 5)
    }
}

/// `CZone`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Zone {
    pub version: u32,
    pub zone_id: u16,
    pub zone_bb: AaBox,
    pub patch_bias: Vec3,
    pub patch_scale: F32,
    pub num_vertices: i32,
    pub border_vertices: Vec<BorderVertex>,
    pub patches: Vec<Patch>,
    pub patch_connects: Vec<PatchConnect>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point_lights: Option<PointLightArray>,
}

impl Serial for Zone {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CZone", |s| {
            s.version(&mut self.version, 5, "CZone")?;
            if self.version < 3 {
                return Err(s.err(format!(
                    "CZone version {} is refused by NeL itself (too old)",
                    self.version
                )));
            }
            s.check(b"ZONE")?;
            s.ser(&mut self.zone_id)?;
            s.ser(&mut self.zone_bb)?;
            s.ser(&mut self.patch_bias)?;
            s.ser(&mut self.patch_scale)?;
            s.ser(&mut self.num_vertices)?;
            s.field("border_vertices", &mut self.border_vertices)?;
            s.field("patches", &mut self.patches)?;
            s.field("patch_connects", &mut self.patch_connects)?;
            opt(s, &mut self.point_lights, self.version >= 4)
        })
    }
}
