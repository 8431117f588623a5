//! Consistent reads of `source.max` (and of plain streams, which are read in
//! place along their sectors) while the source may be rewritten in place.
//!
//! `source.max` is served from the source file itself, but its size (and the
//! inode it is served under) belong to the version of the file the entry was
//! resolved from. A writer that overwrites the file in place during a read
//! would otherwise hand out the old length filled with new bytes. Each read is
//! checked after it completes: when the open file's size, mtime or ctime
//! differ from the version's, the read fails (EIO, naming the change) instead;
//! a new lookup then finds the new version under a new inode.
//!
//! The check sees every write that updates the file's times: the kernel
//! stamps mtime and ctime before it copies the written bytes, so a read that
//! ends before the check saw either old bytes only, or a changed time. Writes
//! within one timestamp tick of the version's own time that keep the size are
//! the one case a time-based check cannot see (the same limit as `make`).

use crate::cache::DocKey;
use crate::tree::{Entry, MaxFs};
use crate::FsError;

/// EIO: the bytes read may mix two versions.
const EIO: i32 = 5;

impl MaxFs {
    /// Checks, after a read of `file` (opened for `entry`), that the source has
    /// not changed since the version `entry` stands for. Entries other than
    /// `source.max` always pass (real files are served as they are, like any
    /// file system; virtual files are in memory).
    pub fn check_unchanged(&self, entry: &Entry, file: &std::fs::File) -> Result<(), FsError> {
        let Some(key) = entry.source_version() else {
            return Ok(());
        };
        let meta = file.metadata().map_err(FsError::from_io)?;
        let now = DocKey::of(&key.path, &meta);
        if now.size == key.size && now.mtime_ns == key.mtime_ns && now.ctime_ns == key.ctime_ns {
            return Ok(());
        }
        Err(FsError::Io(
            format!(
                "{}: changed while being read (was {} bytes, mtime {} ns; now {} bytes, mtime {} ns): \
                 look the file up again for the new version",
                key.path.display(),
                key.size,
                key.mtime_ns,
                now.size,
                now.mtime_ns
            ),
            Some(EIO),
        ))
    }
}
