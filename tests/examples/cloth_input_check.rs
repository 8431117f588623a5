//! Prints, for every node with a Cloth in its stack (or the nodes named),
//! the input mesh Cloth saved in its ModApp local data (0x2512 / 0x02B2,
//! Max's own mesh below the Cloth) next to ours below the Cloth: counts,
//! how many triangles agree corner for corner, the first that differ, and
//! the largest distance between our vertex i and the saved vertex i. With
//! `FULL` set, every triangle side by side. Used to pin TurboSmooth's
//! output numbering (docs/evaluation.md, TurboSmooth).
//! With `DUMP=DIR`, writes DIR/NODE.json: the saved mesh, ours and, on an
//! Editable Poly base, its polygons and stored edge list (0x010a).
//! `cloth_input_check FILE [NODE…]`.

use maxfs_scene::chunk::{self, Chunk};
use maxfs_scene::eval::objects::mesh;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((file, names)) = args.split_first() else {
        eprintln!("usage: cloth_input_check FILE [NODE…]");
        return;
    };
    let full = std::env::var("FULL").is_ok();
    let dump = std::env::var("DUMP").ok();
    maxfs_tests::for_each_stack([file.clone()], |_, eval, o, name, stack, base| {
        if !names.is_empty() && !names.iter().any(|n| n == name) {
            return;
        }
        let Some(at) = stack.iter().position(|a| a.name == "Cloth") else {
            return;
        };
        let Some(local) = stack[at]
            .mod_app
            .and_then(|a| a.children().iter().find(|c| c.id == 0x2512))
        else {
            println!("{name}: Cloth without local data");
            return;
        };
        let parsed;
        let local: &[Chunk] = match local.payload() {
            None => local.children(),
            Some(p) => match chunk::parse(p) {
                Ok(c) => {
                    parsed = c;
                    &parsed
                }
                Err(e) => {
                    println!("{name}: local data: {e}");
                    return;
                }
            },
        };
        let Some(saved) = local.iter().find(|c| c.id == 0x02b2) else {
            println!("{name}: no 0x02B2");
            return;
        };
        let saved = match mesh::mesh_buffers(saved.children()) {
            Ok(m) => m,
            Err(e) => {
                println!("{name}: 0x02B2: {e}");
                return;
            }
        };
        let ours = match eval.mesh_up_to(o, at + 1, 0) {
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                println!("{name}: ours not evaluated: {e}");
                return;
            }
            None => {
                println!("{name}: ours: not a mesh");
                return;
            }
        };
        if let Some(dir) = &dump {
            write_dump(dir, name, eval, base, &saved, &ours);
        }
        let below: Vec<&str> = stack[at + 1..].iter().map(|a| a.name).collect();
        let same = ours
            .faces
            .iter()
            .zip(&saved.faces)
            .filter(|(a, b)| a.v == b.v)
            .count();
        let same_all = ours
            .faces
            .iter()
            .zip(&saved.faces)
            .filter(|(a, b)| a.v == b.v && a.flags == b.flags)
            .count();
        let same_attr = ours
            .faces
            .iter()
            .zip(&saved.faces)
            .filter(|(a, b)| a.smoothing == b.smoothing && a.material == b.material)
            .count();
        let worst = ours
            .vertices
            .iter()
            .zip(&saved.vertices)
            .map(|(a, b)| a.minus(*b).len())
            .fold(0.0f64, f64::max);
        println!(
            "{name} below {below:?}: saved {}v {}f, ours {}v {}f; same corners {same}, \
             with flags {same_all}, same smoothing+material {same_attr}; max |ours_i - saved_i| {worst:.3e}",
            saved.vertices.len(),
            saved.faces.len(),
            ours.vertices.len(),
            ours.faces.len(),
        );
        let n = if full {
            saved.faces.len().max(ours.faces.len())
        } else {
            8
        };
        for i in 0..n {
            let s = saved.faces.get(i);
            let u = ours.faces.get(i);
            println!(
                "  f{i} saved {:?} ours {:?}",
                s.map(|f| (f.v, f.flags, f.smoothing, f.material)),
                u.map(|f| (f.v, f.flags, f.smoothing, f.material))
            );
        }
        if full {
            for (i, v) in saved.vertices.iter().enumerate() {
                println!("  v{i} saved {:?} ours {:?}", v, ours.vertices.get(i));
            }
        }
    });
}

fn write_dump(
    dir: &str,
    name: &str,
    eval: &maxfs_scene::eval::SceneEval,
    base: usize,
    saved: &mesh::Mesh,
    ours: &mesh::Mesh,
) {
    let tri = |m: &mesh::Mesh| {
        serde_json::json!({
            "vertices": m.vertices.iter().map(|v| [v.0, v.1, v.2]).collect::<Vec<_>>(),
            "faces": m.faces.iter().map(|f| f.v).collect::<Vec<_>>(),
            "flags": m.faces.iter().map(|f| f.flags).collect::<Vec<_>>(),
            "smoothing": m.faces.iter().map(|f| f.smoothing).collect::<Vec<_>>(),
            "material": m.faces.iter().map(|f| f.material).collect::<Vec<_>>(),
        })
    };
    let object = eval.chunks(base);
    let poly = mesh::editable_poly(object).ok().map(|(m, loops)| {
        let edges = mesh::geom_buffers(object)
            .ok()
            .and_then(|g| mesh::mnmesh_edges(g).ok().flatten());
        serde_json::json!({
            "vertices": m.vertices.iter().map(|v| [v.0, v.1, v.2]).collect::<Vec<_>>(),
            "polys": loops.iter().map(|p| &p.v).collect::<Vec<_>>(),
            "edges": edges,
        })
    });
    let out = serde_json::json!({ "saved": tri(saved), "ours": tri(ours), "poly": poly });
    let path = format!("{dir}/{name}.json");
    if let Err(e) = std::fs::write(&path, out.to_string()) {
        eprintln!("{path}: {e}");
    }
}
