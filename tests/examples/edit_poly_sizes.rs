//! Replays every Edit Poly of the given `.max` files operation by operation
//! and compares each size Max recorded with the replay's mesh before that
//! operation: the selection's (vertices, edges or faces by the operation) and
//! a Transform's offset count (one per vertex). `cargo run --release -p
//! maxfs-tests --example edit_poly_sizes -- FILE…`; one line per Edit Poly:
//! file, node, stack index, operations replayed before the first refusal,
//! sizes equal / different (listed), the refusal, the operations replayed.
//! Used for the sweep measurements in docs/unseen-files.md (files that
//! cannot be in the corpus).

use maxfs_scene::eval::modifier::{
    edit_poly_operation_offsets as offsets, edit_poly_operation_selection as selection,
    edit_poly_output_after as after,
};

const VERTEX_OPS: [&str; 9] = [
    "Connect Vertex",
    "Collapse Vertex",
    "Remove Vertex",
    "Weld Vertex",
    "Delete Vertex",
    "Chamfer Vertex",
    "Extrude Vertex",
    "Detach Vertex",
    "Clone Vertex",
];
const FACE_OPS: [&str; 8] = [
    "Face",
    "Inset",
    "Autosmooth",
    "Smooth",
    "Set Material",
    "Bevel",
    "Tessellate",
    "Bridge Polygon",
];
const EDGE_OPS: [&str; 4] = ["Edge", "Cap", "Split", "Bridge"];

fn main() {
    maxfs_tests::for_each_stack(std::env::args().skip(1), |path, eval, o, name, stack, _| {
        let at_all: Vec<usize> = (0..stack.len())
            .filter(|&i| stack[i].name == "Edit Poly")
            .collect();
        for at in at_all {
            let (mut equal, mut differ, mut replayed) = (0, Vec::new(), Vec::new());
            let mut k = 0;
            let stop = loop {
                let Ok((op, recorded)) = selection(eval, o, at, k) else {
                    break "end".to_string();
                };
                let poly = match after(eval, o, at, 0, k) {
                    Ok(p) => p,
                    Err(e) => break format!("before operation {k}, {op}: {e}"),
                };
                if k > 0 {
                    if let Ok((prev, _)) = selection(eval, o, at, k - 1) {
                        replayed.push(prev);
                    }
                }
                let moved = offsets(eval, o, at, k).unwrap_or(0);
                let mut check = |what: &str, theirs: usize, ours: usize| {
                    if theirs == ours {
                        equal += 1;
                    } else {
                        differ.push(format!("operation {k} {op}: {what} {theirs}, ours {ours}"));
                    }
                };
                if moved != 0 {
                    check("offsets", moved, poly.vertices.len());
                }
                let ours = if VERTEX_OPS.iter().any(|s| op.contains(s)) {
                    poly.vertices.len()
                } else if FACE_OPS.iter().any(|s| op.contains(s)) {
                    poly.faces.len()
                } else if EDGE_OPS.iter().any(|s| op.contains(s)) {
                    poly.walked_edges().len()
                } else {
                    0
                };
                if recorded != 0 && ours != 0 {
                    check("selection of", recorded, ours);
                }
                k += 1;
            };
            if stop == "end" && k > 0 && after(eval, o, at, 0, k).is_ok() {
                if let Ok((last, _)) = selection(eval, o, at, k - 1) {
                    replayed.push(last);
                }
            }
            println!(
                "{path}\t{name}\t[{at}]\t{k}\t{equal} / {}\t{}\t{stop}\t{}",
                differ.len(),
                differ.join("; "),
                replayed.join("|")
            );
        }
    });
}
