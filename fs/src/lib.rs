//! The virtual tree served by the mount and the CLI. Knows nothing of FUSE:
//! path → entry, listing, content generation, caches and invalidation.

pub mod appdata_names;
pub mod cache;
pub mod disk_cache;
pub mod eval_gate;
pub mod exports;
pub mod gltf_stage;
pub mod json;
pub mod lookups;
pub mod names;
pub mod source_check;
pub mod stage_error;
pub mod state;
pub mod textconv;
pub mod thumbnail;
pub mod tree;
pub mod views;
pub mod warn_once;

pub use stage_error::{Stage, StageError, StageResult};
pub use tree::{Blob, Content, Entry, EntryKey, Kind, KnownEntry, MaxFs, Options, VirtualKey};

/// Why a path cannot be served. Parse failures are `Failed` with the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FsError {
    #[error("no such file or directory")]
    NotFound,
    #[error("not a directory")]
    NotADirectory,
    #[error("is a directory")]
    IsADirectory,
    #[error("{0}")]
    Io(String, Option<i32>),
    #[error("{0}")]
    Failed(#[from] StageError),
}

impl FsError {
    pub fn from_io(e: std::io::Error) -> FsError {
        match e.kind() {
            std::io::ErrorKind::NotFound => FsError::NotFound,
            _ => FsError::Io(e.to_string(), e.raw_os_error()),
        }
    }

    /// This error as the failure of `stage`: a stage failure keeps its own
    /// stage (an export that failed because the document did not parse
    /// stays a document failure); other errors become `stage`'s.
    pub fn into_stage(self, stage: Stage) -> StageError {
        match self {
            FsError::Failed(e) => e,
            other => StageError::new(stage, other),
        }
    }

    /// The errno a file system should answer with.
    pub fn errno(&self) -> i32 {
        match self {
            FsError::NotFound => libc_consts::ENOENT,
            FsError::NotADirectory => libc_consts::ENOTDIR,
            FsError::IsADirectory => libc_consts::EISDIR,
            FsError::Io(_, Some(code)) => *code,
            FsError::Io(_, None) | FsError::Failed(_) => libc_consts::EIO,
        }
    }
}

/// The few errno values needed here (Linux numbering), without a libc dependency.
mod libc_consts {
    pub const ENOENT: i32 = 2;
    pub const EIO: i32 = 5;
    pub const ENOTDIR: i32 = 20;
    pub const EISDIR: i32 = 21;
}

/// Runs a stage that reads file contents, turning a panic in a parser into an
/// error, so one bad file can never take the mount down.
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, StageError>) -> Result<T, StageError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            Err(StageError::new(
                Stage::Panic,
                format!("internal error (panic): {msg}"),
            ))
        }
    }
}
