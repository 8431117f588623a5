//! The lossless file layer of 3ds Max `.max` files: the OLE container, the chunk
//! tree of each stream, typed views of the streams that matter and the scene graph
//! they describe, all rebuildable byte for byte. Evaluation (transforms, meshes,
//! rigs) lives in `maxfs-scene`, which builds on this crate and never the reverse.

pub mod check;
pub mod chunk;
pub mod container;
pub mod directories;
pub mod document;
pub mod error;
pub mod graph;
pub mod peek;
pub mod reader;
pub mod rklpatch;
pub mod scripts;
pub mod sectors;
pub mod settings;
pub mod summary;
pub mod typed;
pub mod version;
pub mod zstd_stream;

pub use document::{Document, Layout, Typed};
pub use error::{ChunkError, ChunkPath, MaxError, TypedError};
