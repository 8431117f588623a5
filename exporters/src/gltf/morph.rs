//! glTF morph targets from the Morpher modifier.
//!
//! The Morpher moves each point by Σ displacement · percent / 100 over its
//! channels (scene `modifier::morpher`), which is exactly glTF's morph model:
//! base + Σ weight · target. So a node whose Morpher is the last modifier that
//! moves points gets its mesh written at 0 % (the Morpher's input), one
//! POSITION displacement target per channel, the channel percentages at frame
//! 0 as the mesh `weights`, the channel names as `extras.targetNames`, and a
//! `weights` animation sampled once per frame when a percentage is animated.
//! Anything else (several Morphers, a modifier above that moves points, a
//! channel that cannot be evaluated) keeps the mesh baked at frame 0 and says
//! why in the warnings. NORMAL targets are not written: glTF blends normals
//! linearly while Max recomputes them, so a renderer recomputing normals or
//! keeping the base ones is no worse than an approximation written here.

use std::collections::BTreeMap;
use std::sync::Arc;

use gltf_json as json;
use json::Index;
use maxfs_scene::eval::modifier::morpher::{self, MorphChannel};
use maxfs_scene::eval::modifier::MORPHER;
use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::{EvalError, Mat43, Stack, Vec3};
use serde_json::json as value;

use super::anim::{sample_ticks, shifted_seconds};
use super::build::Builder;
use super::geometry::{self, Streams};

/// At most this many channels become targets (Max's Morpher has 100 per bank).
const MAX_TARGETS: usize = 1000;

/// A node whose Morpher becomes morph targets: its mesh at 0 % and channels.
pub(super) struct Plan {
    modifier: usize,
    /// The Morpher's input (with the point-keeping modifiers above it) at 0.
    pub(super) base: Arc<Mesh>,
    channels: Vec<MorphChannel>,
    weights: Vec<f64>,
}

/// A mesh's animated weights, written with the clip (see [`weight_channels`]).
pub(super) struct Pending {
    node: usize,
    modifier: usize,
    channels: Vec<MorphChannel>,
}

/// The morph plan of Max node `node`, or `None` when its mesh is written as
/// evaluated (no Morpher, or one that cannot be kept live: then a warning
/// names the node and why).
#[inline(never)]
pub(super) fn plan(b: &mut Builder, node: usize, name: &str) -> Option<Plan> {
    let eval = b.eval;
    let (stack, _) = eval.modifier_stack(node)?;
    let morphers: Vec<usize> = stack
        .iter()
        .enumerate()
        .filter(|(_, a)| a.class == MORPHER)
        .map(|(i, _)| i)
        .collect();
    let &[at] = morphers.as_slice() else {
        if morphers.len() > 1 {
            b.approximate(format!(
                "{name}: {} Morpher modifiers: morph targets not exported, mesh baked at frame 0",
                morphers.len()
            ));
        }
        return None;
    };
    let modifier = stack[at].object;
    if let Some(a) = stack[..at].iter().find(|a| !morpher::keeps_points(a.class)) {
        b.approximate(format!(
            "{name}: modifier {} above the Morpher moves points: morph targets not exported, mesh baked at frame 0",
            a.name
        ));
        return None;
    }
    // Errors of the full stack are reported by the caller's baked path.
    let full = eval.mesh(node, 0)?.ok()?;
    let base = eval.mesh_with(node, 0, Stack::Without(modifier))?.ok()?;
    let refuse = |b: &mut Builder, why: String| {
        b.approximate(format!(
            "{name}: Morpher: {why}: morph targets not exported, mesh baked at frame 0"
        ));
        None
    };
    if base.vertices.len() != full.vertices.len() {
        return refuse(b, "point count differs from the mesh's".into());
    }
    let channels = match morpher::channels(eval, modifier, base.vertices.len()) {
        Ok(c) if c.is_empty() => return None,
        Ok(c) if c.len() > MAX_TARGETS => {
            return refuse(b, format!("{} channels (at most {MAX_TARGETS})", c.len()))
        }
        Ok(c) => c,
        Err(e) => return refuse(b, e.to_string()),
    };
    let weights: Result<Vec<f64>, EvalError> = channels
        .iter()
        .map(|c| morpher::channel_weight(eval, modifier, c, 0))
        .collect();
    let weights = match weights {
        Ok(w) => w,
        Err(e) => return refuse(b, e.to_string()),
    };
    // The targets must rebuild the evaluated mesh at frame 0 (the same sum
    // the Morpher makes); anything else means the linear model does not hold.
    let size = extent(&full.vertices);
    let worst = (0..base.vertices.len())
        .map(|k| {
            let mut p = base.vertices[k];
            for (c, w) in channels.iter().zip(&weights) {
                p = p.plus(c.displacement[k].scale(w / 100.0));
            }
            // NaN (damaged points) counts as a miss, never as a match.
            let d = p.minus(full.vertices[k]).len();
            if d.is_nan() {
                f64::INFINITY
            } else {
                d
            }
        })
        .fold(0.0, f64::max);
    if worst.is_nan() || worst > 1e-5 * size.max(1e-6) {
        return refuse(
            b,
            format!("targets miss the evaluated mesh by {worst} at frame 0"),
        );
    }
    Some(Plan {
        modifier,
        base,
        channels,
        weights,
    })
}

