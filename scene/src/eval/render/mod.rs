//! What the renderer sees besides geometry: materials and texture maps, cameras, lights.

pub mod arch_design;
pub mod architectural;
pub mod arnold;
pub mod autodesk;
pub mod camera;
pub mod corona;
pub mod corona_physical;
pub mod light;
pub mod material;
pub mod object_colour;
pub mod physical;
pub mod pro_materials;
pub mod raytrace;
pub mod vray;
