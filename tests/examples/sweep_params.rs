//! Prints the ParamBlock2 (reference 0) of every Sweep modifier
//! (0x25ebc866, 0x1f88220f) and classic Bevel Profile (0x7a4202d0,
//! 0x11961722) in the given `.max` files: node, stack, the
//! parameters by id, the modifier's references (with their classes) and its
//! chunk ids. `cargo run --release -p maxfs-tests --example sweep_params --
//! FILE…`. Used for docs/unseen-files.md's Sweep measurements (files not in
//! the corpus).

use maxfs_scene::eval::core::pblock;
use maxfs_scene::typed::ClassId;

const SWEEP: ClassId = ClassId(0x25eb_c866, 0x1f88_220f);
/// The classic Bevel Profile (its profile shape is a reference too).
const BEVEL_PROFILE: ClassId = ClassId(0x7a42_02d0, 0x1196_1722);

fn main() {
    maxfs_tests::for_each_stack(
        std::env::args().skip(1),
        |path, eval, _node, name, stack, _| {
            let mods: Vec<&str> = stack.iter().map(|a| a.name).collect();
            for (i, a) in stack
                .iter()
                .enumerate()
                .filter(|(_, a)| a.class == SWEEP || a.class == BEVEL_PROFILE)
            {
                let params = maxfs_tests::param_block2_text(eval, a.object, 0, false, "\n      ");
                let refs: Vec<String> = eval
                    .graph
                    .objects
                    .get(a.object)
                    .map(|o| {
                        o.references
                            .iter()
                            .map(|r| {
                                let class = usize::try_from(r.target)
                                    .ok()
                                    .and_then(|t| eval.graph.objects.get(t))
                                    .and_then(|t| t.class.as_ref())
                                    .map_or("-".to_string(), |c| c.name.clone());
                                format!("{}->{} {class}", r.slot, r.target)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let chunks: Vec<String> = eval
                    .chunks(a.object)
                    .iter()
                    .map(|c| format!("{:#06x}:{:02x?}", c.id, c.payload().unwrap_or(&[])))
                    .collect();
                let short = path.rsplit('/').next().unwrap_or(path);
                println!(
                    "{short}\t{name}\t{i}/{mods:?}\n    refs {refs:?}\n    chunks {chunks:?}\n      {params}"
                );
                // Point counts of every section shape (references 1 on).
                for slot in 1..=11 {
                    if let Some(obj) = pblock::reference(&eval.graph, a.object, slot) {
                        match maxfs_scene::eval::objects::shape::eval_shape(eval, obj, 0) {
                            Ok(s) => {
                                let n: Vec<String> = s
                                    .polylines
                                    .iter()
                                    .map(|l| {
                                        format!(
                                            "{}{}",
                                            l.pts.len(),
                                            if l.closed { "c" } else { "o" }
                                        )
                                    })
                                    .collect();
                                println!("    section ref {slot}: points {n:?}");
                            }
                            Err(e) => println!("    section ref {slot}: {e}"),
                        }
                    }
                }
                // The custom section (reference 1), when SWEEP_SECTION is set.
                if std::env::var_os("SWEEP_SECTION").is_some() {
                    if let Some(obj) = pblock::reference(&eval.graph, a.object, 1) {
                        match maxfs_scene::eval::objects::shape::eval_shape(eval, obj, 0) {
                            Ok(s) => {
                                for l in &s.polylines {
                                    println!("    section closed {} pts {}", l.closed, l.pts.len());
                                    for p in &l.pts {
                                        println!("      {:.5} {:.5} {:.5}", p.p.0, p.p.1, p.p.2);
                                    }
                                }
                            }
                            Err(e) => println!("    section error {e}"),
                        }
                    }
                }
            }
        },
    );
}
