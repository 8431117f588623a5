//! Base objects as Max builds them: parametric primitives, editable meshes and
//! polys, compound Booleans, the meshes solids store (Body Object) and bone
//! geometry (Max's Bone object, CAT's bones and hubs); Biped body parts are
//! read and refused by name (`biped_object`).

pub mod biped_object;
pub mod body_object;
pub mod bone_object;
pub mod boolean;
pub mod cat_object;
pub mod file_link;
pub mod loft;
pub mod mesh;
pub mod normals;
pub mod patch;
pub mod poly;
pub(crate) mod poly_join;
pub(crate) mod poly_make;
pub mod poly_normals;
pub mod poly_surface;
pub mod primitive;
pub mod primitive_chamfer;
pub mod primitive_poly;
mod primitive_poly_box;
mod primitive_poly_converted;
pub mod shape;
pub mod specified_normals;
pub mod surface_checks;
#[cfg(test)]
pub(crate) mod test_box;
