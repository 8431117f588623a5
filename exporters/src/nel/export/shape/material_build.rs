//! Max materials to NeL `CMaterial`s, as `CExportNel::buildMaterials` /
//! `buildAMaterial` (export_material.cpp) do: the scripted NeL Material from
//! its parameter blocks, any other material from its Standard values, a
//! Multi/Sub-Object as one NeL material per sub-material, and a lit default
//! material for nodes without one.
//!
//! Alongside each material comes what the mesh build needs from it: which
//! Max map channel feeds each NeL UV set, the UV routing, and whether vertex
//! colour or alpha is used.

use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::render::corona;
use maxfs_scene::eval::render::material::{self as mtl, Material as MaxMaterial, NEL_MATERIAL};

use super::super::Context;
pub(super) use super::nel_params::NelParams;
use super::uv_matrix;
use crate::nel::shape::material::{
    Material, TexEnv, Texture, TextureBase, TextureFile, TextureMultiFile,
};
use crate::nel::stream::{Ptr, Rgba, F32};

/// `IDRV_MAT_*` flags.
pub mod flag {
    pub const ZWRITE: u32 = 0x4;
    pub const LIGHTING: u32 = 0x10;
    pub const BLEND: u32 = 0x80;
    pub const DOUBLE_SIDED: u32 = 0x100;
    pub const ALPHA_TEST: u32 = 0x200;
    pub const TEX_ADDR: u32 = 0x400;
    pub const LIGHTED_VERTEX_COLOR: u32 = 0x800;
    pub const GEN_TEX_0: u32 = 0x1000;
    /// `IDRV_MAT_USER_TEX_0_MAT`: stage 0's user texture matrix (stage k: << k).
    pub const USER_TEX_0: u32 = 1 << 20;
}

/// `CMaterial::TShader`.
pub mod shader {
    pub const NORMAL: u32 = 0;
    pub const USER_COLOR: u32 = 2;
    pub const LIGHT_MAP: u32 = 3;
    pub const SPECULAR: u32 = 4;
}

/// `CMaterial::TBlend` values used here.
const SRC_ALPHA: u32 = 2;
const INV_SRC_ALPHA: u32 = 3;
const ONE: u32 = 0;
/// `CMaterial::ZFunc::lessequal`.
const LESS_EQUAL: u32 = 5;

/// No explicit map channel (`UVGEN_MISSING`), or generated reflection (`UVGEN_REFLEXION`).
pub const UVGEN_MISSING: i32 = -1;
pub const UVGEN_REFLEXION: i32 = -2;
/// Max texture stages followed by the UV routing (`MAX_MAX_TEXTURE`).
pub const MAX_TEXTURES: usize = 8;

/// `CMaterialDesc`: where one NeL UV set of a material comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelDesc {
    pub max_channel: i32,
    pub alternative: i32,
    /// Max UV transform rows (u, v, w axes and offset), applied to (u, v, w, 1).
    pub uv_matrix: [[f32; 3]; 4],
    pub crop: [f32; 4],
    /// Why the texture's placement cannot be exported (see uv_matrix.rs).
    pub refused: Option<String>,
}

impl Default for ChannelDesc {
    fn default() -> Self {
        ChannelDesc {
            max_channel: UVGEN_MISSING,
            alternative: UVGEN_MISSING,
            uv_matrix: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0; 3]],
            crop: [0.0, 0.0, 1.0, 1.0],
            refused: None,
        }
    }
}

/// `CMaxMaterialInfo`.
#[derive(Debug, Clone)]
pub struct MaterialInfo {
    pub remap: Vec<ChannelDesc>,
    pub name: String,
    pub alpha_vertex: bool,
    pub alpha_vertex_channel: i32,
    pub color_vertex: bool,
    pub uv_routing: [u8; MAX_TEXTURES],
    pub texture_matrix: bool,
}

impl Default for MaterialInfo {
    fn default() -> Self {
        MaterialInfo {
            remap: Vec::new(),
            name: String::new(),
            alpha_vertex: false,
            alpha_vertex_channel: 0,
            color_vertex: false,
            uv_routing: [0xff; MAX_TEXTURES],
            texture_matrix: false,
        }
    }
}

