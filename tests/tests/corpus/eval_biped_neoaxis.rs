//! NeoAxis `Rabbit.skeleton` (ref/neoaxis, an Ogre binary skeleton the
//! NeoAxis exporter wrote from biped/RabbitSkin.max) against our figure-mode
//! evaluation of the same rig.
//!
//! The convention, worked out on the file: each bone stores its transform
//! relative to its parent bone (the Max node hierarchy, Bip01 under Dummy01)
//! in the bone's own Max axes — a position and an Ogre quaternion (x, y, z,
//! w) whose rotation, applied to row vectors, is Max's `Mat43::rotation` of
//! the same quaternion — scaled by one factor for the whole skeleton
//! (0.012, fitted below). The root's axes are not Max's, and Bip01 itself is
//! posed (tilted 13°) away from the figure, so only chain-relative transforms
//! are compared: every Biped bone whose parent is a Biped bone, except the
//! footsteps node (placed from Bip01's pose). Rotation elements within 2e-4
//! (the head's stored rotation is 1.06e-4 from ours while our head matches
//! the Skin bind pose to 3e-6), positions within 1e-4 of the rig's height.

use maxfs_scene::eval::rigs::biped::{self, figure, Role};
use maxfs_scene::eval::{Mat43, Quat, SceneEval, Vec3};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

/// One bone of an Ogre skeleton: name, parent handle, position, quaternion.
struct OgreBone {
    name: String,
    parent: Option<u16>,
    position: [f32; 3],
    rotation: [f32; 4],
}

/// One keyframe of an Ogre animation track: time (the exporter's, 0..1 of
/// the take), rotation and translation relative to the bone's binding pose.
struct OgreKey {
    time: f32,
    rotation: [f32; 4],
    translation: [f32; 3],
}

/// One Ogre animation: name, length and per bone (index into the bones) its
/// keyframes.
struct OgreAnimation {
    name: String,
    tracks: Vec<(usize, Vec<OgreKey>)>,
}

/// Ogre's binary skeleton: a u16 header id 0x1000 and a version line, then
/// chunks (u16 id, u32 length): 0x2000 bone (name line, u16 handle, position,
/// quaternion x, y, z, w), 0x3000 parent (u16 child, u16 parent). This
/// exporter's bone lengths leave out the name, so bones are read field by
/// field.
/// RabbitSkin.max, the scene NeoAxis's Rabbit.skeleton was exported from.
fn rabbit_scene() -> SceneEval {
    let doc = Document::open(&corpus_dir().join("max/biped/RabbitSkin.max")).expect("max");
    SceneEval::from_document(doc).expect("scene")
}

fn rabbit_skeleton() -> Vec<u8> {
    std::fs::read(corpus_dir().join("ref/neoaxis/Rabbit.skeleton")).expect("skeleton")
}

fn read_ogre_skeleton(b: &[u8]) -> Vec<OgreBone> {
    read_ogre(b).0
}

