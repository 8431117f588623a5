//! Prints, for each layer of a node's stack (bottom up), the mesh the stack
//! below it gives: counts and channel 1's size, and with `FULL` set every
//! face's vertices, map vertices and UVs. Used to pin UVW Map on an Edit
//! Mesh face selection against the map vertex counts the Edit Mesh above
//! each map recorded. `stack_layers FILE NODE`.

use maxfs_scene::eval::modifier::{apply_stack_from, ModContext};

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
        let (stack, base) = eval.modifier_stack(o.index).expect("stack");
        let cx = ModContext {
            eval: &eval,
            node: Some(o.index),
            t: 0,
            max_order: true,
            stand_ins: false,
            object: None,
        };
        for k in (0..=stack.len()).rev() {
            let mut mesh = (*eval.base_mesh(o.index).expect("base").expect("ok")).clone();
            let r = apply_stack_from(&stack[k..], base, &mut mesh, &cx);
            let ch = mesh.maps.iter().find(|c| c.channel == 1);
            println!(
                "-- below layer {k} (0: the output): {:?}; {} vertices {} faces; channel 1: {:?}",
                r.err().map(|e| e.to_string()),
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
