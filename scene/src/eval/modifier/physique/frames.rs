//! The bind pose Physique stored when it was initialised: per reference
//! slot, the bone's node TM (the modifier's link table), and the skinned
//! mesh's node TM (in the ModApp).
//!
//! Layout (measured on max2024-rico/Wire.max; no public decoder exists):
//! - modifier object: 0x2703 → 0x2704 holds 0x3202, a 0x3203 matrix and one
//!   0x3204 per reference slot, in slot order. Each 0x3204 → 0x3206 holds
//!   0x2500 (u32 0x10001, i32 parent entry, i32 slot + 1, …) and several
//!   4×4 matrices (0x25xx → 0x3000: 16 f32, row vectors, translation in the
//!   fourth row). 0x2513 is the node TM of `ref[slot]` (rotation and position
//!   of that bone; 0x2514 repeats it); 0x2501 is a link frame that keeps the
//!   root's rotation for every link and 0x2502 the same relative to the
//!   parent entry, which are Physique's internal frames, not the bind pose.
//! - ModApp: 0x2512 → 0x2504 → 0x2502 → 0x03E8 is the mesh node's TM at
//!   initialisation (Matrix3, 48 bytes; 0x2802 repeats it).
//!
//! On Wire.max 0x2513 equals, for all 18 slots, the bone TM the authors' FBX
//! exporter wrote as the cluster's bind (TransformLink), and the ModApp TM
//! the FBX mesh's bind (Transform); whether 0x2514 rather than 0x2513 moves
//! away from the bind when a bone is later re-posed is not settled by the
//! corpus (the two are equal in its one Physique file).

use crate::chunk::Chunk;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::modifier::skin::matrix3;

use super::PhysiqueError;

const LINK_DATA: u16 = 0x2703;
const LINK_TABLE: u16 = 0x2704;
const LINK: u16 = 0x3204;
const LINK_FRAMES: u16 = 0x3206;
const BONE_TM: u16 = 0x2513;
const MATRIX4: u16 = 0x3000;
const LOCAL_DATA: u16 = 0x2512;
const VERTEX_DATA: u16 = 0x2504;
const MESH_TM: u16 = 0x2502;
const MATRIX3: u16 = 0x03E8;
/// Matrix rows whose fourth column is further than this from (0, 0, 0, 1)
/// are not an affine transform.
const AFFINE_EPS: f64 = 1e-4;

/// The stored bind pose of one Physique application.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BindPose {
    /// Per reference slot (0x3204 order): the bone's node TM at initialisation.
    pub bones: Vec<Mat43>,
    /// The mesh node's TM at initialisation.
    pub mesh: Option<Mat43>,
}

fn child(chunks: &[Chunk], id: u16) -> Option<&Chunk> {
    chunks.iter().find(|c| c.id == id)
}

/// A stored 4×4 matrix (row vectors) as an affine transform.
pub fn matrix4(p: &[u8]) -> Option<Mat43> {
    if p.len() != 64 {
        return None;
    }
    let f: Vec<f64> = p
        .chunks_exact(4)
        .map(|w| f64::from(f32::from_le_bytes([w[0], w[1], w[2], w[3]])))
        .collect();
    if f.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let last = [f[3], f[7], f[11], f[15] - 1.0];
    if last.iter().any(|x| x.abs() > AFFINE_EPS) {
        return None;
    }
    let row = |r: usize| Vec3(f[r * 4], f[r * 4 + 1], f[r * 4 + 2]);
    Some(Mat43([row(0), row(1), row(2), row(3)]))
}

/// The per-slot bone TMs from the modifier object's chunks.
pub fn bone_tms(modifier: &[Chunk]) -> Result<Vec<Mat43>, PhysiqueError> {
    let table = child(modifier, LINK_DATA)
        .and_then(|c| child(c.children(), LINK_TABLE))
        .ok_or(PhysiqueError::Missing("link table (0x2703/0x2704)"))?;
    table
        .children()
        .iter()
        .filter(|c| c.id == LINK)
        .enumerate()
        .map(|(slot, c)| {
            child(c.children(), LINK_FRAMES)
                .and_then(|f| child(f.children(), BONE_TM))
                .and_then(|m| child(m.children(), MATRIX4))
                .and_then(Chunk::payload)
                .and_then(matrix4)
                .ok_or(PhysiqueError::BadLinkFrame { slot })
        })
        .collect()
}

/// The mesh node's TM at initialisation from the ModApp (0x2500).
pub fn mesh_tm(mod_app: &Chunk) -> Option<Mat43> {
    let data =
        child(mod_app.children(), LOCAL_DATA).and_then(|l| child(l.children(), VERTEX_DATA))?;
    child(data.children(), MESH_TM)
        .and_then(|m| child(m.children(), MATRIX3))
        .and_then(Chunk::payload)
        .and_then(matrix3)
        .filter(|m| {
            m.0.iter()
                .all(|r| r.0.is_finite() && r.1.is_finite() && r.2.is_finite())
        })
}
