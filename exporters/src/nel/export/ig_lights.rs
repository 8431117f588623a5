//! The point lights of an `.ig`, as `buildInstanceGroup` (export_scene.cpp)
//! converts Max lights through `SLightBuild::convertFromMaxLight` (calc_lm.cpp)
//! and `CInstanceGroup::build` sorts and groups them
//! (`CPointLightNamedArray::build`, point_light_named_array.cpp).
//!
//! Rules kept from the plug-in:
//! - every light node of the group whose EXPORT_REALTIME_LIGHT is checked (the
//!   default) and which is not directional becomes a `CPointLightNamed`;
//!   directional lights only turn the sun contribution on (EXPORT_AS_SUN_LIGHT);
//! - colour = the light's RGB colour, *not* multiplied by its multiplier (the
//!   plug-in comments that product out), converted by truncation (`CRGBAF` →
//!   `CRGBA`); ambient-only lights put it in ambient and become AmbientLight
//!   (REALTIME_AMBIENT_ADD_SUN sets AddAmbientWithSun), others put it in diffuse
//!   and specular (the affect-diffuse/specular switches are not located in the
//!   file, so both are on, the Max default) with a black ambient;
//! - position = the node TM's translation; spot direction = towards the target
//!   node when there is one, else the node's −Z; hotspot and falloff halved and
//!   in radians; attenuation = the far range when "use far attenuation" is on,
//!   else (10, 10), then clamped as `CPointLight::setupAttenuation` does;
//! - animated light name = LM_ANIMATED_LIGHT unless "Sun", "GlobalLight" or
//!   "(Use NelLight Modifier)"; light group = LM_LIGHT_GROUP.
//!
//! Versions: the current ones (CPointLight 2, CPointLightNamed 1, array 1),
//! as today's NeL writes them, so light groups and the animated-light grouping
//! survive. The Max 3-era reference .ig files (no lights) carry array version
//! 0, whose name-keyed group map current NeL discards on load.

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::render::light::{self, Light};
use maxfs_scene::eval::{Controller, Vec3 as V3};

use super::select::{self, superclass};
use super::Context;
use crate::nel::ig::{PointLight, PointLightArray, PointLightGroup, PointLightNamed, Spot};
use crate::nel::stream::{Bool, Rgba, Vec3, F32};

pub const POINT_LIGHT_VERSION: u32 = 2;
pub const POINT_LIGHT_NAMED_VERSION: u32 = 1;
pub const POINT_LIGHT_ARRAY_VERSION: u32 = 1;

/// `CPointLight::TType`.
pub mod light_type {
    pub const POINT: u32 = 0;
    pub const SPOT: u32 = 1;
    pub const AMBIENT: u32 = 2;
}

/// The radii `convertFromMaxLight` uses when far attenuation is off.
const NO_ATTEN_RADIUS: f32 = 10.0;
/// Animated-light names `getAnimatedLight` treats as "not animated".
const NOT_ANIMATED: [&str; 3] = ["Sun", "GlobalLight", "(Use NelLight Modifier)"];

/// The lights part of buildInstanceGroup: the point light array and whether
/// the sun lights the group. Lights the plug-in would skip with a problem
/// come back as (node, message).
pub fn build(
    ctx: &Context,
    nodes: &[usize],
    warn: &mut dyn FnMut(usize, String),
) -> (PointLightArray, bool) {
    let mut sun = false;
    let mut lights = Vec::new();
    for &n in nodes {
        if select::category(ctx, n) != Some(superclass::LIGHT) {
            continue;
        }
        let Some(l) = ctx
            .eval
            .node_object(n)
            .and_then(|o| light::light(ctx.eval, o))
        else {
            continue;
        };
        let p = ctx.props.node(n);
        if l.kind == "directional" {
            sun |= p.export_as_sun_light;
            continue;
        }
        if !p.export_realtime_light {
            continue;
        }
        match point_light(ctx, n, &l) {
            Ok(pl) => lights.push(pl),
            Err(e) => warn(n, e.to_string()),
        }
    }
    (array(lights), sun)
}

/// `CRGBAF` → `CRGBA` with alpha 1: truncation (out-of-range values, undefined
/// in the plug-in, are clamped).
fn rgba(c: [f32; 3]) -> Rgba {
    let b = |v: f32| (v * 255.0).clamp(0.0, 255.0) as u8;
    Rgba {
        r: b(c[0]),
        g: b(c[1]),
        b: b(c[2]),
        a: 255,
    }
}

const BLACK: Rgba = Rgba {
    r: 0,
    g: 0,
    b: 0,
    a: 255,
};

fn vec3(v: V3) -> Vec3 {
    Vec3 {
        x: F32::from_f32(v.0 as f32),
        y: F32::from_f32(v.1 as f32),
        z: F32::from_f32(v.2 as f32),
    }
}

/// The world position of a node's pivot (GetNodeTM(t).GetTrans()).
fn node_pos(ctx: &Context, node: usize) -> V3 {
    let r = ctx.world_tm0(node).rows();
    V3(r[3][0], r[3][1], r[3][2])
}

/// The node a light's LookAt controller aims at.
fn target_node(ctx: &Context, node: usize) -> Option<usize> {
    match ctx.eval.controller(ctx.eval.tm_controller(node)?)? {
        Controller::LookAt { target, .. } => *target,
        _ => None,
    }
}

fn normalized(v: V3) -> V3 {
    let n = (v.0 * v.0 + v.1 * v.1 + v.2 * v.2).sqrt();
    if n > 0.0 {
        V3(v.0 / n, v.1 / n, v.2 / n)
    } else {
        v
    }
}