/// `CMaxMeshBaseBuild`: the node's materials and their combined needs.
#[derive(Debug, Clone, Default)]
pub struct MaterialSet {
    pub materials: Vec<Material>,
    pub infos: Vec<MaterialInfo>,
    pub uv_routing: [u8; MAX_TEXTURES],
    pub need_vertex_color: bool,
    /// `hasWaterMaterial`: a single NeL material with `bWater` on.
    pub water: bool,
    /// `needVP`: a NeL material with a per-pixel lighting shader (7 or 8).
    pub needs_vp: bool,
    /// Parts of the materials that cannot be exported (the node is refused).
    pub errors: Vec<String>,
}

/// A `CMaterial` as its constructor leaves it.
pub fn new_material() -> Material {
    let env = TexEnv {
        // Modulate(Texture, Previous), third operand Previous; alpha likewise.
        rgb: vec![1, 0, 0, 1, 0, 1, 0],
        alpha: vec![1, 0, 2, 1, 2, 1, 2],
        constant_color: rgba(255, 255, 255, 255),
    };
    Material {
        version: 9,
        shader_type: shader::NORMAL,
        flags: flag::ZWRITE,
        src_blend: SRC_ALPHA,
        dst_blend: INV_SRC_ALPHA,
        z_function: LESS_EQUAL,
        z_bias: F32::from_f32(0.0),
        color: rgba(255, 255, 255, 255),
        emissive: rgba(0, 0, 0, 255),
        ambient: rgba(0, 0, 0, 255),
        diffuse: rgba(0, 0, 0, 255),
        specular: rgba(0, 0, 0, 255),
        shininess: Some(F32::from_f32(10.0)),
        alpha_test_threshold: Some(F32::from_f32(0.5)),
        tex_coord_gen_mode: Some(0),
        textures: (0..4).map(|_| Ptr::Null).collect(),
        tex_envs: vec![env; 4],
        light_maps: Vec::new(),
        light_maps_mulx2: Some(crate::nel::stream::Bool(0)),
        tex_addr_mode: None,
        user_tex_mat: Vec::new(),
    }
}

fn rgba(r: u8, g: u8, b: u8, a: u8) -> Rgba {
    Rgba { r, g, b, a }
}

fn set_flag(m: &mut Material, f: u32, on: bool) {
    if on {
        m.flags |= f;
    } else {
        m.flags &= !f;
    }
}

/// `initUnlit` / `initLighted` (both end in `setLighting` with its default
/// black colours and shininess 10).
fn init(m: &mut Material, lighted: bool) {
    m.shader_type = shader::NORMAL;
    set_flag(m, flag::LIGHTING, lighted);
    for c in [
        &mut m.emissive,
        &mut m.ambient,
        &mut m.diffuse,
        &mut m.specular,
    ] {
        *c = rgba(0, 0, 0, 255);
    }
    m.shininess = Some(F32::from_f32(10.0));
    m.color = rgba(255, 255, 255, 255);
    m.textures = (0..4).map(|_| Ptr::Null).collect();
    m.z_bias = F32::from_f32(0.0);
    m.z_function = LESS_EQUAL;
    set_flag(m, flag::ZWRITE, true);
    set_flag(m, flag::BLEND, false);
    m.alpha_test_threshold = Some(F32::from_f32(0.5));
}

/// `convertColor`: 0..1 floats to bytes, rounded and clamped in f32, alpha 255.
pub fn color(c: [f32; 3]) -> Rgba {
    let b = |x: f32| (x * 255.0 + 0.5).clamp(0.0, 255.0) as u8;
    rgba(b(c[0]), b(c[1]), b(c[2]), 255)
}

