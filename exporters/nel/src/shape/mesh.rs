//! `CMeshBase`, `CMeshGeom` and `CMesh`.

use serde::Serialize;

use super::material::{
    LightMapInfo, MatStageV7, Material, MaterialBase, TrackDefaultQuat, TrackDefaultVector,
};
use super::vertex_buffer::{IndexBuffer, VertexBuffer};
use crate::stream::{opt, AaBox, Bool, PolyClass, Ptr, RgbaF, Serial, Stream, Vec2, Vec3, F32};
use crate::NelError;
use crate::{nel_struct, nel_versioned};

nel_struct!(
    /// `CMorphBase`: name of an animated blend shape factor.
    MorphBase { name: String }
);

/// `CLodCharacterTexture` (pointer target in `CMeshBase` v7+).
#[derive(Debug, Clone, Default, Serialize)]
pub struct LodCharacterTexture {
    pub version: u32,
    pub width: u32,
    pub height: u32,
    /// (material, u, v, quality) per lookup entry.
    pub texture: Vec<[u8; 4]>,
}

impl Serial for LodCharacterTexture {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 0, "CLodCharacterTexture")?;
        s.ser(&mut self.width)?;
        s.ser(&mut self.height)?;
        s.ser(&mut self.texture)
    }
}

/// `CMeshBase::serialMeshBase`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeshBase {
    pub version: u32,
    pub animated_morph: Vec<MorphBase>,
    pub default_pos: TrackDefaultVector,
    pub default_pivot: TrackDefaultVector,
    pub default_rot_euler: TrackDefaultVector,
    pub default_rot_quat: TrackDefaultQuat,
    pub default_scale: TrackDefaultVector,
    pub materials: Vec<Material>,
    pub animated_materials: Vec<(u32, MaterialBase)>,
    pub light_infos: Vec<LightMapInfo>,
    /// Version < 8 light info map: name -> list of (material, stage).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub light_infos_v7: Vec<(String, Vec<MatStageV7>)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_lightable: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub use_lighting_local_attenuation: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_anim: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dist_max: Option<F32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lod_character_texture: Option<Ptr<LodCharacterTexture>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collision_mesh_generation: Option<u32>,
}

impl Serial for MeshBase {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CMeshBase", |s| {
            s.version(&mut self.version, 10, "CMeshBase")?;
            let v = self.version;
            if v >= 2 {
                s.field("animated_morph", &mut self.animated_morph)?;
            }
            if v < 1 {
                return Err(s.err("CMeshBase version 0 is refused by NeL itself (too old)"));
            }
            s.ser(&mut self.default_pos)?;
            s.ser(&mut self.default_pivot)?;
            s.ser(&mut self.default_rot_euler)?;
            s.ser(&mut self.default_rot_quat)?;
            s.ser(&mut self.default_scale)?;
            s.field("materials", &mut self.materials)?;
            s.field("animated_materials", &mut self.animated_materials)?;
            if v >= 8 {
                s.field("light_infos", &mut self.light_infos)?;
            } else {
                s.field("light_infos_v7", &mut self.light_infos_v7)?;
            }
            opt(s, &mut self.is_lightable, v >= 3)?;
            opt(s, &mut self.use_lighting_local_attenuation, v >= 4)?;
            opt(s, &mut self.auto_anim, v >= 5)?;
            opt(s, &mut self.dist_max, v >= 6)?;
            if v >= 7 {
                let mut p = self.lod_character_texture.take().unwrap_or_default();
                s.ptr(&mut p)?;
                self.lod_character_texture = Some(p);
            }
            opt(s, &mut self.collision_mesh_generation, v >= 9)
        })
    }
}

/// `CBlendShape`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BlendShape {
    pub version: u32,
    pub name: String,
    pub delta_pos: Vec<Vec3>,
    pub delta_norm: Vec<Vec3>,
    pub delta_uv: Vec<Vec2>,
    pub delta_col: Vec<RgbaF>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_tg_space: Option<Vec<Vec3>>,
    pub vert_refs: Vec<u32>,
}

impl Serial for BlendShape {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CBlendShape")?;
        s.ser(&mut self.name)?;
        s.ser(&mut self.delta_pos)?;
        s.ser(&mut self.delta_norm)?;
        s.ser(&mut self.delta_uv)?;
        s.ser(&mut self.delta_col)?;
        opt(s, &mut self.delta_tg_space, self.version >= 1)?;
        s.ser(&mut self.vert_refs)
    }
}

