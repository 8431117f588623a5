//! How far each modifier of a node's stack moves the vertices: the mesh with
//! the whole stack against the mesh without that modifier, per vertex.
//! `selection_effect FILE NODE`. For measuring whether a deformer above a
//! live sub-object selection moves anything at all.

use maxfs_scene::eval::core::memo::Stack;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, node] = args.as_slice() else {
        eprintln!("usage: selection_effect FILE NODE");
        return;
    };
    let eval = maxfs_tests::eval_or_exit(path);
    let o = maxfs_tests::node_or_exit(&eval, node);
    let Some((stack, _)) = eval.modifier_stack(o) else {
        return;
    };
    let full = match eval.mesh_with(o, 0, Stack::Full) {
        Some(Ok(m)) => m,
        Some(Err(e)) => {
            println!("full stack refused: {e}");
            return;
        }
        None => return,
    };
    for a in &stack {
        match eval.mesh_with(o, 0, Stack::Without(a.object)) {
            Some(Ok(m)) if m.vertices.len() == full.vertices.len() => {
                let d: Vec<f64> = m
                    .vertices
                    .iter()
                    .zip(&full.vertices)
                    .map(|(p, q)| {
                        ((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2) + (p.2 - q.2).powi(2)).sqrt()
                    })
                    .collect();
                let moved: Vec<usize> = (0..d.len()).filter(|&i| d[i] > 1e-6).collect();
                let max = d.iter().copied().fold(0.0, f64::max);
                println!(
                    "{}: moves {} of {} vertices, at most {max:.4}; moved {:?}",
                    a.name,
                    moved.len(),
                    d.len(),
                    &moved[..moved.len().min(60)]
                );
            }
            Some(Ok(m)) => println!(
                "{}: vertex count {} without, {} with",
                a.name,
                m.vertices.len(),
                full.vertices.len()
            ),
            Some(Err(e)) => println!("{}: without it refused: {e}", a.name),
            None => {}
        }
    }
}