/// `buildMaterials`: the node's NeL materials and their mesh-build info.
pub fn build_materials(ctx: &Context, node: usize) -> MaterialSet {
    let mut set = MaterialSet {
        uv_routing: [0xff; MAX_TEXTURES],
        ..MaterialSet::default()
    };
    let top = mtl::node_material(ctx.graph, node).and_then(|i| mtl::material(ctx.eval, i));
    if let Some(top) = top {
        set.needs_vp = needs_vp(ctx, &top);
        if (top.class_id[0], top.class_id[1]) == NEL_MATERIAL {
            set.water = NelParams::of(ctx, &top).boolean("bWater", false);
        }
        let subs: Vec<Option<MaxMaterial>> = if top.class_id == [0x200, 0] {
            top.sub_materials
                .iter()
                .map(|s| s.and_then(|i| mtl::material(ctx.eval, i)))
                .collect()
        } else {
            vec![Some(top)]
        };
        for sub in subs {
            let mut m = new_material();
            let mut info = MaterialInfo::default();
            match sub {
                Some(s) => build_a_material(ctx, &mut m, &mut info, &s),
                // An empty sub-material slot: NeL asserts; keep a lit default.
                None => default_material(&mut m, &mut info),
            }
            set.need_vertex_color |= info.alpha_vertex | info.color_vertex;
            for d in &info.remap {
                if let Some(e) = &d.refused {
                    set.errors.push(format!("material {:?}: {e}", info.name));
                }
            }
            set.materials.push(m);
            set.infos.push(info);
        }
    }
    // Normalize the UV routing over all materials.
    for info in &set.infos {
        for j in 0..MAX_TEXTURES {
            let r = info.uv_routing[j];
            if set.uv_routing[j] == 0xff {
                set.uv_routing[j] = r;
            } else if r != 0xff && r != set.uv_routing[j] {
                set.uv_routing[j] = j as u8;
            }
        }
    }
    if set.materials.is_empty() {
        let mut m = new_material();
        let mut info = MaterialInfo::default();
        default_material(&mut m, &mut info);
        set.materials.push(m);
        set.infos.push(info);
    }
    set
}

/// The (sub-)materials of `node` whose colours live only in physically based
/// parameters (Physical, Arnold, Arch & Design …): the plug-in's material
/// rules read a Standard material's colours, so their NeL materials get its
/// defaults. Named so the shape counts as approximated, not exact. A
/// CoronaPortalMtl (a light portal, invisible in Corona's render) is named
/// as such: its NeL material is an ordinary visible one.
pub(super) fn pbr_only(ctx: &Context, node: usize) -> Vec<String> {
    let Some(top) = mtl::node_material(ctx.graph, node).and_then(|i| mtl::material(ctx.eval, i))
    else {
        return Vec::new();
    };
    let subs: Vec<MaxMaterial> = if top.class_id == [0x200, 0] {
        top.sub_materials
            .iter()
            .filter_map(|s| s.and_then(|i| mtl::material(ctx.eval, i)))
            .collect()
    } else {
        vec![top]
    };
    subs.into_iter()
        .filter(|m| m.pbr.is_some() && m.diffuse.is_none())
        .map(|m| {
            if (m.class_id[0], m.class_id[1]) == corona::CORONA_PORTAL_MTL {
                format!(
                    "{} material {:?} (a light portal, which Corona does not show: the NeL material is visible)",
                    m.class, m.name
                )
            } else {
                format!("{} material {:?}", m.class, m.name)
            }
        })
        .collect()
}

/// `needVP`: any (sub-)material whose NeL shader type is per-pixel lighting.
fn needs_vp(ctx: &Context, m: &MaxMaterial) -> bool {
    if m.class_id == [0x200, 0] {
        return m
            .sub_materials
            .iter()
            .filter_map(|s| s.and_then(|i| mtl::material(ctx.eval, i)))
            .any(|s| (s.class_id[0], s.class_id[1]) == NEL_MATERIAL && needs_vp(ctx, &s));
    }
    matches!(NelParams::of(ctx, m).int("iShaderType", 1), 7 | 8)
}

