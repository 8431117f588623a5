//! Cameras (superclass 0x20): Free (0x1001, 0) and Target (0x1002, 0) cameras
//! keep an old ParamBlock on reference 0 — 0 horizontal field of view (radians),
//! 1 target distance, 2/3 near/far clipping planes, 4/5 near/far environment
//! ranges. The Physical camera keeps PB2s (not decoded here).

use crate::eval::error::EvalError;
use serde::Serialize;

use crate::eval::core::controller::Controller;
use crate::eval::core::pblock::{self, OldParam, Value};
use crate::eval::core::transform::SceneEval;

pub const SC_CAMERA: u32 = 0x20;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Camera {
    pub index: usize,
    pub node: Option<String>,
    pub class: String,
    /// "target", "free", "physical" or "other".
    pub kind: String,
    /// Horizontal field of view, radians.
    pub fov: Option<f32>,
    pub target_distance: Option<f32>,
    pub near_clip: Option<f32>,
    pub far_clip: Option<f32>,
    /// Environment ranges (what the ASE export calls CAMERA_NEAR / CAMERA_FAR).
    pub near_range: Option<f32>,
    pub far_range: Option<f32>,
    pub target: Option<String>,
    pub errors: Vec<String>,
}

/// The first node whose object (through any modifier stack) is `obj`.
pub(crate) fn node_of(eval: &SceneEval, obj: usize) -> Option<usize> {
    eval.graph
        .nodes()
        .map(|(o, _)| o.index)
        .find(|&n| eval.node_object(n) == Some(obj))
}

/// The name of the node a node's LookAt controller aims at.
pub(crate) fn target_of(eval: &SceneEval, node: usize) -> Option<String> {
    let tm = eval.tm_controller(node)?;
    match eval.controller(tm)? {
        Controller::LookAt {
            target: Some(t), ..
        } => eval
            .graph
            .objects
            .get(*t)?
            .node
            .as_ref()
            .map(|n| n.name.clone()),
        _ => None,
    }
}

/// The old ParamBlock on reference 0 of `idx`, when there is one.
pub(crate) fn old_params(eval: &SceneEval, idx: usize) -> Result<Option<Vec<OldParam>>, EvalError> {
    let Some(pbi) = pblock::reference(&eval.graph, idx, 0) else {
        return Ok(None);
    };
    let sc = eval.graph.objects[pbi]
        .class
        .as_ref()
        .map(|c| c.super_class);
    if sc != Some(pblock::SC_PARAM_BLOCK) {
        return Ok(None);
    }
    pblock::param_block(eval.chunks(pbi))
        .map(Some)
        .map_err(|e| e.inside(format!("parameter block (object {pbi})")))
}

pub fn camera(eval: &SceneEval, idx: usize) -> Option<Camera> {
    let c = eval.graph.objects.get(idx)?.class.as_ref()?;
    if c.super_class != SC_CAMERA {
        return None;
    }
    let kind = match (c.class_id.0, c.class_id.1) {
        (0x1001, 0) => "free",
        (0x1002, 0) => "target",
        (0x46697218, 0x28e8008d) => "physical",
        _ => "other",
    };
    let node = node_of(eval, idx);
    let mut cam = Camera {
        index: idx,
        node: node.and_then(|n| eval.graph.objects[n].node.as_ref().map(|i| i.name.clone())),
        class: c.name.clone(),
        kind: kind.to_string(),
        fov: None,
        target_distance: None,
        near_clip: None,
        far_clip: None,
        near_range: None,
        far_range: None,
        target: node.and_then(|n| target_of(eval, n)),
        errors: Vec::new(),
    };
    match old_params(eval, idx) {
        Ok(Some(p)) => {
            let f = |i: i32| match p.iter().find(|q| q.index == i).map(|q| &q.value) {
                Some(Value::Float(v)) => Some(*v),
                _ => None,
            };
            cam.fov = f(0);
            cam.target_distance = f(1);
            cam.near_clip = f(2);
            cam.far_clip = f(3);
            cam.near_range = f(4);
            cam.far_range = f(5);
        }
        Ok(None) => {}
        Err(e) => cam.errors.push(e.to_string()),
    }
    Some(cam)
}
