//! Prints every Max 2017+ Boolean (Boolean3) in the given `.max` files: the
//! nodes on it, its own chunks (ids with their payload as i32 words), and the
//! records of its ParamBlock2 (raw hex), with each operand's object class.
//! `cargo run --release -p maxfs-tests --example boolean3_dump -- FILE…`.
//! Used to decode the operand tree (docs/max-format.md).
use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::objects::boolean::BOOLEAN3;

fn words(p: &[u8]) -> String {
    if p.len().is_multiple_of(4) && p.len() <= 400 {
        let w: Vec<i32> = p
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        format!("{w:?}")
    } else {
        p.iter()
            .take(200)
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join("")
    }
}

fn dump(c: &Chunk, depth: usize) {
    let pad = "  ".repeat(depth + 2);
    match c.payload() {
        Some(p) => {
            let text = if depth == 1 && c.id == 0x0064 && p.len() > 4 {
                String::from_utf16_lossy(
                    &p.chunks_exact(2)
                        .map(|b| u16::from_le_bytes([b[0], b[1]]))
                        .collect::<Vec<_>>(),
                )
            } else {
                String::new()
            };
            println!("{pad}{:#06x} [{}] {} {text:?}", c.id, p.len(), words(p));
        }
        None => {
            println!("{pad}{:#06x} {{", c.id);
            for k in c.children() {
                dump(k, depth + 1);
            }
        }
    }
}

fn main() {
    for eval in maxfs_tests::each_eval(std::env::args().skip(1)) {
        let g = &eval.graph;
        for o in &g.objects {
            if o.class.as_ref().is_none_or(|c| c.class_id != BOOLEAN3) {
                continue;
            }
            let users: Vec<String> = g
                .nodes()
                .filter(|(no, _)| {
                    eval.modifier_stack(no.index)
                        .is_some_and(|(_, b)| b == o.index)
                })
                .map(|(_, n)| n.name.clone())
                .collect();
            println!("-- object {} nodes {users:?}", o.index);
            for c in eval.chunks(o.index) {
                dump(c, 0);
            }
            let Some(pb) = pblock::reference(g, o.index, 0) else {
                continue;
            };
            println!("   block {pb}");
            for c in eval.chunks(pb) {
                dump(c, 0);
            }
            for slot in 0..64 {
                if let Some(r) = pblock::reference(g, pb, slot) {
                    let cls = g.objects.get(r).and_then(|x| x.class.as_ref());
                    let base = eval.object_stack(r).map(|(_, b)| b);
                    let bcls = base
                        .and_then(|b| g.objects.get(b))
                        .and_then(|x| x.class.as_ref())
                        .map(|c| c.name.clone());
                    println!(
                        "   ref {slot}: {r} {:?} base {:?}",
                        cls.map(|c| c.name.clone()),
                        bcls
                    );
                }
            }
        }
    }
}
