//! Corona 7+'s CoronaPhysicalMtl (class 0x6912ab89, 0x87151720; MAXScript
//! `CoronaPhysicalMtl`, saved with a leading carriage return in its class
//! name by some builds): a metalness/roughness material, which maps onto
//! glTF's PBR model directly.
//!
//! Reference 0 is one ParamBlock2 (block 0). Parameter ids are Corona's own,
//! as Satoshi Hayashi's public glTF exporter/importer for 3ds Max declares
//! them to read and write this class (its `crn_*` ParamBlock table): each
//! channel holds a value at a round id, its texmap at id + 1, the map's
//! switch at id + 2 and its amount at id + 3 — 101 baseColor (102
//! baseLevel, so the map and its switch and amount are 103–105), 111
//! metalnessMode, 121 opacityColor with 122 opacityLevel (maps 123–125, 126
//! cutout), 131 baseRoughness, 141 anisotropy, 151 its rotation, 161
//! edgeColor, 171 baseIor, 191 refractionAmount, 201/202 dispersion, 203
//! thin mode, 211 clearcoatAmount, 221 its IOR, 231 its roughness, 241
//! sheenAmount, 245 its colour, 251 its roughness, 261/271 volumetric
//! absorption and scattering colours, 291 sssAmount, 301 its radius, 311
//! its colour, 321/322 displacement limits (its map 325, switch 326), 331
//! selfIllumColor with 332 selfIllumLevel (map 333, switch 334, amount
//! 335), 351 bump map (352, 353), 361/363 background overrides, 371
//! translucency fraction, 375 its colour, 381 thin absorption, 391
//! clearcoat absorption, 401 clearcoat bump, 411 metalness map (412), 421
//! roughnessMode, 431 preset, 451 complex IOR, 461 iorMode. The file's own
//! types agree (test.max of Y0603-maxsript/Scripts: a colour at each colour
//! id, a texmap owning a reference slot at each map id, a boolean at each
//! switch; docs/max-format.md).
//!
//! Mapped as Physical Material's values: base colour = baseColor ×
//! baseLevel, metalness = metalnessMode (0 non-metal, 1 metal), roughness =
//! baseRoughness, the Fresnel IOR = baseIor (KHR_materials_ior), opacity =
//! opacityLevel × the opacity colour (grey), transparency = 1 − opacity ×
//! (1 − refractionAmount), emission = selfIllumLevel × selfIllumColor; maps
//! base colour, self-illumination and bump as for CoronaMtl. A preset (431)
//! only fills these values in Corona's editor: the values stored are what
//! the renderer reads, so the preset is not read. Named as partial where set:
//! glossiness or specular modes (421, 461 other than 0; their meaning is not
//! pinned), complex IOR, a coloured edge tint on a metal, subsurface
//! scattering, translucency, dispersion, anisotropy, a clearcoat IOR other
//! than 1.5 or a tinted clearcoat, and every other enabled map. Clearcoat
//! (amount, roughness) and sheen (amount × colour, roughness) are carried
//! as KHR_materials_clearcoat and KHR_materials_sheen.

use crate::eval::core::pblock::{self, ParamBlock2};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::material::{self, MapRef, Material, NamedBlock, SC_TEXMAP};
use crate::eval::render::physical::{boolean, float, vector, Coat, Pbr, Sheen};

/// CoronaPhysicalMtl's class id.
pub const CORONA_PHYSICAL_MTL: (u32, u32) = (0x6912_ab89, 0x8715_1720);

const BASE_COLOR: u16 = 101;
const BASE_LEVEL: u16 = 102;
const METALNESS_MODE: u16 = 111;
const OPACITY_COLOR: u16 = 121;
const OPACITY_LEVEL: u16 = 122;
const BASE_ROUGHNESS: u16 = 131;
const EDGE_COLOR: u16 = 161;
const BASE_IOR: u16 = 171;
const REFRACTION_AMOUNT: u16 = 191;
const SELF_ILLUM_COLOR: u16 = 331;
const SELF_ILLUM_LEVEL: u16 = 332;
const ROUGHNESS_MODE: u16 = 421;
const IOR_MODE: u16 = 461;
/// A float stored after the table's last id (0 in the public files), with
/// its map at + 1: named when set.
const BEYOND_TABLE: u16 = 471;

/// Amounts that add a lobe glTF has no counterpart for: named when above 0.
/// (Clearcoat and sheen are carried: `coat_and_sheen`.)
const LOBES: [(u16, &str); 3] = [
    (291, "subsurface scattering"),
    (371, "translucency"),
    (141, "anisotropy"),
];

