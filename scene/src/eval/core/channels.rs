//! The animated channels of every node (controller, key times), the query the
//! glTF animation and the `json/animation.json` view share.

use serde::Serialize;

use crate::eval::core::controller::{Controller, RotTrack, Track};
use crate::eval::core::transform::SceneEval;

#[derive(Debug, Clone, Serialize)]
pub struct Channel {
    /// "position", "rotation", "scale", or "position.x" … for per-axis controllers.
    pub channel: String,
    pub object: usize,
    pub controller: Controller,
    pub key_times: Vec<i32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NodeAnimation {
    pub index: usize,
    pub name: String,
    pub channels: Vec<Channel>,
}

pub(crate) fn is_keyed(c: &Controller) -> bool {
    match c {
        Controller::Float { track, .. } => !matches!(track, Track::Constant { .. }),
        Controller::Point3 { track, .. } | Controller::Scale { track, .. } => {
            !matches!(track, Track::Constant { .. })
        }
        Controller::Rotation { track, .. } => !matches!(track, RotTrack::Constant { .. }),
        _ => false,
    }
}

/// Whether the controller's own track takes more than one value over time:
/// keys at two or more times (a single key holds its value at every time, as
/// Max's key interpolation gives it before the first and after the last key).
pub(crate) fn varies(c: &Controller) -> bool {
    let mut times = c.key_times();
    times.dedup();
    times.len() > 1
}

/// Nesting followed below a PRS: per-axis controllers and list entries (a
/// list of lists is already refused deeper than list.rs allows).
const MAX_DEPTH: usize = 20;

/// The keyed controllers at and below `idx`, named after the PRS part: per
/// axis `position.x`, per list entry `position[1]` (and `position[1].x`).
fn keyed_channels(
    eval: &SceneEval,
    name: String,
    idx: Option<usize>,
    depth: usize,
    out: &mut Vec<Channel>,
) {
    let Some(i) = idx else { return };
    let Some(c) = eval.controller(i) else { return };
    if depth > MAX_DEPTH {
        return;
    }
    match c {
        Controller::PositionXyz { axes }
        | Controller::EulerXyz { axes, .. }
        | Controller::ScaleXyz { axes } => {
            for (a, sub) in ["x", "y", "z"].iter().zip(axes) {
                keyed_channels(eval, format!("{name}.{a}"), *sub, depth + 1, out);
            }
        }
        Controller::List { subs, .. } => {
            for (k, sub) in subs.iter().enumerate() {
                keyed_channels(eval, format!("{name}[{k}]"), *sub, depth + 1, out);
            }
        }
        Controller::PathConstraint(p) => {
            keyed_channels(eval, format!("{name}.percent"), p.percent, depth + 1, out);
            for (k, path) in p.paths.iter().enumerate() {
                let channel = format!("{name}.weight[{k}]");
                keyed_channels(eval, channel, path.weight_ctl, depth + 1, out);
            }
        }
        c if is_keyed(c) => out.push(Channel {
            channel: name,
            object: i,
            key_times: c.key_times(),
            controller: c.clone(),
        }),
        _ => {}
    }
}

/// Keyed channels of every node's PRS (and per-axis sub-controllers).
pub fn animation(eval: &SceneEval) -> Vec<NodeAnimation> {
    let mut out = Vec::new();
    for (o, n) in eval.graph.nodes() {
        let Some(tm) = eval.tm_controller(o.index) else {
            continue;
        };
        let mut channels = Vec::new();
        let mut push = |name: String, idx: Option<usize>| {
            keyed_channels(eval, name, idx, 0, &mut channels);
        };
        match eval.controller(tm) {
            Some(Controller::Prs {
                position,
                rotation,
                scale,
            }) => {
                push("position".into(), *position);
                push("rotation".into(), *rotation);
                push("scale".into(), *scale);
            }
            Some(Controller::LookAt {
                position,
                roll,
                scale,
                ..
            }) => {
                push("position".into(), *position);
                push("roll".into(), *roll);
                push("scale".into(), *scale);
            }
            _ => {}
        }
        if !channels.is_empty() {
            out.push(NodeAnimation {
                index: o.index,
                name: n.name.clone(),
                channels,
            });
        }
    }
    out
}
