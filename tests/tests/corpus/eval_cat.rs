//! The corpus's one CAT rig, cat/LD33_Character.max (Max 2015, CAT 3500,
//! saved in setup mode), against the in-file oracle: the Skin on Box001
//! stored each bone's TM when the bone was added (ISkin::GetBoneInitTM).
//!
//! The binds were taken with the whole rig one rigid translation away from
//! where its stored setup pose puts it now: every bind rotation equals the
//! setup rotation, and every bind position is the setup position minus
//! [`RIG_SHIFT`]. The shift is measured from the file's stored values alone
//! (docs/cat.md): the IK target's stored setup matrix, placed under the
//! CATParent, sits at the stored right palm bind's tip (palm bind origin +
//! the palm's stored length along its X row) plus this shift, and the pelvis
//! setup matrix under the CATParent sits at the pelvis bind plus the same
//! shift. The test checks that every bone we evaluate sits at its bind TM
//! moved by that one shift (rotation elements within 1e-4, position within
//! 1e-4 of the rig's height), at several ticks, and that every bone we do
//! not evaluate is refused with a reason naming the CAT class.

use maxfs_scene::eval::core::coverage::tm_gaps_at;
use maxfs_scene::eval::modifier::skin;
use maxfs_scene::eval::rigs::cat::{limb, records};
use maxfs_scene::eval::{Mat43, SceneEval};
use maxfs_scene::Document;
use maxfs_tests::tm_diff;
use maxfs_tests::{corpus_dir, node_named};

const FILE: &str = "cat/LD33_Character.max";
/// World translation from each Skin bind to the bone's current setup pose
/// (docs/cat.md: measured from stored values, the IK target's setup matrix
/// against the right palm's bind, and the pelvis setup against its bind).
const RIG_SHIFT: [f64; 3] = [0.0, 0.9911, 0.4756];
/// The shift is stated to 4 decimals: compared within this.
const SHIFT_DIGITS: f64 = 1e-4;
/// Ticks compared: first frame, an odd tick, one far past any range.
const TICKS: [i32; 3] = [0, 1_237, 96_000];

fn scene() -> SceneEval {
    let doc = Document::open(&corpus_dir().join("max").join(FILE)).expect("max file");
    SceneEval::from_document(doc).expect("scene")
}

/// The rig's height: the Skin binds' vertical extent (head bone to toes).
fn height(binds: &[(String, Mat43)]) -> f64 {
    let z: Vec<f64> = binds.iter().map(|(_, m)| m.rows()[3][2]).collect();
    z.iter().cloned().fold(f64::MIN, f64::max) - z.iter().cloned().fold(f64::MAX, f64::min)
}

/// Box001's Skin: (bone node, name, stored bind TM) of its live bones.
fn skin_binds(eval: &SceneEval) -> Vec<(usize, String, Mat43)> {
    let b = node_named(&eval.graph, "Box001");
    let sk = match skin::node_skin(eval, b) {
        Some(Ok(s)) => s,
        other => panic!("{FILE}: Box001 has no readable Skin: {other:?}"),
    };
    sk.bones
        .iter()
        .filter_map(|bone| {
            let (n, init) = (bone.node?, bone.init_tm?);
            Some((n, eval.graph.node_name(n).to_string(), init))
        })
        .collect()
}

fn diff_shifted(ours: &Mat43, bind: &Mat43) -> (f64, f64) {
    let (a, b) = (ours.rows(), bind.rows());
    let rot = (0..3)
        .flat_map(|r| (0..3).map(move |c| (r, c)))
        .map(|(r, c)| (a[r][c] - b[r][c]).abs())
        .fold(0.0, f64::max);
    let pos = (0..3)
        .map(|c| (a[3][c] - (b[3][c] + RIG_SHIFT[c])).abs())
        .fold(0.0, f64::max);
    (rot, pos)
}

