//! The RklPatch object (NeL patch mesh, class (0x368c679f, 0x711c22ee), sc 0x10)
//! and the NeL Edit Patch vertex mapper: typed in the chunk tree (see
//! `typed::schema`), assembled here into one checked model, and written back.
//!
//! `RPO::Save` writes the RPO blob (0x08FD, `rpo`) and then the flat PatchMesh
//! chunks (`patch_mesh`); the Mesh cache chunks that follow stay raw.

pub mod build;
pub mod mod_data;
pub mod patch_mesh;
pub mod rpo;
pub mod vert_mapper;

use serde::Serialize;

use crate::chunk::Chunk;
use crate::typed::{ClassId, TNode, TValue};

pub use mod_data::{PatchModData, PatchModKind, EPD_HASDATA, NEL_PAINT_CLASS};
pub use patch_mesh::{PatchEdge, PatchVec, PatchVert, PATCH_QUAD, PATCH_TRI};
pub use rpo::{RPatchMesh, RpoBlob, TileDesc, TileLayer, Tiles, UiPatch, VertexBind};
pub use vert_mapper::{MapVert, VertMapper};

/// RYKOLPATCHOBJ_CLASS_ID (nel_patch_lib/rpo.h l.37).
pub const RKLPATCH_CLASS: ClassId = ClassId(0x368c_679f, 0x711c_22ee);
/// The NeL Edit Patch modifier (seed S003 l.310; nel_patch_edit/editpat.h l.940).
pub const NEL_EDIT_PATCH_CLASS: ClassId = ClassId(0x4dd1_4a3c, 0x4ac2_3c0c);
/// RPO::Save's VALIDITY_CHUNK (2301).
pub const CHUNK_RPO: u16 = 0x08FD;

/// Why an RklPatch object cannot be read as a patch mesh.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RklPatchError {
    #[error("chunk {id:#06x} ({what}) missing")]
    Missing { id: u16, what: &'static str },
    #[error("chunk {id:#06x} ({what}) kept raw: its payload does not decode (see the typed-layer warning)")]
    Undecoded { id: u16, what: &'static str },
    #[error("{what}: count chunk says {count}, the data holds {actual}")]
    CountMismatch {
        what: &'static str,
        count: u32,
        actual: usize,
    },
    #[error("patch {patch}: {what} index {index} out of range (0..{len})")]
    BadIndex {
        patch: usize,
        what: &'static str,
        index: i32,
        len: usize,
    },
    #[error("patch {patch}: type {kind}, expected 3 (tri) or 4 (quad)")]
    BadType { patch: usize, kind: u32 },
    #[error("map record {record} is past the input's {points} points (Max zeroes it)")]
    MapPastInput { record: usize, points: usize },
    #[error("map record {record} targets point {target} of the output's {points} (Max warns and grows the output)")]
    MapTarget {
        record: usize,
        target: i32,
        points: usize,
    },
    #[error("{what}: {source}")]
    Read {
        what: &'static str,
        #[source]
        source: crate::reader::ReadError,
    },
    #[error("old-style change data {name} ({id:#06x}): Max replays it (PModRecord::Redo), which is not done here")]
    OldRecord { id: u16, name: &'static str },
    #[error("the RPO data describes {rpo} {what}, the PatchMesh {mesh}")]
    RpoMismatch {
        what: &'static str,
        rpo: usize,
        mesh: usize,
    },
}

/// One patch of the flat PatchMesh (0x0BF4 container).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Patch {
    /// 3 = triangle, 4 = quad.
    pub kind: u32,
    pub v: [i32; 4],
    /// Edge handles: `vec[2i]` is edge i's handle next to corner i, `vec[2i+1]`
    /// the one next to corner i+1 (Max's order, and NeL CPatch::Tangents').
    pub vec: [i32; 8],
    pub interior: [i32; 4],
    pub edge: [i32; 4],
    pub smooth: u32,
    pub flags: u32,
}

impl Patch {
    pub fn corners(&self) -> usize {
        if self.kind == PATCH_TRI {
            3
        } else {
            4
        }
    }
}

/// The decoded, index-checked RklPatch object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RklPatch {
    pub rpo: RpoBlob,
    pub verts: Vec<PatchVert>,
    pub vecs: Vec<PatchVec>,
    pub edges: Vec<PatchEdge>,
    pub patches: Vec<Patch>,
}

