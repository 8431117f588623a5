//! Max's "Real-World Map Size" switch of a parametric object. Objects whose
//! parameter block has no place for it keep it as AppData keyed by the
//! object's own class id and superclass, sub id 0, an int (the SDK's
//! `GetUsePhysicalScaleUVs`). With it on, Max scales the generated channel 1
//! by the object's sizes in scene units instead of 0 … 1 (Buwaka's Door
//! boxes: the UVs a ProBoolean kept are the box mapping scaled by 600, 50 and
//! 300; docs/unseen-files.md, "Map channels of the standard chamfer").
//! [`super::params`] reads the switch into `Params::real_world`; the Box and
//! the Plane and the GeoSphere (both forms), the unsliced Sphere, Torus and
//! Tube (both forms) and the Pyramid and the unsliced Cylinder, Cone and
//! ChamferCyl (triangle form) build the scaled channel. Every other primitive's channel 1 is left out by name rather than
//! given 0 … 1 values that would look valid.

use crate::eval::objects::mesh::{Mesh, MissingMap};
use crate::eval::objects::poly::PolyMesh;
use crate::eval::objects::primitive::chamfercyl::CHAMFER_CYL;
use crate::eval::objects::primitive::{
    Params, BOX, CONE, CYLINDER, GEOSPHERE, PLANE, PYRAMID, SPHERE, TORUS, TUBE,
};
use crate::eval::SceneEval;
use crate::typed::ClassId;

/// The channel the switch scales.
const CHANNEL: i32 = 1;

/// Whether object `obj` has the switch on.
pub fn is_on(eval: &SceneEval, obj: usize) -> bool {
    let Some(o) = eval.graph.objects.get(obj) else {
        return false;
    };
    let Some(class) = o.class.as_ref() else {
        return false;
    };
    o.appdata.iter().any(|a| {
        a.class_id == class.class_id
            && a.super_class == class.super_class
            && a.sub_id == 0
            && a.value.iter().any(|&b| b != 0)
    })
}

/// Whether the triangle builder of `class` scales its channel 1 for the
/// switch (with parameters `p`): the Box, the Plane and the Pyramid; the Cylinder and Cone
/// unless sliced (slice on is parameter 6, one further on for the Cone); the
/// Sphere, Torus and Tube unless sliced (parameter 7); the ChamferCyl (a
/// sliced one is refused whole) and the GeoSphere.
fn builds_triangles(class: ClassId, p: &Params) -> bool {
    match class {
        c if c == BOX || c == PLANE || c == CHAMFER_CYL || c == GEOSPHERE || c == PYRAMID => true,
        c if c == SPHERE => p.int_or(7, 0) == 0,
        c if c == CYLINDER => p.int_or(6, 0) == 0,
        c if c == CONE => p.int_or(7, 0) == 0,
        c if c == TORUS || c == TUBE => p.int_or(7, 0) == 0,
        _ => false,
    }
}

/// Whether the polygon form of `class` has its channel 1 scaled: the Box's
/// (`BuildPolyBox`), the Plane's, the GeoSphere's and the unsliced Sphere's,
/// Torus's and Tube's (their triangle meshes converted, map included). The Cylinder's and Cone's polygon forms (their own builder
/// maps the caps cylindrically with the switch on; version 1 converts the
/// triangle mesh) are not built with it.
fn builds_polygons(class: ClassId, p: &Params) -> bool {
    class == BOX
        || class == PLANE
        || class == GEOSPHERE
        || ((class == SPHERE || class == TORUS || class == TUBE) && builds_triangles(class, p))
}

/// Why channel 1 is left out, named after the object's class.
fn left_out(eval: &SceneEval, obj: usize) -> MissingMap {
    let class = eval.graph.class(obj).map_or("?", |c| c.name.as_str());
    MissingMap {
        channel: Some(CHANNEL),
        modifier: class.to_string(),
        reason: "the object's real-world map size is on (its coordinates scaled by its \
                 sizes are not built for this primitive)"
            .to_string(),
    }
}

/// Leaves channel 1 out of `mesh` (built by `class` from `p`), named, when
/// the switch is on and that builder does not scale it.
pub fn apply(eval: &SceneEval, obj: usize, class: ClassId, p: &Params, mesh: &mut Mesh) {
    // Without generated coordinates there is nothing to scale.
    if !p.real_world()
        || builds_triangles(class, p)
        || mesh.maps.iter().all(|c| c.channel != CHANNEL)
    {
        return;
    }
    mesh.maps.retain(|c| c.channel != CHANNEL);
    mesh.missing_maps.push(left_out(eval, obj));
}

/// The polygon form's channel 1 left out likewise; what is left out is
/// returned for the caller to name on the mesh it makes.
pub fn strip_poly(
    eval: &SceneEval,
    obj: usize,
    class: ClassId,
    p: &Params,
    poly: &mut PolyMesh,
) -> Option<MissingMap> {
    if !p.real_world()
        || builds_polygons(class, p)
        || poly.maps.iter().all(|c| c.channel != CHANNEL)
    {
        return None;
    }
    poly.maps.retain(|c| c.channel != CHANNEL);
    Some(left_out(eval, obj))
}
