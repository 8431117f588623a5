//! The Skin modifier (bonesdef): bones, per-vertex weights and the bind poses
//! Skin stored when each bone was added, read from the modifier object and its
//! per-node local data (the ModApp of the derived object).
//!
//! Layouts (measured on Max 2017+ files; no public decoder exists):
//! - modifier object: 0x0020 = u32 bone count; per bone, in bone order, a
//!   0x0025 container (0x03E8 = inverse initial node TM, 48 bytes) and a 0x0480
//!   container (0x03E8 = initial node TM); 0x0030 = one record per bone:
//!   u32 n cross-sections, n × (f32 u, u32 inner ref, u32 outer ref), u16 flags,
//!   u32 bone node reference slot, u32 two envelope end-point reference slots.
//! - ModApp 0x2512: 0x0010 container (0x03E8 = the mesh's initial TM),
//!   0x0040 = u32 vertex count, 0x0490 = per vertex u32 n, u32 flags, then
//!   n × (u32 bone, f32 weight, 9 words of envelope-curve data).

use crate::chunk::Chunk;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::transform::SceneEval;

/// The Skin modifier (SKIN_CLASSID in the NeL exporter: 9815843, 87654).
pub const SKIN: ClassId = ClassId(0x0095_c723, 0x0001_5666);
/// Character Studio Physique (sc 0x810); its layout is not decoded here.
pub const PHYSIQUE: ClassId = ClassId(0x100, 0);
/// OSM superclass: Physique's class id alone also matches other classes.
const OSM_SUPER: u32 = 0x810;

/// Size of one influence record in 0x0490.
const INFLUENCE_SIZE: usize = 44;
/// The modifier stacks followed before giving up on damaged data.
const MAX_STACK: usize = 64;

/// One bone of a Skin, in the modifier's bone order (vertex data index into it).
#[derive(Debug, Clone, PartialEq)]
pub struct SkinBone {
    /// The bone node, when its reference is set (removed bones leave holes).
    pub node: Option<usize>,
    /// The bone's node TM when it was added to the Skin (ISkin::GetBoneInitTM).
    pub init_tm: Option<Mat43>,
}

/// The decoded Skin of one node.
#[derive(Debug, Clone, PartialEq)]
pub struct Skin {
    /// Object index of the Skin modifier.
    pub modifier: usize,
    pub bones: Vec<SkinBone>,
    /// The mesh's node TM when it was skinned (ISkin::GetSkinInitTM).
    pub mesh_init_tm: Option<Mat43>,
    /// Per vertex of the object below the modifier: (index into `bones`, weight),
    /// in stored order, weights as stored (Skin keeps them normalised).
    pub vertices: Vec<Vec<(u32, f32)>>,
}

/// A modifier applied to a node: the modifier object and its ModApp chunk
/// (0x2500 in the derived object), whose 0x2512 child holds the local data.
#[derive(Debug, Clone, Copy)]
pub struct ModifierUse<'a> {
    pub modifier: usize,
    pub mod_app: Option<&'a Chunk>,
}

/// The modifiers of a node from the top of the stack down, across nested
/// derived objects (WSM over OSM).
pub fn modifiers(eval: &SceneEval, node: usize) -> Vec<ModifierUse<'_>> {
    let graph: &crate::graph::SceneGraph = &eval.graph;
    let mut out = Vec::new();
    let Some(mut cur) = graph
        .objects
        .get(node)
        .and_then(|o| o.references.iter().find(|r| r.slot == 1))
        .and_then(|r| usize::try_from(r.target).ok())
    else {
        return out;
    };
    for _ in 0..MAX_STACK {
        let Some(o) = graph.objects.get(cur) else {
            break;
        };
        if !matches!(
            o.chunk_id,
            crate::typed::schema::DERIVED_OSM | crate::typed::schema::DERIVED_WSM
        ) {
            break;
        }
        let mut refs: Vec<(u32, usize)> = o
            .references
            .iter()
            .filter_map(|r| usize::try_from(r.target).ok().map(|t| (r.slot, t)))
            .collect();
        refs.sort_unstable();
        let Some(&(_, base)) = refs.last() else {
            break;
        };
        let apps: Vec<&Chunk> = eval.chunks(cur).iter().filter(|c| c.id == 0x2500).collect();
        // Modifiers are every reference but the last (the object below).
        let mods = &refs[..refs.len() - 1];
        for (i, &(_, m)) in mods.iter().enumerate() {
            out.push(ModifierUse {
                modifier: m,
                mod_app: apps.get(i).copied(),
            });
        }
        cur = base;
    }
    out
}

