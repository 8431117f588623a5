//! The RPO blob (chunk 0x08FD, NeL `RPO::Save` VALIDITY_CHUNK 2301): a u32 RPO
//! version (0) and the `RPatchMesh` data of serialize versions 1 to 9 — per patch
//! its tile counts, tiles, tile colours and edge flags, then one bind record per
//! vertex, then the tessellation trailer.
//!
//! Field order follows seed S003 l.299 and `RPatchMesh::Load/Save`
//! (`nel_patch_lib/nel_patch_mesh.cpp`); byte widths follow the writer: `bool`
//! 1 byte, `int`/`uint`/`typeBind`/`USHORT` 4/4/4/2 bytes. Every field is kept
//! as stored (a bool byte other than 0/1, a negative tile) so the blob rebuilds
//! byte for byte. Counts are checked against the bytes left before anything is
//! allocated.

use serde::Serialize;

use crate::reader::{ByteReader, ReadError};

/// The only RPO version `RPO::Load` decodes (`RPO_SERIALIZE_VERSION`).
pub const RPO_VERSION: u32 = 0;
/// Highest `RPATCHMESH_SERIALIZE_VERSION` (nel_patch_mesh.h l.56-65).
pub const RPATCHMESH_VERSION_MAX: u32 = 9;

/// The whole 0x08FD payload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RpoBlob {
    pub rpo_version: u32,
    pub mesh: RPatchMesh,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RPatchMesh {
    pub version: u32,
    pub patches: Vec<UiPatch>,
    pub vertices: Vec<VertexBind>,
    pub tile_tessel_level: i32,
    /// `bool` bytes, kept raw.
    pub mode_tile: u8,
    pub keep_mapping: u8,
    /// Written only by version 4.
    pub transition_type: Option<i32>,
    pub sel_level: i32,
}

/// One patch's NeL data (UI_PATCH).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UiPatch {
    /// log2 of the tile count along U (the zone's OrderS = 1 << NbTilesU).
    pub nb_tiles_u: i32,
    pub nb_tiles_v: i32,
    pub tiles: Tiles,
    /// 0x00RRGGBB per tile corner, (OrderS+1)·(OrderT+1) of them.
    pub colors: Vec<u32>,
    /// Version ≥ 7: the 4 edge flags (bit 0 = smooth).
    pub edge_flags: Option<[u32; 4]>,
}

/// Tiles as versions 1-2 (two ints, dropped by Max) or 3+ store them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "layout", content = "tiles", rename_all = "snake_case")]
pub enum Tiles {
    Old(Vec<[i32; 2]>),
    Desc(Vec<TileDesc>),
}

