//! Max's "Real-World Map Size" switch of a parametric object. Objects whose
//! parameter block has no place for it keep it as AppData keyed by the
//! object's own class id and superclass, sub id 0, an int (the SDK's
//! `GetUsePhysicalScaleUVs`). With it on, Max scales the generated channel 1
//! by the object's sizes in scene units instead of 0 … 1 (Buwaka's Door
//! boxes: the UVs a ProBoolean kept are the box mapping scaled by 600, 50 and
//! 300; docs/unseen-files.md, "Map channels of the standard chamfer"). That
//! scaling is not built here, so the channel is left out by name rather than
//! given 0 … 1 values that would look valid.

use crate::eval::objects::mesh::{Mesh, MissingMap};
use crate::eval::objects::poly::PolyMesh;
use crate::eval::SceneEval;

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

/// Leaves channel 1 out of `mesh`, named, when `obj` has the switch on.
pub fn apply(eval: &SceneEval, obj: usize, mesh: &mut Mesh) {
    // Without generated coordinates there is nothing to scale.
    if !is_on(eval, obj) || mesh.maps.iter().all(|c| c.channel != CHANNEL) {
        return;
    }
    mesh.maps.retain(|c| c.channel != CHANNEL);
    let class = eval
        .graph
        .objects
        .get(obj)
        .and_then(|o| o.class.as_ref())
        .map_or("?", |c| c.name.as_str());
    mesh.missing_maps.push(MissingMap {
        channel: Some(CHANNEL),
        modifier: class.to_string(),
        reason: "the object's real-world map size is on (its coordinates scaled by its \
                 sizes are not built)"
            .to_string(),
    });
}

/// The polygon form's channel 1 left out likewise (the triangle mesh of the
/// same object names it: [`apply`]).
pub fn strip_poly(eval: &SceneEval, obj: usize, poly: &mut PolyMesh) {
    if is_on(eval, obj) {
        poly.maps.retain(|c| c.channel != CHANNEL);
    }
}