/// Texmap parameters: id, slot name, switch id, amount id.
const MAPS: [(u16, &str, u16, Option<u16>); 30] = [
    (103, "base_color", 104, Some(105)),
    (123, "opacity", 124, Some(125)),
    (132, "roughness", 133, Some(134)),
    (142, "anisotropy", 143, Some(144)),
    (152, "aniso_rotation", 153, Some(154)),
    (162, "edge_color", 163, Some(164)),
    (172, "ior", 173, Some(174)),
    (192, "refraction", 193, Some(194)),
    (212, "coating", 213, Some(214)),
    (222, "coat_ior", 223, Some(224)),
    (232, "coat_roughness", 233, Some(234)),
    (242, "sheen", 243, Some(244)),
    (246, "sheen_color", 247, Some(248)),
    (252, "sheen_roughness", 253, Some(254)),
    (262, "absorption", 263, Some(264)),
    (272, "scattering", 273, Some(274)),
    (292, "sss", 293, Some(294)),
    (302, "sss_radius", 303, Some(304)),
    (312, "sss_color", 313, Some(314)),
    (325, "displacement", 326, None),
    (333, "emit_color", 334, Some(335)),
    (351, "bump", 352, Some(353)),
    (361, "refl_bg_override", 362, None),
    (363, "refr_bg_override", 364, None),
    (372, "translucency", 373, Some(374)),
    (376, "translucency_color", 377, Some(378)),
    (382, "thin_absorption", 383, Some(384)),
    (392, "coat_absorption", 393, Some(394)),
    (401, "coat_bump", 402, Some(403)),
    (411, "metalness", 412, None),
];

/// CoronaPhysicalMtl's block as Physical Material's values, and what is set
/// but not carried.
pub fn to_pbr(pb: &ParamBlock2) -> (Pbr, Vec<String>) {
    let mut unmapped = Vec::new();
    let metal = match pb.param(METALNESS_MODE).map(|p| &p.value) {
        Some(pblock::Value::Int(m)) => Some(*m as f32),
        _ => None,
    };
    if metal.is_some_and(|m| m != 0.0 && m != 1.0) {
        unmapped.push(format!("metalness mode {metal:?} (0 or 1 expected)"));
    }
    for (id, what) in [(ROUGHNESS_MODE, "roughness mode"), (IOR_MODE, "IOR mode")] {
        match pb.param(id).map(|p| &p.value) {
            None | Some(pblock::Value::Int(0)) => {}
            Some(v) => unmapped.push(format!("{what} {v:?} (parameter {id}; only 0 is read)")),
        }
    }
    if boolean(pb, 451) == Some(true) {
        unmapped.push("complex IOR (parameter 451)".into());
    }
    if metal == Some(1.0) && vector(pb, EDGE_COLOR).is_some_and(|c| c != [1.0; 3]) {
        unmapped.push("metal edge tint (parameter 161)".into());
    }
    for (id, what) in LOBES {
        if let Some(v) = float(pb, id).filter(|&v| v > 0.0) {
            unmapped.push(format!("{what} {v} (parameter {id}; no glTF counterpart)"));
        }
    }
    if let Some(v) = float(pb, BEYOND_TABLE).filter(|&v| v != 0.0) {
        unmapped.push(format!(
            "parameter {BEYOND_TABLE} = {v} (beyond the public id table)"
        ));
    }
    if boolean(pb, 201) == Some(true) {
        unmapped.push(format!(
            "dispersion (Abbe number {:?}; no glTF counterpart)",
            float(pb, 202)
        ));
    }
    let opacity = match (float(pb, OPACITY_LEVEL), vector(pb, OPACITY_COLOR)) {
        (Some(l), Some(c)) if c[0] == c[1] && c[1] == c[2] => Some(l * c[0]),
        (Some(l), Some(c)) => {
            unmapped.push(format!(
                "opacity colour {c:?} at level {l} (a coloured opacity; glTF's alpha is one number)"
            ));
            None
        }
        _ => {
            unmapped.push("opacity (parameters 121/122 absent)".into());
            None
        }
    };
    let refraction = float(pb, REFRACTION_AMOUNT);
    let transparency = refraction.map(|r| 1.0 - opacity.unwrap_or(1.0) * (1.0 - r));
    let roughness_mode_read = matches!(
        pb.param(ROUGHNESS_MODE).map(|p| &p.value),
        None | Some(pblock::Value::Int(0))
    );
    let ior_mode_read = matches!(
        pb.param(IOR_MODE).map(|p| &p.value),
        None | Some(pblock::Value::Int(0))
    );
    let (clearcoat, sheen) = coat_and_sheen(pb, roughness_mode_read, &mut unmapped);
    let pbr = Pbr {
        clearcoat,
        sheen,
        thin_film: None,
        transmission: None,
        diffuse_transmission: None,
        base_weight: float(pb, BASE_LEVEL),
        base_color: vector(pb, BASE_COLOR),
        metalness: metal.filter(|m| *m == 0.0 || *m == 1.0),
        roughness: float(pb, BASE_ROUGHNESS).filter(|_| roughness_mode_read),
        roughness_inv: Some(false),
        transparency,
        emission: float(pb, SELF_ILLUM_LEVEL),
        emit_color: vector(pb, SELF_ILLUM_COLOR),
        specular: None,
        specular_color: None,
        ior: float(pb, BASE_IOR).filter(|_| ior_mode_read),
        colour_by_object: false,
    };
    (pbr, unmapped)
}

