//! Compares, for every node of the given `.max` files whose top modifier is
//! an Unwrap UVW on an evaluated stack, our mesh below the Unwrap with the
//! input the Unwrap cached (Max's own): vertex positions, each triangle's
//! corners and its edge visibility against the cache records' hidden-edge
//! flags (bits 8–10, triangle inputs). `cargo run --release -p maxfs-tests
//! --example unwrap_cache_check -- FILE…`; one line per node. Used for the
//! Edit Mesh map-delta measurement in docs/unseen-files.md (fifth sweep).

use maxfs_scene::eval::core::memo::Stack;
use maxfs_tests::le_words;

fn main() {
    maxfs_tests::for_each_stack(std::env::args().skip(1), |path, eval, o, name, stack, _| {
        // The Unwrap nearest the top, and the modifiers above it left out.
        let Some(at) = stack.iter().position(|a| a.name == "Unwrap UVW") else {
            return;
        };
        let Some(local) = stack[at]
            .mod_app
            .and_then(|a| a.children().iter().find(|c| c.id == 0x2512))
        else {
            return;
        };
        if !local.children().iter().any(|c| c.id == 0x0330) {
            return;
        }
        let above: Vec<usize> = stack[..at].iter().map(|a| a.object).collect();
        let (pos, polys) = maxfs_tests::unwrap_cache(local);
        // The records' flags, in order (only triangles are compared).
        let w = le_words(
            local
                .children()
                .iter()
                .find(|c| c.id == 0x0870)
                .and_then(|c| c.payload())
                .unwrap_or(&[]),
        );
        let mut flags = Vec::new();
        let mut k = 1;
        for _ in 0..w.first().copied().unwrap_or(0) {
            let deg = w[k] as usize;
            flags.push(w[k + 3 + deg]);
            k += 1 + 2 * deg + 3;
        }
        let mesh = if above.len() == 1 {
            eval.mesh_with(o, 0, Stack::Without(above[0]))
        } else if above.is_empty() {
            eval.mesh_with(o, 0, Stack::Replayed)
        } else {
            println!(
                "{path}\t{name}\t{} modifiers above the Unwrap: skipped",
                above.len()
            );
            return;
        };
        let m = match mesh {
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                println!("{path}\t{name}\tnot evaluated: {e}");
                return;
            }
            None => return,
        };
        let stood_in = m
            .missing_parts
            .iter()
            .any(|p| p.source.contains("Unwrap UVW cache"));
        let mut worst = 0.0f64;
        for (a, b) in m.vertices.iter().zip(&pos) {
            worst = worst
                .max((a.0 - b[0]).abs())
                .max((a.1 - b[1]).abs())
                .max((a.2 - b[2]).abs());
        }
        let tri = polys.iter().all(|(v, _)| v.len() == 3);
        let (mut same_faces, mut same_edges) = (0, 0);
        if tri {
            for (i, f) in m.faces.iter().enumerate() {
                if polys.get(i).is_some_and(|(v, _)| v[..] == f.v[..]) {
                    same_faces += 1;
                }
                let hidden = (0..3)
                    .filter(|&e| f.flags & (1 << e) == 0)
                    .map(|e| 1u32 << (8 + e))
                    .sum::<u32>();
                if flags.get(i).is_some_and(|&fl| fl & 0x700 == hidden) {
                    same_edges += 1;
                }
            }
        }
        println!(
            "{path}\t{name}\tstood in: {stood_in}\tvertices {} / cache {} (worst {worst:.2e})\tfaces {} / cache {}\ttriangles equal {same_faces}\tedge visibility equal {same_edges}",
            m.vertices.len(),
            pos.len(),
            m.faces.len(),
            polys.len()
        );
    });
}
