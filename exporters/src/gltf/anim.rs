//! Node animation: one clip, each animated node's local T, R, S sampled once
//! per frame over its key range.
//!
//! glTF animation inputs must be ≥ 0 and strictly increasing, while Max's
//! timeline may start before 0 (negative frames) and key times of damaged or
//! very long tracks may collapse when written as `f32` seconds. So every input
//! is shifted by one scene-wide origin — the earlier of the animation range's
//! start and the first sampled key — and samples whose `f32` time would not
//! increase are dropped. The origin, the frame rate and the range (in the
//! shifted time) go into `extras`, so an importer can set its timeline and a
//! reader can map a glTF time back to Max ticks: `tick = 4800·t + origin`.

use std::collections::BTreeMap;

use gltf_json as json;
use json::validation::Checked::Valid;
use json::Index;
use serde_json::json as value;

use super::axes::{decompose, f3, metres, to_gltf};
use super::build::Builder;

/// Ticks per second (Max: 4800 at every frame rate).
const TICKS_PER_SECOND: f64 = 4800.0;
/// At most this many samples per animated node (damaged key times).
const MAX_SAMPLES: i64 = 20_000;

/// Sample ticks of one node: every frame from its first to its last key, the
/// last key always included; `None` without a key range.
pub(super) fn sample_ticks(keys: &[i32], ticks_per_frame: i32) -> Option<Vec<i64>> {
    let (first, last) = (i64::from(*keys.first()?), i64::from(*keys.last()?));
    if last <= first {
        return None;
    }
    let frame = i64::from(ticks_per_frame.max(1));
    let step = frame.max((last - first) / MAX_SAMPLES + 1);
    let mut times: Vec<i64> = (0..)
        .map(|k| first + k * step)
        .take_while(|&t| t < last)
        .collect();
    times.push(last);
    Some(times)
}

/// `extras` JSON, or nothing when it cannot be serialised.
fn extras(v: serde_json::Value) -> json::Extras {
    serde_json::value::to_raw_value(&v).ok()
}

/// Seconds since `origin` of each tick, as `f32`, keeping only strictly
/// increasing ones: the kept (index, seconds) pairs.
pub(super) fn shifted_seconds(ticks: &[i64], origin: i64) -> Vec<(usize, f32)> {
    let mut out: Vec<(usize, f32)> = Vec::with_capacity(ticks.len());
    for (i, &t) in ticks.iter().enumerate() {
        let s = ((t - origin) as f64 / TICKS_PER_SECOND) as f32;
        if s.is_finite() && s >= 0.0 && out.last().is_none_or(|&(_, p)| s > p) {
            out.push((i, s));
        }
    }
    out
}