nel_versioned!(
    /// `CMeshMorpher`.
    MeshMorpher(0) { blend_shapes: Vec<BlendShape> }
);

/// `IMeshVertexProgram` classes (`CMeshVPWindTree`, `CMeshVPPerPixelLight`).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "class")]
pub enum MeshVertexProgram {
    CMeshVPWindTree(MeshVpWindTree),
    CMeshVPPerPixelLight(MeshVpPerPixelLight),
}

/// `CMeshVPWindTree`: wind animation parameters for 3 hierarchy levels.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeshVpWindTree {
    pub version: u32,
    pub frequency: [F32; 3],
    pub frequency_window: [F32; 3],
    pub power_xy: [F32; 3],
    pub power_z: [F32; 3],
    pub bias: [F32; 3],
    pub specular_lighting: Bool,
}

impl Serial for MeshVpWindTree {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 0, "CMeshVPWindTree")?;
        for i in 0..3 {
            s.ser(&mut self.frequency[i])?;
            s.ser(&mut self.frequency_window[i])?;
            s.ser(&mut self.power_xy[i])?;
            s.ser(&mut self.power_z[i])?;
            s.ser(&mut self.bias[i])?;
        }
        s.ser(&mut self.specular_lighting)
    }
}

nel_versioned!(
    /// `CMeshVPPerPixelLight`.
    MeshVpPerPixelLight(0) { specular_lighting: Bool }
);

impl PolyClass for MeshVertexProgram {
    const FAMILY: &'static str = "IMeshVertexProgram";
    fn create(class: &str) -> Option<Self> {
        Some(match class {
            "CMeshVPWindTree" => MeshVertexProgram::CMeshVPWindTree(Default::default()),
            "CMeshVPPerPixelLight" => MeshVertexProgram::CMeshVPPerPixelLight(Default::default()),
            _ => return None,
        })
    }
    fn class_name(&self) -> &str {
        match self {
            MeshVertexProgram::CMeshVPWindTree(_) => "CMeshVPWindTree",
            MeshVertexProgram::CMeshVPPerPixelLight(_) => "CMeshVPPerPixelLight",
        }
    }
    fn serial_body<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        match self {
            MeshVertexProgram::CMeshVPWindTree(v) => v.serial(s),
            MeshVertexProgram::CMeshVPPerPixelLight(v) => v.serial(s),
        }
    }
}

nel_versioned!(
    /// `CMeshGeom::CRdrPass`.
    RdrPass(0) { material_id: u32, pblock: IndexBuffer }
);
nel_versioned!(
    /// `CMeshGeom::CMatrixBlock`: up to 16 bone matrices and the passes using them.
    MatrixBlock(0) { matrix_id: [u32; 16], num_matrix: u32, rdr_pass: Vec<RdrPass> }
);

/// `CMeshGeom`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeshGeom {
    pub version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bones_name: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vertex_program: Option<Ptr<MeshVertexProgram>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub morpher: Option<MeshMorpher>,
    pub vbuffer: VertexBuffer,
    pub matrix_blocks: Vec<MatrixBlock>,
    pub bbox: AaBox,
    pub skinned: Bool,
}

impl Serial for MeshGeom {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CMeshGeom", |s| {
            s.version(&mut self.version, 4, "CMeshGeom")?;
            let v = self.version;
            opt(s, &mut self.bones_name, v >= 4)?;
            if v >= 3 {
                let mut p = self.vertex_program.take().unwrap_or_default();
                s.poly(&mut p)?;
                self.vertex_program = Some(p);
            }
            opt(s, &mut self.morpher, v >= 1)?;
            s.ser(&mut self.vbuffer)?;
            s.field("matrix_blocks", &mut self.matrix_blocks)?;
            s.ser(&mut self.bbox)?;
            s.ser(&mut self.skinned)
        })
    }
}

nel_versioned!(
    /// `CMesh::CRdrPassOldV2` (CMesh versions 0..2): a pass owning its material.
    RdrPassOldV2(0) { material: Material, pblock: IndexBuffer }
);

