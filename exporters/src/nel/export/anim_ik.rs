//! Tracks of IK-driven nodes (goals and joints of HI chains): their transform
//! comes from a solve, not from keys, so it is sampled once per frame over the
//! scene's animation range into linear keyframers — the values equal the
//! evaluated scene's at every frame.

use maxfs_scene::eval::rigs::ik::plug;
use maxfs_scene::eval::Quat;
use maxfs_scene::settings::{self, TimeConfig};

use super::super::skel::{decompose, nel_quat, nel_vec};
use super::{framer, plain, seconds, Context, MAX_SAMPLES, POS, ROTQUAT, SCALE};
use crate::nel::anim::Track as NelTrack;

/// Whether the node's transform controller is an IK controller that evaluates.
pub fn is_ik(ctx: &Context, node: usize) -> bool {
    ctx.eval
        .tm_controller(node)
        .and_then(|tm| plug::coverage(ctx.eval, tm))
        .is_some_and(|c| c.is_ok())
}

/// Scale, rotation and position tracks (`<prefix>scale` …) of an IK node,
/// sampled at every frame of the animation range.
pub fn tracks(ctx: &Context, node: usize, prefix: &str) -> Vec<(String, NelTrack)> {
    let time = settings::time_config(ctx.doc).unwrap_or(TimeConfig::DEFAULT);
    let step = time.ticks_per_frame.max(1);
    let (first, last) = (time.start.min(time.end), time.end.max(time.start));
    let times: Vec<i32> = (0..MAX_SAMPLES as i32)
        .map_while(|i| {
            let t = first.checked_add(i.checked_mul(step)?)?;
            (t <= last).then_some(t)
        })
        .collect();
    let mut scale = Vec::new();
    let mut rot = Vec::new();
    let mut pos = Vec::new();
    let mut prev: Option<Quat> = None;
    for &t in &times {
        let (s, mut q, p) = decompose(&ctx.eval.local_tm(node, t));
        q = q.closest_to(prev);
        prev = Some(q);
        scale.push((seconds(t), plain(nel_vec(s))));
        rot.push((seconds(t), plain(nel_quat(q))));
        pos.push((seconds(t), plain(nel_vec(p))));
    }
    let range = (first, last);
    vec![
        (
            format!("{prefix}{SCALE}"),
            NelTrack::CTrackKeyFramerLinearVector(framer(scale, range)),
        ),
        (
            format!("{prefix}{ROTQUAT}"),
            NelTrack::CTrackKeyFramerLinearQuat(framer(rot, range)),
        ),
        (
            format!("{prefix}{POS}"),
            NelTrack::CTrackKeyFramerLinearVector(framer(pos, range)),
        ),
    ]
}
