//! Prints, per `.max` file, the bytes of evaluated meshes its scene holds once
//! every node's mesh at t = 0 is evaluated (what glTF and the NeL exports ask
//! for): `memo_bytes FILE…`. Used to set the per-file mesh budget
//! (`DEFAULT_MESH_BUDGET`, docs/user-guide.md "Limits").

use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;

fn main() {
    for a in std::env::args().skip(1) {
        let Ok(doc) = Document::open(std::path::Path::new(&a)) else {
            println!("{a}\tunreadable");
            continue;
        };
        let Ok(eval) = SceneEval::from_document(doc) else {
            println!("{a}\tno scene");
            continue;
        };
        let mut refused = 0;
        for n in 0..eval.graph.objects.len() {
            if let Some(Err(e)) = eval.mesh(n, 0) {
                if matches!(e.kind(), maxfs_scene::eval::EvalErrorKind::Limit) {
                    refused += 1;
                }
            }
        }
        let s = eval.memo_stats();
        println!("{a}\t{}\t{}\t{refused}", s.bytes, s.node_evaluations);
    }
}
