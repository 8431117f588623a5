//! Dumps one FBX mesh node (world-space vertices in Max's axes and its
//! polygons) for comparing an evaluation by hand: `fbx_dump <file.fbx>
//! <node> [metres per unit]`.

#[path = "../dev/fbx.rs"]
mod fbx_dev;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: fbx_dump <file.fbx> <node> [metres per unit]");
        std::process::exit(2);
    }
    let metres = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.0254);
    let fbx = match fbx_dev::load_in_max_axes(&args[1], metres) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}: {e}", args[1]);
            std::process::exit(1);
        }
    };
    for n in fbx.nodes.iter() {
        let Some(m) = n.mesh.as_ref() else { continue };
        if n.element.name.to_string() != args[2] {
            continue;
        }
        println!("vertices {} faces {}", m.vertices.len(), m.faces.len());
        for (i, v) in m.vertices.iter().enumerate() {
            let w = ufbx::transform_position(&n.geometry_to_world, *v);
            println!("v {i} {:.5} {:.5} {:.5}", w.x, w.y, w.z);
        }
        for f in m.faces.iter() {
            let idx: Vec<u32> = (f.index_begin..f.index_begin + f.num_indices)
                .map(|k| m.vertex_indices[k as usize])
                .collect();
            println!("f {idx:?}");
        }
    }
}
