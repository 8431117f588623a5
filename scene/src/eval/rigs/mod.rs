//! What drives bones beyond keyframes: Character Studio Biped, IK chains, link
//! and path constraints.

pub mod biped;
pub mod ik;
pub mod link_constraint;
pub mod path_constraint;
pub mod rig_transform;
