//! `addMorphTracks`: one float track `<prefix><target name>MorphFactor` per
//! Morpher channel with a target node, from the controller animating the
//! channel's percentage (values in percent, as Max stores them; Bezier
//! tangents copied as the plug-in's `buildNelKey` for floats does). A
//! channel whose percentage is constant gives no track; one whose controller
//! is not a float keyframer is named, never dropped.

use maxfs_scene::eval::modifier::morpher;

use super::super::shape::morph_build;
use super::super::shape_anim::float_track;
use super::Context;
use crate::nel::anim::Track as NelTrack;

/// The morph-factor tracks of `node` (none without a Morpher), and the
/// channels that could not be exported, with why.
pub fn tracks(ctx: &Context, node: usize, prefix: &str) -> (Vec<(String, NelTrack)>, Vec<String>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let Some((modifier, targets)) = morph_build::morpher_targets(ctx, node) else {
        return (out, errors);
    };
    for (channel, target) in targets {
        let Some(ctl) = morpher::weight_controller(ctx.eval, modifier, channel) else {
            continue;
        };
        let name = format!("{prefix}{}MorphFactor", ctx.graph.node_name(target));
        match float_track(ctx, ctl) {
            Ok(Some(t)) => out.push((name, t)),
            Ok(None) => {}
            Err(e) => errors.push(format!("{name}: {e}")),
        }
    }
    (out, errors)
}
