//! Corona's CoronaMtl (class 0x70be6506, 0x448931dd; renamed CoronaLegacyMtl
//! in Corona 7), as saved by Corona 1.x–6 for Max 2015–2021, and
//! CoronaPortalMtl (0x76666506, 0x448ade9d).
//!
//! Reference 0 is one ParamBlock2 (block 0; versions 7, 10 and 15 met in
//! Stibenet/3D-model) holding every channel as a colour with a level beside
//! it, then the texmap slots, their switches and amounts, and the rest. The
//! parameter ids are Corona's own, as AMD's public Radeon ProRender plug-in
//! for 3ds Max declares them to read CoronaMtl (`CoronaDeclarations.h`,
//! `MtlParamIDs`; session 30): colours 101 diffuse, 102 reflection, 103
//! refraction, 105 opacity, 106 translucency, 107 self-illumination; levels
//! 121, 122, 123, 126 translucency, 127 opacity, 128 self-illumination;
//! texmaps 141–159 (table `MAPS`), each switched by its id + 20 and scaled
//! by its amount (290 upwards, see `MAPS`); 180 reflection glossiness, 181
//! refraction glossiness, 182 Fresnel IOR, 183 refraction IOR. Each agrees
//! with what earlier sessions pinned on their own: the FBX measurement of
//! 101/121, 102/122, 103/123, 180, 182, 183 and map slots 0, 1, 6;
//! CookiesWithCup.max's gingerbread colour and relief maps in slots 0
//! (141) and 6 (147); 127 the only one of 126–128 that is 1.0 in untouched
//! materials (a default Corona material is opaque, neither translucent nor
//! glowing); the switches of exactly the filled slots on.
//!
//! Mapped as Physical Material's values (docs/gltf-export.md): base colour =
//! colorDiffuse × levelDiffuse, metalness 0 (CoronaMtl is a dielectric).
//! Corona scales each channel by its level and its colour; the reflection
//! is weighted by the Fresnel term of the Fresnel IOR, which is glTF's
//! dielectric specular with KHR_materials_specular (factor = levelReflect ×
//! the reflection colour's brightest channel, colour = the reflection
//! colour over it, so a grey colour is exact and a coloured one is named)
//! and KHR_materials_ior (= fresnelIor); roughness
//! = 1 − reflectGlossiness when the material reflects (level above 0 with
//! a colour other than black, or an enabled reflection map) and 1
//! otherwise. Opacity = levelOpacity × the opacity colour (grey);
//! transparency = 1 − opacity × (1 − levelRefract × the refraction
//! colour's mean). Emission = levelSelfIllum × colorSelfIllum. Maps:
//! diffuse → base colour, self-illumination → emission colour, bump (its
//! amount the normal scale), each with its switch; a diffuse or
//! self-illumination map at an amount other than 1 (Corona blends map and
//! colour by it) is named. Translucency (level above 0: the fraction of
//! diffuse light let through, and its colour) is
//! KHR_materials_diffuse_transmission; every other enabled map is named.
//!
//! CoronaPortalMtl makes its object a light portal: Corona samples the sky
//! through it and never shows the surface (camera, reflection and
//! refraction rays pass through it). It is evaluated as fully transparent
//! (alpha 0), white, with no reflection: the mesh stays in the export and
//! shows nothing, as in Corona's render.

use crate::eval::core::pblock::{self, ParamBlock2};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::material::{self, MapRef, Material, NamedBlock, SC_TEXMAP};
use crate::eval::render::physical::{self, float, vector, DiffuseTransmission, Pbr};

/// CoronaMtl's class id.
pub const CORONA_MTL: (u32, u32) = (0x70be_6506, 0x4489_31dd);
/// CoronaPortalMtl's class id.
pub const CORONA_PORTAL_MTL: (u32, u32) = (0x7666_6506, 0x448a_de9d);

