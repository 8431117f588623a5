//! Prints every Base Layer of a file: `layer_dump FILE…` → file, layer
//! object, its leaf chunks (id=hex, long ones cut), and how many nodes
//! reference it, how many of them have the hide bit and their 0x0A28 bytes.

use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use std::collections::BTreeMap;

const BASE_LAYER: (u32, u32) = (0x7e98_58fe, 0x1dba_1df0);

fn hex(b: &[u8]) -> String {
    let s: String = b.iter().take(24).map(|x| format!("{x:02x}")).collect();
    if b.len() > 24 {
        format!("{s}..({})", b.len())
    } else {
        s
    }
}

fn main() {
    for a in std::env::args().skip(1) {
        let Ok(doc) = Document::open(std::path::Path::new(&a)) else {
            continue;
        };
        let Ok(eval) = SceneEval::from_document(doc) else {
            continue;
        };
        let mut per: BTreeMap<usize, (usize, usize, BTreeMap<String, usize>)> = BTreeMap::new();
        for (o, _) in eval.graph.nodes() {
            for r in &o.references {
                let Ok(t) = usize::try_from(r.target) else {
                    continue;
                };
                let Some(c) = eval.graph.class(t) else {
                    continue;
                };
                if (c.class_id.0, c.class_id.1) != BASE_LAYER {
                    continue;
                }
                let e = per.entry(t).or_default();
                e.0 += 1;
                if eval.is_hidden(o.index) {
                    e.1 += 1;
                }
                let fl = eval
                    .chunks(o.index)
                    .iter()
                    .find(|c| c.id == 0x0A28)
                    .and_then(|c| c.payload())
                    .map(hex)
                    .unwrap_or_default();
                *e.2.entry(fl).or_default() += 1;
            }
        }
        for (i, o) in eval.graph.objects.iter().enumerate() {
            let Some(c) = eval.graph.class(i) else {
                continue;
            };
            if (c.class_id.0, c.class_id.1) != BASE_LAYER {
                continue;
            }
            let _ = o;
            let leaves: Vec<String> = eval
                .chunks(i)
                .iter()
                .map(|c| match c.payload() {
                    Some(p) => format!("{:04x}={}", c.id, hex(p)),
                    None => format!("{:04x}[{}]", c.id, c.children().len()),
                })
                .collect();
            let (n, h, fl) = per.get(&i).cloned().unwrap_or_default();
            println!(
                "{a}\t{i}\tnodes={n} hidden={h}\t{}\t{:?}",
                leaves.join(" "),
                fl
            );
        }
    }
}
