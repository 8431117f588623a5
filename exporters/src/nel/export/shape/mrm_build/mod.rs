//! The progressive-mesh builder of NeL's `CMRMBuilder` (mrm_builder.cpp):
//! per-vertex attribute wedges, edge collapses ordered by NeL's cost (edge
//! length times curvature, ×4 across discontinuities), LODs from coarsest
//! to finest, and the final wedge list where each LOD's corners either use a
//! wedge directly or a geomorph slot blending the wedge toward the wedge it
//! becomes in the next coarser LOD.
//!
//! The collapse order follows NeL's: a priority list of (cost, face edge)
//! entries in insertion order for equal costs, the same interpolation choices
//! (open and discontinuous vertices stay put) and the same wedge merging
//! rules. NeL's cost reads the curvature of the wrong faces (it indexes the
//! mesh's first faces instead of the vertex's); that is kept, since it decides
//! the order. Mesh sewing interfaces and blend shapes are not built.

/// `NL3D_MRM_MAX_ATTRIB`: normal, two colours and eight UV sets fit.
pub const MAX_ATTRIB: usize = 12;
/// `NL3D_MESH_SKINNING_MAX_MATRIX`.
pub const MAX_MATRIX: usize = 4;
/// LOD counts above this are refused (NeL's default is 11).
pub const MAX_LODS: u32 = 256;

/// `CMesh::CSkinWeight`: matrix ids and weights, heaviest first once normalized.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SkinWeight {
    pub matrix: [u32; MAX_MATRIX],
    pub weight: [f32; MAX_MATRIX],
}

/// `CMRMParameters::TSkinReduction`: how many matrices a blended weight keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkinReduction {
    Min,
    Max,
    Best,
}

/// `CMRMParameters` (the build part; distances are carried by the caller).
#[derive(Debug, Clone, Copy)]
pub struct Params {
    pub n_lods: u32,
    pub divisor: u32,
    pub skin_reduction: SkinReduction,
}

/// One corner: a vertex and, per attribute, a wedge index into that
/// attribute's value list.
#[derive(Debug, Clone, Copy, Default)]
pub struct Corner {
    pub vertex: u32,
    pub attribs: [u32; MAX_ATTRIB],
}

/// One face with its material.
#[derive(Debug, Clone, Copy, Default)]
pub struct Face {
    pub material: usize,
    pub corners: [Corner; 3],
}

/// `CMRMMesh`: vertices, optional skin weights (one per vertex), and per
/// attribute the wedge values (normals, colours as 0..255, UVWs).
#[derive(Debug, Clone, Default)]
pub struct BaseMesh {
    pub vertices: Vec<[f32; 3]>,
    pub skin: Option<Vec<SkinWeight>>,
    pub num_attribs: usize,
    pub attribs: Vec<Vec<[f32; 4]>>,
    pub faces: Vec<Face>,
}

/// One final wedge: position, attributes and skin weight.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wedge {
    pub pos: [f32; 3],
    pub attribs: [[f32; 4]; MAX_ATTRIB],
    pub skin: SkinWeight,
    /// Matrices with a non-zero weight (0 for geomorph slots).
    pub n_skin_mat_used: usize,
}

/// One LOD of the final mesh: the wedges it needs (`0..n_wedges`), its faces
/// (material, wedge triple) and its geomorphs (slot `i` blends wedge `.0`,
/// this LOD's value, toward `.1`, the coarser LOD's value).
#[derive(Debug, Clone, Default)]
pub struct Lod {
    pub n_wedges: usize,
    pub faces: Vec<(usize, [u32; 3])>,
    pub geomorphs: Vec<(u32, u32)>,
}

/// `CMRMMeshFinal`: the first `n_geom_space` wedges are geomorph slots
/// (filled at run time), then every LOD's wedges, coarsest LOD first.
#[derive(Debug, Clone, Default)]
pub struct FinalMesh {
    pub wedges: Vec<Wedge>,
    pub n_geom_space: usize,
    pub lods: Vec<Lod>,
    pub skinned: bool,
}

/// A mesh level with, per face, the corners it takes in the next coarser level.
struct LevelMesh {
    mesh: BaseMesh,
    coarser_faces: Vec<Face>,
}

