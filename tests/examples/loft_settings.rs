//! Prints each Loft's top-level settings chunks (id and payload; containers
//! with their children) and its references: `loft_settings FILE.max…`. Used
//! to find which chunks the public Lofts set differently (docs/evaluation.md,
//! Loft).

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::objects::loft;

fn show(c: &Chunk, depth: usize) {
    let pad = "  ".repeat(depth);
    match c.payload() {
        Some(p) => {
            let n = p.len().min(64);
            println!("{pad}{:#06x} [{}] {:02x?}", c.id, p.len(), &p[..n]);
        }
        None => {
            println!("{pad}{:#06x} {{", c.id);
            for k in c.children() {
                show(k, depth + 1);
            }
        }
    }
}

fn main() {
    maxfs_tests::for_each_stack(
        std::env::args().skip(1),
        |path, eval, _o, name, stack, base| {
            let is_loft = eval
                .graph
                .objects
                .get(base)
                .and_then(|b| b.class.as_ref())
                .is_some_and(|c| loft::is_loft(c.class_id));
            if !is_loft {
                return;
            }
            let mods: Vec<&str> = stack.iter().map(|a| a.name).collect();
            println!("== {path}\t{name}\tobject {base}\tstack {mods:?}");
            for r in &eval.graph.objects[base].references {
                let class = eval
                    .graph
                    .objects
                    .get(r.target.max(0) as usize)
                    .and_then(|o| o.class.as_ref())
                    .map(|c| c.name.clone())
                    .unwrap_or_default();
                println!("  ref {} -> {} {class}", r.slot, r.target);
            }
            for c in eval.chunks(base) {
                if c.id == 0x2034 || c.id == 0x2150 {
                    continue;
                }
                show(c, 1);
            }
        },
    );
}