const COLOR_DIFFUSE: u16 = 101;
const COLOR_REFLECT: u16 = 102;
const COLOR_REFRACT: u16 = 103;
const COLOR_OPACITY: u16 = 105;
const COLOR_TRANSLUCENCY: u16 = 106;
const COLOR_SELF_ILLUM: u16 = 107;
const LEVEL_DIFFUSE: u16 = 121;
const LEVEL_REFLECT: u16 = 122;
const LEVEL_REFRACT: u16 = 123;
const LEVEL_TRANSLUCENCY: u16 = 126;
const LEVEL_OPACITY: u16 = 127;
const LEVEL_SELF_ILLUM: u16 = 128;
const REFLECT_GLOSSINESS: u16 = 180;
const FRESNEL_IOR: u16 = 182;

/// One texmap parameter: its id, the slot name shown in materials.json
/// (Physical Material's names where the exports read it), its switch and
/// its amount parameters.
struct MapSlot {
    id: u16,
    slot: &'static str,
    switch: u16,
    amount: Option<u16>,
}

const fn slot(id: u16, slot: &'static str, amount: Option<u16>) -> MapSlot {
    MapSlot {
        id,
        slot,
        switch: id + 20,
        amount,
    }
}

/// CoronaMtl's texmap parameters (149 and 155 are retired ids, unused).
const MAPS: [MapSlot; 20] = [
    slot(141, "base_color", Some(290)),
    slot(142, "reflection", Some(291)),
    slot(143, "refl_glossiness", Some(292)),
    slot(144, "refraction", Some(293)),
    slot(145, "refr_glossiness", Some(294)),
    slot(146, "opacity", Some(295)),
    slot(147, "bump", Some(296)),
    slot(148, "translucency", Some(297)),
    slot(150, "anisotropy", Some(299)),
    slot(151, "aniso_rotation", Some(300)),
    slot(152, "refr_ior", Some(301)),
    slot(153, "fresnel_ior", Some(302)),
    slot(154, "displacement", None),
    slot(156, "refl_bg_override", None),
    slot(157, "refr_bg_override", None),
    slot(158, "emit_color", Some(303)),
    slot(159, "translucency_fraction", Some(304)),
    MapSlot {
        id: 305,
        slot: "attenuation_tint",
        switch: 306,
        amount: Some(307),
    },
    MapSlot {
        id: 308,
        slot: "scatter_albedo",
        switch: 309,
        amount: Some(310),
    },
    MapSlot {
        id: 311,
        slot: "rounded_edges",
        switch: 312,
        amount: Some(313),
    },
];

/// The slots the glTF export reads (docs/gltf-export.md).
const EXPORTED: [&str; 3] = ["base_color", "emit_color", "bump"];
/// Exported slots whose texture replaces the colour only at amount 1.
const BLENDED: [&str; 2] = ["base_color", "emit_color"];

/// Names the switched-on maps of a Corona material (CoronaMtl or
/// CoronaPhysicalMtl, whose slot names are the same) that glTF does not
/// carry, and the carried colour maps blended at an amount other than 1,
/// which glTF can only take at full amount.
pub(super) fn name_map_gaps(m: &mut Material) {
    for r in m.maps.iter().filter(|r| r.enabled != Some(false)) {
        if !EXPORTED.contains(&r.slot.as_str()) {
            m.unmapped.push(format!("{} map (not exported)", r.slot));
        } else if BLENDED.contains(&r.slot.as_str()) && r.amount.is_some_and(|a| a != 1.0) {
            m.unmapped.push(format!(
                "{} map amount {} (the texture is exported at full amount)",
                r.slot,
                r.amount.unwrap_or(1.0)
            ));
        }
    }
}

/// A colour's channels' mean.
fn mean(c: [f32; 3]) -> f32 {
    (c[0] + c[1] + c[2]) / 3.0
}