/// The material of a node without one: lit, black emissive and specular,
/// white ambient and diffuse.
fn default_material(m: &mut Material, info: &mut MaterialInfo) {
    init(m, true);
    m.emissive = rgba(0, 0, 0, 255);
    m.ambient = rgba(255, 255, 255, 255);
    m.diffuse = rgba(255, 255, 255, 255);
    m.specular = rgba(0, 0, 0, 255);
    m.shininess = Some(F32::from_f32(10.0));
    info.name = "Default".into();
}

fn build_a_material(ctx: &Context, m: &mut Material, info: &mut MaterialInfo, s: &MaxMaterial) {
    if (s.class_id[0], s.class_id[1]) == NEL_MATERIAL {
        nel_material(ctx, m, info, s);
    } else {
        other_material(ctx, m, info, s);
    }
    info.name = s.name.clone();
}

/// `pow(2, gloss·10)·4` computed as the plug-in does (double pow, float result).
fn shininess(gloss: f32) -> f32 {
    ((2.0f64).powf(gloss as f64 * 10.0) as f32) * 4.0
}

/// Specular colour scaled by the specular level, through `CRGBAF`.
fn scaled_specular(c: Rgba, level: f32) -> Rgba {
    let f = |x: u8| x as f32 / 255.0 * level;
    let b = |x: f32| (x * 255.0) as u8;
    let a = 1.0f32 * level;
    rgba(b(f(c.r)), b(f(c.g)), b(f(c.b)), b(a))
}

