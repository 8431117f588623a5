//! Prints the Subdivision Surface block of every Editable Poly in the given
//! `.max` files: node, cage size, stack, and the ParamBlock2 (reference 0)
//! parameters. `cargo run --release -p maxfs-tests --example
//! poly_nurms_params -- FILE…`. Used for the measurements of
//! docs/unseen-files.md's NURMS finding (files not in the corpus).

use maxfs_scene::eval::objects::mesh;

fn main() {
    maxfs_tests::for_each_stack(
        std::env::args().skip(1),
        |path, eval, _, name, stack, base| {
            let Ok((cage, loops)) = mesh::editable_poly(eval.chunks(base)) else {
                return;
            };
            let mods: Vec<&str> = stack.iter().map(|a| a.name).collect();
            let params = maxfs_tests::param_block2_text(eval, base, 0, true, " ");
            let geom: Vec<String> = mesh::geom_buffers(eval.chunks(base))
                .map(|g| {
                    g.iter()
                        .map(|c| format!("{:#06x}:{}", c.id, c.payload().map_or(0, |p| p.len())))
                        .collect()
                })
                .unwrap_or_default();
            println!(
                "{path}\t{name}\tV{} P{}\t{mods:?}\t{}\t{params}",
                cage.vertices.len(),
                loops.len(),
                geom.join(" ")
            );
        },
    );
}
