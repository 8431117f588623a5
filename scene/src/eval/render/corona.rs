//! Corona's CoronaMtl (class 0x70be6506, 0x448931dd; renamed CoronaLegacyMtl
//! in Corona 7), as saved by Corona 1.x–6 for Max 2015–2021.
//!
//! Reference 0 is one ParamBlock2 (block 0; versions 7, 10 and 15 met in
//! Stibenet/3D-model) holding every channel as a colour with a level beside
//! it, then the texmap slots, their switches and amounts, and the rest.
//! The ids pinned, from a public measurement against 3ds Max's own FBX
//! export (which names each parameter `3dsMax|CoronaMtlPb|…` in block order,
//! as for VRayMtl in vray.rs) and against V-Ray twins of the same car scenes,
//! as documented in a public repository: 101 colorDiffuse with 121
//! levelDiffuse, 102 colorReflect with 122 levelReflect, 103 colorRefract
//! with 123 levelRefract, 180 reflectGlossiness, 182 fresnelIor, 183 ior;
//! and the texmap slots numbered from the block's reference slot 0 in
//! declaration order (parameters 141 upwards): slot 0 texmapDiffuse, 1
//! texmapReflect, 6 texmapBump. Stibenet's CookiesWithCup.max agrees on its
//! own: its gingerbread material holds "tsvet pryanika.jpg" ("gingerbread
//! colour") in slot 0 and "rel'yef pryanika.jpg" ("gingerbread relief") in
//! slot 6; the documented defaults (diffuse level 1, glossiness 1, both
//! indices 1.52) are what the untouched materials of LowPoly/Store.max hold.
//!
//! Not pinned, so not read and named in `unmapped`: opacity,
//! self-illumination and translucency (the other colours and levels,
//! 105–107 and 126–128), the texmap switches (161 …) and amounts (290 …),
//! and every other texmap slot.
//!
//! Mapped as Physical Material's values (docs/gltf-export.md): base colour =
//! colorDiffuse, base weight = levelDiffuse, metalness 0 (CoronaMtl is a
//! dielectric), roughness = 1 − reflectGlossiness when the material
//! reflects (level above 0 with a colour other than black, or a reflection
//! map) and 1 otherwise, transparency = levelRefract × the refraction
//! colour's mean. Maps: diffuse → base colour, bump.

use crate::eval::core::pblock::{self, ParamBlock2};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::material::{self, MapRef, Material, NamedBlock, SC_TEXMAP};
use crate::eval::render::physical::{float, vector, Pbr};

/// CoronaMtl's class id.
pub const CORONA_MTL: (u32, u32) = (0x70be_6506, 0x4489_31dd);

const COLOR_DIFFUSE: u16 = 101;
const LEVEL_DIFFUSE: u16 = 121;
const COLOR_REFLECT: u16 = 102;
const LEVEL_REFLECT: u16 = 122;
const COLOR_REFRACT: u16 = 103;
const LEVEL_REFRACT: u16 = 123;
const REFLECT_GLOSSINESS: u16 = 180;

/// Texmap parameters pinned, with the slot name shown in materials.json:
/// the first two are the ones the exports read (Physical Material's names).
const MAPS: [(u16, &str); 3] = [(141, "base_color"), (147, "bump"), (142, "reflection")];
const EXPORTED_MAPS: usize = 2;

/// What every CoronaMtl leaves out: the parameters whose ids no reference pins.
pub const NOT_PINNED: &str =
    "opacity, self-illumination and translucency (parameter ids not pinned)";

/// CoronaMtl's block as Physical Material's values, and what is set but not
/// carried. `reflection_map`: a reflection map is set (it counts even where
/// the level or colour is zero; its switch is not pinned).
pub fn to_pbr(pb: &ParamBlock2, reflection_map: bool) -> (Pbr, Vec<String>) {
    let mut unmapped = Vec::new();
    let level = float(pb, LEVEL_REFLECT).unwrap_or(0.0);
    let coloured = vector(pb, COLOR_REFLECT).is_some_and(|c| c.iter().any(|&x| x > 0.0));
    let reflects = (level > 0.0 && coloured) || reflection_map;
    if reflects {
        unmapped.push(
            "reflection level and Fresnel IOR (only the glossiness is carried, as roughness)"
                .into(),
        );
    }
    let (roughness, inv) = if reflects {
        (float(pb, REFLECT_GLOSSINESS), Some(true))
    } else {
        (Some(1.0), Some(false))
    };
    let transparency = match (float(pb, LEVEL_REFRACT), vector(pb, COLOR_REFRACT)) {
        (Some(l), Some(c)) => Some(l * (c[0] + c[1] + c[2]) / 3.0),
        (Some(l), None) => Some(l),
        _ => None,
    };
    let pbr = Pbr {
        base_weight: float(pb, LEVEL_DIFFUSE),
        base_color: vector(pb, COLOR_DIFFUSE),
        metalness: Some(0.0),
        roughness,
        roughness_inv: inv,
        transparency,
        emission: None,
        emit_color: None,
    };
    (pbr, unmapped)
}

