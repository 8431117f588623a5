//! Measures a Biped take against an FBX of the same scene: `cargo run
//! --release -p maxfs-tests --example biped_fbx_check -- <file.max>
//! <file.fbx> [bone substring to print] [--base-layer] [--shift=x,y,z] [--nodes=PREFIX] [--height=H]`. For every FBX node
//! named `B_*` or `Bip01*` that the .max evaluates directly (Biped bones and
//! the Link-Constrained skin bones), at every frame (30 fps) of the FBX's
//! last take: whether it evaluates, with which reason it is refused, and how
//! far our world TM is from the FBX's (read with ufbx in Max's axes and the
//! file's unit; both on axes orthonormalized X first, and a bone under a
//! stretched FBX parent not compared — as eval_biped_motion.rs does). Prints
//! per bone the frames compared, over tolerance (rotation element 1e-3,
//! position 1e-3 × the rig height) and refused, then per frame whether every
//! bone matched. Then every skinned mesh of the FBX against our Skin at
//! every frame its mesh evaluates: the worst nearest-neighbour distance of
//! the vertex sets both ways (ufbx's skinning of the FBX's own clusters),
//! the vertices weighted on a stretched FBX bone or one under it left out on
//! both sides (eval_biped_skin.rs). Used for the measurements on the biped-ld35 authors' public
//! takes that the corpus does not hold (docs/biped.md).

#[path = "../dev/fbx.rs"]
mod fbx_dev;

use std::collections::BTreeMap;

use std::collections::HashSet;

use maxfs_scene::eval::core::coverage;
use maxfs_scene::eval::modifier::skin;
use maxfs_scene::eval::{Mat43, SceneEval, Vec3};
use maxfs_scene::settings;
use maxfs_tests::tm_diff;

use fbx_dev::{stretched_ancestor, to_mat, unstretched};

/// Names of the FBX nodes stretched (X axis off unit length by 1e-5) or under
/// a stretched node.
fn stretched_bones(scene: &ufbx::Scene) -> HashSet<String> {
    let stretched = |m: &ufbx::Matrix| {
        ((m.m00 * m.m00 + m.m10 * m.m10 + m.m20 * m.m20).sqrt() - 1.0).abs() > 1e-5
    };
    scene
        .nodes
        .iter()
        .filter(|n| stretched(&n.node_to_world) || stretched_ancestor(n))
        .map(|n| n.element.name.to_string())
        .collect()
}

fn worst_nearest(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter()
        .map(|p| {
            b.iter()
                .map(|q| (0..3).map(|i| (p[i] - q[i]).powi(2)).sum::<f64>())
                .fold(f64::INFINITY, f64::min)
                .sqrt()
        })
        .fold(0.0, f64::max)
}

