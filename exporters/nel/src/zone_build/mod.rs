//! Building a `CZone` from patch descriptions, and taking one apart again: the NeL side of
//! the landscape export (NeL `CZone::build` / `CZone::retrieve`, `CPatchInfo`).
//!
//! The types here are what a `.max` landscape source (RklPatch) is converted into; they follow
//! NeL's `CPatchInfo` field for field so that the export rules can be written in NeL's terms.
//! Nothing here knows about `.max`.

mod build;
pub mod ligo;
mod lumels;
pub mod masks;
pub mod matrix;
pub mod symmetrisation;
pub mod tile_bank;
mod tiles;
pub mod transform;
pub mod zone_template;

use serde::Serialize;
use thiserror::Error;

use super::ig::PointLightArray;
pub use super::zone::{BindInfo, BorderVertex, TileColor, TileElement, TileLightInfluence};

pub use build::{build, build_with, retrieve};
pub use masks::mask_uninitialised;
pub use tiles::{VegetableState, TILE_LAYER_EMPTY};

/// A position in float, as NeL's `CVector`.
pub type Point = [f32; 3];

/// `CBezierPatch`: the 16 control points of a bicubic patch, uncompressed.
///
/// Vertices are the corners A, B, C, D (counter-clockwise). Tangents are stored in NeL's
/// order: `ab, ba, bc, cb, cd, dc, da, ad`. Interiors are `ia, ib, ic, id`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct BezierPatch {
    pub vertices: [Point; 4],
    pub tangents: [Point; 8],
    pub interiors: [Point; 4],
}

/// `CPatchInfo`: one patch as handed to `CZone::build`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PatchInfo {
    /// Control points, uncompressed.
    pub patch: BezierPatch,
    /// Tile counts along S and T (a power of two, 2..16 in NeL).
    pub order_s: u8,
    pub order_t: u8,
    /// Base size × bumpiness (0 lets the landscape compute it).
    pub error_size: f32,
    /// Zone vertex index of each corner (patch connectivity).
    pub base_vertices: [u16; 4],
    /// "Don't smooth" flag of each edge: bit n for the edge from vertex n to (n+1)%4.
    pub flags: u8,
    /// Counter-clockwise rotation of the noise map, 0..3.
    pub noise_rotation: u8,
    /// Noise smoothing of each corner: bit n for corner n (`_CornerSmoothFlag`).
    pub corner_smooth_flag: u8,
    /// `order_s × order_t` tiles, line first (S fastest).
    pub tiles: Vec<TileElement>,
    /// `(order_s+1) × (order_t+1)` 565 colours at tile corners, line first.
    pub tile_colors: Vec<TileColor>,
    /// `(order_s·4) × (order_t·4)` lumels, or empty for "no shadow map" (build then resets
    /// the compressed lumels, as NeL does).
    pub lumels: Vec<u8>,
    /// `(order_s/2+1) × (order_t/2+1)` light influences, or any other size for "none"
    /// (build then resets them, as NeL does).
    pub tile_light_influences: Vec<TileLightInfluence>,
    /// Neighbours along each edge.
    pub bind_edges: [BindInfo; 4],
}

impl PatchInfo {
    /// `CPatchInfo::setSmoothFlag`: `flag` true means "this edge must not be smoothed".
    pub fn set_smooth_flag(&mut self, edge: usize, flag: bool) {
        let bit = 1u8 << (edge & 3);
        self.flags = (self.flags & !bit) | if flag { bit } else { 0 };
    }
    /// `CPatchInfo::getSmoothFlag`.
    pub fn smooth_flag(&self, edge: usize) -> bool {
        self.flags & (1 << (edge & 3)) != 0
    }
    /// `CPatchInfo::setCornerSmoothFlag`.
    pub fn set_corner_smooth_flag(&mut self, corner: usize, smooth: bool) {
        let bit = 1u8 << (corner & 3);
        self.corner_smooth_flag = (self.corner_smooth_flag & !bit) | if smooth { bit } else { 0 };
    }
    /// `CPatchInfo::getCornerSmoothFlag`.
    pub fn corner_smooth(&self, corner: usize) -> bool {
        self.corner_smooth_flag & (1 << (corner & 3)) != 0
    }
}

/// `CZoneInfo`: everything `CZone::retrieve` gives back.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ZoneInfo {
    pub zone_id: u16,
    pub patches: Vec<PatchInfo>,
    pub border_vertices: Vec<BorderVertex>,
    /// The zone's static lights (`CZoneInfo::PointLights`), as stored (already sorted).
    pub point_lights: Option<PointLightArray>,
}

/// `CZone` version the reference (2004-era) exporter wrote: it serialized with version 5
/// and patched the version byte to 4; versions 4 and 5 store the same fields (seed S003
/// l.299: "patching version byte 5->4 (v4/v5 differ only in that byte, verified
/// empirically)"). Pass it as [`BuildOptions::zone_version`] to match reference files.
pub const REFERENCE_EXPORTER_ZONE_VERSION: u32 = 4;

/// Choices `CZone::build` leaves to the caller or to the NeL version that writes the file.
#[derive(Debug, Clone, Serialize)]
pub struct BuildOptions {
    /// `CZone` stream version written. NeL today writes 5; the 2004-era exporter that made
    /// the reference zones wrote 4 (seed S003 l.299). Versions 4 and 5 serialize the same
    /// fields, so this is the "version byte patch" only.
    pub zone_version: u32,
    /// `CPatch` stream version written (NeL writes 7).
    pub patch_version: u32,
    /// Lower bound for `NumVertices` (`CZone::build`'s `numVertices` argument).
    pub num_vertices: u32,
    /// Static lights, already in their stored (sorted) order. NeL sorts `CPointLightNamed`
    /// by name in build; callers with unsorted lights must sort them first.
    pub point_lights: Option<PointLightArray>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            zone_version: 5,
            patch_version: 7,
            num_vertices: 0,
            point_lights: None,
        }
    }
}

/// Why a zone could not be built or retrieved.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ZoneBuildError {
    #[error("patch {patch}: {what} has {got} entries, expected {expected} for order {order_s}x{order_t}")]
    Count {
        patch: usize,
        what: &'static str,
        got: usize,
        expected: usize,
        order_s: u8,
        order_t: u8,
    },
    #[error("patch {patch}: order {order_s}x{order_t} is not a power of two in 2..=16")]
    Order {
        patch: usize,
        order_s: u8,
        order_t: u8,
    },
    #[error("patch {patch}: {what}")]
    Patch { patch: usize, what: String },
    #[error("zone has {patches} patches and {connects} patch connections")]
    Connects { patches: usize, connects: usize },
    #[error("zone: {0}")]
    Zone(String),
    #[error("tile bank: {0}")]
    Bank(String),
}
