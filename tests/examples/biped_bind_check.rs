//! The in-file oracle of eval_biped.rs on any file: `cargo run --release -p
//! maxfs-tests --example biped_bind_check -- FILE.max…`. For every Skin bone
//! that is a Biped bone (or Link-Constrained to one), our figure-mode world
//! TM and our tick-0 TM against the initial TM the Skin stored, printed per
//! bone (rotation element and position differences; tolerance 1e-4 × the
//! rig height). Used for public rigs the corpus does not hold
//! (docs/biped.md).

use maxfs_scene::eval::rigs::biped::{self, figure};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::biped_binds::skinned_biped_bones;
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
        let (bones, others) = skinned_biped_bones(&eval, &rigs);
        let (mut matched, mut off, mut refused) = (0, 0, 0);
        for sb in bones {
            let name = &sb.bone.name;
            let tol = 1e-4 * sb.rig.figure.height.unwrap_or(1.0);
            match figure::world(sb.rig, sb.bone.role) {
                Err(why) => {
                    refused += 1;
                    println!("  {name}: not evaluated: {why}");
                }
                Ok(m) => {
                    let (dr, dp) = tm_diff(&sb.offset.then(&m), &sb.init);
                    let (dr0, dp0) = tm_diff(&eval.world_tm(sb.bone.node, 0), &sb.init);
                    let ok = dr <= 1e-4 && dp <= tol;
                    if ok {
                        matched += 1;
                    } else {
                        off += 1;
                    }
                    println!(
                        "  {name}: figure: rotation {dr:.2e}, position {dp:.2e}; tick 0: rotation {dr0:.2e}, position {dp0:.2e} (tolerance {tol:.2e}){}",
                        if ok { "" } else { "  OFF" }
                    );
                }
            }
        }
        println!("{path}: {matched} match, {off} off, {refused} not evaluated, {others} skinned bones not driven by a Biped bone");
    }
}