fn nel_material(ctx: &Context, m: &mut Material, info: &mut MaterialInfo, s: &MaxMaterial) {
    let p = NelParams::of(ctx, s);
    let mut shader_type = p.int("iShaderType", 1);
    // Lightmaps are only computed with lighting export on; the shape process has it off.
    if shader_type == 4 {
        shader_type = 1;
    }
    let water_or_lm = shader_type == 6;
    let unlit = p.boolean("bUnlighted", false);
    init(m, !unlit);
    m.shader_type = match shader_type {
        1..=5 | 7 | 8 => (shader_type - 1) as u32,
        _ => shader::NORMAL,
    };
    if shader_type == 3 {
        // setShader(UserColor) programs stages 0 and 1.
        m.tex_envs[0].rgb[..5].copy_from_slice(&[4, 0, 0, 3, 0]);
        m.tex_envs[0].alpha[..3].copy_from_slice(&[0, 1, 2]);
        m.tex_envs[1].rgb[..5].copy_from_slice(&[1, 1, 0, 2, 0]);
        m.tex_envs[1].alpha[..3].copy_from_slice(&[0, 1, 2]);
    }
    let alpha_blend = p.boolean("bAlphaBlend", false);
    set_flag(m, flag::BLEND, alpha_blend);
    m.src_blend = (p.int("iBlendSrcFunc", 1) - 1) as u32;
    m.dst_blend = (p.int("iBlendDestFunc", 1) - 1) as u32;
    if water_or_lm {
        m.src_blend = SRC_ALPHA;
        m.dst_blend = INV_SRC_ALPHA;
    }
    let alpha_test = p.boolean("bAlphaTest", false);
    set_flag(m, flag::ALPHA_TEST, alpha_test);
    let alpha_vertex = p.boolean("bAlphaVertex", false) && !water_or_lm;
    info.alpha_vertex = (alpha_blend || alpha_test) && alpha_vertex;
    info.alpha_vertex_channel = p.int("iAlphaVertexChannel", 0);
    m.z_bias = F32::from_f32(p.float("fZBias").unwrap_or(0.0));
    if alpha_blend {
        set_flag(m, flag::ZWRITE, p.boolean("bForceZWrite", false));
    } else {
        set_flag(m, flag::ZWRITE, !p.boolean("bForceNoZWrite", false));
    }
    let color_vertex = p.boolean("bColorVertex", false);
    set_flag(
        m,
        flag::LIGHTED_VERTEX_COLOR,
        m.flags & flag::LIGHTING != 0 && color_vertex,
    );
    info.color_vertex = color_vertex;

    let max_diffuse = p.color("cDiffuse").or(s.diffuse).unwrap_or([0.0; 3]);
    let mut diffuse = color(max_diffuse);
    let opacity = p.float("pOpacity").or(s.opacity).unwrap_or(0.0);
    diffuse.a = (opacity * 255.0 + 0.5).clamp(0.0, 255.0) as u8;
    if unlit {
        m.color = diffuse.clone();
        m.diffuse = rgba(diffuse.r, diffuse.g, diffuse.b, m.diffuse.a);
    } else {
        m.diffuse = rgba(diffuse.r, diffuse.g, diffuse.b, diffuse.a);
    }
    let self_color_on = p
        .get("bUseSelfIllumColor")
        .map(|_| p.boolean("bUseSelfIllumColor", false))
        .or(s.use_self_illum_color)
        .unwrap_or(false);
    let self_illum = if self_color_on {
        p.color("cSelfIllumColor")
            .or(s.self_illum_color)
            .unwrap_or([0.0; 3])
    } else {
        let k = p
            .float("pSelfIllumAmount")
            .or(s.self_illum_amount)
            .unwrap_or(0.0);
        max_diffuse.map(|c| c * k)
    };
    m.emissive = color(self_illum);
    m.ambient = color(p.color("cAmbient").or(s.ambient).unwrap_or([0.0; 3]));
    let spec = color(p.color("cSpecular").or(s.specular).unwrap_or([0.0; 3]));
    let level = p
        .float("pSpecularLevel")
        .or(s.specular_level)
        .unwrap_or(0.0)
        .clamp(0.0, 1.0);
    m.specular = scaled_specular(spec, level);
    let gloss = p.float("pGlossiness").or(s.glossiness).unwrap_or(0.0);
    m.shininess = Some(F32::from_f32(shininess(gloss)));
    if shader_type == 3 {
        let c = color(p.color("cUserColor").unwrap_or([1.0, 0.0, 1.0]));
        m.tex_envs[0].constant_color = c;
    }
    let two_sided = p
        .get("bTwoSided")
        .map(|_| p.boolean("bTwoSided", false))
        .or(s.two_sided)
        .unwrap_or(false);
    set_flag(m, flag::DOUBLE_SIDED, two_sided);

    // Textures.
    info.texture_matrix = p.boolean("bExportTextureMatrix", false);
    info.remap.clear();
    for i in 0..4usize {
        if (shader_type == 3 || shader_type == 4) && i > 0 || shader_type == 5 && i > 1 {
            break;
        }
        if !p.boolean(&format!("bEnableSlot_{}", i + 1), false) {
            continue;
        }
        let Some(tex) = p.texmap(&format!("tTexture_{}", i + 1)) else {
            continue;
        };
        let (texture, mut desc) = build_texture(ctx, tex);
        let tex_gen = p.boolean(&format!("bTexGen_{}", i + 1), false);
        if (i == 1 && shader_type == 5) || tex_gen {
            desc.max_channel = UVGEN_REFLEXION;
        }
        let ch = desc.max_channel;
        info.remap.push(desc);
        if ch >= 0 {
            let j = (0..i)
                .find(|&j| info.remap.get(j).is_some_and(|d| d.max_channel == ch))
                .unwrap_or(i);
            info.uv_routing[i] = j as u8;
        }
        m.textures[i] = texture;
        set_flag(m, flag::GEN_TEX_0 << i, ch < 0);
        if info.texture_matrix {
            // enableUserTexMat + setUserTexMat: the placement moves from the
            // UVs into the material, where the .anim's tracks drive it.
            let uv = info
                .remap
                .last()
                .map_or(uv_matrix::IDENTITY, |d| d.uv_matrix);
            enable_user_tex_mat(m, i, uv_matrix::nel_user_tex_mat(&uv));
        }
    }
    // Texture environments (normal shader only).
    if shader_type == 1 {
        for stage in 0..4usize {
            let g = |n: &str, d: i32| p.int(&format!("{n}_{}", stage + 1), d);
            let env = &mut m.tex_envs[stage];
            let (rgb, alpha) = (&mut env.rgb, &mut env.alpha);
            for (dst, pre) in [(rgb, "iRgb"), (alpha, "iAlpha")] {
                let op = g(&format!("{pre}Operation"), 1);
                let blend = g(&format!("{pre}BlendSource"), 1);
                dst[0] = (match op {
                    o if o < 5 => o - 1,
                    6 => 9,
                    _ => blend + 3,
                } & 0xf) as u8;
                for (k, def_operand) in [(0usize, 1), (1, 1), (2, 1)] {
                    let arg = g(&format!("{pre}Arg{k}"), 1);
                    let default_operand = if pre == "iAlpha" { 3 } else { def_operand };
                    let operand = g(&format!("{pre}Arg{k}Operand"), default_operand);
                    let src = if k == 0 {
                        arg - 1
                    } else if arg == 4 {
                        0
                    } else {
                        arg
                    };
                    dst[1 + 2 * k] = (src & 3) as u8;
                    dst[2 + 2 * k] = ((operand - 1) & 3) as u8;
                }
            }
            let c = color(
                p.color(&format!("cConstant_{}", stage + 1))
                    .unwrap_or([1.0, 1.0, 1.0]),
            );
            let a = g("iConstantAlpha", 255);
            m.tex_envs[stage].constant_color = rgba(c.r, c.g, c.b, a as u8);
            let mode = g("iTextureShader", 1);
            if mode > 1 {
                if m.flags & flag::TEX_ADDR == 0 {
                    m.flags |= flag::TEX_ADDR;
                    m.tex_addr_mode = Some([0; 4]);
                }
                if let Some(t) = m.tex_addr_mode.as_mut() {
                    t[stage] = (mode - 2) as u8;
                }
            }
        }
    }
}

