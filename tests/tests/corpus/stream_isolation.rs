//! One bad stream does not poison its file (issue 13): a gzip stream over the
//! per-stream cap, streams past the per-file decompression budget, and the
//! streams of a truncated file whose sectors are missing each show their own
//! error; every other stream reads, byte for byte as in the intact file.

use std::io::Write;
use std::path::Path;

use maxfs_fs::{FsError, MaxFs, Options};
use maxfs_scene::container::{InflateLimits, MaxFile, Stream};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

/// `n` zero bytes, gzip-compressed (a bomb: ~1000:1).
fn gzip_zeros(n: usize) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let block = vec![0u8; 1 << 20];
    let mut left = n;
    while left > 0 {
        let k = left.min(block.len());
        enc.write_all(&block[..k]).expect("gzip");
        left -= k;
    }
    enc.finish().expect("gzip")
}

/// A stream stored as the given bytes (already gzip when they start with its magic).
fn stored(name: &str, data: Vec<u8>) -> Stream {
    Stream {
        name: name.into(),
        stored_len: data.len() as u64,
        data: data.into(),
        compressed: false,
        zstd: false,
        open_root: false,
        error: None,
    }
}

/// street.max's streams plus `extra`, written by the project's container writer.
fn street_with(extra: Vec<Stream>) -> (MaxFile, Vec<u8>) {
    let street = MaxFile::open(&corpus_dir().join("max/ryzomcore/street.max")).expect("corpus");
    let mut file = street.clone();
    file.streams.extend(extra);
    let bytes = file.to_bytes().expect("container writer");
    (street, bytes)
}

#[test]
fn a_stream_over_the_gzip_cap_fails_alone() {
    // 32 MiB of zeros stores in ~32 KiB: over the per-stream cap (16 MiB floor).
    let (street, bytes) = street_with(vec![
        stored("Bomb", gzip_zeros(32 << 20)),
        stored("Small", gzip_zeros(1 << 20)),
    ]);
    let file = MaxFile::from_bytes(&bytes).expect("the container opens");
    let failed: Vec<(&str, &str)> = file.failed_streams().collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0, "Bomb");
    assert!(failed[0].1.contains("inflates beyond"), "{}", failed[0].1);
    // Every street.max stream reads as in the original; the small gzip stream inflates.
    for s in &street.streams {
        let got = file.stream(&s.name).expect("stream");
        assert!(got.error.is_none() && got.data == s.data, "{}", s.name);
    }
    let small = file.stream("Small").expect("Small");
    assert_eq!((small.data.len(), small.compressed), (1 << 20, true));
    assert!(small.data.iter().all(|&b| b == 0));
    // The file fails `check`, naming the stream; it cannot be written back silently.
    let report = maxfs_scene::check::check_bytes(&bytes, false);
    assert!(report.outcome.is_failure());
    assert!(format!("{:?}", report.outcome).contains("Bomb"));
    assert!(file.to_bytes().is_err());
}

#[test]
fn many_small_bombs_stop_at_the_file_budget() {
    // 100 streams of 16 MiB of zeros each: every one under the per-stream cap,
    // 1.6 GiB together from a file of ~1.7 MB.
    let bomb = gzip_zeros(16 << 20);
    let extra = (0..100)
        .map(|i| stored(&format!("Bomb{i:03}"), bomb.clone()))
        .collect();
    let (street, bytes) = street_with(extra);
    let limits = InflateLimits::default();
    let budget = limits.budget(bytes.len() as u64);
    assert!(budget < 200 << 20, "{budget}");
    let file = MaxFile::from_bytes_with(&bytes, &limits).expect("the container opens");
    let inflated: u64 = file
        .streams
        .iter()
        .filter(|s| s.compressed)
        .map(|s| s.data.len() as u64)
        .sum();
    assert!(inflated <= budget, "{inflated} > {budget}");
    let ok = file
        .streams
        .iter()
        .filter(|s| s.name.starts_with("Bomb") && s.error.is_none())
        .count();
    assert_eq!(
        ok as u64,
        budget / (16 << 20),
        "whole bombs within the budget"
    );
    let failed: Vec<(&str, &str)> = file.failed_streams().collect();
    assert_eq!(failed.len(), 100 - ok);
    for (name, why) in &failed {
        assert!(name.starts_with("Bomb"), "{name}");
        // The error names the limit and how it is made.
        assert!(
            why.contains(&format!("{budget} bytes")) && why.contains("decompression budget"),
            "{why}"
        );
    }
    for s in &street.streams {
        let got = file.stream(&s.name).expect("stream");
        assert!(got.error.is_none() && got.data == s.data, "{}", s.name);
    }
    // A tighter absolute cap: fewer streams inflate.
    let tight = InflateLimits {
        max: 40 << 20,
        ..limits
    };
    let file = MaxFile::from_bytes_with(&bytes, &tight).expect("opens");
    assert_eq!(file.failed_streams().count(), 98);
}

