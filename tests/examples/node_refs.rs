//! Lists, per node, each reference slot beyond the transform (0) and the
//! object (1) with its target's class, over the given `.max` files: for
//! finding which node slots hold what (material, visibility track …), and
//! each visibility track (slot 4) with its value at a few ticks.
//! `cargo run --release -p maxfs-tests --example node_refs -- FILE…`.

fn main() {
    let mut counts: std::collections::BTreeMap<(u32, String), usize> = Default::default();
    for eval in maxfs_tests::each_eval(std::env::args().skip(1)) {
        let g = &eval.graph;
        for (o, info) in g.nodes() {
            for r in &o.references {
                if r.slot < 2 {
                    continue;
                }
                let class = usize::try_from(r.target)
                    .ok()
                    .and_then(|t| g.objects.get(t))
                    .and_then(|t| t.class.as_ref())
                    .map_or("-".to_string(), |c| {
                        format!("{} ({:#x})", c.name, c.super_class)
                    });
                *counts.entry((r.slot, class)).or_default() += 1;
                if r.slot == 4 && r.target >= 0 {
                    let t = usize::try_from(r.target).ok();
                    let at: Vec<f64> = [0, 1600, 4800, 16000]
                        .iter()
                        .map(|&k| eval.float_at(t, k, f64::NAN))
                        .collect();
                    let kind = t
                        .and_then(|i| eval.controller(i))
                        .map(|c| format!("{c:?}").chars().take(160).collect::<String>());
                    println!(
                        "  slot 4 of {:?}: {at:?} {:?} {kind:?}",
                        info.name,
                        t.and_then(|i| eval.controller_error(i))
                    );
                }
            }
        }
    }
    for ((slot, class), n) in counts {
        println!("{slot}\t{n}\t{class}");
    }
}
