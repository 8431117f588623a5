//! CAT animation mode (docs/cat.md, "Animation mode") on the corpus's one
//! CAT rig, cat/LD33_Character.max, switched to animation mode through the
//! project's own writer (CATParentTrans chunk 4 = 1; nothing else changed).
//! LD33's bones each hold one animation layer that CAT filled from the
//! setup pose when the rig last left animation mode, so the Skin binds of
//! Box001 (moved by the one rig shift of eval_cat.rs) are the reference
//! for what the layers place: the root hub's layer value is its world TM,
//! an extra bone's is relative to its hub, arms in IK solve towards their
//! IK targets. Undecoded layer setups (several layers, key-freeform) are
//! refused rather than misread.

use maxfs_scene::eval::modifier::skin;
use maxfs_scene::eval::rigs::cat::{layers, limb, records};
use maxfs_scene::eval::{Mat43, SceneEval, Vec3};
use maxfs_tests::node_named;
use maxfs_tests::rewrite::SceneEdit;
use maxfs_tests::tm_diff;

const FILE: &str = "max/cat/LD33_Character.max";
/// CATParentTrans chunk 4: the CAT mode (0 setup, else animation).
const CPT_MODE: u16 = 4;
/// CATClipMatrix3 chunks: layer count and flags.
const CLIP_NUM_LAYERS: u16 = 1;
const CLIP_FLAGS: u16 = 3;
/// World translation from each Skin bind to the bone's current setup pose
/// (eval_cat.rs, measured from stored values).
const RIG_SHIFT: [f64; 3] = [0.0, 0.9911, 0.4756];

fn edit() -> SceneEdit {
    SceneEdit::open(FILE)
}

fn cat_parent_trans(e: &SceneEdit) -> usize {
    let n = e.node("Base Human");
    e.reference(n, 0)
}

fn animation_mode(mut e: SceneEdit) -> SceneEval {
    let cpt = cat_parent_trans(&e);
    e.set_leaf(cpt, CPT_MODE, 1u32.to_le_bytes().to_vec());
    SceneEval::from_document(e.finish()).expect("scene")
}

/// The stored Skin bind of `bone` moved by the rig shift, if it has one.
fn bind_of(eval: &SceneEval, bone: usize) -> Option<Mat43> {
    let b = node_named(&eval.graph, "Box001");
    let sk = match skin::node_skin(eval, b) {
        Some(Ok(s)) => s,
        other => panic!("{FILE}: Box001 has no readable Skin: {other:?}"),
    };
    let mut m = sk
        .bones
        .iter()
        .find(|s| s.node == Some(bone))
        .and_then(|s| s.init_tm)?;
    let p = m.0[3].to_array();
    m.0[3] = Vec3(
        p[0] + RIG_SHIFT[0],
        p[1] + RIG_SHIFT[1],
        p[2] + RIG_SHIFT[2],
    );
    Some(m)
}

/// The rig's height: the Skin binds' vertical extent (head bone to toes).
fn height(eval: &SceneEval) -> f64 {
    let b = node_named(&eval.graph, "Box001");
    let Some(Ok(sk)) = skin::node_skin(eval, b) else {
        panic!("{FILE}: Box001 has no readable Skin")
    };
    let z: Vec<f64> = sk
        .bones
        .iter()
        .filter_map(|s| Some(s.init_tm?.rows()[3][2]))
        .collect();
    z.iter().cloned().fold(f64::MIN, f64::max) - z.iter().cloned().fold(f64::MAX, f64::min)
}

/// The CATParent node's stored translation (its PRS: (0, 0, −2.3)).
fn cat_parent_translation(eval: &SceneEval) -> Vec3 {
    eval.world_tm(node_named(&eval.graph, "Base Human"), 0).0[3]
}

/// The layer controller (CATClipMatrix3) of the bone on `node`.
fn layer_of(eval: &SceneEval, node: &str) -> usize {
    let ctl = eval
        .tm_controller(node_named(&eval.graph, node))
        .expect("a controller");
    records::layer_trans(eval, ctl).expect("a CATClipMatrix3")
}

const TICKS: [i32; 3] = [0, 1_237, 96_000];

