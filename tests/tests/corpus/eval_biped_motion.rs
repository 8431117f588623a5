//! Biped bones at every frame of the animated takes against the FBX the
//! authors exported from the same scenes (ref/biped-ld35, 3ds Max's FBX 6.1
//! exporter, read with ufbx in Max's axes and the file's unit). The FBX holds
//! the skinned `B_*` bones, which are Link-Constrained to the Bip01 bones:
//! their world TM in our scene (`world_tm`, through the Link Constraint and
//! the Biped keytracks) must match the FBX's evaluated `node_to_world` at
//! every frame of the take — every rotation element within 1e-3 and the
//! position within 1e-3 × the rig's height (figure record 0x000c). Bones the
//! evaluation refuses are counted and named with their reason. The Biped
//! nodes the FBX holds as well (Red: Bip01, Pelvis, Tail, TailNub — the
//! ancestors of its skinned bones) are compared the same way.

use maxfs_scene::eval::rigs::link_constraint;
use maxfs_scene::eval::{Mat43, SceneEval, Vec3};
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;
use maxfs_tests::tm_diff;

/// Rotation elements may differ by this much.
const ROTATION_TOLERANCE: f64 = 1e-3;
/// Positions may differ by this fraction of the rig's height.
const POSITION_TOLERANCE: f64 = 1e-3;

/// One animated take: the .max, its FBX, the bones that must be evaluated
/// and compared at every frame, and a constant world shift of the whole FBX
/// rig against the .max (`ours = fbx + shift`).
struct Take {
    max: &'static str,
    fbx: &'static str,
    required: &'static [&'static str],
    /// Bones compared at some frames only (the others refused by name), with
    /// the fewest frames each must be compared at.
    partial: &'static [(&'static str, usize)],
    shift: [f64; 3],
    /// Compare the rig on its base layer alone (`SceneEval::in_base_layer`):
    /// the FBX was written before the file's upper layer.
    base_layer: bool,
}

/// `f` on the base layer when `base`, else with every layer.
pub(crate) fn layered<R>(eval: &SceneEval, base: bool, f: impl FnOnce() -> R) -> R {
    if base {
        eval.in_base_layer(f)
    } else {
        f()
    }
}

/// Red@Run's FBX puts the rig 0.1733 units lower in Max y than the .max does
/// at every frame, in every bone: the .max's horizontal keys all hold depth
/// −0.1733 (y = +0.1733), which the Skin bind pose of the same file confirms
/// (eval_biped.rs) and Red@Spawn's FBX of the same rig follows. Not an
/// earlier save: every Red@Run FBX of the authors' public history (three
/// exports of three different key sets) has the same shift against its own
/// .max (docs/biped.md); its cause is not known. Rotations agree to 1.5e-6.
pub(crate) const RED_RUN_SHIFT: [f64; 3] = [0.0, 0.173_289_88, 0.0];

/// The bones both Red takes (the same rig) must match their FBX in: the
/// `B_*` skin bones and the Biped nodes the authors' FBX hold.
const RED_REQUIRED: &[&str] = &[
    "B_Pelvis",
    "B_L_Thigh",
    "B_R_Thigh",
    "B_L_Calf",
    "B_R_Calf",
    "B_L_Toe1",
    "B_L_Toe2",
    "B_R_Toe1",
    "B_R_Toe2",
    "B_Spine1",
    "B_Head",
    "B_Tail",
    "Bip01",
    "Bip01 Pelvis",
    "Bip01 Tail",
    "Bip01 TailNub",
];

