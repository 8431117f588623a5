//! Hostile inputs shared by the CLI tests, built through the project's own
//! container writer.

use std::io::Write;
use std::path::{Path, PathBuf};

use maxfs_scene::container::{MaxFile, Stream};

pub fn corpus() -> PathBuf {
    std::env::var_os("MAXFS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
}

/// Writes street.max with 100 streams of 16 MiB of gzip'ed zeros each (1.7 MB)
/// to `path`; returns the file's size.
pub fn write_bombs(path: &Path) -> u64 {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let block = vec![0u8; 1 << 20];
    for _ in 0..16 {
        enc.write_all(&block).expect("gzip");
    }
    let bomb = enc.finish().expect("gzip");
    let mut file = MaxFile::open(&corpus().join("max/ryzomcore/street.max")).expect("corpus");
    for i in 0..100 {
        file.streams.push(Stream {
            name: format!("Bomb{i:03}"),
            stored_len: bomb.len() as u64,
            data: bomb.clone().into(),
            compressed: false, // stored as is: the bytes are gzip already
            zstd: false,
            open_root: false,
            error: None,
        });
    }
    let bytes = file.to_bytes().expect("container writer");
    std::fs::write(path, &bytes).expect("write");
    bytes.len() as u64
}