/// CoronaMtl's block as Physical Material's values, and what is set but not
/// carried. `reflection_map`: an enabled reflection map is set (it counts
/// even where the level or colour is zero).
pub fn to_pbr(pb: &ParamBlock2, reflection_map: bool) -> (Pbr, Vec<String>) {
    let mut unmapped = Vec::new();
    let level = float(pb, LEVEL_REFLECT).unwrap_or(0.0);
    let colour = vector(pb, COLOR_REFLECT);
    let coloured = colour.is_some_and(|c| c.iter().any(|&x| x > 0.0));
    let reflects = (level > 0.0 && coloured) || reflection_map;
    let (roughness, inv) = if reflects {
        (float(pb, REFLECT_GLOSSINESS), Some(true))
    } else {
        (Some(1.0), Some(false))
    };
    let refraction = match (float(pb, LEVEL_REFRACT), vector(pb, COLOR_REFRACT)) {
        (Some(l), Some(c)) => Some(l * mean(c)),
        (Some(l), None) => Some(l),
        _ => None,
    };
    let (specular, tint) = reflection(level, colour.unwrap_or([1.0; 3]));
    if level > 0.0 && tint.iter().any(|&t| t != 1.0) {
        unmapped.push(format!(
            "reflection colour {:?} at grazing angles (glTF tints the reflection at normal incidence only)",
            colour.unwrap_or([1.0; 3])
        ));
    }
    let opacity = opacity(pb, &mut unmapped);
    let transparency = refraction.map(|r| 1.0 - opacity.unwrap_or(1.0) * (1.0 - r));
    // Translucency: its level is the fraction of the diffuse light passed
    // through the surface, its colour that light's tint, which is what
    // KHR_materials_diffuse_transmission's factor and colour hold.
    let diffuse_transmission = match float(pb, LEVEL_TRANSLUCENCY) {
        Some(0.0) => None,
        Some(l) => Some(DiffuseTransmission {
            weight: l,
            color: vector(pb, COLOR_TRANSLUCENCY).unwrap_or([1.0; 3]),
        }),
        None => {
            unmapped.push(format!(
                "translucency (level parameter {LEVEL_TRANSLUCENCY} absent)"
            ));
            None
        }
    };
    let emission = float(pb, LEVEL_SELF_ILLUM);
    if emission.is_none() {
        unmapped.push(format!(
            "self-illumination (level parameter {LEVEL_SELF_ILLUM} absent)"
        ));
    }
    let pbr = Pbr {
        base_weight: float(pb, LEVEL_DIFFUSE),
        base_color: vector(pb, COLOR_DIFFUSE),
        metalness: Some(0.0),
        roughness,
        roughness_inv: inv,
        transparency,
        emission,
        emit_color: vector(pb, COLOR_SELF_ILLUM),
        specular: Some(specular),
        specular_color: Some(tint),
        ior: float(pb, FRESNEL_IOR),
        diffuse_transmission,
        ..Pbr::default()
    };
    (pbr, unmapped)
}

/// Corona's reflection (`level` × `colour` × the Fresnel term) as glTF's
/// specular strength and tint: glTF scales the reflection at every angle by
/// the strength and at normal incidence also by the tint, so the strength
/// takes the colour's brightest channel and the tint the colour over it —
/// exact for a grey colour, the tint missing at grazing angles otherwise.
fn reflection(level: f32, colour: [f32; 3]) -> (f32, [f32; 3]) {
    let peak = colour.iter().fold(0.0f32, |a, &c| a.max(c));
    if peak > 0.0 {
        (level * peak, colour.map(|c| c / peak))
    } else {
        (0.0, [1.0; 3])
    }
}

/// The opacity: the opacity level × the opacity colour while that colour is
/// grey (glTF's alpha is one number). None (opaque) with the reason named
/// when it cannot be read.
fn opacity(pb: &ParamBlock2, unmapped: &mut Vec<String>) -> Option<f32> {
    let Some(level) = float(pb, LEVEL_OPACITY) else {
        unmapped.push(format!("opacity (level parameter {LEVEL_OPACITY} absent)"));
        return None;
    };
    match vector(pb, COLOR_OPACITY) {
        Some(c) if c[0] == c[1] && c[1] == c[2] => Some(level * c[0]),
        Some(c) => {
            unmapped.push(format!(
                "opacity colour {c:?} at level {level} (a coloured opacity; glTF's alpha is one number)"
            ));
            None
        }
        None => {
            unmapped.push(format!("opacity (colour parameter {COLOR_OPACITY} absent)"));
            None
        }
    }
}

