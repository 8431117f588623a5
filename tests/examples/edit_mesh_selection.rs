//! Prints, per Edit Mesh of a node's stack (top first), its sub-object level,
//! the MeshDelta's chunk ids and every BitArray (0x2700) it saves as the list
//! of set bits: for reading the selection an Edit Mesh leaves live.
//! `edit_mesh_selection FILE [NODE]`.

use maxfs_scene::chunk::Chunk;

fn bits(p: &[u8]) -> String {
    let Some(n) = p
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    else {
        return "?".into();
    };
    let set: Vec<String> = (0..n as usize)
        .filter(|&i| p.get(4 + i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0))
        .map(|i| i.to_string())
        .collect();
    format!("{n} bits, {} set: {}", set.len(), set.join(" "))
}

fn walk(c: &Chunk, depth: usize) {
    let pad = "  ".repeat(depth);
    match c.payload() {
        Some(p) if c.id == 0x2700 => println!("{pad}{:#06x} {}", c.id, bits(p)),
        Some(p) if p.len() <= 8 => println!("{pad}{:#06x} {:02x?}", c.id, p),
        Some(p) => println!("{pad}{:#06x} [{}]", c.id, p.len()),
        None => {
            println!("{pad}{:#06x} {{", c.id);
            for k in c.children() {
                walk(k, depth + 1);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: edit_mesh_selection FILE [NODE]");
        return;
    };
    let eval = maxfs_tests::eval_or_exit(path);
    for (o, n) in eval.graph.nodes() {
        if args.get(1).is_some_and(|w| *w != n.name) {
            continue;
        }
        let Some((stack, _)) = eval.modifier_stack(o.index) else {
            continue;
        };
        println!("== {}", n.name);
        for a in &stack {
            println!("-- {} {:?}", a.name, a.class);
            if a.name != "Edit Mesh" {
                continue;
            }
            for c in eval.chunks(a.object).iter().filter(|c| c.id == 0x2800) {
                walk(c, 1);
            }
            if let Some(m) = a.mod_app {
                for l in m.children().iter().filter(|c| c.id == 0x2512) {
                    walk(l, 1);
                }
            }
        }
    }
}