/// In animation mode the root hub's layer value is its world TM, the
/// procedural spine follows the tip hub's layer, the head hangs at the
/// neck's end and its extra bone takes `layer · head`. LD33's layers were
/// filled from the setup pose with the CATParent at the origin (it now
/// stands at (0, 0, −2.3)): every upper-body bone sits at its Skin bind
/// moved by the rig shift and back by the CATParent's translation — one
/// offset for all, rotation elements within 1e-4 — and HeadBone001 (moved
/// after skinning) keeps its bind's rotation.
#[test]
fn ld33_animation_layers_place_the_upper_body_at_the_binds() {
    let eval = animation_mode(edit());
    let tol = 1e-4 * height(&eval) + 1e-4;
    let cp = cat_parent_translation(&eval);
    assert!((cp.2 + 2.3).abs() < 1e-4, "CATParent at {cp:?}");
    let mut worst = (0.0f64, 0.0f64);
    for t in TICKS {
        for bone in [
            "Pelvis",
            "Spine1",
            "Spine2",
            "Spine3",
            "Ribcage",
            "Head",
            "HeadBone001",
        ] {
            let name = format!("Base Human{bone}");
            let n = node_named(&eval.graph, &name);
            let ours = match eval.direct_world(n, t) {
                Some(Ok(w)) => w,
                other => panic!("{name} at {t}: {other:?}"),
            };
            let mut want = bind_of(&eval, n).unwrap_or_else(|| panic!("no bind for {name}"));
            want.0[3] = want.0[3].minus(cp);
            let (dr, dp) = tm_diff(&ours, &want);
            assert!(dr < 1e-4, "{name} at {t}: rotation {dr:.3e}");
            if bone != "HeadBone001" {
                assert!(
                    dp < tol,
                    "{name} at {t}: position {dp:.3e} (tolerance {tol:.3e})"
                );
                worst.1 = worst.1.max(dp);
            }
            worst.0 = worst.0.max(dr);
        }
        // The neck (no Skin bone) is evaluated too: the head sits at its end.
        let neck = node_named(&eval.graph, "Base HumanNeck");
        let head = node_named(&eval.graph, "Base HumanHead");
        let (Some(Ok(_)), Some(Ok(_))) = (eval.direct_world(neck, t), eval.direct_world(head, t))
        else {
            panic!("neck or head not evaluated at {t}")
        };
    }
    println!(
        "LD33 in animation mode: worst rotation {:.2e}, position {:.2e}",
        worst.0, worst.1
    );
}

