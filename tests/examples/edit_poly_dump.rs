//! Prints the polygon mesh an Edit Poly's replay gives after its first
//! operations: `edit_poly_dump FILE NODE STACK_INDEX COUNT` — vertices, faces
//! (corners, material) and, when known, MNMesh's edge list. For measuring
//! an operation against the sizes and selections Max recorded after it.

use maxfs_scene::eval::modifier::edit_poly_output_after as after;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, node, at, count] = args.as_slice() else {
        eprintln!("usage: edit_poly_dump FILE NODE STACK_INDEX COUNT");
        return;
    };
    let (Ok(at), Ok(count)) = (at.parse::<usize>(), count.parse::<usize>()) else {
        eprintln!("STACK_INDEX and COUNT are numbers");
        return;
    };
    let eval = maxfs_tests::eval_or_exit(path);
    let o = maxfs_tests::node_or_exit(&eval, node);
    match after(&eval, o, at, 0, count) {
        Err(e) => println!("error: {e}"),
        Ok(p) => {
            for (i, v) in p.vertices.iter().enumerate() {
                println!("v {i} {:.6} {:.6} {:.6}", v.0, v.1, v.2);
            }
            for (i, f) in p.faces.iter().enumerate() {
                println!("f {i} {:?} mat {} sg {}", f.v, f.material, f.smoothing);
            }
            if let Some(e) = &p.edges {
                println!("edges {e:?}");
            }
        }
    }
}