/// The bones and the animations after them: 0x4000 animation (name line,
/// f32 length), 0x4100 track (u16 bone handle), 0x4110 keyframe (f32 time,
/// quaternion x, y, z, w, translation; the chunk length counts any scale
/// after them).
fn read_ogre(b: &[u8]) -> (Vec<OgreBone>, Vec<OgreAnimation>) {
    let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let f32_at = |i: usize| f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    assert_eq!(u16_at(0), 0x1000, "Ogre skeleton header");
    let mut i = 2 + b[2..].iter().position(|&c| c == b'\n').expect("version") + 1;
    let mut bones: Vec<(u16, OgreBone)> = Vec::new();
    while i + 6 <= b.len() {
        match u16_at(i) {
            0x2000 => {
                let j = i + 6;
                let end = j + b[j..].iter().position(|&c| c == b'\n').expect("name");
                let name = String::from_utf8_lossy(&b[j..end]).into_owned();
                let k = end + 1;
                bones.push((
                    u16_at(k),
                    OgreBone {
                        name,
                        parent: None,
                        position: [f32_at(k + 2), f32_at(k + 6), f32_at(k + 10)],
                        rotation: [
                            f32_at(k + 14),
                            f32_at(k + 18),
                            f32_at(k + 22),
                            f32_at(k + 26),
                        ],
                    },
                ));
                i = k + 30;
            }
            0x3000 => {
                let (child, parent) = (u16_at(i + 6), u16_at(i + 8));
                if let Some((_, bone)) = bones.iter_mut().find(|(h, _)| *h == child) {
                    bone.parent = Some(parent);
                }
                i += 10;
            }
            _ => break,
        }
    }
    let handles: Vec<u16> = bones.iter().map(|(h, _)| *h).collect();
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let mut anims: Vec<OgreAnimation> = Vec::new();
    while i + 6 <= b.len() {
        match u16_at(i) {
            0x4000 => {
                let j = i + 6;
                let end = j + b[j..].iter().position(|&c| c == b'\n').expect("name");
                let name = String::from_utf8_lossy(&b[j..end]).into_owned();
                anims.push(OgreAnimation {
                    name,
                    tracks: Vec::new(),
                });
                i = end + 5;
            }
            0x4100 => {
                let h = u16_at(i + 6);
                let bone = handles.iter().position(|&x| x == h).expect("track bone");
                anims
                    .last_mut()
                    .expect("track in an animation")
                    .tracks
                    .push((bone, Vec::new()));
                i += 8;
            }
            0x4110 => {
                let at = |k: usize| f32_at(i + 6 + 4 * k);
                let key = OgreKey {
                    time: at(0),
                    rotation: [at(1), at(2), at(3), at(4)],
                    translation: [at(5), at(6), at(7)],
                };
                let track = anims
                    .last_mut()
                    .and_then(|a| a.tracks.last_mut())
                    .expect("keyframe in a track");
                track.1.push(key);
                i += (u32_at(i + 2) as usize).max(38);
            }
            id => panic!("Ogre chunk {id:#06x} at {i}"),
        }
    }
    let bones = bones
        .into_iter()
        .map(|(_, mut b)| {
            // Parents by index into the returned list.
            b.parent = b
                .parent
                .and_then(|p| handles.iter().position(|&h| h == p))
                .map(|p| p as u16);
            b
        })
        .collect();
    (bones, anims)
}

fn local(child: &Mat43, parent: &Mat43) -> Mat43 {
    child.then(&maxfs_scene::eval::core::transform::invert(parent))
}

/// Our bone for Ogre bone `o` and our bone for its Ogre parent, when both are
/// Biped parts other than the footsteps (Ogre names replace the spaces of
/// node names with underscores).
fn biped_pair<'a>(
    rig: &'a biped::Rig,
    ogre: &[OgreBone],
    o: &OgreBone,
) -> Option<(&'a biped::Bone, &'a biped::Bone)> {
    let bone = |name: &str| rig.bones.iter().find(|b| b.name.replace(' ', "_") == name);
    let parent = &ogre[o.parent? as usize];
    let (c, p) = (bone(&o.name)?, bone(&parent.name)?);
    (c.role != Role::Footsteps).then_some((c, p))
}

