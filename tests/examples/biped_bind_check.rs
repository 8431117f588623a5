//! The in-file oracle of eval_biped.rs on any file: `cargo run --release -p
//! maxfs-tests --example biped_bind_check -- FILE.max…`. For every Skin bone
//! that is a Biped bone (or Link-Constrained to one), our figure-mode world
//! TM against the initial TM the Skin stored, printed per bone (rotation
//! element and position differences, the tolerance 1e-4 × rig height).
//! Used for public rigs the corpus does not hold (docs/biped.md).

use maxfs_scene::eval::rigs::biped::{self, figure};
use maxfs_scene::eval::{modifier::skin, rigs::link_constraint};
use maxfs_scene::eval::{Mat43, SceneEval};
use maxfs_scene::Document;
use maxfs_tests::tm_diff;

fn main() {
    for path in std::env::args().skip(1) {
        let Ok(doc) = Document::open(std::path::Path::new(&path)) else {
            println!("{path}: does not open");
            continue;
        };
        let Ok(eval) = SceneEval::from_document(doc) else {
            println!("{path}: no scene");
            continue;
        };
        let rigs: Vec<_> = biped::rigs(&eval).into_iter().flatten().collect();
        let nodes: Vec<usize> = eval.graph.nodes().map(|(o, _)| o.index).collect();
        let (mut matched, mut off, mut refused) = (0, 0, 0);
        for n in nodes {
            let Some(Ok(sk)) = skin::node_skin(&eval, n) else {
                continue;
            };
            for bone in &sk.bones {
                let (Some(node), Some(init)) = (bone.node, bone.init_tm) else {
                    continue;
                };
                let find = |n: usize| {
                    rigs.iter()
                        .find_map(|r| r.bones.iter().find(|b| b.node == n).map(|b| (r, b)))
                };
                let link = eval
                    .tm_controller(node)
                    .and_then(|c| link_constraint::decode(&eval, c))
                    .and_then(Result::ok);
                let (found, offset) = match (find(node), link) {
                    (Some(b), _) => (b, Mat43::IDENTITY),
                    (None, Some(l)) => match (
                        l.target.and_then(find),
                        link_constraint::offset_tm(&eval, &l, 0),
                    ) {
                        (Some(b), Some(o)) => (b, o),
                        _ => continue,
                    },
                    (None, None) => continue,
                };
                let (rig, b) = found;
                let tol = 1e-4 * rig.figure.height.unwrap_or(1.0);
                match figure::world(rig, b.role) {
                    Err(why) => {
                        refused += 1;
                        println!("  {}: not evaluated: {why}", b.name);
                    }
                    Ok(m) => {
                        let (dr, dp) = tm_diff(&offset.then(&m), &init);
                        let (dr0, dp0) = tm_diff(&eval.world_tm(node, 0), &init);
                        println!("    at tick 0: rotation {dr0:.2e}, position {dp0:.2e}");
                        let ok = dr <= 1e-4 && dp <= tol;
                        if ok {
                            matched += 1;
                        } else {
                            off += 1;
                        }
                        println!(
                            "  {}: rotation {dr:.2e}, position {dp:.2e} (tolerance {tol:.2e}){}",
                            b.name,
                            if ok { "" } else { "  OFF" }
                        );
                    }
                }
            }
        }
        println!("{path}: {matched} match, {off} off, {refused} not evaluated");
    }
}