/// `enableUserTexMat(stage)` and `setUserTexMat(stage, m)`: the matrices are
/// stored for the enabled stages only, in stage order.
fn enable_user_tex_mat(m: &mut Material, stage: usize, mat: crate::nel::stream::Matrix) {
    let before = (0..stage)
        .filter(|k| m.flags & (flag::USER_TEX_0 << k) != 0)
        .count();
    if m.flags & (flag::USER_TEX_0 << stage) == 0 {
        m.flags |= flag::USER_TEX_0 << stage;
        m.user_tex_mat.insert(before.min(m.user_tex_mat.len()), mat);
    } else if let Some(slot) = m.user_tex_mat.get_mut(before) {
        *slot = mat;
    }
}

/// Not a NeL material: the Standard material's colours and its diffuse map.
fn other_material(ctx: &Context, m: &mut Material, info: &mut MaterialInfo, s: &MaxMaterial) {
    init(m, true);
    let enabled = |slot: &str| {
        s.maps
            .iter()
            .find(|r| r.slot == slot && r.enabled != Some(false))
            .map(|r| r.texmap)
    };
    let diffuse_map = enabled("diffuse");
    let opacity_map = enabled("opacity");
    let specular_map = enabled("specular");
    // Standard materials carry none of the NeL-only switches: bAlphaTest keeps
    // its default of true.
    let alpha_test = true;
    m.shader_type = if specular_map.is_some() {
        shader::SPECULAR
    } else {
        shader::NORMAL
    };
    set_flag(m, flag::ALPHA_TEST, false);
    set_flag(m, flag::BLEND, false);
    if let Some(t) = diffuse_map {
        let cls = ctx.graph.class(t).map(|c| (c.class_id.0, c.class_id.1));
        if matches!(cls, Some((0x240, 0)) | Some((0x5a80_03f9, 0x043e_0955))) {
            let (texture, desc) = build_texture(ctx, t);
            let mut d = desc.clone();
            if desc.max_channel < 0 {
                d = ChannelDesc::default();
            }
            info.remap = vec![d];
            m.textures[0] = texture;
            if opacity_map.is_some() && alpha_test {
                set_flag(m, flag::ALPHA_TEST, true);
                set_flag(m, flag::ZWRITE, true);
            }
            if desc.max_channel >= 0 {
                info.uv_routing[0] = 0;
            }
        }
    }
    // opacityType 0 (filter) is the default.
    m.src_blend = SRC_ALPHA;
    m.dst_blend = INV_SRC_ALPHA;
    m.z_function = LESS_EQUAL;
    m.z_bias = F32::from_f32(0.0);
    if s.class_id == [2, 0] || s.diffuse.is_some() {
        let max_diffuse = s.diffuse.unwrap_or([0.0; 3]);
        let mut diffuse = color(max_diffuse);
        let op = s.opacity.unwrap_or(0.0);
        diffuse.a = (op * 255.0 + 0.5).clamp(0.0, 255.0) as u8;
        m.color = diffuse.clone();
        if op < 0.99 {
            set_flag(m, flag::ALPHA_TEST, true);
            set_flag(m, flag::ZWRITE, true);
        }
        let self_illum = if s.use_self_illum_color == Some(true) {
            s.self_illum_color.unwrap_or([0.0; 3])
        } else {
            let k = s.self_illum_amount.unwrap_or(0.0);
            max_diffuse.map(|c| c * k)
        };
        set_flag(m, flag::LIGHTING, true);
        m.emissive = color(self_illum);
        m.ambient = color(s.ambient.unwrap_or([0.0; 3]));
        m.diffuse = diffuse;
        let spec = color(s.specular.unwrap_or([0.0; 3]));
        m.specular = scaled_specular(spec, s.specular_level.unwrap_or(0.0));
        m.shininess = Some(F32::from_f32(shininess(s.glossiness.unwrap_or(0.0))));
        set_flag(m, flag::DOUBLE_SIDED, s.two_sided == Some(true));
    }
    let _ = ONE;
}

