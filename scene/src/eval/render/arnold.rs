//! Arnold's Standard Surface material (MAXtoA, class 0x7e73161f, 0x62f74b4c).
//!
//! MAXtoA does not keep its shader parameters in ParamBlock2 records with
//! numeric ids: reference 0 is a ParamBlock2 whose references are groups of
//! self-describing "aiPBParameter" objects (class 0x38e67d6e, 0x3de3000e), one
//! per Arnold parameter, named as in Arnold's `standard_surface` node. So the
//! values are found by name, which also holds for a MAXtoA release that adds
//! or reorders parameters. As saved by Max 2018/2019 (MAXtoA 2–3):
//! - a parameter object: 0x0001 name (UTF-16), 0x0002 MAXtoA type (0 float,
//!   1 integer/enum, 2 colour RGB, 3 vector, 4 boolean, 15 shader input,
//!   21 group), 0x0009 a count, 0x0003 a container of (0x0004 count, then per
//!   value a 0x0005 controller reference (−1: none) and a 0x0006 value);
//! - groups ("results", "parameters", "connections") hold their parameters as
//!   references; a shader input `<name>.shader` references the texmap wired
//!   to `<name>`, and the boolean `<name>.connected` says whether it is used.
//!
//! Mapped to the physically based values the exporters share with Physical
//! Material: base × base_color, metalness, specular_roughness (a roughness,
//! never inverted), transmission as transparency, emission × emission_color;
//! maps on those, opacity as a cutout and normal as the bump slot. An opacity
//! colour other than white without a map is not mapped and is said so in the
//! material's errors. Beyond those (`extras`): specular weight, colour and
//! IOR (KHR_materials_specular / _ior), coat (KHR_materials_clearcoat),
//! sheen (KHR_materials_sheen), thin film (KHR_materials_iridescence) and
//! transmission's colour, depth and thin wall (KHR_materials_transmission /
//! _volume);
//! the rest of Standard Surface's lobes, when set, and every wired input
//! the export does not carry are named as partial.

use crate::chunk::Chunk;
use crate::eval::core::pblock::{self, utf16};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::material::{MapRef, Material, SC_TEXMAP};
use crate::eval::render::physical::{Coat, Pbr, Sheen, ThinFilm, Tint, Transmission};

/// Standard Surface's class id.
pub const STANDARD_SURFACE: (u32, u32) = (0x7e73_161f, 0x62f7_4b4c);

const NAME: u16 = 0x0001;
const TYPE: u16 = 0x0002;
const VALUES: u16 = 0x0003;
const VALUE: u16 = 0x0006;

/// MAXtoA parameter types met in the files (see the module doc).
const T_FLOAT: u32 = 0;
const T_RGB: u32 = 2;
const T_BOOL: u32 = 4;
const T_SHADER: u32 = 15;
const T_GROUP: u32 = 21;

/// The group holding the shader's inputs.
const INPUTS: &str = "parameters";
/// Parameters read at most from one group (damaged data).
const MAX_PARAMS: usize = 4096;

/// Arnold input → the map slot name the exporters read (Physical Material's).
const MAP_SLOTS: [(&str, &str); 8] = [
    ("base", "base_weight"),
    ("base_color", "base_color"),
    ("specular_roughness", "roughness"),
    ("metalness", "metalness"),
    ("transmission", "transparency"),
    ("emission_color", "emit_color"),
    ("opacity", "cutout"),
    ("normal", "bump"),
];

/// One MAXtoA parameter as stored: its first value's bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct AiParam {
    pub name: String,
    pub ty: u32,
    pub value: Option<Vec<u8>>,
}

impl AiParam {
    fn float(&self) -> Option<f32> {
        let v = self.value.as_ref()?;
        (self.ty == T_FLOAT && v.len() == 4).then(|| f32::from_le_bytes([v[0], v[1], v[2], v[3]]))
    }

