//! Errors of the scene layer. Every error says where: stream, chunk path, offset.

use std::fmt;

/// Where in a stream's chunk tree something went wrong: (sibling index, chunk id) from the root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkPath(pub Vec<(usize, u16)>);

impl ChunkPath {
    pub fn child(&self, index: usize, id: u16) -> ChunkPath {
        let mut v = self.0.clone();
        v.push((index, id));
        ChunkPath(v)
    }
}

impl fmt::Display for ChunkPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("/");
        }
        for (i, id) in &self.0 {
            write!(f, "/{i:04}-{id:04X}")?;
        }
        Ok(())
    }
}

/// A malformed chunk stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("chunk {path} at offset {offset:#x}: {what}")]
pub struct ChunkError {
    pub path: ChunkPath,
    pub offset: u64,
    pub what: String,
}

/// A chunk that does not hold what its type requires (typed layer).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{stream}: chunk {path}: {what}")]
pub struct TypedError {
    pub stream: String,
    pub path: ChunkPath,
    pub what: String,
}

/// Anything that stops a `.max` file from being read.
#[derive(Debug, thiserror::Error)]
pub enum MaxError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("not a compound file: {0}")]
    NotCompound(NotCompoundKind),
    #[error("compound file is damaged: {0}")]
    Container(String),
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("stream {stream}: {what}")]
    Stream { stream: String, what: String },
    #[error("stream {stream}: {source}")]
    Chunk {
        stream: String,
        #[source]
        source: ChunkError,
    },
    #[error(transparent)]
    Typed(#[from] TypedError),
}

/// What a file that is not an OLE compound document looks like instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotCompoundKind {
    Empty,
    GitLfsPointer,
    Text,
    /// A gzip file: a compressed copy, not the container itself.
    Gzip,
    Other,
}

impl fmt::Display for NotCompoundKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NotCompoundKind::Empty => "empty file",
            NotCompoundKind::GitLfsPointer => "git-lfs pointer (run `git lfs pull`)",
            NotCompoundKind::Text => "text file",
            NotCompoundKind::Gzip => "gzip file (a compressed copy, not an OLE container)",
            NotCompoundKind::Other => "no OLE signature",
        })
    }
}