/// The rig is saved in setup mode, with CAT units and the CATParent decoded.
#[test]
fn ld33_rig_records_decode() {
    let eval = scene();
    let cp_node = node_named(&eval.graph, "Base Human");
    let ctl = eval.tm_controller(cp_node).expect("a controller");
    let cp = records::cat_parent(&eval, ctl)
        .expect("a CATParentTrans")
        .expect("decoded");
    assert_eq!(cp.name, "Base Human");
    assert_eq!(cp.version, 3500);
    assert_eq!(cp.mode, records::CatMode::Setup);
    assert!((cp.units - 0.31425).abs() < 1e-5, "{}", cp.units);
    // The CATParent node's world TM is its PRS (stored: position (0, 0, -2.3),
    // Euler XYZ (-180°, -90°, 0°)).
    let w = eval.world_tm(cp_node, 0).rows();
    assert!((w[3][2] + 2.3).abs() < 1e-4, "{w:?}");
    assert!(
        (w[0][2] - 1.0).abs() < 1e-6 && (w[1][1] + 1.0).abs() < 1e-6,
        "{w:?}"
    );
}

/// Whether a Skin bone's bind is the rig's current setup pose moved by the
/// rig shift: the legs were bound in another pose (the binds are their FK
/// pose; CAT solves them with IK towards the platforms) and HeadBone001 was
/// moved after skinning (docs/cat.md).
fn bound_in_current_pose(name: &str) -> bool {
    !["Thigh", "Calf", "Foot", "Toe", "HeadBone"]
        .iter()
        .any(|p| name.contains(p))
}