    fn rgb(&self) -> Option<[f32; 3]> {
        let v = self.value.as_ref()?;
        if self.ty != T_RGB || v.len() != 12 {
            return None;
        }
        let f = |k: usize| f32::from_le_bytes([v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]]);
        Some([f(0), f(1), f(2)])
    }

    fn boolean(&self) -> Option<bool> {
        let v = self.value.as_ref()?;
        (self.ty == T_BOOL && v.len() == 4).then(|| v.iter().any(|&b| b != 0))
    }
}

/// Reads one parameter object's chunks; `None` without a name or type.
pub fn param(chunks: &[Chunk]) -> Option<AiParam> {
    let find = |id: u16| chunks.iter().find(|c| c.id == id);
    let name = utf16(find(NAME)?.payload()?);
    let ty = find(TYPE)?
        .payload()
        .and_then(|p| p.get(..4))
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))?;
    let value = find(VALUES)
        .and_then(|c| c.children().iter().find(|v| v.id == VALUE))
        .and_then(Chunk::payload)
        .map(<[u8]>::to_vec);
    Some(AiParam { name, ty, value })
}

/// The Arnold inputs with their values, and the texmaps wired to them, as the
/// exporters' physically based values: (values, maps, what is not mapped).
pub fn to_pbr(
    params: &[AiParam],
    shaders: &[(String, usize, Option<bool>)],
) -> (Pbr, Vec<MapRef>, Vec<String>) {
    let get = |n: &str| params.iter().find(|p| p.name == n);
    let mut notes = Vec::new();
    let opacity = get("opacity").and_then(AiParam::rgb);
    let opacity_map = shaders
        .iter()
        .any(|(n, _, on)| n == "opacity" && *on != Some(false));
    if let Some(o) = opacity.filter(|o| o.iter().any(|&c| c != 1.0)) {
        if !opacity_map {
            notes.push(format!(
                "Standard Surface opacity {o:?} is not mapped (glTF alpha comes from transmission)"
            ));
        }
    }
    let pbr = Pbr {
        base_weight: get("base").and_then(AiParam::float),
        base_color: get("base_color").and_then(AiParam::rgb),
        metalness: get("metalness").and_then(AiParam::float),
        roughness: get("specular_roughness").and_then(AiParam::float),
        roughness_inv: Some(false),
        transparency: get("transmission").and_then(AiParam::float),
        emission: get("emission").and_then(AiParam::float),
        emit_color: get("emission_color").and_then(AiParam::rgb),
        ..Pbr::default()
    };
    let maps = shaders
        .iter()
        .map(|(input, texmap, enabled)| MapRef {
            slot: MAP_SLOTS
                .iter()
                .find(|(a, _)| a == input)
                .map_or_else(|| input.clone(), |(_, s)| s.to_string()),
            texmap: *texmap,
            enabled: *enabled,
            amount: None,
        })
        .collect();
    (pbr, maps, notes)
}

