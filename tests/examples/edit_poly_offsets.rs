//! Prints the vertex offsets a Transform of an Edit Poly recorded, one per
//! vertex in Max's order, with the replay's position of each vertex before
//! it: `edit_poly_offsets FILE NODE STACK_INDEX OP_INDEX`. A scale or a
//! rotation moves each vertex by an affine function of its position, so
//! the offsets pin the positions of the vertices they move (measuring the
//! placement rules of the operations before it).

use maxfs_scene::eval::modifier::{
    edit_poly_operation_offset_values as offsets, edit_poly_output_after as after,
};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, node, at, op] = args.as_slice() else {
        eprintln!("usage: edit_poly_offsets FILE NODE STACK_INDEX OP_INDEX");
        return;
    };
    let (Ok(at), Ok(op)) = (at.parse::<usize>(), op.parse::<usize>()) else {
        eprintln!("STACK_INDEX and OP_INDEX are numbers");
        return;
    };
    let eval = maxfs_tests::eval_or_exit(path);
    let o = maxfs_tests::node_or_exit(&eval, node);
    let before = after(&eval, o, at, 0, op);
    let offs = match offsets(&eval, o, at, op) {
        Ok(v) => v,
        Err(e) => {
            println!("error: {e}");
            return;
        }
    };
    if let Err(e) = &before {
        println!("replay error: {e}");
    }
    for (i, d) in offs.iter().enumerate() {
        let p = before
            .as_ref()
            .ok()
            .and_then(|m| m.vertices.get(i).copied())
            .map_or("-".to_string(), |p| {
                format!("{:.6} {:.6} {:.6}", p.0, p.1, p.2)
            });
        println!("{i} off {:.6} {:.6} {:.6} at {p}", d.0, d.1, d.2);
    }
}
