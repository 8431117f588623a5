//! The persistent export cache (`--cache-dir`, off by default): generated files
//! kept on disk under the source's content hash and the tool's identity, so a
//! remount, another machine running the same build, or a CI job with a restored
//! cache directory skips evaluation and export.
//!
//! An entry is `MAGIC`, a little-endian u32 header length, a JSON header (tool,
//! source hash, place, payload length and hash) and the payload. Every field is
//! checked on read: an entry that is truncated, corrupted, written by another
//! build or filed under the wrong key is counted as rejected and regenerated,
//! never served.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

const MAGIC: &[u8; 12] = b"maxfs-cache\n";
/// Headers are a few hundred bytes; anything larger is not ours.
const MAX_HEADER: u32 = 64 << 10;

/// A source file's content hash (BLAKE3), the key every entry is filed under.
pub type SourceHash = [u8; 32];

/// Hashes a file's content as the cache keys it.
pub fn hash_file(path: &Path) -> std::io::Result<SourceHash> {
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(fs::File::open(path)?)?;
    Ok(*hasher.finalize().as_bytes())
}

/// The identity of this build: the package version and a hash of the running
/// executable, so output of another build (whose exporters may differ) is never
/// reused, even with the same version number.
pub fn tool_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let exe = std::env::current_exe()
            .ok()
            .and_then(|p| hash_file(&p).ok())
            .map(|h| hex(&h[..8]))
            .unwrap_or_else(|| "unknown-build".into());
        format!("maxfs {} {exe}", env!("CARGO_PKG_VERSION"))
    })
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Header {
    tool: String,
    source: String,
    place: String,
    len: u64,
    blake3: String,
}

/// Counters of the disk cache, shown with the other cache statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DiskStats {
    pub hits: u64,
    pub misses: u64,
    /// Entries found but refused (corrupted, truncated, foreign, other build).
    pub rejected: u64,
    pub writes: u64,
    /// Writes that failed (disk full, permissions); the mount goes on without them.
    pub write_errors: u64,
}

/// Why a cache directory was refused.
#[derive(Debug, thiserror::Error)]
pub enum DiskCacheError {
    #[error("cache directory {dir}: {source}")]
    Io {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cache directory {dir} is inside the source tree {root}: maxfs never writes into the sources")]
    InsideSources { dir: PathBuf, root: PathBuf },
}

/// Generated files on disk, keyed by (source hash, place in the file's tree).
#[derive(Debug)]
pub struct DiskCache {
    dir: PathBuf,
    hits: AtomicU64,
    misses: AtomicU64,
    rejected: AtomicU64,
    writes: AtomicU64,
    write_errors: AtomicU64,
}

impl DiskCache {
    /// Opens (creating) `dir`; refuses a directory inside `sources`, the tree
    /// being served, which is never written to.
    pub fn open(dir: &Path, sources: &Path) -> Result<DiskCache, DiskCacheError> {
        let io = |source| DiskCacheError::Io {
            dir: dir.to_path_buf(),
            source,
        };
        // Decide before creating anything: the directory may not exist yet.
        let resolved = resolve(dir).map_err(io)?;
        if let Ok(root) = sources.canonicalize() {
            if resolved.starts_with(&root) {
                return Err(DiskCacheError::InsideSources {
                    dir: resolved,
                    root,
                });
            }
        }
        fs::create_dir_all(&resolved).map_err(io)?;
        let dir = resolved.canonicalize().map_err(io)?;
        Ok(DiskCache {
            dir,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            write_errors: AtomicU64::new(0),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn stats(&self) -> DiskStats {
        DiskStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            write_errors: self.write_errors.load(Ordering::Relaxed),
        }
    }

    /// Where the entry of (`source`, `place`) lives: a folder per source, a file
    /// per place named by the place's hash (places hold `/` and node names).
    pub fn entry_path(&self, source: &SourceHash, place: &str) -> PathBuf {
        let s = hex(source);
        let p = hex(&blake3::hash(place.as_bytes()).as_bytes()[..16]);
        self.dir.join(&s[..2]).join(&s).join(format!("{p}.bin"))
    }

    /// The payload of (`source`, `place`) when a valid entry of this build exists.
    pub fn get(&self, source: &SourceHash, place: &str) -> Option<Vec<u8>> {
        let path = self.entry_path(source, place);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(_) => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                return None;
            }
        };
        match decode(&bytes, source, place) {
            Some(payload) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Some(payload.to_vec())
            }
            None => {
                self.rejected.fetch_add(1, Ordering::Relaxed);
                log::warn!(
                    "{}: cache entry for {place} rejected (corrupted or from another build); regenerating",
                    path.display()
                );
                None
            }
        }
    }

