//! Motion of rig nodes that have no keys of their own: Skin bones (and their
//! ancestors) moved by a rig — IK chains, Link Constraints, Biped — are
//! sampled like keyed nodes, so a glTF skin follows what Max shows.
//! (A node whose controller gives its world transform directly has
//! `SceneEval::local_tm` = world · parent world⁻¹.)

use std::collections::BTreeMap;

use maxfs_scene::eval::modifier::skin;
use maxfs_scene::eval::{Mat43, SceneEval};
use maxfs_scene::settings::TimeConfig;

/// Ticks probed over the animation range to tell a moving node.
const PROBES: i32 = 32;

fn differs(a: &Mat43, b: &Mat43) -> bool {
    let (ra, rb) = (a.rows(), b.rows());
    let size = ra[3]
        .iter()
        .chain(&rb[3])
        .fold(1.0f64, |m, v| m.max(v.abs()));
    ra.iter().zip(&rb).enumerate().any(|(i, (x, y))| {
        let s = if i == 3 { size } else { 1.0 };
        x.iter().zip(y).any(|(p, q)| (p - q).abs() > 1e-7 * s)
    })
}

/// Sample ranges for Skin bones and their ancestors: a rig (IK goal, Link
/// Constraint, Biped) moves them over the whole animation — the range and
/// every key of the scene — not only over their own keys. Keyed bones get
/// that span added to their keys; unkeyed ones get it when they move in it.
pub(super) fn driven_bones(
    eval: &SceneEval,
    nodes: &[usize],
    keyed: &BTreeMap<usize, Vec<i32>>,
    time: TimeConfig,
) -> BTreeMap<usize, Vec<i32>> {
    let mut bones = std::collections::BTreeSet::new();
    for &n in nodes {
        if let Some(Ok(s)) = skin::node_skin(eval, n) {
            for b in s.bones.iter().filter_map(|b| b.node) {
                let mut cur = Some(b);
                while let Some(c) = cur {
                    if !bones.insert(c) || bones.len() > nodes.len() {
                        break;
                    }
                    cur = eval
                        .graph
                        .objects
                        .get(c)
                        .and_then(|o| o.node.as_ref())
                        .and_then(|x| x.parent)
                        .map(|p| p as usize)
                        .filter(|&p| eval.graph.objects.get(p).is_some_and(|o| o.node.is_some()));
                }
            }
        }
    }
    let keys = keyed.values().flatten();
    let start = keys.clone().copied().fold(time.start, i32::min);
    let end = keys.copied().fold(time.end, i32::max);
    let mut out = BTreeMap::new();
    if end <= start {
        return out;
    }
    for b in bones {
        if !nodes.contains(&b) {
            continue;
        }
        let span = if let Some(k) = keyed.get(&b) {
            let mut k = k.clone();
            k.extend([start, end]);
            k.sort_unstable();
            k.dedup();
            k
        } else {
            let first = eval.local_tm(b, start);
            // In i64: damaged key times may span more than i32 holds.
            let span = i64::from(end) - i64::from(start);
            let moves = (1..=PROBES).any(|k| {
                let t = i64::from(start) + span * i64::from(k) / i64::from(PROBES);
                differs(&first, &eval.local_tm(b, t as i32))
            });
            if !moves {
                continue;
            }
            vec![start, end]
        };
        out.insert(b, span);
    }
    out
}
