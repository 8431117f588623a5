//! `CMaterial`, its texture environments and the `ITexture` classes it points to.

use serde::Serialize;

use crate::stream::{opt, Bool, Matrix, PolyClass, Ptr, Rgba, Serial, Stream, F32};
use crate::NelError;
use crate::{nel_struct, nel_versioned};

/// Common `ITexture` header.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TextureBase {
    pub version: u32,
    pub upload_format: u32,
    pub wrap_s: u32,
    pub wrap_t: u32,
    pub min_filter: u32,
    pub mag_filter: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_grayscale_as_alpha: Option<Bool>,
}

impl TextureBase {
    /// The header of a new `ITexture` (version 1): repeat on both axes,
    /// automatic upload format, LinearMipMapLinear / Linear filtering,
    /// grayscale loaded as alpha.
    pub fn new_texture() -> TextureBase {
        TextureBase {
            version: 1,
            upload_format: 0,
            wrap_s: 0,
            wrap_t: 0,
            min_filter: 5,
            mag_filter: 1,
            load_grayscale_as_alpha: Some(Bool(1)),
        }
    }
}

impl Serial for TextureBase {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "ITexture")?;
        s.ser(&mut self.upload_format)?;
        s.ser(&mut self.wrap_s)?;
        s.ser(&mut self.wrap_t)?;
        s.ser(&mut self.min_filter)?;
        s.ser(&mut self.mag_filter)?;
        opt(s, &mut self.load_grayscale_as_alpha, self.version >= 1)
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct TextureFile {
    pub version: u32,
    pub base: TextureBase,
    pub file_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_degradation: Option<Bool>,
}

impl Serial for TextureFile {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CTextureFile")?;
        s.ser(&mut self.base)?;
        s.ser(&mut self.file_name)?;
        opt(s, &mut self.allow_degradation, self.version >= 1)
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct TextureMultiFile {
    pub version: u32,
    pub base: TextureBase,
    pub file_names: Vec<String>,
    pub curr_selected_texture: u32,
}

impl Serial for TextureMultiFile {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 0, "CTextureMultiFile")?;
        s.ser(&mut self.base)?;
        s.ser(&mut self.file_names)?;
        s.ser(&mut self.curr_selected_texture)
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct TextureCube {
    pub version: u32,
    pub base: TextureBase,
    pub faces: Vec<Ptr<Texture>>,
    /// Only in version 1 (a flag dropped later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v1_flag: Option<Bool>,
}

impl Serial for TextureCube {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 2, "CTextureCube")?;
        s.ser(&mut self.base)?;
        if s.reading() {
            self.faces = (0..6).map(|_| Ptr::Null).collect();
        } else if self.faces.len() != 6 {
            return Err(s.err("cube texture needs 6 faces"));
        }
        for f in self.faces.iter_mut() {
            s.poly(f)?;
        }
        opt(s, &mut self.v1_flag, self.version == 1)
    }
}

/// `CTextureBlend` (facts: `nel/src/3d/texture_blend.cpp`, version 0): two
/// textures blended by a factor; the water exporter's day/night env maps.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TextureBlend {
    pub version: u32,
    pub base: TextureBase,
    pub blend_tex: [Ptr<Texture>; 2],
    pub sharing_enabled: Bool,
    /// `uint16` in NeL (0..256).
    pub blend_factor: u16,
}

impl Serial for TextureBlend {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 0, "CTextureBlend")?;
        s.ser(&mut self.base)?;
        for t in self.blend_tex.iter_mut() {
            s.poly(t)?;
        }
        s.ser(&mut self.sharing_enabled)?;
        s.ser(&mut self.blend_factor)
    }
}

/// `CTextureBump` (facts: `nel/src/3d/texture_bump.cpp`, versions 0..3): a
/// height map turned into a DsDt bump map by the engine.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TextureBump {
    pub version: u32,
    pub base: TextureBase,
    pub height_map: Ptr<Texture>,
    pub disable_sharing: Bool,
    /// Version 1+: the dropped `forceAbsoluteOffset` flag, kept as stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_absolute_offset: Option<Bool>,
    /// Version 2+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub force_normalize: Option<Bool>,
}

impl Serial for TextureBump {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 3, "CTextureBump")?;
        s.ser(&mut self.base)?;
        s.poly(&mut self.height_map)?;
        s.ser(&mut self.disable_sharing)?;
        opt(s, &mut self.old_absolute_offset, self.version >= 1)?;
        opt(s, &mut self.force_normalize, self.version >= 2)
    }
}

/// `CTextureBlank`: only the `ITexture` header.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TextureBlank {
    pub version: u32,
    pub base: TextureBase,
}

/// The texture classes a material may point to.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "class")]
pub enum Texture {
    CTextureFile(TextureFile),
    CTextureMultiFile(TextureMultiFile),
    CTextureCube(TextureCube),
    CTextureBlend(TextureBlend),
    CTextureBump(TextureBump),
}

