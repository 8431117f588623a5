//! `CMeshGeom::build`: corners that agree on vertex, normal, UVs and colour
//! share one vertex-buffer entry (numbered in face order), faces go to one
//! render pass per material in material order, empty passes are dropped and
//! each pass is reordered by NeL's vertex-cache stripifier.

use crate::error::{ExportError, ExportResult};
use std::collections::HashMap;

use super::mesh_build::{Corner, MeshBuild};
use super::skin_build;
use super::stripify;
use super::vertex_format as vf;
use super::Era;
use crate::nel::shape::mesh::{MatrixBlock, MeshGeom, MeshMorpher, RdrPass};
use crate::nel::shape::vertex_buffer::{
    Channel, ChannelData, IndexBuffer, VbSubset, VertexBuffer, VALUE_NAMES,
};
use crate::nel::stream::{AaBox, Bool, Ptr, F32};

/// The fields of a corner that decide vertex sharing (`CCornerTmp::operator<`),
/// with −0 folded onto +0 as float comparison does.
#[derive(PartialEq, Eq, Hash)]
struct CornerKey {
    vertex: u32,
    normal: [u32; 3],
    uvs: Vec<[u32; 2]>,
    color: Option<[u8; 4]>,
    skin: Option<([u8; 4], [u32; 4])>,
}

fn bits(x: f32) -> u32 {
    if x == 0.0 {
        0
    } else {
        x.to_bits()
    }
}

fn key(c: &Corner, flags: u16, skin: Option<([u8; 4], [f32; 4])>) -> CornerKey {
    CornerKey {
        skin: skin.map(|(p, w)| (p, w.map(bits))),
        vertex: c.vertex,
        normal: if flags & vf::NORMAL != 0 {
            c.normal.map(bits)
        } else {
            [0; 3]
        },
        uvs: (0..vf::MAX_STAGES)
            .filter(|i| flags & (vf::TEX_COORD0 << i) != 0)
            .map(|i| c.uvs[i].map(bits))
            .collect(),
        color: (flags & vf::PRIMARY_COLOR != 0)
            .then_some([c.color.r, c.color.g, c.color.b, c.color.a]),
    }
}

/// `CAABBox` grown one point at a time, in f32, as `makeBBox` does.
pub fn bbox(points: &[[f32; 3]]) -> AaBox {
    let mut center = points.first().copied().unwrap_or([0.0; 3]);
    let mut half = [0.0f32; 3];
    for p in points {
        let mut lo: [f32; 3] = std::array::from_fn(|i| center[i] - half[i]);
        let mut hi: [f32; 3] = std::array::from_fn(|i| center[i] + half[i]);
        for i in 0..3 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
        center = std::array::from_fn(|i| (lo[i] + hi[i]) / 2.0);
        half = std::array::from_fn(|i| (hi[i] - lo[i]) / 2.0);
    }
    AaBox {
        version: 0,
        center: center.into(),
        half_size: half.into(),
    }
}

/// The built geometry and which materials its passes use.
pub struct BuiltGeom {
    pub geom: MeshGeom,
    /// Per material: whether a render pass uses it.
    pub used: Vec<bool>,
    /// Per face, the vertex-buffer vertex of each corner (`CMesh::VertLink`).
    pub corner_vb: Vec<[u32; 3]>,
}

