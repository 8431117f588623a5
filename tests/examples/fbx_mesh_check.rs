//! Compares the evaluated meshes of a `.max` with an FBX the authors exported
//! from the same scene: `cargo run --release -p maxfs-tests --example
//! fbx_mesh_check -- <file.max> <file.fbx>`. For every FBX mesh node whose
//! name is a node of the .max: vertex counts, and the largest distance from
//! a world-space vertex of ours to the FBX's nearest one and back, relative
//! to the mesh's size (at time 0; the FBX read with ufbx in Max's axes and
//! the file's unit), or why our mesh is refused. One line per node, then a
//! summary line. Used for the sweep measurements in docs/unseen-files.md
//! (files that cannot be in the corpus). An FBX may come from another save
//! than the .max: a difference says "compare", not "wrong". With
//! `MESH_CHECK_VERBOSE` set, each vertex of a differing node farther than
//! 1e-4 of the size from the FBX's vertex of the same index (Max's order) is
//! printed with both positions.

#[path = "../dev/fbx.rs"]
mod fbx_dev;

fn nearest(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter()
        .map(|p| {
            b.iter()
                .map(|q| (0..3).map(|i| (p[i] - q[i]).powi(2)).sum::<f64>())
                .fold(f64::INFINITY, f64::min)
                .sqrt()
        })
        .fold(0.0, f64::max)
}

fn main() {
    let (eval, fbx) = fbx_dev::max_and_fbx_or_exit("fbx_mesh_check <file.max> <file.fbx>");
    let args: Vec<String> = std::env::args().collect();
    let nodes: Vec<(usize, String)> = eval
        .graph
        .nodes()
        .map(|(o, n)| (o.index, n.name.clone()))
        .collect();
    let (mut compared, mut equal, mut refused, mut absent) = (0, 0, 0, 0);
    let mut worst = 0.0f64;
    for fnode in fbx.nodes.iter() {
        let Some(fm) = fnode.mesh.as_ref() else {
            continue;
        };
        let name = fnode.element.name.to_string();
        let Some(&(o, _)) = nodes.iter().find(|(_, n)| *n == name) else {
            absent += 1;
            println!("{name}\tnot in the .max");
            continue;
        };
        let theirs = fbx_dev::world_vertices(fnode, fm);
        let mesh = match eval.mesh(o, 0) {
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                refused += 1;
                println!("{name}\trefused\t{e}");
                continue;
            }
            None => {
                absent += 1;
                println!("{name}\tno mesh object");
                continue;
            }
        };
        let ours = fbx_dev::our_world_vertices(&eval, o, &mesh);
        let size = fbx_dev::diagonal(&theirs).max(1e-12);
        let d = nearest(&ours, &theirs).max(nearest(&theirs, &ours)) / size;
        compared += 1;
        let same = ours.len() == theirs.len() && d <= 1e-4;
        if same {
            equal += 1;
            worst = worst.max(d);
        }
        if !same && std::env::var_os("MESH_CHECK_VERBOSE").is_some() {
            for (i, (p, q)) in ours.iter().zip(&theirs).enumerate() {
                let e = (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>().sqrt();
                if e > 1e-4 * size {
                    println!("  {name} v{i}\tours {p:?}\tFBX {q:?}\t{:.2e}", e / size);
                }
            }
        }
        println!(
            "{name}\t{}\tours {} / FBX {} vertices\tworst {d:.2e} of size {size:.3}",
            if same { "equal" } else { "differs" },
            ours.len(),
            theirs.len()
        );
    }
    println!(
        "summary\t{}\tcompared {compared}, equal (count, 1e-4 of size) {equal} (worst {worst:.2e}), refused {refused}, not in the .max {absent}",
        args[1]
    );
}
