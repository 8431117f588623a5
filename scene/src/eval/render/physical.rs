//! Physical Material (class 0x3d6b1cec, 0xdeadc001, Max 2017+) and the scripted
//! materials that delegate to it (PBR Material Metal/Rough keeps a Physical
//! Material on its reference 0 and pushes its values and maps into it; any
//! scripted material whose reference 0 is a Physical Material is read so).
//!
//! The material's reference 0 is one ParamBlock2 (block 0). Parameter ids, as
//! saved in the corpus (Max 2017–2024), paired with the MAXScript names in
//! the order Max's FBX exporter writes them (`3dsMax|Parameters|…` of
//! max2024-rico/Shotgun.fbx: the same order as the ids are stored, and the
//! same values): 0 material_mode, 1 base_weight, 2 base_color (FRGBA),
//! 3 reflectivity, 4 roughness, 5 roughness_inv (the value is a glossiness),
//! 6 metalness, 10 refl_color, 11 diff_roughness, 12 brdf_mode (on: by IOR),
//! 13/14/15 brdf_low/high/curve, 20 anisotropy, 21 anisoangle, 22 aniso_mode,
//! 23 aniso_channel, 30 transparency, 31 trans_color, 32 trans_depth,
//! 35 trans_roughness, 36 trans_roughness_inv, 34 trans_roughness_lock,
//! 33 trans_ior (the Fresnel IOR of the whole material), 37 thin_walled,
//! 38 dispersion, 85 trans_scatter_color, 86 trans_scatter_aniso,
//! 40 scattering, 41 sss_color, 42 sss_depth, 43 sss_scale,
//! 44 sss_scatter_color, 50 emission (weight), 51 emit_color,
//! 52 emit_luminance, 54 emit_kelvin, 60 coating, 61 coat_color,
//! 62 coat_roughness, 63 coat_roughness_inv, 64 coat_affect_color,
//! 65 coat_affect_roughness, 66 coat_ior, 67 coat_anisotropy,
//! 68 coat_anisoangle, 70 sheen, 71 sheen_color, 72 sheen_roughness,
//! 80 thin_film, 81 thin_film_thickness (nm), 82 thin_film_ior. Ids 38 and
//! up to 86 arrive with Max 2023's layout; older files stop at 66 and keep
//! anisotropy as a ratio (default 1.0, angle 0.0) where the newer layout
//! keeps it centred on 0 (default 0.0, angle 0.25). Texmap parameters
//! 100‥120 (base weight, base colour, reflectivity, reflection colour,
//! roughness, metalness, diffuse roughness, anisotropy, anisotropy angle,
//! transparency, transparency colour, transparency roughness, IOR,
//! scattering, SSS colour, SSS scale, emission, emission colour, coating,
//! coat colour, coat roughness), 130‥133 (bump, coat bump, displacement,
//! cutout) and 121‥127 (coat anisotropy, its angle, sheen, sheen colour,
//! sheen roughness, thin film, its IOR) each own a reference slot of the
//! block (`ref_slot`); parameter id + 50 is the map's on/off flag; 230 and
//! 231 are the bump and coat bump amounts. The defaults (IOR 1.52, 1500
//! cd/m², 6500 K, BRDF 0.05/1.0/5.0, coat IOR 1.52, sheen roughness 0.3,
//! thin film 555 nm at IOR 1.3) pin this table.
//!
//! Carried: the core metal/rough values, the reflection's strength, tint
//! and IOR (KHR_materials_specular, KHR_materials_ior), the coat's weight
//! and roughness (KHR_materials_clearcoat), sheen (KHR_materials_sheen) and
//! thin film (KHR_materials_iridescence). Named as partial where set (see
//! `extras`): what glTF has no faithful counterpart for.

use serde::Serialize;

