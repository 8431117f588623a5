//! Raytrace material (class 0x27190ff4, 0x329b106e, Max 2 onwards).
//!
//! Reference 0 is an old ParamBlock whose first sixteen indices follow the
//! documented property order of MAXScript's `max_RaytraceMaterial` wrapper
//! (Ambient, AmbientAmount, AmbientOn, Diffuse, Reflect, ReflectAmount,
//! ReflectColorMode, Luminosity, LuminosityAmount, LuminosityOn,
//! Transparency, TransparencyAmount, TransparencyOn, IndexOfRefraction,
//! Specular, Shininess): every public material (symbol24/GrandPaCreep
//! house22.max and table.max, gitsheny/cfb test.max, nine in all, saved by
//! different Max versions with 55 or 82 indices) holds exactly those types
//! there (colour, float, int …) with the documented defaults (diffuse 0.5
//! grey where left alone, IOR 1.5–1.6 and 1.2 for glass). An "On" switch
//! other than 0 uses the colour, 0 the amount (0..1 as stored). What follows
//! index 15 differs between those block versions and is not read.
//!
//! Reference 1 is a Texmaps object (class 0x3a13795a, 0x3d7f5059) holding
//! map k on slot 2k + 1 with its amount controller on 2k, as Standard's.
//! Map 1 is the diffuse map and map 8 the bump map: table.max's
//! "Wood_Walnut_rt", converted from the Standard "Wood_Walnut" in the same
//! file (Walnut3.tga on diffuse, bump, reflection and refraction), holds
//! that bitmap on maps 1, 8 and 12 — Standard's diffuse and bump channel
//! numbers. Other maps are kept as `map<k>` and named as not exported.
//!
//! Mapped onto the Standard-like fields the exporters read: diffuse,
//! opacity = 1 − transparency (the colour's mean when its switch is on),
//! self-illumination (the luminosity colour, or the amount of the diffuse),
//! specular colour. Reflection, specular level and glossiness have no
//! counterpart the exports carry (glossiness sits past index 15) and are
//! named in `unmapped`.

use crate::eval::core::pblock::{self, OldParam, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::material::{MapRef, Material, SC_TEXMAP};

/// Raytrace's class id.
pub const RAYTRACE: (u32, u32) = (0x2719_0ff4, 0x329b_106e);
/// Its Texmaps holder.
pub const RAYTRACE_TEXMAPS: (u32, u32) = (0x3a13_795a, 0x3d7f_5059);

const DIFFUSE: i32 = 3;
const REFLECT: i32 = 4;
const REFLECT_AMOUNT: i32 = 5;
const REFLECT_ON: i32 = 6;
const LUMINOSITY: i32 = 7;
const LUMINOSITY_AMOUNT: i32 = 8;
const LUMINOSITY_ON: i32 = 9;
const TRANSPARENCY: i32 = 10;
const TRANSPARENCY_AMOUNT: i32 = 11;
const TRANSPARENCY_ON: i32 = 12;
const SPECULAR: i32 = 14;

/// Map channels pinned (see the module doc) and their slot names.
const MAPS: [(u32, &str); 2] = [(1, "diffuse"), (8, "bump")];

/// What is always left out (see the module doc).
pub const NOT_PINNED: &str = "specular level, glossiness (not carried)";

/// The Raytrace values as Standard-like fields, from the old ParamBlock.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Values {
    pub diffuse: Option<[f32; 3]>,
    pub specular: Option<[f32; 3]>,
    /// 0 = opaque, 1 = fully transparent.
    pub transparency: Option<f32>,
    /// Self-illumination: a colour (switch on) or an amount of the diffuse.
    pub luminosity: Option<[f32; 3]>,
    pub luminosity_amount: Option<f32>,
    /// A reflection is set (colour not black, or an amount above 0).
    pub reflects: bool,
}

fn get(ps: &[OldParam], index: i32) -> Option<&Value> {
    ps.iter().find(|p| p.index == index).map(|p| &p.value)
}

fn colour(ps: &[OldParam], index: i32) -> Option<[f32; 3]> {
    match get(ps, index)? {
        Value::Vector(v) => Some(*v),
        _ => None,
    }
}

fn amount(ps: &[OldParam], index: i32) -> Option<f32> {
    match get(ps, index)? {
        Value::Float(v) => Some(*v),
        _ => None,
    }
}

fn switch(ps: &[OldParam], index: i32) -> Option<bool> {
    match get(ps, index)? {
        Value::Int(v) => Some(*v != 0),
        _ => None,
    }
}

/// Reads the old ParamBlock's values (see the module doc).
pub fn values(ps: &[OldParam]) -> Values {
    let transparency = match switch(ps, TRANSPARENCY_ON) {
        Some(true) => colour(ps, TRANSPARENCY).map(|c| (c[0] + c[1] + c[2]) / 3.0),
        Some(false) => amount(ps, TRANSPARENCY_AMOUNT),
        None => None,
    };
    let (luminosity, luminosity_amount) = match switch(ps, LUMINOSITY_ON) {
        Some(true) => (colour(ps, LUMINOSITY), None),
        Some(false) => (None, amount(ps, LUMINOSITY_AMOUNT)),
        None => (None, None),
    };
    let reflects = match switch(ps, REFLECT_ON) {
        Some(true) => colour(ps, REFLECT).is_some_and(|c| c.iter().any(|&x| x > 0.0)),
        Some(false) => amount(ps, REFLECT_AMOUNT).is_some_and(|a| a > 0.0),
        None => false,
    };
    Values {
        diffuse: colour(ps, DIFFUSE),
        specular: colour(ps, SPECULAR),
        transparency,
        luminosity,
        luminosity_amount,
        reflects,
    }
}

