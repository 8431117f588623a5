//! Dev tool: every Text shape (0x1993, 0) of a file, under the node that
//! shows it: its top-level chunks (id, size, small payloads in hex), the
//! string, the text block's size, kerning and leading, and the shape's
//! evaluation or refusal: `text_dump FILE`. Used for docs/evaluation.md's
//! "Text" measurements.

use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::objects::primitive::block_params;
use maxfs_scene::eval::objects::shape;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [file] = a.as_slice() else {
        eprintln!("text_dump FILE");
        std::process::exit(2);
    };
    let eval = maxfs_tests::eval_or_exit(file);
    let nodes: Vec<(usize, String)> = eval
        .graph
        .nodes()
        .map(|(o, n)| (o.index, n.name.clone()))
        .collect();
    for (node, name) in nodes {
        let Some(obj) = eval.node_object(node) else {
            continue;
        };
        let is_text = eval
            .graph
            .objects
            .get(obj)
            .and_then(|o| o.class.as_ref())
            .is_some_and(|c| c.class_id.0 == 0x1993 && c.class_id.1 == 0);
        if !is_text {
            continue;
        }
        println!("== {name} (object {obj})");
        for c in eval.chunks(obj) {
            if c.is_container() {
                println!(
                    "  {:#06x} container ({} children)",
                    c.id,
                    c.children().len()
                );
                continue;
            }
            let p = c.payload().unwrap_or(&[]);
            let text: String = if c.id == 0x1015 {
                let u: Vec<u16> = p
                    .get(4..)
                    .unwrap_or(&[])
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]))
                    .collect();
                format!("{:?}", String::from_utf16_lossy(&u))
            } else if c.id == 0x1010 || c.id == 0x1000 {
                format!("{:?}", String::from_utf8_lossy(p.get(4..).unwrap_or(&[])))
            } else if p.len() <= 16 {
                p.iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            } else if c.id == 0x1035 {
                p.get(4..)
                    .unwrap_or(&[])
                    .chunks(5)
                    .map(|e| {
                        format!(
                            "{}/{:02x}",
                            u32::from_le_bytes([e[0], e[1], e[2], e[3]]),
                            e.get(4).copied().unwrap_or(0)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            } else {
                String::new()
            };
            println!("  {:#06x} {} bytes {text}", c.id, p.len());
        }
        let params = pblock::reference(&eval.graph, obj, 1)
            .and_then(|pb| block_params(&eval, pb, 0).ok())
            .map(|p| {
                (0..3)
                    .map(|i| format!("{}", p.float_or(i, f64::NAN)))
                    .collect::<Vec<_>>()
            });
        println!("  size, kerning, leading: {params:?}");
        match shape::bezier_shape(&eval, obj, 0) {
            Ok(Some(s)) => println!("  evaluated: {} splines", s.splines.len()),
            Ok(None) => println!("  not a Bezier shape"),
            Err(e) => println!("  refused: {e}"),
        }
    }
}
