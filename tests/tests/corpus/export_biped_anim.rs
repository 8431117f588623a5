//! `.anim` of the corpus Biped takes, sampled as the plug-in samples Biped
//! nodes (export_anim.cpp overSampleBipedAnimation: 30 samples a second,
//! each the node's TM relative to its parent, linear keyframers; position
//! tracks only for the COM and the first arm, spine and tail links).
//!
//! Checked: every take whose Biped evaluates writes an `.anim` that reads back
//! and re-serializes byte for byte, holding a rotation track for every Biped
//! node of the skeleton and position tracks exactly where the plug-in writes
//! them; and, against the authors' FBX of the same take (ref/biped-ld35, the
//! Biped nodes it holds: Bip01, Pelvis, Tail, TailNub on Red), the world TM
//! rebuilt from the `.anim` keys down the `.skel` hierarchy (bones without a
//! position track at their default position) at every key — rotation
//! elements within 1e-3, positions within 1e-3 of the rig's height.

use maxfs_exporters::nel::anim::Track;
use maxfs_exporters::nel::export::ExportKind;
use maxfs_exporters::nel::shape::Shape;
use maxfs_exporters::nel::skel::SkeletonShape;
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::eval::rigs::biped::{self, Role};
use maxfs_scene::eval::{Mat43, Quat, SceneEval, Vec3};
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;

use crate::eval_biped_motion::{load_fbx, to_mat};

/// (take, FBX, the FBX's constant shift of the rig, see eval_biped_motion.rs).
const TAKES: &[(&str, &str, [f64; 3])] = &[
    ("Player@Run", "Player@Run.FBX", [0.0; 3]),
    ("Red@Run", "Red@Run.FBX", [0.0, 0.173_289_88, 0.0]),
    ("Red@Spawn", "Red@Spawn.FBX", [0.0; 3]),
];

fn v3(v: &maxfs_exporters::nel::stream::Vec3) -> Vec3 {
    Vec3(
        f64::from(v.x.get()),
        f64::from(v.y.get()),
        f64::from(v.z.get()),
    )
}

fn q4(q: &maxfs_exporters::nel::stream::Quat) -> Quat {
    Quat {
        x: f64::from(q.x.get()),
        y: f64::from(q.y.get()),
        z: f64::from(q.z.get()),
        w: f64::from(q.w.get()),
    }
}

/// A linear keyframer at `t` (clamped at its ends): the sampled Biped
/// tracks have a key at every sample; other tracks are interpolated.
fn at<V: Copy>(
    keys: &[(maxfs_exporters::nel::stream::F32, V)],
    t: f32,
    lerp: impl Fn(V, V, f64) -> V,
) -> Option<V> {
    let i = keys.partition_point(|(k, _)| k.get() <= t);
    match (i.checked_sub(1).map(|j| &keys[j]), keys.get(i)) {
        (Some(a), Some(b)) => {
            let u = f64::from((t - a.0.get()) / (b.0.get() - a.0.get()));
            Some(lerp(a.1, b.1, u))
        }
        (Some(a), None) => Some(a.1),
        (None, Some(b)) => Some(b.1),
        (None, None) => None,
    }
}