fn class_of(eval: &SceneEval, idx: usize) -> Option<(ClassId, u32)> {
    let c = eval.graph.objects.get(idx)?.class.as_ref()?;
    Some((c.class_id, c.super_class))
}

/// The Physique modifier (object index) on the node, if any, so callers
/// can say what is not evaluated.
pub fn physique_modifier(eval: &SceneEval, node: usize) -> Option<usize> {
    modifiers(eval, node)
        .into_iter()
        .map(|m| m.modifier)
        .find(|&m| class_of(eval, m) == Some((PHYSIQUE, OSM_SUPER)))
}

/// The Skin of a node: None when its stack holds no Skin modifier, an error
/// when the Skin data cannot be read.
pub fn node_skin(eval: &SceneEval, node: usize) -> Option<Result<Skin, EvalError>> {
    let m = modifiers(eval, node)
        .into_iter()
        .find(|m| class_of(eval, m.modifier).map(|c| c.0) == Some(SKIN))?;
    Some(decode(eval, m))
}

/// Decodes Skin modifier `modifier` with its ModApp container (the stack
/// walk of the evaluator already pairs them).
pub fn decode_modifier(
    eval: &SceneEval,
    modifier: usize,
    mod_app: Option<&Chunk>,
) -> Result<Skin, EvalError> {
    decode(eval, ModifierUse { modifier, mod_app })
}

fn leaf(chunks: &[Chunk], id: u16) -> Option<&[u8]> {
    chunks.iter().find(|c| c.id == id).and_then(Chunk::payload)
}

