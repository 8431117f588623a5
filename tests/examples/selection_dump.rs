//! Lists, per node, the modifier stack (top first) and the small chunks of
//! each layer and its local data: for finding where sub-object selection
//! levels are saved. `selection_dump FILE [NODE]`.

use maxfs_scene::chunk::Chunk;

fn small(c: &Chunk, depth: usize, out: &mut String) {
    if depth > 3 {
        return;
    }
    let pad = "  ".repeat(depth);
    match c.payload() {
        Some(p) => {
            let show: Vec<String> = p.iter().take(16).map(|b| format!("{b:02x}")).collect();
            out.push_str(&format!(
                "{pad}{:#06x} [{}] {}\n",
                c.id,
                p.len(),
                show.join("")
            ));
        }
        None => {
            out.push_str(&format!("{pad}{:#06x} {{\n", c.id));
            for k in c.children() {
                small(k, depth + 1, out);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: selection_dump FILE [NODE]");
        return;
    };
    let eval = maxfs_tests::eval_or_exit(path);
    for (o, n) in eval.graph.nodes() {
        if args.get(1).is_some_and(|w| *w != n.name) {
            continue;
        }
        let Some((stack, base)) = eval.modifier_stack(o.index) else {
            continue;
        };
        let cls = eval.graph.objects.get(base).and_then(|x| x.class.as_ref());
        println!(
            "== {} base {}",
            n.name,
            cls.map_or("?", |c| c.name.as_str())
        );
        let mut s = String::new();
        for c in eval.chunks(base) {
            small(c, 1, &mut s);
        }
        println!("{s}");
        for a in &stack {
            println!("-- {} {:?}", a.name, a.class);
            let mut s = String::new();
            for c in eval.chunks(a.object) {
                small(c, 1, &mut s);
            }
            if let Some(m) = a.mod_app {
                s.push_str("  modapp:\n");
                small(m, 2, &mut s);
            }
            println!("{s}");
        }
    }
}
