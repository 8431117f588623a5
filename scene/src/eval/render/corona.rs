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
//! Pinned from the files themselves (session 29): the block keeps six
//! levels, one per channel of the legacy material (diffuse, reflection,
//! refraction — pinned above — and translucency, opacity,
//! self-illumination), and 127 is the opacity level: it is the only one of
//! the three left that is 1.0 in every untouched material (31 of the 32
//! CoronaMtl blocks of the public sets; Table.max's "Material #69" holds
//! 0.84), while 126 and 128 are 0 there — a default Corona material is
//! opaque, neither translucent nor glowing, and Corona's documentation
//! multiplies each channel's colour and map by its level. The three
//! colours beside them (105–107) are white in every block, so which colour
//! is the opacity's does not matter while all three are white; which of
//! 126 and 128 is translucency and which self-illumination is not pinned,
//! but while both are 0 neither channel contributes. The map switches are
//! the map ids + 20 (161…178, with the same gaps at 169 and 175 as the
//! maps' at 149 and 155): in the five materials of CookiesWithCup.max and
//! Table.max that hold maps, exactly the switches of the filled slots are
//! on (161 with slot 0, 167 with slot 6), and untouched blocks keep every
//! switch on.
//!
//! Not pinned, so not read and named in `unmapped`: a non-white colour at
//! 105–107, a level above 0 at 126 or 128, the map amounts (290 …, 14 ids
//! for 16 slots) and every other texmap slot.
//!
//! Mapped as Physical Material's values (docs/gltf-export.md): base colour =
//! colorDiffuse, base weight = levelDiffuse, metalness 0 (CoronaMtl is a
//! dielectric), roughness = 1 − reflectGlossiness when the material
//! reflects (level above 0 with a colour other than black, or an enabled
//! reflection map) and 1 otherwise, transparency = 1 − opacity × (1 −
//! levelRefract × the refraction colour's mean). Maps: diffuse → base
//! colour, bump, each with its switch.

use crate::eval::core::pblock::{self, ParamBlock2};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::material::{self, MapRef, Material, NamedBlock, SC_TEXMAP};
use crate::eval::render::physical::{self, float, vector, Pbr};

/// CoronaMtl's class id.
pub const CORONA_MTL: (u32, u32) = (0x70be_6506, 0x4489_31dd);

const COLOR_DIFFUSE: u16 = 101;
const LEVEL_DIFFUSE: u16 = 121;
const COLOR_REFLECT: u16 = 102;
const LEVEL_REFLECT: u16 = 122;
const COLOR_REFRACT: u16 = 103;
const LEVEL_REFRACT: u16 = 123;
const REFLECT_GLOSSINESS: u16 = 180;
const LEVEL_OPACITY: u16 = 127;
/// The translucency and self-illumination levels, in an order not pinned.
const OTHER_LEVELS: [u16; 2] = [126, 128];
/// The translucency, opacity and self-illumination colours, in an order not
/// pinned.
const OTHER_COLOURS: [u16; 3] = [105, 106, 107];
/// A texmap parameter's on/off switch is its id + this.
const MAP_SWITCH: u16 = 20;

/// Texmap parameters pinned, with the slot name shown in materials.json:
/// the first two are the ones the exports read (Physical Material's names).
const MAPS: [(u16, &str); 3] = [(141, "base_color"), (147, "bump"), (142, "reflection")];
const EXPORTED_MAPS: usize = 2;

/// CoronaMtl's block as Physical Material's values, and what is set but not
/// carried. `reflection_map`: an enabled reflection map is set (it counts
/// even where the level or colour is zero).
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
    let refraction = match (float(pb, LEVEL_REFRACT), vector(pb, COLOR_REFRACT)) {
        (Some(l), Some(c)) => Some(l * (c[0] + c[1] + c[2]) / 3.0),
        (Some(l), None) => Some(l),
        _ => None,
    };
    let opacity = opacity(pb, &mut unmapped);
    let transparency = refraction.map(|r| 1.0 - opacity.unwrap_or(1.0) * (1.0 - r));
    for id in OTHER_LEVELS {
        match float(pb, id) {
            Some(0.0) => {}
            Some(l) => unmapped.push(format!(
                "translucency or self-illumination level {l} (parameter {id}; which of the two is not pinned)"
            )),
            None => unmapped.push(format!(
                "translucency and self-illumination (level parameter {id} absent)"
            )),
        }
    }
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