fn u32_at(p: &[u8], at: usize) -> Option<u32> {
    let b = p.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn f32_at(p: &[u8], at: usize) -> Option<f32> {
    u32_at(p, at).map(f32::from_bits)
}

/// A Matrix3 as stored: 4 rows of 3 f32 (row vectors, translation last).
pub fn matrix3(p: &[u8]) -> Option<Mat43> {
    if p.len() != 48 {
        return None;
    }
    let f = |i: usize| f64::from(f32_at(p, i * 4).unwrap_or(0.0));
    let row = |r: usize| Vec3(f(r * 3), f(r * 3 + 1), f(r * 3 + 2));
    Some(Mat43([row(0), row(1), row(2), row(3)]))
}

/// The 0x03E8 matrix inside a matrix container chunk.
fn matrix_in(c: &Chunk) -> Option<Mat43> {
    leaf(c.children(), 0x03E8).and_then(matrix3)
}

fn decode(eval: &SceneEval, m: ModifierUse) -> Result<Skin, EvalError> {
    let chunks = eval.chunks(m.modifier);
    let obj = eval
        .graph
        .objects
        .get(m.modifier)
        .ok_or_else(|| EvalError::malformed("", "Skin modifier index out of range"))?;
    let count = leaf(chunks, 0x0020)
        .and_then(|p| (p.len() == 4).then(|| u32_at(p, 0)).flatten())
        .ok_or_else(|| EvalError::malformed("Skin", "no bone count (0x0020)"))?
        as usize;
    let records = leaf(chunks, 0x0030).unwrap_or(&[]);
    let slots = bone_slots(records, count)?;
    let init: Vec<Option<Mat43>> = chunks
        .iter()
        .filter(|c| c.id == 0x0480)
        .map(matrix_in)
        .collect();
    let bones = slots
        .iter()
        .enumerate()
        .map(|(i, &slot)| SkinBone {
            node: obj
                .references
                .iter()
                .find(|r| r.slot == slot)
                .and_then(|r| usize::try_from(r.target).ok())
                .filter(|&t| eval.graph.objects.get(t).is_some_and(|o| o.node.is_some())),
            init_tm: init.get(i).copied().flatten(),
        })
        .collect();
    let app = m
        .mod_app
        .ok_or_else(|| EvalError::malformed("Skin", "no ModApp for this node"))?;
    let local = app
        .children()
        .iter()
        .find(|c| c.id == 0x2512)
        .ok_or_else(|| EvalError::malformed("Skin", "ModApp has no local data (0x2512)"))?
        .children();
    let mesh_init_tm = local.iter().find(|c| c.id == 0x0010).and_then(matrix_in);
    let nverts = leaf(local, 0x0040)
        .and_then(|p| (p.len() == 4).then(|| u32_at(p, 0)).flatten())
        .ok_or_else(|| EvalError::malformed("Skin", "no vertex count (0x0040)"))?
        as usize;
    let data = leaf(local, 0x0490).unwrap_or(&[]);
    let vertices = vertex_weights(data, nverts, count)?;
    Ok(Skin {
        modifier: m.modifier,
        bones,
        mesh_init_tm,
        vertices,
    })
}

/// The bone node reference slot of each 0x0030 bone record.
fn bone_slots(p: &[u8], count: usize) -> Result<Vec<u32>, EvalError> {
    let mut at = 0usize;
    let mut out = Vec::with_capacity(count.min(p.len() / 18 + 1));
    for i in 0..count {
        let bad = || {
            EvalError::malformed(
                "Skin",
                format!(
                    "bone record {i} of {count} runs past 0x0030 ({} bytes)",
                    p.len()
                ),
            )
        };
        let n = u32_at(p, at).ok_or_else(bad)? as usize;
        at = n
            .checked_mul(12)
            .and_then(|k| k.checked_add(at + 4 + 2))
            .filter(|&a| a <= p.len())
            .ok_or_else(bad)?;
        out.push(u32_at(p, at).ok_or_else(bad)?);
        at += 12;
    }
    if at != p.len() {
        return Err(EvalError::malformed(
            "Skin",
            format!(
                "0x0030 holds {} bytes after {count} bone records",
                p.len().saturating_sub(at)
            ),
        ));
    }
    Ok(out)
}

/// Per-vertex influences from 0x0490; every byte must belong to a vertex.
fn vertex_weights(
    p: &[u8],
    nverts: usize,
    nbones: usize,
) -> Result<Vec<Vec<(u32, f32)>>, EvalError> {
    let mut at = 0usize;
    let mut out = Vec::with_capacity(nverts.min(p.len() / 8));
    for v in 0..nverts {
        let bad = || {
            EvalError::malformed(
                "Skin",
                format!(
                    "vertex {v} of {nverts} runs past the weight table ({} bytes)",
                    p.len()
                ),
            )
        };
        let n = u32_at(p, at).ok_or_else(bad)? as usize;
        at += 8;
        let end = n
            .checked_mul(INFLUENCE_SIZE)
            .and_then(|k| k.checked_add(at))
            .filter(|&e| e <= p.len())
            .ok_or_else(bad)?;
        let mut inf = Vec::with_capacity(n);
        while at < end {
            let bone = u32_at(p, at).ok_or_else(bad)?;
            let w = f32_at(p, at + 4).ok_or_else(bad)?;
            if bone as usize >= nbones {
                return Err(EvalError::malformed(
                    "Skin",
                    format!("vertex {v} uses bone {bone} of {nbones}"),
                ));
            }
            inf.push((bone, w));
            at += INFLUENCE_SIZE;
        }
        out.push(inf);
    }
    if at != p.len() {
        return Err(EvalError::malformed(
            "Skin",
            format!(
                "{} bytes after {nverts} vertices in the weight table",
                p.len() - at
            ),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn weights_and_bounds() {
        let mut rec = vec![2, 2, 0, 0.5f32.to_bits()];
        rec.extend([0; 9]);
        rec.extend([1, 0.5f32.to_bits()]);
        rec.extend([0; 9]);
        let p = words(&rec);
        let v = vertex_weights(&p, 1, 2).expect("decodes");
        assert_eq!(v, vec![vec![(0, 0.5), (1, 0.5)]]);
        assert!(vertex_weights(&p, 1, 1).is_err(), "bone out of range");
        assert!(vertex_weights(&p[..p.len() - 4], 1, 2).is_err(), "short");
        assert!(vertex_weights(&p, 2, 2).is_err(), "missing vertex");
        let huge = words(&[u32::MAX, 0]);
        assert!(vertex_weights(&huge, 1, 2).is_err());
    }

    #[test]
    fn bone_records() {
        let mut p = words(&[1, 0, 13, 14]);
        p.extend([2, 0]);
        p.extend(words(&[10, 11, 12]));
        assert_eq!(bone_slots(&p, 1).expect("one bone"), vec![10]);
        assert!(bone_slots(&p, 2).is_err());
        assert!(bone_slots(&words(&[u32::MAX]), 1).is_err());
    }
}
