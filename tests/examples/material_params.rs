//! Prints, for every material of the given `.max` files whose class name
//! contains the filter (first argument), its references and the ParamBlock2
//! parameters of each (two levels deep). `cargo run --release -p maxfs-tests
//! --example material_params -- FILTER FILE…`. Used to pin the parameter ids
//! of docs/evaluation.md's material layouts.

use maxfs_scene::eval::core::pblock;

fn dump(eval: &maxfs_scene::eval::core::transform::SceneEval, idx: usize, depth: usize) {
    let g = &eval.graph;
    let Some(o) = g.objects.get(idx) else { return };
    let pad = "  ".repeat(depth);
    let class = o.class.as_ref().map_or("?".into(), |c| {
        format!(
            "{} {:#x},{:#x} sc {:#x}",
            c.name, c.class_id.0, c.class_id.1, c.super_class
        )
    });
    println!("{pad}object {idx}: {class}");
    if let Some(c) = o.class.as_ref() {
        if c.super_class == pblock::SC_PARAM_BLOCK2 {
            match pblock::param_block2(eval.chunks(idx)) {
                Ok(pb) => {
                    println!("{pad}  block {} v{}", pb.block_id, pb.version);
                    for p in &pb.params {
                        println!(
                            "{pad}  {:>4} ty {:#06x} slot {:?} {:?}",
                            p.id, p.ty, p.ref_slot, p.value
                        );
                    }
                }
                Err(e) => println!("{pad}  error {e}"),
            }
        }
    }
    if o.class.as_ref().is_some_and(|c| c.super_class == 0x8) {
        match pblock::param_block(eval.chunks(idx)) {
            Ok(ps) => {
                for p in ps {
                    println!("{pad}  [{}] {:?}", p.index, p.value);
                }
            }
            Err(e) => println!("{pad}  error {e}"),
        }
    }
    if depth >= 3 {
        return;
    }
    for r in &o.references {
        if let Ok(t) = usize::try_from(r.target) {
            println!("{pad}  ref {} ->", r.slot);
            dump(eval, t, depth + 2);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let filter = args.next().unwrap_or_default();
    for eval in maxfs_tests::each_eval(args) {
        for o in &eval.graph.objects {
            let Some(c) = o.class.as_ref() else { continue };
            if c.super_class == 0xc00 && c.name.contains(&filter) {
                let name = maxfs_scene::eval::render::material::mtl_name(eval.chunks(o.index));
                println!("-- material {:?}", name);
                dump(&eval, o.index, 0);
            }
        }
    }
}
