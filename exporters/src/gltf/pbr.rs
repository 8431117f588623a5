//! Physical Material (and the PBR materials delegating to it) as glTF
//! metallic-roughness: base colour × base weight, metalness, roughness with the
//! inversion flag applied, transparency as alpha (BLEND), a cutout map as MASK,
//! emission colour × weight, the dielectric reflection's strength, tint and
//! Fresnel IOR where a material sets them (KHR_materials_specular,
//! KHR_materials_ior), a clear coat, sheen and thin film
//! (KHR_materials_clearcoat, _sheen, _iridescence), an emission brighter
//! than 1 (KHR_materials_emissive_strength), and the base colour, normal (through Normal Bump) and
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
        let (emissive, strength) = emission(p, em_tex.is_some());
        let extensions = self.reflection_extensions(m, p, strength);
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
        emissive_strength: Option<f32>,
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
        let emissive_strength = emissive_strength.map(|k| ext::EmissiveStrength {
            emissive_strength: ext::EmissiveStrengthFactor(k),
        });
        let others = layer_extensions(p);
        for (used, name) in [
            (specular.is_some(), "KHR_materials_specular"),
            (ior.is_some(), "KHR_materials_ior"),
            (
                emissive_strength.is_some(),
                "KHR_materials_emissive_strength",
            ),
        ]
        .into_iter()
        .chain(others.keys().map(|k| (true, k.as_str())))
        {
            if used && !self.root.extensions_used.iter().any(|e| e == name) {
                self.root.extensions_used.push(name.into());
            }
        }
        (specular.is_some() || ior.is_some() || emissive_strength.is_some() || !others.is_empty())
            .then_some(ext::Material {
                specular,
                ior,
                emissive_strength,
                others,
            })
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

/// The emissive factor and, when the emission is brighter than glTF's
/// factor can hold (a weight above 1), the KHR_materials_emissive_strength
/// that scales it back: factor × strength = emission colour × weight. With
/// an emission texture the factor is the weight alone.
pub(super) fn emission(p: &Pbr, textured: bool) -> ([f32; 3], Option<f32>) {
    let k = p.emission.unwrap_or(0.0).max(0.0);
    let e = if textured {
        [k; 3]
    } else {
        p.emit_color.unwrap_or([0.0; 3]).map(|c| (c * k).max(0.0))
    };
    let top = e.iter().copied().fold(0.0f32, f32::max);
    if top > 1.0 && top.is_finite() {
        (e.map(|c| c / top), Some(top))
    } else {
        (e.map(clamp01), None)
    }
}

/// The layers glTF's ratified extensions hold beyond the core model, by
/// extension name: the clear coat (KHR_materials_clearcoat), sheen
/// (KHR_materials_sheen) and thin film (KHR_materials_iridescence, its
/// thickness as the maximum: without a thickness texture glTF uses that,
/// and the validator notes a minimum as having no effect).
pub(super) fn layer_extensions(p: &Pbr) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::json;
    let mut out = serde_json::Map::new();
    if let Some(c) = p.clearcoat {
        out.insert(
            "KHR_materials_clearcoat".into(),
            json!({
                "clearcoatFactor": clamp01(c.weight),
                "clearcoatRoughnessFactor": clamp01(c.roughness),
            }),
        );
    }
    if let Some(s) = p.sheen {
        out.insert(
            "KHR_materials_sheen".into(),
            json!({
                "sheenColorFactor": s.color.map(clamp01),
                "sheenRoughnessFactor": clamp01(s.roughness),
            }),
        );
    }
    if let Some(t) = p.thin_film {
        out.insert(
            "KHR_materials_iridescence".into(),
            json!({
                "iridescenceFactor": clamp01(t.weight),
                "iridescenceIor": t.ior.max(1.0),
                "iridescenceThicknessMaximum": t.thickness_nm.max(0.0),
            }),
        );
    }
    out
}

fn enabled_map(m: &mtl::Material, slot: &str) -> bool {
    m.maps
        .iter()
        .any(|r| r.slot == slot && r.enabled != Some(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use maxfs_scene::eval::render::physical::{Coat, Sheen, ThinFilm};

    /// An emission weight above 1 moves into KHR_materials_emissive_strength
    /// (factor × strength = colour × weight); at most 1 it stays the factor.
    #[test]
    fn emission_beyond_one_is_a_strength() {
        let p = Pbr {
            emission: Some(4.0),
            emit_color: Some([1.0, 0.5, 0.0]),
            ..Pbr::default()
        };
        let (f, k) = emission(&p, false);
        assert_eq!((f, k), ([1.0, 0.5, 0.0], Some(4.0)));
        let (f, k) = emission(&p, true);
        assert_eq!((f, k), ([1.0; 3], Some(4.0)));
        let dim = Pbr {
            emission: Some(0.5),
            emit_color: Some([1.0, 0.5, 0.0]),
            ..Pbr::default()
        };
        assert_eq!(emission(&dim, false), ([0.5, 0.25, 0.0], None));
    }

    /// Coat, sheen and thin film as their ratified extensions' fields.
    #[test]
    fn layers_as_extensions() {
        let p = Pbr {
            clearcoat: Some(Coat {
                weight: 1.0,
                roughness: 0.7,
            }),
            sheen: Some(Sheen {
                color: [0.5, 0.25, 0.0],
                roughness: 0.4,
            }),
            thin_film: Some(ThinFilm {
                weight: 1.0,
                ior: 1.3,
                thickness_nm: 400.0,
            }),
            ..Pbr::default()
        };
        let e = layer_extensions(&p);
        let v = serde_json::Value::Object(e);
        let near = |a: &serde_json::Value, b: f64| (a.as_f64().unwrap_or(-1.0) - b).abs() < 1e-6;
        assert!(
            near(&v["KHR_materials_clearcoat"]["clearcoatFactor"], 1.0),
            "{v}"
        );
        assert!(
            near(
                &v["KHR_materials_clearcoat"]["clearcoatRoughnessFactor"],
                0.7
            ),
            "{v}"
        );
        assert!(
            near(&v["KHR_materials_sheen"]["sheenColorFactor"][1], 0.25),
            "{v}"
        );
        assert!(
            near(&v["KHR_materials_sheen"]["sheenRoughnessFactor"], 0.4),
            "{v}"
        );
        assert!(
            near(&v["KHR_materials_iridescence"]["iridescenceIor"], 1.3),
            "{v}"
        );
        assert!(
            near(
                &v["KHR_materials_iridescence"]["iridescenceThicknessMaximum"],
                400.0
            ),
            "{v}"
        );
        assert!(layer_extensions(&Pbr::default()).is_empty());
    }
}
