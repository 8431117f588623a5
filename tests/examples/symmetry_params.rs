//! Prints every Symmetry modifier's ParamBlock2 (reference 0) parameters in
//! the given `.max` files: file, node, stack index, parameters.
//! `cargo run --release -p maxfs-tests --example symmetry_params -- FILE…`.
//! Used for the tenth sweep's weld finding in docs/unseen-files.md.

use maxfs_scene::eval::modifier::SYMMETRY;

fn main() {
    maxfs_tests::for_each_stack(std::env::args().skip(1), |path, eval, _, name, stack, _| {
        for (i, m) in stack
            .iter()
            .enumerate()
            .filter(|(_, m)| m.class == SYMMETRY)
        {
            let params = maxfs_tests::param_block2_text(eval, m.object, 0, true, " ");
            println!("{path}\t{name}\t[{i}]\t{params}");
        }
    });
}