impl PolyClass for Texture {
    const FAMILY: &'static str = "ITexture";
    fn create(class: &str) -> Option<Self> {
        Some(match class {
            "CTextureFile" => Texture::CTextureFile(Default::default()),
            "CTextureMultiFile" => Texture::CTextureMultiFile(Default::default()),
            "CTextureCube" => Texture::CTextureCube(Default::default()),
            "CTextureBlend" => Texture::CTextureBlend(Default::default()),
            "CTextureBump" => Texture::CTextureBump(Default::default()),
            _ => return None,
        })
    }
    fn class_name(&self) -> &str {
        match self {
            Texture::CTextureFile(_) => "CTextureFile",
            Texture::CTextureMultiFile(_) => "CTextureMultiFile",
            Texture::CTextureCube(_) => "CTextureCube",
            Texture::CTextureBlend(_) => "CTextureBlend",
            Texture::CTextureBump(_) => "CTextureBump",
        }
    }
    fn serial_body<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        match self {
            Texture::CTextureFile(t) => s.ctx("CTextureFile", |s| t.serial(s)),
            Texture::CTextureMultiFile(t) => s.ctx("CTextureMultiFile", |s| t.serial(s)),
            Texture::CTextureCube(t) => s.ctx("CTextureCube", |s| t.serial(s)),
            Texture::CTextureBlend(t) => s.ctx("CTextureBlend", |s| t.serial(s)),
            Texture::CTextureBump(t) => s.ctx("CTextureBump", |s| t.serial(s)),
        }
    }
}

/// `CMaterial::CTexEnv`: combiner operators as bytes, then a constant colour.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TexEnv {
    /// OpRGB, SrcArg0RGB, OpArg0RGB, SrcArg1RGB, OpArg1RGB[, SrcArg2RGB, OpArg2RGB].
    pub rgb: Vec<u8>,
    /// Same for alpha.
    pub alpha: Vec<u8>,
    pub constant_color: Rgba,
}

impl TexEnv {
    fn serial<S: Stream>(&mut self, s: &mut S, third_operand: bool) -> Result<(), NelError> {
        let n = if third_operand { 7 } else { 5 };
        s.raw_vec(&mut self.rgb, n)?;
        s.raw_vec(&mut self.alpha, n)?;
        s.ser(&mut self.constant_color)
    }
}

/// `CMaterial::CLightMap` (version >= 7 form, `serial2`), or the old form.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LightMap {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    pub factor: Rgba,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lmc_diffuse: Option<Rgba>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lmc_ambient: Option<Rgba>,
    pub texture: Ptr<Texture>,
}

impl LightMap {
    fn serial_v<S: Stream>(&mut self, s: &mut S, new_form: bool) -> Result<(), NelError> {
        if new_form {
            let mut v = self.version.unwrap_or(1);
            s.version(&mut v, 1, "CMaterial::CLightMap")?;
            self.version = Some(v);
            s.ser(&mut self.factor)?;
            opt(s, &mut self.lmc_diffuse, true)?;
            opt(s, &mut self.lmc_ambient, v >= 1)?;
        } else {
            s.ser(&mut self.factor)?;
        }
        s.poly(&mut self.texture)
    }
}

/// `CMaterial`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Material {
    pub version: u32,
    pub shader_type: u32,
    pub flags: u32,
    pub src_blend: u32,
    pub dst_blend: u32,
    pub z_function: u32,
    pub z_bias: F32,
    pub color: Rgba,
    pub emissive: Rgba,
    pub ambient: Rgba,
    pub diffuse: Rgba,
    pub specular: Rgba,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shininess: Option<F32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha_test_threshold: Option<F32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tex_coord_gen_mode: Option<u16>,
    pub textures: Vec<Ptr<Texture>>,
    pub tex_envs: Vec<TexEnv>,
    pub light_maps: Vec<LightMap>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub light_maps_mulx2: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tex_addr_mode: Option<[u8; 4]>,
    /// User texture matrices, one per enabled stage (flags bits 20..).
    pub user_tex_mat: Vec<Matrix>,
}

const IDRV_MAT_TEX_ADDR: u32 = 0x400;
const IDRV_MAT_USER_TEX_FIRST_BIT: u32 = 20;

