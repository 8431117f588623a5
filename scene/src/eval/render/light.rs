//! Lights (superclass 0x30): the standard lights keep their values in an old
//! ParamBlock on reference 0 — 0 colour, 1 multiplier, 2 contrast, 3 diffuse
//! softening; then for omni lights 4/5 near attenuation start/end, 6/7 far
//! start/end, 8 decay; for spot and directional lights 4 hotspot, 5 falloff
//! (degrees), 6 aspect, 7/8 near start/end, 9/10 far start/end, 11 decay
//! (the Max SDK's PB_* indices of the general light). Switches live in the
//! light object's own chunks: 0x2580 on/off, 0x2562 use far attenuation,
//! 0x2570 cast shadows, and an empty 0x2600 marks an ambient-only light.
//! Target lights aim through their node's LookAt controller.

use serde::Serialize;

use crate::eval::core::pblock::{self, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::camera::{node_of, old_params, target_of};

pub const SC_LIGHT: u32 = 0x30;

/// Chunks of the standard light object.
const USE_FAR_ATTEN: u16 = 0x2562;
const CAST_SHADOWS: u16 = 0x2570;
const ON_OFF: u16 = 0x2580;
const AMBIENT_ONLY: u16 = 0x2600;

/// A BOOL switch chunk: a 16- or 32-bit little-endian word, true when not zero.
fn word(chunks: &[crate::chunk::Chunk], id: u16) -> Option<bool> {
    let d = chunks.iter().find(|c| c.id == id)?.payload()?;
    match d.len() {
        2 => Some(u16::from_le_bytes([d[0], d[1]]) != 0),
        4 => Some(u32::from_le_bytes([d[0], d[1], d[2], d[3]]) != 0),
        _ => None,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Light {
    pub index: usize,
    /// The node showing this light, if any.
    pub node: Option<String>,
    pub class: String,
    /// "omni", "spot", "directional", "sky" or "other".
    pub kind: String,
    pub targeted: bool,
    pub color: Option<[f32; 3]>,
    pub multiplier: Option<f32>,
    /// Degrees.
    pub hotspot: Option<f32>,
    pub falloff: Option<f32>,
    /// Near attenuation start and end (scene units).
    pub near_atten: Option<[f32; 2]>,
    /// Far attenuation start and end (scene units).
    pub far_atten: Option<[f32; 2]>,
    /// Decay type (0 none, 1 inverse, 2 inverse square).
    pub decay: Option<i32>,
    /// Whether the far attenuation range is used (chunk 0x2562).
    pub use_far_atten: Option<bool>,
    /// Lights only the ambient channel (chunk 0x2600 present).
    pub ambient_only: bool,
    /// Chunk 0x2570.
    pub cast_shadows: Option<bool>,
    /// Chunk 0x2580.
    pub on: Option<bool>,
    /// The target node's name (LookAt controller of the light's node).
    pub target: Option<String>,
    pub errors: Vec<String>,
}

fn kind(cid: (u32, u32)) -> (&'static str, bool) {
    match cid {
        (0x1011, 0) => ("omni", false),
        (0x1012, 0) => ("spot", true),
        (0x1013, 0) => ("directional", false),
        (0x1014, 0) => ("spot", false),
        (0x1015, 0) => ("directional", true),
        (0x7bf61478, 0x522e4705) => ("sky", false),
        _ => ("other", false),
    }
}

pub fn light(eval: &SceneEval, idx: usize) -> Option<Light> {
    let c = eval.graph.objects.get(idx)?.class.as_ref()?;
    if c.super_class != SC_LIGHT {
        return None;
    }
    let (k, targeted) = kind((c.class_id.0, c.class_id.1));
    let node = node_of(eval, idx);
    let mut l = Light {
        index: idx,
        node: node.and_then(|n| eval.graph.objects[n].node.as_ref().map(|i| i.name.clone())),
        class: c.name.clone(),
        kind: k.to_string(),
        targeted,
        color: None,
        multiplier: None,
        hotspot: None,
        falloff: None,
        near_atten: None,
        far_atten: None,
        decay: None,
        use_far_atten: None,
        ambient_only: false,
        cast_shadows: None,
        on: None,
        target: node.and_then(|n| target_of(eval, n)),
        errors: Vec::new(),
    };
    if k != "sky" && k != "other" {
        match old_params(eval, idx) {
            Ok(Some(p)) => {
                let f = |i: i32| {
                    let q = p.iter().find(|q| q.index == i)?;
                    match &q.value {
                        Value::Float(v) => Some(*v),
                        // Animated: its controller's value at time 0.
                        Value::None => {
                            let pbi = pblock::reference(&eval.graph, idx, 0)?;
                            let ctl = pblock::reference(&eval.graph, pbi, q.ref_slot?)?;
                            let v = eval.float_at(Some(ctl), 0, f64::NAN);
                            v.is_finite().then_some(v as f32)
                        }
                        _ => None,
                    }
                };
                let int = |i: i32| match p.iter().find(|q| q.index == i).map(|q| &q.value) {
                    Some(Value::Int(v)) => Some(*v),
                    _ => None,
                };
                let pair = |a: i32| Some([f(a)?, f(a + 1)?]);
                l.color = p.iter().find(|q| q.index == 0).and_then(|q| match q.value {
                    Value::Vector(v) => Some(v),
                    _ => None,
                });
                l.multiplier = f(1);
                if k == "omni" {
                    l.near_atten = pair(4);
                    l.far_atten = pair(6);
                    l.decay = int(8);
                } else {
                    l.hotspot = f(4);
                    l.falloff = f(5);
                    l.near_atten = pair(7);
                    l.far_atten = pair(9);
                    l.decay = int(11);
                }
            }
            Ok(None) => {}
            Err(e) => l.errors.push(e.to_string()),
        }
        let chunks = eval.chunks(idx);
        l.use_far_atten = word(chunks, USE_FAR_ATTEN);
        l.cast_shadows = word(chunks, CAST_SHADOWS);
        l.on = word(chunks, ON_OFF);
        l.ambient_only = chunks.iter().any(|c| c.id == AMBIENT_ONLY);
    } else if let Some(pbi) = pblock::reference(&eval.graph, idx, 0) {
        // Skylight and plug-in lights: PB2; report decoding problems only.
        if let Err(e) = pblock::param_block2(eval.chunks(pbi)) {
            l.errors.push(e.to_string());
        }
    }
    Some(l)
}
