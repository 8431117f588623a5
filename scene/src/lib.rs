//! Reading and writing 3ds Max `.max` files: the OLE container, the chunk tree of
//! each stream, and typed views of the streams that matter, all rebuildable byte
//! for byte.

pub mod check;
pub mod chunk;
pub mod container;
pub mod directories;
pub mod document;
pub mod error;
pub mod eval;
pub mod graph;
pub mod peek;
pub mod settings;
pub mod summary;
pub mod typed;
pub mod version;

pub use document::{Document, Layout, Typed};
pub use error::{ChunkError, ChunkPath, MaxError, TypedError};