/// SLightBuild::convertFromMaxLight then the CPointLightNamed setup of
/// buildInstanceGroup, for one omni or spot light node.
pub fn point_light(ctx: &Context, node: usize, l: &Light) -> ExportResult<PointLightNamed> {
    let spot = match l.kind.as_str() {
        "omni" => false,
        "spot" => true,
        k => {
            return Err(ExportError::refused(format!(
                "{} ({k}) is not a standard light the plug-in converts",
                l.class
            )))
        }
    };
    if !l.errors.is_empty() {
        return Err(ExportError::refused(format!(
            "light parameters: {}",
            l.errors.join("; ")
        )));
    }
    let color = l.color.ok_or_else(|| {
        ExportError::refused("the light colour is animated or missing (not decoded)")
    })?;
    let pos = node_pos(ctx, node);
    let (ambient, diffuse, specular) = if l.ambient_only {
        (rgba(color), BLACK, BLACK)
    } else {
        (BLACK, rgba(color), rgba(color))
    };
    // setupAttenuation: begin ≥ 0, end ≥ begin.
    let (begin, end) = if l.use_far_atten == Some(true) {
        let far = l
            .far_atten
            .ok_or_else(|| ExportError::refused("far attenuation is used but has no range"))?;
        (far[0], far[1])
    } else {
        (NO_ATTEN_RADIUS, NO_ATTEN_RADIUS)
    };
    let begin = begin.max(0.0);
    let end = end.max(begin);
    let p = ctx.props.node(node);
    let light_type = if l.ambient_only {
        light_type::AMBIENT
    } else if spot {
        light_type::SPOT
    } else {
        light_type::POINT
    };
    let spot_part = if light_type == light_type::SPOT {
        let dir = match target_node(ctx, node) {
            Some(t) => {
                let tp = node_pos(ctx, t);
                normalized(V3(tp.0 - pos.0, tp.1 - pos.1, tp.2 - pos.2))
            }
            None => {
                let k = ctx.world_tm0(node).rows()[2];
                normalized(V3(-k[0], -k[1], -k[2]))
            }
        };
        let half = |deg: Option<f32>, what: &str| {
            deg.map(|d| (std::f64::consts::PI * f64::from(d) / 360.0) as f32)
                .ok_or_else(|| ExportError::refused(format!("the spot light has no {what}")))
        };
        // setupSpotAngle clamps begin to [0, π] and end to [begin, π].
        let pi = std::f32::consts::PI;
        let b = half(l.hotspot, "hotspot")?.clamp(0.0, pi);
        let e = half(l.falloff, "falloff")?.clamp(b, pi);
        Spot {
            light_type,
            // setupSpotDirection normalizes again, in float.
            direction: vec3(normalized(dir)),
            angle_begin: F32::from_f32(b),
            angle_end: F32::from_f32(e),
        }
    } else {
        // The CPointLight constructor's spot defaults.
        Spot {
            light_type,
            direction: vec3(V3(0.0, 1.0, 0.0)),
            angle_begin: F32::from_f32(std::f32::consts::FRAC_PI_4),
            angle_end: F32::from_f32(std::f32::consts::FRAC_PI_2),
        }
    };
    let animated = if NOT_ANIMATED.contains(&p.lm_animated_light.as_str()) {
        String::new()
    } else {
        p.lm_animated_light.clone()
    };
    Ok(PointLightNamed {
        version: POINT_LIGHT_NAMED_VERSION,
        light: PointLight {
            version: POINT_LIGHT_VERSION,
            add_ambient_with_sun: Some(Bool(u8::from(
                light_type == light_type::AMBIENT && p.realtime_ambient_add_sun,
            ))),
            spot: Some(spot_part),
            position: vec3(pos),
            ambient: ambient.clone(),
            diffuse: diffuse.clone(),
            specular: specular.clone(),
            attenuation_begin: F32::from_f32(begin),
            attenuation_end: F32::from_f32(end),
        },
        animated_light: animated,
        default_ambient: ambient,
        default_diffuse: diffuse,
        default_specular: specular,
        light_group: Some(p.lm_light_group as u32),
    })
}

/// CPointLightNamedArray::build: lights sorted by (animated light name, light
/// group) — stably, where std::sort leaves equal keys in an unspecified order —
/// and one group per run of equal keys.
pub fn array(mut lights: Vec<PointLightNamed>) -> PointLightArray {
    if lights.is_empty() {
        // Version 1 even when empty, as today's NeL writes it (the Max 3-era
        // reference files hold version 0; both read back the same).
        return PointLightArray {
            version: POINT_LIGHT_ARRAY_VERSION,
            ..PointLightArray::default()
        };
    }
    let key = |l: &PointLightNamed| (l.animated_light.clone(), l.light_group.unwrap_or(0));
    lights.sort_by(|a, b| {
        a.animated_light
            .as_bytes()
            .cmp(b.animated_light.as_bytes())
            .then(a.light_group.cmp(&b.light_group))
    });
    let mut groups: Vec<PointLightGroup> = Vec::new();
    for (i, l) in lights.iter().enumerate() {
        let (name, group) = key(l);
        match groups.last_mut() {
            Some(g) if g.animation_light == name && g.light_group == group => {
                g.end_id = i as u32 + 1;
            }
            _ => groups.push(PointLightGroup {
                version: 0,
                animation_light: name,
                light_group: group,
                start_id: i as u32,
                end_id: i as u32 + 1,
            }),
        }
    }
    PointLightArray {
        version: POINT_LIGHT_ARRAY_VERSION,
        lights,
        groups_v0: Vec::new(),
        groups,
    }
}
