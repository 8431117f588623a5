//! Dumps one FBX mesh node (world-space vertices in Max's axes and its
//! polygons) for comparing an evaluation by hand: `fbx_dump <file.fbx>
//! <node> [metres per unit]`.

#[path = "../dev/fbx.rs"]
mod fbx_dev;

fn main() {
    let (fbx, extra) = fbx_dev::fbx_or_exit("fbx_dump <file.fbx> <node> [metres per unit]", 1);
    let node = &extra[0];
    for n in fbx.nodes.iter() {
        let Some(m) = n.mesh.as_ref() else { continue };
        if n.element.name.to_string() != *node {
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
