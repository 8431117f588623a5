use maxfs_scene::{chunk, container::MaxFile, Document};
use std::time::{Duration, Instant};
fn main() {
    let mut t = [Duration::ZERO; 5];
    let files: Vec<Vec<u8>> = std::env::args()
        .skip(1)
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    for _ in 0..5 {
        for b in &files {
            let s = Instant::now();
            let f = MaxFile::from_bytes(b).unwrap();
            t[0] += s.elapsed();
            let s = Instant::now();
            let d = Document::from_file(f);
            t[1] += s.elapsed();
            let s = Instant::now();
            for sd in &d.streams {
                if let Some(c) = sd.chunks() {
                    std::hint::black_box(chunk::write(c));
                }
            }
            t[2] += s.elapsed();
            let s = Instant::now();
            let ty = d.typed();
            t[3] += s.elapsed();
            let s = Instant::now();
            for ts in &ty.streams {
                std::hint::black_box(ts.to_bytes());
            }
            t[4] += s.elapsed();
        }
    }
    println!(
        "open {:?} parse {:?} t1write {:?} typed {:?} t2build+write {:?}",
        t[0] / 5,
        t[1] / 5,
        t[2] / 5,
        t[3] / 5,
        t[4] / 5
    );
}