/// Animation-mode limbs (anim_limb.rs) against what the Skin binds still
/// pin down (eval_cat.rs): the collarbones (`layer · RotY(π/2 · LMR) ·
/// ribcage`) sit at their binds moved like the upper body; the legs, solved
/// by CAT's IK towards their platforms' layers, keep the parts independent
/// of the leg's bend — the foot's rotation (foot layer · platform turned
/// 180°) equals its bind's, the thigh starts at its bind moved like the
/// upper body, the knee and ankle sit at their parents' tips (stored
/// lengths; the knee moved by the calf layer's translation). The right
/// calf's layer keys a scale of 1 ± 1.1e-5 (f32 round-off): its axes are
/// taken without it, and the right leg holds the same checks.
#[test]
fn ld33_animation_layers_place_collarbones_and_legs() {
    let eval = animation_mode(edit());
    let h = height(&eval);
    let tol = 1e-4 * h + 1e-4;
    let cp = cat_parent_translation(&eval);
    let world = |name: &str, t: i32| -> Mat43 {
        match eval.direct_world(node_named(&eval.graph, name), t) {
            Some(Ok(w)) => w,
            other => panic!("{name} at {t}: {other:?}"),
        }
    };
    let bind = |name: &str| -> Mat43 {
        let mut b = bind_of(&eval, node_named(&eval.graph, name))
            .unwrap_or_else(|| panic!("no bind for {name}"));
        b.0[3] = b.0[3].minus(cp);
        b
    };
    let mut worst = [0.0f64; 4];
    for t in TICKS {
        for side in ["L", "R"] {
            let collar = format!("Base Human{side}Collarbone");
            let (dr, dp) = tm_diff(&world(&collar, t), &bind(&collar));
            assert!(
                dr < 1e-4 && dp < tol,
                "{collar} at {t}: {dr:.3e} / {dp:.3e}"
            );
            worst[0] = worst[0].max(dr);
            worst[1] = worst[1].max(dp);

            let foot = format!("Base Human{side}Foot");
            let (dr, _) = tm_diff(&world(&foot, t), &bind(&foot));
            assert!(dr < 1e-4, "{foot} at {t}: rotation {dr:.3e}");
            worst[2] = worst[2].max(dr);

            let thigh = format!("Base Human{side}Thigh");
            let tw = world(&thigh, t);
            let dp = tw.0[3].minus(bind(&thigh).0[3]).len();
            assert!(dp < tol, "{thigh} at {t}: origin {dp:.3e}");
            worst[3] = worst[3].max(dp);
            // The ankle at the calf's tip, the knee at the thigh's tip moved
            // by the calf layer's stored translation (the segments' stored
            // lengths, chunk 10).
            let calf = format!("Base Human{side}Calf");
            let cw = world(&calf, t);
            let calf_ctl = eval
                .tm_controller(node_named(&eval.graph, &calf))
                .expect("controller");
            let calf_layer = limb::bone_data_of(&eval, calf_ctl)
                .and_then(|d| records::layer_trans(&eval, d))
                .expect("the calf's CATClipMatrix3");
            let prs = eval.graph.objects[calf_layer]
                .references
                .iter()
                .find(|r| r.slot == 0)
                .and_then(|r| usize::try_from(r.target).ok())
                .expect("a layer");
            let offset = eval.prs_tm(prs, t).expect("a PRS layer").0[3].len();
            for (parent, pw, child, off) in
                [(&thigh, tw, cw, offset), (&calf, cw, world(&foot, t), 0.0)]
            {
                let ctl = eval
                    .tm_controller(node_named(&eval.graph, parent))
                    .expect("controller");
                let len = f64::from(records::cat_control(&eval, ctl).dims.expect("dims")[0]);
                let tip = pw.0[3].plus(pw.0[0].scale(len));
                let d = child.0[3].minus(tip).len();
                assert!(
                    (d - off).abs() < 1e-6 * h,
                    "{parent}'s child at {t}: {d:.3e} from its tip, layer offset {off:.3e}"
                );
            }
        }
    }
    println!(
        "LD33 animation-mode limbs: collarbones {:.2e} / {:.2e}, feet rotation {:.2e}, \
         thigh origins {:.2e}",
        worst[0], worst[1], worst[2], worst[3]
    );
}

/// Arms in IK, their IK targets and the toes in animation mode (anim_limb.rs):
/// LD33's arms have IK/FK ratio 0, so CAT solves them towards their
/// IKTarget nodes, whose layer value is their world TM, and the palm goes
/// to the IK target turned 180° about Y; a leg's first toe turns with the
/// leg's IK target (`layer · RotZ(π/2) · IK target`). The layers were
/// filled from the setup pose, where the arms' IK targets sat at the FK
/// palms' ends (eval_cat.rs): upper arms, forearms and palms sit at their
/// Skin binds moved like the upper body, the toes have their binds'
/// rotation and sit where their binds sit in their feet's binds, and
/// Box001's Skin, over all of them, evaluates.
#[test]
fn ld33_animation_mode_solves_arms_towards_their_ik_targets() {
    let eval = animation_mode(edit());
    let tol = 1e-4 * height(&eval) + 1e-4;
    let cp = cat_parent_translation(&eval);
    let mut worst = (0.0f64, 0.0f64);
    for t in TICKS {
        for bone in [
            "LUpperarm",
            "LForearm",
            "LPalm",
            "RUpperarm",
            "RForearm",
            "RPalm",
            "LToe11",
            "RToe11",
        ] {
            let name = format!("Base Human{bone}");
            let n = node_named(&eval.graph, &name);
            let ours = match eval.direct_world(n, t) {
                Some(Ok(w)) => w,
                other => panic!("{name} at {t}: {other:?}"),
            };
            let mut want = bind_of(&eval, n).unwrap_or_else(|| panic!("no bind for {name}"));
            want.0[3] = want.0[3].minus(cp);
            let (dr, mut dp) = tm_diff(&ours, &want);
            if bone.contains("Toe") {
                // The legs' feet go where the IK puts them (their binds pin
                // only their rotation, above): a toe is checked in its
                // foot's frame, against its bind in the foot's bind.
                let foot_name = name.replace("Toe11", "Foot");
                let foot = node_named(&eval.graph, &foot_name);
                let fw = eval.world_tm(foot, t);
                let fb = bind_of(&eval, foot).unwrap_or_else(|| panic!("no bind for {foot_name}"));
                let local = |f: &Mat43, p: Vec3| {
                    let d = p.minus(f.0[3]);
                    Vec3(d.dot(f.0[0]), d.dot(f.0[1]), d.dot(f.0[2]))
                };
                dp = local(&fw, ours.0[3])
                    .minus(local(&fb, want.0[3].plus(cp)))
                    .len();
            }
            assert!(
                dr < 1e-4 && dp < tol,
                "{name} at {t}: {dr:.3e} / {dp:.3e} (tolerance 1e-4 / {tol:.3e})"
            );
            worst = (worst.0.max(dr), worst.1.max(dp));
        }
        for target in ["LIKTarget", "RIKTarget"] {
            let name = format!("Base Human{target}");
            assert!(
                matches!(
                    eval.direct_world(node_named(&eval.graph, &name), t),
                    Some(Ok(_))
                ),
                "{name} at {t} not evaluated"
            );
        }
    }
    let box001 = node_named(&eval.graph, "Box001");
    if let Some(Err(e)) = eval.mesh(box001, 0) {
        panic!("Box001's Skin: {e}");
    }
    println!(
        "LD33 animation-mode arms and toes: worst rotation {:.2e}, position {:.2e}",
        worst.0, worst.1
    );
}

