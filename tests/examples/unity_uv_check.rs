//! Compares map channel 1 of one evaluated node with the mesh Unity imported
//! from the same `.max` (Unity converts a .max through Max's FBX exporter and
//! keeps the result in its Library/metadata file, which some public projects
//! commit: aintech/BitDefence): `cargo run --release -p maxfs-tests --example
//! unity_uv_check -- <file.max> <node> <Library/metadata/xx/guid>`.
//!
//! Unity 4's serialized mesh interleaves position, normal, UV and tangent
//! (48 bytes a vertex). The file is not parsed: every run of at least three
//! such records (unit normals, finite values) is taken as a candidate vertex
//! list, and the run whose UV set is closest to ours is reported — the
//! largest distance from each of its UVs to our nearest corner UV and back,
//! and the counts. Our corners are compared as a set (Unity welds equal
//! corners and its axes and scale differ from Max's), which the distinct
//! scaled values of a real-world mapping make a strict test.

fn f32_at(d: &[u8], at: usize) -> f32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&d[at..at + 4]);
    f32::from_le_bytes(b)
}

/// Whether a 48-byte vertex record (position, normal, UV, tangent) starts at `at`.
fn record(d: &[u8], at: usize) -> bool {
    if at + 48 > d.len() {
        return false;
    }
    let v: Vec<f32> = (0..12).map(|i| f32_at(d, at + 4 * i)).collect();
    let n = v[3] * v[3] + v[4] * v[4] + v[5] * v[5];
    let t = v[8] * v[8] + v[9] * v[9] + v[10] * v[10];
    v.iter().all(|x| x.is_finite() && x.abs() < 1e6)
        && (n - 1.0).abs() < 1e-3
        && (t - 1.0).abs() < 1e-3
        && (v[11].abs() - 1.0).abs() < 1e-3
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: unity_uv_check <file.max> <node> <unity metadata file>");
        std::process::exit(2);
    }
    let eval = maxfs_tests::eval_or_exit(&args[1]);
    let node = maxfs_tests::node_named(&eval.graph, &args[2]);
    let mesh = match eval.mesh(node, 0) {
        Some(Ok(m)) => m,
        other => {
            eprintln!("{}: no mesh: {:?}", args[2], other.map(|r| r.err()));
            std::process::exit(1);
        }
    };
    let Some(ch) = mesh.maps.iter().find(|c| c.channel == 1) else {
        eprintln!("{}: no channel 1: {:?}", args[2], mesh.missing_maps);
        std::process::exit(1);
    };
    let ours: Vec<[f64; 2]> = ch
        .faces
        .iter()
        .flatten()
        .map(|&t| {
            let c = ch.vertices[t as usize];
            [f64::from(c[0]), f64::from(c[1])]
        })
        .collect();
    let d = match std::fs::read(&args[3]) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{}: {e}", args[3]);
            std::process::exit(1);
        }
    };
    let nearest = |a: [f64; 2], b: &[[f64; 2]]| {
        b.iter()
            .map(|c| ((a[0] - c[0]).powi(2) + (a[1] - c[1]).powi(2)).sqrt())
            .fold(f64::INFINITY, f64::min)
    };
    let mut best: Option<(f64, usize, usize)> = None;
    let mut at = 0;
    while at + 48 <= d.len() {
        if !record(&d, at) || (at >= 48 && record(&d, at - 48)) {
            at += 4;
            continue;
        }
        let mut theirs = Vec::new();
        let mut k = at;
        while record(&d, k) {
            theirs.push([f64::from(f32_at(&d, k + 24)), f64::from(f32_at(&d, k + 28))]);
            k += 48;
        }
        if theirs.len() >= 3 {
            let worst = theirs
                .iter()
                .map(|&t| nearest(t, &ours))
                .chain(ours.iter().map(|&o| nearest(o, &theirs)))
                .fold(0.0, f64::max);
            if best.is_none_or(|b| worst < b.0) {
                best = Some((worst, at, theirs.len()));
            }
        }
        at += 4;
    }
    match best {
        Some((worst, at, n)) => println!(
            "{}\t{}\tUnity vertices {n} at byte {at}; our corners {}; worst UV distance both ways {worst:.2e}",
            args[1],
            args[2],
            ours.len()
        ),
        None => println!("{}\t{}\tno vertex list found", args[1], args[2]),
    }
}