/// Decodes Raytrace object `idx` into `m`.
pub fn raytrace(eval: &SceneEval, idx: usize, m: &mut Material) {
    let g = &eval.graph;
    let Some(pbi) = pblock::reference(g, idx, 0) else {
        m.errors.push(format!(
            "Raytrace (object {idx}): no parameter block on reference 0"
        ));
        return;
    };
    let ps = match pblock::param_block(eval.chunks(pbi)) {
        Ok(ps) => ps,
        Err(e) => {
            m.errors.push(format!("Raytrace block (object {pbi}): {e}"));
            return;
        }
    };
    let v = values(&ps);
    if v.diffuse.is_none() {
        m.errors.push(format!(
            "Raytrace block (object {pbi}): no diffuse colour at index {DIFFUSE}"
        ));
    }
    m.diffuse = v.diffuse;
    m.specular = v.specular;
    m.opacity = v.transparency.map(|t| 1.0 - t.clamp(0.0, 1.0));
    m.use_self_illum_color = Some(v.luminosity.is_some());
    m.self_illum_color = v.luminosity;
    m.self_illum_amount = v.luminosity_amount;
    m.unmapped.push(NOT_PINNED.into());
    if v.reflects {
        m.unmapped
            .push("reflection (no counterpart in the exports)".into());
    }
    let Some(tm) = pblock::reference(g, idx, 1).filter(|&t| {
        g.objects[t]
            .class
            .as_ref()
            .is_some_and(|c| (c.class_id.0, c.class_id.1) == RAYTRACE_TEXMAPS)
    }) else {
        return;
    };
    for r in g.objects[tm].references.iter().filter(|r| r.slot % 2 == 1) {
        let Some(t) = usize::try_from(r.target)
            .ok()
            .filter(|&t| crate::eval::render::material::is_super_class(eval, t, SC_TEXMAP))
        else {
            continue;
        };
        let k = r.slot / 2;
        let slot = MAPS
            .iter()
            .find(|(c, _)| *c == k)
            .map_or_else(|| format!("map{k}"), |(_, n)| n.to_string());
        if slot.starts_with("map") {
            m.unmapped
                .push(format!("{slot} map (which map it is is not pinned)"));
        }
        m.maps.push(MapRef {
            slot,
            texmap: t,
            enabled: None,
            amount: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(index: i32, value: Value) -> OldParam {
        OldParam {
            index,
            value,
            ref_slot: None,
        }
    }

    /// The first sixteen indices of a block as stored.
    fn block(vals: [Value; 16]) -> Vec<OldParam> {
        vals.into_iter()
            .enumerate()
            .map(|(k, v)| p(k as i32, v))
            .collect()
    }

    /// house22.max's "GlassBlue": black diffuse, transparency colour
    /// (201, 201, 248) with its switch on, IOR 1.5.
    #[test]
    fn glass_blue_transparency_colour() {
        let tc = [0.78823537, 0.78823537, 0.9725491];
        let ps = block([
            Value::Vector([0.0; 3]),
            Value::Float(0.0),
            Value::Int(1),
            Value::Vector([0.0; 3]),
            Value::Vector([0.0; 3]),
            Value::Float(0.0),
            Value::Int(1),
            Value::Vector([0.0; 3]),
            Value::Float(0.0),
            Value::Int(1),
            Value::Vector(tc),
            Value::Float(0.0),
            Value::Int(1),
            Value::Float(1.5),
            Value::Vector([1.0; 3]),
            Value::Float(0.8),
        ]);
        let v = values(&ps);
        assert_eq!(v.diffuse, Some([0.0; 3]));
        let t = v.transparency.unwrap_or(-1.0);
        assert!((t - (tc[0] + tc[1] + tc[2]) / 3.0).abs() < 1e-6);
        assert_eq!(v.luminosity, Some([0.0; 3]));
        assert!(!v.reflects);
    }

    /// test.max's "玻璃" (glass): white diffuse, transparency amount 0.87 and
    /// luminosity amount 0.8 with their switches off.
    #[test]
    fn cfb_glass_amounts() {
        let ps = block([
            Value::Vector([1.0; 3]),
            Value::Float(0.0),
            Value::Int(1),
            Value::Vector([1.0; 3]),
            Value::Vector([0.0; 3]),
            Value::Float(0.0),
            Value::Int(1),
            Value::Vector([0.0; 3]),
            Value::Float(0.8),
            Value::Int(0),
            Value::Vector([0.0; 3]),
            Value::Float(0.87),
            Value::Int(0),
            Value::Float(1.2),
            Value::Vector([1.0; 3]),
            Value::Float(0.35),
        ]);
        let v = values(&ps);
        assert_eq!(v.diffuse, Some([1.0; 3]));
        assert_eq!(v.transparency, Some(0.87));
        assert_eq!(v.luminosity, None);
        assert_eq!(v.luminosity_amount, Some(0.8));
    }
}