/// Layer setups that do not hold together or whose meaning is not decoded
/// are refused, not misread: a controller with two layers under a
/// LayerRoot of one, key-freeform flags.
#[test]
fn undecoded_layer_setups_are_refused() {
    let base = animation_mode(edit());
    let pelvis_layer = layer_of(&base, "Base HumanPelvis");
    let flags = records::clip_matrix(&base, pelvis_layer)
        .expect("clip")
        .flags;
    let pelvis = node_named(&base.graph, "Base HumanPelvis");
    assert!(matches!(base.direct_world(pelvis, 0), Some(Ok(_))));

    let mut e = edit();
    e.set_leaf(cat_parent_trans(&e), CPT_MODE, 1u32.to_le_bytes().to_vec());
    e.set_leaf(pelvis_layer, CLIP_NUM_LAYERS, 2u32.to_le_bytes().to_vec());
    let two = SceneEval::from_document(e.finish()).expect("scene");
    match two.direct_world(pelvis, 0) {
        Some(Err(err)) => assert!(
            err.to_string().contains("2 layers where its LayerRoot"),
            "{err}"
        ),
        other => panic!("a layer count mismatch not refused: {other:?}"),
    }
    // The spine and head follow the pelvis: refused in turn.
    let head = node_named(&two.graph, "Base HumanHead");
    assert!(matches!(two.direct_world(head, 0), Some(Err(_))));

    let mut e = edit();
    e.set_leaf(cat_parent_trans(&e), CPT_MODE, 1u32.to_le_bytes().to_vec());
    let freeform = flags | records::CLIP_KEYFREEFORM;
    e.set_leaf(pelvis_layer, CLIP_FLAGS, freeform.to_le_bytes().to_vec());
    let ff = SceneEval::from_document(e.finish()).expect("scene");
    match ff.direct_world(pelvis, 0) {
        Some(Err(err)) => assert!(err.to_string().contains("layer flags"), "{err}"),
        other => panic!("key-freeform not refused: {other:?}"),
    }
}

/// Bezier Float (key-less: its value is leaf 0x2501 in container 0x7127).
const BEZIER_FLOAT: (u32, u32, u32) = (0x2007, 0, 0x9003);
/// NLAInfo chunk 2: the layer's flags (low three bits: its method).
const INFO_FLAGS: u16 = 2;
const ABSOLUTE: u32 = 1;
const RELATIVE: u32 = 0;

