use maxfs_scene::{
    chunk::{self, Body, Chunk},
    container::MaxFile,
};
fn show(c: &[Chunk], d: usize, max_d: usize) {
    for (i, ch) in c.iter().enumerate() {
        match &ch.body {
            Body::Leaf(p) => {
                let n = p.len().min(48);
                println!(
                    "{:w$}{i:04}-{:04X}{} [{}] {:02x?}",
                    "",
                    ch.id,
                    if ch.wide { "W" } else { "" },
                    p.len(),
                    &p[..n],
                    w = d * 2
                );
            }
            Body::Container(k) => {
                println!(
                    "{:w$}{i:04}-{:04X}{}/ ({})",
                    "",
                    ch.id,
                    if ch.wide { "W" } else { "" },
                    k.len(),
                    w = d * 2
                );
                if d < max_d {
                    show(k, d + 1, max_d)
                }
            }
        }
    }
}
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let f = MaxFile::open(a[1].as_ref()).unwrap();
    let s = f.stream(&a[2]).unwrap();
    let d: usize = a.get(3).map(|x| x.parse().unwrap()).unwrap_or(99);
    show(&chunk::parse(&s.data).unwrap(), 0, d);
}
