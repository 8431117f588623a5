//! Dev probe: one node's evaluated mesh against the FBX's, vertex by vertex
//! in the FBX's order (nearest of ours for each), to see where a deformed
//! shape's mesh departs: `PROBE_NODE=NODE shape_deform_probe FILE.max FILE.fbx`.

#[path = "../dev/fbx.rs"]
mod fbx_dev;

fn main() {
    let (eval, fbx) =
        fbx_dev::max_and_fbx_or_exit("PROBE_NODE=NODE shape_deform_probe <file.max> <file.fbx>");
    let name = &std::env::var("PROBE_NODE").expect("PROBE_NODE");
    let node = maxfs_tests::node_named(&eval.graph, name);
    let fnode = fbx
        .nodes
        .iter()
        .find(|n| n.element.name == name.as_str())
        .expect("fbx node");
    let fm = fnode.mesh.as_ref().expect("fbx mesh");
    let theirs = fbx_dev::world_vertices(fnode, fm);
    let mesh = eval.mesh(node, 0).expect("mesh").expect("ok");
    let ours = fbx_dev::our_world_vertices(&eval, node, &mesh);
    let mut ds: Vec<(f64, usize, usize)> = theirs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (j, d) = ours
                .iter()
                .enumerate()
                .map(|(j, q)| (j, (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>().sqrt()))
                .fold((0, f64::MAX), |a, b| if b.1 < a.1 { b } else { a });
            (d, i, j)
        })
        .collect();
    if let Ok(r) = std::env::var("PROBE_RANGE") {
        let (a, b) = r.split_once('-').expect("a-b");
        let (a, b): (usize, usize) = (a.parse().expect("a"), b.parse().expect("b"));
        for i in a..b.min(theirs.len()).min(ours.len()) {
            let d = (0..3)
                .map(|k| (theirs[i][k] - ours[i][k]).powi(2))
                .sum::<f64>()
                .sqrt();
            println!("{i}\t{d:.2e}\t{:?}\t{:?}", theirs[i], ours[i]);
        }
    }
    if let Ok(v) = std::env::var("PROBE_VERTEX") {
        let v: u32 = v.parse().expect("vertex");
        for (fi, f) in mesh
            .faces
            .iter()
            .enumerate()
            .filter(|(_, f)| f.v.contains(&v))
        {
            let [a, b, c] = f.v.map(|i| mesh.vertices[i as usize]);
            let n = b.minus(a).cross(c.minus(a));
            println!(
                "face {fi} {:?} normal {:?} area {:.3e}",
                f.v,
                n,
                n.len() / 2.0
            );
        }
        for f in fm.faces.iter() {
            let idx: Vec<u32> = (f.index_begin..f.index_begin + f.num_indices)
                .map(|k| fm.vertex_indices[k as usize])
                .collect();
            if idx.contains(&v) {
                println!("fbx face {idx:?}");
            }
        }
        for i in v.saturating_sub(2)..v + 3 {
            println!("vertex {i} {:?}", mesh.vertices.get(i as usize));
        }
    }
    let same_order = ds.iter().filter(|(_, i, j)| i == j).count();
    ds.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!(
        "{} theirs, {} ours, {} nearest at the same index",
        theirs.len(),
        ours.len(),
        same_order
    );
    let n = ds.len();
    for q in [0, n / 100, n / 10, n / 4, n / 2] {
        if let Some((d, i, j)) = ds.get(q) {
            println!(
                "rank {q}: {d:.3e} fbx {i} {:?} ours {j} {:?}",
                theirs[*i], ours[*j]
            );
        }
    }
}
