//! Survey of the chunks that may hold sub-object selection levels: one line
//! per layer of every node. `selection_survey FILE...`.

use maxfs_scene::chunk::Chunk;

fn leaf(cs: &[Chunk], id: u16) -> Option<&[u8]> {
    cs.iter().find(|c| c.id == id).and_then(Chunk::payload)
}
fn val(cs: &[Chunk], id: u16) -> String {
    match leaf(cs, id) {
        None => "-".into(),
        Some(p) if p.len() == 1 => format!("{}", p[0]),
        Some(p) if p.len() == 2 => format!("{}", u16::from_le_bytes([p[0], p[1]])),
        Some(p) if p.len() == 4 => format!("{}", u32::from_le_bytes([p[0], p[1], p[2], p[3]])),
        Some(p) => format!("[{}]", p.len()),
    }
}
fn u32s(p: &[u8]) -> Vec<u32> {
    p.chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}
/// Set bits of a bit array chunk 0x2700 (u32 count, then u32 words).
fn bits(c: Option<&Chunk>) -> String {
    let Some(c) = c else { return "-".into() };
    let p = c
        .children()
        .iter()
        .find(|k| k.id == 0x2700)
        .and_then(Chunk::payload)
        .or(c.payload());
    let Some(p) = p else { return "?".into() };
    let w = u32s(p);
    let Some((&n, rest)) = w.split_first() else {
        return "?".into();
    };
    let set: u32 = rest.iter().map(|x| x.count_ones()).sum();
    format!("{set}/{n}")
}

fn main() {
    for path in std::env::args().skip(1) {
        let Ok(eval) = maxfs_tests::eval_of(&path) else {
            continue;
        };
        for (o, n) in eval.graph.nodes() {
            let Some((stack, base)) = eval.modifier_stack(o.index) else {
                continue;
            };
            let names: Vec<&str> = stack.iter().map(|a| a.name).collect();
            let cls = eval.graph.objects.get(base).and_then(|x| x.class.as_ref());
            let cname = cls.map_or("?", |c| c.name.as_str());
            let ch = eval.chunks(base);
            let mut base_info = String::new();
            if cname == "Editable Poly" {
                let g = ch
                    .iter()
                    .find(|c| c.id == 0x08fe)
                    .map(Chunk::children)
                    .unwrap_or(&[]);
                let vsel = leaf(g, 0x0100).map(|p| {
                    let (mut at, mut s, mut live) = (4usize, 0, 0);
                    let nv = u32s(&p[..4.min(p.len())]).first().copied().unwrap_or(0);
                    for _ in 0..nv {
                        let Some(f) = p.get(at..at + 4) else { break };
                        let f = u32::from_le_bytes([f[0], f[1], f[2], f[3]]);
                        at += 4;
                        if f & 2 == 0 {
                            at += 12;
                            live += 1;
                            if f & 1 != 0 {
                                s += 1;
                            }
                        }
                    }
                    format!("{s}/{live}")
                });
                let esel = leaf(g, 0x010a).map(|p| {
                    let w = u32s(p);
                    let s = w
                        .get(1..)
                        .unwrap_or(&[])
                        .chunks_exact(3)
                        .filter(|r| r[0] & 1 != 0 && r[0] & 2 == 0)
                        .count();
                    format!("{s}/{}", w.first().copied().unwrap_or(0))
                });
                let fsel = maxfs_scene::eval::objects::mesh::selected_poly_faces(g)
                    .ok()
                    .flatten();
                let soft: Vec<String> = ch
                    .iter()
                    .find(|c| c.id == 0x0906)
                    .map(Chunk::children)
                    .unwrap_or(&[])
                    .iter()
                    .map(|c| format!("{:x}={}", c.id, val(std::slice::from_ref(c), c.id)))
                    .collect();
                base_info = format!(
                    "soft=[{}] g130={} g140={} g150={} t908={} t90a={} t90c={} vsel={} esel={} fsel={:?}",
                    soft.join(","), val(g, 0x0130), val(g, 0x0140), val(g, 0x0150), val(ch, 0x0908), val(ch, 0x090a), val(ch, 0x090c),
                    vsel.unwrap_or_default(), esel.unwrap_or_default(), fsel
                );
            } else if cname == "Editable Mesh" {
                let g = ch
                    .iter()
                    .find(|c| c.id == 0x08fe)
                    .map(Chunk::children)
                    .unwrap_or(&[]);
                base_info = format!(
                    "m906={} m924={} m928={} m92a={} vs={} fs={} es={} t902={} t903={} t904={}",
                    val(g, 0x0906),
                    val(g, 0x0924),
                    val(g, 0x0928),
                    val(g, 0x092a),
                    bits(g.iter().find(|c| c.id == 0x092c)),
                    bits(g.iter().find(|c| c.id == 0x092d)),
                    bits(g.iter().find(|c| c.id == 0x092e)),
                    val(ch, 0x0902),
                    val(ch, 0x0903),
                    val(ch, 0x0904)
                );
            }
            println!(
                "{path}\t{}\t{cname}\t{}\t{base_info}",
                n.name,
                names.join("|")
            );
            for (i, a) in stack.iter().enumerate() {
                let mc = eval.chunks(a.object);
                let ld: &[Chunk] = a
                    .mod_app
                    .map(|m| m.children())
                    .unwrap_or(&[])
                    .iter()
                    .find(|c| c.id == 0x2512)
                    .map(Chunk::children)
                    .unwrap_or(&[]);
                let info = match a.name {
                    "Edit Poly" => format!(
                        "m100={} ld200={} ld210={} ld220={}",
                        val(mc, 0x0100),
                        bits(ld.iter().find(|c| c.id == 0x0200)),
                        bits(ld.iter().find(|c| c.id == 0x0210)),
                        bits(ld.iter().find(|c| c.id == 0x0220))
                    ),
                    "Edit Mesh" => format!(
                        "m2800={} ld={:?}",
                        val(mc, 0x2800),
                        ld.iter()
                            .map(|c| format!(
                                "{:#x}:{}",
                                c.id,
                                if c.id >= 0x0300 && c.id < 0x0500 {
                                    bits(Some(c))
                                } else {
                                    String::new()
                                }
                            ))
                            .collect::<Vec<_>>()
                    ),
                    "Poly Select" | "Mesh Select" => format!(
                        "m100={} ld={:?}",
                        val(mc, 0x0100),
                        ld.iter()
                            .map(|c| format!("{:#x}:{}", c.id, bits(Some(c))))
                            .collect::<Vec<_>>()
                    ),
                    _ => continue,
                };
                println!("{path}\t{}\tLAYER {i}\t{}\t{info}", n.name, a.name);
            }
        }
    }
}