/// Writes the clip "All" and the scene's timeline `extras`.
#[inline(never)]
pub(super) fn animations(
    b: &mut Builder,
    max_nodes: &[usize],
    animated: &BTreeMap<usize, Vec<i32>>,
) {
    let time = b.scale.time;
    let per_node: Vec<(usize, usize, Vec<i64>)> = max_nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| {
            let ticks = sample_ticks(animated.get(n)?, time.ticks_per_frame)?;
            Some((i, *n, ticks))
        })
        .collect();
    let origin = per_node
        .iter()
        .filter_map(|(_, _, t)| t.first().copied())
        .chain(super::morph::first_tick(b))
        .fold(i64::from(time.start), i64::min);
    let secs = |t: i64| (t - origin) as f64 / TICKS_PER_SECOND;
    if let Some(scene) = b.root.scenes.first_mut() {
        scene.extras = extras(value!({
            "max_frame_rate": time.frame_rate,
            "max_ticks_per_frame": time.ticks_per_frame,
            "time_origin_ticks": origin,
            "time_origin_seconds": origin as f64 / TICKS_PER_SECOND,
            "range_start": secs(i64::from(time.start)),
            "range_end": secs(i64::from(time.end)),
        }));
    }
    let mut channels = Vec::new();
    let mut samplers = Vec::new();
    let mut dropped = 0;
    for (i, n, ticks) in per_node {
        let kept = shifted_seconds(&ticks, origin);
        dropped += ticks.len() - kept.len();
        let mut tr = Vec::with_capacity(kept.len());
        let mut rot: Vec<[f32; 4]> = Vec::with_capacity(kept.len());
        let mut sc = Vec::with_capacity(kept.len());
        let mut prev = [0.0, 0.0, 0.0, 1.0];
        // Ticks whose transform is not evaluated (a rig refusing a segment:
        // an IK in-between, a biased key), with the first one's reason.
        let mut refused: (usize, Option<(i32, String)>) = (0, None);
        for &(k, _) in &kept {
            let t = i32::try_from(ticks[k]).unwrap_or(i32::MAX);
            let gaps = maxfs_scene::eval::core::coverage::tm_gaps_at(b.eval, n, t);
            if !gaps.is_empty() {
                refused.0 += 1;
                refused.1.get_or_insert_with(|| (t, gaps.join(", ")));
            }
            let m = metres(to_gltf(&b.eval.local_tm(n, t)), b.scale.metres);
            let (t3, mut q, s, _) = decompose(&m);
            if q.iter().zip(&prev).map(|(a, b)| a * b).sum::<f64>() < 0.0 {
                q = q.map(|v| -v);
            }
            prev = q;
            tr.push(f3(t3));
            rot.push(q.map(|v| v as f32));
            sc.push(f3(s));
        }
        if let (count, Some((first, why))) = refused {
            let name = b.eval.graph.node_name(n).to_string();
            b.approximate(format!(
                "{name}: transform not evaluated at {count} of {} sampled ticks (first tick {first}: {why})",
                kept.len()
            ));
        }
        if kept.len() < 2 {
            continue;
        }
        let secs: Vec<[f32; 1]> = kept.iter().map(|&(_, s)| [s]).collect();
        let input = b.floats(&secs, true, false);
        for (path, output) in [
            (
                json::animation::Property::Translation,
                b.floats(&tr, false, false),
            ),
            (
                json::animation::Property::Rotation,
                b.floats(&rot, false, false),
            ),
            (
                json::animation::Property::Scale,
                b.floats(&sc, false, false),
            ),
        ] {
            push_linear(
                &mut samplers,
                &mut channels,
                (input, output),
                i as u32,
                path,
            );
        }
    }
    dropped += super::morph::weight_channels(b, max_nodes, origin, &mut channels, &mut samplers);
    if dropped > 0 {
        b.warnings.push(format!(
            "animation: {dropped} samples left out (their f32 time in seconds would not increase)"
        ));
    }
    if !channels.is_empty() {
        b.root.push(json::Animation {
            extensions: None,
            extras: extras(value!({
                "time_origin_ticks": origin,
                "time_origin_seconds": origin as f64 / TICKS_PER_SECOND,
            })),
            channels,
            name: Some("All".into()),
            samplers,
        });
    }
}

/// Adds a linearly interpolated sampler and the channel driving `path` of
/// glTF node `node` with it.
pub(super) fn push_linear(
    samplers: &mut Vec<json::animation::Sampler>,
    channels: &mut Vec<json::animation::Channel>,
    (input, output): (Index<json::Accessor>, Index<json::Accessor>),
    node: u32,
    path: json::animation::Property,
) {
    let sampler = Index::new(samplers.len() as u32);
    samplers.push(json::animation::Sampler {
        extensions: None,
        extras: Default::default(),
        input,
        interpolation: Valid(json::animation::Interpolation::Linear),
        output,
    });
    channels.push(json::animation::Channel {
        sampler,
        target: json::animation::Target {
            extensions: None,
            extras: Default::default(),
            node: Index::new(node),
            path: Valid(path),
        },
        extensions: None,
        extras: Default::default(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_start_at_zero_and_increase() {
        // Keys from frame −10 at 30 fps.
        let ticks = sample_ticks(&[-1600, 0, 800], 160).expect("range");
        assert_eq!(ticks.first(), Some(&-1600));
        assert_eq!(ticks.last(), Some(&800));
        let s = shifted_seconds(&ticks, -1600);
        assert_eq!(s.len(), ticks.len());
        assert_eq!(s[0].1, 0.0);
        assert!(s.windows(2).all(|w| w[1].1 > w[0].1));
        // Ticks far out (a damaged track) whose f32 seconds collapse are dropped.
        let far = [0, i64::from(i32::MAX) - 1, i64::from(i32::MAX)];
        let s = shifted_seconds(&far, 0);
        assert_eq!(s.len(), 2);
        // No key range: nothing to sample.
        assert!(sample_ticks(&[5], 160).is_none());
    }
}