#[test]
fn biped_takes_export_sampled_tracks_that_follow_the_fbx() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for &(take, fbx, shift) in TAKES {
        let rel = format!("biped-ld35/{take}.max");
        let doc = Document::open(&corpus_dir().join("max").join(&rel)).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let out = maxfs_exporters::nel::export::export(
            take,
            &eval,
            &[ExportKind::Skel, ExportKind::Anim],
        );
        let bytes = |ext: &str| {
            out.outputs
                .iter()
                .find(|o| o.name.ends_with(ext))
                .unwrap_or_else(|| panic!("{take}: no {ext}: {}", out.errors_text()))
        };
        let (skel_out, anim_out) = (bytes(".skel"), bytes(".anim"));
        let anim_file = read_nel(&anim_out.bytes, &anim_out.name).expect("anim reads");
        assert_eq!(
            write_nel(&anim_file).expect("writes"),
            anim_out.bytes,
            "{take}: .anim re-serializes"
        );
        let NelFile::Animation(anim) = anim_file else {
            panic!("{take}: not an animation")
        };
        let NelFile::Shape(s) = read_nel(&skel_out.bytes, &skel_out.name).expect("skel") else {
            panic!("{take}: not a shape")
        };
        let Some(Shape::CSkeletonShape(skel)) = s.shape.get() else {
            panic!("{take}: not a skeleton")
        };
        let skel: &SkeletonShape = skel;
        let track = |name: &str| {
            anim.id_by_name
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, i)| anim.tracks.get(*i as usize))
                .and_then(|t| t.0.get())
        };
        let rig = biped::rigs(&eval).remove(0).expect("rig");
        let height = rig.figure.height.expect("height");
        // Track names: the root's are bare; pos tracks where the plug-in writes them.
        let track_name = |i: usize, ch: &str| {
            if i == 0 {
                ch.to_string()
            } else {
                format!("{}.{ch}", skel.bones[i].name)
            }
        };
        for (i, b) in skel.bones.iter().enumerate() {
            let Some(rb) = rig.bones.iter().find(|r| r.name == b.name) else {
                continue;
            };
            if rb.role == Role::Footsteps {
                continue;
            }
            let want_pos = matches!(
                rb.role,
                Role::Com
                    | Role::Part {
                        limb: 0 | 1 | 8 | 9,
                        link: 0
                    }
            );
            if track(&track_name(i, "rotquat")).is_none() {
                failures.push(format!("{take}: no rotation track for {}", b.name));
            }
            if track(&track_name(i, "pos")).is_some() != want_pos {
                failures.push(format!(
                    "{take}: position track of {} (expected {want_pos})",
                    b.name
                ));
            }
        }
        // Rebuild world TMs at every key and compare with the FBX.
        let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
        let scene = load_fbx(
            &corpus_dir().join("ref/biped-ld35").join(fbx),
            unit.metres_per_unit,
        );
        let stack = scene.anim_stacks.last().expect("take");
        let Some(Track::CTrackKeyFramerLinearQuat(root_rot)) = track("rotquat") else {
            panic!("{take}: no root rotation track")
        };
        let times: Vec<f32> = root_rot.keys.iter().map(|(t, _)| t.get()).collect();
        let (mut compared, mut worst_rot, mut worst_pos) = (0, 0.0f64, 0.0f64);
        for &time in &times {
            let t = f64::from(time);
            if t < stack.time_begin - 1e-6 || t > stack.time_end + 1e-6 {
                continue;
            }
            // Each bone's local TM at key k: its tracks, else its defaults.
            let mut world: Vec<Mat43> = Vec::with_capacity(skel.bones.len());
            for (i, b) in skel.bones.iter().enumerate() {
                let rot = match track(&track_name(i, "rotquat")) {
                    Some(Track::CTrackKeyFramerLinearQuat(f)) => {
                        let keys: Vec<_> = f.keys.iter().map(|(t, k)| (*t, q4(&k.value))).collect();
                        at(&keys, time, |a, b, u| a.slerp(b, u)).expect("keys")
                    }
                    _ => q4(&b.default_rot_quat.value),
                };
                let pos = match track(&track_name(i, "pos")) {
                    Some(Track::CTrackKeyFramerLinearVector(f)) => {
                        let keys: Vec<_> = f.keys.iter().map(|(t, k)| (*t, v3(&k.value))).collect();
                        at(&keys, time, |a, b, u| a.scale(1.0 - u).plus(b.scale(u))).expect("keys")
                    }
                    _ => v3(&b.default_pos.value),
                };
                let local = Mat43::rotation(rot.normalized()).then(&Mat43::translation(pos));
                world.push(match usize::try_from(b.father_id) {
                    Ok(f) => local.then(&world[f]),
                    Err(_) => local,
                });
            }
            let s = ufbx::evaluate_scene(&scene, &stack.anim, t, Default::default())
                .expect("FBX evaluates");
            for fnode in s.nodes.iter() {
                let name = fnode.element.name.to_string();
                let Some(i) = skel.bones.iter().position(|b| b.name == name) else {
                    continue;
                };
                let theirs = to_mat(&fnode.node_to_world);
                let [a, b, c, p] = theirs.0;
                let theirs = Mat43([a, b, c, p.plus(Vec3(shift[0], shift[1], shift[2]))]);
                let (x, y) = (world[i].rows(), theirs.rows());
                let dr = (0..3)
                    .flat_map(|r| (0..3).map(move |c| (r, c)))
                    .map(|(r, c)| (x[r][c] - y[r][c]).abs())
                    .fold(0.0, f64::max);
                let dp = (0..3)
                    .map(|c| (x[3][c] - y[3][c]).abs())
                    .fold(0.0, f64::max);
                worst_rot = worst_rot.max(dr);
                worst_pos = worst_pos.max(dp);
                compared += 1;
                if std::env::var("BIPED_DEBUG").is_ok() && dr > 1e-4 {
                    println!("{take} {name} {t}: {dr:.2e}");
                }
                if dr > 1e-3 || dp > 1e-3 * height {
                    failures.push(format!(
                        "{take} {name} at {t:.4} s: rotation off by {dr:.2e}, position by {dp:.2e}"
                    ));
                }
            }
        }
        report.push(format!(
            "{take}: {} tracks, {} keys a track, {compared} bone·keys against the FBX, worst rotation element {worst_rot:.2e}, position {worst_pos:.2e} (height {height:.1})",
            anim.tracks.len(),
            times.len()
        ));
    }
    println!("{}", report.join("\n"));
    failures.truncate(50);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