fn value<'a>(nodes: &'a [TNode], id: u16, what: &'static str) -> Result<&'a TValue, RklPatchError> {
    let n = nodes
        .iter()
        .find(|n| n.id() == id)
        .ok_or(RklPatchError::Missing { id, what })?;
    n.value().ok_or(RklPatchError::Undecoded { id, what })
}

fn count(nodes: &[TNode], id: u16, what: &'static str) -> Result<u32, RklPatchError> {
    match value(nodes, id, what)? {
        TValue::U32(v) => Ok(*v),
        _ => Err(RklPatchError::Undecoded { id, what }),
    }
}

fn i32s<const N: usize>(
    nodes: &[TNode],
    id: u16,
    what: &'static str,
) -> Result<[i32; N], RklPatchError> {
    match value(nodes, id, what)? {
        TValue::I32s(v) => v
            .as_slice()
            .try_into()
            .map_err(|_| RklPatchError::Undecoded { id, what }),
        _ => Err(RklPatchError::Undecoded { id, what }),
    }
}

impl RklPatch {
    /// Reads the model off the typed children of the object chunk.
    pub fn from_object(children: &[TNode]) -> Result<RklPatch, RklPatchError> {
        let rpo = match value(children, CHUNK_RPO, "RPO blob")? {
            TValue::Rpo(b) => (**b).clone(),
            _ => {
                return Err(RklPatchError::Undecoded {
                    id: CHUNK_RPO,
                    what: "RPO blob",
                })
            }
        };
        RklPatch::from_patch_mesh(rpo, children)
    }

    /// The model from `rpo` and the typed chunks `PatchMesh::Save` writes
    /// (the object's own, or those of a modifier's FINALPATCH): counts,
    /// vertices, vectors, edges, patches; checked.
    pub fn from_patch_mesh(rpo: RpoBlob, children: &[TNode]) -> Result<RklPatch, RklPatchError> {
        use patch_mesh::*;
        let verts = match value(children, CHUNK_VERTS, "patch vertices")? {
            TValue::PatchVerts(v) => v.clone(),
            _ => {
                return Err(RklPatchError::Undecoded {
                    id: CHUNK_VERTS,
                    what: "patch vertices",
                })
            }
        };
        let vecs = match value(children, CHUNK_VECS, "patch vectors")? {
            TValue::PatchVecs(v) => v.clone(),
            _ => {
                return Err(RklPatchError::Undecoded {
                    id: CHUNK_VECS,
                    what: "patch vectors",
                })
            }
        };
        let edges = match value(children, CHUNK_EDGES, "patch edges")? {
            TValue::PatchEdges(v) => v.clone(),
            _ => {
                return Err(RklPatchError::Undecoded {
                    id: CHUNK_EDGES,
                    what: "patch edges",
                })
            }
        };
        let mut patches = Vec::new();
        for n in children.iter().filter(|n| n.id() == CHUNK_PATCH) {
            let c = n.children();
            if !matches!(n, TNode::Container { .. }) {
                return Err(RklPatchError::Undecoded {
                    id: CHUNK_PATCH,
                    what: "patch",
                });
            }
            patches.push(Patch {
                kind: count(c, PATCH_TYPE, "patch type")?,
                v: i32s(c, PATCH_VERTS, "patch vertices")?,
                vec: i32s(c, PATCH_VECS, "patch vectors")?,
                interior: i32s(c, PATCH_INTERIORS, "patch interiors")?,
                edge: i32s(c, PATCH_EDGES, "patch edges")?,
                smooth: count(c, PATCH_SMOOTH, "patch smoothing group")?,
                flags: count(c, PATCH_FLAGS, "patch flags")?,
            });
        }
        for (id, what, len) in [
            (CHUNK_VERT_COUNT, "vertex count", verts.len()),
            (CHUNK_VEC_COUNT, "vector count", vecs.len()),
            (CHUNK_EDGE_COUNT, "edge count", edges.len()),
            (CHUNK_PATCH_COUNT, "patch count", patches.len()),
        ] {
            let c = count(children, id, what)?;
            if c as usize != len {
                return Err(RklPatchError::CountMismatch {
                    what,
                    count: c,
                    actual: len,
                });
            }
        }
        let me = RklPatch {
            rpo,
            verts,
            vecs,
            edges,
            patches,
        };
        me.check()?;
        Ok(me)
    }

