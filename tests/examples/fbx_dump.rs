//! Prints one FBX mesh node's world vertices (in Max's axes and the given
//! unit) and its polygons: `fbx_dump FILE.fbx NODE [metres]`. For reading an
//! author's export next to a `.max` when working out how Max built a mesh.

#[path = "../dev/fbx.rs"]
mod fbx_dev;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: fbx_dump <file.fbx> <node> [metres per unit]");
        std::process::exit(2);
    }
    let metres = args.get(3).and_then(|m| m.parse().ok()).unwrap_or(0.0254);
    let fbx = match fbx_dev::load_in_max_axes(&args[1], metres) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}: {e}", args[1]);
            std::process::exit(1);
        }
    };
    for node in fbx.nodes.iter() {
        let Some(m) = node.mesh.as_ref() else {
            continue;
        };
        if node.element.name.to_string() != args[2] {
            continue;
        }
        println!("vertices {} faces {}", m.vertices.len(), m.faces.len());
        for (i, v) in m.vertices.iter().enumerate() {
            let w = ufbx::transform_position(&node.geometry_to_world, *v);
            println!("v {i} {:.6} {:.6} {:.6}", w.x, w.y, w.z);
        }
        for f in m.faces.iter() {
            let idx: Vec<String> = (f.index_begin..f.index_begin + f.num_indices)
                .map(|k| m.vertex_indices[k as usize].to_string())
                .collect();
            println!("f {}", idx.join(" "));
        }
        if let Some(uv) = m.uv_sets.first() {
            println!("uv {}", uv.vertex_uv.values.len());
            for (i, v) in uv.vertex_uv.values.iter().enumerate() {
                println!("t {i} {:.6} {:.6}", v.x, v.y);
            }
        }
    }
}