/// What the second layer of every bone other than the pelvis holds.
#[derive(Clone, Copy)]
enum Others {
    /// The identity Position/Rotation/Scale (the first layer's NLAInfo
    /// transform), and a constant 0 for LayerFloats: a relative layer that
    /// changes nothing.
    Identity,
    /// The bone's own first-layer controller: an absolute layer that
    /// changes nothing.
    Same,
}

/// A key-less Bezier Float of value `v`, copied from the first layer's
/// weight track (1.0).
fn new_float(e: &mut SceneEdit, template: usize, v: f32) -> usize {
    let class = e
        .graph
        .class_id(template)
        .expect("the weight track's class");
    assert_eq!((class.0, class.1), (BEZIER_FLOAT.0, BEZIER_FLOAT.1));
    let idx = e
        .class_index_of(class, BEZIER_FLOAT.2)
        .expect("Bezier Float class");
    let chunks = e.object_chunks(template);
    let f = e.add_object(idx, chunks);
    e.put_nested_leaf(f, &[0x7127], 0x2501, v.to_le_bytes().to_vec());
    f
}

/// LD33 in animation mode with a second layer through the writer: a new
/// NLAInfo copied from the first with `flags` (its method) and a global
/// weight track of `weight`, appended to the LayerRoot; every
/// CATClipMatrix3 and LayerFloat gets a second layer controller — the
/// pelvis's is the CATParent node's Position/Rotation/Scale (a known
/// transform the file stores), the others' per `others`.
fn two_layers(flags: u32, weight: f32, others: Others) -> SceneEval {
    let mut e = edit();
    let cpt = cat_parent_trans(&e);
    e.set_leaf(cpt, CPT_MODE, 1u32.to_le_bytes().to_vec());
    let cat_parent_prs = e.reference(cpt, 1);
    let root = e.reference(cpt, 2);
    let info0 = e.reference(root, 0);
    let weight0 = e.reference(info0, 0);
    let identity = e.reference(info0, 2);
    let w = new_float(&mut e, weight0, weight);
    let zero = new_float(&mut e, weight0, 0.0);
    let info_class = e.class_index(layers::LAYER_INFO).expect("LayerInfo class");
    let chunks = e.object_chunks(info0);
    let info1 = e.add_object(info_class, chunks);
    e.set_leaf(info1, INFO_FLAGS, flags.to_le_bytes().to_vec());
    e.set_reference(info1, 0, w as i32);
    e.set_reference(info1, 2, -1);
    e.set_leaf(root, CLIP_NUM_LAYERS, 2u32.to_le_bytes().to_vec());
    assert_eq!(e.append_reference(root, info1 as i32), 1);

    let base = animation_mode(edit());
    let pelvis_layer = layer_of(&base, "Base HumanPelvis");
    for i in 0..base.graph.objects.len() {
        let class = base.graph.class_id(i);
        let float = class == Some(layers::LAYER_FLOAT);
        if class != Some(records::CLIP_MATRIX3) && !float {
            continue;
        }
        let first = e.reference(i, 0);
        let second = match (i == pelvis_layer, others, float) {
            (true, ..) => cat_parent_prs,
            (false, Others::Same, _) => first,
            (false, Others::Identity, false) => identity,
            (false, Others::Identity, true) => zero,
        };
        e.set_leaf(i, CLIP_NUM_LAYERS, 2u32.to_le_bytes().to_vec());
        e.set_reference(i, 1, second as i32);
    }
    SceneEval::from_document(e.finish()).expect("scene")
}

/// The angle between the rotations of two matrices without scale.
fn angle_between(a: &Mat43, b: &Mat43) -> f64 {
    let trace: f64 = (0..3).map(|r| a.0[r].dot(b.0[r])).sum();
    ((trace - 1.0) / 2.0).clamp(-1.0, 1.0).acos()
}

/// What a pose must be: exactly a matrix, or halfway between two (the
/// position the midpoint, the rotation as far from one as from the other,
/// half the angle between them: a slerp by 0.5, whichever way round).
enum Want {
    Exactly(Mat43),
    Halfway(Mat43, Mat43),
}

