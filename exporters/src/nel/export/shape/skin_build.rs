//! `CMeshGeom::buildSkin`: faces of a skinned mesh grouped into matrix blocks
//! of at most 16 bones (`IDriver::MaxModelMatrix`), bones taken in ascending
//! skeleton id (the skeleton's depth-first order), then each block's bone list
//! reordered to repeat the previous block's slots where it can, so that
//! fewer matrices change between blocks. The greedy order is NeL's, quirks
//! included (the mirror pass skips a slot after each failure).

use crate::error::{ExportError, ExportResult};
use std::collections::BTreeMap;

/// Bones per matrix block.
pub const MAX_MODEL_MATRIX: usize = 16;
/// Influences per vertex (`NL3D_MESH_SKINNING_MAX_MATRIX`).
pub const MAX_MATRIX: usize = 4;

/// Per vertex: skeleton bone ids and weights, heaviest first.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VertexWeights {
    pub bones: [u32; MAX_MATRIX],
    pub weights: [f32; MAX_MATRIX],
}

/// Where a face went and what its corners use in that block.
#[derive(Debug, Clone, Default)]
pub struct FaceSkin {
    pub block: usize,
    /// Per corner: matrix slots in the block and the weights.
    pub palette: [[u8; MAX_MATRIX]; 3],
    pub weights: [[f32; MAX_MATRIX]; 3],
}

#[derive(Default)]
struct BoneTmp {
    ref_count: u32,
    inserted: bool,
    slot: usize,
}

/// Matrix blocks (skeleton bone ids per slot) and per-face assignment, for
/// faces given as vertex triples into `weights`.
pub fn build_blocks(
    faces: &[[u32; 3]],
    weights: &[VertexWeights],
) -> ExportResult<(Vec<Vec<u32>>, Vec<FaceSkin>)> {
    // 0. Unused influences repeat the first bone so no extra matrix is used.
    let mut sw: Vec<VertexWeights> = weights.to_vec();
    for (i, w) in sw.iter_mut().enumerate() {
        if w.weights[0] == 0.0 {
            return Err(ExportError::invalid(format!(
                "vertex {i}: first skin weight is 0"
            )));
        }
        for j in 1..MAX_MATRIX {
            if w.weights[j] == 0.0 {
                w.bones[j] = w.bones[0];
            }
        }
    }
    let weights_of = |v: u32| -> ExportResult<&VertexWeights> {
        sw.get(v as usize)
            .ok_or_else(|| ExportError::invalid(format!("vertex {v} has no skin weight")))
    };
    // 1. Used bones with their reference counts, ascending.
    let mut bones: BTreeMap<u32, BoneTmp> = BTreeMap::new();
    for f in faces {
        for &v in f {
            for &b in &weights_of(v)?.bones {
                bones.entry(b).or_default().ref_count += 1;
            }
        }
    }
    let bone_use = |f: &[u32; 3]| -> Vec<u32> {
        let mut out: Vec<u32> = Vec::with_capacity(12);
        for &v in f {
            if let Some(w) = sw.get(v as usize) {
                for &b in &w.bones {
                    if !out.contains(&b) {
                        out.push(b);
                    }
                }
            }
        }
        out
    };
    // 2-3. Blocks.
    let mut remaining: Vec<usize> = (0..faces.len()).collect();
    let mut blocks: Vec<Vec<u32>> = Vec::new();
    let mut out = vec![FaceSkin::default(); faces.len()];
    while !remaining.is_empty() {
        let mut block: Vec<u32> = Vec::new();
        for b in bones.values_mut() {
            b.inserted = false;
        }
        let block_id = blocks.len();
        let mut progressed = false;
        while let Some((&current, first)) = bones.iter().next() {
            if first.ref_count == 0 {
                bones.remove(&current);
                continue;
            }
            let mut added = false;
            let mut k = 0;
            while k < remaining.len() {
                let fi = remaining[k];
                let used = bone_use(&faces[fi]);
                let uses_current = used.contains(&current);
                let new_bones = used
                    .iter()
                    .filter(|b| !bones.get(b).is_some_and(|t| t.inserted))
                    .count();
                if new_bones == 0 || (uses_current && new_bones + block.len() < MAX_MODEL_MATRIX) {
                    for (c, &v) in faces[fi].iter().enumerate() {
                        let w = *weights_of(v)?;
                        for j in 0..MAX_MATRIX {
                            let bone = bones.entry(w.bones[j]).or_default();
                            bone.ref_count = bone.ref_count.saturating_sub(1);
                            if !bone.inserted {
                                bone.inserted = true;
                                bone.slot = block.len();
                                block.push(w.bones[j]);
                            }
                            out[fi].palette[c][j] = bone.slot as u8;
                            out[fi].weights[c][j] = w.weights[j];
                        }
                    }
                    out[fi].block = block_id;
                    remaining.remove(k);
                    added = true;
                    progressed = true;
                } else {
                    k += 1;
                }
            }
            if !added {
                break;
            }
        }
        if !progressed {
            return Err(ExportError::limit(
                "skinned faces could not be placed in a matrix block",
            ));
        }
        blocks.push(block);
    }
    // 4. Mirror each block's slots on the previous block's.
    let mut remaps: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
    for i in 1..blocks.len() {
        let (before, after) = blocks.split_at_mut(i);
        let prev = &before[i - 1];
        let cur = &mut after[0];
        let old = cur.clone();
        let n = cur.len();
        let mut j = 0;
        while j < n {
            match prev.iter().position(|&b| b == cur[j]) {
                Some(loc) if loc < n && loc != j => cur.swap(j, loc),
                _ => j += 1,
            }
            j += 1;
        }
        remaps[i] = old
            .iter()
            .map(|b| cur.iter().position(|x| x == b).unwrap_or(0))
            .collect();
    }
    for f in out.iter_mut() {
        if f.block == 0 {
            continue;
        }
        let remap = &remaps[f.block];
        for c in 0..3 {
            for j in 0..MAX_MATRIX {
                let old = f.palette[c][j] as usize;
                f.palette[c][j] = remap.get(old).copied().unwrap_or(0) as u8;
            }
        }
    }
    Ok((blocks, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rigid(b: u32) -> VertexWeights {
        VertexWeights {
            bones: [b, 0, 0, 0],
            weights: [1.0, 0.0, 0.0, 0.0],
        }
    }

    #[test]
    fn blocks_hold_at_most_sixteen_bones() {
        // 20 triangles, each rigidly bound to its own bone.
        let weights: Vec<VertexWeights> = (0..60).map(|v| rigid(v / 3)).collect();
        let faces: Vec<[u32; 3]> = (0..20).map(|f| [3 * f, 3 * f + 1, 3 * f + 2]).collect();
        let (blocks, skin) = build_blocks(&faces, &weights).expect("blocks");
        assert_eq!(blocks.len(), 2);
        assert!(blocks.iter().all(|b| b.len() <= MAX_MODEL_MATRIX));
        for (f, s) in faces.iter().zip(&skin) {
            let bone = blocks[s.block][s.palette[0][0] as usize];
            assert_eq!(bone, f[0] / 3);
        }
    }
}
