//! The typed layer: chunk trees with known leaves decoded (see `schema`), and the
//! models read off them (directories, config, scene graph).

pub mod leaf;
pub mod schema;
pub mod tree;

pub use leaf::{ClassId, LeafReader, MaxString};
pub use schema::Ctx;
pub use tree::{Degraded, LeafKind, TNode, TValue};

use crate::chunk::Chunk;
use crate::error::ChunkPath;

/// One chunk-formatted stream, typed.
#[derive(Debug, Clone)]
pub struct TypedStream {
    pub name: String,
    pub nodes: Vec<TNode>,
    /// Chunks whose typed decoding failed; they are kept raw.
    pub degraded: Vec<Degraded>,
}

impl TypedStream {
    pub fn parse(name: &str, chunks: &[Chunk], superclasses: &[u32]) -> TypedStream {
        let ctx = Ctx::for_stream(name, superclasses);
        let mut degraded = Vec::new();
        let nodes = tree::type_chunks(chunks, &ctx, &ChunkPath::default(), &mut degraded);
        TypedStream {
            name: name.to_string(),
            nodes,
            degraded,
        }
    }

    /// How many leaves were decoded into typed values (the T2 coverage).
    pub fn typed_values(&self) -> usize {
        fn count(n: &[TNode]) -> usize {
            n.iter()
                .map(|x| match x {
                    TNode::Value { .. } => 1,
                    TNode::Container { children, .. } => count(children),
                    TNode::Raw(_) => 0,
                })
                .sum()
        }
        count(&self.nodes)
    }

    /// Serializes the stream from the typed values.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for n in &self.nodes {
            n.write_into(&mut out);
        }
        out
    }

    /// Rebuilds the chunk list from the typed values.
    pub fn build(&self) -> Vec<Chunk> {
        tree::build_all(&self.nodes)
    }
}

#[cfg(test)]
mod tests;
