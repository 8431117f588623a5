//! Deterministic mutations of corpus NeL files through the readers: no panic, and each
//! mutant either reads (and then rewrites byte-identically) or fails with an error.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use maxfs_exporters::nel;
use maxfs_tests::mutation::Rng;

fn seeds() -> Vec<PathBuf> {
    let root = maxfs_tests::corpus_dir().join("nel");
    let exts = [
        "shape", "skel", "anim", "swt", "ig", "zonel", "ps", "bank", "farbank", "gr",
    ];
    let mut out = Vec::new();
    for e in exts {
        // A few small files per format keep the run short.
        let mut files = maxfs_tests::files_with_ext(&root, &[e]);
        files.sort_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0));
        out.extend(files.into_iter().take(3));
    }
    out
}

fn mutate(rng: &mut Rng, src: &[u8]) -> Vec<u8> {
    let mut b = src.to_vec();
    if b.is_empty() {
        return b;
    }
    match rng.below(5) {
        0 => {
            // bit flips
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
        }
        1 => {
            let n = rng.below(b.len());
            b.truncate(n);
        }
        2 => {
            // plausible length/count field edit: overwrite a u32 with a large or small value
            let i = rng.below(b.len().saturating_sub(4).max(1));
            let v: u32 = match rng.below(4) {
                0 => u32::MAX,
                1 => 0x7FFF_FFFF,
                2 => rng.next() as u32,
                _ => (rng.below(300)) as u32,
            };
            for (k, x) in v.to_le_bytes().iter().enumerate() {
                if let Some(d) = b.get_mut(i + k) {
                    *d = *x;
                }
            }
        }
        3 => {
            let i = rng.below(b.len());
            b[i] = rng.next() as u8;
        }
        _ => {
            // duplicate or delete a span
            let i = rng.below(b.len());
            let n = 1 + rng.below(16);
            if rng.below(2) == 0 {
                let end = (i + n).min(b.len());
                b.drain(i..end);
            } else {
                let end = (i + n).min(b.len());
                let span: Vec<u8> = b[i..end].to_vec();
                b.splice(i..i, span);
            }
        }
    }
    b
}

#[test]
fn mutated_nel_files_never_panic() {
    let files = seeds();
    assert!(files.len() >= 20, "too few seed files: {}", files.len());
    let data: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(p).unwrap())
        })
        .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut errs) = (0usize, 0usize);
    let total = 2000;
    for n in 0..total {
        let (name, src) = &data[n % data.len()];
        let m = mutate(&mut rng, src);
        let t = Instant::now();
        match nel::read_nel(&m, name) {
            Ok(f) => {
                let out = nel::write_nel(&f).expect("a decoded mutant must encode");
                if out != m {
                    let at = out.iter().zip(&m).position(|(a, b)| a != b);
                    panic!(
                        "mutant {n} of {name} read but rewrote differently at {at:?} ({} vs {} bytes): {:02x?}",
                        out.len(),
                        m.len(),
                        &m[..m.len().min(80)]
                    );
                }
                let _ = nel::json::to_json(&f, false).expect("json");
                ok += 1;
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(!msg.is_empty());
                errs += 1;
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "mutant {n} of {name} took {:?}",
            t.elapsed()
        );
    }
    eprintln!("{total} mutants: {ok} read and rewrote identically, {errs} rejected with an error");
    assert_eq!(ok + errs, total);
}

#[test]
fn unknown_versions_are_refused_with_class_and_version() {
    let p = maxfs_tests::corpus_dir().join("nel/snowballs/anims/gnu_all.swt");
    let mut b = std::fs::read(p).unwrap();
    b[4] = 7; // CSkeletonWeight version byte
    let e = nel::read_nel(&b, "gnu_all.swt").unwrap_err().to_string();
    assert!(
        e.contains("CSkeletonWeight") && e.contains("unknown version 7"),
        "{e}"
    );
}

#[test]
fn huge_counts_do_not_allocate() {
    // A shape stream whose class-name length claims 4 GB.
    let mut b = b"SHAP\x01\0\0\0\0\0\0\0".to_vec();
    b.extend_from_slice(&u32::MAX.to_le_bytes());
    let e = nel::read_nel(&b, "x.shape").unwrap_err().to_string();
    assert!(e.contains("left") || e.contains("negative"), "{e}");
}