use crate::eval::core::pblock::{self, ParamBlock2, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::material::{MapRef, Material, SC_TEXMAP};

/// Physical Material's class id.
pub const PHYSICAL: (u32, u32) = (0x3d6b_1cec, 0xdead_c001);

/// Physical Material's value parameters by id with their MAXScript names
/// (the module doc says where each pairing comes from).
pub const PARAMS: [(u16, &str); 52] = [
    (0, "material_mode"),
    (1, "base_weight"),
    (2, "base_color"),
    (3, "reflectivity"),
    (4, "roughness"),
    (5, "roughness_inv"),
    (6, "metalness"),
    (10, "refl_color"),
    (11, "diff_roughness"),
    (12, "brdf_mode"),
    (13, "brdf_low"),
    (14, "brdf_high"),
    (15, "brdf_curve"),
    (20, "anisotropy"),
    (21, "anisoangle"),
    (22, "aniso_mode"),
    (23, "aniso_channel"),
    (30, "transparency"),
    (31, "trans_color"),
    (32, "trans_depth"),
    (33, "trans_ior"),
    (34, "trans_roughness_lock"),
    (35, "trans_roughness"),
    (36, "trans_roughness_inv"),
    (37, "thin_walled"),
    (38, "dispersion"),
    (40, "scattering"),
    (41, "sss_color"),
    (42, "sss_depth"),
    (43, "sss_scale"),
    (44, "sss_scatter_color"),
    (50, "emission"),
    (51, "emit_color"),
    (52, "emit_luminance"),
    (54, "emit_kelvin"),
    (60, "coating"),
    (61, "coat_color"),
    (62, "coat_roughness"),
    (63, "coat_roughness_inv"),
    (64, "coat_affect_color"),
    (65, "coat_affect_roughness"),
    (66, "coat_ior"),
    (67, "coat_anisotropy"),
    (68, "coat_anisoangle"),
    (70, "sheen"),
    (71, "sheen_color"),
    (72, "sheen_roughness"),
    (80, "thin_film"),
    (81, "thin_film_thickness"),
    (82, "thin_film_ior"),
    (85, "trans_scatter_color"),
    (86, "trans_scatter_aniso"),
];

/// Texmap parameters of Physical Material by id, with the slot name shown in
/// materials.json (other texmap parameters appear as `map<id>`).
const MAPS: [(u16, &str); 32] = [
    (100, "base_weight"),
    (101, "base_color"),
    (102, "reflectivity"),
    (103, "refl_color"),
    (104, "roughness"),
    (105, "metalness"),
    (106, "diff_roughness"),
    (107, "anisotropy"),
    (108, "aniso_angle"),
    (109, "transparency"),
    (110, "trans_color"),
    (111, "trans_roughness"),
    (112, "trans_ior"),
    (113, "scattering"),
    (114, "sss_color"),
    (115, "sss_scale"),
    (116, "emission"),
    (117, "emit_color"),
    (118, "coating"),
    (119, "coat_color"),
    (120, "coat_roughness"),
    (130, "bump"),
    (131, "coat_bump"),
    (132, "displacement"),
    (133, "cutout"),
    (121, "coat_aniso"),
    (122, "coat_aniso_angle"),
    (123, "sheen"),
    (124, "sheen_color"),
    (125, "sheen_roughness"),
    (126, "thin_film"),
    (127, "thin_film_ior"),
];
/// Map slots the glTF export carries (the bump only as a Normal Bump, which
/// the exporter checks and names otherwise; roughness and metalness
/// Bitmaps too, packed: `material::packed_maps`); every other enabled map
/// is named as partial.
const EXPORTED_MAPS: [&str; 4] = ["base_color", "emit_color", "bump", "cutout"];
/// The on/off flag of texmap parameter `id` is parameter `id + MAP_ON`.
const MAP_ON: u16 = 50;
const BUMP_AMOUNT: u16 = 230;

/// The physically based values of a material (Physical Material or a material
/// delegating to one), as stored: no unit or gamma conversion.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Pbr {
    /// Multiplies the base colour (0..1).
    pub base_weight: Option<f32>,
    pub base_color: Option<[f32; 3]>,
    pub metalness: Option<f32>,
    pub roughness: Option<f32>,
    /// When true `roughness` holds a glossiness (roughness = 1 − value).
    pub roughness_inv: Option<bool>,
    /// 0 = opaque, 1 = fully transparent.
    pub transparency: Option<f32>,
    /// Emission weight; the emitted colour is `emit_color × emission`.
    pub emission: Option<f32>,
    pub emit_color: Option<[f32; 3]>,
    /// Strength of the dielectric specular reflection (glTF
    /// KHR_materials_specular's factor; None = glTF's default 1).
    pub specular: Option<f32>,
    /// Tint of the dielectric specular reflection at normal incidence
    /// (KHR_materials_specular's colour; None = white).
    pub specular_color: Option<[f32; 3]>,
    /// Index of refraction of the Fresnel reflection (KHR_materials_ior;
    /// None = glTF's default 1.5).
    pub ior: Option<f32>,
    /// A clear coat over the base (KHR_materials_clearcoat): its weight and
    /// roughness (a roughness, any inversion applied). None: no coat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clearcoat: Option<Coat>,
    /// A sheen lobe (KHR_materials_sheen). None: no sheen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sheen: Option<Sheen>,
    /// A thin film over the base (KHR_materials_iridescence). None: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thin_film: Option<ThinFilm>,
    /// Refraction through the material (KHR_materials_transmission, with
    /// KHR_materials_volume unless thin-walled). None: `transparency`, if
    /// any, is an alpha.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transmission: Option<Transmission>,
    /// Diffuse light let through the surface (translucency:
    /// KHR_materials_diffuse_transmission). None: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diffuse_transmission: Option<DiffuseTransmission>,
    /// The base colour is each node's object colour
    /// ([`object_colour`](crate::eval::render::object_colour)), not
    /// `base_color` (Autodesk Generic's Color By Object).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub colour_by_object: bool,
}

