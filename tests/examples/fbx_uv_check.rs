//! Compares map channel 1 of the evaluated meshes of a `.max` with an FBX the
//! authors exported from the same scene, corner by corner: `cargo run
//! --release -p maxfs-tests --example fbx_uv_check -- <file.max> <file.fbx>`.
//! Max's FBX exporter writes a mesh's vertices in Max's order, so for every
//! FBX mesh node whose name is a node of the .max with as many vertices, each
//! FBX corner (vertex, UV) is matched with the nearest UV of our corners on
//! the same vertex, and each of ours with the FBX's: the largest distance both
//! ways is printed, with whether the node's base object has Max's real-world
//! map size on. Used for the real-world map measurements in
//! docs/unseen-files.md (Buwaka's FBX files cannot be in the corpus).
//! With `UV_CHECK_VERBOSE` set, each corner off by more than 1e-3 is printed
//! with its vertex (which cap, side or seam it is on).

#[path = "../dev/fbx.rs"]
mod fbx_dev;

fn main() {
    let (eval, fbx) = fbx_dev::max_and_fbx_or_exit("fbx_uv_check <file.max> <file.fbx>");
    let nodes: Vec<(usize, String)> = eval
        .graph
        .nodes()
        .map(|(o, n)| (o.index, n.name.clone()))
        .collect();
    for fnode in fbx.nodes.iter() {
        let Some(fm) = fnode.mesh.as_ref() else {
            continue;
        };
        let name = fnode.element.name.to_string();
        let Some(&(o, _)) = nodes.iter().find(|(_, n)| *n == name) else {
            continue;
        };
        let real_world = eval.modifier_stack(o).is_some_and(|(_, base)| {
            maxfs_scene::eval::objects::primitive::real_world::is_on(&eval, base)
        });
        let mesh = match eval.mesh(o, 0) {
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                println!("{name}\trefused\t{e}");
                continue;
            }
            None => continue,
        };
        let Some(ch) = mesh.maps.iter().find(|c| c.channel == 1) else {
            println!("{name}\tno channel 1\t{:?}", mesh.missing_maps);
            continue;
        };
        if !fm.vertex_uv.exists || fm.num_vertices != mesh.vertices.len() {
            println!(
                "{name}\tnot compared\tours {} / FBX {} vertices",
                mesh.vertices.len(),
                fm.num_vertices
            );
            continue;
        }
        let mut ours: Vec<Vec<[f64; 2]>> = vec![Vec::new(); mesh.vertices.len()];
        for (f, tf) in mesh.faces.iter().zip(&ch.faces) {
            for (&v, &ti) in f.v.iter().zip(tf) {
                let t = ch.vertices[ti as usize];
                ours[v as usize].push([f64::from(t[0]), f64::from(t[1])]);
            }
        }
        let mut theirs: Vec<Vec<[f64; 2]>> = vec![Vec::new(); mesh.vertices.len()];
        for i in 0..fm.num_indices {
            let uv = fm.vertex_uv[i];
            theirs[fm.vertex_indices[i] as usize].push([uv.x, uv.y]);
        }
        let dist = |a: [f64; 2], b: &[[f64; 2]]| {
            b.iter()
                .map(|c| ((a[0] - c[0]).powi(2) + (a[1] - c[1]).powi(2)).sqrt())
                .fold(f64::INFINITY, f64::min)
        };
        let (mut worst, mut misses, mut corners) = (0.0f64, 0, 0);
        for (vi, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            for (side, x, y) in [("ours", a, b), ("FBX", b, a)] {
                for &c in x {
                    let d = dist(c, y);
                    corners += 1;
                    if d > 1e-3 {
                        misses += 1;
                        if std::env::var_os("UV_CHECK_VERBOSE").is_some() {
                            eprintln!(
                                "  {name} v{vi} {:?} {side} corner {c:?} d {d:.4}",
                                mesh.vertices[vi]
                            );
                        }
                    }
                    worst = worst.max(d);
                }
            }
        }
        println!(
            "{name}\treal-world {}\t{corners} corners both ways, {misses} off by more than 1e-3, worst {worst:.2e}",
            if real_world { "on" } else { "off" }
        );
    }
}
