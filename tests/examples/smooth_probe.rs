//! Prints each Smooth modifier's (0xf8613) parameters (auto smooth, threshold
//! in degrees, bits, prevent indirect) and the triangles below it (corners,
//! edge visibility bits, groups) with the vertices: `smooth_probe FILE…`.
//! For checking the Smooth against another tool's export of the same scene.

use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::objects::primitive::block_params;
use maxfs_scene::typed::ClassId;

const SMOOTH: ClassId = ClassId(0xf8613, 0);

fn main() {
    maxfs_tests::for_each_stack(
        std::env::args().skip(1),
        |path, eval, node, name, stack, _| {
            for (i, m) in stack.iter().enumerate().filter(|(_, m)| m.class == SMOOTH) {
                let Some(p) = pblock::reference(&eval.graph, m.object, 0)
                    .and_then(|pb| block_params(eval, pb, 0).ok())
                else {
                    println!("{path}\t{name}\t[{i}]\tno parameters");
                    continue;
                };
                println!(
                    "{path}\t{name}\t[{i}]\tauto {} threshold {:.4}° bits {:#x} prevent {}",
                    p.flag(0, false),
                    p.float_or(1, 0.0).to_degrees(),
                    p.int_or(2, 0),
                    p.flag(3, false)
                );
                match eval.mesh_up_to(node, i + 1, 0) {
                    Some(Ok(mesh)) => {
                        for (k, v) in mesh.vertices.iter().enumerate() {
                            println!("v {k} {:.6} {:.6} {:.6}", v.0, v.1, v.2);
                        }
                        for (k, f) in mesh.faces.iter().enumerate() {
                            println!(
                                "f {k} {:?} vis {:03b} sg {:#x}",
                                f.v,
                                f.flags & 7,
                                f.smoothing
                            );
                        }
                    }
                    Some(Err(e)) => println!("below: {e}"),
                    None => println!("below: none"),
                }
            }
        },
    );
}