const TAKES: &[Take] = &[
    Take {
        max: "biped-ld35/Player@Run.max",
        fbx: "biped-ld35/Player@Run.FBX",
        required: &[
            "B_Pelvis",
            "B_L_Thigh",
            "B_R_Thigh",
            "B_L_Calf",
            "B_R_Calf",
            "B_Spine1",
            "B_Head",
            "B_L_UpperArm",
            "B_R_UpperArm",
            "B_L_Forearm",
            "B_R_Forearm",
        ],
        shift: [0.0; 3],
        partial: &[],
        base_layer: false,
    },
    Take {
        max: "biped-ld35/Red@Run.max",
        fbx: "biped-ld35/Red@Run.FBX",
        required: RED_REQUIRED,
        shift: RED_RUN_SHIFT,
        partial: &[],
        base_layer: false,
    },
    Take {
        max: "biped-ld35/Red@Spawn.max",
        fbx: "biped-ld35/Red@Spawn.FBX",
        required: RED_REQUIRED,
        shift: [0.0; 3],
        partial: &[],
        base_layer: false,
    },
    // Yellow@Spawn: large COM turns (148°, 153°), side-bent tail keys with
    // one key (4320) leaving Tail2 to its neighbours, a COM key (5920) at
    // continuity −0.8 (time record word [9] = 5, docs/biped.md), and IK leg
    // keys. Bones are compared at every frame where they evaluate; the
    // other frames are refused by name (the toe links from the FK → IK
    // segment on, frames 25–40). The legs evaluate at all 41: FK between the FK key 3840
    // and the IK key 5760 (frames 25–35), the IK in-between rule at 37–39.
    // The floors are those frame counts.
    Take {
        max: "biped-ld35/Yellow@Spawn.max",
        fbx: "biped-ld35/Yellow@Spawn.FBX",
        required: &[],
        shift: [0.0; 3],
        partial: &[
            ("Bip01", 41),
            ("Bip01 Pelvis", 41),
            ("B_Pelvis", 41),
            ("Bip01 Spine", 41),
            ("B_Spine1", 41),
            ("Bip01 Neck", 41),
            ("Bip01 Head", 41),
            ("B_Head", 41),
            ("B_L_Thigh", 41),
            ("B_R_Thigh", 41),
            ("B_L_Calf", 41),
            ("B_R_Calf", 41),
            ("B_L_Foot", 41),
            ("B_R_Foot", 41),
            // The toe bend held where the keys hold the same bend (1920 →
            // 3200), eased by a half cosine where they differ (3200 → 3840,
            // frames 21–23; the FK → IK 3840 → 5760, frames 25–35, with the
            // toe base held between its equal keys); at the IK keys their
            // stored bends, and between them (frames 37–39) the toe keeping
            // its world rotation while the foot turns about the toe's pivot.
            ("B_L_Toe", 41),
            ("B_R_Toe", 41),
            ("Bip01 Tail", 41),
            ("Bip01 Tail1", 41),
            ("Bip01 Tail2", 41),
            ("Bip01 TailNub", 41),
            ("B_Tail0", 41),
            ("B_Tail1", 41),
            ("B_Tail2", 41),
            // The ears (extra limbs; the left one keyed away from its
            // figure pose) and their nubs, on the head.
            ("Bip01 R Ear0", 41),
            ("Bip01 R Ear1", 41),
            ("Bip01 L Ear0", 41),
            ("Bip01 L Ear1", 41),
            ("Bip01 Xtra01Nub", 41),
            ("Bip01 Xtra01OppNub", 41),
            ("B_R_Ear0", 41),
            ("B_R_Ear1", 41),
            ("B_L_Ear0", 41),
            ("B_L_Ear1", 41),
        ],
        base_layer: false,
    },
    // Player.max: every key of every track stores 0 in time record word [9]
    // (continuity −1: linear in-betweens, slerp for the quaternions), so its
    // moving legs evaluate between FK keys; its pelvis keys (24000–33600)
    // turn the pelvis bone and the hips, its arm keys' clavicle deltas
    // (88000–102400) the clavicles. In the legs' IK run (19200 … 28800)
    // each foot stays put between two keys for 3200 ticks (left 22400 →
    // 25600, right 25600 → 28800: 18 frames by the IK in-between rule), the
    // FK ↔ IK transitions (17600 → 19200, 28800 → 30400) are FK; where a
    // foot rolls about its pivot the leg is refused by name.
    Take {
        max: "biped-ld35/Player.max",
        fbx: "biped-ld35/Player.FBX",
        required: &[],
        shift: [0.0; 3],
        partial: &[
            ("B_Pelvis", 702),
            ("B_Spine1", 702),
            ("B_Head", 702),
            ("B_L_UpperArm", 702),
            ("B_R_UpperArm", 702),
            ("B_L_Forearm", 702),
            ("B_R_Forearm", 702),
            ("B_L_Thigh", 666),
            ("B_L_Calf", 666),
            ("B_R_Thigh", 666),
            ("B_R_Calf", 666),
        ],
        base_layer: false,
    },
    // Two animation layers: the base ("Original") keys everything, "Layer 1"
    // only COM turn offsets. The FBX holds the base layer alone (written
    // before Layer 1; the layer's composite is checked against the pose Max
    // saved, `a_layer_turns_the_com_as_max_saved_it`). The legs are in one
    // IK run of seven keys (0 … 3840), evaluated by the IK in-between rule
    // at every frame; at the left leg's 23 (tick 3680) its target is out of
    // the leg's reach and the leg points at it, bent by the calf's capped
    // angle (leg_ik::knee_and_ankle).
    Take {
        max: "biped-ld35/Player@Idle.max",
        fbx: "biped-ld35/Player@Idle.FBX",
        required: &[
            "B_Pelvis",
            "B_Spine1",
            "B_Head",
            "B_L_UpperArm",
            "B_R_UpperArm",
            "B_L_Forearm",
            "B_R_Forearm",
            "B_L_Thigh",
            "B_R_Thigh",
            "B_L_Calf",
            "B_R_Calf",
        ],
        shift: [0.0; 3],
        partial: &[],
        base_layer: true,
    },
];

