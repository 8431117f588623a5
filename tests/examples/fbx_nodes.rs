//! Lists every FBX node with its attribute and, for meshes, the vertex and
//! face counts and bounding box in the node's geometry space, for finding
//! which objects an export holds: `fbx_nodes <file.fbx> [metres per unit]`.
//! A node the FBX marks hidden (its `Visibility` 0) is listed with `hidden`.

#[path = "../dev/fbx.rs"]
mod fbx_dev;

fn main() {
    let (fbx, _) = fbx_dev::fbx_or_exit("fbx_nodes <file.fbx> [metres per unit]", 0);
    for n in fbx.nodes.iter() {
        let kind = n
            .attrib
            .as_ref()
            .map_or("-".to_string(), |a| format!("{:?}", a.type_));
        let kind = if n.visible {
            kind
        } else {
            format!("{kind} hidden")
        };
        match n.mesh.as_ref() {
            Some(m) => {
                let mut lo = [f64::MAX; 3];
                let mut hi = [f64::MIN; 3];
                for v in m.vertices.iter() {
                    for (k, c) in [v.x, v.y, v.z].into_iter().enumerate() {
                        lo[k] = lo[k].min(c);
                        hi[k] = hi[k].max(c);
                    }
                }
                println!(
                    "{}\t{kind}\tv {} f {}\tbbox {:.4?} {:.4?}",
                    n.element.name,
                    m.vertices.len(),
                    m.faces.len(),
                    lo,
                    hi
                );
            }
            None => println!("{}\t{kind}", n.element.name),
        }
    }
}
