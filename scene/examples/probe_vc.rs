use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
fn main() {
    for a in std::env::args().skip(1) {
        let Ok(doc) = Document::open(std::path::Path::new(&a)) else {
            continue;
        };
        let Ok(eval) = SceneEval::from_document(doc) else {
            continue;
        };
        for (o, _) in eval.graph.nodes() {
            let node = o.index;
            if let Some(Ok(m)) = eval.mesh(node, 0) {
                let ch: Vec<i32> = m.maps.iter().map(|c| c.channel).collect();
                if ch.iter().any(|&c| c <= 0) {
                    let vc = m.maps.iter().find(|c| c.channel <= 0).unwrap();
                    println!(
                        "{a}\t{}\t{:?}\t{:?}",
                        eval.graph.node_name(node),
                        ch,
                        &vc.vertices[..vc.vertices.len().min(3)]
                    );
                }
            }
        }
    }
}
