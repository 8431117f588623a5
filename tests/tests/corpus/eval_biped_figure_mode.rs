//! A Biped saved in figure mode (system chunk 0x0109 = 1) shows its figure at
//! every tick, whatever its keytracks. biped/SeanConway_Character is the
//! corpus's one such rig (it has no keys at all and no horizontal, vertical
//! or turn keys). Its Skin — one modifier with three bones (Bip001 R
//! Finger0, 2, 1), instanced on nine meshes — is the in-file oracle: at any
//! tick each Biped bone it uses must sit at the bone TM the Skin stored when the
//! bone was added (ISkin::GetBoneInitTM) — within 1e-4 per rotation element
//! and 1e-4 of the rig's height — and, every bone being at its bind, each
//! skinned mesh must deform to the mesh below the Skin placed by the Skin's
//! stored mesh TM (ISkin::GetSkinInitTM).

use maxfs_scene::eval::modifier::skin;
use maxfs_scene::eval::{SceneEval, Stack};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::tm_diff;

const FILE: &str = "biped/SeanConway_Character.max";
/// Ticks compared: the first frame, an odd tick and one far past any range.
const TICKS: [i32; 3] = [0, 1_237, 96_000];

fn scene() -> SceneEval {
    let doc = Document::open(&corpus_dir().join("max").join(FILE)).expect("max file");
    SceneEval::from_document(doc).expect("scene")
}

/// Whether the node's base object is a Biped Object (a body part, whose
/// mesh is refused by name: eval_biped_object.rs).
fn biped_object(eval: &SceneEval, node: usize) -> bool {
    eval.node_object(node)
        .and_then(|b| eval.graph.objects[b].class.as_ref())
        .is_some_and(|c| c.class_id == maxfs_scene::eval::objects::biped_object::BIPED_OBJECT)
}

/// The mesh nodes skinned by a Skin modifier: (node, name, its Skin). The
/// file's one Skin modifier is instanced on 52 nodes (see
/// `one_skin_is_instanced_on_52_nodes`); the 43 whose base object is a Biped
/// Object (refused by name) or a camera target build no mesh here and are
/// left out.
fn skinned(eval: &SceneEval) -> Vec<(usize, String, skin::Skin)> {
    eval.graph
        .nodes()
        .filter(|(o, _)| eval.mesh(o.index, 0).is_some() && !biped_object(eval, o.index))
        .filter_map(|(o, n)| match skin::node_skin(eval, o.index)? {
            Ok(s) => Some((o.index, n.name.clone(), s)),
            Err(e) => panic!("{}: {e}", n.name),
        })
        .collect()
}

fn height(eval: &SceneEval) -> f64 {
    eval.biped_rigs()
        .values()
        .find_map(|r| {
            let r = r.as_ref().ok()?;
            r.structure.figure_mode.then_some(r.figure.height?)
        })
        .expect("a rig saved in figure mode, with a height")
}

