//! `.clod`: `CLodCharacterShapeBuild` (`NEL_CLODBULD`) and the built `CLodCharacterShape`
//! (`NEL_CLODSHAP`) (facts: `nel/src/3d/lod_character_shape.cpp`).

use serde::Serialize;

use super::stream::{opt, Serial, Stream, Vec2, Vec3, F32};
use super::NelError;
use crate::{nel_struct, nel_versioned};

nel_struct!(
    /// `CMesh::CSkinWeight`: 4 (matrix id, weight) pairs.
    SkinWeight { influences: [(u32, F32); 4] }
);
nel_struct!(
    /// `CLodCharacterShapeBuild::CPixelInfo`.
    PixelInfo { pos: Vec3, normal: Vec3 }
);

/// Version 1+ part of the build: UVs, normals, texture info.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LodBuildTexture {
    pub uvs: Vec<Vec2>,
    pub normals: Vec<Vec3>,
    pub width: u32,
    pub height: u32,
    pub texture_info: Vec<PixelInfo>,
}

impl Serial for LodBuildTexture {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.field("uvs", &mut self.uvs)?;
        s.field("normals", &mut self.normals)?;
        s.ser(&mut self.width)?;
        s.ser(&mut self.height)?;
        s.field("texture_info", &mut self.texture_info)
    }
}

/// `CLodCharacterShapeBuild` (versions 0..1).
#[derive(Debug, Clone, Default, Serialize)]
pub struct LodCharacterShapeBuild {
    pub version: u32,
    pub vertices: Vec<Vec3>,
    pub skin_weights: Vec<SkinWeight>,
    pub bones_names: Vec<String>,
    /// Always stored as 32-bit indices.
    pub triangle_indices: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture: Option<LodBuildTexture>,
}

impl Serial for LodCharacterShapeBuild {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CLodCharacterShapeBuild", |s| {
            s.check(b"NEL_")?;
            s.check(b"CLOD")?;
            s.check(b"BULD")?;
            s.version(&mut self.version, 1, "CLodCharacterShapeBuild")?;
            s.field("vertices", &mut self.vertices)?;
            s.field("skin_weights", &mut self.skin_weights)?;
            s.field("bones_names", &mut self.bones_names)?;
            s.field("triangle_indices", &mut self.triangle_indices)?;
            opt(s, &mut self.texture, self.version >= 1)
        })
    }
}

nel_versioned!(
    /// `CLodCharacterShape::CBoneInfluence`: (vertex id, influence) pairs.
    BoneInfluence(0) { name: String, inf_vertices: Vec<(u32, F32)> }
);
nel_versioned!(
    /// `CLodCharacterShape::CAnim`: keys are packed `sint16` vectors.
    LodAnim(0) {
        name: String,
        num_keys: u32,
        anim_length: F32,
        oo_anim_length: F32,
        unpack_scale_factor: Vec3,
        keys: Vec<[i16; 3]>,
    }
);
nel_struct!(
    /// Version 1+ part of the shape.
    LodShapeUvNormals { uvs: Vec<Vec2>, normals: Vec<Vec3> }
);

/// `CLodCharacterShape` (versions 0..1).
#[derive(Debug, Clone, Default, Serialize)]
pub struct LodCharacterShape {
    pub version: u32,
    pub name: String,
    pub num_vertices: u32,
    pub num_triangles: u32,
    pub bones: Vec<BoneInfluence>,
    /// Name -> bone index, in stored (sorted) order.
    pub bone_map: Vec<(String, u32)>,
    pub triangle_indices: Vec<u32>,
    pub anims: Vec<LodAnim>,
    pub anim_map: Vec<(String, u32)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uv_normals: Option<LodShapeUvNormals>,
}

impl Serial for LodCharacterShape {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CLodCharacterShape", |s| {
            s.check(b"NEL_")?;
            s.check(b"CLOD")?;
            s.check(b"SHAP")?;
            s.version(&mut self.version, 1, "CLodCharacterShape")?;
            s.ser(&mut self.name)?;
            s.ser(&mut self.num_vertices)?;
            s.ser(&mut self.num_triangles)?;
            s.field("bones", &mut self.bones)?;
            s.field("bone_map", &mut self.bone_map)?;
            s.field("triangle_indices", &mut self.triangle_indices)?;
            s.field("anims", &mut self.anims)?;
            s.field("anim_map", &mut self.anim_map)?;
            opt(s, &mut self.uv_normals, self.version >= 1)
        })
    }
}