/// Builds the geometry for `num_materials` materials; skinned when the mesh
/// build carries skin weights (`buildSkin`: matrix blocks, palette, weights).
pub fn build(m: &MeshBuild, num_materials: usize, era: Era) -> ExportResult<BuiltGeom> {
    let skinned = m.skin.is_some();
    let mut flags = m.vertex_flags | vf::POSITION;
    if skinned {
        flags |= vf::WEIGHT | vf::PALETTE_SKIN;
    } else {
        flags &= !(vf::WEIGHT | vf::PALETTE_SKIN);
    }
    // Matrix blocks: one for a rigid mesh, buildSkin's grouping otherwise.
    let (blocks, face_skin) = match &m.skin {
        Some(s) => {
            if s.weights.len() != m.vertices.len() {
                return Err(ExportError::invalid(format!(
                    "invalid skeleton: {} skin weights for {} vertices",
                    s.weights.len(),
                    m.vertices.len()
                )));
            }
            let w: Vec<skin_build::VertexWeights> = s
                .weights
                .iter()
                .map(|v| skin_build::VertexWeights {
                    bones: v.map(|x| x.0),
                    weights: v.map(|x| x.1),
                })
                .collect();
            let tris: Vec<[u32; 3]> = m
                .faces
                .iter()
                .map(|f| {
                    [
                        f.corners[0].vertex,
                        f.corners[1].vertex,
                        f.corners[2].vertex,
                    ]
                })
                .collect();
            let (blocks, fs) = skin_build::build_blocks(&tris, &w)?;
            (blocks, Some(fs))
        }
        None => (vec![Vec::new()], None),
    };
    let mut ids: HashMap<CornerKey, u32> = HashMap::new();
    let mut order: Vec<Skinned> = Vec::new();
    let nmat = num_materials.max(1);
    let mut passes: Vec<Vec<Vec<u32>>> = vec![vec![Vec::new(); nmat]; blocks.len()];
    let mut corner_vb = Vec::with_capacity(m.faces.len());
    for (fi, f) in m.faces.iter().enumerate() {
        let fs = face_skin.as_ref().and_then(|v| v.get(fi));
        let mut tri = [0u32; 3];
        for (k, c) in f.corners.iter().enumerate() {
            let sk = fs.map(|s| (s.palette[k], s.weights[k]));
            let next = order.len() as u32;
            let id = *ids.entry(key(c, flags, sk)).or_insert(next);
            if id == next {
                order.push((c, sk));
            }
            tri[k] = id;
        }
        corner_vb.push(tri);
        let block = fs.map_or(0, |s| s.block);
        if let Some(p) = passes.get_mut(block).and_then(|b| b.get_mut(f.material)) {
            p.extend_from_slice(&tri);
        }
    }
    fits_16_bit_indices(order.len(), "vertex-buffer vertices")?;
    let mut used = vec![false; nmat];
    // Bone ids compacted in order of first use over the blocks.
    let mut bones_name: Vec<String> = Vec::new();
    let mut local: HashMap<u32, u32> = HashMap::new();
    let mut matrix_blocks = Vec::new();
    for (bi, block_passes) in passes.into_iter().enumerate() {
        let rdr_pass: Vec<RdrPass> = block_passes
            .into_iter()
            .enumerate()
            .filter(|(_, p)| !p.is_empty())
            .map(|(i, p)| {
                used[i] = true;
                let idx =
                    stripify::optimize_triangles(&p, stripify::CACHE_SIZE, era == Era::Current);
                RdrPass {
                    version: 0,
                    material_id: i as u32,
                    pblock: index_buffer(idx),
                }
            })
            .collect();
        let mut matrix_id = [0u32; 16];
        let ids_in_block = blocks.get(bi).map(Vec::as_slice).unwrap_or(&[]);
        for (slot, &bone) in ids_in_block.iter().enumerate().take(16) {
            let next = local.len() as u32;
            let l = *local.entry(bone).or_insert(next);
            if l == next {
                let names = m.skin.as_ref().map(|s| s.bones.as_slice()).unwrap_or(&[]);
                bones_name.push(names.get(bone as usize).cloned().unwrap_or_default());
            }
            matrix_id[slot] = l;
        }
        matrix_blocks.push(MatrixBlock {
            version: 0,
            matrix_id,
            num_matrix: ids_in_block.len().min(16) as u32,
            rdr_pass,
        });
    }
    let vbuffer = vertex_buffer(m, flags, &order, skinned);
    let empty = m.vertices.is_empty() || m.faces.is_empty();
    Ok(BuiltGeom {
        geom: MeshGeom {
            version: 4,
            bones_name: Some(bones_name),
            vertex_program: Some(Ptr::Null),
            morpher: Some(MeshMorpher {
                version: 0,
                blend_shapes: Vec::new(),
            }),
            vbuffer,
            matrix_blocks: if empty { Vec::new() } else { matrix_blocks },
            bbox: if empty { bbox(&[]) } else { bbox(&m.vertices) },
            skinned: Bool(skinned as u8),
        },
        used,
        corner_vb,
    })
}

/// NeL's engine is built with `NL_FORCE_INDEX_BUFFER_16` (index_buffer.h):
/// the render passes of CMesh, CMeshMRM and CMeshMRMSkinned load into 16-bit
/// index buffers, and `CIndexBuffer::restoreFromSerialVector` asserts every
/// stored index fits (≤ 0xffff). A geometry of more vertices than that
/// cannot be loaded, so it is refused by name rather than written.
pub(super) fn fits_16_bit_indices(vertices: usize, what: &str) -> ExportResult<()> {
    if vertices > usize::from(u16::MAX) + 1 {
        return Err(ExportError::invalid(format!(
            "{vertices} {what} do not fit NeL's 16-bit mesh indices (at most 65,536)"
        )));
    }
    Ok(())
}