    /// Every index a patch or edge holds is in range, and the RPO data has one
    /// record per patch and per vertex (what `RPatchMesh::exportZone` assumes).
    pub fn check(&self) -> Result<(), RklPatchError> {
        for (i, p) in self.patches.iter().enumerate() {
            if p.kind != PATCH_TRI && p.kind != PATCH_QUAD {
                return Err(RklPatchError::BadType {
                    patch: i,
                    kind: p.kind,
                });
            }
            let n = p.corners();
            let groups: [(&'static str, &[i32], usize); 4] = [
                ("vertex", &p.v[..n], self.verts.len()),
                ("vector", &p.vec[..2 * n], self.vecs.len()),
                ("interior", &p.interior[..n], self.vecs.len()),
                ("edge", &p.edge[..n], self.edges.len()),
            ];
            for (what, idx, len) in groups {
                if let Some(&bad) = idx.iter().find(|&&x| x < 0 || x as usize >= len) {
                    return Err(RklPatchError::BadIndex {
                        patch: i,
                        what,
                        index: bad,
                        len,
                    });
                }
            }
        }
        for e in &self.edges {
            for x in [e.v1, e.v2] {
                if x < 0 || x as usize >= self.verts.len() {
                    return Err(RklPatchError::BadIndex {
                        patch: usize::MAX,
                        what: "edge vertex",
                        index: x,
                        len: self.verts.len(),
                    });
                }
            }
        }
        if self.rpo.mesh.patches.len() != self.patches.len() {
            return Err(RklPatchError::RpoMismatch {
                what: "patches",
                rpo: self.rpo.mesh.patches.len(),
                mesh: self.patches.len(),
            });
        }
        if self.rpo.mesh.vertices.len() != self.verts.len() {
            return Err(RklPatchError::RpoMismatch {
                what: "vertices",
                rpo: self.rpo.mesh.vertices.len(),
                mesh: self.verts.len(),
            });
        }
        Ok(())
    }

    /// The object's chunks in the order `RPO::Save` writes them (RPO blob, then
    /// the PatchMesh: counts, vertices, vectors, edges, patches), as typed nodes.
    pub fn to_nodes(&self) -> Vec<TNode> {
        let mut out = vec![TNode::Value {
            id: CHUNK_RPO,
            wide: false,
            value: TValue::Rpo(Box::new(self.rpo.clone())),
        }];
        out.extend(self.patch_mesh_nodes());
        out
    }

    /// The PatchMesh part alone, as `PatchMesh::Save` writes it (the object's
    /// chunks after the RPO blob, or a modifier's FINALPATCH children).
    pub fn patch_mesh_nodes(&self) -> Vec<TNode> {
        use patch_mesh::*;
        let val = |id, value| TNode::Value {
            id,
            wide: false,
            value,
        };
        let mut out = vec![
            val(CHUNK_VERT_COUNT, TValue::U32(self.verts.len() as u32)),
            val(CHUNK_VEC_COUNT, TValue::U32(self.vecs.len() as u32)),
            val(CHUNK_EDGE_COUNT, TValue::U32(self.edges.len() as u32)),
            val(CHUNK_PATCH_COUNT, TValue::U32(self.patches.len() as u32)),
            val(CHUNK_VERTS, TValue::PatchVerts(self.verts.clone())),
            val(CHUNK_VECS, TValue::PatchVecs(self.vecs.clone())),
            val(CHUNK_EDGES, TValue::PatchEdges(self.edges.clone())),
        ];
        for p in &self.patches {
            out.push(TNode::Container {
                id: CHUNK_PATCH,
                wide: false,
                children: vec![
                    val(PATCH_TYPE, TValue::U32(p.kind)),
                    val(PATCH_VERTS, TValue::I32s(p.v.to_vec())),
                    val(PATCH_VECS, TValue::I32s(p.vec.to_vec())),
                    val(PATCH_INTERIORS, TValue::I32s(p.interior.to_vec())),
                    val(PATCH_EDGES, TValue::I32s(p.edge.to_vec())),
                    val(PATCH_SMOOTH, TValue::U32(p.smooth)),
                    val(PATCH_FLAGS, TValue::U32(p.flags)),
                ],
            });
        }
        out
    }

    /// The same chunks as plain chunks (for writers that build a `.max`).
    pub fn to_chunks(&self) -> Vec<Chunk> {
        self.to_nodes().iter().map(TNode::build).collect()
    }
}

#[cfg(test)]
mod tests;
