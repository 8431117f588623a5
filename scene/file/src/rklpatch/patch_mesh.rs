//! The flat PatchMesh chunks an RklPatch object writes after its RPO blob
//! (`RPO::Save` → `patch.Save`): counts, vertices, vectors, edges, patches.
//!
//! The chunk ids and their order come from seed S003 l.299 (counts 0x0BD6 /
//! 0x0BC2 / 0x0BD1 / 0x0BEA for vertices / vectors / edges / patches; data in
//! 0x0BE0 / 0x0BCC / 0x0BD2 / 0x0BF4). The seed does not give the record
//! layouts and no public source writes them (PatchMesh::Save is in the closed
//! Max SDK), so the layouts here are this project's, following the field order
//! of the SDK's public `PatchVert` / `PatchVec` / `PatchEdge` / `Patch` structs:
//! they are what the synthetic zone sources are written with, and a real
//! RklPatch file that does not fit them degrades to raw chunks and a named
//! "not evaluated" reason, never a wrong mesh. See docs/zones.md.

use serde::Serialize;

use crate::reader::{ByteReader, ReadError};

pub const CHUNK_VERT_COUNT: u16 = 0x0BD6;
pub const CHUNK_VEC_COUNT: u16 = 0x0BC2;
pub const CHUNK_EDGE_COUNT: u16 = 0x0BD1;
pub const CHUNK_PATCH_COUNT: u16 = 0x0BEA;
pub const CHUNK_VERTS: u16 = 0x0BE0;
pub const CHUNK_VECS: u16 = 0x0BCC;
pub const CHUNK_EDGES: u16 = 0x0BD2;
/// One container per patch, holding the PATCH_* leaves.
pub const CHUNK_PATCH: u16 = 0x0BF4;
pub const PATCH_TYPE: u16 = 0x0100;
pub const PATCH_VERTS: u16 = 0x0110;
pub const PATCH_VECS: u16 = 0x0120;
pub const PATCH_INTERIORS: u16 = 0x0130;
pub const PATCH_EDGES: u16 = 0x0140;
pub const PATCH_SMOOTH: u16 = 0x0150;
pub const PATCH_FLAGS: u16 = 0x0160;

/// Patch types (Max SDK `PATCH_TRI` / `PATCH_QUAD`).
pub const PATCH_TRI: u32 = 3;
pub const PATCH_QUAD: u32 = 4;

/// A corner vertex: position (f32 bits, so NaN payloads survive) and flags. 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PatchVert {
    pub p: [u32; 3],
    pub flags: u32,
}

/// A vector (edge handle or interior): position, owning vertex (-1 for
/// interiors), flags. 20 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PatchVec {
    pub p: [u32; 3],
    pub vert: i32,
    pub flags: u32,
}

/// An edge: its two vertices, its two handles, the patches using it.
/// 20 bytes + 4 per patch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PatchEdge {
    pub v1: i32,
    pub vec12: i32,
    pub vec21: i32,
    pub v2: i32,
    pub patches: Vec<i32>,
}

pub(crate) fn decode_verts(payload: &[u8]) -> Result<Vec<PatchVert>, ReadError> {
    records(payload, 16, "patch vertices", |r| {
        Ok(PatchVert {
            p: [r.u32("x")?, r.u32("y")?, r.u32("z")?],
            flags: r.u32("vertex flags")?,
        })
    })
}

pub(crate) fn decode_vecs(payload: &[u8]) -> Result<Vec<PatchVec>, ReadError> {
    records(payload, 20, "patch vectors", |r| {
        Ok(PatchVec {
            p: [r.u32("x")?, r.u32("y")?, r.u32("z")?],
            vert: r.i32("vector vertex")?,
            flags: r.u32("vector flags")?,
        })
    })
}

pub(crate) fn decode_edges(payload: &[u8]) -> Result<Vec<PatchEdge>, ReadError> {
    let mut r = ByteReader::new(payload);
    let mut out = Vec::new();
    while r.remaining() > 0 {
        let v1 = r.i32("edge v1")?;
        let vec12 = r.i32("edge vec12")?;
        let vec21 = r.i32("edge vec21")?;
        let v2 = r.i32("edge v2")?;
        let at = r.position();
        let n = r.u32("edge patch count")? as usize;
        if n.saturating_mul(4) > r.remaining() {
            return Err(ReadError::Invalid {
                what: "edge patch count".into(),
                offset: at,
                detail: format!("{n} patches, {} bytes left", r.remaining()),
            });
        }
        let mut patches = Vec::with_capacity(n);
        for _ in 0..n {
            patches.push(r.i32("edge patch")?);
        }
        out.push(PatchEdge {
            v1,
            vec12,
            vec21,
            v2,
            patches,
        });
    }
    Ok(out)
}

fn records<T>(
    payload: &[u8],
    size: usize,
    what: &str,
    mut one: impl FnMut(&mut ByteReader) -> Result<T, ReadError>,
) -> Result<Vec<T>, ReadError> {
    let mut r = ByteReader::new(payload);
    if !payload.len().is_multiple_of(size) {
        return Err(r.invalid(
            what,
            format!(
                "{} bytes are not a whole number of {size}-byte records",
                payload.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(payload.len() / size);
    while r.remaining() > 0 {
        out.push(one(&mut r)?);
    }
    r.finish(what)?;
    Ok(out)
}

pub(crate) fn encode_verts(v: &[PatchVert], out: &mut Vec<u8>) {
    for x in v {
        for w in x.p.iter().chain([&x.flags]) {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
}

pub(crate) fn encode_vecs(v: &[PatchVec], out: &mut Vec<u8>) {
    for x in v {
        for w in &x.p {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&x.vert.to_le_bytes());
        out.extend_from_slice(&x.flags.to_le_bytes());
    }
}

pub(crate) fn encode_edges(v: &[PatchEdge], out: &mut Vec<u8>) {
    for e in v {
        for w in [e.v1, e.vec12, e.vec21, e.v2] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&(e.patches.len() as u32).to_le_bytes());
        for p in &e.patches {
            out.extend_from_slice(&p.to_le_bytes());
        }
    }
}

impl PatchVert {
    pub fn pos(&self) -> [f32; 3] {
        self.p.map(f32::from_bits)
    }
}

impl PatchVec {
    pub fn pos(&self) -> [f32; 3] {
        self.p.map(f32::from_bits)
    }
}
