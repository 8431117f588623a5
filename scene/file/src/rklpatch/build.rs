//! Builds an RklPatch model from per-patch geometry, the way Max's PatchMesh
//! shares it: one vertex per corner id, one edge per unordered corner pair
//! (its two handles shared by the patches on it, the first patch's positions
//! kept), four interior vectors per patch. Used to write synthetic sources.

use std::collections::HashMap;

use super::patch_mesh::{PatchEdge, PatchVec, PatchVert, PATCH_QUAD};
use super::rpo::{RPatchMesh, RpoBlob, UiPatch, VertexBind, RPO_VERSION};
use super::{Patch, RklPatch};

/// One quad patch to add: corner ids (shared between patches), positions in
/// Max's order (tangent 2i next to corner i on edge i, 2i+1 next to corner i+1).
#[derive(Debug, Clone)]
pub struct QuadInput {
    pub corners: [u32; 4],
    pub vertices: [[f32; 3]; 4],
    pub tangents: [[f32; 3]; 8],
    pub interiors: [[f32; 3]; 4],
    pub ui: UiPatch,
}

/// The unbound record `RPatchMesh` keeps for a vertex without a bind.
pub fn unbound() -> VertexBind {
    VertexBind {
        binded: 0,
        bind_type: 0,
        edge: 0,
        patch: 0,
        before: 0,
        before2: 0,
        after: 0,
        after2: 0,
        t: 0,
        bind_type2: 0,
        prim_vert: 0,
    }
}

fn bits(p: [f32; 3]) -> [u32; 3] {
    p.map(f32::to_bits)
}

/// `binds` gives the bind record of some corner ids; every other vertex is unbound.
pub fn build_quads(quads: &[QuadInput], binds: &HashMap<u32, VertexBind>) -> RklPatch {
    let nverts = quads
        .iter()
        .flat_map(|q| q.corners)
        .chain(binds.keys().copied())
        .map(|c| c as usize + 1)
        .max()
        .unwrap_or(0);
    let mut verts = vec![
        PatchVert {
            p: [0; 3],
            flags: 0
        };
        nverts
    ];
    let mut vecs: Vec<PatchVec> = Vec::new();
    let mut edges: Vec<PatchEdge> = Vec::new();
    let mut edge_of: HashMap<(u32, u32), usize> = HashMap::new();
    let mut patches = Vec::with_capacity(quads.len());
    for (pi, q) in quads.iter().enumerate() {
        for (c, p) in q.corners.iter().zip(q.vertices) {
            verts[*c as usize].p = bits(p);
        }
        let mut vec = [0i32; 8];
        let mut edge = [0i32; 4];
        for i in 0..4 {
            let (a, b) = (q.corners[i], q.corners[(i + 1) % 4]);
            let key = (a.min(b), a.max(b));
            let e = *edge_of.entry(key).or_insert_with(|| {
                let first = vecs.len() as i32;
                vecs.push(PatchVec {
                    p: bits(q.tangents[2 * i]),
                    vert: a as i32,
                    flags: 0,
                });
                vecs.push(PatchVec {
                    p: bits(q.tangents[2 * i + 1]),
                    vert: b as i32,
                    flags: 0,
                });
                edges.push(PatchEdge {
                    v1: a as i32,
                    vec12: first,
                    vec21: first + 1,
                    v2: b as i32,
                    patches: Vec::new(),
                });
                edges.len() - 1
            });
            let ed = &mut edges[e];
            ed.patches.push(pi as i32);
            edge[i] = e as i32;
            if ed.v1 == a as i32 {
                vec[2 * i] = ed.vec12;
                vec[2 * i + 1] = ed.vec21;
            } else {
                vec[2 * i] = ed.vec21;
                vec[2 * i + 1] = ed.vec12;
            }
        }
        let mut interior = [0i32; 4];
        for (i, p) in q.interiors.iter().enumerate() {
            interior[i] = vecs.len() as i32;
            vecs.push(PatchVec {
                p: bits(*p),
                vert: -1,
                flags: 0,
            });
        }
        patches.push(Patch {
            kind: PATCH_QUAD,
            v: q.corners.map(|c| c as i32),
            vec,
            interior,
            edge,
            smooth: 1,
            flags: 0,
        });
    }
    let vertices = (0..nverts as u32)
        .map(|i| binds.get(&i).copied().unwrap_or_else(unbound))
        .collect();
    RklPatch {
        rpo: RpoBlob {
            rpo_version: RPO_VERSION,
            mesh: RPatchMesh {
                version: 9,
                patches: quads.iter().map(|q| q.ui.clone()).collect(),
                vertices,
                tile_tessel_level: 0,
                mode_tile: 1,
                keep_mapping: 0,
                transition_type: None,
                sel_level: 0,
            },
        },
        verts,
        vecs,
        edges,
        patches,
    }
}