#[test]
fn the_tree_serves_the_good_streams_of_a_file_over_budget() {
    let bomb = gzip_zeros(16 << 20);
    let extra = (0..8)
        .map(|i| stored(&format!("Bomb{i}"), bomb.clone()))
        .collect();
    let (street, bytes) = street_with(extra);
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("bombs.max"), &bytes).expect("write");
    let limits = InflateLimits {
        ratio: 1000,
        floor: 0,
        max: 40 << 20,
    };
    let tree = MaxFs::new(
        dir.path(),
        Options {
            inflate: limits,
            ..Options::default()
        },
    );
    let at = Path::new("bombs.max");
    for s in &street.streams {
        let name = maxfs_fs::names::escape_stream_name(&s.name);
        let got = tree.read(&at.join("streams").join(&name)).expect("stream");
        assert!(got == s.data, "{name}");
    }
    // Two bombs fit in 40 MiB; the third and later fail with the limit named.
    assert_eq!(
        tree.read(&at.join("streams/Bomb1")).expect("Bomb1").len(),
        16 << 20
    );
    for i in 2..8 {
        match tree.read(&at.join(format!("streams/Bomb{i}"))) {
            Err(FsError::Failed(why)) => {
                // Only this stream failed: the file's other stages stand.
                assert_eq!(why.stage, maxfs_fs::Stage::Stream, "{why}");
                assert!(why.message().contains(&format!("Bomb{i}")), "{why}");
                assert!(
                    why.message().contains(&format!("{} bytes", 40 << 20)),
                    "{why}"
                );
            }
            other => panic!("Bomb{i}: {:?}", other.map(|b| b.len())),
        }
    }
    // The typed views still come from the intact streams.
    let nodes = tree.read(&at.join("json/nodes.json")).expect("nodes.json");
    let want = tree_of_street().read(Path::new("street.max/json/nodes.json"));
    assert!(nodes == want.expect("street nodes.json"));
    let info: serde_json::Value =
        serde_json::from_slice(&tree.read(&at.join("info.json")).expect("info")).expect("json");
    let problems = info["problems"].as_array().expect("problems");
    assert_eq!(problems.len(), 6, "{problems:?}");
}

fn tree_of_street() -> MaxFs {
    MaxFs::new(corpus_dir().join("max/ryzomcore"), Options::default())
}

#[test]
fn a_truncated_file_serves_its_intact_streams() {
    // RiggedFigure.max (4 KiB sectors, tables at the front) cut by 1%.
    let path = corpus_dir().join("max/babylon/RiggedFigure.max");
    let whole = std::fs::read(&path).expect("corpus");
    let original = MaxFile::from_bytes(&whole).expect("corpus");
    let cut = &whole[..whole.len() * 99 / 100];
    let file = MaxFile::from_bytes(cut).expect("the directory is intact");
    assert_eq!(file.streams.len(), original.streams.len());
    let mut intact = 0;
    let mut missing = 0;
    for (s, o) in file.streams.iter().zip(&original.streams) {
        assert_eq!(s.name, o.name);
        match &s.error {
            None => {
                assert!(s.data == o.data, "{}", s.name);
                intact += 1;
            }
            Some(why) => {
                assert!(why.contains("past the end of the file"), "{why}");
                assert!(
                    why.contains(&format!("{} of {} bytes", cut.len(), whole.len())),
                    "{why}"
                );
                missing += 1;
            }
        }
    }
    // The Scene stream and the directories are whole: the scene evaluates.
    assert!(file.stream("Scene").is_some_and(|s| s.error.is_none()));
    assert!(
        intact >= 6 && missing >= 1,
        "{intact} intact, {missing} missing"
    );
    let doc = Document::from_file(file);
    assert!(doc.typed().scene.is_ok());
    // A file cut inside its sector tables stays an error of the whole container.
    let street = std::fs::read(corpus_dir().join("max/ryzomcore/street.max")).expect("corpus");
    let e = MaxFile::from_bytes(&street[..street.len() * 99 / 100])
        .expect_err("street.max keeps its tables at the end");
    assert!(e.to_string().contains("truncated"), "{e}");
}