/// The opacity: the opacity level, read while the three colours that hold
/// the opacity colour are all white (see the module doc). None (opaque) with
/// the reason named when it cannot be read.
fn opacity(pb: &ParamBlock2, unmapped: &mut Vec<String>) -> Option<f32> {
    let level = float(pb, LEVEL_OPACITY);
    let white = OTHER_COLOURS
        .iter()
        .all(|&id| vector(pb, id) == Some([1.0; 3]));
    match level {
        Some(l) if white => Some(l),
        Some(l) => {
            unmapped.push(format!(
                "opacity level {l} with a coloured translucency, opacity or self-illumination colour (which is the opacity's is not pinned)"
            ));
            None
        }
        None => {
            unmapped.push(format!("opacity (level parameter {LEVEL_OPACITY} absent)"));
            None
        }
    }
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
        let enabled =
            p.id.checked_add(MAP_SWITCH)
                .and_then(|s| physical::boolean(&pb, s));
        maps.push((
            known,
            MapRef {
                slot,
                texmap: t,
                enabled,
                amount: None,
            },
        ));
    }
    let on = |r: &MapRef| r.enabled != Some(false);
    let reflection_map = maps.iter().any(|(_, r)| r.slot == "reflection" && on(r));
    let (pbr, unmapped) = to_pbr(&pb, reflection_map);
    m.pbr = Some(pbr);
    m.unmapped.extend(unmapped);
    if maps.iter().any(|(_, r)| on(r)) {
        m.unmapped
            .push("texmap amounts (parameter ids not pinned)".into());
    }
    for (known, r) in maps {
        if on(&r) && known.is_none_or(|k| k >= EXPORTED_MAPS) {
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

    /// The other channels as every untouched block of the public files
    /// stores them: colours 105–107 white, levels 126 0, 127 `opacity`, 128 0.
    fn channels(opacity: f32, other: f32) -> Vec<Param> {
        vec![
            Param::plain(105, 2, Value::Vector([1.0; 3])),
            Param::plain(106, 2, Value::Vector([1.0; 3])),
            Param::plain(107, 2, Value::Vector([1.0; 3])),
            Param::plain(127, 0, Value::Float(opacity)),
            Param::plain(126, 0, Value::Float(other)),
            Param::plain(128, 0, Value::Float(0.0)),
        ]
    }

    fn block(mut params: Vec<Param>, opacity: f32, other: f32) -> ParamBlock2 {
        params.extend(channels(opacity, other));
        ParamBlock2 {
            params,
            ..ParamBlock2::default()
        }
    }

    /// The block of Stibenet/3D-model's LowPoly/Store.max material object
    /// 360 as stored (diffuse 208/179/179, every level but diffuse and
    /// opacity 0, glossiness 1, both indices 1.52): an opaque matte colour,
    /// evaluated whole.
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
        assert!(unmapped.is_empty(), "{unmapped:?}");
    }

    /// Store.max object 374 (white, reflection and refraction levels 1,
    /// glossiness 0.85, refraction IOR 1.105): a clear glossy pane.
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
            ],
            1.0,
            0.0,
        );
        let (p, unmapped) = to_pbr(&pb, false);
        assert!((p.effective_roughness().unwrap_or(-1.0) - 0.15).abs() < 1e-6);
        assert_eq!(p.transparency, Some(1.0));
        assert_eq!(unmapped.len(), 1, "{unmapped:?}");
    }

    /// LowPoly/Wheelbarrow.max object 357: refraction level 0.06 of white,
    /// reflection level 0.17 at glossiness 0.87; its other material holds
    /// 0.16 at parameter 126, named (translucency or self-illumination).
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
        assert_eq!(unmapped.len(), 1, "{unmapped:?}");
        let (_, unmapped) = to_pbr(&block(base, 1.0, 0.16), false);
        assert!(
            unmapped
                .iter()
                .any(|u| u.contains("level 0.16 (parameter 126")),
            "{unmapped:?}"
        );
    }

    /// Stibenet/3D-model's Table.max "Material #69": opacity level 0.84
    /// (white colours), no refraction: 16 % see-through.
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

    /// A coloured channel colour hides which one is the opacity's: named,
    /// and the opacity level is not applied.
    #[test]
    fn coloured_channel_is_named() {
        let mut pb = block(
            vec![
                Param::plain(101, 2, Value::Vector([0.5; 3])),
                Param::plain(103, 2, Value::Vector([1.0; 3])),
                Param::plain(123, 0, Value::Float(0.0)),
            ],
            0.5,
            0.0,
        );
        pb.params[3] = Param::plain(105, 2, Value::Vector([1.0, 0.0, 0.0]));
        let (p, unmapped) = to_pbr(&pb, false);
        assert_eq!(p.transparency, Some(0.0));
        assert!(unmapped[0].contains("opacity level 0.5"), "{unmapped:?}");
    }
}
