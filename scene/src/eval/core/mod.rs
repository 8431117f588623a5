//! The evaluated scene and what every other group reads through it: controllers,
//! keys, parameter blocks, the mesh memo and the coverage of what is not evaluated.

pub mod channels;
pub mod controller;
pub mod coverage;
pub mod keys;
pub mod list;
pub mod math;
pub mod memo;
pub mod pblock;
pub mod script;
pub mod still;
pub mod transform;