impl Tiles {
    pub fn len(&self) -> usize {
        match self {
            Tiles::Old(v) => v.len(),
            Tiles::Desc(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One tile (tileDesc): number, flags (version ≥ 5: the 256×256 case in bits
/// 0-2), noise (version ≥ 9: the displacement tile), three layers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TileDesc {
    pub num: u16,
    pub flags: Option<u16>,
    pub noise: Option<u8>,
    pub layers: [TileLayer; 3],
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TileLayer {
    /// The unused "invert" bool byte.
    pub invert: u8,
    /// Tile index in the bank; -1 / 0xffff marks an empty layer.
    pub tile: i32,
    pub rotate: i32,
}

/// One vertex's bind record (UI_VERTEX::Binding).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct VertexBind {
    /// `bool` byte.
    pub binded: u8,
    /// typeBind: 0 BIND_25, 1 BIND_75, 2 BIND_50, 3 BIND_SINGLE.
    pub bind_type: u32,
    pub edge: u32,
    pub patch: u32,
    pub before: u32,
    pub before2: u32,
    pub after: u32,
    pub after2: u32,
    pub t: u32,
    /// The second typeBind word Save writes (Load keeps this one).
    pub bind_type2: u32,
    pub prim_vert: u32,
}

/// nel_patch_mesh.h: the edge flag bit `getEdgeFlag` tests.
pub const UI_EDGE_FLAGS_NO_SMOOTH_MASK: u32 = 1;

pub const BIND_25: u32 = 0;
pub const BIND_75: u32 = 1;
pub const BIND_50: u32 = 2;
pub const BIND_SINGLE: u32 = 3;

const LAYER_BYTES: usize = 1 + 4 + 4;
const VERTEX_BYTES: usize = 1 + 10 * 4;

/// A count read from the file, refused when its records cannot fit in what is left.
fn count(r: &mut ByteReader, what: &str, min_record: usize) -> Result<usize, ReadError> {
    let at = r.position();
    let n = r.i32(what)?;
    let n = usize::try_from(n).map_err(|_| ReadError::Invalid {
        what: what.into(),
        offset: at,
        detail: format!("negative count {n}"),
    })?;
    if n.saturating_mul(min_record) > r.remaining() {
        return Err(ReadError::Invalid {
            what: what.into(),
            offset: at,
            detail: format!(
                "{n} records of at least {min_record} bytes, {} bytes left",
                r.remaining()
            ),
        });
    }
    Ok(n)
}

impl RpoBlob {
    pub fn decode(payload: &[u8]) -> Result<RpoBlob, ReadError> {
        let mut r = ByteReader::new(payload);
        let rpo_version = r.u32("RPO version")?;
        if rpo_version != RPO_VERSION {
            return Err(ReadError::Invalid {
                what: "RPO version".into(),
                offset: 0,
                detail: format!("{rpo_version}, RPO::Load reads only version {RPO_VERSION}"),
            });
        }
        let mesh = RPatchMesh::read(&mut r)?;
        r.finish("RPO blob")?;
        Ok(RpoBlob { rpo_version, mesh })
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.rpo_version.to_le_bytes());
        self.mesh.write(out);
    }
}

impl RPatchMesh {
    /// A whole `RPatchMesh::Save` payload on its own (a NeL Edit Patch or NeL
    /// Paint RFINALPATCH chunk, 0x4001), every byte consumed.
    pub fn decode(payload: &[u8]) -> Result<RPatchMesh, ReadError> {
        let mut r = ByteReader::new(payload);
        let mesh = RPatchMesh::read(&mut r)?;
        r.finish("RPatchMesh")?;
        Ok(mesh)
    }

    /// `RPatchMesh::Save`'s bytes (the inverse of [`RPatchMesh::decode`]).
    pub fn encode(&self, out: &mut Vec<u8>) {
        self.write(out);
    }

    fn read(r: &mut ByteReader) -> Result<RPatchMesh, ReadError> {
        let at = r.position();
        let version = r.u32("RPatchMesh version")?;
        if !(1..=RPATCHMESH_VERSION_MAX).contains(&version) {
            return Err(ReadError::Invalid {
                what: "RPatchMesh version".into(),
                offset: at,
                detail: format!("{version}, known versions are 1 to {RPATCHMESH_VERSION_MAX}"),
            });
        }
        // Smallest patch: two tile counts, tile count, colour count.
        let n = count(r, "patch count", 16)?;
        let mut patches = Vec::with_capacity(n);
        for _ in 0..n {
            patches.push(UiPatch::read(r, version)?);
        }
        let n = count(r, "vertex count", VERTEX_BYTES)?;
        let mut vertices = Vec::with_capacity(n);
        for _ in 0..n {
            vertices.push(VertexBind {
                binded: r.u8("bind flag")?,
                bind_type: r.u32("bind type")?,
                edge: r.u32("bind edge")?,
                patch: r.u32("bind patch")?,
                before: r.u32("bind before")?,
                before2: r.u32("bind before2")?,
                after: r.u32("bind after")?,
                after2: r.u32("bind after2")?,
                t: r.u32("bind T")?,
                bind_type2: r.u32("bind type (second)")?,
                prim_vert: r.u32("bind primary vertex")?,
            });
        }
        let tile_tessel_level = r.i32("TileTesselLevel")?;
        let mode_tile = r.u8("ModeTile")?;
        let keep_mapping = r.u8("KeepMapping")?;
        let transition_type = if version == 4 {
            Some(r.i32("TransitionType")?)
        } else {
            None
        };
        let sel_level = r.i32("selLevel")?;
        Ok(RPatchMesh {
            version,
            patches,
            vertices,
            tile_tessel_level,
            mode_tile,
            keep_mapping,
            transition_type,
            sel_level,
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        let u32s = |out: &mut Vec<u8>, v: &[u32]| {
            v.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()))
        };
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&(self.patches.len() as u32).to_le_bytes());
        for p in &self.patches {
            p.write(out);
        }
        out.extend_from_slice(&(self.vertices.len() as u32).to_le_bytes());
        for v in &self.vertices {
            out.push(v.binded);
            u32s(
                out,
                &[
                    v.bind_type,
                    v.edge,
                    v.patch,
                    v.before,
                    v.before2,
                    v.after,
                    v.after2,
                    v.t,
                    v.bind_type2,
                    v.prim_vert,
                ],
            );
        }
        out.extend_from_slice(&self.tile_tessel_level.to_le_bytes());
        out.push(self.mode_tile);
        out.push(self.keep_mapping);
        if let Some(t) = self.transition_type {
            out.extend_from_slice(&t.to_le_bytes());
        }
        out.extend_from_slice(&self.sel_level.to_le_bytes());
    }
}

impl UiPatch {
    fn read(r: &mut ByteReader, version: u32) -> Result<UiPatch, ReadError> {
        let nb_tiles_u = r.i32("NbTilesU")?;
        let nb_tiles_v = r.i32("NbTilesV")?;
        let tiles = if version < 3 {
            let n = count(r, "tile count", 8)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push([r.i32("old tile")?, r.i32("old tile")?]);
            }
            Tiles::Old(v)
        } else {
            let tile_bytes = 2
                + if version >= 5 { 2 } else { 0 }
                + if version >= 9 { 1 } else { 0 }
                + 3 * LAYER_BYTES;
            let n = count(r, "tile count", tile_bytes)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                let num = r.u16("tile number")?;
                let flags = if version >= 5 {
                    Some(r.u16("tile flags")?)
                } else {
                    None
                };
                let noise = if version >= 9 {
                    Some(r.u8("tile noise")?)
                } else {
                    None
                };
                let mut layer = || -> Result<TileLayer, ReadError> {
                    Ok(TileLayer {
                        invert: r.u8("tile layer invert")?,
                        tile: r.i32("tile layer tile")?,
                        rotate: r.i32("tile layer rotate")?,
                    })
                };
                let layers = [layer()?, layer()?, layer()?];
                v.push(TileDesc {
                    num,
                    flags,
                    noise,
                    layers,
                });
            }
            Tiles::Desc(v)
        };
        let n = count(r, "colour count", 4)?;
        let mut colors = Vec::with_capacity(n);
        for _ in 0..n {
            colors.push(r.u32("tile colour")?);
        }
        let edge_flags = if version >= 7 {
            Some([
                r.u32("edge flags")?,
                r.u32("edge flags")?,
                r.u32("edge flags")?,
                r.u32("edge flags")?,
            ])
        } else {
            None
        };
        Ok(UiPatch {
            nb_tiles_u,
            nb_tiles_v,
            tiles,
            colors,
            edge_flags,
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.nb_tiles_u.to_le_bytes());
        out.extend_from_slice(&self.nb_tiles_v.to_le_bytes());
        out.extend_from_slice(&(self.tiles.len() as u32).to_le_bytes());
        match &self.tiles {
            Tiles::Old(v) => v.iter().flatten().for_each(|x| {
                out.extend_from_slice(&x.to_le_bytes());
            }),
            Tiles::Desc(v) => {
                for t in v {
                    out.extend_from_slice(&t.num.to_le_bytes());
                    if let Some(f) = t.flags {
                        out.extend_from_slice(&f.to_le_bytes());
                    }
                    if let Some(n) = t.noise {
                        out.push(n);
                    }
                    for l in &t.layers {
                        out.push(l.invert);
                        out.extend_from_slice(&l.tile.to_le_bytes());
                        out.extend_from_slice(&l.rotate.to_le_bytes());
                    }
                }
            }
        }
        out.extend_from_slice(&(self.colors.len() as u32).to_le_bytes());
        self.colors
            .iter()
            .for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
        if let Some(e) = self.edge_flags {
            e.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        }
    }

    /// Tile count along U (1 << NbTilesU), when the exponent is sane (0..=8).
    pub fn order_s(&self) -> Option<u32> {
        u32::try_from(self.nb_tiles_u)
            .ok()
            .filter(|&n| n <= 8)
            .map(|n| 1 << n)
    }

    pub fn order_t(&self) -> Option<u32> {
        u32::try_from(self.nb_tiles_v)
            .ok()
            .filter(|&n| n <= 8)
            .map(|n| 1 << n)
    }

    /// `UI_PATCH::getEdgeFlag(e)`: bit 0 of the edge's flags
    /// (UI_EDGE_FLAGS_NO_SMOOTH_MASK); versions before 7 store none (CEdgeInfo's 0).
    pub fn edge_flag(&self, e: usize) -> bool {
        self.edge_flags.is_some_and(|f| {
            f.get(e)
                .is_some_and(|x| x & UI_EDGE_FLAGS_NO_SMOOTH_MASK != 0)
        })
    }
}
