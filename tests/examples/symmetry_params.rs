//! Prints every Symmetry modifier's ParamBlock2 (reference 0) parameters in
//! the given `.max` files: file, node, stack index, parameters.
//! `cargo run --release -p maxfs-tests --example symmetry_params -- FILE…`.
//! Used for the tenth sweep's weld finding in docs/unseen-files.md.

use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::modifier::SYMMETRY;

fn main() {
    maxfs_tests::for_each_stack(std::env::args().skip(1), |path, eval, _, name, stack, _| {
        for (i, m) in stack
            .iter()
            .enumerate()
            .filter(|(_, m)| m.class == SYMMETRY)
        {
            let params = pblock::reference(&eval.graph, m.object, 0)
                .and_then(|pb| pblock::param_block2(eval.chunks(pb)).ok())
                .map(|b| {
                    b.params
                        .iter()
                        .map(|p| format!("{:#x}={:?}", p.id, p.value))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default();
            println!("{path}\t{name}\t[{i}]\t{params}");
        }
    });
}
