//! Lights (superclass 0x30): the standard lights keep their values in an old
//! ParamBlock on reference 0 — 0 colour, 1 multiplier, 2 contrast, 3 diffuse
//! softening, 4 hotspot and 5 falloff (degrees, spot and directional lights).
//! Target lights aim through their node's LookAt controller.

use serde::Serialize;

use super::camera::{node_of, old_params, target_of};
use super::pblock::{self, Value};
use super::transform::SceneEval;

pub const SC_LIGHT: u32 = 0x30;

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
        target: node.and_then(|n| target_of(eval, n)),
        errors: Vec::new(),
    };
    if k != "sky" && k != "other" {
        match old_params(eval, idx) {
            Ok(Some(p)) => {
                let f = |i: i32| match p.iter().find(|q| q.index == i).map(|q| &q.value) {
                    Some(Value::Float(v)) => Some(*v),
                    _ => None,
                };
                l.color = p.iter().find(|q| q.index == 0).and_then(|q| match q.value {
                    Value::Vector(v) => Some(v),
                    _ => None,
                });
                l.multiplier = f(1);
                if k != "omni" {
                    l.hotspot = f(4);
                    l.falloff = f(5);
                }
            }
            Ok(None) => {}
            Err(e) => l.errors.push(e),
        }
    } else if let Some(pbi) = pblock::reference(eval.graph, idx, 0) {
        // Skylight and plug-in lights: PB2; report decoding problems only.
        if let Err(e) = pblock::param_block2(eval.chunks(pbi)) {
            l.errors.push(e);
        }
    }
    Some(l)
}
