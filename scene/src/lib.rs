//! Evaluation of 3ds Max scenes read by `maxfs-file`: node transforms at any time,
//! controllers, objects and their modifier stacks, rigs, materials, cameras and
//! lights. The file layer's modules are re-exported so callers need one crate.

pub mod check;
pub mod eval;

pub use maxfs_file::{
    chunk, container, directories, document, error, graph, peek, rklpatch, scripts, sectors,
    settings, summary, typed, version,
};
pub use maxfs_file::{ChunkError, ChunkPath, Document, Layout, MaxError, Typed, TypedError};
