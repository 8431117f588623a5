//! V-Ray's VRayMtl (class 0x37bf3f2f, 0x7034695c) and VRayMtlWrapper
//! (0x409517df, 0x3a5f44b6), as saved by V-Ray 2–3 for Max 2011–2014.
//!
//! VRayMtl keeps six ParamBlock2s on references 1–6 (blocks "basic",
//! "BRDF", "options", "maps" and the two interpolation blocks) whose
//! parameter ids do not repeat across blocks. The ids were read off
//! LeadShuriken/3D-Max-Scripts-Examples: 3ds Max's own FBX export of
//! LightMapping's 3dsMaxTestScene.max (Unity's Temp/MaxExportedFBXFile.fbx)
//! lists every parameter of "Material #330" by name in block order
//! (`3dsMax|basic|diffuse` …), and the .max stores the same number of
//! parameters in the same order with the same values (41 basic, 8 BRDF,
//! 14 options, 18 maps). Basic: 1 diffuse, 68 diffuse_roughness, 81
//! selfIllumination, 82 selfIllumination_gi, 83 selfIllumination_multiplier,
//! 2 reflection, 3 reflection_glossiness, 62 hilight_glossiness, 4
//! reflection_subdivs, 8 reflection_fresnel, …, 63 reflection_ior, 5
//! refraction, 6 refraction_glossiness, 7 refraction_subdivs, 9
//! refraction_ior, …, 25 translucency_on, …, 37 translucency_color. Maps:
//! texmap_diffuse 100, reflection 101, refraction 102, bump 103,
//! reflectionGlossiness 104, refractionGlossiness 105, displacement 106,
//! environment 107, translucent 108, refractionIOR 109, hilightGlossiness
//! 110, reflectionIOR 111, opacity 112, roughness 113 (the diffuse
//! roughness map; slot "diffuse_roughness"), anisotropy 114,
//! anisotropy_rotation 115, refraction_fog 116, self_illumination 117; each
//! map's switch is id + 50 and its multiplier (percent) id + 100 (the
//! environment map has none). The texmap is stored inline as a scene
//! object index (the material owns the reference). Older V-Ray (Lamp.max,
//! "Poltrona Swan.max", block version 13) lacks 71–83 but keeps every other
//! id.
//!
//! VRayMtlWrapper's block 0 (same FBX, "Material #331"): 0 baseMtl,
//! 1 generateGI, 2 generateGIMult, 3 receiveGI, 4 receiveGIMult,
//! 5 generateCaustics, 6 receiveCaustics, 7 causticsMult, 8 matteSurface,
//! 19 secondaryMatte, 9 alphaContribution, 10–18 the matte options. It
//! renders as its base material; a matte surface is named as not exported.
//!
//! VRay2SidedMtl (0x6066686a, 0x11731b4b): one ParamBlock2 on reference 0.
//! Parameter 0 is the front material (every V-Ray wrapper keeps its base in
//! slot 0), 1 the back material and 3 its switch ("use back material"): in
//! the 89 VRay2SidedMtls of sohaibshams' five files, 3 is on exactly where 1
//! is set (12) and off where it is empty (77). 7 is the translucency colour
//! (V-Ray's default grey 0.5 in 74 of them, other greys in 15; 2, a float
//! 0.5 in all, is not it) and 4 a translucency texmap. Without a back
//! material in use V-Ray shades the back faces with the front one, so it
//! exports as a Double Sided of the front material, or of front and back.
//! Translucency (light through the surface) has no glTF counterpart used
//! here: named in `unmapped`.
//!
//! Mapped as Physical Material's values (docs/gltf-export.md): base colour =
//! diffuse, metalness 0 (these V-Ray versions have no metalness: VRayMtl is
//! a dielectric), roughness = 1 − reflection_glossiness when the reflection
//! colour is not black or a reflection map is on, and 1 (no glossy
//! reflection) otherwise, transparency
//! = the refraction colour's mean (white refracts fully), emission =
//! selfIllumination × its multiplier. Maps: diffuse → base colour, bump,
//! opacity → cutout, self_illumination → emission colour, and
//! reflection_glossiness → the (inverted) roughness map when the roughness
//! is the glossiness; below 100 % V-Ray blends that map with the value, which
//! is named. Without a glossy reflection it changes nothing. With Fresnel
//! reflections on (8), a reflection colour other than black is carried as
//! KHR_materials_specular (factor = its brightest channel, colour = it
//! divided by that) and KHR_materials_ior (the refraction IOR 9 while
//! `reflection_lockIOR` 65 holds, else `reflection_ior` 63). Named in
//! `unmapped`: a reflection without Fresnel (no glTF counterpart), a
//! reflection tint (glTF tints normal incidence only), translucency when
//! on, any other map that is set and on.