pub(crate) use crate::eval_fbx::load_fbx;

pub(crate) use crate::eval_fbx::fbx_dev::to_mat;
use crate::eval_fbx::fbx_dev::{stretched_ancestor, unstretched};

#[test]
fn linked_bones_follow_the_biped_at_every_frame() {
    let corpus = corpus_dir();
    let (mut report, mut failures) = (Vec::new(), Vec::new());
    for take in TAKES {
        let (max, fbx, required) = (take.max, take.fbx, take.required);
        let mut counts: Vec<(String, usize, usize)> = Vec::new();
        let doc = Document::open(&corpus.join("max").join(max)).expect("max file");
        let eval = SceneEval::from_document(doc).expect("scene");
        let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
        let scene = load_fbx(&corpus.join("ref").join(fbx), unit.metres_per_unit);
        let height = eval
            .biped_rigs()
            .values()
            .find_map(|r| r.as_ref().ok()?.figure.height)
            .expect("a rig with a height");
        let tol = POSITION_TOLERANCE * height;
        let stack = scene.anim_stacks.last().expect("an animation take");
        let frames = ((stack.time_end - stack.time_begin) * 30.0).round() as i64;
        let (mut compared, mut refused, mut worst_rot, mut worst_pos) =
            (Vec::new(), Vec::new(), 0.0f64, 0.0f64);
        let mut under_stretch = 0usize;
        let mut refused_frames: Vec<String> = Vec::new();
        for fnode in scene.nodes.iter() {
            let name = fnode.element.name.to_string();
            if !name.starts_with("B_") && !name.starts_with("Bip01") {
                continue;
            }
            let Some((o, _)) = eval.graph.nodes().find(|(_, n)| n.name == name) else {
                continue;
            };
            if eval.direct_world(o.index, 0).is_none() {
                continue;
            }
            let (mut frames_compared, mut frames_refused) = (0usize, Vec::new());
            for f in 0..=frames {
                let time = stack.time_begin + f as f64 / 30.0;
                let tick = (time * 4800.0).round() as i32;
                // A tick the evaluation refuses is counted with its reason.
                if let Some(Err(why)) =
                    layered(&eval, take.base_layer, || eval.direct_world(o.index, tick))
                {
                    frames_refused.push((f, why.to_string()));
                    continue;
                }
                let s = ufbx::evaluate_scene(&scene, &stack.anim, time, Default::default())
                    .expect("FBX evaluates");
                let fbx_node = s
                    .nodes
                    .iter()
                    .find(|n| n.element.name.as_ref() == name)
                    .expect("node in the evaluated FBX");
                if stretched_ancestor(fbx_node) {
                    under_stretch += 1;
                    continue;
                }
                let theirs = to_mat(&fbx_node.node_to_world);
                let [a, b, c, p] = unstretched(&theirs).0;
                let theirs = Mat43([
                    a,
                    b,
                    c,
                    p.plus(Vec3(take.shift[0], take.shift[1], take.shift[2])),
                ]);
                let ours = layered(&eval, take.base_layer, || eval.world_tm(o.index, tick));
                if std::env::var("BIPED_DEBUG").is_ok_and(|v| name.contains(&v)) {
                    let f = |m: &Mat43| {
                        format!(
                            "{:?}",
                            m.rows().map(|r| r.map(|x| (x * 1000.0).round() / 1000.0))
                        )
                    };
                    println!("{name} {tick}\n  ours {}\n  fbx  {}", f(&ours), f(&theirs));
                }
                frames_compared += 1;
                let (dr, dp) = tm_diff(&ours, &theirs);
                worst_rot = worst_rot.max(dr);
                worst_pos = worst_pos.max(dp);
                if dr > ROTATION_TOLERANCE || dp > tol {
                    failures.push(format!(
                        "{max} {name} tick {tick}: rotation off by {dr:.2e}, position by {dp:.2e} (tolerance {tol:.2e})"
                    ));
                }
            }
            let target = eval
                .tm_controller(o.index)
                .and_then(|c| link_constraint::decode(&eval, c))
                .and_then(Result::ok)
                .and_then(|l| {
                    Some(
                        eval.graph
                            .objects
                            .get(l.target?)?
                            .node
                            .as_ref()?
                            .name
                            .clone(),
                    )
                })
                .unwrap_or_default();
            // The refused frames, as ranges with the first frame's reason.
            let mut spans: Vec<(i64, i64, String)> = Vec::new();
            for (f, why) in frames_refused {
                match spans.last_mut() {
                    Some(s) if s.1 + 1 == f => s.1 = f,
                    _ => spans.push((f, f, why)),
                }
            }
            let spans: Vec<String> = spans
                .iter()
                .map(|(a, b, why)| format!("frames {a}–{b}: {why}"))
                .collect();
            if frames_compared == 0 {
                if spans.is_empty() {
                    refused.push(format!("{name} (every frame under a stretched FBX parent)"));
                } else {
                    refused.push(format!("{name} ({})", spans.join("; ")));
                }
                continue;
            }
            counts.push((name.clone(), frames_compared, spans.len()));
            refused_frames.extend(spans.iter().map(|s| format!("{name} {s}")));
            compared.push(format!("{name} → {target} ({frames_compared} frames)"));
        }
        for r in required {
            match counts.iter().find(|c| c.0 == *r) {
                Some((_, _, 0)) => {}
                Some(_) => failures.push(format!("{max}: {r} refused at some frames")),
                None => failures.push(format!("{max}: {r} not evaluated")),
            }
        }
        for (r, least) in take.partial {
            match counts.iter().find(|c| c.0 == *r) {
                Some((_, n, _)) if n >= least => {}
                Some((_, n, _)) => failures.push(format!(
                    "{max}: {r} compared at {n} frames, fewer than {least}"
                )),
                None => failures.push(format!("{max}: {r} not evaluated")),
            }
        }
        report.push(format!(
            "{max}: {} frames, {} bones compared ({}), worst rotation element {worst_rot:.2e}, position {worst_pos:.2e} (height {height:.2}); {under_stretch} bone·frames under a stretched FBX parent not compared; {} refused at some frames: {}; {} refused: {}",
            frames + 1,
            compared.len(),
            compared.join(", "),
            refused_frames.len(),
            refused_frames.join("; "),
            refused.len(),
            refused.join("; ")
        ));
    }
    println!("{}", report.join("\n"));
    failures.truncate(400);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A Link Constraint without a target is inactive: its offset is the node's
/// local transform under its parent. biped-ld35's PositionLocator (no target,
/// under the scene root) is where the FBX of each take puts it, every frame.
#[test]
fn a_link_without_target_places_the_node_at_its_offset() {
    let corpus = corpus_dir();
    let mut compared = 0usize;
    for take in ["Player@Run", "Red@Run", "Red@Spawn"] {
        let max = corpus.join(format!("max/biped-ld35/{take}.max"));
        let eval =
            SceneEval::from_document(Document::open(&max).expect("max file")).expect("scene");
        let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
        let scene = load_fbx(
            &corpus.join(format!("ref/biped-ld35/{take}.FBX")),
            unit.metres_per_unit,
        );
        let (o, _) = eval
            .graph
            .nodes()
            .find(|(_, n)| n.name == "PositionLocator")
            .expect("PositionLocator");
        let link = eval
            .tm_controller(o.index)
            .and_then(|c| link_constraint::decode(&eval, c))
            .expect("a Link Constraint")
            .expect("decodes");
        assert_eq!(link.target, None, "{take}: the link has no target");
        let stack = scene.anim_stacks.last().expect("an animation take");
        let frames = ((stack.time_end - stack.time_begin) * 30.0).round() as i64;
        for f in 0..=frames {
            let time = stack.time_begin + f as f64 / 30.0;
            let tick = (time * 4800.0).round() as i32;
            let ours = eval
                .direct_world(o.index, tick)
                .expect("a link is evaluated directly")
                .unwrap_or_else(|e| panic!("{take} tick {tick}: {e}"));
            let s = ufbx::evaluate_scene(&scene, &stack.anim, time, Default::default())
                .expect("FBX evaluates");
            let theirs = s
                .nodes
                .iter()
                .find(|n| n.element.name.as_ref() == "PositionLocator")
                .map(|n| to_mat(&n.node_to_world))
                .expect("PositionLocator in the FBX");
            let (dr, dp) = tm_diff(&ours, &theirs);
            assert!(
                dr < 1e-6 && dp < 1e-6,
                "{take} tick {tick}: rotation off by {dr:.2e}, position by {dp:.2e}"
            );
            compared += 1;
        }
    }
    assert!(compared > 60, "only {compared} frames compared");
    eprintln!("{compared} frames of PositionLocator equal the FBX");
}

/// biped-ld35/Player@Idle holds two animation layers: "Original" keys the
/// whole take, "Layer 1" only COM turn offsets (identity at 0, 1920, 3840,
/// about 0.86 rad at 640 and 2560). Each layer's record group stores the
/// COM pose Max computed for it at the time slider when it saved (0x0260:
/// [4..6] position, [8..11] rotation, Y-up; the top one equals the system
/// object's current-position frame 0x0104). Both are at tick 1440 (the
/// base position is there and at 480, whose rotation is not): the base
/// layer alone must give the base group's record, every layer the top
/// group's — a composite no single layer's keys hold.
#[test]
fn a_layer_turns_the_com_as_max_saved_it() {
    use maxfs_scene::chunk::Chunk;
    use maxfs_scene::eval::rigs::biped::{figure, records, Role};
    let max = corpus_dir().join("max/biped-ld35/Player@Idle.max");
    let eval = SceneEval::from_document(Document::open(&max).expect("max file")).expect("scene");
    let (&sys, rig) = eval.biped_rigs().iter().next().expect("a rig");
    let rig = rig.as_ref().expect("rig decodes");
    assert_eq!(rig.layers.len(), 1, "one layer above the base");
    assert_eq!(rig.layers[0].name.as_deref(), Some("Layer 1"));
    let com = rig
        .bones
        .iter()
        .find(|b| b.role == Role::Com)
        .expect("a COM")
        .node;
    let groups = records::layer_groups(eval.chunks(sys), "Player@Idle").expect("layers");
    assert_eq!(groups.len(), 2);
    let saved = |g: &[Chunk]| -> Mat43 {
        let p = g
            .iter()
            .find(|c| c.id == 0x0260)
            .and_then(|c| c.payload())
            .expect("0x0260");
        let f: Vec<f64> = p
            .chunks_exact(4)
            .map(|w| f64::from(f32::from_le_bytes([w[0], w[1], w[2], w[3]])))
            .collect();
        let r = figure::yup_rotation([f[8], f[9], f[10], f[11]]);
        figure::with_position(&r, Vec3(f[4], -f[6], f[5]))
    };
    let tick = 1440;
    let height = rig.figure.height.expect("height");
    let base = eval.in_base_layer(|| eval.world_tm(com, tick));
    let all = eval.world_tm(com, tick);
    let (br, bp) = tm_diff(&base, &saved(groups[0]));
    let (ar, ap) = tm_diff(&all, &saved(groups[1]));
    let (xr, _) = tm_diff(&base, &saved(groups[1]));
    println!(
        "Player@Idle Bip01 at tick {tick}: base layer {br:.2e} / {bp:.2e}, with Layer 1 {ar:.2e} / {ap:.2e} (base alone against the saved composite: {xr:.2e})"
    );
    assert!(
        br < 1e-5 && bp < 1e-5 * height,
        "base layer {br:.2e} {bp:.2e}"
    );
    assert!(
        ar < 1e-5 && ap < 1e-5 * height,
        "with the layer {ar:.2e} {ap:.2e}"
    );
    assert!(xr > 0.1, "the layer turns the COM ({xr:.2e})");
}

/// Each of Player@Idle's layer groups also stores the leg pose Max computed
/// at the time slider (tick 1440, inside the IK run's segment 640 → 1600):
/// 0x025d, a leg record per side in the figure's 0x0069 layout. The base
/// group's is the base layer's IK solution there; the "Layer 1" group's is
/// the leg under the layer's COM turn — the same knee, at blend 0, its feet
/// carried away from the base layer's planted ones by the turn. Placed by
/// the figure rules on the pose of the same layers, each must equal our
/// legs at that tick: the IK in-between rule on the base layer, the base
/// solution carried by the COM with every layer.
#[test]
fn ik_legs_under_a_layer_are_as_max_saved_them() {
    use maxfs_scene::eval::rigs::biped::{figure, motion, records};
    let max = corpus_dir().join("max/biped-ld35/Player@Idle.max");
    let eval = SceneEval::from_document(Document::open(&max).expect("max file")).expect("scene");
    let (&sys, rig) = eval.biped_rigs().iter().next().expect("a rig");
    let rig = rig.as_ref().expect("rig decodes");
    let groups = records::layer_groups(eval.chunks(sys), "Player@Idle").expect("layers");
    assert_eq!(groups.len(), 2);
    let tick = 1440;
    let height = rig.figure.height.expect("height");
    let node = |name: &str| {
        rig.bones
            .iter()
            .find(|b| b.name == name)
            .unwrap_or_else(|| panic!("{name}"))
            .node
    };
    let mut feet = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let words: Vec<f32> = group
            .iter()
            .find(|c| c.id == 0x025d)
            .and_then(|c| c.payload())
            .expect("0x025d")
            .chunks_exact(4)
            .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        assert_eq!(words.len(), 240, "two 120-word leg halves");
        let top = g == 1;
        let mut saved = if top {
            motion::pose_at(rig, tick)
        } else {
            motion::base_pose_at(rig, tick)
        };
        saved.legs = [Ok(words[..120].to_vec()), Ok(words[120..].to_vec())];
        saved.leg_ik = [None, None];
        saved.toe_ik = [None, None];
        for (left, side) in [(false, "R"), (true, "L")] {
            // The toe too: between the IK keys our toe keeps its world
            // rotation at the foot's toe point (`leg_ik`), Max's saved
            // record puts it by its own delta on the saved foot.
            let expected = [
                figure::thigh(rig, &saved, left).expect("thigh"),
                figure::calf(rig, &saved, left).expect("calf"),
                figure::foot(rig, &saved, left).expect("foot"),
                figure::toe_base(rig, &saved, left, 0).expect("toe"),
            ];
            feet.push(expected[2].0[3]);
            for (bone, want) in ["Thigh", "Calf", "Foot", "Toe0"].iter().zip(expected) {
                let n = node(&format!("Bip01 {side} {bone}"));
                let ours = layered(&eval, !top, || eval.world_tm(n, tick));
                let (dr, dp) = tm_diff(&ours, &want);
                println!("Player@Idle layer group {g} Bip01 {side} {bone} at {tick}: {dr:.2e} / {dp:.2e}");
                assert!(
                    dr < 1e-5 && dp < 1e-5 * height,
                    "group {g} Bip01 {side} {bone}: rotation {dr:.2e}, position {dp:.2e}"
                );
            }
        }
    }
    // The layer moves the feet: the composite is not the base pose.
    assert!(feet[0].minus(feet[2]).len() > 1.0 && feet[1].minus(feet[3]).len() > 1.0);
}

