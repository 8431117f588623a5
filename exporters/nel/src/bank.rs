//! `.bank` (`CTileBank`) and `.farbank` (`CTileFarBank`): the landscape tile sets.

use serde::Serialize;

use super::stream::{opt, Bool, Rgba, Serial, Stream};
use super::NelError;
use crate::nel_versioned;

nel_versioned!(
    /// `CTileNoise`: a displacement map file name.
    TileNoise(0) { file_name: String }
);
nel_versioned!(
    /// `CTileLand`: a land and the tile sets it uses.
    TileLand(0) { name: String, tile_sets: Vec<String> }
);
nel_versioned!(
    /// `CTileBorder`: border pixel colours of a tile, for transition checks.
    TileBorder(0) {
        set: Bool,
        width: i32,
        height: i32,
        top: Vec<Rgba>,
        bottom: Vec<Rgba>,
        left: Vec<Rgba>,
        right: Vec<Rgba>,
    }
);

/// `CTileSetTransition`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TileSetTransition {
    pub version: u32,
    pub tile: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v0_flag: Option<Bool>,
}

impl Serial for TileSetTransition {
    const MIN_SIZE: usize = 5;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CTileSetTransition")?;
        s.ser(&mut self.tile)?;
        opt(s, &mut self.v0_flag, self.version == 0)
    }
}

/// `CTile` (versions 2..4: flags and diffuse/additive/alpha bitmap names).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tile {
    pub version: u32,
    pub flags: u32,
    pub bitmap_names: [String; 3],
}

impl Serial for Tile {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 4, "CTile")?;
        if self.version < 2 {
            return Err(s.err(format!("CTile version {} is not supported", self.version)));
        }
        s.ser(&mut self.flags)?;
        s.ser(&mut self.bitmap_names)
    }
}

/// `CTileSet`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TileSet {
    pub version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub surface_data: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oriented: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vegetable_desc_file_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub displacement_bitmap: Option<[u32; 16]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub displacement_names_v1: Option<[String; 16]>,
    pub name: String,
    pub tile128: Vec<i32>,
    pub tile256: Vec<i32>,
    pub transitions: Vec<TileSetTransition>,
    pub child_names: Vec<String>,
    /// diffuse, additive (version 0: a third, unused one).
    pub border128: Vec<TileBorder>,
    pub border256: Vec<TileBorder>,
    /// 48 transitions x (diffuse, additive, alpha).
    pub border_transition: Vec<TileBorder>,
}

impl Serial for TileSet {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 5, "CTileSet")?;
        let v = self.version;
        opt(s, &mut self.surface_data, v >= 5)?;
        opt(s, &mut self.oriented, v >= 4)?;
        opt(s, &mut self.vegetable_desc_file_name, v >= 3)?;
        opt(s, &mut self.displacement_bitmap, v >= 2)?;
        opt(s, &mut self.displacement_names_v1, v == 1)?;
        s.ser(&mut self.name)?;
        s.ser(&mut self.tile128)?;
        s.ser(&mut self.tile256)?;
        s.vec_n(&mut self.transitions, 48)?;
        s.ser(&mut self.child_names)?;
        let nb = if v == 0 { 3 } else { 2 };
        s.vec_n(&mut self.border128, nb)?;
        s.vec_n(&mut self.border256, nb)?;
        s.vec_n(&mut self.border_transition, 48 * 3)
    }
}

/// `CTileBank` (`BANK` as a length-prefixed string, then versioned content).
#[derive(Debug, Clone, Default, Serialize)]
pub struct TileBank {
    pub version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub displacement_maps: Option<Vec<TileNoise>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abs_path: Option<String>,
    pub lands: Vec<TileLand>,
    pub tile_sets: Vec<TileSet>,
    pub tiles: Vec<Tile>,
}

impl Serial for TileBank {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CTileBank", |s| {
            let mut magic = String::from("BANK");
            let at = s.pos();
            s.ser(&mut magic)?;
            if magic != "BANK" {
                return Err(NelError::Format {
                    offset: at,
                    path: "CTileBank".into(),
                    what: format!("expected the string \"BANK\", found {magic:?}"),
                });
            }
            s.version(&mut self.version, 4, "CTileBank")?;
            let v = self.version;
            if v < 2 {
                return Err(s.err(format!("CTileBank version {v} is refused by NeL itself")));
            }
            opt(s, &mut self.displacement_maps, v >= 4)?;
            opt(s, &mut self.abs_path, v >= 3)?;
            s.field("lands", &mut self.lands)?;
            s.field("tile_sets", &mut self.tile_sets)?;
            s.field("tiles", &mut self.tiles)
        })
    }
}

nel_versioned!(
    /// `CTileFarBank::CTileFar`: far-view pixels, diffuse then additive, 3 orders each.
    TileFar(0) {
        diffuse0: Vec<Rgba>,
        diffuse1: Vec<Rgba>,
        diffuse2: Vec<Rgba>,
        additive0: Vec<Rgba>,
        additive1: Vec<Rgba>,
        additive2: Vec<Rgba>,
    }
);

/// `CTileFarBank` (`FAR_BANK` magic).
#[derive(Debug, Clone, Default, Serialize)]
pub struct TileFarBank {
    pub version: u32,
    pub tiles: Vec<TileFar>,
}

impl Serial for TileFarBank {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CTileFarBank", |s| {
            s.check(b"FAR_")?;
            s.check(b"BANK")?;
            s.version(&mut self.version, 0, "CTileFarBank")?;
            s.field("tiles", &mut self.tiles)
        })
    }
}
