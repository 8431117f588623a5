//! Prints the parameter block (reference 0; ParamBlock2 by id, old
//! ParamBlock by index) of every object whose class name equals the first
//! argument, in the given `.max` files; `CLASS@N` reads reference N instead
//! (a Path Constraint keeps its block in reference 2).
//! `cargo run --release -p maxfs-tests --example object_params -- CLASS[@N] FILE…`.
//! Used to read primitives' stored parameters against public references
//! (docs/evaluation.md).

use maxfs_scene::eval::core::pblock;

fn main() {
    let mut args = std::env::args().skip(1);
    let arg = args.next().unwrap_or_default();
    let (class, block_ref) = match arg.rsplit_once('@') {
        Some((c, n)) if n.parse::<u32>().is_ok() => (c.to_string(), n.parse().unwrap_or(0)),
        _ => (arg, 0),
    };
    for eval in maxfs_tests::each_eval(args) {
        let g = &eval.graph;
        for o in &g.objects {
            if o.class.as_ref().is_none_or(|c| c.name != class) {
                continue;
            }
            println!("-- object {}", o.index);
            let Some(pb) = pblock::reference(g, o.index, block_ref) else {
                println!("   no reference {block_ref}");
                continue;
            };
            match eval.graph.objects.get(pb).and_then(|b| b.class.as_ref()) {
                Some(c) if c.super_class == pblock::SC_PARAM_BLOCK2 => {
                    match pblock::param_block2(eval.chunks(pb)) {
                        Ok(b) => {
                            for p in &b.params {
                                println!("   {:>4} ty {:#06x} {:?}", p.id, p.ty, p.value);
                            }
                        }
                        Err(e) => println!("   error {e}"),
                    }
                }
                _ => match pblock::param_block(eval.chunks(pb)) {
                    Ok(ps) => {
                        for p in ps {
                            println!("   [{}] {:?}", p.index, p.value);
                        }
                    }
                    Err(e) => println!("   error {e}"),
                },
            }
        }
    }
}