/// A Biped track without keys holds the pose Max saved at the time slider
/// (the base layer group's twins 0x0258 … 0x0261 of the figure records, and
/// 0x0260 for the COM): a rig created, skinned and saved outside figure mode
/// but never animated (a public Max 2018 file of the unseen-file sweep,
/// docs/unseen-files.md) has no COM, spine or head keys at all. No corpus rig
/// has such a track, so each keyed track of the biped-ld35 takes is emptied
/// in turn and the rig evaluated at the tick the file was saved at (its
/// time slider): every bone that evaluates from the keys must sit where the
/// saved records put it — Max's stored pose there against the keys, which
/// the FBX tests check at every frame.
#[test]
fn unkeyed_tracks_hold_the_pose_max_saved() {
    use maxfs_scene::eval::rigs::biped::{figure, motion, Role};
    let takes = [
        ("Player@Idle", 1440),
        ("Player@Run", 480),
        ("Red@Run", 960),
        ("Red@Spawn", 2240),
        ("Yellow@Spawn", 6400),
    ];
    let (mut compared, mut toes) = (0, 0);
    for (take, tick) in takes {
        let max = corpus_dir().join(format!("max/biped-ld35/{take}.max"));
        let eval =
            SceneEval::from_document(Document::open(&max).expect("max file")).expect("scene");
        let (_, rig) = eval.biped_rigs().iter().next().expect("a rig");
        let rig: &maxfs_scene::eval::rigs::biped::Rig = rig.as_ref().expect("rig decodes");
        let height = rig.figure.height.expect("height");
        let keyed = motion::pose_at(rig, tick);
        let names: Vec<&str> = rig
            .tracks
            .iter()
            .filter(|t| !t.keys.is_empty())
            .map(|t| t.name)
            .filter(|n| {
                ["horizontal", "vertical", "turn", "spine", "head", "tail"].contains(n)
                    || n.ends_with(" arm")
                    || n.ends_with(" leg")
            })
            .collect();
        for name in names {
            let mut stripped = rig.clone();
            let stripped_tracks = &mut stripped.tracks;
            for t in stripped_tracks.iter_mut().filter(|t| t.name == name) {
                t.keys.clear();
            }
            let saved = motion::pose_at(&stripped, tick);
            let mut n = 0;
            for b in &rig.bones {
                // A leg placed by the IK in-between rule follows the COM's
                // motion between the run's keys, not the COM at this tick
                // alone: emptying a COM track moves it, as it would in Max.
                let ik_leg = match b.role {
                    Role::Part { limb, .. } => {
                        matches!(limb, 4..=7 | 22..=29) && keyed.leg_ik.iter().any(Option::is_some)
                    }
                    _ => false,
                };
                if ik_leg {
                    continue;
                }
                let (Ok(want), got) = (
                    figure::world_in(rig, &keyed, b.role),
                    figure::world_in(&stripped, &saved, b.role),
                ) else {
                    continue;
                };
                let got = got.unwrap_or_else(|e| {
                    panic!("{take}: {} with no {name} keys is refused: {e}", b.name)
                });
                let (dr, dp) = tm_diff(&got, &want);
                // Player@Run's right toe between its FK keys 0 and 1280
                // (identity, then a half turn about y): Max's saved toe is
                // the half-cosine slerp between the two keys (the squad
                // through the neighbours was 0.0192 off); counted.
                if take == "Player@Run" && name == "right leg" && b.name.starts_with("Bip01 R Toe0")
                {
                    println!("{take} tick {tick}: {} with no {name} keys: rotation {dr:.2e}, position {dp:.2e} (the keyed toe in-between)", b.name);
                    toes += 1;
                }
                assert!(
                    dr < 1e-4 && dp < 1e-4 * height,
                    "{take} tick {tick}: {} with no {name} keys: rotation {dr:.2e}, position {dp:.2e}",
                    b.name
                );
                n += 1;
            }
            println!("{take} tick {tick}: no {name} keys: {n} bones at the saved pose");
            compared += n;
        }
    }
    assert!(compared > 500, "only {compared} bone comparisons");
    assert_eq!(toes, 2, "Player@Run's R Toe0 and its nub");
}
