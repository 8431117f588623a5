//! NeL engine formats and the exporters that produce them from a `.max` scene.

pub mod error;
pub mod gltf;
pub mod nel;
pub mod tsv;
