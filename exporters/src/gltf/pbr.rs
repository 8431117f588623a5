//! Physical Material (and the PBR materials delegating to it) as glTF
//! metallic-roughness: base colour × base weight, metalness, roughness with the
//! inversion flag applied, transparency as alpha (BLEND), a cutout map as MASK,
//! emission colour × weight, the dielectric reflection's strength, tint and
//! Fresnel IOR where a material sets them (KHR_materials_specular,
//! KHR_materials_ior), a clear coat, sheen and thin film
//! (KHR_materials_clearcoat, _sheen, _iridescence), an emission brighter
//! than 1 (KHR_materials_emissive_strength), and the base colour, normal (through Normal Bump) and
//! emission colour textures. The roughness and metalness Bitmaps are packed
//! into one metallic-roughness image (`metal_rough`); a map that cannot be
//! (not a Bitmap, image not found, placed otherwise than its partner) is
//! named in the warnings, as are the maps glTF has no slot for.

use crate::error::ExportResult;
use gltf_json as json;
use json::validation::Checked::Valid;
use json::Index;
use maxfs_scene::eval::render::material as mtl;
use maxfs_scene::eval::render::physical::{Pbr, Tint};

use maxfs_scene::eval::SceneEval;
use maxfs_scene::settings::TimeConfig;

use super::axes::clamp01;
use super::build::{taken, Builder, Scale};
use super::metal_rough;
use super::textures::{self, TextureCache, TextureError, TextureSearch};

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
        by_object: Default::default(),
        images: Default::default(),
        image_of: Default::default(),
        search,
        textures: TextureCache::default(),
        residual: Default::default(),
        morphs: Vec::new(),
        mesh_node: Default::default(),
    };
    let idx: Vec<_> = materials.iter().map(|&m| b.material(m, 0, None)).collect();
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
const NOT_EXPORTED: [&str; 3] = ["base_weight", "transparency", "displacement"];

/// What the metallic-roughness texture of a material carries: the texture,
/// and which of its two channels come from a map (the glTF factor of such
/// a channel is 1: the map replaces the value, as Babylon writes it).
#[derive(Default)]
struct MetalRough {
    info: Option<json::texture::Info>,
    roughness: bool,
    metalness: bool,
}

/// A map to pack: its slot, Bitmap, stored path, the file it resolves to,
/// and its decoded image — decoded only when no material packed the same
/// maps before (a texture set shared by many materials is read once).
struct Packable {
    slot: &'static str,
    texmap: mtl::Texmap,
    stored: String,
    path: std::path::PathBuf,
    image: Option<image::DynamicImage>,
}

/// The builder's image key of a packed metallic-roughness texture: the
/// stored paths of its two maps and the roughness inversion.
fn packed_key(found: &[Packable], invert: bool) -> String {
    let of = |slot: &str| {
        found
            .iter()
            .find(|f| f.slot == slot)
            .map_or("", |f| &f.stored)
    };
    format!(
        "\u{0}metal_rough\u{0}{}\u{0}{}\u{0}{invert}",
        of("roughness"),
        of("metalness")
    )
}

