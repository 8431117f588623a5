//! What drives bones beyond keyframes: Character Studio Biped, CAT rigs, IK
//! chains, link and path constraints.

pub mod biped;
pub mod cat;
pub mod ik;
pub mod link_constraint;
pub mod path_constraint;
pub mod rig_transform;
