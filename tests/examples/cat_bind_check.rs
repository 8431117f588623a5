//! Measures CAT bones against the Skin binds of the same file: `cargo run
//! --release -p maxfs-tests --example cat_bind_check -- <file.max> [tick]`.
//! For every Skin in the file and every live bone of it that is a CAT node:
//! our world TM at `tick` (default 0) against the bind TM the Skin stored
//! (largest rotation element and position component), or the reason the bone
//! is refused. Binds taken in the rig's current setup pose are a reference
//! for setup-mode rules (docs/cat.md); binds taken elsewhere show as a
//! constant offset on every bone.

use maxfs_scene::eval::modifier::skin;
use maxfs_scene::eval::rigs::cat::records;
use maxfs_tests::tm_diff;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: cat_bind_check <file.max> [tick]");
        std::process::exit(2);
    }
    let tick: i32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let eval = maxfs_tests::eval_or_exit(&args[1]);
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
            let is_cat = eval
                .tm_controller(b)
                .is_some_and(|c| records::bone_class(&eval, c).is_some());
            if !is_cat {
                continue;
            }
            let name = eval.graph.node_name(b).to_string();
            match eval.direct_world(b, tick) {
                Some(Err(e)) => println!("  {name:40} refused: {e}"),
                _ => {
                    let (dr, dp) = tm_diff(&eval.world_tm(b, tick), &bind);
                    let o = bind.0[3].to_array();
                    println!(
                        "  {name:40} rot {dr:.2e} pos {dp:.2e}  (bind origin {:.3} {:.3} {:.3})",
                        o[0], o[1], o[2]
                    );
                }
            }
        }
    }
}
