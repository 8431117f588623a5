//! Scene evaluation: what 3ds Max computes from the stored scene at a time.
//!
//! Grouped by what depends on what: `core` holds the evaluated scene (`SceneEval`,
//! its memo), controllers, keys and parameter blocks; `objects` builds base
//! geometry; `modifier` applies stacks; `rigs` drives bones (Biped, IK, link
//! constraints); `systems` evaluates system plug-ins (Sunlight, Daylight);
//! `render` decodes materials, cameras and lights.

pub mod core;
pub mod error;
pub mod modifier;
pub mod objects;
pub mod render;
pub mod rigs;
pub mod systems;

pub use self::core::controller::Controller;
pub use self::core::math::{Mat43, Quat, Vec3};
pub use self::core::memo::{MemoStats, MeshResult, Stack, DEFAULT_MESH_BUDGET};
pub use self::core::transform::SceneEval;
pub use self::error::{EvalError, EvalErrorKind};
