//! Compares each Loft's own mesh with the nearest Unwrap UVW cache above it
//! (Max's mesh of the stack below that Unwrap): `loft_check FILE.max…`. The
//! modifiers between the Loft and the Unwrap (an Edit Poly) append their new
//! vertices and polygons after the Loft's, so the Loft's vertices are compared
//! index for index (within 1e-5 of the Loft's size: how many agree, the
//! worst of those, and the worst overall), its side quads and caps with the
//! cache's leading polygons (corners as a cyclic sequence), and the node's
//! whole stack is evaluated (our result, or why it is refused). Used for
//! the Loft measurements in docs/unseen-files.md.

use maxfs_scene::eval::core::memo::Stack;
use maxfs_scene::eval::objects::loft;

fn main() {
    maxfs_tests::for_each_stack(
        std::env::args().skip(1),
        |path, eval, o, name, stack, base| {
            let is_loft = eval
                .graph
                .objects
                .get(base)
                .and_then(|b| b.class.as_ref())
                .is_some_and(|c| loft::is_loft(c.class_id));
            if !is_loft {
                return;
            }
            let ours = match loft::eval(eval, base, 0) {
                Ok(m) => m,
                Err(e) => {
                    println!("{path}\t{name}\tLoft refused: {e}");
                    return;
                }
            };
            let full = match eval.mesh_with(o, 0, Stack::Replayed) {
                Some(Ok(m)) => format!("stack evaluated: {} vertices", m.vertices.len()),
                Some(Err(e)) => format!("stack: {e}"),
                None => "no mesh".to_string(),
            };
            // The lowest Unwrap of the stack (top first).
            let Some(local) = stack
                .iter()
                .rev()
                .filter(|a| a.name == "Unwrap UVW")
                .find_map(|a| {
                    a.mod_app
                        .and_then(|m| m.children().iter().find(|c| c.id == 0x2512))
                        .filter(|l| l.children().iter().any(|c| c.id == 0x0330))
                })
            else {
                println!("{path}\t{name}\tno Unwrap cache\t{full}");
                return;
            };
            let (pos, polys) = maxfs_tests::unwrap_cache(local);
            let size = ours
                .vertices
                .iter()
                .map(|v| v.len())
                .fold(0.0f64, f64::max)
                .max(1e-30);
            let (mut agree, mut worst_agree, mut worst) = (0, 0.0f64, 0.0f64);
            for (a, b) in ours.vertices.iter().zip(&pos) {
                let d = ((a.0 - b[0]).powi(2) + (a.1 - b[1]).powi(2) + (a.2 - b[2]).powi(2)).sqrt()
                    / size;
                worst = worst.max(d);
                if d <= 1e-5 {
                    agree += 1;
                    worst_agree = worst_agree.max(d);
                }
            }
            let poly = loft::as_poly(&ours);
            let (mut same, mut cyclic, mut np) = (0, 0, 0);
            if let Ok(p) = &poly {
                np = p.faces.len();
                for (f, (v, _)) in p.faces.iter().zip(&polys) {
                    if f.v[..] == v[..] {
                        same += 1;
                    }
                    let n = v.len();
                    if f.v.len() == n && (0..n).any(|s| (0..n).all(|k| f.v[(s + k) % n] == v[k])) {
                        cyclic += 1;
                    }
                }
            }
            println!(
            "{path}\t{name}\tvertices {} / cache {}: {agree} within 1e-5 (worst of those {worst_agree:.2e}, overall {worst:.2e} of size {size:.3})\tpolygons {np}: {same} equal, {cyclic} equal up to the start corner (cache {})\t{full}",
            ours.vertices.len(),
            pos.len(),
            polys.len()
        );
        },
    );
}