/// Decodes CoronaMtl object `idx` into `m`: the pinned values in `m.pbr`,
/// the texmaps in `m.maps`, the whole block in `m.blocks` (its unpinned
/// values stay visible there).
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
    let mut maps = Vec::new();
    for p in &pb.params {
        if p.base_type() != pblock::ty::TEXMAP || p.is_tab() {
            continue;
        }
        let Some(t) = texmap_of(p) else { continue };
        let known = MAPS.iter().position(|(id, _)| *id == p.id);
        let slot = known.map_or_else(|| format!("map{}", p.id), |k| MAPS[k].1.to_string());
        maps.push((
            known,
            MapRef {
                slot,
                texmap: t,
                enabled: None,
                amount: None,
            },
        ));
    }
    let reflection_map = maps.iter().any(|(_, r)| r.slot == "reflection");
    let (pbr, unmapped) = to_pbr(&pb, reflection_map);
    m.pbr = Some(pbr);
    m.unmapped.extend(unmapped);
    m.unmapped.push(NOT_PINNED.into());
    if !maps.is_empty() {
        m.unmapped
            .push("texmap switches and amounts (parameter ids not pinned)".into());
    }
    for (known, r) in maps {
        if known.is_none_or(|k| k >= EXPORTED_MAPS) {
            m.unmapped.push(format!("{} map (not exported)", r.slot));
        }
        m.maps.push(r);
    }
    m.blocks.push(NamedBlock {
        name: "ref0".into(),
        object: pbi,
        block: pb,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::{Param, Value};

    /// The block of Stibenet/3D-model's LowPoly/Store.max material object
    /// 360 as stored (diffuse 208/179/179, every level but diffuse and
    /// opacity 0, glossiness 1, both indices 1.52): an opaque matte colour.
    #[test]
    fn store_matte_colour() {
        let pb = ParamBlock2 {
            params: vec![
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
            ..ParamBlock2::default()
        };
        let (p, unmapped) = to_pbr(&pb, false);
        assert_eq!(p.base_color, Some([0.81568635, 0.7019608, 0.7019608]));
        assert_eq!(p.base_weight, Some(1.0));
        assert_eq!(p.metalness, Some(0.0));
        assert_eq!(p.effective_roughness(), Some(1.0));
        assert_eq!(p.transparency, Some(0.0));
        assert!(unmapped.is_empty(), "{unmapped:?}");
    }

    /// Store.max object 374 (white, reflection and refraction levels 1,
    /// glossiness 0.85, refraction IOR 1.105): a clear glossy pane.
    #[test]
    fn store_glass() {
        let pb = ParamBlock2 {
            params: vec![
                Param::plain(101, 2, Value::Vector([1.0; 3])),
                Param::plain(102, 2, Value::Vector([1.0; 3])),
                Param::plain(103, 2, Value::Vector([1.0; 3])),
                Param::plain(121, 0, Value::Float(1.0)),
                Param::plain(122, 0, Value::Float(1.0)),
                Param::plain(123, 0, Value::Float(1.0)),
                Param::plain(180, 0, Value::Float(0.85)),
            ],
            ..ParamBlock2::default()
        };
        let (p, unmapped) = to_pbr(&pb, false);
        assert!((p.effective_roughness().unwrap_or(-1.0) - 0.15).abs() < 1e-6);
        assert_eq!(p.transparency, Some(1.0));
        assert_eq!(unmapped.len(), 1, "{unmapped:?}");
    }

    /// LowPoly/Wheelbarrow.max object 357: refraction level 0.06 of white,
    /// reflection level 0.17 at glossiness 0.87.
    #[test]
    fn wheelbarrow_partial_refraction() {
        let pb = ParamBlock2 {
            params: vec![
                Param::plain(101, 2, Value::Vector([0.32941177, 0.07450981, 0.07450981])),
                Param::plain(102, 2, Value::Vector([1.0; 3])),
                Param::plain(103, 2, Value::Vector([1.0; 3])),
                Param::plain(121, 0, Value::Float(1.0)),
                Param::plain(122, 0, Value::Float(0.17)),
                Param::plain(123, 0, Value::Float(0.06)),
                Param::plain(180, 0, Value::Float(0.87)),
            ],
            ..ParamBlock2::default()
        };
        let (p, _) = to_pbr(&pb, false);
        assert!((p.transparency.unwrap_or(-1.0) - 0.06).abs() < 1e-6);
        assert!((p.effective_roughness().unwrap_or(-1.0) - 0.13).abs() < 1e-6);
    }
}
