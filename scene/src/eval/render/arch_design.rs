//! Arch & Design (mental ray, class 0x70b05735, 0x4a163654, Max 2008–2016).
//!
//! Reference 0 is one ParamBlock2 (block 0). The ids pinned, each by MAXScript's
//! documented default met in materials left at it and by its place in the
//! documented order (value, colour, map, gloss, samples … per lobe):
//! 0 diff_color (fRGBA, default 0.5 grey), 1 diff_rough (0.0), 2 diff_weight
//! (1.0); 5 refl_color (white), 6 refl_gloss (1.0), 7 refl_samples (8),
//! 11 refl_weight (0.6, "reflectivity"); 15 refr_color, 16 refr_gloss,
//! 17 refr_samples (8), 19 refr_ior (1.4), 20 refr_weight ("transparency",
//! 0.0); 36/37/38 BRDF at 0°/90° and curve (0.2, 1.0, 5.0); 300 self
//! illumination on, 303 its filter colour, 305 Kelvin (6500), 307 luminance
//! (1500 cd/m²). Texmap parameters 120‥143 are mapM0‥mapM23, each owning
//! reference slot `id − 120`, with its on/off flag at `id + 30`.
//!
//! Which map and which flag is which follows the block's parameter order as
//! two public listings give it: a MaxPlus script that sets every parameter of
//! the block in order (refl_color, refl_gloss, refl_samples, refl_interp,
//! refl_hlonly, refl_metal, refl_weight — our pinned 5, 6, 7, 8, 9, 10, 11 —
//! then the 23 `*_map_on` flags) and mental ray's mia_material shader
//! declaration (the 24 maps in the same order, self_illum_map last). So 9 is
//! highlights-only and 10 metal, and [`MAP_NAMES`] names mapM0‥23. Parameter
//! 197 is the bump amount (bump_map_amt): 0.3, MAXScript's default, in the 585
//! of the 630 materials of aintech/BitDefence and fibll/CG that hold no bump
//! map, and 1.0, 0.8 or 0.44 in every one of the 45 that hold one.
//!
//! Mapped as Physical Material's values: base = diff_weight × diff_color with
//! mapM0 on base_color, roughness = 1 − refl_gloss, transparency = refr_weight;
//! the bump map (mapM17) and cutout map (mapM19) go where Physical's do (the
//! glTF normal texture, scaled by the bump amount, when the map is a Normal
//! Bump; alpha mask). Named in `unmapped` when they matter: highlights-only and
//! metal reflections (no glTF counterpart: glTF's reflections are neither),
//! self illumination when on (photometric units), and any other map that is
//! set.

use crate::eval::core::pblock::{self, ParamBlock2};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::material::{MapRef, Material, SC_TEXMAP};
use crate::eval::render::physical::{boolean, float, vector, Pbr};

/// Arch & Design's class id.
pub const ARCH_DESIGN: (u32, u32) = (0x70b0_5735, 0x4a16_3654);

const DIFF_COLOR: u16 = 0;
const DIFF_WEIGHT: u16 = 2;
const REFL_GLOSS: u16 = 6;
/// Reflections as highlights only (no traced reflections).
const REFL_HLONLY: u16 = 9;
/// Metal reflections: tinted by the diffuse colour.
const REFL_METAL: u16 = 10;
/// The bump map's amount (bump_map_amt).
const BUMP_AMOUNT: u16 = 197;
const REFR_WEIGHT: u16 = 20;
const SELF_ILLUM_ON: u16 = 300;
/// mapM0, the diffuse colour map; mapM1‥mapM23 follow.
const MAP_FIRST: u16 = 120;
const MAP_LAST: u16 = 143;
const MAP_ON: u16 = 30;

/// mapM0‥mapM23 by their MAXScript names (without `_map`).
pub const MAP_NAMES: [&str; 24] = [
    "diff_color",
    "diff_rough",
    "refl_color",
    "refl_gloss",
    "refr_color",
    "refr_gloss",
    "refr_ior",
    "refr_transc",
    "refr_transw",
    "anisotropy",
    "anisoangle",
    "refl_falloff_color",
    "refr_falloff_color",
    "indirect_multiplier",
    "fg_quality",
    "ao_dark",
    "ao_ambient",
    "bump",
    "displacement",
    "cutout",
    "environment",
    "add_color",
    "radius",
    "self_illum",
];

/// The material slot of mapM`k`: the shared names of the slots the glTF export
/// carries (`base_color`, `bump`, `cutout`), the MAXScript name otherwise.
fn slot_name(k: usize) -> String {
    match MAP_NAMES.get(k) {
        Some(&"diff_color") => "base_color".into(),
        Some(name) => (*name).into(),
        None => format!("mapM{k}"),
    }
}

/// Slots whose maps the glTF export carries (as Physical Material's).
const EXPORTED: [&str; 3] = ["base_color", "bump", "cutout"];