/// The CMesh layout of versions 0..4 (2000-2001, before `CMeshBase`/`CMeshGeom` existed):
/// vertex buffer, [v4: light info map], [v3+: materials + matrix blocks | v0-2: passes each
/// owning a material], bbox, [v1+: animated materials], [v3: skinned], [v2, v3: default
/// tracks]. NeL's v4 reader skipped both of the last two parts (its `switch` had no
/// `case 4`), and so does this one.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeshOld {
    pub vbuffer: VertexBuffer,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub light_infos_v4: Option<Vec<(String, Vec<MatStageV7>)>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub materials: Option<Vec<Material>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matrix_blocks: Option<Vec<MatrixBlock>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rdr_passes_v2: Option<Vec<RdrPassOldV2>>,
    pub bbox: AaBox,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub animated_materials: Option<Vec<(u32, MaterialBase)>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skinned: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_tracks: Option<DefaultTracks>,
}

nel_struct!(
    /// Default position tracks of an old CMesh (pos, pivot, euler rotation, quat, scale).
    DefaultTracks {
        pos: TrackDefaultVector,
        pivot: TrackDefaultVector,
        rot_euler: TrackDefaultVector,
        rot_quat: TrackDefaultQuat,
        scale: TrackDefaultVector,
    }
);

impl MeshOld {
    fn serial<S: Stream>(&mut self, s: &mut S, v: u32) -> Result<(), NelError> {
        s.ser(&mut self.vbuffer)?;
        s.ctx("light_infos_v4", |s| {
            opt(s, &mut self.light_infos_v4, v >= 4)
        })?;
        s.ctx("materials", |s| opt(s, &mut self.materials, v >= 3))?;
        s.ctx("matrix_blocks", |s| opt(s, &mut self.matrix_blocks, v >= 3))?;
        s.ctx("rdr_passes_v2", |s| opt(s, &mut self.rdr_passes_v2, v < 3))?;
        s.ser(&mut self.bbox)?;
        s.ctx("animated_materials", |s| {
            opt(s, &mut self.animated_materials, v >= 1)
        })?;
        opt(s, &mut self.skinned, v == 3)?;
        s.ctx("default_tracks", |s| {
            opt(s, &mut self.default_tracks, v == 2 || v == 3)
        })
    }
}

/// `CMesh`: mesh base then geometry (version 6), or the old one-piece layout (0..4).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Mesh {
    pub version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<MeshBase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geom: Option<MeshGeom>,
    /// Versions 0..4 only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Box<MeshOld>>,
}

impl Mesh {
    /// Materials of either layout.
    pub fn materials(&self) -> &[Material] {
        if let Some(b) = &self.base {
            return &b.materials;
        }
        match &self.old {
            Some(o) => o.materials.as_deref().unwrap_or(&[]),
            None => &[],
        }
    }
    /// Vertex buffer of either layout.
    pub fn vbuffer(&self) -> Option<&VertexBuffer> {
        self.geom
            .as_ref()
            .map(|g| &g.vbuffer)
            .or(self.old.as_ref().map(|o| &o.vbuffer))
    }
    /// Number of matrix blocks (old v0..2 meshes have one implicit block).
    pub fn matrix_block_count(&self) -> usize {
        if let Some(g) = &self.geom {
            return g.matrix_blocks.len();
        }
        match &self.old {
            Some(o) => o.matrix_blocks.as_ref().map_or(1, |m| m.len()),
            None => 0,
        }
    }
}

impl Serial for Mesh {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        let at = s.pos();
        s.version(&mut self.version, 6, "CMesh")?;
        let v = self.version;
        if v == 5 {
            // Version 5 (June 2001) was the first CMeshBase/CMeshGeom split; NeL dropped it
            // at version 6 and its layout is not implemented here.
            return Err(s.err_at(
                at,
                "CMesh version 5 (the short-lived first CMeshBase split) is not supported",
            ));
        }
        if v < 6 {
            if s.reading() {
                self.base = None;
                self.geom = None;
                self.old = Some(Box::default());
            }
            let Some(old) = self.old.as_mut() else {
                return Err(s.err("old CMesh version without its old-layout body"));
            };
            return s.ctx("CMeshOld", |s| old.serial(s, v));
        }
        if s.reading() {
            self.old = None;
        }
        let mut base = self.base.take().unwrap_or_default();
        let mut geom = self.geom.take().unwrap_or_default();
        let r = s.ser(&mut base).and_then(|_| s.ser(&mut geom));
        self.base = Some(base);
        self.geom = Some(geom);
        r
    }
}