pub(super) fn index_buffer(indexes: Vec<u32>) -> IndexBuffer {
    let n = indexes.len() as u32;
    IndexBuffer {
        version: 2,
        old_lists: Vec::new(),
        num_indexes: n,
        capacity: n,
        indexes,
        preferred_memory: 0,
        v1_flags: Vec::new(),
    }
}

/// A corner with its matrix palette and weights when skinned.
type Skinned<'a> = (&'a Corner, Option<([u8; 4], [f32; 4])>);

fn vertex_buffer(m: &MeshBuild, flags: u16, order: &[Skinned], skinned: bool) -> VertexBuffer {
    let n = order.len();
    let mut channels = Vec::new();
    let f = |x: f32| F32::from_f32(x);
    let pos = |c: &Corner| {
        m.vertices
            .get(c.vertex as usize)
            .copied()
            .unwrap_or([0.0; 3])
    };
    for (slot, &value) in VALUE_NAMES.iter().enumerate() {
        if flags & (1 << slot) == 0 {
            continue;
        }
        let (components, data) = match slot {
            0 => (
                3,
                ChannelData::Float(order.iter().flat_map(|(c, _)| pos(c).map(f)).collect()),
            ),
            1 => (
                3,
                ChannelData::Float(order.iter().flat_map(|(c, _)| c.normal.map(f)).collect()),
            ),
            2..=9 => (
                2,
                ChannelData::Float(
                    order
                        .iter()
                        .flat_map(|(c, _)| c.uvs[slot - 2].map(f))
                        .collect(),
                ),
            ),
            10 => (
                4,
                ChannelData::Bytes(
                    order
                        .iter()
                        .flat_map(|(c, _)| [c.color.r, c.color.g, c.color.b, c.color.a])
                        .collect(),
                ),
            ),
            12 => (
                4,
                ChannelData::Float(
                    order
                        .iter()
                        .flat_map(|(_, s)| s.map_or([0.0; 4], |s| s.1).map(f))
                        .collect(),
                ),
            ),
            13 => (
                4,
                ChannelData::Bytes(
                    order
                        .iter()
                        .flat_map(|(_, s)| s.map_or([0; 4], |s| s.0))
                        .collect(),
                ),
            ),
            _ => continue,
        };
        channels.push(Channel {
            value,
            components,
            data,
        });
    }
    VertexBuffer {
        version: 2,
        header: vf::header(
            flags,
            n as u32,
            // Skinned vertices are rewritten by the CPU: RAM, not static.
            if skinned {
                vf::RAM_PREFERRED
            } else {
                vf::STATIC_PREFERRED
            },
        ),
        vertices: VbSubset {
            version: 2,
            count: n,
            channels,
            uv_routing: Some(m.uv_routing),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nel::export::shape::mesh_build::{BuildFace, Corner};
    use crate::nel::stream::Rgba;

    /// `tris` triangles, each with three vertices of its own, so every
    /// corner is a vertex-buffer vertex.
    fn separate_triangles(tris: usize) -> MeshBuild {
        let corner = |vertex: u32| Corner {
            vertex,
            normal: [0.0, 0.0, 1.0],
            uvs: [[0.0; 2]; vf::MAX_STAGES],
            color: Rgba {
                r: 255,
                g: 255,
                b: 255,
                a: 255,
            },
        };
        MeshBuild {
            vertex_flags: vf::POSITION | vf::NORMAL,
            uv_routing: [0, 1, 2, 3, 4, 5, 6, 7],
            vertices: (0..tris * 3).map(|i| [i as f32, 0.0, 0.0]).collect(),
            faces: (0..tris as u32)
                .map(|t| BuildFace {
                    material: 0,
                    corners: [corner(3 * t), corner(3 * t + 1), corner(3 * t + 2)],
                })
                .collect(),
            skin: None,
        }
    }

    /// 65,536 vertex-buffer vertices still fit 16-bit indices; 65,538 (one
    /// triangle more) do not and are refused by name.
    #[test]
    fn a_mesh_over_16_bit_indices_is_refused() {
        let fits = build(&separate_triangles(21_845), 1, Era::Current).expect("65,535 fit");
        assert_eq!(fits.corner_vb.len(), 21_845);
        let err = build(&separate_triangles(21_846), 1, Era::Current)
            .err()
            .expect("65,538 vertices refused");
        assert!(
            err.to_string().contains("65538 vertex-buffer vertices"),
            "{err}"
        );
    }
}
