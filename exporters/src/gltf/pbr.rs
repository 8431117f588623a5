//! Physical Material (and the PBR materials delegating to it) as glTF
//! metallic-roughness: base colour × base weight, metalness, roughness with the
//! inversion flag applied, transparency as alpha (BLEND), a cutout map as MASK,
//! emission colour × weight, the dielectric reflection's strength, tint and
//! Fresnel IOR where a material sets them (KHR_materials_specular,
//! KHR_materials_ior), and the base colour, normal (through Normal Bump) and
//! emission colour textures. Maps glTF cannot hold as Max stores them
//! (separate roughness/metalness images: glTF packs both in one image) are
//! named in the warnings.

use crate::error::ExportResult;
use gltf_json as json;
use json::validation::Checked::Valid;
use json::Index;
use maxfs_scene::eval::render::material as mtl;
use maxfs_scene::eval::render::physical::Pbr;

use maxfs_scene::eval::SceneEval;
use maxfs_scene::settings::TimeConfig;

use super::axes::clamp01;
use super::build::{Builder, Scale};
use super::textures::{TextureCache, TextureSearch};

/// The glTF materials of Max material objects `materials` (face material id 0)
/// as the export writes them, without geometry — for inspecting a material
/// whose meshes are not exported — with the export's warnings about them.
/// Entries that are not materials give `None`.
pub fn materials_only(
    eval: &SceneEval,
    search: &TextureSearch,
    materials: &[usize],
) -> (Vec<Option<json::Material>>, Vec<String>) {
    let assets = mtl::Assets::of(&eval.doc);
    let mut b = Builder {
        eval,
        assets: &assets,
        scale: Scale {
            metres: 1.0,
            time: TimeConfig::DEFAULT,
        },
        root: json::Root::default(),
        bin: Vec::new(),
        warnings: Vec::new(),
        dropped: Vec::new(),
        approximated: Vec::new(),
        materials: Default::default(),
        images: Default::default(),
        image_of: Default::default(),
        search,
        textures: TextureCache::default(),
        residual: Default::default(),
        morphs: Vec::new(),
    };
    let idx: Vec<_> = materials.iter().map(|&m| b.material(m, 0)).collect();
    let out = idx
        .into_iter()
        .map(|i| i.and_then(|i| b.root.materials.get(i.value()).cloned()))
        .collect();
    (out, b.warnings)
}

/// Normal Bump texmap: its first sub-map is the tangent-space normal map.
const NORMAL_BUMP: [u32; 2] = [0x243e_22c6, 0x63f6_a014];

/// Physical Material map slots with no glTF counterpart here; each enabled one
/// present is named in the warnings.
const NOT_EXPORTED: [&str; 5] = [
    "roughness",
    "metalness",
    "base_weight",
    "transparency",
    "displacement",
];

