//! Physique's per-node local data, read as stored (seed §10, sources-index §10):
//! ModApp 0x2500 → local data 0x2512 → 0x2504, which holds one 0x2506 per
//! vertex (its 0x0989 leaf: u32 n, then n × (i32 link reference, Point3,
//! f32 weight)) and one 0x2807 per vertex (u32 vertex index, Point3: the
//! vertex where Physique was attached, in the node's object space).
//!
//! Every 0x0989 record is exactly 4 + 20·n bytes (the seed's whole-corpus
//! scan), so a record that is not is damaged data, not another layout. The
//! Point3 of a link is Physique's own link-relative coordinate (on Wire.max:
//! a parameter along the link, a radius and an angle in degrees), not the
//! bone-local offset of the export interface; it is kept as stored.

use crate::chunk::Chunk;
use crate::eval::core::math::Vec3;

use super::PhysiqueError;

/// ModApp local data, its Physique vertex container, the per-vertex
/// containers, the link record leaf and the attach-time vertex leaf.
const LOCAL_DATA: u16 = 0x2512;
const VERTEX_DATA: u16 = 0x2504;
const VERTEX: u16 = 0x2506;
const LINKS: u16 = 0x0989;
const INIT_POS: u16 = 0x2807;
/// One link in a 0x0989 record: i32, Point3, f32.
const LINK_SIZE: usize = 20;

/// One stored link of a vertex.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// The stored link reference: negative = rigid form (link index `!r`),
    /// zero or positive = deformable form (link index `r − 1`; 0 is the root
    /// attachment).
    pub link_ref: i32,
    /// Physique's link-relative coordinate, as stored.
    pub offset: Vec3,
    /// The stored weight (a single-link record stores 0 or 1; it is rigid).
    pub weight: f32,
}

/// The decoded local data of one Physique application.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Local {
    /// Per vertex of the mesh below Physique, its stored links.
    pub vertices: Vec<Vec<Link>>,
    /// Per vertex, its position when Physique was attached (0x2807), when stored.
    pub init_positions: Vec<Option<Vec3>>,
}

fn u32_at(p: &[u8], at: usize) -> Option<u32> {
    let b = p.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn f32_at(p: &[u8], at: usize) -> Option<f32> {
    u32_at(p, at).map(f32::from_bits)
}

fn vec_at(p: &[u8], at: usize) -> Option<Vec3> {
    Some(Vec3(
        f64::from(f32_at(p, at)?),
        f64::from(f32_at(p, at + 4)?),
        f64::from(f32_at(p, at + 8)?),
    ))
}

/// Decodes the ModApp container (0x2500) of a Physique application.
pub fn decode_mod_app(mod_app: &Chunk) -> Result<Local, PhysiqueError> {
    let local = mod_app
        .children()
        .iter()
        .find(|c| c.id == LOCAL_DATA)
        .ok_or(PhysiqueError::Missing("ModApp local data (0x2512)"))?;
    let data = local
        .children()
        .iter()
        .find(|c| c.id == VERTEX_DATA)
        .ok_or(PhysiqueError::Missing("vertex data (0x2512/0x2504)"))?;
    decode_vertex_data(data.children())
}

/// Decodes the children of 0x2504: the 0x2506 vertex records in vertex
/// order and the 0x2807 attach positions (indexed by their own vertex index).
pub fn decode_vertex_data(children: &[Chunk]) -> Result<Local, PhysiqueError> {
    // Each vertex costs at least one chunk header, so the counts below are
    // bounded by the stream that holds them.
    let mut vertices = Vec::new();
    for c in children.iter().filter(|c| c.id == VERTEX) {
        let v = vertices.len();
        let p = c
            .children()
            .iter()
            .find(|x| x.id == LINKS)
            .and_then(Chunk::payload)
            .ok_or(PhysiqueError::NoLinks { vertex: v })?;
        vertices.push(links(p, v)?);
    }
    let mut init_positions = vec![None; vertices.len()];
    for c in children.iter().filter(|c| c.id == INIT_POS) {
        let p = c.payload().unwrap_or(&[]);
        let (Some(i), Some(pos), 16) = (u32_at(p, 0), vec_at(p, 4), p.len()) else {
            return Err(PhysiqueError::BadInitPosition { len: p.len() });
        };
        let slot = init_positions
            .get_mut(i as usize)
            .ok_or(PhysiqueError::InitPositionIndex {
                index: i,
                vertices: vertices.len(),
            })?;
        *slot = Some(pos);
    }
    Ok(Local {
        vertices,
        init_positions,
    })
}

/// One 0x0989 record: u32 n, n × 20-byte links, exactly.
fn links(p: &[u8], vertex: usize) -> Result<Vec<Link>, PhysiqueError> {
    let bad = || PhysiqueError::BadRecord {
        vertex,
        len: p.len(),
    };
    let n = u32_at(p, 0).ok_or_else(bad)? as usize;
    if n.checked_mul(LINK_SIZE).and_then(|k| k.checked_add(4)) != Some(p.len()) {
        return Err(bad());
    }
    Ok(p[4..]
        .chunks_exact(LINK_SIZE)
        .map(|r| Link {
            link_ref: i32::from_le_bytes([r[0], r[1], r[2], r[3]]),
            offset: vec_at(r, 4).unwrap_or_default(),
            weight: f32_at(r, 16).unwrap_or(0.0),
        })
        .collect())
}
