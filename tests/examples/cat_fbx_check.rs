//! Measures CAT bones against an FBX of the same take: `cargo run --release
//! -p maxfs-tests --example cat_fbx_check -- <file.max> <file.fbx>`. For
//! every FBX node whose name is a CAT bone of the .max, at every frame of the
//! FBX's last take: the largest rotation-element and position difference
//! between our world TM and the FBX's (read with ufbx in Max's axes and the
//! file's unit), and the frames refused with their reason. Used for the
//! sweep measurements in docs/cat.md (files that cannot be in the corpus).
//! Optional: a bone substring to print every tenth frame of ("" for none),
//! and a comma-separated gate: only frames where the CAT bones whose names
//! hold one of those substrings agree with the FBX are compared.

#[path = "../dev/fbx.rs"]
mod fbx_dev;

use maxfs_scene::eval::rigs::cat::records;
use maxfs_scene::eval::Mat43;
use maxfs_scene::settings;
use maxfs_tests::tm_diff;

use fbx_dev::to_mat;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: cat_fbx_check <file.max> <file.fbx> [bone substring to print]");
        std::process::exit(2);
    }
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
    let frames = ((stack.time_end - stack.time_begin) * 30.0).round() as i64;
    let show = args.get(3).cloned().filter(|s| !s.is_empty());
    // Optional gate: only frames where every CAT node whose name holds one
    // of these comma-separated substrings agrees with the FBX (rotation
    // element 1e-4, position 1e-3) are compared, for takes re-exported
    // after the .max was saved again (the gate nodes pin the shared frames).
    let gate: Vec<String> = args
        .get(4)
        .map(|g| g.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    // The CAT nodes: those whose transform controller is a CAT controller.
    let cat: Vec<(usize, String)> = eval
        .graph
        .nodes()
        .filter(|(o, _)| {
            eval.tm_controller(o.index).is_some_and(|c| {
                records::bone_class(&eval, c).is_some() || records::cat_parent(&eval, c).is_some()
            })
        })
        .map(|(o, n)| (o.index, n.name.clone()))
        .collect();
    let evaluated: Vec<ufbx::SceneRoot> = (0..=frames)
        .map(|f| {
            let time = stack.time_begin + f as f64 / 30.0;
            ufbx::evaluate_scene(&scene, &stack.anim, time, Default::default())
                .expect("FBX evaluates")
        })
        .collect();
    let gated: Vec<bool> = evaluated
        .iter()
        .enumerate()
        .map(|(f, s)| {
            let tick = ((stack.time_begin + f as f64 / 30.0) * 4800.0).round() as i32;
            cat.iter()
                .filter(|(_, name)| gate.iter().any(|g| name.contains(g.as_str())))
                .all(|(node, name)| {
                    let Some(fnode) = s.nodes.iter().find(|n| n.element.name.as_ref() == name)
                    else {
                        return false;
                    };
                    if !matches!(eval.direct_world(*node, tick), Some(Ok(_)) | None) {
                        return false;
                    }
                    let (dr, dp) =
                        tm_diff(&eval.world_tm(*node, tick), &to_mat(&fnode.node_to_world));
                    dr <= 1e-4 && dp <= 1e-3
                })
        })
        .collect();
    if !gate.is_empty() {
        let kept: Vec<usize> = (0..gated.len()).filter(|&f| gated[f]).collect();
        println!(
            "gate {gate:?}: {} of {} frames kept {kept:?}",
            kept.len(),
            gated.len()
        );
    }
    let (mut worst_r, mut worst_p) = (0.0f64, 0.0f64);
    println!(
        "{} frames {}..={} (ticks {}..)",
        args[2],
        0,
        frames,
        (stack.time_begin * 4800.0).round()
    );
    for (node, name) in &cat {
        let (mut wr, mut wp, mut n, mut refused) = (0.0f64, 0.0f64, 0usize, None);
        let mut missing = false;
        for (f, s) in evaluated.iter().enumerate() {
            if !gated[f] {
                continue;
            }
            let time = stack.time_begin + f as f64 / 30.0;
            let tick = (time * 4800.0).round() as i32;
            let Some(fnode) = s.nodes.iter().find(|n| n.element.name.as_ref() == name) else {
                missing = true;
                break;
            };
            match eval.direct_world(*node, tick) {
                Some(Err(e)) => {
                    refused.get_or_insert((f, e.to_string()));
                    continue;
                }
                None => {}
                Some(Ok(_)) => {}
            }
            let ours = eval.world_tm(*node, tick);
            let theirs = to_mat(&fnode.node_to_world);
            if show.as_deref().is_some_and(|s| name.contains(s)) && f % 10 == 0 {
                let r = |m: &Mat43| {
                    format!(
                        "{:?}",
                        m.0.map(|v| v.to_array().map(|x| (x * 1e4).round() / 1e4))
                    )
                };
                println!(
                    "  {name} f{f}\n    ours {}\n    fbx  {}",
                    r(&ours),
                    r(&theirs)
                );
            }
            let (dr, dp) = tm_diff(&ours, &theirs);
            wr = wr.max(dr);
            wp = wp.max(dp);
            n += 1;
        }
        if missing {
            println!("{name:40} not in the FBX");
            continue;
        }
        worst_r = worst_r.max(wr);
        worst_p = worst_p.max(wp);
        print!("{name:40} frames {n:4} rot {wr:.2e} pos {wp:.2e}");
        if let Some((f, why)) = refused {
            print!("  refused from frame {f}: {why}");
        }
        println!();
    }
    println!("worst rot {worst_r:.2e} pos {worst_p:.2e}");
}