/// The clearcoat (211 amount, 231 roughness, 221 IOR, 391 absorption
/// colour) and sheen (241 amount, 245 colour, 251 roughness) as glTF's
/// clear coat and sheen; a coat IOR away from glTF's fixed 1.5 or a tinted
/// coat is named. The roughnesses are read as such only in roughness mode
/// 0 (the mode is named otherwise, above).
fn coat_and_sheen(
    pb: &ParamBlock2,
    roughness_read: bool,
    unmapped: &mut Vec<String>,
) -> (Option<Coat>, Option<Sheen>) {
    let coat = float(pb, 211).filter(|&w| w > 0.0).map(|weight| {
        if let Some(n) = float(pb, 221).filter(|&n| (n - 1.5).abs() > 0.025) {
            unmapped.push(format!(
                "clearcoat IOR {n} (parameter 221; glTF's clear coat has IOR 1.5)"
            ));
        }
        if let Some(c) = vector(pb, 391).filter(|c| c.iter().any(|&x| x != 1.0)) {
            unmapped.push(format!(
                "clearcoat absorption {c:?} (parameter 391; glTF's clear coat is untinted)"
            ));
        }
        Coat {
            weight,
            roughness: float(pb, 231).filter(|_| roughness_read).unwrap_or(0.0),
        }
    });
    let sheen = float(pb, 241).filter(|&w| w > 0.0).map(|w| Sheen {
        color: vector(pb, 245).unwrap_or([1.0; 3]).map(|c| c * w),
        roughness: float(pb, 251).filter(|_| roughness_read).unwrap_or(0.0),
    });
    (coat, sheen)
}