/// Several layers (layers.rs) on LD33 with a second layer added through the
/// writer (`two_layers`), against the Skin binds (as in the tests above)
/// and the CATParent's stored Position/Rotation/Scale C (translation
/// (0, 0, −2.3), turned 180°), the pelvis's second layer. With B the
/// pelvis's single-layer pose (its bind moved):
/// - a relative layer of weight 1 applies C on top: `C · B`;
/// - at weight 0.5 the pelvis lies halfway between B and `C · B`;
/// - disabled, it changes nothing;
/// - an absolute layer of weight 1 replaces the first (it is never read):
///   the pelvis is C; at weight 0.5 halfway between B and C (the others'
///   second layer repeats their first).
///
/// Each time the legs' LayerFloats (IK/FK ratio, IK position, target
/// align: the relative layer adds 0, the absolute one repeats the first)
/// still blend to the values the IK case needs exactly, so the left leg is
/// solved. A CATMotion layer is refused by name.
#[test]
fn ld33_second_layer_blends() {
    let single = animation_mode(edit());
    let tol = 1e-4 * height(&single) + 1e-4;
    let c = single.world_tm(node_named(&single.graph, "Base Human"), 0);
    let pelvis = node_named(&single.graph, "Base HumanPelvis");
    let mut b = bind_of(&single, pelvis).expect("pelvis bind");
    b.0[3] = b.0[3].minus(c.0[3]);
    let lfoot = node_named(&single.graph, "Base HumanLFoot");
    let cases = [
        (
            "relative, weight 1",
            two_layers(RELATIVE, 1.0, Others::Identity),
            Want::Exactly(c.then(&b)),
        ),
        (
            "relative, weight 0.5",
            two_layers(RELATIVE, 0.5, Others::Identity),
            Want::Halfway(b, c.then(&b)),
        ),
        (
            "relative, disabled",
            two_layers(RELATIVE | 1 << 4, 1.0, Others::Identity),
            Want::Exactly(b),
        ),
        (
            "absolute, weight 1",
            two_layers(ABSOLUTE, 1.0, Others::Same),
            Want::Exactly(c),
        ),
        (
            "absolute, weight 0.5",
            two_layers(ABSOLUTE, 0.5, Others::Same),
            Want::Halfway(b, c),
        ),
    ];
    let mut worst = (0.0f64, 0.0f64);
    for (what, eval, want) in cases {
        for t in TICKS {
            let got = match eval.direct_world(pelvis, t) {
                Some(Ok(w)) => w,
                other => panic!("{what}: pelvis at {t}: {other:?}"),
            };
            match &want {
                Want::Exactly(m) => {
                    let (dr, dp) = tm_diff(&got, m);
                    assert!(
                        dr < 1e-4 && dp < tol,
                        "{what}: pelvis at {t}: {dr:.3e} / {dp:.3e}"
                    );
                    worst = (worst.0.max(dr), worst.1.max(dp));
                }
                Want::Halfway(x, y) => {
                    let mid = x.0[3].plus(y.0[3]).scale(0.5);
                    let dp = got.0[3].minus(mid).len();
                    let whole = angle_between(x, y);
                    let (ax, ay) = (angle_between(&got, x), angle_between(&got, y));
                    assert!(
                        dp < tol
                            && (ax - whole / 2.0).abs() < 1e-4
                            && (ay - whole / 2.0).abs() < 1e-4,
                        "{what}: pelvis at {t}: {dp:.3e} from the midpoint, {ax:.4} and {ay:.4} \
                         rad from the ends {whole:.4} apart"
                    );
                    let da = (ax - whole / 2.0).abs().max((ay - whole / 2.0).abs());
                    worst = (worst.0.max(da), worst.1.max(dp));
                }
            }
            // The leg is solved in IK only for IK/FK ratio 0, IK position 3
            // and target align 1 exactly: the LayerFloats blend to those.
            match eval.direct_world(lfoot, t) {
                Some(Ok(_)) => {}
                other => panic!("{what}: left foot at {t}: {other:?}"),
            }
        }
    }
    println!(
        "LD33 with a second layer: worst rotation {:.2e} (element or angle), position {:.2e}",
        worst.0, worst.1
    );
    let motion = two_layers(4, 1.0, Others::Identity);
    match motion.direct_world(pelvis, 0) {
        Some(Err(e)) => assert!(e.to_string().contains("CATMotion"), "{e}"),
        other => panic!("a CATMotion layer not refused: {other:?}"),
    }
}
