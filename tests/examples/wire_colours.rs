//! Prints every node's stored colours: `wire_colours FILE…` → file, node,
//! its own object colour (0x0974), its 0x0A28 flag bytes, and the colour of
//! each Base Layer it references (0x1030). Used to pin which colour 3ds Max
//! exports for a node (docs/max-format.md, "Object colour").

use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;

const BASE_LAYER: (u32, u32) = (0x7e98_58fe, 0x1dba_1df0);

fn hex(b: Option<&[u8]>) -> String {
    b.map_or("-".into(), |b| {
        b.iter().map(|x| format!("{x:02x}")).collect()
    })
}

fn main() {
    for a in std::env::args().skip(1) {
        let Ok(doc) = Document::open(std::path::Path::new(&a)) else {
            continue;
        };
        let Ok(eval) = SceneEval::from_document(doc) else {
            continue;
        };
        for (o, n) in eval.graph.nodes() {
            let leaf = |idx: usize, id: u16| {
                eval.chunks(idx)
                    .iter()
                    .find(|c| c.id == id)
                    .and_then(|c| c.payload())
            };
            let layers: Vec<String> = o
                .references
                .iter()
                .filter_map(|r| {
                    let t = usize::try_from(r.target).ok()?;
                    let c = eval.graph.class(t)?;
                    (c.class_id.0 == BASE_LAYER.0 && c.class_id.1 == BASE_LAYER.1)
                        .then(|| format!("{}:{}", r.slot, hex(leaf(t, 0x1030))))
                })
                .collect();
            println!(
                "{a}\t{}\t{}\t{}\t{}",
                n.name,
                hex(leaf(o.index, 0x0974)),
                hex(leaf(o.index, 0x0A28)),
                layers.join(",")
            );
        }
    }
}