/// The block's values as Physical Material's, and what is set but not mapped.
pub fn to_pbr(pb: &ParamBlock2) -> (Pbr, Vec<String>) {
    let mut unmapped = Vec::new();
    if boolean(pb, REFL_HLONLY) == Some(true) {
        unmapped.push("reflections as highlights only (no glTF counterpart)".into());
    }
    if boolean(pb, REFL_METAL) == Some(true) {
        unmapped.push("metal reflections tinted by the diffuse colour (not mapped)".into());
    }
    if boolean(pb, SELF_ILLUM_ON) == Some(true) {
        unmapped.push("self illumination (photometric luminance)".into());
    }
    let pbr = Pbr {
        base_weight: float(pb, DIFF_WEIGHT),
        base_color: vector(pb, DIFF_COLOR),
        metalness: Some(0.0),
        roughness: float(pb, REFL_GLOSS),
        roughness_inv: Some(true),
        transparency: float(pb, REFR_WEIGHT),
        emission: Some(0.0),
        emit_color: None,
        ..Pbr::default()
    };
    (pbr, unmapped)
}

/// Decodes Arch & Design object `idx` into `m`.
pub fn arch_design(eval: &SceneEval, idx: usize, m: &mut Material) {
    let g = &eval.graph;
    let Some((pbi, pb)) = crate::eval::render::material::block0(eval, idx, "Arch & Design", m)
    else {
        return;
    };
    let (pbr, unmapped) = to_pbr(&pb);
    m.pbr = Some(pbr);
    m.unmapped.extend(unmapped);
    for p in &pb.params {
        if p.base_type() != pblock::ty::TEXMAP {
            continue;
        }
        let Some(slot) = p.ref_slot else { continue };
        let Some(t) = pblock::reference(g, pbi, slot)
            .filter(|&t| crate::eval::render::material::is_super_class(eval, t, SC_TEXMAP))
        else {
            continue;
        };
        let enabled = if (MAP_FIRST..=MAP_LAST).contains(&p.id) {
            boolean(&pb, p.id + MAP_ON)
        } else {
            None
        };
        let slot = if (MAP_FIRST..=MAP_LAST).contains(&p.id) {
            slot_name(usize::from(p.id - MAP_FIRST))
        } else {
            format!("map{}", p.id)
        };
        if !EXPORTED.contains(&slot.as_str()) && enabled != Some(false) {
            m.unmapped.push(format!("{slot} map (not exported)"));
        }
        let amount = if slot == "bump" {
            float(&pb, BUMP_AMOUNT)
        } else {
            None
        };
        m.maps.push(MapRef {
            slot,
            texmap: t,
            enabled,
            amount,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::{Param, Value};

    /// Material "11 - Default" of aintech/BitDefence's AntiMateriel_1.max
    /// (public): diffuse 128 grey, diffuse roughness 0.2, glossiness 0.1,
    /// reflectivity 0.3, IOR 1.0, one reflection flag on.
    #[test]
    fn bitdefence_values() {
        let pb = ParamBlock2 {
            params: vec![
                Param::plain(0, 0x17, Value::Vector([0.5019608; 3])),
                Param::plain(1, 0, Value::Float(0.2)),
                Param::plain(2, 0, Value::Float(1.0)),
                Param::plain(6, 0, Value::Float(0.1)),
                Param::plain(9, 4, Value::Bool(true)),
                Param::plain(10, 4, Value::Bool(false)),
                Param::plain(11, 0, Value::Float(0.3)),
                Param::plain(19, 0, Value::Float(1.0)),
                Param::plain(20, 0, Value::Float(0.0)),
                Param::plain(300, 4, Value::Bool(false)),
            ],
            ..ParamBlock2::default()
        };
        let (p, unmapped) = to_pbr(&pb);
        assert_eq!(p.base_color, Some([0.5019608; 3]));
        assert_eq!(p.base_weight, Some(1.0));
        // roughness = 1 − refl_gloss.
        assert!((p.effective_roughness().unwrap_or(-1.0) - 0.9).abs() < 1e-6);
        assert_eq!(p.transparency, Some(0.0));
        assert_eq!(unmapped.len(), 1, "{unmapped:?}");
    }

    /// MAXScript's documented defaults: diff_color 127.5 grey, diff_weight 1,
    /// refl_gloss 1, refr_weight 0, self illumination off.
    #[test]
    fn documented_defaults_map_to_an_opaque_smooth_grey() {
        let pb = ParamBlock2 {
            params: vec![
                Param::plain(0, 0x17, Value::Vector([0.5; 3])),
                Param::plain(2, 0, Value::Float(1.0)),
                Param::plain(6, 0, Value::Float(1.0)),
                Param::plain(20, 0, Value::Float(0.0)),
                Param::plain(300, 4, Value::Bool(false)),
            ],
            ..ParamBlock2::default()
        };
        let (p, unmapped) = to_pbr(&pb);
        assert_eq!(p.effective_roughness(), Some(0.0));
        assert_eq!(p.base_color, Some([0.5; 3]));
        assert!(unmapped.is_empty());
    }
}