/// Decodes CoronaPhysicalMtl object `idx` into `m`: the values in `m.pbr`,
/// the texmaps in `m.maps`, the whole block in `m.blocks`.
pub fn corona_physical(eval: &SceneEval, idx: usize, m: &mut Material) {
    let g = &eval.graph;
    let Some((pbi, pb)) = material::block0(eval, idx, "CoronaPhysicalMtl", m) else {
        return;
    };
    if pb.param(BASE_COLOR).is_none() {
        m.errors.push(format!(
            "CoronaPhysicalMtl block (object {pbi}): no base colour (parameter {BASE_COLOR})"
        ));
        return;
    }
    for p in &pb.params {
        if p.base_type() != pblock::ty::TEXMAP || p.is_tab() {
            continue;
        }
        let Some(t) = p
            .ref_slot
            .and_then(|s| pblock::reference(g, pbi, s))
            .filter(|&t| material::is_super_class(eval, t, SC_TEXMAP))
        else {
            continue;
        };
        let known = MAPS.iter().find(|s| s.0 == p.id);
        m.maps.push(MapRef {
            slot: known.map_or_else(|| format!("map{}", p.id), |s| s.1.to_string()),
            texmap: t,
            enabled: known.and_then(|s| boolean(&pb, s.2)),
            amount: known.and_then(|s| s.3).and_then(|a| float(&pb, a)),
        });
    }
    let (pbr, unmapped) = to_pbr(&pb);
    m.pbr = Some(pbr);
    m.unmapped.extend(unmapped);
    super::corona::name_map_gaps(m);
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

    /// The block of sweep6's test.max "Material #37" / "#42" (public), its
    /// value parameters as stored; `clearcoat` at 211 and `sss` at 291 are
    /// where the two differ.
    fn test_max(clearcoat: f32, sss: f32) -> ParamBlock2 {
        let v = |id, x: f32| Param::plain(id, 0, Value::Float(x));
        let c = |id, x: [f32; 3]| Param::plain(id, 2, Value::Vector(x));
        let i = |id, x: i32| Param::plain(id, 1, Value::Int(x));
        let params = vec![
            c(101, [0.5; 3]),
            v(102, 1.0),
            i(111, 0),
            c(121, [1.0; 3]),
            v(122, 1.0),
            Param::plain(126, 4, Value::Bool(false)),
            v(131, 0.75),
            v(141, 0.0),
            v(151, 0.0),
            c(161, [0.75; 3]),
            v(171, 1.5),
            v(191, 0.0),
            Param::plain(201, 4, Value::Bool(false)),
            v(202, 40.0),
            v(211, clearcoat),
            v(221, 1.5),
            v(241, 0.0),
            c(245, [1.0; 3]),
            v(291, sss),
            c(311, [1.0, 0.35, 0.2]),
            c(331, [1.0; 3]),
            v(332, 0.0),
            v(371, 0.0),
            c(375, [0.5; 3]),
            i(421, 0),
            i(431, -2),
            Param::plain(451, 4, Value::Bool(false)),
            i(461, 0),
            v(471, 0.0),
        ];
        ParamBlock2 {
            params,
            ..ParamBlock2::default()
        }
    }

    /// "Material #37": grey 0.5 non-metal, roughness 0.75, IOR 1.5, opaque;
    /// its clearcoat amount 0.02 (IOR 1.5, untinted) is glTF's clear coat:
    /// carried, and nothing is named.
    #[test]
    fn test_max_clearcoat() {
        let (p, unmapped) = to_pbr(&test_max(0.02, 0.0));
        assert_eq!(p.base_color, Some([0.5; 3]));
        assert_eq!(p.base_weight, Some(1.0));
        assert_eq!(p.metalness, Some(0.0));
        assert_eq!(p.effective_roughness(), Some(0.75));
        assert_eq!(p.ior, Some(1.5));
        assert_eq!(p.transparency, Some(0.0));
        assert_eq!(p.emission, Some(0.0));
        assert_eq!(
            p.clearcoat,
            Some(Coat {
                weight: 0.02,
                roughness: 0.0
            })
        );
        assert_eq!(p.sheen, None);
        assert!(unmapped.is_empty(), "{unmapped:?}");
        // A coat IOR away from glTF's 1.5 is named.
        let mut pb = test_max(0.02, 0.0);
        pb.params.retain(|q| q.id != 221);
        pb.params.push(Param::plain(221, 0, Value::Float(1.8)));
        let (_, unmapped) = to_pbr(&pb);
        assert_eq!(unmapped.len(), 1, "{unmapped:?}");
        assert!(unmapped[0].starts_with("clearcoat IOR 1.8"), "{unmapped:?}");
    }

    /// "Material #42": the same, with subsurface scattering 0.03 (the
    /// repository's CoronaMaterial.ms counts it by `sssAmount > 0`).
    #[test]
    fn test_max_sss() {
        let (p, unmapped) = to_pbr(&test_max(0.0, 0.03));
        assert_eq!(p.effective_roughness(), Some(0.75));
        assert_eq!(unmapped.len(), 1, "{unmapped:?}");
        assert!(
            unmapped[0].starts_with("subsurface scattering 0.03"),
            "{unmapped:?}"
        );
    }

    /// Metal mode, a glossiness roughness mode and a coloured opacity: the
    /// metal is carried, the modes not pinned are named and not read.
    #[test]
    fn modes_named() {
        let mut pb = test_max(0.0, 0.0);
        for p in &mut pb.params {
            match p.id {
                111 => p.value = Value::Int(1),
                421 => p.value = Value::Int(1),
                121 => p.value = Value::Vector([1.0, 0.5, 0.5]),
                _ => {}
            }
        }
        let (p, unmapped) = to_pbr(&pb);
        assert_eq!(p.metalness, Some(1.0));
        assert_eq!(p.roughness, None);
        assert_eq!(p.transparency, Some(0.0));
        for part in ["roughness mode", "metal edge tint", "opacity colour"] {
            assert!(
                unmapped.iter().any(|u| u.starts_with(part)),
                "{part}: {unmapped:?}"
            );
        }
    }
}