/// Builds every LOD and the final wedge list (`compileMRM` after the base
/// mesh is made).
pub fn build(base: &BaseMesh, params: &Params) -> ExportResult<FinalMesh> {
    if params.n_lods == 0 || params.n_lods > MAX_LODS {
        return Err(ExportError::invalid(format!(
            "MRM lod count {} is outside 1..={MAX_LODS}",
            params.n_lods
        )));
    }
    if params.divisor == 0 {
        return Err(ExportError::invalid("MRM divisor is 0"));
    }
    check(base)?;
    let mut base = base.clone();
    if let Some(sk) = base.skin.as_mut() {
        for w in sk.iter_mut() {
            *w = normalize_skin(w);
        }
    }
    let levels = all_lods(&base, params);
    Ok(final_mesh(&levels, base.num_attribs, base.skin.is_some()))
}

/// Every index in range, so the collapse never reads outside its arrays.
fn check(m: &BaseMesh) -> ExportResult<()> {
    if m.num_attribs > MAX_ATTRIB || m.attribs.len() < m.num_attribs {
        return Err(ExportError::invalid(format!(
            "{} MRM attributes (at most {MAX_ATTRIB})",
            m.num_attribs
        )));
    }
    if let Some(sk) = &m.skin {
        if sk.len() != m.vertices.len() {
            return Err(ExportError::invalid(format!(
                "{} skin weights for {} vertices",
                sk.len(),
                m.vertices.len()
            )));
        }
    }
    for (i, f) in m.faces.iter().enumerate() {
        for c in &f.corners {
            if c.vertex as usize >= m.vertices.len() {
                return Err(ExportError::invalid(format!(
                    "face {i} uses vertex {} of {}",
                    c.vertex,
                    m.vertices.len()
                )));
            }
            for a in 0..m.num_attribs {
                if c.attribs[a] as usize >= m.attribs[a].len() {
                    return Err(ExportError::invalid(format!(
                        "face {i} uses wedge {} of attribute {a}",
                        c.attribs[a]
                    )));
                }
            }
        }
    }
    Ok(())
}

/// `buildAllLods`: the coarsest LOD keeps faces/divisor (at least 4), the
/// others are spread linearly in face count; each level collapses the
/// previous one.
fn all_lods(base: &BaseMesh, params: &Params) -> Vec<LevelMesh> {
    let n_lods = params.n_lods as i64;
    let n_faces = base.faces.len() as i64;
    let n_base = (n_faces / params.divisor as i64).max(4);
    let mut levels: Vec<Option<LevelMesh>> = (0..n_lods).map(|_| None).collect();
    let mut src = base.clone();
    for i in (1..n_lods).rev() {
        let wanted = (n_base + (n_faces - n_base) * (i - 1) / (n_lods - 1)).max(4);
        let mut b = Builder::new(&src, params.skin_reduction);
        b.collapse_edges(wanted);
        let coarser = b.coarser_mesh();
        let coarser_faces = b.lod_faces(&src.faces);
        levels[i as usize] = Some(LevelMesh {
            mesh: src,
            coarser_faces,
        });
        src = coarser;
    }
    let faces = src.faces.clone();
    levels[0] = Some(LevelMesh {
        mesh: src,
        coarser_faces: faces,
    });
    levels.into_iter().flatten().collect()
}

/// `normalizeSkinWeight`: non-zero weights sorted heaviest first, summing to 1.
fn normalize_skin(sw: &SkinWeight) -> SkinWeight {
    let mut ws: Vec<(u32, f32)> = (0..MAX_MATRIX)
        .filter(|&i| sw.weight[i] > 0.0)
        .map(|i| (sw.matrix[i], sw.weight[i]))
        .collect();
    ws.sort_by(|a, b| b.1.total_cmp(&a.1));
    let sum: f32 = ws.iter().map(|w| w.1).sum();
    let mut out = SkinWeight::default();
    for (i, (m, w)) in ws.into_iter().enumerate() {
        out.matrix[i] = m;
        out.weight[i] = w / sum;
    }
    out
}

mod collapse;
#[cfg(test)]
mod tests;
mod wedges;

use crate::error::{ExportError, ExportResult};
use collapse::Builder;
use wedges::final_mesh;
