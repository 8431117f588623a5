//! `CMeshGeom::build`: corners that agree on vertex, normal, UVs and colour
//! share one vertex-buffer entry (numbered in face order), faces go to one
//! render pass per material in material order, empty passes are dropped and
//! each pass is reordered by NeL's vertex-cache stripifier.

use std::collections::HashMap;

use super::mesh_build::{Corner, MeshBuild};
use super::stripify;
use super::vertex_format as vf;
use super::Era;
use crate::nel::shape::mesh::{MatrixBlock, MeshGeom, MeshMorpher, RdrPass};
use crate::nel::shape::vertex_buffer::{
    Channel, ChannelData, IndexBuffer, VbHeader, VbSubset, VertexBuffer, VALUE_NAMES,
};
use crate::nel::stream::{AaBox, Bool, Ptr, Vec3, F32};

/// The fields of a corner that decide vertex sharing (`CCornerTmp::operator<`),
/// with −0 folded onto +0 as float comparison does.
#[derive(PartialEq, Eq, Hash)]
struct CornerKey {
    vertex: u32,
    normal: [u32; 3],
    uvs: Vec<[u32; 2]>,
    color: Option<[u8; 4]>,
}

fn bits(x: f32) -> u32 {
    if x == 0.0 {
        0
    } else {
        x.to_bits()
    }
}

fn key(c: &Corner, flags: u16) -> CornerKey {
    CornerKey {
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
    let v = |a: [f32; 3]| Vec3 {
        x: F32::from_f32(a[0]),
        y: F32::from_f32(a[1]),
        z: F32::from_f32(a[2]),
    };
    AaBox {
        version: 0,
        center: v(center),
        half_size: v(half),
    }
}

/// The built geometry and which materials its passes use.
pub struct BuiltGeom {
    pub geom: MeshGeom,
    /// Per material: whether a render pass uses it.
    pub used: Vec<bool>,
}

/// Builds the geometry of a non-skinned mesh for `num_materials` materials.
pub fn build(m: &MeshBuild, num_materials: usize, era: Era) -> BuiltGeom {
    let flags = m.vertex_flags | vf::POSITION;
    let mut ids: HashMap<CornerKey, u32> = HashMap::new();
    let mut order: Vec<&Corner> = Vec::new();
    let mut passes: Vec<Vec<u32>> = vec![Vec::new(); num_materials.max(1)];
    for f in &m.faces {
        let mut tri = [0u32; 3];
        for (k, c) in f.corners.iter().enumerate() {
            let next = order.len() as u32;
            let id = *ids.entry(key(c, flags)).or_insert(next);
            if id == next {
                order.push(c);
            }
            tri[k] = id;
        }
        if let Some(p) = passes.get_mut(f.material) {
            p.extend_from_slice(&tri);
        }
    }
    let used: Vec<bool> = passes.iter().map(|p| !p.is_empty()).collect();
    let rdr_pass: Vec<RdrPass> = passes
        .into_iter()
        .enumerate()
        .filter(|(_, p)| !p.is_empty())
        .map(|(i, p)| {
            let idx = stripify::optimize_triangles(&p, stripify::CACHE_SIZE, era == Era::Current);
            RdrPass {
                version: 0,
                material_id: i as u32,
                pblock: index_buffer(idx),
            }
        })
        .collect();
    let vbuffer = vertex_buffer(m, flags, &order);
    let empty = m.vertices.is_empty() || m.faces.is_empty();
    BuiltGeom {
        geom: MeshGeom {
            version: 4,
            bones_name: Some(Vec::new()),
            vertex_program: Some(Ptr::Null),
            morpher: Some(MeshMorpher {
                version: 0,
                blend_shapes: Vec::new(),
            }),
            vbuffer,
            matrix_blocks: if empty {
                Vec::new()
            } else {
                vec![MatrixBlock {
                    version: 0,
                    matrix_id: [0; 16],
                    num_matrix: 0,
                    rdr_pass,
                }]
            },
            bbox: if empty { bbox(&[]) } else { bbox(&m.vertices) },
            skinned: Bool(0),
        },
        used,
    }
}

fn index_buffer(indexes: Vec<u32>) -> IndexBuffer {
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

fn vertex_buffer(m: &MeshBuild, flags: u16, order: &[&Corner]) -> VertexBuffer {
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
                ChannelData::Float(order.iter().flat_map(|c| pos(c).map(f)).collect()),
            ),
            1 => (
                3,
                ChannelData::Float(order.iter().flat_map(|c| c.normal.map(f)).collect()),
            ),
            2..=9 => (
                2,
                ChannelData::Float(order.iter().flat_map(|c| c.uvs[slot - 2].map(f)).collect()),
            ),
            10 => (
                4,
                ChannelData::Bytes(
                    order
                        .iter()
                        .flat_map(|c| [c.color.r, c.color.g, c.color.b, c.color.a])
                        .collect(),
                ),
            ),
            // Skinning values are not produced by this build.
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
        header: VbHeader {
            version: 3,
            old_flags: None,
            flags,
            types: vf::DEFAULT_TYPES,
            num_vertices: n as u32,
            vertex_color_format: Some(0),
            preferred_memory: Some(vf::STATIC_PREFERRED),
            name: Some(String::new()),
        },
        vertices: VbSubset {
            version: 2,
            count: n,
            channels,
            uv_routing: Some(m.uv_routing),
        },
    }
}
