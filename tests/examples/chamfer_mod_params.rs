//! Prints the ParamBlock2 (reference 0) of every Chamfer modifier
//! (0x332c9510, 0x38bb548c) in the given `.max` files: node, stack, its
//! position in it, the parameters by id and the modifier's other references
//! and chunk ids. `cargo run --release -p maxfs-tests --example
//! chamfer_mod_params -- FILE…`; with CHAMFER_INPUT set, also the mesh
//! below each Chamfer (object space). Used for docs/unseen-files.md's Chamfer
//! modifier measurements (files not in the corpus).

use maxfs_scene::typed::ClassId;

const CHAMFER: ClassId = ClassId(0x332c_9510, 0x38bb_548c);

fn main() {
    maxfs_tests::for_each_stack(
        std::env::args().skip(1),
        |path, eval, node, name, stack, _| {
            let mods: Vec<&str> = stack.iter().map(|a| a.name).collect();
            for (i, a) in stack.iter().enumerate().filter(|(_, a)| a.class == CHAMFER) {
                let params = maxfs_tests::param_block2_text(eval, a.object, 0, false, " ");
                let refs: Vec<String> = eval
                    .graph
                    .objects
                    .get(a.object)
                    .map(|o| {
                        o.references
                            .iter()
                            .map(|r| format!("{}->{}", r.slot, r.target))
                            .collect()
                    })
                    .unwrap_or_default();
                let chunks: Vec<String> = eval
                    .chunks(a.object)
                    .iter()
                    .map(|c| format!("{:#06x}:{}", c.id, c.payload().map_or(0, |p| p.len())))
                    .collect();
                let local: Vec<String> = a
                    .mod_app
                    .map(|m| {
                        m.children()
                            .iter()
                            .map(|c| {
                                format!("{:#06x}:{}", c.id, c.payload().map_or(0, |p| p.len()))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let short = path.rsplit('/').next().unwrap_or(path);
                if std::env::var_os("CHAMFER_INPUT").is_some() {
                    match eval.mesh_up_to(node, i + 1, 0) {
                        Some(Ok(m)) => {
                            println!("input V{} F{}", m.vertices.len(), m.faces.len());
                            for v in &m.vertices {
                                println!("  v {:.4} {:.4} {:.4}", v.0, v.1, v.2);
                            }
                            for f in &m.faces {
                                println!("  f {:?} sg {:#x}", f.v, f.smoothing);
                            }
                        }
                        Some(Err(e)) => println!("input error {e}"),
                        None => println!("input none"),
                    }
                }
                println!(
                    "{short}\t{name}\t{i}/{mods:?}\trefs {refs:?}\tchunks {chunks:?}\tmodapp {local:?}\n    {params}"
                );
            }
        },
    );
}
