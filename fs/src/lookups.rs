//! Files outside a source that a generated stage read: texture images for
//! the glTF, particle-system `.ps` shapes for the instance groups. A stage
//! kept in the disk cache records each lookup it made, with the file it
//! resolved to and that file's size and times, and is served again only
//! while the same search resolves every one of them to the same, unchanged
//! file (or still finds nothing): a file added, replaced or removed beside
//! the source rebuilds the stage.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use maxfs_exporters::gltf::{ResolutionLog, TextureSearch};

use crate::cache::DocKey;

/// One lookup: the stored path and what it resolved to.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dep {
    stored: String,
    found: Option<Stamp>,
}

/// A resolved file and the version of it the build read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Stamp {
    /// The path's bytes (paths need not be UTF-8).
    path: Vec<u8>,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        let key = DocKey::of(path, &meta);
        Some(Stamp {
            path: path.as_os_str().as_encoded_bytes().to_vec(),
            size: key.size,
            mtime_ns: key.mtime_ns,
            ctime_ns: key.ctime_ns,
        })
    }
}

impl Dep {
    /// Every lookup `log` saw, stamped with the files' current versions.
    pub fn all_of(log: &ResolutionLog) -> Vec<Dep> {
        log.entries()
            .into_iter()
            .map(|(stored, found)| Dep {
                stored,
                found: found.as_deref().and_then(Stamp::of),
            })
            .collect()
    }

    /// Whether every recorded lookup still resolves as it did under `search`.
    pub fn all_hold(deps: &[Dep], search: &TextureSearch) -> bool {
        deps.iter().all(|d| {
            let found = search.resolve(&d.stored).ok().and_then(|p| Stamp::of(&p));
            found == d.found
        })
    }

    /// The file the lookup found, if any.
    pub fn found_path(&self) -> Option<PathBuf> {
        self.found
            .as_ref()
            .map(|s| PathBuf::from(std::ffi::OsStr::from_bytes(&s.path)))
    }
}

/// Disk-cache bytes of a stage with its lookups: the JSON length (u64 LE),
/// the JSON list of lookups, then the stage's own bytes.
pub fn wrap(deps: &[Dep], body: &[u8]) -> Vec<u8> {
    let json = serde_json::to_vec(deps).unwrap_or_default();
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(&json);
    out.extend_from_slice(body);
    out
}

/// The stage's bytes of [`wrap`]ped ones whose lookups all still hold under
/// `search`; `None` when one changed or the bytes are malformed.
pub fn unwrap<'a>(b: &'a [u8], search: &TextureSearch) -> Option<&'a [u8]> {
    let (len, rest) = b.split_first_chunk::<8>()?;
    let (json, body) = rest.split_at_checked(usize::try_from(u64::from_le_bytes(*len)).ok()?)?;
    let deps: Vec<Dep> = serde_json::from_slice(json).ok()?;
    Dep::all_hold(&deps, search).then_some(body)
}