#[test]
fn neoaxis_rabbit_skeleton_matches_the_figure() {
    let bytes = rabbit_skeleton();
    let ogre = read_ogre_skeleton(&bytes);
    assert!(ogre.len() > 30, "{} bones", ogre.len());
    let eval = rabbit_scene();
    let rig = biped::rigs(&eval).remove(0).expect("rig");
    let height = rig.figure.height.expect("height");
    let mut pairs = Vec::new();
    for o in &ogre {
        let Some((c, p)) = biped_pair(&rig, &ogre, o) else {
            continue;
        };
        let ours = local(
            &figure::world(&rig, c.role).unwrap_or_else(|e| panic!("{}: {e}", c.name)),
            &figure::world(&rig, p.role).unwrap_or_else(|e| panic!("{}: {e}", p.name)),
        );
        pairs.push((o, c.name.clone(), ours));
    }
    // The exporter's scale: least squares over every chain offset.
    let (mut num, mut den) = (0.0, 0.0);
    for (o, _, ours) in &pairs {
        let p = Vec3::from_f32(o.position);
        num += p.dot(ours.0[3]);
        den += ours.0[3].dot(ours.0[3]);
    }
    let scale = num / den;
    assert!((scale - 0.012).abs() < 1e-6, "NeoAxis scale {scale}");
    let (mut worst_rot, mut worst_pos, mut failures) = (0.0f64, 0.0f64, Vec::new());
    for (o, name, ours) in &pairs {
        let theirs = Mat43::rotation(Quat::from_f32(o.rotation).normalized());
        let dr = (0..3)
            .flat_map(|r| (0..3).map(move |c| (r, c)))
            .map(|(r, c)| (theirs.rows()[r][c] - ours.rows()[r][c]).abs())
            .fold(0.0, f64::max);
        let dp = Vec3::from_f32(o.position)
            .scale(1.0 / scale)
            .minus(ours.0[3])
            .len();
        worst_rot = worst_rot.max(dr);
        worst_pos = worst_pos.max(dp);
        if dr > 2e-4 || dp > 1e-4 * height {
            failures.push(format!(
                "{name}: rotation off by {dr:.2e}, position by {dp:.2e}"
            ));
        }
    }
    println!(
        "NeoAxis Rabbit.skeleton: {} chain-relative transforms compared (scale {scale:.7}), worst rotation element {worst_rot:.2e}, position {worst_pos:.2e} (height {height:.2})",
        pairs.len()
    );
    // Every Biped bone but the COM and footsteps takes part: hands, both
    // asymmetric legs, the Max 2009 toes and the nubs included.
    assert!(pairs.len() >= 22, "{} pairs", pairs.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The takes of Rabbit.skeleton on RabbitSkin.max's timeline: (name, first
/// tick, length in frames of 160 ticks). Found from their key times, which
/// are the .max's own key ticks (asserted below): "blow"'s spine keys at
/// frames 0, 10, 11, 12, 16, 20, 26, 30, 35 of 35 are the spine keys 52800,
/// 54400, 54560, 54720, 55360, 56000, 56960, 57600, 58400; "walk" is the
/// head keys 48000 … 51200 (20 frames), "blow_t" 59200 … 64800. "idle" (two
/// keys per track, length 10000) has no key ticks to place it by.
const TAKES: [(&str, i32, i32); 3] = [
    ("walk", 48000, 20),
    ("blow", 52800, 35),
    ("blow_t", 59200, 35),
];

/// Every keyframe of the three placed takes against our pose at its tick
/// (`motion::pose_at`), chain-relative like the figure test: each Biped bone
/// whose parent is a Biped bone. Ogre keyframes are relative to the binding
/// pose (the figure, checked above): local rotation = key · bind (row
/// form), position = bind + key translation, × 0.012. This checks the head
/// keys' neck link in Max 2009's layout (every head key keys it: the neck
/// and head at all their keys) and the right arm's IK keys at their own
/// ticks (stored, solved channels).
#[test]
fn neoaxis_rabbit_takes_match_the_keys() {
    use maxfs_scene::eval::rigs::biped::motion;
    let bytes = rabbit_skeleton();
    let (ogre, anims) = read_ogre(&bytes);
    let eval = rabbit_scene();
    let rig = biped::rigs(&eval).remove(0).expect("rig");
    let height = rig.figure.height.expect("height");
    let scale = 0.012;
    let key_ticks: std::collections::BTreeSet<i32> = rig
        .tracks
        .iter()
        .flat_map(|t| t.keys.iter().map(|k| k.time))
        .collect();
    let (mut worst_rot, mut worst_pos) = (0.0f64, 0.0f64);
    let (mut failures, mut refused) = (Vec::new(), Vec::new());
    let mut compared: std::collections::BTreeMap<String, usize> = Default::default();
    for (take, start, frames) in TAKES {
        let anim = anims.iter().find(|a| a.name == take).expect("take");
        for (ix, keys) in &anim.tracks {
            let o = &ogre[*ix];
            let Some((c, p)) = biped_pair(&rig, &ogre, o) else {
                continue;
            };
            let bind = figure::with_position(
                &Mat43::rotation(Quat::from_f32(o.rotation).normalized()),
                Vec3::from_f32(o.position),
            );
            for key in keys {
                let frame = f64::from(key.time) * f64::from(frames);
                assert!(
                    (frame - frame.round()).abs() < 1e-3,
                    "{take} {}: key time {} is not on a frame",
                    o.name,
                    key.time
                );
                let tick = start + frame.round() as i32 * 160;
                assert!(
                    key_ticks.contains(&tick),
                    "{take} {}: tick {tick} is no key of the .max",
                    o.name
                );
                let pose = motion::pose_at(&rig, tick);
                let ours = match (
                    figure::world_in(&rig, &pose, c.role),
                    figure::world_in(&rig, &pose, p.role),
                ) {
                    (Ok(cw), Ok(pw)) => local(&cw, &pw),
                    (Err(e), _) | (_, Err(e)) => {
                        refused.push(format!("{take} {} at {tick}: {e}", c.name));
                        continue;
                    }
                };
                let rot = Mat43::rotation(Quat::from_f32(key.rotation).normalized())
                    .then(&figure::with_position(&bind, Vec3::default()));
                let pos = bind.0[3].plus(Vec3::from_f32(key.translation));
                let dr = (0..3)
                    .flat_map(|r| (0..3).map(move |c| (r, c)))
                    .map(|(r, c)| (rot.rows()[r][c] - ours.rows()[r][c]).abs())
                    .fold(0.0, f64::max);
                let dp = pos.scale(1.0 / scale).minus(ours.0[3]).len();
                worst_rot = worst_rot.max(dr);
                worst_pos = worst_pos.max(dp);
                *compared.entry(c.name.clone()).or_default() += 1;
                if dr > 2e-4 || dp > 1e-4 * height {
                    failures.push(format!(
                        "{take} {} at {tick}: rotation off by {dr:.2e}, position by {dp:.2e}",
                        c.name
                    ));
                }
            }
        }
    }
    println!(
        "NeoAxis Rabbit takes: {} keyframes compared, worst rotation element {worst_rot:.2e}, position {worst_pos:.2e} (height {height:.2}); per bone {compared:?}; {} refused:\n{}",
        compared.values().sum::<usize>(),
        refused.len(),
        refused.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // At key ticks nothing is refused: the neck (Max 2009 head keys carry no
    // link mask) and the right arm's IK keys (stored channels) included.
    assert!(refused.is_empty(), "{}", refused.join("\n"));
    let at_least = |name: &str, n: usize| {
        let got = compared.get(name).copied().unwrap_or(0);
        assert!(got >= n, "{name}: {got} keyframes compared, expected {n}");
    };
    at_least("Bip01 Neck", 15);
    at_least("Bip01 Head", 21);
    for side in ["L", "R"] {
        at_least(&format!("Bip01 {side} Toe0"), 21);
        for part in ["Clavicle", "UpperArm", "Forearm", "Hand"] {
            at_least(&format!("Bip01 {side} {part}"), 6);
        }
    }
    at_least("Bip01 R Hand", 29);
}

/// A Y-up point stored at `at` of a Biped record, in Max axes.
fn yup_point(v: &[f32], at: usize) -> Vec3 {
    Vec3(
        f64::from(v[at]),
        -f64::from(v[at + 2]),
        f64::from(v[at + 1]),
    )
}

/// RabbitSkin's 110-word (Max 2009) leg records hold the IK state at the
/// seed's words: [11] space (2 = object), [12] blend, [18..20] the ankle's
/// world position and [98] / [101..103] the active pivot's index and world
/// position (Y-up), 10 words before the 120-word records' [108] / [111..113].
/// Checked against Max's own solution at every object-space IK key of both
/// legs: the stored ankle is the end of our FK calf (the stored channels,
/// which NeoAxis matches chain-relative above) and the pivot is one fixed
/// point of the foot, the same in the foot's frame at every key — what the
/// leg IK in-between rule (`leg_ik`) hangs the ankle from.
#[test]
fn rabbit_leg_ik_keys_hold_their_ankle_and_pivot() {
    use maxfs_scene::eval::rigs::biped::motion;
    let eval = rabbit_scene();
    let rig = biped::rigs(&eval).remove(0).expect("rig");
    let height = rig.figure.height.expect("height");
    let (mut keys, mut worst_ankle) = (0, 0.0f64);
    let mut offsets = Vec::new();
    for (name, left) in [("right leg", false), ("left leg", true)] {
        let track = rig.tracks.iter().find(|t| t.name == name).expect("track");
        let full = |k: usize| {
            track
                .keys
                .get(k)
                .is_some_and(|k| (k.values[12] - 1.0).abs() < 1e-6)
        };
        for (i, k) in track.keys.iter().enumerate() {
            let v = &k.values;
            assert_eq!(v.len(), 110, "{name} at {}", k.time);
            // IK keys of a run (next to another IK key), in object space.
            // The right leg's lone IK key 28800, between FK keys, holds a
            // straight knee (3.1396) and a target 46 units beyond its reach.
            let in_run = full(i) && (i.checked_sub(1).is_some_and(full) || full(i + 1));
            if !in_run || v[11].to_bits() != 2 {
                continue;
            }
            assert_eq!(v[98].to_bits(), 5, "{name} at {}: pivot index", k.time);
            let pose = motion::pose_at(&rig, k.time);
            let foot = figure::foot(&rig, &pose, left).expect("foot at its key");
            let ankle = foot.0[3];
            worst_ankle = worst_ankle.max(yup_point(v, 18).minus(ankle).len());
            let d = yup_point(v, 101).minus(ankle);
            offsets.push(Vec3(d.dot(foot.0[0]), d.dot(foot.0[1]), d.dot(foot.0[2])));
            keys += 1;
        }
    }
    let spread = offsets
        .iter()
        .flat_map(|a| offsets.iter().map(move |b| a.minus(*b).len()))
        .fold(0.0, f64::max);
    println!(
        "RabbitSkin leg IK keys (object space): {keys}; stored ankle within {worst_ankle:.2e} of the FK ankle, pivot at {:?} in the foot frame (spread {spread:.2e}, height {height:.2})",
        offsets[0]
    );
    assert!(keys >= 30, "{keys} object-space IK keys");
    assert!(worst_ankle < 1e-4 * height, "ankle {worst_ankle}");
    assert!(spread < 1e-4 * height, "pivot offsets spread {spread}");
}

/// The leg IK in-between rule on RabbitSkin's object-space runs against
/// the keys NeoAxis holds. NeoAxis's takes hold only key ticks (every leg
/// keyframe of "walk", "blow" and "blow_t" is a key of its own leg), so the
/// in-between frames themselves have no reference; what can be checked is
/// that the rule lands on Max's solution at the keys: its one-sided limit
/// at an IK key (extrapolated linearly from one and two ticks inside the
/// IK segment, an O(tick²) error) must be that key's keyframe
/// (chain-relative). Keys whose stored knee is within 0.01 of straight are
/// left out and counted: there the knee angle moves as the square root of
/// the reach (RabbitSkin's left leg at 55040, knee 3.1391, bends 0.12 rad in
/// the first tick while the hip drops 0.058), which a linear limit misses.
#[test]
fn rabbit_leg_ik_in_betweens_reach_the_neoaxis_keys() {
    use maxfs_scene::eval::rigs::biped::motion;
    let bytes = rabbit_skeleton();
    let (ogre, anims) = read_ogre(&bytes);
    let eval = rabbit_scene();
    let rig = biped::rigs(&eval).remove(0).expect("rig");
    let height = rig.figure.height.expect("height");
    let scale = 0.012;
    let track = |name: &str| rig.tracks.iter().find(|tr| tr.name == name).expect("track");
    // The segment's first key when `t` lies strictly inside one between two
    // IK keys at blend 1.
    let ik_segment = |name: &str, t: i32| {
        let keys = &track(name).keys;
        let i = keys.partition_point(|k| k.time <= t);
        let full = |k: usize| (keys[k].values[12] - 1.0).abs() < 1e-6;
        (i > 0 && i < keys.len() && keys[i - 1].time < t && full(i - 1) && full(i)).then_some(i - 1)
    };
    let straight = |name: &str, tick: i32| {
        track(name)
            .keys
            .iter()
            .find(|k| k.time == tick)
            .is_some_and(|k| std::f32::consts::PI - k.values[0] < 0.01)
    };
    let (mut compared, mut refused, mut skipped) = (0, 0, 0);
    let (mut worst_rot, mut worst_pos) = (0.0f64, 0.0f64);
    let mut failures = Vec::new();
    for (take, start, frames) in TAKES {
        let anim = anims.iter().find(|a| a.name == take).expect("take");
        for (ix, keys) in &anim.tracks {
            let o = &ogre[*ix];
            if !["Thigh", "Calf", "Foot"]
                .iter()
                .any(|p| o.name.ends_with(p))
            {
                continue;
            }
            let Some((c, p)) = biped_pair(&rig, &ogre, o) else {
                continue;
            };
            let leg = if o.name.contains("_L_") {
                "left leg"
            } else {
                "right leg"
            };
            let bind = figure::with_position(
                &Mat43::rotation(Quat::from_f32(o.rotation).normalized()),
                Vec3::from_f32(o.position),
            );
            for key in keys {
                let tick = start + (f64::from(key.time) * f64::from(frames)).round() as i32 * 160;
                for side in [-1, 1] {
                    let (t1, t2) = (tick + side, tick + 2 * side);
                    if ik_segment(leg, t1).is_none() || ik_segment(leg, t1) != ik_segment(leg, t2) {
                        continue;
                    }
                    if straight(leg, tick) {
                        skipped += 1;
                        continue;
                    }
                    let at = |t: i32| {
                        let pose = motion::pose_at(&rig, t);
                        Ok::<_, maxfs_scene::eval::EvalError>(local(
                            &figure::world_in(&rig, &pose, c.role)?,
                            &figure::world_in(&rig, &pose, p.role)?,
                        ))
                    };
                    let (Ok(a), Ok(b)) = (at(t1), at(t2)) else {
                        refused += 1;
                        continue;
                    };
                    // The limit at the key: 2·a − b, element by element.
                    let (ra, rb) = (a.rows(), b.rows());
                    let rot = Mat43::rotation(Quat::from_f32(key.rotation).normalized())
                        .then(&figure::with_position(&bind, Vec3::default()));
                    let dr = (0..3)
                        .flat_map(|r| (0..3).map(move |c| (r, c)))
                        .map(|(r, c)| (rot.rows()[r][c] - (2.0 * ra[r][c] - rb[r][c])).abs())
                        .fold(0.0, f64::max);
                    let pos = bind.0[3].plus(Vec3::from_f32(key.translation));
                    let limit = a.0[3].scale(2.0).minus(b.0[3]);
                    let dp = pos.scale(1.0 / scale).minus(limit).len();
                    worst_rot = worst_rot.max(dr);
                    worst_pos = worst_pos.max(dp);
                    compared += 1;
                    if dr > 2e-4 || dp > 1e-4 * height {
                        failures.push(format!(
                            "{take} {} at {tick} from {t1}: rotation off by {dr:.2e}, position by {dp:.2e}",
                            c.name
                        ));
                    }
                }
            }
        }
    }
    println!(
        "RabbitSkin leg IK in-betweens, their limits at NeoAxis's keys: {compared} compared, {skipped} next to a straight knee, {refused} refused by name; worst rotation element {worst_rot:.2e}, position {worst_pos:.2e} (height {height:.2})"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 10, "{compared} compared");
}
