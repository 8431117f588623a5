use maxfs_scene::eval::core::coverage::modifiers;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
fn main() {
    for a in std::env::args().skip(1) {
        let doc = Document::open(std::path::Path::new(&a)).expect("opens");
        let eval = SceneEval::from_document(doc).expect("scene");
        for (o, _) in eval.graph.nodes() {
            let node = o.index;
            let mods: Vec<String> = modifiers(&eval, node)
                .into_iter()
                .map(|m| {
                    eval.graph
                        .objects
                        .get(m)
                        .and_then(|o| o.class.as_ref())
                        .map_or("?".into(), |c| c.name.clone())
                })
                .collect();
            if !mods.iter().any(|m| m == "Unwrap UVW") {
                continue;
            }
            let r = eval.mesh(node, 0);
            let s = match r {
                Some(Ok(m)) => format!("ok {} faces", m.faces.len()),
                Some(Err(e)) => format!("ERR {e}"),
                None => "none".into(),
            };
            println!("{a}\t{}\t{:?}\t{s}", eval.graph.node_name(node), mods);
        }
    }
}
