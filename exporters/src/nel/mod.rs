//! NeL output: the format crate's models re-exported, and the `.max` → NeL rules.

pub use maxfs_nel::*;

pub mod export;
