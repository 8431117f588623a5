//! Modifier local data on arbitrary bytes: the bytes are read as a chunk
//! stream and every chunk, container or leaf, is decoded as the local data
//! (0x2512) of a Map Extender (its stored map) and of a NeL VertexTreePaint
//! (its colour list). Nothing may panic; what decodes is consistent: every
//! stored face corner names a stored texture vertex.
#![no_main]
use libfuzzer_sys::fuzz_target;
use maxfs_scene::chunk::{self, Chunk};
use maxfs_scene::eval::modifier::{map_extender, vertex_tree_paint};

fuzz_target!(|data: &[u8]| {
    // The whole input as a leaf 0x2512 (its payload read as chunks) ...
    check(&Chunk::leaf(0x2512, data.to_vec()));
    let Ok(chunks) = chunk::parse(data) else {
        return;
    };
    // ... and every chunk of it as a container or leaf 0x2512.
    check(&Chunk::container(0x2512, chunks.clone()));
    let mut stack: Vec<&Chunk> = chunks.iter().collect();
    while let Some(c) = stack.pop() {
        check(c);
        stack.extend(c.children());
    }
});

fn check(local: &Chunk) {
    if let Ok(m) = map_extender::stored(Some(local)) {
        assert!((-2..=99).contains(&m.channel));
        let n = m.vertices.len() as u32;
        assert!(m.faces.iter().flatten().all(|&t| t < n));
    }
    if let Ok(c) = vertex_tree_paint::colours(Some(local)) {
        assert!(c.len() <= 1 << 22);
    }
}
