//! `CMeshMRM` / `CMeshMRMGeom` (progressive meshes) and `CMeshMRMSkinned`.

use serde::Serialize;

use super::mesh::{MeshBase, MeshMorpher, MeshVertexProgram};
use super::vertex_buffer::{IndexBuffer, VbHeader, VbSubset};
use crate::stream::{opt, AaBox, Bool, Ptr, Serial, Stream, F32};
use crate::NelError;
use crate::{nel_struct, nel_versioned};

nel_versioned!(
    /// `CMeshMRMGeom::CRdrPass`.
    MrmRdrPass(0) { material_id: u32, pblock: IndexBuffer }
);
nel_struct!(
    /// `CMRMWedgeGeom`: geomorph from wedge `start` to wedge `end`.
    WedgeGeom { start: u32, end: u32 }
);
nel_struct!(
    /// `CVertexBlock`.
    VertexBlock { vertex_start: u32, n_vertices: u32 }
);
nel_versioned!(
    /// `CMeshMRMGeom::CLodInfo`: wedges added by each lod.
    LodInfo(0) { start_add_wedge: u32, end_add_wedges: u32 }
);
nel_struct!(
    /// `CMesh::CSkinWeight`: 4 (matrix, weight) pairs.
    SkinWeight { m0: u32, w0: F32, m1: u32, w1: F32, m2: u32, w2: F32, m3: u32, w3: F32 }
);
nel_versioned!(
    /// `CShadowVertex`.
    ShadowVertex(0) { vertex: crate::stream::Vec3, matrix_id: u32 }
);

/// `CMeshMRMGeom::CLod`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MrmLod {
    pub version: u32,
    pub n_wedges: u32,
    pub rdr_pass: Vec<MrmRdrPass>,
    pub geomorphs: Vec<WedgeGeom>,
    pub matrix_influences: Vec<u32>,
    pub influenced_vertices: [Vec<u32>; 4],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skin_vertex_blocks: Option<Vec<VertexBlock>>,
}

impl Serial for MrmLod {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 2, "CMeshMRMGeom::CLod")?;
        s.ser(&mut self.n_wedges)?;
        s.field("rdr_pass", &mut self.rdr_pass)?;
        s.field("geomorphs", &mut self.geomorphs)?;
        s.field("matrix_influences", &mut self.matrix_influences)?;
        s.field("influenced_vertices", &mut self.influenced_vertices)?;
        opt(s, &mut self.skin_vertex_blocks, self.version >= 1)
    }
}

/// Vertex data of one lod (`serialLodVertexData`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct LodVertexData {
    pub version: u32,
    pub vertices: VbSubset,
    /// Version 0 only, skinned meshes: weights of the lod's wedges.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skin_weights: Vec<SkinWeight>,
}

/// `CMRMLevelDetail` fields as stored.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LevelDetail {
    pub max_face_used: u32,
    pub min_face_used: u32,
    pub distance_finest: F32,
    pub distance_middle: F32,
    pub distance_coarsest: F32,
    pub oo_distance_delta: F32,
    pub distance_pow: F32,
}

impl Serial for LevelDetail {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ser(&mut self.max_face_used)?;
        s.ser(&mut self.min_face_used)?;
        s.ser(&mut self.distance_finest)?;
        s.ser(&mut self.distance_middle)?;
        s.ser(&mut self.distance_coarsest)?;
        s.ser(&mut self.oo_distance_delta)?;
        s.ser(&mut self.distance_pow)
    }
}

/// `CMeshMRMGeom`. The lod offset table is recomputed on write and checked on read.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeshMrmGeom {
    pub version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bones_name: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vertex_program: Option<Ptr<MeshVertexProgram>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub morpher: Option<MeshMorpher>,
    pub skinned: Bool,
    pub bbox: AaBox,
    pub level_detail: LevelDetail,
    pub lod_infos: Vec<LodInfo>,
    pub n_wedges: u32,
    pub vb_header: VbHeader,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skin_weights: Option<Vec<SkinWeight>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadow_vertices: Option<Vec<ShadowVertex>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadow_triangles: Option<Vec<u32>>,
    pub lods: Vec<(MrmLod, LodVertexData)>,
}

impl Serial for MeshMrmGeom {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CMeshMRMGeom", |s| self.serial_inner(s))
    }
}