/// Decodes Standard Surface object `idx` into `m` (values in `m.pbr`, maps in
/// `m.maps`, what cannot be read or mapped in `m.errors`).
pub fn standard_surface(eval: &SceneEval, idx: usize, m: &mut Material) {
    let g = &eval.graph;
    let Some(pb) = pblock::reference(g, idx, 0) else {
        m.errors.push(format!(
            "Standard Surface (object {idx}): no parameter block on reference 0"
        ));
        return;
    };
    let group = g
        .objects
        .get(pb)
        .into_iter()
        .flat_map(|o| &o.references)
        .find_map(|r| {
            let t = usize::try_from(r.target).ok()?;
            let p = param(eval.chunks(t))?;
            (p.ty == T_GROUP && p.name == INPUTS).then_some(t)
        });
    let Some(group) = group else {
        m.errors.push(format!(
            "Standard Surface (object {idx}): no \"{INPUTS}\" group under its block (object {pb})"
        ));
        return;
    };
    let mut params = Vec::new();
    let mut wired = Vec::new();
    let refs = &g.objects[group].references;
    if refs.len() > MAX_PARAMS {
        m.errors.push(format!(
            "Standard Surface (object {idx}): {} parameters, more than {MAX_PARAMS}",
            refs.len()
        ));
        return;
    }
    for r in refs {
        let Ok(t) = usize::try_from(r.target) else {
            continue;
        };
        match param(eval.chunks(t)) {
            Some(p) if p.ty == T_SHADER => {
                let Some(input) = p.name.strip_suffix(".shader") else {
                    continue;
                };
                let texmap = pblock::reference(g, t, 0)
                    .filter(|&x| crate::eval::render::material::is_super_class(eval, x, SC_TEXMAP));
                if let Some(x) = texmap {
                    wired.push((input.to_string(), x));
                }
            }
            Some(p) => params.push(p),
            None => m.errors.push(format!(
                "Standard Surface (object {idx}): parameter object {t} has no name or type"
            )),
        }
    }
    let shaders: Vec<_> = wired
        .into_iter()
        .map(|(input, x)| {
            let on = params
                .iter()
                .find(|p| p.name == format!("{input}.connected"))
                .and_then(AiParam::boolean);
            (input, x, on)
        })
        .collect();
    let (mut pbr, maps, notes) = to_pbr(&params, &shaders);
    m.unmapped.extend(extras(&params, &mut pbr));
    let packed = crate::eval::render::material::packed_maps(eval, &maps);
    m.unmapped.extend(
        maps.iter()
            .enumerate()
            .filter(|(i, _)| !packed.contains(i))
            .map(|(_, r)| r)
            .filter(|r| r.enabled != Some(false) && !EXPORTED_MAPS.contains(&r.slot.as_str()))
            .map(|r| format!("{} map (not exported)", r.slot)),
    );
    m.pbr = Some(pbr);
    m.maps.extend(maps);
    m.errors.extend(notes);
}

/// Map slots the glTF export carries (bump only as a Normal Bump, which the
/// exporter checks; roughness and metalness Bitmaps packed, see
/// `material::packed_maps`); any other wired input is named as partial.
const EXPORTED_MAPS: [&str; 4] = ["base_color", "emit_color", "bump", "cutout"];

/// Standard Surface's inputs beyond the core metal/rough ones, by Arnold's
/// names and against Arnold's documented defaults (specular 1, white,
/// IOR 1.5; coat roughness 0.1, IOR 1.5; sheen roughness 0.3; thin film IOR
/// 1.5): the reflection's strength, tint and IOR, the coat, sheen and thin
/// film into `p`; what glTF has no faithful counterpart for, when set,
/// returned as named gaps.
pub fn extras(params: &[AiParam], p: &mut Pbr) -> Vec<String> {
    let get = |n: &str| params.iter().find(|q| q.name == n);
    let f = |n: &str| get(n).and_then(AiParam::float);
    let rgb = |n: &str| get(n).and_then(AiParam::rgb);
    let white = |c: [f32; 3]| c.iter().all(|&x| (x - 1.0).abs() <= 1e-4);
    let mut out = Vec::new();
    if let Some(v) = f("specular").filter(|&v| (v - 1.0).abs() > 1e-4) {
        p.specular = Some(v);
    }
    if let Some(c) = rgb("specular_color").filter(|&c| !white(c)) {
        p.specular_color = Some(c);
    }
    p.ior = f("specular_IOR");
    if let Some(c) = f("coat").filter(|&c| c > 0.0) {
        p.clearcoat = Some(Coat {
            weight: c,
            roughness: f("coat_roughness").unwrap_or(0.1),
        });
        if let Some(c) = rgb("coat_color").filter(|&c| !white(c)) {
            out.push(format!("coat colour {c:?} (glTF's clear coat is untinted)"));
        }
        if let Some(n) = f("coat_IOR").filter(|&n| (n - 1.5).abs() > 0.025) {
            out.push(format!("coat IOR {n} (glTF's clear coat has IOR 1.5)"));
        }
        for n in [
            "coat_affect_color",
            "coat_affect_roughness",
            "coat_anisotropy",
        ] {
            if let Some(v) = f(n).filter(|&v| v != 0.0) {
                out.push(format!("{n} {v} (no glTF counterpart)"));
            }
        }
    }
    if let Some(w) = f("sheen").filter(|&w| w > 0.0) {
        p.sheen = Some(Sheen {
            color: rgb("sheen_color").unwrap_or([1.0; 3]).map(|c| c * w),
            roughness: f("sheen_roughness").unwrap_or(0.3),
        });
    }
    if let Some(t) = f("thin_film_thickness").filter(|&t| t > 0.0) {
        p.thin_film = Some(ThinFilm {
            weight: 1.0,
            thickness_nm: t,
            ior: f("thin_film_IOR").unwrap_or(1.5),
        });
    }
    for n in [
        "diffuse_roughness",
        "specular_anisotropy",
        "subsurface",
        "transmission_dispersion",
        "transmission_extra_roughness",
        "transmission_scatter_anisotropy",
    ] {
        if let Some(v) = f(n).filter(|&v| v != 0.0) {
            out.push(format!("{n} {v} (no glTF counterpart)"));
        }
    }
    // Transmission as Physical Material's transparency (the same model:
    // Arnold's transmission_color is reached at transmission_depth, at the
    // surface with depth 0 or a thin wall).
    if let Some(t) = f("transmission").filter(|&t| t > 0.0) {
        p.transmission = Some(Transmission {
            weight: t,
            color: rgb("transmission_color").unwrap_or([1.0; 3]),
            depth: f("transmission_depth").unwrap_or(0.0).max(0.0),
            thin_walled: get("thin_walled").and_then(AiParam::boolean) == Some(true),
        });
        if p.transmission_tint() == Some(Tint::Differs) {
            out.push(format!(
                "transmission_color {:?} beside base colour {:?} (glTF tints transmitted light by the base colour)",
                rgb("transmission_color").unwrap_or([1.0; 3]),
                p.base_color.unwrap_or([0.5; 3])
            ));
        }
        if let Some(c) = rgb("transmission_scatter").filter(|c| c.iter().any(|&x| x > 0.0)) {
            out.push(format!("transmission_scatter {c:?} (no glTF counterpart)"));
        }
    }
    out
}