/// Every Biped bone a Skin uses, at every tick, is at its stored bind TM, and
/// none is refused.
#[test]
fn figure_mode_bones_sit_at_the_skin_binds_at_any_tick() {
    let eval = scene();
    let height = height(&eval);
    let tol = 1e-4 * height;
    let (mut matched, mut refused, mut failures) = (0usize, Vec::new(), Vec::new());
    let (mut worst_rot, mut worst_pos) = (0.0f64, 0.0f64);
    let all = skinned(&eval);
    let skins = all.len();
    for (_, node_name, sk) in &all {
        for bone in &sk.bones {
            let (Some(b), Some(init)) = (bone.node, bone.init_tm) else {
                continue;
            };
            let name = eval.graph.objects[b]
                .node
                .as_ref()
                .map_or(String::new(), |x| x.name.clone());
            for t in TICKS {
                match eval.direct_world(b, t) {
                    None => failures.push(format!("{}: {name} is no Biped bone", node_name)),
                    Some(Err(e)) => refused.push(format!("{name}: {e}")),
                    Some(Ok(m)) => {
                        let (dr, dp) = tm_diff(&m, &init);
                        worst_rot = worst_rot.max(dr);
                        worst_pos = worst_pos.max(dp);
                        if dr > 1e-4 || dp > tol {
                            failures.push(format!(
                                "{} {name} tick {t}: rotation off by {dr:.2e}, position by {dp:.2e}",
                                node_name
                            ));
                        } else {
                            matched += 1;
                        }
                    }
                }
            }
        }
    }
    println!(
        "{FILE}: {skins} Skins, {matched} bone·ticks at their bind TM (worst rotation element {worst_rot:.2e}, position {worst_pos:.2e}, height {height:.2}); refused: {refused:?}"
    );
    assert_eq!(skins, 9, "{FILE}: nine skinned meshes");
    assert!(refused.is_empty(), "{refused:?}");
    assert!(matched >= 3 * 9, "{matched} bone·ticks compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Each of the nine skinned meshes deforms at any tick: with every bone at its bind,
/// the deformed vertices (placed by the node's object TM) are the vertices
/// below the Skin placed by the Skin's stored mesh TM, in order.
#[test]
fn figure_mode_skins_deform_to_their_bind_mesh() {
    let eval = scene();
    let height = height(&eval);
    let (mut worst, mut vertices, mut failures) = (0.0f64, 0usize, Vec::new());
    let mut meshes = 0;
    for (node, node_name, sk) in skinned(&eval) {
        let bind = sk.mesh_init_tm.expect("a stored mesh TM");
        for t in TICKS {
            let ours = match eval.mesh(node, t) {
                Some(Ok(m)) => m,
                other => {
                    failures.push(format!("{} tick {t}: not deformed: {other:?}", node_name));
                    continue;
                }
            };
            let below = match eval.mesh_with(node, t, Stack::Without(sk.modifier)) {
                Some(Ok(m)) => m,
                other => panic!("{}: no mesh below the Skin: {other:?}", node_name),
            };
            assert_eq!(ours.vertices.len(), below.vertices.len(), "{}", node_name);
            let tm = eval.object_tm(node, t);
            for (p, q) in ours.vertices.iter().zip(&below.vertices) {
                let d = tm.transform_point(*p).minus(bind.transform_point(*q)).len();
                worst = worst.max(d);
            }
            vertices += ours.vertices.len();
            meshes += 1;
        }
    }
    println!(
        "{FILE}: {meshes} skinned mesh·ticks, {vertices} vertices, worst {:.2e} × height (height {height:.2})",
        worst / height
    );
    assert_eq!(meshes, 9 * TICKS.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        worst <= 1e-4 * height,
        "worst vertex {:.2e} × height",
        worst / height
    );
}

/// `skin::node_skin` finds a Skin on 52 nodes of this file, 43 of them not
/// meshes (42 Biped Objects and PhysCamera001.Target). That is the file's
/// content, not a lookup through another node: every one of the 52 nodes
/// shows a derived object (its reference slot 1) whose own reference list
/// (chunk 0x2034) starts with the same Skin modifier, each with its own
/// ModApp local data (0 vertices on the camera target, 6 on Bip001, 140 on
/// Head) — one Skin instanced on everything that was selected.
#[test]
fn one_skin_is_instanced_on_52_nodes() {
    let eval = scene();
    let (mut with_skin, mut modifiers, mut meshes) = (0usize, Vec::new(), 0usize);
    let mut refused_parts = 0usize;
    for (o, n) in eval.graph.nodes() {
        let Some(sk) = skin::node_skin(&eval, o.index) else {
            continue;
        };
        let sk = sk.unwrap_or_else(|e| panic!("{}: {e}", n.name));
        // The Skin sits in this node's own derived object.
        let derived = o
            .references
            .iter()
            .find(|r| r.slot == 1)
            .and_then(|r| usize::try_from(r.target).ok())
            .expect("a node object");
        assert!(
            eval.graph.objects[derived]
                .references
                .iter()
                .any(|r| usize::try_from(r.target).ok() == Some(sk.modifier)),
            "{}: the Skin is not in its own derived object",
            n.name
        );
        with_skin += 1;
        match eval.mesh(o.index, 0) {
            Some(Ok(_)) => meshes += 1,
            // Biped body parts are refused by name (eval_biped_object.rs).
            Some(Err(_)) if biped_object(&eval, o.index) => refused_parts += 1,
            Some(Err(e)) => panic!("{}: {e}", n.name),
            None => {}
        }
        if !modifiers.contains(&sk.modifier) {
            modifiers.push(sk.modifier);
        }
    }
    println!(
        "{FILE}: {with_skin} nodes with a Skin, {meshes} of them meshes, modifiers {modifiers:?}"
    );
    assert_eq!(
        (with_skin, meshes, refused_parts, modifiers.len()),
        (52, 9, 42, 1)
    );
}

/// The Skin is instanced on 42 Biped Objects too (`one_skin_is_instanced_on_52_nodes`),
/// and each of their ModApps stored the node's object TM when the Skin was
/// added (local data 0x0010, ISkin::GetSkinInitTM): a second in-file oracle,
/// for every body part the Skin was put on, the left arm among them (its
/// halves are not the right's mirror: other upper arm and forearm lengths,
/// elbow, upper arm, hand and finger quaternions, finger structure). At any
/// tick each such node's object TM (its stored object offset times our
/// world TM) must be the stored one: each of the first three rows within
/// 1e-4 relative to the stored row's length (the offset scales the box),
/// the position within 1e-4 × height.
#[test]
fn biped_objects_sit_at_the_skins_stored_mesh_tms() {
    let eval = scene();
    let height = height(&eval);
    let tol = 1e-4 * height;
    let (mut matched, mut left_arm, mut failures) = (0usize, Vec::new(), Vec::new());
    let (mut worst_rot, mut worst_pos) = (0.0f64, 0.0f64);
    for (o, n) in eval.graph.nodes() {
        let Some(sk) = skin::node_skin(&eval, o.index) else {
            continue;
        };
        let sk = sk.unwrap_or_else(|e| panic!("{}: {e}", n.name));
        let Some(stored) = sk.mesh_init_tm else {
            failures.push(format!("{}: no stored mesh TM", n.name));
            continue;
        };
        for t in TICKS {
            let world = match eval.direct_world(o.index, t) {
                None => break, // not a Biped body part: a mesh or the camera target
                Some(Err(e)) => {
                    failures.push(format!("{} tick {t}: not evaluated: {e}", n.name));
                    continue;
                }
                Some(Ok(m)) => m,
            };
            let ours = eval.offset_tm(o.index).then(&world);
            let rot = (0..3)
                .map(|r| ours.0[r].minus(stored.0[r]).len() / stored.0[r].len())
                .fold(0.0f64, f64::max);
            let pos = ours.0[3].minus(stored.0[3]).len();
            worst_rot = worst_rot.max(rot);
            worst_pos = worst_pos.max(pos);
            if rot > 1e-4 || pos > tol {
                failures.push(format!(
                    "{} tick {t}: rows off by {rot:.2e} (relative), position by {pos:.2e}",
                    n.name
                ));
            } else {
                matched += 1;
                if t == TICKS[0]
                    && n.name.starts_with("Bip001 L ")
                    && !n.name.contains("Thigh")
                    && !n.name.contains("Calf")
                    && !n.name.contains("Foot")
                {
                    left_arm.push(n.name.clone());
                }
            }
        }
    }
    println!(
        "{FILE}: {matched} Biped Object·ticks at the Skin's stored mesh TM (worst row {worst_rot:.2e} relative, position {:.2e} × height, height {height:.2}); left arm: {left_arm:?}",
        worst_pos / height
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(matched, 42 * TICKS.len(), "42 Biped Objects at every tick");
    // The left clavicle, upper arm, forearm, hand and 15 finger links.
    assert_eq!(left_arm.len(), 19, "{left_arm:?}");
}