impl MeshMrmGeom {
    fn serial_inner<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 5, "CMeshMRMGeom")?;
        let v = self.version;
        opt(s, &mut self.bones_name, v >= 3)?;
        if v >= 2 {
            let mut p = self.vertex_program.take().unwrap_or_default();
            s.poly(&mut p)?;
            self.vertex_program = Some(p);
        }
        opt(s, &mut self.morpher, v >= 1)?;
        s.ser(&mut self.skinned)?;
        s.ser(&mut self.bbox)?;
        s.ser(&mut self.level_detail)?;
        s.field("lod_infos", &mut self.lod_infos)?;
        s.ser(&mut self.n_wedges)?;
        s.ser(&mut self.vb_header)?;
        opt(s, &mut self.skin_weights, v >= 4)?;
        opt(s, &mut self.shadow_vertices, v >= 5)?;
        opt(s, &mut self.shadow_triangles, v >= 5)?;
        let nlods = self.lod_infos.len();
        // Offsets of each lod, relative to the start of the offset table.
        let table = s.pos();
        let mut offsets = vec![0i32; nlods];
        for o in offsets.iter_mut() {
            s.ser(o)?;
        }
        if s.reading() {
            self.lods = Vec::with_capacity(nlods.min(256));
            self.lods.resize_with(nlods, Default::default);
        } else if self.lods.len() != nlods {
            return Err(s.err("lod count differs from lod_infos"));
        }
        let mut actual = Vec::with_capacity(nlods);
        for i in 0..nlods {
            actual.push((s.pos() - table) as i32);
            let info = self.lod_infos[i].clone();
            let skinned = self.skinned.get();
            let vb = self.vb_header.clone();
            let (lod, vd) = &mut self.lods[i];
            s.ctx("lods", |s| {
                s.ser(lod)?;
                s.version(&mut vd.version, 1, "CMeshMRMGeom lod vertex data")?;
                let (a, b) = (info.start_add_wedge as usize, info.end_add_wedges as usize);
                if b < a {
                    return Err(s.err("lod wedge range is reversed"));
                }
                vd.vertices.serial(s, &vb, b - a)?;
                if skinned && vd.version < 1 {
                    s.vec_n(&mut vd.skin_weights, b - a)?;
                }
                Ok(())
            })?;
        }
        if s.reading() {
            if actual != offsets {
                return Err(s.err(format!(
                    "lod offset table {offsets:?} does not match lod positions {actual:?}"
                )));
            }
        } else {
            // Patch the offset table now that positions are known.
            for (i, o) in actual.iter().enumerate() {
                s.patch_u32(table + 4 * i, *o as u32);
            }
        }
        Ok(())
    }
}

/// `CMeshMRM`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeshMrm {
    pub version: u32,
    pub base: MeshBase,
    pub geom: MeshMrmGeom,
}

impl Serial for MeshMrm {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 0, "CMeshMRM")?;
        s.ser(&mut self.base)?;
        s.ser(&mut self.geom)
    }
}

nel_versioned!(
    /// `CMeshMRMSkinnedGeom::CRdrPass` (16-bit index list).
    MrmSkinnedRdrPass(0) { material_id: u32, pblock: Vec<u16> }
);
nel_versioned!(
    /// `CMeshMRMSkinnedGeom::CLod`.
    MrmSkinnedLod(0) {
        n_wedges: u32,
        rdr_pass: Vec<MrmSkinnedRdrPass>,
        geomorphs: Vec<WedgeGeom>,
        matrix_influences: Vec<u32>,
        influenced_vertices: [Vec<u32>; 4],
    }
);
nel_versioned!(
    /// `CPackedVertex`: quantized position, normal, uv and 4 skin influences.
    PackedVertex(0) {
        pos: [i16; 3],
        normal: [i16; 3],
        uv: [i16; 2],
        m0: u8, w0: u8, m1: u8, w1: u8, m2: u8, w2: u8, m3: u8, w3: u8,
    }
);
nel_versioned!(
    /// `CPackedVertexBuffer`.
    PackedVertexBuffer(0) { packed_buffer: Vec<PackedVertex>, decompact_scale: F32 }
);

/// `CMeshMRMSkinnedGeom`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeshMrmSkinnedGeom {
    pub version: u32,
    pub bones_name: Vec<String>,
    pub bbox: AaBox,
    pub level_detail: LevelDetail,
    pub vbuffer: PackedVertexBuffer,
    pub shadow_vertices: Vec<ShadowVertex>,
    pub shadow_triangles: Vec<u32>,
    pub lods: Vec<MrmSkinnedLod>,
}

impl Serial for MeshMrmSkinnedGeom {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CMeshMRMSkinnedGeom", |s| {
            s.version(&mut self.version, 0, "CMeshMRMSkinnedGeom")?;
            s.ser(&mut self.bones_name)?;
            s.ser(&mut self.bbox)?;
            s.ser(&mut self.level_detail)?;
            s.field("vbuffer", &mut self.vbuffer)?;
            s.field("shadow_vertices", &mut self.shadow_vertices)?;
            s.field("shadow_triangles", &mut self.shadow_triangles)?;
            s.field("lods", &mut self.lods)
        })
    }
}

/// `CMeshMRMSkinned`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeshMrmSkinned {
    pub version: u32,
    pub base: MeshBase,
    pub geom: MeshMrmSkinnedGeom,
}

impl Serial for MeshMrmSkinned {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 0, "CMeshMRMSkinned")?;
        s.ser(&mut self.base)?;
        s.ser(&mut self.geom)
    }
}
