//! Scene evaluation: what 3ds Max computes from the stored scene — controller
//! values at a time, node transforms.

pub mod biped;
pub mod bone_object;
pub mod boolean;
pub mod controller;
pub mod coverage;
pub mod ik;
pub mod keys;
pub mod math;
pub mod memo;
pub mod mesh;
pub mod modifier;
pub mod poly;
pub mod primitive;
pub mod primitive_poly;
pub mod rig_transform;
pub mod skin;
pub mod transform;
pub mod views;

pub use controller::Controller;
pub use math::{Mat43, Quat, Vec3};
pub use memo::{MemoStats, MeshResult, Stack};
pub use transform::SceneEval;
pub mod camera;
pub mod light;
pub mod link_constraint;
pub mod material;
pub mod material_view;
pub mod pblock;
