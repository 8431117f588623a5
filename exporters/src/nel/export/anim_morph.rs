//! `addMorphTracks`: one float track `<prefix><target name>MorphFactor` per
//! Morpher channel with a target node, from the controller animating the
//! channel's percentage (values in percent, as Max stores them; Bezier
//! tangents copied as the plug-in's `buildNelKey` for floats does). A
//! channel whose percentage is constant gives no track.

use maxfs_scene::eval::core::controller::{Controller, Track};
use maxfs_scene::eval::core::keys::TANGENT_STEP;
use maxfs_scene::eval::modifier::morpher;

use super::super::shape::morph_build;
use super::super::skel::f32v;
use super::{framer, key_range, plain, seconds, Context};
use crate::nel::anim::{KeyBezier, KeyTcb, Tangent, Track as NelTrack};
use crate::nel::stream::Bool;

/// The morph-factor tracks of `node` (none without a Morpher).
pub fn tracks(ctx: &Context, node: usize, prefix: &str) -> Vec<(String, NelTrack)> {
    let Some((modifier, targets)) = morph_build::morpher_targets(ctx, node) else {
        return Vec::new();
    };
    targets
        .into_iter()
        .filter_map(|(channel, target)| {
            let ctl = morpher::weight_controller(ctx.eval, modifier, channel)?;
            let Some(Controller::Float { track, range, .. }) = ctx.eval.controller(ctl) else {
                return None;
            };
            let name = format!("{prefix}{}MorphFactor", ctx.graph.node_name(target));
            float_track(track, *range).map(|t| (name, t))
        })
        .collect()
}

/// A float keyframer from a float controller's keys (None when constant).
pub fn float_track(track: &Track<1>, range: Option<(i32, i32)>) -> Option<NelTrack> {
    let r = key_range(&track.key_times(), range)?;
    Some(match track {
        Track::Constant { .. } => return None,
        Track::Linear { keys } => NelTrack::CTrackKeyFramerLinearFloat(framer(
            keys.iter()
                .map(|k| (seconds(k.time), plain(f32v(k.value[0]))))
                .collect(),
            r,
        )),
        Track::Bezier { keys } => NelTrack::CTrackKeyFramerBezierFloat(framer(
            keys.iter()
                .map(|k| {
                    (
                        seconds(k.time),
                        KeyBezier {
                            version: 0,
                            value: f32v(k.value[0]),
                            in_tan: Tangent::Float(f32v(k.in_tan[0])),
                            out_tan: Tangent::Float(f32v(k.out_tan[0])),
                            step: Bool((k.out_type() == TANGENT_STEP) as u8),
                        },
                    )
                })
                .collect(),
            r,
        )),
        Track::Tcb { keys } => NelTrack::CTrackKeyFramerTCBFloat(framer(
            keys.iter()
                .map(|k| {
                    (
                        seconds(k.time),
                        KeyTcb {
                            version: 0,
                            value: f32v(k.value[0]),
                            tension: f32v(k.tension),
                            continuity: f32v(k.continuity),
                            bias: f32v(k.bias),
                            ease_to: f32v(k.ease_in),
                            ease_from: f32v(k.ease_out),
                        },
                    )
                })
                .collect(),
            r,
        )),
    })
}