/// Every CAT bone the Skin uses evaluates, at every tick. The upper body
/// sits at its stored bind TM moved by the one rig shift (rotation elements
/// within 1e-4, position within 1e-4 of the rig's height). Of the legs and
/// the head's extra bone, what the binds still pin down: the thighs' origins
/// (bind + shift), the feet's, toes' and HeadBone001's rotations (1e-5: the
/// foot and toe rotations come from the platform, not from the leg's pose),
/// and each toe's place in its foot's frame (1e-4). The leg chain is
/// connected: each bone starts at its parent's tip (stored length along X),
/// the knee moved from it by the calf's stored setup translation.
#[test]
fn ld33_evaluated_cat_bones_sit_at_the_skin_binds_moved_by_the_rig_shift() {
    let eval = scene();
    let binds = skin_binds(&eval);
    let named: Vec<(String, Mat43)> = binds.iter().map(|(_, n, m)| (n.clone(), *m)).collect();
    let height = height(&named);
    let tol = 1e-4 * height;
    let bind = |n: &str| {
        named
            .iter()
            .find(|(m, _)| m == &format!("Base Human{n}"))
            .map(|(_, m)| *m)
            .unwrap_or_else(|| panic!("no bind for {n}"))
    };
    let (mut matched, mut failures) = (Vec::new(), Vec::new());
    let (mut worst_rot, mut worst_pos) = (0.0f64, 0.0f64);
    for t in TICKS {
        let ours = |n: &str| match eval
            .direct_world(node_named(&eval.graph, &format!("Base Human{n}")), t)
        {
            Some(Ok(m)) => m,
            other => panic!("{n} tick {t}: {other:?}"),
        };
        for (b, name, bind_tm) in &binds {
            let m = match eval.direct_world(*b, t) {
                Some(Ok(m)) => m,
                other => {
                    failures.push(format!("{name} tick {t}: {other:?}"));
                    continue;
                }
            };
            let (dr, dp) = diff_shifted(&m, bind_tm);
            if bound_in_current_pose(name) {
                worst_rot = worst_rot.max(dr);
                worst_pos = worst_pos.max(dp);
                if dr > 1e-4 || dp > tol + SHIFT_DIGITS {
                    failures.push(format!(
                        "{name} tick {t}: rotation off by {dr:.2e}, position by {dp:.2e}"
                    ));
                } else if t == 0 {
                    matched.push(format!("{name} (rotation {dr:.1e}, position {dp:.1e})"));
                }
            } else if t == 0 {
                println!("{name}: against bind + shift rotation {dr:.2e}, position {dp:.2e}");
            }
        }
        for side in ["L", "R"] {
            let (thigh, calf, foot, toe) = (
                ours(&format!("{side}Thigh")),
                ours(&format!("{side}Calf")),
                ours(&format!("{side}Foot")),
                ours(&format!("{side}Toe11")),
            );
            let (_, dp) = diff_shifted(&thigh, &bind(&format!("{side}Thigh")));
            assert!(dp < tol + SHIFT_DIGITS, "{side} thigh origin {dp}");
            for (n, m) in [("Foot", &foot), ("Toe11", &toe)] {
                let (dr, _) = diff_shifted(m, &bind(&format!("{side}{n}")));
                if t == 0 {
                    println!("{side}{n}: rotation against its bind {dr:.2e}");
                }
                assert!(dr < 1e-5, "{side}{n} rotation {dr}");
            }
            // The toe's origin in its foot's frame, ours and bound.
            let local = |toe: &Mat43, foot: &Mat43| {
                let d = toe.rows()[3];
                let f = foot.rows();
                let v = [d[0] - f[3][0], d[1] - f[3][1], d[2] - f[3][2]];
                (0..3)
                    .map(|r| (0..3).map(|c| v[c] * f[r][c]).sum::<f64>())
                    .collect::<Vec<_>>()
            };
            let (a, b) = (
                local(&toe, &foot),
                local(
                    &bind(&format!("{side}Toe11")),
                    &bind(&format!("{side}Foot")),
                ),
            );
            let dt = (0..3).map(|i| (a[i] - b[i]).abs()).fold(0.0, f64::max);
            assert!(
                dt < 1e-4,
                "{side} toe in its foot's frame: {a:?} vs bind {b:?}"
            );
            // Connected chain: calf at the thigh's tip, foot at the calf's tip.
            let tip = |m: &Mat43, seg: &str| {
                let ctl = eval
                    .tm_controller(node_named(&eval.graph, &format!("Base Human{side}{seg}")))
                    .unwrap();
                let len = f64::from(records::cat_control(&eval, ctl).dims.unwrap()[0]);
                along_x(m, len).rows()[3]
            };
            // The knee keeps the calf's stored setup translation (CAT units
            // × the rig's units) from the thigh's tip, as CAT's FK pose
            // has it (BoneData::GetFKValue under the IK thigh).
            let calf_ctl = eval
                .tm_controller(node_named(&eval.graph, &format!("Base Human{side}Calf")))
                .unwrap();
            let clip = limb::bone_data_of(&eval, calf_ctl)
                .and_then(|d| records::layer_trans(&eval, d))
                .map(|l| records::clip_matrix(&eval, l).unwrap())
                .unwrap();
            let units = records::cat_parent(&eval, clip.cat_parent_trans)
                .unwrap()
                .unwrap()
                .units;
            let offset = clip.setup.0[3].len() * units;
            for (a, b, off, what) in [
                (tip(&thigh, "Thigh"), calf.rows()[3], offset, "knee"),
                (tip(&calf, "Calf"), foot.rows()[3], 0.0, "ankle"),
            ] {
                let d = (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt();
                assert!(
                    (d - off).abs() < 1e-9 * height,
                    "{side} {what}: {d} from the tip, setup offset {off}"
                );
            }
            if t == 0 {
                println!("{side} toe in its foot's frame: ours {a:?}, bind {b:?}");
            }
        }
    }
    println!(
        "{FILE}: {} Skin bones, height {height:.3}; at their binds + shift {RIG_SHIFT:?} at ticks {TICKS:?}: {matched:?} (worst rotation element {worst_rot:.2e}, position {worst_pos:.2e})",
        binds.len(),
    );
    assert_eq!(binds.len(), 23, "{FILE}: 23 live Skin bones");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(matched.len(), 14, "{matched:?}");
}

/// The shift is a property of the stored data, not of our evaluation: the
/// right IK target's stored setup matrix (under the CATParent, HAS_TRANSFORM)
/// puts its origin at the right palm bind's tip plus the same shift.
#[test]
fn ld33_rig_shift_is_measured_from_stored_values() {
    let eval = scene();
    let binds = skin_binds(&eval);
    let palm = binds
        .iter()
        .find(|(_, n, _)| n == "Base HumanRPalm")
        .map(|(_, _, m)| m.rows())
        .expect("the right palm bind");
    let target = node_named(&eval.graph, "Base HumanRIKTarget");
    let ctl = eval.tm_controller(target).expect("IK target controller");
    let layer = records::layer_trans(&eval, ctl).expect("its CATClipMatrix3");
    let clip = records::clip_matrix(&eval, layer).expect("decoded");
    let cp_node = node_named(&eval.graph, "Base Human");
    let cp = records::cat_parent(&eval, clip.cat_parent_trans)
        .expect("a CATParentTrans")
        .expect("decoded");
    let at = maxfs_scene::eval::rigs::cat::setup_in(&clip.setup, cp.units)
        .then(&eval.world_tm(cp_node, 0))
        .rows()[3];
    // The palm's stored length (CATNodeControl obj_dim X, the palm's length
    // axis): 4.7137 scene units.
    const PALM_LENGTH: f64 = 4.713_694_572_4;
    for c in 0..3 {
        let tip = palm[3][c] + palm[0][c] * PALM_LENGTH;
        let shift = at[c] - tip;
        println!("{FILE}: axis {c}: IK target − right palm bind tip = {shift:.6}");
        assert!(
            (shift - RIG_SHIFT[c]).abs() < SHIFT_DIGITS,
            "axis {c}: IK target {} − palm tip {tip} = {shift}, not {}",
            at[c],
            RIG_SHIFT[c]
        );
    }
}

/// Over the animation range and far past it nothing moves (the file has no
/// keys and is in setup mode), and Box001's Skin evaluates now that every
/// bone it uses does. The references allow one check of the deformed mesh:
/// a vertex weighted only to bones bound in the current pose (upper body)
/// lands where the Skin stored it (base vertex · the mesh's init TM) moved by
/// the rig shift, within 1e-4 of the rig's height. Vertices on the legs and
/// HeadBone001 move with those bones' current pose, for which the corpus has
/// no reference (docs/cat.md).
#[test]
fn ld33_is_stable_over_time_and_its_skin_deforms() {
    let eval = scene();
    let pelvis = node_named(&eval.graph, "Base HumanPelvis");
    let at0 = eval.world_tm(pelvis, 0).rows();
    for t in [160, 4_800, 96_000] {
        let m = eval.world_tm(pelvis, t).rows();
        for r in 0..4 {
            for c in 0..3 {
                assert!((m[r][c] - at0[r][c]).abs() < 1e-9, "tick {t}");
            }
        }
    }
    let thigh = node_named(&eval.graph, "Base HumanLThigh");
    assert!(tm_gaps_at(&eval, thigh, 0).is_empty());
    let box001 = node_named(&eval.graph, "Box001");
    assert_eq!(skin::modifiers(&eval, box001).len(), 1, "only the Skin");
    let sk = skin::node_skin(&eval, box001).unwrap().unwrap();
    let init = sk.mesh_init_tm.expect("the Skin's mesh init TM");
    let base = eval.base_mesh(box001).expect("a base mesh").expect("built");
    let mesh = eval
        .mesh(box001, 0)
        .expect("a mesh")
        .expect("the Skin evaluates");
    assert_eq!(mesh.vertices.len(), base.vertices.len());
    assert_eq!(sk.vertices.len(), base.vertices.len());
    let names: Vec<String> = binds_names(&eval, &sk);
    let height = height(
        &skin_binds(&eval)
            .iter()
            .map(|(_, n, m)| (n.clone(), *m))
            .collect::<Vec<_>>(),
    );
    let tm = eval.object_tm(box001, 0);
    let (mut upper, mut worst, mut moved) = (0usize, 0.0f64, 0.0f64);
    for (i, w) in sk.vertices.iter().enumerate() {
        let ours = tm.transform_point(mesh.vertices[i]);
        let rest = init.transform_point(base.vertices[i]);
        let d: Vec<f64> = [ours.0 - rest.0, ours.1 - rest.1, ours.2 - rest.2]
            .iter()
            .zip(RIG_SHIFT)
            .map(|(a, s)| (a - s).abs())
            .collect();
        let d = d.into_iter().fold(0.0, f64::max);
        let on_upper = w
            .iter()
            .all(|(b, _)| bound_in_current_pose(&names[*b as usize]));
        if on_upper {
            upper += 1;
            worst = worst.max(d);
        } else {
            moved = moved.max(d);
        }
    }
    println!(
        "{FILE}: Box001 {} vertices, {upper} on upper-body bones only: world − (base · init + shift) ≤ {worst:.2e}; others move up to {moved:.3}",
        base.vertices.len()
    );
    assert!(upper > 0);
    assert!(worst < 1e-4 * height + SHIFT_DIGITS, "{worst}");
}

/// The name of each Skin bone slot ("" for holes).
fn binds_names(eval: &SceneEval, sk: &skin::Skin) -> Vec<String> {
    sk.bones
        .iter()
        .map(|b| {
            b.node
                .map(|n| eval.graph.node_name(n).to_string())
                .unwrap_or_default()
        })
        .collect()
}

/// `json/cat.json`: one rig, its one animation layer, its 30 bones with their classes, and which are
/// evaluated (all 30 since the toes' second segments evaluate) or refused
/// with the reason.
#[test]
fn ld33_cat_view_lists_the_rig() {
    let eval = scene();
    let v = maxfs_scene::eval::rigs::cat::view::view(&eval);
    assert_eq!(v.rigs.len(), 1);
    let maxfs_scene::eval::rigs::cat::view::RigView::Rig(rig) = &v.rigs[0] else {
        panic!("{:?}", v.rigs[0]);
    };
    assert_eq!(
        (rig.name.as_str(), rig.mode, rig.version),
        ("Base Human", "setup", 3500)
    );
    // One absolute layer, "Animation Layer" (NLAInfo flags 0x8001), global
    // weight 1.
    let layers: Vec<_> = rig
        .layers
        .iter()
        .map(|l| (l.name.as_str(), l.method, l.enabled, l.weight_at_0))
        .collect();
    assert_eq!(
        (layers.as_slice(), &rig.layers_error),
        (
            &[("Animation Layer", "absolute", true, Some(1.0))][..],
            &None
        )
    );
    assert_eq!(rig.bones.len(), 30);
    let evaluated: Vec<&str> = rig
        .bones
        .iter()
        .filter(|b| b.evaluated)
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(
        evaluated,
        [
            "Base HumanPelvis",
            "Base HumanLThigh",
            "Base HumanLCalf",
            "Base HumanLFoot",
            "Base HumanLToe11",
            "Base HumanLToe12",
            "Base HumanRThigh",
            "Base HumanRCalf",
            "Base HumanRFoot",
            "Base HumanRToe11",
            "Base HumanRToe12",
            "Base HumanSpine1",
            "Base HumanSpine2",
            "Base HumanSpine3",
            "Base HumanRibcage",
            "Base HumanLCollarbone",
            "Base HumanLUpperarm",
            "Base HumanLForearm",
            "Base HumanLPalm",
            "Base HumanRCollarbone",
            "Base HumanRUpperarm",
            "Base HumanRForearm",
            "Base HumanRPalm",
            "Base HumanNeck",
            "Base HumanHead",
            "Base HumanHeadBone001",
            "Base HumanLPlatform",
            "Base HumanRPlatform",
            "Base HumanRIKTarget",
            "Base HumanLIKTarget",
        ]
    );
    assert!(rig.bones.iter().all(|b| b.evaluated == b.refused.is_none()));
    // Stored lengths agree with the Skin binds (thigh origin to calf origin).
    let thigh = rig
        .bones
        .iter()
        .find(|b| b.name == "Base HumanLThigh")
        .unwrap();
    let binds = skin_binds(&eval);
    let at = |n: &str| binds.iter().find(|(_, m, _)| m == n).unwrap().2.rows()[3];
    let (a, b) = (at("Base HumanLThigh"), at("Base HumanLCalf"));
    let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
    let len = f64::from(thigh.dims.unwrap()[0]);
    assert!(
        (d - len).abs() < 1e-3,
        "bind distance {d}, stored length {len}"
    );
}

/// A bone's stored setup matrix (translation in scene units) and length.
fn setup_of(eval: &SceneEval, ctl: usize) -> (Mat43, f64) {
    let layer = records::layer_trans(eval, ctl).expect("a CATClipMatrix3");
    let clip = records::clip_matrix(eval, layer).expect("decoded");
    let cp = records::cat_parent(eval, clip.cat_parent_trans)
        .expect("a CATParentTrans")
        .expect("decoded");
    let len = records::cat_control(eval, ctl).dims.expect("dimensions")[0];
    (
        maxfs_scene::eval::rigs::cat::setup_in(&clip.setup, cp.units),
        f64::from(len),
    )
}

/// `m` moved along its own X row by `len` (a parent's child offset).
fn along_x(m: &Mat43, len: f64) -> Mat43 {
    Mat43::translation(maxfs_scene::eval::Vec3(len, 0.0, 0.0)).then(m)
}

/// Setup-mode rules for the hub and limb children, checked between stored
/// values only (setup matrices, stored lengths, Skin binds), independent of
/// the evaluator (collar.rs and limb.rs hold the first two; docs/cat.md):
/// - palm bind = palm setup matrix · forearm bind moved by the forearm's
///   stored length along X;
/// - collarbone bind = setup matrix · RotY(−90° left, +90° right) · ribcage
///   bind (a hub's children start at its origin, no length offset);
/// - thigh = its CATBoneData setup matrix · RotY(180°) · the CATParent's
///   rotation at the pelvis origin (flags SETUP_INHERITS_ROT_FROM_CATPARENT
///   and FLIPROT), calf = its setup · the thigh moved by the thigh's length.
///   Positions hold; the thighs' bind rotations differ from this by
///   1.2e-4..1.6e-4, while the left calf built from the rule's thigh matches
///   its bind to 2e-7: the legs were bound in (nearly) their FK pose, while
///   CAT now solves them with IK towards the platforms (leg.rs, docs/cat.md).
#[test]
fn ld33_setup_rules_between_stored_binds() {
    let eval = scene();
    let binds = skin_binds(&eval);
    let bind = |n: &str| {
        binds
            .iter()
            .find(|(_, m, _)| m == &format!("Base Human{n}"))
            .map(|(_, _, m)| *m)
            .unwrap_or_else(|| panic!("no bind for {n}"))
    };
    let ctl = |n: &str| {
        let node = node_named(&eval.graph, &format!("Base Human{n}"));
        eval.tm_controller(node).expect("a controller")
    };
    for side in ["L", "R"] {
        let (palm, _) = setup_of(&eval, ctl(&format!("{side}Palm")));
        let fore_len = f64::from(
            records::cat_control(&eval, ctl(&format!("{side}Forearm")))
                .dims
                .expect("forearm dims")[0],
        );
        let ours = palm.then(&along_x(&bind(&format!("{side}Forearm")), fore_len));
        let (dr, dp) = tm_diff(&ours, &bind(&format!("{side}Palm")));
        println!("{side} palm: rotation {dr:.1e}, position {dp:.1e}");
        assert!(dr < 1e-6 && dp < 1e-5, "{side} palm {dr} {dp}");

        let (collar, _) = setup_of(&eval, ctl(&format!("{side}Collarbone")));
        let turn = if side == "L" { -90f64 } else { 90.0 }.to_radians();
        let ours = collar.then(&Mat43::rot_y(turn)).then(&bind("Ribcage"));
        let (dr, dp) = tm_diff(&ours, &bind(&format!("{side}Collarbone")));
        println!("{side} collarbone: rotation {dr:.1e}, position {dp:.1e}");
        assert!(dr < 1e-5 && dp < 1e-5, "{side} collarbone {dr} {dp}");
    }
    // The legs: the limb's CATBoneData holds the setup matrix (segment →
    // parameter block reference 0 → CATBoneData).
    let bone_data = |seg: usize| {
        let pb = eval.graph.objects[seg]
            .references
            .iter()
            .find(|r| r.slot == 0);
        let pb = usize::try_from(pb.expect("a parameter block").target).unwrap();
        let bd = eval.graph.objects[pb]
            .references
            .iter()
            .find(|r| r.slot == 0);
        usize::try_from(bd.expect("CATBoneData").target).unwrap()
    };
    let cp = eval.world_tm(node_named(&eval.graph, "Base Human"), 0);
    let mut hip = maxfs_scene::eval::rigs::cat::without_scale(&cp);
    hip.0[3] = bind("Pelvis").0[3];
    let height = height(
        &binds
            .iter()
            .map(|(_, n, m)| (n.clone(), *m))
            .collect::<Vec<_>>(),
    );
    for side in ["L", "R"] {
        let thigh_seg = ctl(&format!("{side}Thigh"));
        let (thigh_setup, _) = setup_of(&eval, bone_data(thigh_seg));
        let thigh = thigh_setup
            .then(&Mat43::rot_y(std::f64::consts::PI))
            .then(&hip);
        let (tr, tp) = tm_diff(&thigh, &bind(&format!("{side}Thigh")));
        let thigh_len = f64::from(records::cat_control(&eval, thigh_seg).dims.unwrap()[0]);
        let (calf_setup, _) = setup_of(&eval, bone_data(ctl(&format!("{side}Calf"))));
        let calf = calf_setup.then(&along_x(&thigh, thigh_len));
        let (cr, cpos) = tm_diff(&calf, &bind(&format!("{side}Calf")));
        println!(
            "{side} thigh: rotation {tr:.1e}, position {tp:.1e}; calf: rotation {cr:.1e}, position {cpos:.1e}"
        );
        assert!(tp < 1e-5 && cpos < 1e-4 * height, "{side} leg positions");
        assert!(tr < 2e-4 && cr < 2e-4, "{side} leg rotations");
        if side == "L" {
            assert!(cr < 1e-6, "left calf rotation {cr}");
        }
    }
}

/// The toes' second segments (Toe12, CATDigitSegTrans with bone id 1): what
/// the corpus pins down of CAT's chained digit rule, `setup · (previous
/// segment moved by its length along X)` (verified against Skin binds of
/// second finger segments in public CAT rigs, docs/cat.md "Digits"). No
/// reference in the corpus holds a Toe12's pose; checked here: it hangs from
/// Toe11 in the node hierarchy; it starts at Toe11's end (Toe11's stored
/// length, chunk 10, along Toe11's X, no sideways offset); its rotation is
/// its stored setup rotation applied to Toe11's, whose rotation is its Skin
/// bind's (1e-5, the independent reference); it is a rigid frame; and the
/// pose and the Toe11 → Toe12 distance hold at every tick.
#[test]
fn ld33_toe_second_segments_hang_at_the_first_segments_end() {
    let eval = scene();
    let binds = skin_binds(&eval);
    let height = height(
        &binds
            .iter()
            .map(|(_, n, m)| (n.clone(), *m))
            .collect::<Vec<_>>(),
    );
    for side in ["L", "R"] {
        let toe11 = node_named(&eval.graph, &format!("Base Human{side}Toe11"));
        let toe12 = node_named(&eval.graph, &format!("Base Human{side}Toe12"));
        let parent = eval.graph.objects[toe12]
            .node
            .as_ref()
            .and_then(|n| n.parent)
            .map(|p| p as usize);
        assert_eq!(parent, Some(toe11), "{side}Toe12's parent");
        let (setup, _) = setup_of(&eval, eval.tm_controller(toe12).expect("a controller"));
        let len = f64::from(
            records::cat_control(&eval, eval.tm_controller(toe11).unwrap())
                .dims
                .expect("Toe11 dimensions")[0],
        );
        assert!(len > 3.0, "{side}Toe11 length {len}");
        let bind11 = binds
            .iter()
            .find(|(_, n, _)| n == &format!("Base Human{side}Toe11"))
            .map(|(_, _, m)| *m)
            .expect("Toe11 bind");
        let world = |n: usize, t: i32| match eval.direct_world(n, t) {
            Some(Ok(m)) => m,
            other => panic!("{side} node {n} tick {t}: {other:?}"),
        };
        let at0 = world(toe12, 0);
        for t in TICKS.into_iter().chain([160, 4_800]) {
            let (a, b) = (world(toe11, t), world(toe12, t));
            let (dr, dp) = tm_diff(&b, &at0);
            assert!(dr < 1e-12 && dp < 1e-9 * height, "{side}Toe12 moves at {t}");
            // Origin: along Toe11's X by its length, nothing sideways.
            let (ra, rb) = (a.rows(), b.rows());
            let d: Vec<f64> = (0..3).map(|i| rb[3][i] - ra[3][i]).collect();
            let along = (0..3).map(|i| d[i] * ra[0][i]).sum::<f64>();
            let dist = d.iter().map(|v| v * v).sum::<f64>().sqrt();
            let side_off = (dist * dist - along * along).max(0.0).sqrt();
            assert!(
                (along - len).abs() < 1e-9 * height && side_off < 1e-9 * height,
                "{side}Toe12 at {along} along Toe11 (length {len}), {side_off} sideways"
            );
            // Rotation: setup · Toe11's bind rotation; a rigid frame.
            let mut rot11 = bind11;
            rot11.0[3] = b.0[3];
            let mut s = setup;
            s.0[3] = maxfs_scene::eval::Vec3::default();
            let (dr, _) = tm_diff(&s.then(&rot11), &b);
            assert!(
                dr < 1e-5,
                "{side}Toe12 rotation against setup · Toe11 bind: {dr}"
            );
            for (i, row) in rb.iter().take(3).enumerate() {
                let n = row.iter().map(|v| v * v).sum::<f64>();
                assert!((n - 1.0).abs() < 1e-6, "{side}Toe12 row {i} length {n}");
            }
            let det = rb[0][0] * (rb[1][1] * rb[2][2] - rb[1][2] * rb[2][1])
                - rb[0][1] * (rb[1][0] * rb[2][2] - rb[1][2] * rb[2][0])
                + rb[0][2] * (rb[1][0] * rb[2][1] - rb[1][1] * rb[2][0]);
            assert!((det - 1.0).abs() < 1e-6, "{side}Toe12 determinant {det}");
            if t == 0 {
                println!(
                    "{side}Toe12: {along:.6} along Toe11 (length {len:.6}), {side_off:.1e} sideways; rotation against setup · Toe11 bind {dr:.1e}"
                );
            }
        }
    }
}
