//! From stored link references to bones (seed S:837, S:858, S:876).
//!
//! Physique's reference table holds one slot per link-tree position (NULL
//! slots included in the index). A stored reference names LINK k: negative
//! values are the rigid form (k = !stored), others the deformable form
//! (k = stored − 1, so 0 is the root attachment k = −1). Link k is the
//! segment ending at `ref[k+1]`; the vertex deforms by the segment's start,
//! the INode parent of `ref[k+1]`. The root attachment, and a link ending at a
//! NULL slot, deform by the link-tree root: `ref[0]`, else the parent of the
//! first non-NULL ref. A deformable link whose start is a Biped centre of
//! mass deforms by the bone that sub-rig hangs from (the COM is not in the
//! deformable spline); rigid links keep the COM.
//!
//! Weights as the plug-in gives them to the exporter: a one-link record is
//! rigid (weight 1 whatever is stored, S:858); a record without links goes
//! to the skeleton root (ConvertToRigid's root promotion); otherwise the
//! positive weights, the 4 largest kept and divided by their sum.

use super::decode::Link;
use super::PhysiqueError;

/// Influences kept per vertex (NL3D_MESH_SKINNING_MAX_MATRIX).
pub const MAX_INFLUENCES: usize = 4;
/// The deepest hierarchy followed; deeper is a cycle in damaged data.
const MAX_DEPTH: usize = 4096;

/// The link table and the scene relations the rules need.
pub struct Rig<'a> {
    /// The modifier's reference table by slot: the bone node, None for NULL.
    pub refs: &'a [Option<usize>],
    /// The INode parent of a node (None at the top of the scene).
    pub parent: &'a dyn Fn(usize) -> Option<usize>,
    /// Whether a node is a Biped centre of mass.
    pub is_com: &'a dyn Fn(usize) -> bool,
}

impl Rig<'_> {
    /// The link-tree root: `ref[0]`, else the parent of the first non-NULL ref.
    pub fn link_root(&self) -> Result<usize, PhysiqueError> {
        if let Some(Some(r)) = self.refs.first() {
            return Ok(*r);
        }
        let first = self
            .refs
            .iter()
            .flatten()
            .next()
            .ok_or(PhysiqueError::NoBones)?;
        (self.parent)(*first).ok_or(PhysiqueError::NoLinkRoot)
    }

    /// The skeleton root: the top ancestor of the link-tree root.
    pub fn skeleton_root(&self) -> Result<usize, PhysiqueError> {
        let mut cur = self.link_root()?;
        for _ in 0..MAX_DEPTH {
            match (self.parent)(cur) {
                Some(p) if p != cur => cur = p,
                _ => break,
            }
        }
        Ok(cur)
    }

    /// The bone a stored link reference deforms by.
    pub fn bone(&self, link_ref: i32) -> Result<usize, PhysiqueError> {
        let (k, rigid) = if link_ref < 0 {
            (i64::from(!link_ref), true)
        } else {
            (i64::from(link_ref) - 1, false)
        };
        if k < 0 {
            return self.link_root();
        }
        let end = usize::try_from(k + 1)
            .ok()
            .and_then(|i| self.refs.get(i))
            .ok_or(PhysiqueError::LinkOutOfRange {
                link_ref,
                slots: self.refs.len(),
            })?;
        let Some(end) = *end else {
            return self.link_root();
        };
        let start = (self.parent)(end).ok_or(PhysiqueError::NoLinkStart { link_ref })?;
        if !rigid && (self.is_com)(start) {
            if let Some(p) = (self.parent)(start) {
                return Ok(p);
            }
        }
        Ok(start)
    }

    /// The (bone, weight) pairs of one vertex, heaviest first, at most 4,
    /// summing to 1.
    pub fn vertex(
        &self,
        vertex: usize,
        links: &[Link],
    ) -> Result<Vec<(usize, f32)>, PhysiqueError> {
        if let [only] = links {
            return Ok(vec![(self.bone(only.link_ref)?, 1.0)]);
        }
        let mut v = Vec::with_capacity(links.len());
        for l in links {
            if !l.weight.is_finite() {
                return Err(PhysiqueError::BadWeight { vertex });
            }
            if l.weight > 0.0 {
                v.push((self.bone(l.link_ref)?, l.weight));
            }
        }
        if v.is_empty() {
            return Ok(vec![(self.skeleton_root()?, 1.0)]);
        }
        Ok(top_normalised(v))
    }
}

/// The 4 heaviest influences (ties: the later one is kept, as the exporter's
/// multimap erases from its front), divided by their sum, heaviest first.
pub fn top_normalised(mut v: Vec<(usize, f32)>) -> Vec<(usize, f32)> {
    v.sort_by(|a, b| a.1.total_cmp(&b.1));
    let drop = v.len().saturating_sub(MAX_INFLUENCES);
    let kept = &v[drop..];
    let sum: f32 = kept.iter().map(|x| x.1).sum();
    kept.iter().rev().map(|&(b, w)| (b, w / sum)).collect()
}