/// `buildATexture` for Bitmap and NeL Multi Bitmap texmaps: the texture (file
/// name without its directory) and the UV channel description.
pub(super) fn build_texture(ctx: &Context, texmap: usize) -> (Ptr<Texture>, ChannelDesc) {
    let mut desc = ChannelDesc {
        // StdUVGen's default map channel.
        max_channel: 1,
        ..ChannelDesc::default()
    };
    let assets = mtl::Assets::of(ctx.doc);
    let Some(t) = mtl::texmap(ctx.eval, texmap, &assets) else {
        return (Ptr::Null, desc);
    };
    if let Some(uv) = &t.uv {
        match uv_matrix::max_uv_matrix(uv) {
            Ok(m) => desc.uv_matrix = m,
            Err(e) => desc.refused = Some(e.to_string()),
        }
    }
    // StdUVGen (texmap reference 0): 0x900b = map channel, 0x9002 = tiling
    // flags (bit 0 U wrap, bit 1 V wrap); untiled axes clamp.
    let mut tiling = 3u32;
    if let Some(uvgen) = pblock::reference(ctx.graph, texmap, 0) {
        let word = |id: u16| {
            ctx.eval
                .chunks(uvgen)
                .iter()
                .find(|c| c.id == id)
                .and_then(|c| c.payload())
                .and_then(|p| p.get(..4))
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        if let Some(ch) = word(0x900b) {
            desc.max_channel = ch as i32;
        }
        if let Some(f) = word(0x9002) {
            tiling = f;
        }
    }
    // Clamp (1) where the map does not tile.
    let base = TextureBase {
        wrap_s: if tiling & 1 != 0 { 0 } else { 1 },
        wrap_t: if tiling & 2 != 0 { 0 } else { 1 },
        ..TextureBase::new_texture()
    };
    let file = |f: &Option<String>| f.as_deref().map(mtl::file_base).unwrap_or("").to_string();
    let texture = if t.class_id == [0x5a80_03f9, 0x043e_0955] {
        Texture::CTextureMultiFile(TextureMultiFile {
            version: 0,
            base,
            file_names: vec![file(&t.file)],
            curr_selected_texture: 0,
        })
    } else {
        Texture::CTextureFile(TextureFile {
            version: 1,
            base,
            file_name: file(&t.file),
            allow_degradation: Some(crate::nel::stream::Bool(1)),
        })
    };
    (
        Ptr::Obj {
            id: 0,
            obj: Box::new(texture),
        },
        desc,
    )
}