impl Builder<'_> {
    #[inline(never)]
    pub(super) fn physical(&mut self, m: &mtl::Material, p: &Pbr) -> Index<json::Material> {
        let mut missing = Vec::new();
        let mut take = |r: Option<ExportResult<json::texture::Info>>| match r? {
            Ok(info) => Some(info),
            Err(e) => {
                missing.push(e);
                None
            }
        };
        let base_tex = take(self.map_texture(m, "base_color"));
        let em_tex = take(self.map_texture(m, "emit_color"));
        let normal = self.normal_map(m).and_then(|(t, scale)| {
            take(Some(t)).map(|i| json::material::NormalTexture {
                index: i.index,
                scale,
                tex_coord: i.tex_coord,
                extensions: None,
                extras: Default::default(),
            })
        });
        for e in &missing {
            self.warnings
                .push(format!("material {:?}: texture not embedded: {e}", m.name));
        }
        for slot in NOT_EXPORTED {
            if enabled_map(m, slot) {
                self.approximate(format!(
                    "material {:?}: {slot} map not exported (no glTF counterpart as stored)",
                    m.name
                ));
            }
        }
        let weight = clamp01(p.base_weight.unwrap_or(1.0));
        let base = if base_tex.is_some() {
            [weight; 3]
        } else {
            p.base_color
                .unwrap_or([0.5; 3])
                .map(|c| clamp01(c * weight))
        };
        let alpha = 1.0 - clamp01(p.transparency.unwrap_or(0.0));
        let cutout = enabled_map(m, "cutout");
        let extensions = self.reflection_extensions(m, p);
        let emissive = if em_tex.is_some() {
            [clamp01(p.emission.unwrap_or(0.0)); 3]
        } else {
            let k = p.emission.unwrap_or(0.0);
            p.emit_color.unwrap_or([0.0; 3]).map(|c| clamp01(c * k))
        };
        self.root.push(json::Material {
            name: Some(m.name.clone()),
            alpha_mode: Valid(if alpha < 1.0 {
                json::material::AlphaMode::Blend
            } else if cutout {
                json::material::AlphaMode::Mask
            } else {
                json::material::AlphaMode::Opaque
            }),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor([
                    base[0], base[1], base[2], alpha,
                ]),
                base_color_texture: base_tex,
                metallic_factor: json::material::StrengthFactor(clamp01(
                    p.metalness.unwrap_or(0.0),
                )),
                roughness_factor: json::material::StrengthFactor(clamp01(
                    p.effective_roughness().unwrap_or(0.0),
                )),
                ..Default::default()
            },
            normal_texture: normal,
            emissive_factor: json::material::EmissiveFactor(emissive),
            emissive_texture: em_tex,
            extensions,
            extras: if missing.is_empty() {
                None
            } else {
                serde_json::value::to_raw_value(&serde_json::json!({
                    "textures_not_embedded": missing.iter().map(ToString::to_string).collect::<Vec<_>>()
                }))
                .ok()
            },
            ..Default::default()
        })
    }

    /// The dielectric reflection's strength, tint and Fresnel IOR as
    /// KHR_materials_specular and KHR_materials_ior, for the materials that
    /// set them (`Pbr::specular`, `specular_color`, `ior`); each extension
    /// written is listed in `extensionsUsed` (not required: a viewer without
    /// them shows glTF's default dielectric, specular 1 at IOR 1.5).
    fn reflection_extensions(
        &mut self,
        m: &mtl::Material,
        p: &Pbr,
    ) -> Option<json::extensions::material::Material> {
        use json::extensions::material as ext;
        let specular =
            (p.specular.is_some() || p.specular_color.is_some()).then(|| ext::Specular {
                specular_factor: ext::SpecularFactor(p.specular.unwrap_or(1.0).max(0.0)),
                specular_color_factor: ext::SpecularColorFactor(
                    p.specular_color.unwrap_or([1.0; 3]).map(clamp01),
                ),
                ..Default::default()
            });
        let ior = match p.ior {
            Some(n) if n >= 1.0 && n.is_finite() => Some(ext::Ior {
                ior: ext::IndexOfRefraction(n),
                ..Default::default()
            }),
            Some(n) => {
                self.approximate(format!(
                    "material {:?}: IOR {n} not exported (glTF's IOR is 1 or more)",
                    m.name
                ));
                None
            }
            None => None,
        };
        for (used, name) in [
            (specular.is_some(), "KHR_materials_specular"),
            (ior.is_some(), "KHR_materials_ior"),
        ] {
            if used && !self.root.extensions_used.iter().any(|e| e == name) {
                self.root.extensions_used.push(name.into());
            }
        }
        (specular.is_some() || ior.is_some()).then_some(ext::Material { specular, ior })
    }

    /// The normal map of the enabled bump slot when it is a Normal Bump (its
    /// first sub-map), with the bump amount as the glTF normal scale. A bump
    /// map of another kind (a height map) is named in the warnings.
    fn normal_map(
        &mut self,
        m: &mtl::Material,
    ) -> Option<(ExportResult<json::texture::Info>, f32)> {
        let r = m
            .maps
            .iter()
            .find(|r| r.slot == "bump" && r.enabled != Some(false))?;
        let t = mtl::texmap(self.eval, r.texmap, self.assets)?;
        if t.class_id != NORMAL_BUMP {
            self.approximate(format!(
                "material {:?}: bump map of class {:?} not exported (glTF holds normal maps)",
                m.name, t.class
            ));
            return None;
        }
        let sub = *t.sub_maps.first()?;
        let scale = r.amount.unwrap_or(1.0);
        Some((self.texmap_texture(m, "bump", sub)?, scale))
    }
}

fn enabled_map(m: &mtl::Material, slot: &str) -> bool {
    m.maps
        .iter()
        .any(|r| r.slot == slot && r.enabled != Some(false))
}
