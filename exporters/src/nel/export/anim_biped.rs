//! Tracks of Character Studio Biped nodes as the plug-in writes them
//! (export_anim.cpp buildBipedInformation, overSampleBipedAnimation,
//! createBipedKeyFramer): every Biped node under the exported root is
//! sampled at one step over the rig's key range, each sample the node's TM
//! relative to its parent node (getLocalMatrix, decompMatrix), into linear
//! keyframers — a rotation track for every node, a position track for the COM
//! and the first link of each arm, the spine and the tail
//! (`mustExportBipedBonePos`). The step is 30 samples per second of the
//! file's frame rate, `(30 · ticks per frame) / frame rate` ticks
//! (NL3D_BIPED_OVERSAMPLING). The range runs from the earliest first key to
//! the latest last key of the Biped nodes' own key tracks, the latest never
//! below 0; the loop stops before passing it, as the plug-in's does. No scale
//! track: Biped nodes carry none.

use crate::error::{ExportError, ExportResult};
use std::collections::BTreeSet;

use maxfs_scene::eval::rigs::biped::{self, Role};
use maxfs_scene::eval::Quat;
use maxfs_scene::settings::{self, TimeConfig};

use super::super::skel::{decompose, nel_quat, nel_rotation, nel_vec};
use super::{framer, plain, seconds, Context, MAX_SAMPLES, POS, ROTQUAT};
use crate::nel::anim::Track as NelTrack;

/// NL3D_BIPED_OVERSAMPLING: samples per second at 30 fps.
const OVERSAMPLING: i32 = 30;

/// The Biped nodes of one exported hierarchy and the ticks they are sampled at.
pub struct Sampling {
    pub times: Vec<i32>,
    /// Nodes with a position track.
    pos_nodes: BTreeSet<usize>,
}

/// The keytracks whose keys are a body part's own keys.
fn keyed_tracks(role: Role) -> &'static [&'static str] {
    match role {
        Role::Com => &["horizontal", "vertical", "turn"],
        Role::Part { limb, .. } => match limb {
            0 | 2 => &["left arm"],
            1 | 3 => &["right arm"],
            4 | 6 => &["left leg"],
            5 | 7 => &["right leg"],
            8 => &["spine"],
            9 => &["tail"],
            10 | 16 => &["head"],
            11 => &["pelvis"],
            17 => &["ponytail 1"],
            18 => &["ponytail 2"],
            _ => &[],
        },
        Role::Footsteps => &[],
    }
}

/// The Biped role of a node (Footsteps is not a Biped node for the plug-in).
fn role(ctx: &Context, node: usize) -> Option<(usize, Role)> {
    let ctl = ctx.eval.tm_controller(node)?;
    let (sys, role) = biped::controller_role(ctx.eval, ctl)?.ok()?;
    (role != Role::Footsteps).then_some((sys, role))
}

/// buildBipedInformation and overSampleBipedAnimation's time loop for the
/// hierarchy under `root` (`nodes`: the root and its descendants); None when
/// it holds no Biped node.
pub fn sampling(ctx: &Context, nodes: &[usize]) -> Option<Sampling> {
    let rigs = ctx.eval.biped_rigs();
    let (mut first, mut last) = (i32::MAX, 0i32);
    let mut pos_nodes = BTreeSet::new();
    let mut any = false;
    for &n in nodes {
        let Some((sys, role)) = role(ctx, n) else {
            continue;
        };
        any = true;
        let Some(Ok(rig)) = rigs.get(&sys) else {
            continue;
        };
        // An extra limb's links: that limb's own keys (0x015f/0x0160; its
        // nub, like the other nubs, has none).
        let extra = match role {
            Role::Part { limb, .. } if biped::extra::is_extra(limb) => {
                Some((limb - biped::extra::FIRST) as usize)
            }
            _ => None,
        };
        let own = rig
            .tracks
            .iter()
            .filter(|t| extra.is_some() && t.limb == extra);
        for t in own {
            if let (Some(a), Some(b)) = (t.keys.first(), t.keys.last()) {
                first = first.min(a.time);
                last = last.max(b.time);
            }
        }
        // The base layer's keys and those of the layers above it.
        let layers = std::iter::once(&rig.tracks).chain(rig.layers.iter().map(|l| &l.tracks));
        for (name, tracks) in layers.flat_map(|ts| keyed_tracks(role).iter().map(move |n| (n, ts)))
        {
            if let Some(t) = tracks.iter().find(|t| t.name == *name) {
                if let (Some(a), Some(b)) = (t.keys.first(), t.keys.last()) {
                    first = first.min(a.time);
                    last = last.max(b.time);
                }
            }
        }
        // The COM and biped.getNode #larm, #rarm, #spine, #tail (link 1).
        if matches!(
            role,
            Role::Com
                | Role::Part {
                    limb: 0 | 1 | 8 | 9,
                    link: 0
                }
        ) {
            pos_nodes.insert(n);
        }
    }
    if !any {
        return None;
    }
    let time = settings::time_config(ctx.doc).unwrap_or(TimeConfig::DEFAULT);
    let tpf = time.ticks_per_frame.max(1);
    let fps = (4800 / tpf).max(1);
    let step = (OVERSAMPLING * tpf / fps).max(1);
    let mut times = Vec::new();
    let mut t = first;
    while t <= last && times.len() < MAX_SAMPLES {
        times.push(t.min(last));
        let Some(next) = t.checked_add(step) else {
            break;
        };
        t = next;
    }
    Some(Sampling { times, pos_nodes })
}

/// The rotation (and, for the COM and limb bases, position) track of one
/// Biped node, or why it cannot be sampled.
pub fn tracks(
    ctx: &Context,
    node: usize,
    prefix: &str,
    s: &Sampling,
) -> ExportResult<Vec<(String, NelTrack)>> {
    if s.times.is_empty() {
        return Ok(Vec::new());
    }
    let mut rot = Vec::with_capacity(s.times.len());
    let mut pos = Vec::with_capacity(s.times.len());
    let mut prev: Option<Quat> = None;
    for &t in &s.times {
        if let Some(Err(why)) = ctx.eval.direct_world(node, t) {
            return Err(ExportError::refused(format!("{why} (tick {t})")));
        }
        let local = ctx.eval.local_tm(node, t);
        let mut q = nel_rotation(&local).normalized();
        // CQuat::makeClosest.
        q = q.closest_to(prev);
        prev = Some(q);
        rot.push((seconds(t), plain(nel_quat(q))));
        pos.push((seconds(t), plain(nel_vec(decompose(&local).2))));
    }
    let range = (s.times[0], s.times[s.times.len() - 1]);
    let mut out = vec![(
        format!("{prefix}{ROTQUAT}"),
        NelTrack::CTrackKeyFramerLinearQuat(framer(rot, range)),
    )];
    if s.pos_nodes.contains(&node) {
        out.push((
            format!("{prefix}{POS}"),
            NelTrack::CTrackKeyFramerLinearVector(framer(pos, range)),
        ));
    }
    Ok(out)
}
