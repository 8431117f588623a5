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

/// Ogre's binary skeleton: a u16 header id 0x1000 and a version line, then
/// chunks (u16 id, u32 length): 0x2000 bone (name line, u16 handle, position,
/// quaternion x, y, z, w), 0x3000 parent (u16 child, u16 parent); the
/// animations (0x4000) follow the bones and are not read. This exporter's
/// bone lengths leave out the name, so bones are read field by field.
fn read_ogre_skeleton(b: &[u8]) -> Vec<OgreBone> {
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
    bones
        .into_iter()
        .map(|(_, mut b)| {
            // Parents by index into the returned list.
            b.parent = b
                .parent
                .and_then(|p| handles.iter().position(|&h| h == p))
                .map(|p| p as u16);
            b
        })
        .collect()
}

fn local(child: &Mat43, parent: &Mat43) -> Mat43 {
    child.then(&maxfs_scene::eval::core::transform::invert(parent))
}

#[test]
fn neoaxis_rabbit_skeleton_matches_the_figure() {
    let corpus = corpus_dir();
    let bytes = std::fs::read(corpus.join("ref/neoaxis/Rabbit.skeleton")).expect("skeleton");
    let ogre = read_ogre_skeleton(&bytes);
    assert!(ogre.len() > 30, "{} bones", ogre.len());
    let doc = Document::open(&corpus.join("max/biped/RabbitSkin.max")).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let rig = biped::rigs(&eval).remove(0).expect("rig");
    let height = rig.figure.height.expect("height");
    // Ogre names replace the spaces of node names with underscores.
    let bone = |name: &str| rig.bones.iter().find(|b| b.name.replace(' ', "_") == name);
    let mut pairs = Vec::new();
    for o in &ogre {
        let Some(parent) = o.parent.map(|p| &ogre[p as usize]) else {
            continue;
        };
        let (Some(c), Some(p)) = (bone(&o.name), bone(&parent.name)) else {
            continue;
        };
        if c.role == Role::Footsteps {
            continue;
        }
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
