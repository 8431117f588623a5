//! Physique local data on arbitrary bytes: the bytes are read as a chunk
//! stream, every container is decoded as a Physique ModApp and as its vertex
//! data (0x2504's children), and what decodes is resolved through a link
//! table drawn from the input; every container is also read as the
//! modifier's link table (per-slot bind TMs) and as a ModApp's mesh TM, and
//! the clod texture compile rasterises triangles drawn from the input.
//! Nothing may panic; errors are precise.
#![no_main]
use libfuzzer_sys::fuzz_target;
use maxfs_scene::chunk::{self, Chunk};
use maxfs_scene::eval::modifier::physique::{decode, frames, resolve, Rig};

fuzz_target!(|data: &[u8]| {
    run(data);
    clod_texture(data);
});

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
        if let Ok(tms) = frames::bone_tms(c.children()) {
            assert!(tms.len() <= c.children().len());
        }
        std::hint::black_box(frames::mesh_tm(c));
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

/// The clod texture compile on positions, normals, UVs and triangles read
/// from the input as floats: any values (NaN, huge UVs) must rasterise
/// without panicking into the fixed 32×32 texture.
fn clod_texture(data: &[u8]) {
    let f: Vec<f32> = data
        .chunks_exact(4)
        .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .map(|x| if x.is_finite() { x.clamp(-4.0, 4.0) } else { x })
        .collect();
    let n = f.len() / 8;
    if n == 0 {
        return;
    }
    let pos: Vec<[f32; 3]> = (0..n).map(|i| [f[8 * i], f[8 * i + 1], f[8 * i + 2]]).collect();
    let nor: Vec<[f32; 3]> = (0..n).map(|i| [f[8 * i + 3], f[8 * i + 4], f[8 * i + 5]]).collect();
    let uvs: Vec<[f32; 2]> = (0..n).map(|i| [f[8 * i + 6], f[8 * i + 7]]).collect();
    let tris: Vec<u32> = data.iter().take(96).map(|&b| u32::from(b) % n as u32).collect();
    if let Ok(tex) =
        maxfs_exporters::nel::export::clod::texture::compile(&pos, &nor, &uvs, &tris, &[])
    {
        assert_eq!(tex.len(), 1024);
    }
}