    /// Stores `payload` atomically (a reader sees the old entry or the new one,
    /// never half of one). Failures are counted and logged, not returned: the
    /// cache is an optimisation.
    pub fn put(&self, source: &SourceHash, place: &str, payload: &[u8]) {
        let path = self.entry_path(source, place);
        let r = (|| -> std::io::Result<()> {
            let parent = path.parent().unwrap_or(&self.dir);
            fs::create_dir_all(parent)?;
            let mut tmp = tempfile::NamedTempFile::new_in(parent)?;
            tmp.write_all(&encode(source, place, payload))?;
            tmp.as_file().sync_data()?;
            tmp.persist(&path).map_err(|e| e.error)?;
            Ok(())
        })();
        match r {
            Ok(()) => {
                self.writes.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                self.write_errors.fetch_add(1, Ordering::Relaxed);
                log::warn!("{}: cache write failed: {e}", path.display());
            }
        }
    }
}

/// `dir` made absolute with symlinks resolved, for a path that may not exist yet:
/// the deepest existing ancestor is canonicalized and the rest appended.
fn resolve(dir: &Path) -> std::io::Result<PathBuf> {
    let abs = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir()?.join(dir)
    };
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = existing.canonicalize() {
            let mut out = c;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return Ok(out);
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
        }
    }
}

fn encode(source: &SourceHash, place: &str, payload: &[u8]) -> Vec<u8> {
    let header = Header {
        tool: tool_id().to_string(),
        source: hex(source),
        place: place.to_string(),
        len: payload.len() as u64,
        blake3: blake3::hash(payload).to_hex().to_string(),
    };
    let h = serde_json::to_vec(&header).unwrap_or_default();
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + h.len() + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(h.len() as u32).to_le_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(payload);
    out
}

fn decode<'a>(bytes: &'a [u8], source: &SourceHash, place: &str) -> Option<&'a [u8]> {
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let (len, rest) = rest.split_first_chunk::<4>()?;
    let len = u32::from_le_bytes(*len);
    if len > MAX_HEADER {
        return None;
    }
    let (h, payload) = rest.split_at_checked(len as usize)?;
    let header: Header = serde_json::from_slice(h).ok()?;
    let ok = header.tool == tool_id()
        && header.source == hex(source)
        && header.place == place
        && header.len == payload.len() as u64
        && header.blake3 == blake3::hash(payload).to_hex().as_str();
    ok.then_some(payload)
}

/// Reads a whole entry file; exposed for tests that corrupt entries on purpose.
pub fn read_entry(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut v = Vec::new();
    fs::File::open(path)?.read_to_end(&mut v)?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache() -> (tempfile::TempDir, tempfile::TempDir, DiskCache) {
        let dir = tempfile::tempdir().expect("tempdir");
        let src = tempfile::tempdir().expect("tempdir");
        let c = DiskCache::open(dir.path(), src.path()).expect("open");
        (dir, src, c)
    }

    #[test]
    fn round_trip_and_key_checks() {
        let (_d, _s, c) = cache();
        let src = [7u8; 32];
        assert_eq!(c.get(&src, "export/scene.glb"), None);
        c.put(&src, "export/scene.glb", b"glTF bytes");
        assert_eq!(
            c.get(&src, "export/scene.glb").as_deref(),
            Some(&b"glTF bytes"[..])
        );
        // Another source or place never sees it.
        assert_eq!(c.get(&[8u8; 32], "export/scene.glb"), None);
        assert_eq!(c.get(&src, "json/nodes.json"), None);
        let s = c.stats();
        assert_eq!((s.hits, s.misses, s.writes, s.rejected), (1, 3, 1, 0));
    }

    #[test]
    fn every_damaged_entry_is_rejected() {
        let (_d, _s, c) = cache();
        let src = [1u8; 32];
        c.put(&src, "json/meshes.json", b"{\"meshes\":[]}");
        let path = c.entry_path(&src, "json/meshes.json");
        let good = read_entry(&path).expect("entry");
        // Every truncation and every single-byte change is refused.
        for cut in 0..good.len() {
            fs::write(&path, &good[..cut]).expect("write");
            assert_eq!(c.get(&src, "json/meshes.json"), None, "cut at {cut}");
        }
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x20;
            fs::write(&path, &bad).expect("write");
            assert_eq!(c.get(&src, "json/meshes.json"), None, "byte {i} flipped");
        }
        // An entry of another build is refused too.
        let foreign = String::from_utf8_lossy(&good).replace(tool_id(), "maxfs 0.0.0 0000");
        fs::write(&path, foreign.as_bytes()).expect("write");
        assert_eq!(c.get(&src, "json/meshes.json"), None);
        fs::write(&path, &good).expect("write");
        assert!(c.get(&src, "json/meshes.json").is_some());
    }

    #[test]
    fn refuses_a_directory_inside_the_sources() {
        let src = tempfile::tempdir().expect("tempdir");
        let inside = src.path().join(".maxfs-cache");
        assert!(matches!(
            DiskCache::open(&inside, src.path()),
            Err(DiskCacheError::InsideSources { .. })
        ));
        assert!(!inside.exists(), "nothing is created inside the sources");
    }
}