/// A named parameter holding `words` (little-endian 4-byte words) as stored:
/// the tests of the decoders that read parameters by name (Autodesk Material,
/// ProMaterials) build their inputs with it.
#[cfg(test)]
pub(crate) fn test_param(name: &str, ty: u32, words: &[[u8; 4]]) -> AiParam {
    AiParam {
        name: name.into(),
        ty,
        value: Some(words.concat()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(name: &str, v: f32) -> AiParam {
        test_param(name, T_FLOAT, &[v.to_le_bytes()])
    }

    fn colour(name: &str, c: [f32; 3]) -> AiParam {
        test_param(name, T_RGB, &c.map(f32::to_le_bytes))
    }

    /// Standard Surface's coat, sheen, thin film and specular inputs by
    /// Arnold's names; subsurface and a tinted coat are named.
    #[test]
    fn layers_by_arnold_names() {
        let params = vec![
            num("specular", 0.5),
            colour("specular_color", [1.0; 3]),
            num("specular_IOR", 1.45),
            num("coat", 1.0),
            num("coat_roughness", 0.05),
            num("coat_IOR", 1.5),
            colour("coat_color", [0.9, 0.9, 1.0]),
            num("sheen", 0.5),
            colour("sheen_color", [1.0, 0.5, 0.0]),
            num("sheen_roughness", 0.3),
            num("thin_film_thickness", 300.0),
            num("thin_film_IOR", 1.4),
            num("subsurface", 0.2),
        ];
        let mut p = Pbr::default();
        let gaps = extras(&params, &mut p);
        assert_eq!(
            (p.specular, p.specular_color, p.ior),
            (Some(0.5), None, Some(1.45))
        );
        assert_eq!(
            p.clearcoat,
            Some(Coat {
                weight: 1.0,
                roughness: 0.05
            })
        );
        assert_eq!(p.sheen.map(|s| s.color), Some([0.5, 0.25, 0.0]));
        assert_eq!(
            p.thin_film.map(|t| (t.thickness_nm, t.ior)),
            Some((300.0, 1.4))
        );
        assert_eq!(gaps.len(), 2, "{gaps:?}");
        assert!(gaps[0].starts_with("coat colour"), "{gaps:?}");
        assert!(gaps[1].starts_with("subsurface 0.2"), "{gaps:?}");
    }

    fn wide(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    fn stored(name: &str, ty: u32, value: &[u8]) -> Vec<Chunk> {
        vec![
            Chunk::leaf(NAME, wide(name)),
            Chunk::leaf(TYPE, ty.to_le_bytes().to_vec()),
            Chunk::leaf(0x0009, 0u32.to_le_bytes().to_vec()),
            Chunk::container(
                VALUES,
                vec![
                    Chunk::leaf(0x0004, 1u32.to_le_bytes().to_vec()),
                    Chunk::leaf(0x0005, (-1i32).to_le_bytes().to_vec()),
                    Chunk::leaf(VALUE, value.to_vec()),
                ],
            ),
        ]
    }

    fn floats(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|f| f.to_le_bytes()).collect()
    }

    /// The records of Babylon's BabylonMaterialAttributes/Default.max (public):
    /// base 0.8, base_color (0, 0, 1), specular_roughness 0.1 — which the
    /// Babylon exporter wrote as baseColorFactor (0, 0, 0.8), roughness 0.1.
    #[test]
    fn babylon_default_values() {
        let ps: Vec<AiParam> = [
            stored("base", T_FLOAT, &floats(&[0.8])),
            stored("base_color", T_RGB, &floats(&[0.0, 0.0, 1.0])),
            stored("specular_roughness", T_FLOAT, &floats(&[0.1])),
            stored("metalness", T_FLOAT, &floats(&[0.0])),
            stored("opacity", T_RGB, &floats(&[1.0, 1.0, 1.0])),
            stored("thin_walled", T_BOOL, &0u32.to_le_bytes()),
        ]
        .iter()
        .map(|c| param(c).expect("param"))
        .collect();
        let (p, maps, notes) = to_pbr(&ps, &[]);
        assert_eq!(p.base_weight, Some(0.8));
        assert_eq!(p.base_color, Some([0.0, 0.0, 1.0]));
        assert_eq!(p.effective_roughness(), Some(0.1));
        assert_eq!(p.metalness, Some(0.0));
        assert_eq!(p.transparency, None);
        assert!(maps.is_empty() && notes.is_empty());
    }

    #[test]
    fn maps_take_the_exporters_slot_names_and_connected_flags() {
        let shaders = vec![
            ("opacity".to_string(), 571, Some(true)),
            ("base_color".to_string(), 12, Some(false)),
            ("coat_color".to_string(), 13, None),
        ];
        let (_, maps, _) = to_pbr(&[], &shaders);
        let slots: Vec<_> = maps
            .iter()
            .map(|m| (m.slot.as_str(), m.texmap, m.enabled))
            .collect();
        assert_eq!(
            slots,
            vec![
                ("cutout", 571, Some(true)),
                ("base_color", 12, Some(false)),
                ("coat_color", 13, None)
            ]
        );
    }

    #[test]
    fn a_grey_opacity_without_a_map_is_named() {
        let ps = vec![param(&stored("opacity", T_RGB, &floats(&[0.5, 0.5, 0.5]))).expect("param")];
        let (_, _, notes) = to_pbr(&ps, &[]);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("opacity"));
        // With a map on it, the cutout carries it.
        let (_, _, notes) = to_pbr(&ps, &[("opacity".into(), 5, Some(true))]);
        assert!(notes.is_empty());
    }

    #[test]
    fn damaged_records_read_as_nothing() {
        // No type, a short value, a value of another type's size.
        assert_eq!(param(&[Chunk::leaf(NAME, wide("base"))]), None);
        let short = param(&stored("base", T_FLOAT, &[0, 0])).expect("param");
        assert_eq!(short.float(), None);
        let rgb_as_float =
            param(&stored("base", T_FLOAT, &floats(&[1.0, 2.0, 3.0]))).expect("param");
        assert_eq!(rgb_as_float.float(), None);
        assert_eq!(rgb_as_float.rgb(), None);
        let empty = param(&stored("base", T_FLOAT, &[])).expect("param");
        assert_eq!(empty.float(), None);
    }
}