impl Pbr {
    /// These values as shown on a node whose object colour is `colour`
    /// (8-bit RGB, taken as stored like every colour here): a material whose
    /// colour is the node's gets it as its base colour; any other is as it is.
    /// `None` when the material needs the node's colour and none is known.
    pub fn on_node(&self, colour: Option<[u8; 3]>) -> Option<Pbr> {
        if !self.colour_by_object {
            return Some(self.clone());
        }
        let c = colour?;
        Some(Pbr {
            base_color: Some(c.map(|v| f32::from(v) / 255.0)),
            ..self.clone()
        })
    }
}

/// Translucency: the fraction 0..1 of the diffuse light that passes
/// through the surface instead of being reflected, and the colour it takes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DiffuseTransmission {
    pub weight: f32,
    pub color: [f32; 3],
}

/// Light passing through the material, refracted at the IOR: its weight
/// 0..1, the colour it takes and the depth (scene units) at which it has
/// that colour (0: at the surface), and whether the surface is a thin wall
/// (no volume: no bending, the colour at the surface).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Transmission {
    pub weight: f32,
    pub color: [f32; 3],
    pub depth: f32,
    pub thin_walled: bool,
}

/// A clear coat layer: weight 0..1 and roughness 0..1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Coat {
    pub weight: f32,
    pub roughness: f32,
}

/// A sheen lobe: its colour (already scaled by the sheen weight) and
/// roughness 0..1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sheen {
    pub color: [f32; 3],
    pub roughness: f32,
}

/// A thin-film interference layer: weight 0..1, the film's IOR and its
/// thickness in nanometres.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ThinFilm {
    pub weight: f32,
    pub ior: f32,
    pub thickness_nm: f32,
}

/// How glTF can show the colour of transmitted light: glTF tints it by the
/// base colour, Max by the transmission's own colour at the surface (its
/// colour at depth 0 or on a thin wall, else white: the volume's
/// attenuation carries it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tint {
    /// The base colour is that tint already, or no transmission shows
    /// (a metal hides it, in Max as in glTF).
    Same,
    /// Nothing but the transmission shows the base colour (weight 1, no
    /// metalness): the base colour becomes this tint.
    Replace([f32; 3]),
    /// The base colour shows elsewhere and differs from the tint.
    Differs,
}

impl Pbr {
    /// How the transmission's colour fits glTF (`Tint`); None without one.
    /// The base colour is `base_color × base_weight`; a base colour map is
    /// the exporter's to weigh.
    pub fn transmission_tint(&self) -> Option<Tint> {
        let t = self.transmission?;
        let tint = if t.thin_walled || t.depth <= 0.0 {
            t.color
        } else {
            [1.0; 3]
        };
        let metal = self.metalness.unwrap_or(0.0).clamp(0.0, 1.0);
        let weight = t.weight.clamp(0.0, 1.0);
        let w = self.base_weight.unwrap_or(1.0);
        let base = self.base_color.unwrap_or([0.5; 3]).map(|c| c * w);
        Some(
            if (1.0 - metal) * weight <= 0.0 || base.iter().zip(tint).all(|(b, c)| !differs(*b, c))
            {
                Tint::Same
            } else if metal <= 0.0 && weight >= 1.0 {
                Tint::Replace(tint)
            } else {
                Tint::Differs
            },
        )
    }