impl Builder<'_> {
    #[inline(never)]
    pub(super) fn physical(&mut self, m: &mtl::Material, p: &Pbr) -> Index<json::Material> {
        let mut missing = Vec::new();
        let base_tex = taken(self.map_texture(m, "base_color"), &mut missing);
        let em_tex = taken(self.map_texture(m, "emit_color"), &mut missing);
        let normal = taken(self.normal_map(m), &mut missing);
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
        let mr = self.metal_rough(m, p);
        let weight = clamp01(p.base_weight.unwrap_or(1.0));
        // Full transmission on a dielectric: Max shows no base colour, and
        // glTF tints the transmitted light by it (`Pbr::transmission_tint`).
        let (base_tex, base) = match p.transmission_tint() {
            Some(Tint::Replace(c)) => (None, c.map(clamp01)),
            _ if base_tex.is_some() => (base_tex, [weight; 3]),
            _ => (
                None,
                p.base_color
                    .unwrap_or([0.5; 3])
                    .map(|c| clamp01(c * weight)),
            ),
        };
        let alpha = if p.transmission.is_some() {
            1.0
        } else {
            1.0 - clamp01(p.transparency.unwrap_or(0.0))
        };
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
                metallic_factor: json::material::StrengthFactor(if mr.metalness {
                    1.0
                } else {
                    clamp01(p.metalness.unwrap_or(0.0))
                }),
                roughness_factor: json::material::StrengthFactor(if mr.roughness {
                    1.0
                } else {
                    clamp01(p.effective_roughness().unwrap_or(0.0))
                }),
                metallic_roughness_texture: mr.info,
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

    /// The enabled roughness and metalness Bitmaps of `m` packed into one
    /// metallic-roughness texture (`metal_rough`; roughness inverted where
    /// the material's is a glossiness), placed as the first of them is. A
    /// map that is not a Bitmap, whose image is not found or not readable,
    /// or that is placed otherwise than the other is left out and named.
    fn metal_rough(&mut self, m: &mtl::Material, p: &Pbr) -> MetalRough {
        let mut found: Vec<Packable> = Vec::new();
        let mut placed: Option<(&str, Option<mtl::UvGen>)> = None;
        for slot in mtl::PACKED_SLOTS {
            let Some(r) = m
                .maps
                .iter()
                .find(|r| r.slot == slot && r.enabled != Some(false))
            else {
                continue;
            };
            let Some(t) = mtl::texmap(self.eval, r.texmap, self.assets) else {
                continue;
            };
            let Some(stored) = t.file.clone().filter(|f| !mtl::file_base(f).is_empty()) else {
                self.approximate(format!(
                    "material {:?}: {slot} map of class {:?} not exported (only a Bitmap's image is packed into glTF's metallic-roughness image)",
                    m.name, t.class
                ));
                continue;
            };
            let shown = mtl::file_base(&stored).to_string();
            if t.mono_from_alpha {
                self.approximate(format!(
                    "material {:?}: {slot} map {shown:?} not exported: its mono output is the alpha channel (only RGB intensity is packed)",
                    m.name
                ));
                continue;
            }
            match &placed {
                Some((first, uv)) if *uv != t.uv => {
                    self.approximate(format!(
                        "material {:?}: {slot} map {shown:?} not exported: placed otherwise than the {first} map (UV channel, offset, tiling or angle), and glTF packs both in one image",
                        m.name
                    ));
                    continue;
                }
                Some(_) => {}
                None => placed = Some((slot, t.uv.clone())),
            }
            match self.search.resolve(&stored) {
                Ok(path) => found.push(Packable {
                    slot,
                    texmap: t,
                    stored,
                    path,
                    image: None,
                }),
                Err(e) => self.approximate(format!(
                    "material {:?}: {slot} map {shown:?} not exported: {e}",
                    m.name
                )),
            }
        }
        let invert = p.roughness_inv == Some(true);
        let mut key = packed_key(&found, invert);
        if !self.image_of.contains_key(&key) {
            found.retain_mut(|f| match textures::decode(&f.path) {
                Ok(image) => {
                    f.image = Some(image);
                    true
                }
                Err(e) => {
                    self.approximate(format!(
                        "material {:?}: {} map {:?} not exported: {e}",
                        m.name,
                        f.slot,
                        mtl::file_base(&f.stored)
                    ));
                    false
                }
            });
            key = packed_key(&found, invert);
        }
        let Some(first) = found.first() else {
            return MetalRough::default();
        };
        let of = |slot: &str| found.iter().find(|f| f.slot == slot);
        let (rough, metal) = (of("roughness"), of("metalness"));
        let name = format!("{}_metallicRoughness", m.name);
        let packed = || {
            fn source(f: Option<&Packable>, invert: bool) -> Option<metal_rough::Source<'_>> {
                f.and_then(|f| f.image.as_ref())
                    .map(|image| metal_rough::Source { image, invert })
            }
            let png = metal_rough::pack(source(rough, invert), source(metal, false))
                .map(image::DynamicImage::ImageRgb8)
                .ok_or_else(|| "no source".to_string())
                .and_then(|img| textures::png(&img).map_err(|e| e.to_string()));
            png.map_err(|reason| {
                crate::error::ExportError::Texture(TextureError::Decode {
                    path: name.clone(),
                    reason,
                })
            })
        };
        let texmap = first.texmap.clone();
        let shown = name.clone();
        let info = self.placed_texture(m, "metallic-roughness", &texmap, &shown, |b, wrap| {
            b.texture_from(&key, name.clone(), wrap, |_| packed())
        });
        match info {
            Ok(info) => MetalRough {
                info: Some(info),
                roughness: rough.is_some(),
                metalness: metal.is_some(),
            },
            Err(e) => {
                self.approximate(format!(
                    "material {:?}: roughness/metalness maps not exported: {e}",
                    m.name
                ));
                MetalRough::default()
            }
        }
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
        let others = layer_extensions(p, self.scale.metres as f32);
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

    /// The normal texture of the enabled bump slot when it is a Normal Bump
    /// (its first sub-map), with the bump amount as the glTF normal scale. A
    /// bump map of another kind (a height map) is named in the warnings.
    pub(super) fn normal_map(
        &mut self,
        m: &mtl::Material,
    ) -> Option<ExportResult<json::material::NormalTexture>> {
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
        let info = self.texmap_texture(m, "bump", sub)?;
        Some(info.map(|i| json::material::NormalTexture {
            index: i.index,
            scale,
            tex_coord: i.tex_coord,
            extensions: None,
            extras: Default::default(),
        }))
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
/// (KHR_materials_sheen), thin film (KHR_materials_iridescence, its
/// thickness as the maximum: without a thickness texture glTF uses that,
/// and the validator notes a minimum as having no effect) and transmission
/// (KHR_materials_transmission; unless thin-walled KHR_materials_volume,
/// its attenuation the transmission's colour at its depth, converted to
/// metres by `metres` per scene unit; the thickness is the mesh's, set by
/// `volume_thickness` once the meshes are written) and translucency
/// (KHR_materials_diffuse_transmission).
pub(super) fn layer_extensions(p: &Pbr, metres: f32) -> serde_json::Map<String, serde_json::Value> {
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
    if let Some(t) = p.transmission {
        out.insert(
            "KHR_materials_transmission".into(),
            json!({ "transmissionFactor": clamp01(t.weight) }),
        );
        if !t.thin_walled {
            let mut v = serde_json::Map::new();
            let distance = t.depth * metres;
            if distance > 0.0 && distance.is_finite() {
                v.insert("attenuationColor".into(), json!(t.color.map(clamp01)));
                v.insert("attenuationDistance".into(), json!(distance));
            }
            out.insert(VOLUME.into(), serde_json::Value::Object(v));
        }
    }
    if let Some(d) = p.diffuse_transmission {
        out.insert(
            "KHR_materials_diffuse_transmission".into(),
            json!({
                "diffuseTransmissionFactor": clamp01(d.weight),
                "diffuseTransmissionColorFactor": d.color.map(clamp01),
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

const VOLUME: &str = "KHR_materials_volume";

/// Sets the `thicknessFactor` of every KHR_materials_volume material to the
/// smallest side of the bounding boxes (mesh space, metres) of the
/// primitives it shades: glTF's thickness is the volume's extent beneath
/// the surface, which Max takes from the geometry itself. A flat mesh gives
/// 0, a thin wall, as Max would render it; a material on no mesh keeps
/// glTF's default 0.
pub(super) fn volume_thickness(root: &mut json::Root) {
    let mut thickness: std::collections::BTreeMap<usize, f64> = Default::default();
    for prim in root.meshes.iter().flat_map(|m| &m.primitives) {
        let Some(mat) = prim.material else { continue };
        let pos = prim
            .attributes
            .get(&Valid(json::mesh::Semantic::Positions))
            .and_then(|a| root.accessors.get(a.value()));
        let side = |a: &json::Accessor| -> Option<f64> {
            let lo = a.min.as_ref()?.as_array()?;
            let hi = a.max.as_ref()?.as_array()?;
            lo.iter()
                .zip(hi)
                .map(|(l, h)| Some(h.as_f64()? - l.as_f64()?))
                .try_fold(f64::INFINITY, |m, d| Some(m.min(d?)))
        };
        if let Some(d) = pos.and_then(side) {
            let e = thickness.entry(mat.value()).or_insert(f64::INFINITY);
            *e = e.min(d.max(0.0));
        }
    }
    for (i, m) in root.materials.iter_mut().enumerate() {
        let Some(v) = m
            .extensions
            .as_mut()
            .and_then(|e| e.others.get_mut(VOLUME))
            .and_then(serde_json::Value::as_object_mut)
        else {
            continue;
        };
        if let Some(t) = thickness.get(&i).filter(|t| t.is_finite()) {
            v.insert("thicknessFactor".into(), serde_json::json!(*t as f32));
        }
    }
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
        let e = layer_extensions(&p, 1.0);
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
        assert!(layer_extensions(&Pbr::default(), 1.0).is_empty());
    }
}