/// Decodes CoronaMtl object `idx` into `m`: the values in `m.pbr`, the
/// texmaps in `m.maps`, the whole block in `m.blocks`.
pub fn corona_mtl(eval: &SceneEval, idx: usize, m: &mut Material) {
    let g = &eval.graph;
    let Some((pbi, pb)) = material::block0(eval, idx, "CoronaMtl", m) else {
        return;
    };
    if pb.param(COLOR_DIFFUSE).is_none() {
        m.errors.push(format!(
            "CoronaMtl block (object {pbi}): no diffuse colour (parameter {COLOR_DIFFUSE})"
        ));
        return;
    }
    let texmap_of = |p: &pblock::Param| {
        p.ref_slot
            .and_then(|s| pblock::reference(g, pbi, s))
            .filter(|&t| material::is_super_class(eval, t, SC_TEXMAP))
    };
    for p in &pb.params {
        if p.base_type() != pblock::ty::TEXMAP || p.is_tab() {
            continue;
        }
        let Some(t) = texmap_of(p) else { continue };
        let known = MAPS.iter().find(|s| s.id == p.id);
        m.maps.push(MapRef {
            slot: known.map_or_else(|| format!("map{}", p.id), |s| s.slot.to_string()),
            texmap: t,
            enabled: known.and_then(|s| physical::boolean(&pb, s.switch)),
            amount: known.and_then(|s| s.amount).and_then(|a| float(&pb, a)),
        });
    }
    let on = |r: &MapRef| r.enabled != Some(false);
    let reflection_map = m.maps.iter().any(|r| r.slot == "reflection" && on(r));
    let (pbr, unmapped) = to_pbr(&pb, reflection_map);
    m.pbr = Some(pbr);
    m.unmapped.extend(unmapped);
    name_map_gaps(m);
    m.blocks.push(NamedBlock {
        name: "ref0".into(),
        object: pbi,
        block: pb,
    });
}

/// Decodes CoronaPortalMtl object `idx` into `m`: a light portal, fully
/// transparent in the render (see the module doc). Its block is kept in
/// `m.blocks`; no value of it changes what the surface shows.
pub fn corona_portal(eval: &SceneEval, idx: usize, m: &mut Material) {
    let block = pblock::reference(&eval.graph, idx, 0)
        .and_then(|pbi| Some((pbi, pblock::param_block2(eval.chunks(pbi)).ok()?)));
    if let Some((pbi, pb)) = block {
        m.blocks.push(NamedBlock {
            name: "ref0".into(),
            object: pbi,
            block: pb,
        });
    }
    m.pbr = Some(portal_pbr());
}