    /// Roughness with the inversion flag applied (0..1 as stored).
    pub fn effective_roughness(&self) -> Option<f32> {
        let r = self.roughness?;
        Some(if self.roughness_inv == Some(true) {
            1.0 - r
        } else {
            r
        })
    }
}

/// A ParamBlock2 parameter as a float, vector or switch (None when absent or
/// of another type); shared by the material decoders of this module family.
pub(super) fn float(pb: &ParamBlock2, id: u16) -> Option<f32> {
    match pb.param(id)?.value {
        Value::Float(v) => Some(v),
        _ => None,
    }
}

pub(super) fn vector(pb: &ParamBlock2, id: u16) -> Option<[f32; 3]> {
    match pb.param(id)?.value {
        Value::Vector(v) => Some(v),
        _ => None,
    }
}

pub(super) fn boolean(pb: &ParamBlock2, id: u16) -> Option<bool> {
    match pb.param(id)?.value {
        Value::Bool(v) => Some(v),
        Value::Int(v) => Some(v != 0),
        _ => None,
    }
}

/// Decodes Physical Material object `idx` into `m` (values in `m.pbr`, maps in
/// `m.maps`). Errors (missing or undecodable block) go to `m.errors`.
pub fn physical(eval: &SceneEval, idx: usize, m: &mut Material) {
    let g = &eval.graph;
    let Some((pbi, pb)) = crate::eval::render::material::block0(eval, idx, "Physical Material", m)
    else {
        return;
    };
    let mut pbr = Pbr {
        base_weight: float(&pb, 1),
        base_color: vector(&pb, 2),
        roughness: float(&pb, 4),
        roughness_inv: boolean(&pb, 5),
        metalness: float(&pb, 6),
        transparency: float(&pb, 30),
        emission: float(&pb, 50),
        emit_color: vector(&pb, 51),
        ..Pbr::default()
    };
    extras(&pb, &mut pbr, &mut m.unmapped);
    m.pbr = Some(pbr);
    let first_map = m.maps.len();
    for p in &pb.params {
        if p.base_type() != pblock::ty::TEXMAP {
            continue;
        }
        let Some(slot) = p.ref_slot else { continue };
        let Some(t) = pblock::reference(g, pbi, slot) else {
            continue;
        };
        if !crate::eval::render::material::is_super_class(eval, t, SC_TEXMAP) {
            continue;
        }
        let name = MAPS
            .iter()
            .find(|(id, _)| *id == p.id)
            .map_or_else(|| format!("map{}", p.id), |(_, n)| n.to_string());
        m.maps.push(MapRef {
            slot: name,
            texmap: t,
            enabled: p.id.checked_add(MAP_ON).and_then(|on| boolean(&pb, on)),
            amount: (p.id == 130).then(|| float(&pb, BUMP_AMOUNT)).flatten(),
        });
    }
    let packed = crate::eval::render::material::packed_maps(eval, &m.maps[first_map..]);
    let dropped: Vec<String> = m.maps[first_map..]
        .iter()
        .enumerate()
        .filter(|(i, _)| !packed.contains(i))
        .map(|(_, r)| r)
        .filter(|r| r.enabled != Some(false) && !EXPORTED_MAPS.contains(&r.slot.as_str()))
        .filter(|r| !layer_absent(&pb, &m.maps[first_map..], &r.slot))
        .map(|r| format!("{} map (not exported)", r.slot))
        .collect();
    m.unmapped.extend(dropped);
}

/// Layers of Physical Material and the maps that only shape them: its
/// weight parameter, its weight map slot, and the dependent slots.
const LAYERS: [(u16, &str, &[&str]); 5] = [
    (30, "transparency", &["trans_color", "trans_roughness"]),
    (40, "scattering", &["sss_color", "sss_scale"]),
    (
        60,
        "coating",
        &[
            "coat_color",
            "coat_roughness",
            "coat_bump",
            "coat_aniso",
            "coat_aniso_angle",
        ],
    ),
    (70, "sheen", &["sheen_color", "sheen_roughness"]),
    (80, "thin_film", &["thin_film_ior"]),
];