impl Serial for Material {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 9, "CMaterial")?;
        let v = self.version;
        s.ser(&mut self.shader_type)?;
        s.ser(&mut self.flags)?;
        s.ser(&mut self.src_blend)?;
        s.ser(&mut self.dst_blend)?;
        s.ser(&mut self.z_function)?;
        s.ser(&mut self.z_bias)?;
        s.ser(&mut self.color)?;
        s.ser(&mut self.emissive)?;
        s.ser(&mut self.ambient)?;
        s.ser(&mut self.diffuse)?;
        s.ser(&mut self.specular)?;
        opt(s, &mut self.shininess, v >= 2)?;
        opt(s, &mut self.alpha_test_threshold, v >= 5)?;
        opt(s, &mut self.tex_coord_gen_mode, v >= 8)?;
        if s.reading() {
            self.textures = (0..4).map(|_| Ptr::Null).collect();
            self.tex_envs = if v >= 1 {
                vec![TexEnv::default(); 4]
            } else {
                Vec::new()
            };
        } else if self.textures.len() != 4 || self.tex_envs.len() != if v >= 1 { 4 } else { 0 } {
            return Err(s.err("material needs 4 texture stages"));
        }
        for i in 0..4 {
            s.ctx("textures", |s| s.poly(&mut self.textures[i]))?;
            if v >= 1 {
                self.tex_envs[i].serial(s, v >= 9)?;
            }
        }
        if v >= 3 {
            if v >= 7 {
                let mut n = self.light_maps.len();
                s.count(&mut n, 10)?;
                if s.reading() {
                    self.light_maps = Vec::with_capacity(n.min(1024));
                    self.light_maps.resize_with(n, Default::default);
                }
                for lm in self.light_maps.iter_mut() {
                    lm.serial_v(s, true)?;
                }
                opt(s, &mut self.light_maps_mulx2, true)?;
            } else {
                let mut n = self.light_maps.len();
                s.count(&mut n, 12)?;
                if s.reading() {
                    self.light_maps = Vec::with_capacity(n.min(1024));
                    self.light_maps.resize_with(n, Default::default);
                }
                for lm in self.light_maps.iter_mut() {
                    lm.serial_v(s, false)?;
                }
            }
        }
        opt(
            s,
            &mut self.tex_addr_mode,
            v >= 4 && self.flags & IDRV_MAT_TEX_ADDR != 0,
        )?;
        if v >= 6 {
            let enabled: Vec<u32> = (0..4)
                .filter(|i| self.flags & (1 << (IDRV_MAT_USER_TEX_FIRST_BIT + i)) != 0)
                .collect();
            s.vec_n(&mut self.user_tex_mat, enabled.len())?;
        }
        Ok(())
    }
}

nel_versioned!(
    /// `CTrackDefault*` (version + value).
    TrackDefaultRgba(0) { value: Rgba }
);
nel_versioned!(TrackDefaultFloat(0) { value: F32 });
nel_versioned!(TrackDefaultInt(0) { value: i32 });
nel_versioned!(TrackDefaultVector(0) { value: crate::stream::Vec3 });
nel_versioned!(TrackDefaultQuat(0) { value: crate::stream::Quat });

/// A version-0 default track holding `a`.
impl From<[f32; 3]> for TrackDefaultVector {
    fn from(a: [f32; 3]) -> TrackDefaultVector {
        TrackDefaultVector {
            version: 0,
            value: a.into(),
        }
    }
}

/// A version-0 default track holding `[x, y, z, w]`.
impl From<[f32; 4]> for TrackDefaultQuat {
    fn from(a: [f32; 4]) -> TrackDefaultQuat {
        TrackDefaultQuat {
            version: 0,
            value: a.into(),
        }
    }
}
nel_versioned!(TrackDefaultBool(0) { value: Bool });
nel_versioned!(TrackDefaultString(0) { value: String });

nel_versioned!(
    /// `CMaterialBase::CTexAnimTracks`.
    TexAnimTracks(0) {
        u_trans: TrackDefaultFloat,
        v_trans: TrackDefaultFloat,
        u_scale: TrackDefaultFloat,
        v_scale: TrackDefaultFloat,
    }
);

/// `CMaterialBase::CAnimatedTexture`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AnimatedTexture {
    pub texture: Ptr<Texture>,
}

impl Serial for AnimatedTexture {
    const MIN_SIZE: usize = 8;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.poly(&mut self.texture)
    }
}

/// `CMaterialBase`: defaults of an animated material.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MaterialBase {
    pub version: u32,
    pub name: String,
    pub ambient: TrackDefaultRgba,
    pub diffuse: TrackDefaultRgba,
    pub specular: TrackDefaultRgba,
    pub shininess: TrackDefaultFloat,
    pub emissive: TrackDefaultRgba,
    pub opacity: TrackDefaultFloat,
    pub texture: TrackDefaultInt,
    /// Map texture index -> animated texture, in stored (sorted) order.
    pub animated_textures: Vec<(u32, AnimatedTexture)>,
    pub tex_anim_tracks: Vec<TexAnimTracks>,
}

impl Serial for MaterialBase {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CMaterialBase")?;
        s.ser(&mut self.name)?;
        s.ser(&mut self.ambient)?;
        s.ser(&mut self.diffuse)?;
        s.ser(&mut self.specular)?;
        s.ser(&mut self.shininess)?;
        s.ser(&mut self.emissive)?;
        s.ser(&mut self.opacity)?;
        s.ser(&mut self.texture)?;
        s.ser(&mut self.animated_textures)?;
        let n = if self.version > 0 { 4 } else { 0 };
        s.vec_n(&mut self.tex_anim_tracks, n)
    }
}

nel_struct!(
    /// Index of a material stage using a light map.
    MatStageV7 { mat: u8, stage: u8 }
);
nel_versioned!(MatStage(0) { mat_id: u8, stage_id: u8 });
nel_versioned!(
    /// `CMeshBase::CLightMapInfoList`.
    LightMapInfo(0) { light_group: u32, animated_light: String, stages: Vec<MatStage> }
);