/// What a light portal shows: nothing (alpha 0, no reflection).
pub fn portal_pbr() -> Pbr {
    Pbr {
        base_weight: Some(1.0),
        base_color: Some([1.0; 3]),
        metalness: Some(0.0),
        roughness: Some(1.0),
        roughness_inv: Some(false),
        transparency: Some(1.0),
        specular: Some(0.0),
        ..Pbr::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::{Param, Value};

    /// The other channels as every untouched block of the public files
    /// stores them: colours 105–107 (opacity, translucency,
    /// self-illumination) white, level 126 (translucency) `translucency`,
    /// 127 (opacity) `opacity`, 128 (self-illumination) 0.
    fn channels(opacity: f32, translucency: f32) -> Vec<Param> {
        vec![
            Param::plain(105, 2, Value::Vector([1.0; 3])),
            Param::plain(106, 2, Value::Vector([1.0; 3])),
            Param::plain(107, 2, Value::Vector([1.0; 3])),
            Param::plain(127, 0, Value::Float(opacity)),
            Param::plain(126, 0, Value::Float(translucency)),
            Param::plain(128, 0, Value::Float(0.0)),
        ]
    }

    fn block(mut params: Vec<Param>, opacity: f32, translucency: f32) -> ParamBlock2 {
        params.extend(channels(opacity, translucency));
        ParamBlock2 {
            params,
            ..ParamBlock2::default()
        }
    }

    /// The block of Stibenet/3D-model's LowPoly/Store.max material object
    /// 360 as stored (diffuse 208/179/179, every level but diffuse and
    /// opacity 0, glossiness 1, both indices 1.52): an opaque matte colour
    /// with no reflection (specular 0), evaluated whole.
    #[test]
    fn store_matte_colour() {
        let pb = block(
            vec![
                Param::plain(101, 2, Value::Vector([0.81568635, 0.7019608, 0.7019608])),
                Param::plain(102, 2, Value::Vector([1.0; 3])),
                Param::plain(103, 2, Value::Vector([1.0; 3])),
                Param::plain(121, 0, Value::Float(1.0)),
                Param::plain(122, 0, Value::Float(0.0)),
                Param::plain(123, 0, Value::Float(0.0)),
                Param::plain(180, 0, Value::Float(1.0)),
                Param::plain(182, 0, Value::Float(1.52)),
                Param::plain(183, 0, Value::Float(1.52)),
            ],
            1.0,
            0.0,
        );
        let (p, unmapped) = to_pbr(&pb, false);
        assert_eq!(p.base_color, Some([0.81568635, 0.7019608, 0.7019608]));
        assert_eq!(p.base_weight, Some(1.0));
        assert_eq!(p.metalness, Some(0.0));
        assert_eq!(p.effective_roughness(), Some(1.0));
        assert_eq!(p.transparency, Some(0.0));
        assert_eq!(p.specular, Some(0.0));
        assert_eq!(p.emission, Some(0.0));
        assert!(unmapped.is_empty(), "{unmapped:?}");
    }

    /// Store.max object 374 (white, reflection and refraction levels 1,
    /// glossiness 0.85, Fresnel IOR 1.52, refraction IOR 1.105): a clear
    /// glossy pane, its reflection carried whole (specular 1, white, IOR
    /// 1.52).
    #[test]
    fn store_glass() {
        let pb = block(
            vec![
                Param::plain(101, 2, Value::Vector([1.0; 3])),
                Param::plain(102, 2, Value::Vector([1.0; 3])),
                Param::plain(103, 2, Value::Vector([1.0; 3])),
                Param::plain(121, 0, Value::Float(1.0)),
                Param::plain(122, 0, Value::Float(1.0)),
                Param::plain(123, 0, Value::Float(1.0)),
                Param::plain(180, 0, Value::Float(0.85)),
                Param::plain(182, 0, Value::Float(1.52)),
                Param::plain(183, 0, Value::Float(1.105)),
            ],
            1.0,
            0.0,
        );
        let (p, unmapped) = to_pbr(&pb, false);
        assert!((p.effective_roughness().unwrap_or(-1.0) - 0.15).abs() < 1e-6);
        assert_eq!(p.transparency, Some(1.0));
        assert_eq!(p.specular, Some(1.0));
        assert_eq!(p.specular_color, Some([1.0; 3]));
        assert_eq!(p.ior, Some(1.52));
        assert!(unmapped.is_empty(), "{unmapped:?}");
    }

    /// LowPoly/Wheelbarrow.max object 357: refraction level 0.06 of white,
    /// reflection level 0.17 at glossiness 0.87; its other material holds
    /// 0.16 at parameter 126, the translucency level (white): the fraction
    /// of diffuse light let through, KHR_materials_diffuse_transmission.
    #[test]
    fn wheelbarrow_partial_refraction() {
        let base = vec![
            Param::plain(101, 2, Value::Vector([0.32941177, 0.07450981, 0.07450981])),
            Param::plain(102, 2, Value::Vector([1.0; 3])),
            Param::plain(103, 2, Value::Vector([1.0; 3])),
            Param::plain(121, 0, Value::Float(1.0)),
            Param::plain(122, 0, Value::Float(0.17)),
            Param::plain(123, 0, Value::Float(0.06)),
            Param::plain(180, 0, Value::Float(0.87)),
        ];
        let (p, unmapped) = to_pbr(&block(base.clone(), 1.0, 0.0), false);
        assert!((p.transparency.unwrap_or(-1.0) - 0.06).abs() < 1e-6);
        assert!((p.effective_roughness().unwrap_or(-1.0) - 0.13).abs() < 1e-6);
        assert_eq!(p.specular, Some(0.17));
        assert!(unmapped.is_empty(), "{unmapped:?}");
        assert_eq!(p.diffuse_transmission, None);
        let (p, unmapped) = to_pbr(&block(base, 1.0, 0.16), false);
        assert!(unmapped.is_empty(), "{unmapped:?}");
        assert_eq!(
            p.diffuse_transmission,
            Some(DiffuseTransmission {
                weight: 0.16,
                color: [1.0; 3]
            })
        );
    }

    /// Stibenet/3D-model's Table.max "Material #69": opacity level 0.84
    /// (white opacity colour), no refraction: 16 % see-through.
    #[test]
    fn table_opacity_level() {
        let pb = block(
            vec![
                Param::plain(101, 2, Value::Vector([0.5; 3])),
                Param::plain(103, 2, Value::Vector([1.0; 3])),
                Param::plain(123, 0, Value::Float(0.0)),
            ],
            0.84,
            0.0,
        );
        let (p, _) = to_pbr(&pb, false);
        assert!((p.transparency.unwrap_or(-1.0) - 0.16).abs() < 1e-6);
    }

    /// A grey opacity colour scales the level; a coloured one cannot be one
    /// alpha: named, and the opacity is not applied.
    #[test]
    fn opacity_colour() {
        let mut pb = block(
            vec![
                Param::plain(101, 2, Value::Vector([0.5; 3])),
                Param::plain(103, 2, Value::Vector([1.0; 3])),
                Param::plain(123, 0, Value::Float(0.0)),
            ],
            0.5,
            0.0,
        );
        pb.params[3] = Param::plain(105, 2, Value::Vector([0.5; 3]));
        let (p, unmapped) = to_pbr(&pb, false);
        assert!((p.transparency.unwrap_or(-1.0) - 0.75).abs() < 1e-6);
        assert!(unmapped.is_empty(), "{unmapped:?}");
        pb.params[3] = Param::plain(105, 2, Value::Vector([1.0, 0.0, 0.0]));
        let (p, unmapped) = to_pbr(&pb, false);
        assert_eq!(p.transparency, Some(0.0));
        assert!(unmapped[0].starts_with("opacity colour"), "{unmapped:?}");
    }

    /// Self-illumination: level 128 × colour 107 become the emission.
    #[test]
    fn self_illumination() {
        let mut pb = block(
            vec![Param::plain(101, 2, Value::Vector([0.5; 3]))],
            1.0,
            0.0,
        );
        pb.params[3] = Param::plain(107, 2, Value::Vector([1.0, 0.5, 0.0]));
        pb.params[6] = Param::plain(128, 0, Value::Float(0.75));
        let (p, unmapped) = to_pbr(&pb, false);
        assert_eq!(p.emission, Some(0.75));
        assert_eq!(p.emit_color, Some([1.0, 0.5, 0.0]));
        assert!(unmapped.is_empty(), "{unmapped:?}");
    }

    /// A grey reflection colour scales the strength; a coloured one keeps
    /// its hue in the tint (normalised) and is named.
    #[test]
    fn reflection_colour() {
        assert_eq!(reflection(0.4, [0.5; 3]), (0.2, [1.0; 3]));
        assert_eq!(reflection(1.0, [0.0; 3]), (0.0, [1.0; 3]));
        assert_eq!(reflection(1.0, [1.0, 0.5, 0.25]), (1.0, [1.0, 0.5, 0.25]));
        let pb = block(
            vec![
                Param::plain(101, 2, Value::Vector([0.5; 3])),
                Param::plain(102, 2, Value::Vector([1.0, 0.5, 0.25])),
                Param::plain(122, 0, Value::Float(0.5)),
            ],
            1.0,
            0.0,
        );
        let (p, unmapped) = to_pbr(&pb, false);
        assert_eq!(p.specular, Some(0.5));
        assert_eq!(p.specular_color, Some([1.0, 0.5, 0.25]));
        assert!(unmapped[0].starts_with("reflection colour"), "{unmapped:?}");
    }

    /// The portal shows nothing: fully transparent, no reflection.
    #[test]
    fn portal_is_invisible() {
        let p = portal_pbr();
        assert_eq!(p.transparency, Some(1.0));
        assert_eq!(p.specular, Some(0.0));
    }
}