/// Our Skin of the node named like an FBX skinned mesh against ufbx's
/// skinning at every frame: (frames compared, refused with the first
/// reason, worst distance, vertex·frames left out under stretch).
fn check_skin(
    eval: &SceneEval,
    scene: &ufbx::Scene,
    stack: &ufbx::AnimStack,
    frames: i64,
    base: bool,
    shift: Vec3,
    fnode: &ufbx::Node,
) -> Result<(usize, usize, Option<String>, f64, usize), String> {
    let name = fnode.element.name.to_string();
    let (o, _) = eval
        .graph
        .nodes()
        .find(|(_, n)| n.name == name)
        .ok_or("not in the .max")?;
    let our_skin = match skin::node_skin(eval, o.index) {
        Some(Ok(s)) => s,
        other => return Err(format!("no readable Skin ({other:?})")),
    };
    let bone_name = |b: u32| -> Option<String> {
        let node = our_skin.bones.get(b as usize)?.node?;
        Some(eval.graph.objects.get(node)?.node.as_ref()?.name.clone())
    };
    let (mut compared, mut refused, mut first, mut worst, mut skipped) = (0, 0, None, 0.0f64, 0);
    for f in 0..=frames {
        let time = stack.time_begin + f as f64 / 30.0;
        let tick = (time * 4800.0).round() as i32;
        let ours = match layered(eval, base, || eval.mesh(o.index, tick)) {
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                refused += 1;
                first.get_or_insert(format!("frame {f}: {e}"));
                continue;
            }
            None => return Err("no mesh".into()),
        };
        let opts = ufbx::EvaluateOpts {
            evaluate_skinning: true,
            ..Default::default()
        };
        let s = ufbx::evaluate_scene(scene, &stack.anim, time, opts)
            .map_err(|e| e.description.to_string())?;
        let fb = s
            .nodes
            .iter()
            .find(|n| n.element.name.as_ref() == name)
            .ok_or("node not in the evaluated FBX")?;
        let fmesh = fb.mesh.as_ref().ok_or("no FBX mesh")?;
        let theirs: Vec<[f64; 3]> = fmesh
            .skinned_position
            .values
            .iter()
            .map(|v| {
                let w = if fmesh.skinned_is_local {
                    ufbx::transform_position(&fb.geometry_to_world, *v)
                } else {
                    *v
                };
                [w.x + shift.0, w.y + shift.1, w.z + shift.2]
            })
            .collect();
        let stretched = stretched_bones(&s);
        let mut their_skip = vec![false; theirs.len()];
        for c in fmesh.skin_deformers.iter().flat_map(|d| d.clusters.iter()) {
            if !c
                .bone_node
                .as_ref()
                .is_some_and(|b| stretched.contains(b.element.name.as_ref()))
            {
                continue;
            }
            for (&v, &w) in c.vertices.iter().zip(c.weights.iter()) {
                if let Some(x) = their_skip.get_mut(v as usize).filter(|_| w > 0.0) {
                    *x = true;
                }
            }
        }
        let tm = eval.object_tm(o.index, tick);
        let mine: Vec<[f64; 3]> = ours
            .vertices
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                !our_skin.vertices.get(*i).is_some_and(|ws| {
                    ws.iter().any(|&(b, w)| {
                        w > 0.0 && bone_name(b).is_some_and(|n| stretched.contains(&n))
                    })
                })
            })
            .map(|(_, v)| {
                let p = tm.transform_point(*v);
                [p.0, p.1, p.2]
            })
            .collect();
        let kept: Vec<[f64; 3]> = theirs
            .iter()
            .zip(&their_skip)
            .filter(|(_, s)| !**s)
            .map(|(p, _)| *p)
            .collect();
        skipped += theirs.len() - kept.len();
        if kept.is_empty() || mine.is_empty() {
            continue;
        }
        worst = worst.max(worst_nearest(&kept, &mine).max(worst_nearest(&mine, &kept)));
        compared += 1;
    }
    Ok((compared, refused, first, worst, skipped))
}

fn layered<R>(eval: &SceneEval, base: bool, f: impl FnOnce() -> R) -> R {
    if base {
        eval.in_base_layer(f)
    } else {
        f()
    }
}

