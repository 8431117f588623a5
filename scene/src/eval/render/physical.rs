//! Physical Material (class 0x3d6b1cec, 0xdeadc001, Max 2017+) and the scripted
//! materials that delegate to it (PBR Material Metal/Rough keeps a Physical
//! Material on its reference 0 and pushes its values and maps into it; any
//! scripted material whose reference 0 is a Physical Material is read so).
//!
//! The material's reference 0 is one ParamBlock2 (block 0). Parameter ids, as
//! saved in the corpus (Max 2019–2024), in the order MAXScript lists them:
//! 0 material mode, 1 base weight, 2 base colour (FRGBA), 3 reflectivity,
//! 4 roughness, 5 roughness inversion (the value is a glossiness), 6 metalness,
//! 10 reflection colour, 11 diffuse roughness, 30 transparency, 31 transparency
//! colour, 33 IOR, 37 thin-walled, 50 emission (weight), 51 emission colour,
//! 52 luminance, 54 Kelvin. Texmap parameters 100‥120 (base weight, base colour,
//! reflectivity, reflection colour, roughness, metalness, diffuse roughness,
//! anisotropy, anisotropy angle, transparency, transparency colour, transparency
//! roughness, IOR, scattering, SSS colour, SSS scale, emission, emission colour,
//! coating, coat colour, coat roughness) and 130‥133 (bump, coat bump,
//! displacement, cutout) each own a reference slot of the block (`ref_slot`);
//! parameter id + 50 is the map's on/off flag; 230 is the bump map amount.
//! The defaults (IOR 1.52, 1500 cd/m², 6500 K, BRDF 0.05/1.0/5.0) pin this table.

use serde::Serialize;

use crate::eval::core::pblock::{self, ParamBlock2, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::material::{MapRef, Material, SC_TEXMAP};

/// Physical Material's class id.
pub const PHYSICAL: (u32, u32) = (0x3d6b_1cec, 0xdead_c001);

/// Texmap parameters of Physical Material by id, with the slot name shown in
/// materials.json (other texmap parameters appear as `map<id>`).
const MAPS: [(u16, &str); 25] = [
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
];
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
}

impl Pbr {
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
    m.pbr = Some(Pbr {
        base_weight: float(&pb, 1),
        base_color: vector(&pb, 2),
        roughness: float(&pb, 4),
        roughness_inv: boolean(&pb, 5),
        metalness: float(&pb, 6),
        transparency: float(&pb, 30),
        emission: float(&pb, 50),
        emit_color: vector(&pb, 51),
        ..Pbr::default()
    });
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
}
