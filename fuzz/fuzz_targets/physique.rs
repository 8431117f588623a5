//! Physique local data on arbitrary bytes: the bytes are read as a chunk
//! stream, every container is decoded as a Physique ModApp and as its vertex
//! data (0x2504's children), and what decodes is resolved through a link
//! table drawn from the input. Nothing may panic; errors are precise.
#![no_main]
use libfuzzer_sys::fuzz_target;
use maxfs_scene::chunk::{self, Chunk};
use maxfs_scene::eval::modifier::physique::{decode, resolve, Rig};

fuzz_target!(|data: &[u8]| run(data));

fn run(data: &[u8]) {
    let Ok(chunks) = chunk::parse(data) else {
        return;
    };
    // A link table from the first bytes: slot i is NULL when its byte is 0,
    // else node i + 1 whose parent is node i (node 0 at the top).
    let refs: Vec<Option<usize>> = data
        .iter()
        .take(64)
        .enumerate()
        .map(|(i, &b)| (b != 0).then_some(i + 1))
        .collect();
    let parent = |n: usize| n.checked_sub(1);
    let com = |n: usize| n % 7 == 3;
    let rig = Rig {
        refs: &refs,
        parent: &parent,
        is_com: &com,
    };
    let mut stack: Vec<&Chunk> = chunks.iter().collect();
    while let Some(c) = stack.pop() {
        if !c.is_container() {
            continue;
        }
        for local in [
            decode::decode_mod_app(c),
            decode::decode_vertex_data(c.children()),
        ]
        .into_iter()
        .flatten()
        {
            if let Ok(w) = resolve(&local, &rig) {
                assert_eq!(w.len(), local.vertices.len());
                for v in &w {
                    assert!(v.len() <= 4);
                }
            }
        }
        stack.extend(c.children());
    }
}