/// What one bone did at one frame.
enum Outcome {
    Match,
    Differs(f64, f64),
    Refused(String),
    UnderStretch,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!(
            "usage: biped_fbx_check <file.max> <file.fbx> [bone substring to print] [--base-layer] [--shift=x,y,z] [--nodes=PREFIX] [--height=H]"
        );
        std::process::exit(2);
    }
    let base = args.iter().any(|a| a == "--base-layer");
    // `--nodes=PREFIX`: compare the FBX nodes whose name starts with PREFIX
    // through `world_tm` whatever their controller (plain bone rigs: the
    // authors' Green and Blue), refusals from `coverage::tm_gaps_at`.
    let prefix = args.iter().find_map(|a| a.strip_prefix("--nodes="));
    // `--shift=x,y,z`: a constant world shift of the FBX rig (`ours = fbx +
    // shift`), as Red@Run's (eval_biped_motion.rs).
    let shift = args
        .iter()
        .find_map(|a| a.strip_prefix("--shift="))
        .map(|s| {
            let v: Vec<f64> = s.split(',').filter_map(|x| x.parse().ok()).collect();
            Vec3(
                v.first().copied().unwrap_or(0.0),
                v.get(1).copied().unwrap_or(0.0),
                v.get(2).copied().unwrap_or(0.0),
            )
        })
        .unwrap_or(Vec3(0.0, 0.0, 0.0));
    let show = args.get(3).filter(|a| !a.starts_with("--")).cloned();
    let eval = maxfs_tests::eval_or_exit(&args[1]);
    let metres =
        settings::system_unit(&eval.doc, &eval.graph).map_or(0.0254, |u| u.metres_per_unit);
    let scene = match fbx_dev::load_in_max_axes(&args[2], metres) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}: {e}", args[2]);
            std::process::exit(1);
        }
    };
    let Some(stack) = scene.anim_stacks.last() else {
        eprintln!("{}: no take", args[2]);
        std::process::exit(1);
    };
    // `--height=H`: the size positions are measured against when the scene
    // holds no Biped (whose structural height is used otherwise).
    let height = args
        .iter()
        .find_map(|a| a.strip_prefix("--height=")?.parse::<f64>().ok())
        .or_else(|| {
            eval.biped_rigs()
                .values()
                .find_map(|r| r.as_ref().ok()?.figure.height)
        })
        .unwrap_or(1.0);
    let tol = 1e-3 * height;
    let frames = ((stack.time_end - stack.time_begin) * 30.0).round() as i64;
    println!(
        "{}: {} frames from tick {} (height {height:.3}, position tolerance {tol:.2e}{})",
        args[2],
        frames + 1,
        (stack.time_begin * 4800.0).round(),
        if base { ", base layer" } else { "" }
    );
    let evaluated: Vec<ufbx::SceneRoot> = (0..=frames)
        .map(|f| {
            let time = stack.time_begin + f as f64 / 30.0;
            ufbx::evaluate_scene(&scene, &stack.anim, time, Default::default())
                .expect("FBX evaluates")
        })
        .collect();
    let mut per_frame: BTreeMap<i64, (usize, usize, usize)> = BTreeMap::new();
    let (mut worst_r, mut worst_p) = (0.0f64, 0.0f64);
    for fnode in scene.nodes.iter() {
        let name = fnode.element.name.to_string();
        let wanted = match prefix {
            Some(p) => name.starts_with(p),
            None => name.starts_with("B_") || name.starts_with("Bip01"),
        };
        if !wanted {
            continue;
        }
        let Some((o, _)) = eval.graph.nodes().find(|(_, n)| n.name == name) else {
            println!("{name:28} not in the .max");
            continue;
        };
        if prefix.is_none() && eval.direct_world(o.index, 0).is_none() {
            continue;
        }
        let mut outcomes = Vec::new();
        for (f, s) in evaluated.iter().enumerate() {
            let f = f as i64;
            let time = stack.time_begin + f as f64 / 30.0;
            let tick = (time * 4800.0).round() as i32;
            let Some(fb) = s.nodes.iter().find(|n| n.element.name.as_ref() == name) else {
                continue;
            };
            let gaps = if prefix.is_some() {
                coverage::tm_gaps_at(&eval, o.index, tick)
            } else {
                Vec::new()
            };
            let outcome = match layered(&eval, base, || eval.direct_world(o.index, tick)) {
                Some(Err(why)) => Outcome::Refused(why.to_string()),
                _ if !gaps.is_empty() => Outcome::Refused(gaps.join("; ")),
                // Plain bone rigs are compared as they are, scale included
                // (their nodes scale, squash and stretch, in Max too).
                _ if prefix.is_none() && stretched_ancestor(fb) => Outcome::UnderStretch,
                _ => {
                    let ours = layered(&eval, base, || eval.world_tm(o.index, tick));
                    let theirs = to_mat(&fb.node_to_world);
                    let theirs = if prefix.is_some() {
                        theirs
                    } else {
                        unstretched(&theirs)
                    };
                    let [a, b, c, p] = theirs.0;
                    let theirs = Mat43([a, b, c, p.plus(shift)]);
                    let (dr, dp) = tm_diff(&ours, &theirs);
                    if show.as_deref().is_some_and(|s| name.contains(s)) {
                        let r = |m: &Mat43| {
                            format!("{:?}", m.rows().map(|r| r.map(|x| (x * 1e4).round() / 1e4)))
                        };
                        println!(
                            "  {name} f{f} t{tick} {dr:.2e} {dp:.2e}\n    ours {}\n    fbx  {}",
                            r(&ours),
                            r(&theirs)
                        );
                    }
                    worst_r = worst_r.max(dr);
                    worst_p = worst_p.max(dp);
                    if dr > 1e-3 || dp > tol {
                        Outcome::Differs(dr, dp)
                    } else {
                        Outcome::Match
                    }
                }
            };
            let e = per_frame.entry(f).or_default();
            match outcome {
                Outcome::Match | Outcome::UnderStretch => e.0 += 1,
                Outcome::Refused(_) => e.1 += 1,
                Outcome::Differs(..) => e.2 += 1,
            }
            outcomes.push((f, tick, outcome));
        }
        let matched = outcomes
            .iter()
            .filter(|o| matches!(o.2, Outcome::Match))
            .count();
        let stretch = outcomes
            .iter()
            .filter(|o| matches!(o.2, Outcome::UnderStretch))
            .count();
        let (mut wr, mut wp) = (0.0f64, 0.0f64);
        for o in &outcomes {
            if let Outcome::Differs(r, p) = o.2 {
                wr = wr.max(r);
                wp = wp.max(p);
            }
        }
        println!(
            "{name:28} match {matched:4}  stretch {stretch:3}  refused {:4}  differs {:4}{}",
            outcomes
                .iter()
                .filter(|o| matches!(o.2, Outcome::Refused(_)))
                .count(),
            outcomes
                .iter()
                .filter(|o| matches!(o.2, Outcome::Differs(..)))
                .count(),
            if wr > 0.0 || wp > 0.0 {
                format!("  (worst {wr:.2e} / {wp:.2e})")
            } else {
                String::new()
            }
        );
        // Runs of refused or differing frames with the first frame's detail.
        let mut run: Option<(i64, i64, i32, String)> = None;
        let flush = |run: &mut Option<(i64, i64, i32, String)>| {
            if let Some((a, b, t, why)) = run.take() {
                println!("    frames {a}–{b} (tick {t}…): {why}");
            }
        };
        for (f, tick, o) in &outcomes {
            let why = match o {
                Outcome::Refused(w) => format!("refused: {w}"),
                Outcome::Differs(r, p) => format!("differs {r:.2e} / {p:.2e}"),
                _ => {
                    flush(&mut run);
                    continue;
                }
            };
            let kind = |s: &str| s.split(' ').next().unwrap_or("").to_string();
            match &mut run {
                Some((_, b, _, w)) if *b + 1 == *f && kind(w) == kind(&why) => *b = *f,
                _ => {
                    flush(&mut run);
                    run = Some((*f, *f, *tick, why));
                }
            }
        }
        flush(&mut run);
    }
    for fnode in scene.nodes.iter() {
        let Some(m) = fnode.mesh.as_ref().filter(|m| !m.skin_deformers.is_empty()) else {
            continue;
        };
        let name = fnode.element.name.to_string();
        // The mesh's height (world z extent), the size `--height` may take
        // for a rig without a Biped.
        let (lo, hi) = m
            .vertices
            .iter()
            .map(|v| ufbx::transform_position(&fnode.geometry_to_world, *v).z)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), z| {
                (a.min(z), b.max(z))
            });
        println!("skin {name}: bind mesh {:.3} units tall", hi - lo);
        match check_skin(&eval, &scene, stack, frames, base, shift, fnode) {
            Ok((n, refused, first, worst, skipped)) => println!(
                "skin {name}: {n} frames compared, worst {:.2e} × height ({worst:.3e}); {refused} refused{}; {skipped} vertex·frames under a stretched FBX bone left out",
                worst / height,
                first.map(|f| format!(" (first: {f})")).unwrap_or_default()
            ),
            Err(e) => println!("skin {name}: {e}"),
        }
    }
    let all = per_frame.values().filter(|v| v.1 == 0 && v.2 == 0).count();
    let refused = per_frame.values().filter(|v| v.1 > 0 && v.2 == 0).count();
    let differs = per_frame.values().filter(|v| v.2 > 0).count();
    println!(
        "frames: {all} every bone matches, {refused} some bone refused (none differs), {differs} some bone differs; worst rotation {worst_r:.2e}, position {worst_p:.2e}"
    );
}