/// The largest bounding-box side of `points` (0 when empty).
fn extent(points: &[Vec3]) -> f64 {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        for (k, v) in p.to_array().into_iter().enumerate() {
            lo[k] = lo[k].min(v);
            hi[k] = hi[k].max(v);
        }
    }
    (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max)
}

/// What a mesh carries for its morph targets.
pub(super) struct Written {
    /// One target per channel, shared by every primitive (same streams).
    pub(super) targets: Vec<json::mesh::MorphTarget>,
    pub(super) weights: Vec<f32>,
    pub(super) extras: json::Extras,
}

/// Writes the POSITION displacement targets of `plan` for the streams `s`
/// (built from `plan.base` placed by `offset`) and queues the weight
/// animation of Max node `node`.
#[inline(never)]
pub(super) fn targets(
    b: &mut Builder,
    node: usize,
    plan: Plan,
    s: &Streams,
    offset: &Mat43,
) -> Written {
    let metres = b.scale.metres;
    let mut targets = Vec::with_capacity(plan.channels.len());
    for c in &plan.channels {
        let d: Vec<[f32; 3]> = s
            .source
            .iter()
            .map(|&v| {
                let d = c.displacement.get(v as usize).copied().unwrap_or_default();
                let g = geometry::to_yup(offset.transform_vector(d));
                let m = g.to_array().map(|x| (x * metres) as f32);
                if m.iter().all(|x| x.is_finite()) {
                    m
                } else {
                    [0.0; 3]
                }
            })
            .collect();
        let positions: Index<json::Accessor> = b.floats(&d, true, true);
        targets.push(json::mesh::MorphTarget {
            positions: Some(positions),
            normals: None,
            tangents: None,
        });
    }
    let names: Vec<String> = plan
        .channels
        .iter()
        .map(|c| {
            if c.name.is_empty() {
                format!("channel {}", c.index + 1)
            } else {
                c.name.clone()
            }
        })
        .collect();
    let weights = plan.weights.iter().map(|w| (w / 100.0) as f32).collect();
    if plan.channels.iter().any(|c| c.key_times.len() > 1) {
        b.morphs.push(Pending {
            node,
            modifier: plan.modifier,
            channels: plan.channels,
        });
    }
    Written {
        targets,
        weights,
        extras: serde_json::value::to_raw_value(&value!({ "targetNames": names })).ok(),
    }
}

/// The sample ticks of each queued weight animation: every frame over the
/// union of its channels' key ranges.
fn ticks(b: &Builder) -> Vec<Option<Vec<i64>>> {
    b.morphs
        .iter()
        .map(|p| {
            let mut keys: Vec<i32> = p
                .channels
                .iter()
                .flat_map(|c| c.key_times.iter().copied())
                .collect();
            keys.sort_unstable();
            keys.dedup();
            sample_ticks(&keys, b.scale.time.ticks_per_frame)
        })
        .collect()
}

/// The earliest sample tick of the queued weight animations, for the clip's
/// time origin.
pub(super) fn first_tick(b: &Builder) -> Option<i64> {
    ticks(b)
        .into_iter()
        .flatten()
        .filter_map(|t| t.first().copied())
        .min()
}

/// Appends a `weights` channel per queued mesh to the clip under
/// construction; inputs are seconds since `origin`. Returns the samples left
/// out because their `f32` time would not increase.
#[inline(never)]
pub(super) fn weight_channels(
    b: &mut Builder,
    max_nodes: &[usize],
    origin: i64,
    channels: &mut Vec<json::animation::Channel>,
    samplers: &mut Vec<json::animation::Sampler>,
) -> usize {
    let all = ticks(b);
    let pending = std::mem::take(&mut b.morphs);
    let index: BTreeMap<usize, usize> =
        max_nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut dropped = 0;
    for (p, ticks) in pending.iter().zip(all) {
        // A hidden node's mesh may sit on a child node (visibility.rs).
        let carrier = b.mesh_node.get(&p.node).map(|&c| c as usize);
        let (Some(ticks), Some(gltf_node)) = (ticks, carrier.or(index.get(&p.node).copied()))
        else {
            continue;
        };
        let kept = shifted_seconds(&ticks, origin);
        dropped += ticks.len() - kept.len();
        if kept.len() < 2 {
            continue;
        }
        let mut out: Vec<[f32; 1]> = Vec::with_capacity(kept.len() * p.channels.len());
        let mut failed = None;
        'ticks: for &(k, _) in &kept {
            let t = i32::try_from(ticks[k]).unwrap_or(i32::MAX);
            for c in &p.channels {
                match morpher::channel_weight(b.eval, p.modifier, c, t) {
                    Ok(w) => out.push([(w / 100.0) as f32]),
                    Err(e) => {
                        failed = Some(e);
                        break 'ticks;
                    }
                }
            }
        }
        if let Some(e) = failed {
            let name = b.eval.graph.node_name(p.node);
            b.approximate(format!("{name}: Morpher weights not animated: {e}"));
            continue;
        }
        let secs: Vec<[f32; 1]> = kept.iter().map(|&(_, s)| [s]).collect();
        let input = b.floats(&secs, true, false);
        let output = b.floats(&out, false, false);
        super::anim::push_linear(
            samplers,
            channels,
            (input, output),
            gltf_node as u32,
            json::animation::Property::MorphTargetWeights,
        );
    }
    dropped
}