/// Whether `slot` only shapes a layer that is absent: its weight stored as
/// 0 and no weight map on (a coat bump without a coat changes nothing
/// rendered, so it is no gap).
fn layer_absent(pb: &ParamBlock2, maps: &[MapRef], slot: &str) -> bool {
    LAYERS.iter().any(|(weight, weight_map, slots)| {
        slots.contains(&slot)
            && float(pb, *weight).is_some_and(|w| w <= 0.0)
            && !maps
                .iter()
                .any(|r| r.slot == *weight_map && r.enabled != Some(false))
    })
}

/// Whether `v` differs from `d` beyond float noise.
fn differs(v: f32, d: f32) -> bool {
    (v - d).abs() > 1e-4
}

fn is_white(c: [f32; 3]) -> bool {
    c.iter().all(|&x| !differs(x, 1.0))
}

/// Physical Material's values beyond the core metal/rough ones: the
/// reflection (specular strength, tint, IOR), coat, sheen and thin film
/// into `p`; what glTF has no faithful counterpart for, when set away from
/// its neutral value, named in `unmapped`.
pub fn extras(pb: &ParamBlock2, p: &mut Pbr, unmapped: &mut Vec<String>) {
    let f = |id: u16| float(pb, id);
    // The dielectric reflection: written only where it differs from glTF's
    // default (strength 1, white); the IOR always (glTF's default is 1.5).
    if let Some(r) = f(3).filter(|&r| differs(r, 1.0)) {
        p.specular = Some(r);
    }
    if let Some(c) = vector(pb, 10).filter(|&c| !is_white(c)) {
        p.specular_color = Some(c);
    }
    p.ior = f(33);
    if boolean(pb, 12) == Some(false) {
        unmapped.push(format!(
            "custom reflectance curve (0 deg {}, 90 deg {}, curve {}; glTF reflects by IOR)",
            f(13).unwrap_or(0.0),
            f(14).unwrap_or(0.0),
            f(15).unwrap_or(0.0)
        ));
    }
    if let Some(d) = f(11).filter(|&d| d > 0.0) {
        unmapped.push(format!("diffuse roughness {d} (no glTF counterpart)"));
    }
    // Anisotropy: a ratio centred on 1 in the pre-2023 layout (no dispersion
    // parameter), a value centred on 0 after; neither scale is pinned to
    // KHR_materials_anisotropy's strength.
    let isotropic = if pb.param(38).is_some() { 0.0 } else { 1.0 };
    if let Some(a) = f(20).filter(|&a| differs(a, isotropic)) {
        unmapped.push(format!(
            "anisotropy {a} (angle {}; its scale is not pinned to glTF's)",
            f(21).unwrap_or(0.0)
        ));
    }
    // Transparency is refraction (Max's names, as the FBX writes them, and
    // Autodesk's glTF Material, which maps transmission onto transparency,
    // volume colour and distance onto trans_color and trans_depth, thickness
    // onto thin_walled): the colour is reached at the depth, at the surface
    // with depth 0 or a thin wall.
    if let Some(t) = f(30).filter(|&t| t > 0.0) {
        p.transmission = Some(Transmission {
            weight: t,
            color: vector(pb, 31).unwrap_or([1.0; 3]),
            depth: f(32).unwrap_or(0.0).max(0.0),
            thin_walled: boolean(pb, 37) == Some(true),
        });
        if p.transmission_tint() == Some(Tint::Differs) {
            unmapped.push(format!(
                "transparency colour {:?} beside base colour {:?} (glTF tints transmitted light by the base colour)",
                vector(pb, 31).unwrap_or([1.0; 3]),
                p.base_color.unwrap_or([0.5; 3])
            ));
        }
        let locked = boolean(pb, 34) != Some(false);
        let inv = boolean(pb, 36) == Some(true);
        if let Some(r) = f(35)
            .map(|r| if inv { 1.0 - r } else { r })
            .filter(|&r| !locked && r > 0.0)
        {
            unmapped.push(format!(
                "transparency roughness {r} (glTF's transmission takes the surface roughness)"
            ));
        }
        if let Some(d) = f(38).filter(|&d| d > 0.0) {
            unmapped.push(format!("dispersion {d} (no glTF counterpart)"));
        }
        let scatter = vector(pb, 85).is_some_and(|c| c.iter().any(|&x| x > 0.0));
        if scatter {
            unmapped.push(format!(
                "transparency scattering {:?} (no glTF counterpart)",
                vector(pb, 85).unwrap_or_default()
            ));
        }
    }
    if let Some(s) = f(40).filter(|&s| s > 0.0) {
        unmapped.push(format!(
            "subsurface scattering {s} (colour {:?}, depth {}; no glTF counterpart)",
            vector(pb, 41).unwrap_or_default(),
            f(42).unwrap_or(0.0)
        ));
    }
    // Emission: luminance and temperature scale and tint the emitted
    // colour; glTF's emission has neither unit, so they are named when
    // they differ from Max's defaults (1500 cd/m², 6500 K).
    let emits = f(50).is_some_and(|e| e > 0.0)
        && vector(pb, 51).is_some_and(|c| c.iter().any(|&x| x > 0.0));
    if emits {
        if let Some(l) = f(52).filter(|&l| differs(l, 1500.0)) {
            unmapped.push(format!(
                "emission luminance {l} cd/m2 (glTF emission has no photometric scale)"
            ));
        }
        if let Some(k) = f(54).filter(|&k| differs(k, 6500.0)) {
            unmapped.push(format!(
                "emission temperature {k} K (its tint is not applied)"
            ));
        }
    }
    // Coat: weight and roughness carried; its tint, its effect on the base
    // and an IOR away from glTF's fixed 1.5 are not.
    if let Some(w) = f(60).filter(|&w| w > 0.0) {
        let r = f(62).unwrap_or(0.0);
        let roughness = if boolean(pb, 63) == Some(true) {
            1.0 - r
        } else {
            r
        };
        p.clearcoat = Some(Coat {
            weight: w,
            roughness,
        });
        if let Some(c) = vector(pb, 61).filter(|&c| !is_white(c)) {
            unmapped.push(format!("coat colour {c:?} (glTF's clear coat is untinted)"));
        }
        let affect = (f(64).unwrap_or(0.0), f(65).unwrap_or(0.0));
        if affect.0 > 0.0 || affect.1 > 0.0 {
            unmapped.push(format!(
                "coat affects base colour {} and roughness {} (no glTF counterpart)",
                affect.0, affect.1
            ));
        }
        if let Some(n) = f(66).filter(|&n| (n - 1.5).abs() > 0.025) {
            unmapped.push(format!("coat IOR {n} (glTF's clear coat has IOR 1.5)"));
        }
        if let Some(a) = f(67).filter(|&a| a != 0.0) {
            unmapped.push(format!("coat anisotropy {a} (no glTF counterpart)"));
        }
    }
    if let Some(w) = f(70).filter(|&w| w > 0.0) {
        let c = vector(pb, 71).unwrap_or([1.0; 3]);
        p.sheen = Some(Sheen {
            color: c.map(|x| x * w),
            roughness: f(72).unwrap_or(0.3),
        });
    }
    if let Some(w) = f(80).filter(|&w| w > 0.0) {
        p.thin_film = Some(ThinFilm {
            weight: w,
            thickness_nm: f(81).unwrap_or(555.0),
            ior: f(82).unwrap_or(1.3),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Param;

    fn block(params: Vec<Param>) -> ParamBlock2 {
        ParamBlock2 {
            params,
            ..ParamBlock2::default()
        }
    }

    fn fl(id: u16, v: f32) -> Param {
        Param::plain(id, 0, Value::Float(v))
    }

    /// A map that only shapes a layer is no gap while the layer is absent
    /// (weight 0, no weight map on); radobaychev's couch.max holds coat
    /// bumps on materials with coating 0. Unknown weights keep it named.
    #[test]
    fn maps_of_an_absent_layer_are_no_gap() {
        let map = |slot: &str, enabled| MapRef {
            slot: slot.into(),
            texmap: 0,
            enabled: Some(enabled),
            amount: None,
        };
        let no_coat = block(vec![fl(60, 0.0), fl(70, 0.5)]);
        assert!(layer_absent(&no_coat, &[], "coat_bump"));
        assert!(layer_absent(
            &no_coat,
            &[map("coating", false)],
            "coat_roughness"
        ));
        // A coating map on makes the coat, whatever the weight.
        assert!(!layer_absent(
            &no_coat,
            &[map("coating", true)],
            "coat_bump"
        ));
        // Sheen is on; bump and displacement shape the base.
        assert!(!layer_absent(&no_coat, &[], "sheen_color"));
        assert!(!layer_absent(&no_coat, &[], "bump"));
        assert!(!layer_absent(&no_coat, &[], "displacement"));
        assert!(!layer_absent(&block(vec![]), &[], "coat_bump"));
    }

    /// Color By Object takes the node's colour as the base colour, as
    /// stored (8 bits per channel); other materials do not change per node.
    #[test]
    fn a_colour_by_object_is_the_nodes() {
        let by_object = Pbr {
            base_color: None,
            roughness: Some(0.5),
            colour_by_object: true,
            ..Pbr::default()
        };
        let on = by_object
            .on_node(Some([255, 51, 0]))
            .expect("a node colour");
        assert_eq!(on.base_color, Some([1.0, 0.2, 0.0]));
        assert_eq!(on.roughness, Some(0.5));
        assert_eq!(by_object.on_node(None), None);
        let own = Pbr {
            base_color: Some([0.1, 0.2, 0.3]),
            ..Pbr::default()
        };
        assert_eq!(own.on_node(Some([255, 255, 255])), Some(own.clone()));
        assert_eq!(own.on_node(None), Some(own));
    }

    fn rgb(id: u16, c: [f32; 3]) -> Param {
        Param::plain(id, 0x17, Value::Vector(c))
    }

    fn flag(id: u16, b: bool) -> Param {
        Param::plain(id, 4, Value::Bool(b))
    }

    /// Max's defaults (the values of the FBX of an untouched material):
    /// nothing named, only the Fresnel IOR 1.52 carried.
    #[test]
    fn defaults_carry_the_ior_only() {
        let pb = block(vec![
            fl(3, 1.0),
            rgb(10, [1.0; 3]),
            flag(12, true),
            fl(20, 0.0),
            fl(21, 0.25),
            fl(30, 0.0),
            fl(33, 1.52),
            fl(38, 0.0),
            fl(40, 0.0),
            fl(50, 1.0),
            rgb(51, [0.0; 3]),
            fl(52, 1500.0),
            fl(54, 6500.0),
            fl(60, 0.0),
            fl(70, 0.0),
            fl(80, 0.0),
        ]);
        let (mut p, mut gaps) = (Pbr::default(), Vec::new());
        extras(&pb, &mut p, &mut gaps);
        assert!(gaps.is_empty(), "{gaps:?}");
        assert_eq!(p.ior, Some(1.52));
        assert_eq!((p.specular, p.specular_color), (None, None));
        assert_eq!((p.clearcoat, p.sheen, p.thin_film), (None, None, None));
    }

    /// Coat with an inverted roughness (a glossiness), sheen and thin film
    /// are carried; the reflection's strength and tint too.
    #[test]
    fn layers_are_carried() {
        let pb = block(vec![
            fl(3, 0.6),
            rgb(10, [0.35; 3]),
            fl(60, 1.0),
            rgb(61, [1.0; 3]),
            fl(62, 0.3),
            flag(63, true),
            fl(64, 0.0),
            fl(65, 0.0),
            fl(66, 1.52),
            fl(70, 0.5),
            rgb(71, [1.0, 0.5, 0.0]),
            fl(72, 0.4),
            fl(80, 1.0),
            fl(81, 400.0),
            fl(82, 1.3),
        ]);
        let (mut p, mut gaps) = (Pbr::default(), Vec::new());
        extras(&pb, &mut p, &mut gaps);
        assert!(gaps.is_empty(), "{gaps:?}");
        assert_eq!(p.specular, Some(0.6));
        assert_eq!(p.specular_color, Some([0.35; 3]));
        let c = p.clearcoat.expect("coat");
        assert_eq!(c.weight, 1.0);
        assert!((c.roughness - 0.7).abs() < 1e-6);
        assert_eq!(
            p.sheen,
            Some(Sheen {
                color: [0.5, 0.25, 0.0],
                roughness: 0.4
            })
        );
        assert_eq!(
            p.thin_film,
            Some(ThinFilm {
                weight: 1.0,
                ior: 1.3,
                thickness_nm: 400.0
            })
        );
    }

    /// What glTF cannot hold is named: a tinted coat acting on the base, a
    /// coat IOR away from 1.5, SSS, diffuse roughness, a custom reflectance
    /// curve, emission luminance and temperature; anisotropy against its
    /// layout's own neutral value.
    #[test]
    fn the_rest_is_named() {
        let pb = block(vec![
            fl(11, 0.5),
            flag(12, false),
            fl(20, 0.08),
            fl(30, 1.0),
            rgb(31, [0.8, 0.9, 1.0]),
            fl(32, 30.0),
            fl(33, 1.4),
            flag(37, false),
            fl(40, 0.3),
            fl(50, 1.0),
            rgb(51, [1.0; 3]),
            fl(52, 494.0),
            fl(54, 5389.0),
            fl(60, 1.0),
            rgb(61, [0.9, 0.8, 0.7]),
            fl(64, 0.5),
            fl(65, 0.5),
            fl(66, 1.8),
        ]);
        let (mut p, mut gaps) = (Pbr::default(), Vec::new());
        extras(&pb, &mut p, &mut gaps);
        let all = gaps.join("; ");
        for want in [
            "diffuse roughness 0.5",
            "custom reflectance curve",
            "anisotropy 0.08",
            "subsurface scattering 0.3",
            "emission luminance 494",
            "emission temperature 5389",
            "coat colour",
            "coat affects base colour 0.5",
            "coat IOR 1.8",
        ] {
            assert!(all.contains(want), "{want:?} not in {all}");
        }
        assert_eq!(gaps.len(), 9, "{gaps:?}");
        // Refraction through a tinted volume is carried, not named.
        assert_eq!(
            p.transmission,
            Some(Transmission {
                weight: 1.0,
                color: [0.8, 0.9, 1.0],
                depth: 30.0,
                thin_walled: false
            })
        );
        // The pre-2023 layout (no dispersion, 38) keeps anisotropy 1 as
        // isotropic; the newer one 0.
        let old = block(vec![fl(20, 1.0), fl(21, 0.0)]);
        let mut gaps = Vec::new();
        extras(&old, &mut Pbr::default(), &mut gaps);
        assert!(gaps.is_empty(), "{gaps:?}");
        let new = block(vec![fl(20, 1.0), fl(38, 0.0)]);
        extras(&new, &mut Pbr::default(), &mut gaps);
        assert_eq!(gaps.len(), 1, "{gaps:?}");
    }

    /// The transmission's tint against glTF's, which is the base colour:
    /// full transmission on a dielectric replaces the base colour (by the
    /// colour at the surface: at depth 0 or on a thin wall; white when a
    /// volume attenuates it); partial transmission with another base
    /// colour is named; a metal hides it, in Max as in glTF.
    #[test]
    fn transmission_tint_against_the_base_colour() {
        let glass = |weight: f32, depth: f32, thin: bool, metal: f32| {
            let pb = block(vec![
                fl(30, weight),
                rgb(31, [0.2, 0.4, 0.6]),
                fl(32, depth),
                flag(37, thin),
            ]);
            let mut p = Pbr {
                base_color: Some([0.5; 3]),
                metalness: Some(metal),
                ..Pbr::default()
            };
            let mut gaps = Vec::new();
            extras(&pb, &mut p, &mut gaps);
            (p.transmission_tint(), gaps)
        };
        assert_eq!(
            glass(1.0, 0.0, false, 0.0).0,
            Some(Tint::Replace([0.2, 0.4, 0.6]))
        );
        assert_eq!(
            glass(1.0, 0.0, true, 0.0).0,
            Some(Tint::Replace([0.2, 0.4, 0.6]))
        );
        assert_eq!(
            glass(1.0, 10.0, false, 0.0).0,
            Some(Tint::Replace([1.0; 3]))
        );
        let (t, gaps) = glass(0.5, 10.0, false, 0.0);
        assert_eq!(t, Some(Tint::Differs));
        assert!(
            gaps.iter().any(|g| g.starts_with("transparency colour")),
            "{gaps:?}"
        );
        let (t, gaps) = glass(0.5, 10.0, false, 1.0);
        assert_eq!(t, Some(Tint::Same));
        assert!(gaps.is_empty(), "{gaps:?}");
        assert_eq!(glass(0.0, 0.0, false, 0.0).0, None);
    }
}
