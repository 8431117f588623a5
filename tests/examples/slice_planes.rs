//! Prints the slice plane records (0x0420, 0x0430: each a 0x03e8 matrix of
//! 12 floats and a 0x03f2 word) of every Edit Poly Slice (20) / Slice Face
//! (21) operation in the given `.max` files: `slice_planes FILE…`. Used for
//! the NaN planes of chocolate.max's Spindles (docs/max-format.md).

use maxfs_scene::chunk::Chunk;

fn floats(c: &Chunk) -> Vec<f32> {
    c.payload()
        .map(|p| {
            p.chunks_exact(4)
                .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect()
        })
        .unwrap_or_default()
}

fn walk(kids: &[Chunk], out: &mut Vec<String>) {
    let mut last_op = None;
    for c in kids {
        if c.id == 0x0230 {
            last_op = c
                .payload()
                .and_then(|p| p.get(..4))
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        }
        if c.id == 0x0234 && matches!(last_op, Some(20 | 21)) {
            let mut stack = vec![c];
            while let Some(x) = stack.pop() {
                for k in x.children() {
                    if k.id == 0x0420 || k.id == 0x0430 {
                        let inner: Vec<String> = k
                            .children()
                            .iter()
                            .map(|x| format!("{:#06x}:{:?}", x.id, floats(x)))
                            .collect();
                        out.push(format!(
                            "op {:?} {:#06x} {:?} {:?}",
                            last_op,
                            k.id,
                            floats(k),
                            inner
                        ));
                    }
                    stack.push(k);
                }
            }
        }
    }
}

fn main() {
    maxfs_tests::for_each_stack(
        std::env::args().skip(1),
        |_path, _eval, _node, name, stack, _| {
            for (i, a) in stack.iter().enumerate() {
                if a.class != maxfs_scene::eval::modifier::EDIT_POLY {
                    continue;
                }
                let Some(l) = a
                    .mod_app
                    .and_then(|m| m.children().iter().find(|c| c.id == 0x2512))
                else {
                    continue;
                };
                let mut out = Vec::new();
                walk(l.children(), &mut out);
                for o in out {
                    println!("{name}\t[{i}]\t{o}");
                }
            }
        },
    );
}