use crate::eval::core::pblock::{self, ParamBlock2, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::eval::render::material::{self, MapRef, Material, SC_MATERIAL, SC_TEXMAP};
use crate::eval::render::physical::{boolean, float, vector, Pbr};

/// VRayMtl's class id.
pub const VRAY_MTL: (u32, u32) = (0x37bf_3f2f, 0x7034_695c);
/// VRayMtlWrapper's class id.
pub const VRAY_MTL_WRAPPER: (u32, u32) = (0x4095_17df, 0x3a5f_44b6);
/// VRay2SidedMtl's class id.
pub const VRAY_2SIDED_MTL: (u32, u32) = (0x6066_686a, 0x1173_1b4b);
/// VRay2SidedMtl parameters: front and back material, the back's switch,
/// translucency colour and texmap.
const TWO_SIDED_FRONT: u16 = 0;
const TWO_SIDED_BACK: u16 = 1;
const TWO_SIDED_BACK_ON: u16 = 3;
const TWO_SIDED_TRANSLUCENCY: u16 = 7;
const TWO_SIDED_TRANSLUCENCY_MAP: u16 = 4;

const DIFFUSE: u16 = 1;
const SELF_ILLUM: u16 = 81;
const SELF_ILLUM_MULT: u16 = 83;
const REFLECTION: u16 = 2;
const REFL_GLOSS: u16 = 3;
const REFRACTION: u16 = 5;
/// Fresnel reflections on (bool), the reflection's own IOR, and whether it
/// is locked to the refraction IOR (9): the FBX's block order puts
/// `reflection_fresnel`, `reflection_ior`, `reflection_lockIOR` at the
/// stored ids 8, 63, 65 of 3dsMaxTestScene.max (module doc).
const REFL_FRESNEL: u16 = 8;
const REFL_IOR: u16 = 63;
const REFL_LOCK_IOR: u16 = 65;
const REFR_IOR: u16 = 9;
const TRANSLUCENCY_ON: u16 = 25;
const REFLECTION_MAP: u16 = 101;
/// The reflection glossiness map.
const REFL_GLOSS_MAP: u16 = 104;

/// Texmap parameters by id with the slot name shown in materials.json; the
/// first four are the ones the exports read (Physical Material's names).
const MAPS: [(u16, &str); 18] = [
    (100, "base_color"),
    (103, "bump"),
    (112, "cutout"),
    (117, "emit_color"),
    (101, "reflection"),
    (102, "refraction"),
    (104, "reflection_glossiness"),
    (105, "refraction_glossiness"),
    (106, "displacement"),
    (107, "environment"),
    (108, "translucent"),
    (109, "refraction_ior"),
    (110, "hilight_glossiness"),
    (111, "reflection_ior"),
    (113, "diffuse_roughness"),
    (114, "anisotropy"),
    (115, "anisotropy_rotation"),
    (116, "refraction_fog"),
];
const EXPORTED_MAPS: usize = 4;
const MAP_ON: u16 = 50;
const MAP_MULT: u16 = 100;

/// The wrapper's base material and matte switch.
const WRAPPER_BASE: u16 = 0;
const WRAPPER_MATTE: u16 = 8;

/// VRayMtl's basic values as Physical Material's, and what is set but not
/// carried. `reflection_map`: a reflection map is set and on (the
/// reflection then counts even where its colour is black).
pub fn to_pbr(pb: &ParamBlock2, reflection_map: bool) -> (Pbr, Vec<String>) {
    let mut unmapped = Vec::new();
    let reflection = vector(pb, REFLECTION);
    let coloured = reflection.is_some_and(|c| c.iter().any(|&x| x > 0.0));
    let reflects = coloured || reflection_map;
    let fresnel = boolean(pb, REFL_FRESNEL) == Some(true);
    let (mut specular, mut specular_color, mut ior) = (None, None, None);
    match reflection.filter(|_| coloured) {
        Some(c) if fresnel => {
            // The reflection colour scales the Fresnel reflection at every
            // angle: its brightness is KHR_materials_specular's factor
            // (which scales normal and grazing incidence alike), its hue the
            // specular colour (normal incidence only).
            let top = c.iter().copied().fold(0.0f32, f32::max);
            specular = Some(top);
            specular_color = Some(c.map(|x| x / top));
            if c.iter().any(|&x| (x - top).abs() > 1e-4) {
                unmapped.push(format!(
                    "reflection tint {c:?} at grazing angles (glTF tints only normal incidence)"
                ));
            }
            let locked = boolean(pb, REFL_LOCK_IOR) != Some(false);
            ior = float(pb, if locked { REFR_IOR } else { REFL_IOR });
        }
        Some(c) => unmapped.push(format!(
            "reflection colour {c:?} without Fresnel (the same at every angle; glTF's reflection follows Fresnel; only its glossiness is carried, as roughness)"
        )),
        None => {}
    }
    if pb
        .param(TRANSLUCENCY_ON)
        .is_some_and(|p| matches!(p.value, Value::Int(v) if v != 0))
    {
        unmapped.push("translucency".into());
    }
    let (roughness, inv) = if reflects {
        (float(pb, REFL_GLOSS), Some(true))
    } else {
        (Some(1.0), Some(false))
    };
    let self_illum = vector(pb, SELF_ILLUM);
    let pbr = Pbr {
        base_weight: Some(1.0),
        base_color: vector(pb, DIFFUSE),
        metalness: Some(0.0),
        roughness,
        roughness_inv: inv,
        transparency: vector(pb, REFRACTION).map(|c| (c[0] + c[1] + c[2]) / 3.0),
        emission: self_illum.map(|_| float(pb, SELF_ILLUM_MULT).unwrap_or(1.0)),
        emit_color: self_illum,
        specular,
        specular_color,
        ior,
        ..Pbr::default()
    };
    (pbr, unmapped)
}

/// The object a reference-kind parameter points at: its block reference
/// slot, or the scene object index stored inline.
fn target(eval: &SceneEval, block: usize, p: &pblock::Param) -> Option<usize> {
    match (&p.value, p.ref_slot) {
        (_, Some(slot)) => pblock::reference(&eval.graph, block, slot),
        (Value::Object(t), None) => usize::try_from(*t)
            .ok()
            .filter(|&t| t < eval.graph.objects.len()),
        _ => None,
    }
}

/// Decodes VRayMtl object `idx` into `m`.
pub fn vray_mtl(eval: &SceneEval, idx: usize, m: &mut Material) {
    let g = &eval.graph;
    let Some(o) = g.objects.get(idx) else { return };
    // Every ParamBlock2 reference, merged: the ids are unique across blocks.
    let mut merged = ParamBlock2::default();
    let mut owners = Vec::new();
    for r in &o.references {
        let Ok(t) = usize::try_from(r.target) else {
            continue;
        };
        if !material::is_super_class(eval, t, pblock::SC_PARAM_BLOCK2) {
            continue;
        }
        match pblock::param_block2(eval.chunks(t)) {
            Ok(pb) => {
                owners.extend(pb.params.iter().map(|p| (p.id, t)));
                merged.params.extend(pb.params);
            }
            Err(e) => m.errors.push(format!(
                "VRayMtl block (reference {}, object {t}): {e}",
                r.slot
            )),
        }
    }
    if merged.param(DIFFUSE).is_none() {
        m.errors.push(format!(
            "VRayMtl (object {idx}): no diffuse colour (parameter {DIFFUSE})"
        ));
        return;
    }
    let reflection_map = merged
        .param(REFLECTION_MAP)
        .and_then(|p| {
            owners
                .iter()
                .find(|(id, _)| *id == p.id)
                .and_then(|o| target(eval, o.1, p))
        })
        .is_some_and(|t| material::is_super_class(eval, t, SC_TEXMAP))
        && boolean(&merged, REFLECTION_MAP + MAP_ON) != Some(false);
    let (pbr, unmapped) = to_pbr(&merged, reflection_map);
    let glossy = pbr.roughness_inv == Some(true);
    m.pbr = Some(pbr);
    m.unmapped.extend(unmapped);
    for p in &merged.params {
        if p.base_type() != pblock::ty::TEXMAP || p.is_tab() {
            continue;
        }
        let Some(block) = owners.iter().find(|(id, _)| *id == p.id).map(|o| o.1) else {
            continue;
        };
        let Some(t) =
            target(eval, block, p).filter(|&t| material::is_super_class(eval, t, SC_TEXMAP))
        else {
            continue;
        };
        let known = MAPS.iter().position(|(id, _)| *id == p.id);
        let mut slot = known.map_or_else(|| format!("map{}", p.id), |k| MAPS[k].1.to_string());
        let enabled = p.id.checked_add(MAP_ON).and_then(|on| boolean(&merged, on));
        let amount =
            p.id.checked_add(MAP_MULT)
                .and_then(|a| float(&merged, a))
                .map(|a| a / 100.0);
        let mut exported = known.is_some_and(|k| k < EXPORTED_MAPS);
        if p.id == REFL_GLOSS_MAP && enabled != Some(false) {
            // Carried, or (no glossy reflection: black, no reflection map)
            // changing nothing rendered.
            exported = true;
            if glossy {
                // The glossiness the roughness inverts (`to_pbr`): packed
                // into glTF's roughness channel, inverted per texel. Below
                // 100 % V-Ray blends it with the value: not carried.
                slot = "roughness".into();
                if let Some(a) = amount.filter(|a| (a - 1.0).abs() > 1e-6) {
                    m.unmapped.push(format!(
                        "reflection_glossiness map at {}% (blended with the value {:?}; exported as the map alone)",
                        a * 100.0,
                        float(&merged, REFL_GLOSS)
                    ));
                }
            }
        }
        if !exported && enabled != Some(false) {
            m.unmapped.push(format!("{slot} map (not exported)"));
        }
        m.maps.push(MapRef {
            slot,
            texmap: t,
            enabled,
            amount,
        });
    }
}

/// The base material of wrapper `idx` (block 0's baseMtl, else reference 1).
fn wrapped(eval: &SceneEval, idx: usize) -> Result<Option<usize>, EvalError> {
    let g = &eval.graph;
    let Some(pbi) = pblock::reference(g, idx, 0) else {
        return Err(EvalError::reference(
            format!("VRayMtlWrapper (object {idx})"),
            "no parameter block on reference 0",
        ));
    };
    let pb = pblock::param_block2(eval.chunks(pbi))
        .map_err(|e| e.inside(format!("VRayMtlWrapper block (object {pbi})")))?;
    let base = pb
        .param(WRAPPER_BASE)
        .and_then(|p| target(eval, pbi, p))
        .or_else(|| pblock::reference(g, idx, 1));
    Ok(base.filter(|&b| material::is_super_class(eval, b, SC_MATERIAL)))
}

/// Decodes VRayMtlWrapper object `idx` into `m`: its base material's values
/// under the wrapper's name.
pub fn wrapper(eval: &SceneEval, idx: usize, m: &mut Material) {
    let matte = pblock::reference(&eval.graph, idx, 0)
        .and_then(|b| pblock::param_block2(eval.chunks(b)).ok())
        .and_then(|pb| boolean(&pb, WRAPPER_MATTE));
    // A wrapper inside decodes through material() too; its nesting bound
    // ends a chain of wrappers that leads back to itself.
    match wrapped(eval, idx) {
        Ok(Some(b)) => {
            let Some(inner) = material::material(eval, b) else {
                return;
            };
            material::adopt(m, inner);
            if matte == Some(true) {
                m.unmapped.push("matte surface (not exported)".into());
            }
        }
        Ok(None) => m
            .errors
            .push(format!("VRayMtlWrapper (object {idx}): no base material")),
        Err(e) => m.errors.push(e.to_string()),
    }
}

/// Decodes VRay2SidedMtl object `idx` into `m` (module doc): a Double Sided
/// of its front material (or front and back).
pub fn two_sided(eval: &SceneEval, idx: usize, m: &mut Material) {
    let Some((pbi, pb)) = material::block0(eval, idx, "VRay2SidedMtl", m) else {
        return;
    };
    // The object parameter `id` holds, when it is of super class `sc`.
    let object = |id, sc| {
        pb.param(id)
            .and_then(|p| target(eval, pbi, p))
            .filter(|&t| material::is_super_class(eval, t, sc))
    };
    let mtl = |id| object(id, SC_MATERIAL);
    let Some(front) = mtl(TWO_SIDED_FRONT) else {
        m.errors.push("no front material (parameter 0)".into());
        return;
    };
    let back = mtl(TWO_SIDED_BACK).filter(|_| boolean(&pb, TWO_SIDED_BACK_ON) == Some(true));
    match vector(&pb, TWO_SIDED_TRANSLUCENCY) {
        Some(c) if c.iter().any(|&v| v > 0.0) => m.unmapped.push(format!(
            "translucency colour {c:?} (light through the surface; not exported)"
        )),
        Some(_) => {}
        None => m
            .unmapped
            .push("translucency colour (parameter 7) not read".into()),
    }
    if object(TWO_SIDED_TRANSLUCENCY_MAP, SC_TEXMAP).is_some() {
        m.unmapped.push("translucency map (not exported)".into());
    }
    m.double_sided = Some(material::DoubleSided {
        facing: Some(front),
        back: back.or(Some(front)),
        facing_on: true,
        back_on: true,
        // Max's Double Sided translucency (each side through the other)
        // is not V-Ray's; V-Ray's is named above.
        translucency: 0.0,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Param;

    /// "Material #330" of 3dsMaxTestScene.max as its FBX lists it: diffuse
    /// 0.5, black self-illumination and reflection, glossiness 1, black
    /// refraction: a matte opaque grey.
    #[test]
    fn fbx_material_330() {
        let pb = ParamBlock2 {
            params: vec![
                Param::plain(1, 2, Value::Vector([0.5; 3])),
                Param::plain(81, 2, Value::Vector([0.0; 3])),
                Param::plain(83, 0, Value::Float(1.0)),
                Param::plain(2, 2, Value::Vector([0.0; 3])),
                Param::plain(3, 0, Value::Float(1.0)),
                Param::plain(5, 2, Value::Vector([0.0; 3])),
                Param::plain(25, 1, Value::Int(0)),
            ],
            ..ParamBlock2::default()
        };
        let (p, unmapped) = to_pbr(&pb, false);
        assert_eq!(p.base_color, Some([0.5; 3]));
        assert_eq!(p.effective_roughness(), Some(1.0));
        assert_eq!(p.transparency, Some(0.0));
        assert_eq!(p.emit_color, Some([0.0; 3]));
        assert!(unmapped.is_empty(), "{unmapped:?}");
    }

    /// Fresnel reflections on: a grey reflection colour is the specular
    /// factor, white tint, at the refraction IOR while the IOR lock holds
    /// and at the reflection's own IOR once unlocked; a coloured one also
    /// names its tint at grazing angles.
    #[test]
    fn fresnel_reflection_as_specular() {
        let block = |colour: [f32; 3], locked: bool| ParamBlock2 {
            params: vec![
                Param::plain(1, 2, Value::Vector([0.5; 3])),
                Param::plain(2, 2, Value::Vector(colour)),
                Param::plain(3, 0, Value::Float(0.8)),
                Param::plain(8, 4, Value::Bool(true)),
                Param::plain(63, 0, Value::Float(2.0)),
                Param::plain(65, 4, Value::Bool(locked)),
                Param::plain(9, 0, Value::Float(1.6)),
            ],
            ..ParamBlock2::default()
        };
        let (p, unmapped) = to_pbr(&block([0.5; 3], true), false);
        assert_eq!(p.specular, Some(0.5));
        assert_eq!(p.specular_color, Some([1.0; 3]));
        assert_eq!(p.ior, Some(1.6));
        assert!(unmapped.is_empty(), "{unmapped:?}");
        let (p, unmapped) = to_pbr(&block([0.8, 0.4, 0.2], false), false);
        assert_eq!(p.specular, Some(0.8));
        assert_eq!(p.specular_color, Some([1.0, 0.5, 0.25]));
        assert_eq!(p.ior, Some(2.0));
        assert_eq!(unmapped.len(), 1, "{unmapped:?}");
        assert!(unmapped[0].contains("grazing"), "{unmapped:?}");
    }

    /// Lamp.max's VRayMtl object 391 (older V-Ray, no self-illumination):
    /// diffuse 101 grey, reflection 39 grey at glossiness 0.7, no refraction.
    #[test]
    fn lamp_glossy_reflection() {
        let pb = ParamBlock2 {
            params: vec![
                Param::plain(1, 2, Value::Vector([0.39607847; 3])),
                Param::plain(2, 2, Value::Vector([0.15294118; 3])),
                Param::plain(3, 0, Value::Float(0.7)),
                Param::plain(5, 2, Value::Vector([0.0; 3])),
                Param::plain(25, 1, Value::Int(0)),
            ],
            ..ParamBlock2::default()
        };
        let (p, unmapped) = to_pbr(&pb, false);
        assert_eq!(p.base_color, Some([0.39607847; 3]));
        assert!((p.effective_roughness().unwrap_or(-1.0) - 0.3).abs() < 1e-6);
        assert_eq!(p.transparency, Some(0.0));
        assert_eq!(p.emission, None);
        assert_eq!(unmapped.len(), 1, "{unmapped:?}");
        // Black reflection driven by a map (Lamp.max object 71's Falloff):
        // the glossiness counts.
        let (p, unmapped) = to_pbr(
            &ParamBlock2 {
                params: vec![
                    Param::plain(2, 2, Value::Vector([0.0; 3])),
                    Param::plain(3, 0, Value::Float(0.7)),
                ],
                ..ParamBlock2::default()
            },
            true,
        );
        assert!((p.effective_roughness().unwrap_or(-1.0) - 0.3).abs() < 1e-6);
        assert!(unmapped.is_empty(), "{unmapped:?}");
    }
}
