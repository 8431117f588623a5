//! Prints, for each layer of a node's stack (bottom up), the mesh the stack
//! below it gives: counts and channel 1's size, and with `FULL` set every
//! face's vertices, map vertices and UVs. Used to pin UVW Map on an Edit
//! Mesh face selection against the map vertex counts the Edit Mesh above
//! each map recorded. `stack_layers FILE NODE`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, node] = &args[..] else {
        eprintln!("usage: stack_layers FILE NODE");
        return;
    };
    let eval = maxfs_tests::eval_or_exit(file);
    for (o, n) in eval.graph.nodes() {
        if n.name != *node {
            continue;
        }
        let Some((stack, _)) = eval.modifier_stack(o.index) else {
            eprintln!("{node}: no stack");
            return;
        };
        for k in (0..=stack.len()).rev() {
            let (r, mesh) = match eval.mesh_up_to(o.index, k, 0) {
                Some(Ok(m)) => (None, m),
                Some(Err(e)) => (Some(e.to_string()), Default::default()),
                None => (Some("not a mesh".into()), Default::default()),
            };
            let ch = mesh.maps.iter().find(|c| c.channel == 1);
            println!(
                "-- below layer {k} (0: the output): {:?}; {} vertices {} faces; channel 1: {:?}",
                r,
                mesh.vertices.len(),
                mesh.faces.len(),
                ch.map(|c| (c.vertices.len(), c.faces.len()))
            );
            if std::env::var("FULL").is_ok() {
                for (i, f) in mesh.faces.iter().enumerate() {
                    let p = f.v.map(|v| mesh.vertices[v as usize]);
                    let uv = ch.map(|c| c.faces[i].map(|t| c.vertices[t as usize]));
                    println!(
                        "  f{i} v{:?} tv{:?} uv{:?} {:?}",
                        f.v,
                        ch.map(|c| c.faces[i]),
                        uv,
                        p.map(|q| [q.0 as f32, q.1 as f32, q.2 as f32])
                    );
                }
            }
        }
    }
}
