//! Measures IK chain joints against the Skin binds of the same file: `cargo
//! run --release -p maxfs-tests --example ik_bind_check -- <file.max> [tick]`.
//! Lists each IK chain (solver, joints, whether it builds) and, for every
//! Skin bone that is an IK joint or hangs under one, our world TM at `tick`
//! (default 0) against the bind TM the Skin stored (largest rotation element
//! and position component). A bind taken with the chain on in its current
//! pose is a reference for the solve (docs/ik.md, IK Limb chains).

use maxfs_scene::eval::modifier::skin;
use maxfs_scene::eval::rigs::ik::chain::scene_chains;
use maxfs_tests::tm_diff;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: ik_bind_check <file.max> [tick]");
        std::process::exit(2);
    }
    let tick: i32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let eval = maxfs_tests::eval_or_exit(&args[1]);
    let mut joints = Vec::new();
    for (ctl, chain) in scene_chains(&eval) {
        match chain {
            Ok(c) => {
                let names: Vec<&str> = c.joints.iter().map(|&j| eval.graph.node_name(j)).collect();
                let solve = c
                    .solve_at(&eval, tick)
                    .err()
                    .map_or("solved".into(), |e| e.to_string());
                println!(
                    "chain {} ({}): {names:?}: {solve}",
                    eval.graph.node_name(c.goal_node),
                    c.solver
                );
                joints.extend(c.joints);
            }
            Err(e) => println!("chain controller {ctl}: {e}"),
        }
    }
    let under_ik = |mut n: usize| loop {
        if joints.contains(&n) {
            return true;
        }
        match eval
            .graph
            .objects
            .get(n)
            .and_then(|o| o.node.as_ref())
            .and_then(|x| x.parent)
        {
            Some(p) => n = p as usize,
            None => return false,
        }
    };
    let nodes: Vec<usize> = eval.graph.nodes().map(|(o, _)| o.index).collect();
    for n in nodes {
        let Some(Ok(sk)) = skin::node_skin(&eval, n) else {
            continue;
        };
        println!("Skin on {}", eval.graph.node_name(n));
        for bone in &sk.bones {
            let (Some(b), Some(bind)) = (bone.node, bone.init_tm) else {
                continue;
            };
            if !under_ik(b) {
                continue;
            }
            let (r, p) = tm_diff(&eval.world_tm(b, tick), &bind);
            println!(
                "  {:24} rotation {r:.2e}  position {p:.3e}",
                eval.graph.node_name(b)
            );
        }
    }
}
