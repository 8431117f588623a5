//! The views of the evaluated scene (`maxfs_scene::eval`): `meshes.json`,
//! `animation.json`, `materials.json`, `cameras.json`, `lights.json`, `biped.json`,
//! `ik.json`, `cat.json`, `skin.json`, `shapes.json`, and the transforms merged into `nodes.json`.

use serde::Serialize;
use serde_json::Value;

use maxfs_scene::eval::modifier::physique;
use maxfs_scene::eval::render::material::Assets;
use maxfs_scene::eval::{core::channels, rigs::biped, rigs::cat, rigs::ik, SceneEval};

use super::material_view;

use super::scene_summary;

use crate::json;

use super::JsonView;

/// Renders one of the evaluation views as `{ "<list>": [...] }`.
pub fn render(view: JsonView, eval: &SceneEval) -> Vec<u8> {
    let (key, list) = match view {
        JsonView::Meshes => ("meshes", json::value_f32(&scene_summary::meshes(eval))),
        JsonView::Animation => ("animation", json::value_f32(&channels::animation(eval))),
        JsonView::Materials => (
            "materials",
            json::value_f32(&material_view::materials_with_assets(
                eval,
                &Assets::of(&eval.doc),
            )),
        ),
        JsonView::Cameras => ("cameras", json::value_f32(&material_view::cameras(eval))),
        JsonView::Lights => {
            let mut out = serde_json::Map::new();
            out.insert(
                "lights".into(),
                json::value_f32(&material_view::lights(eval)),
            );
            out.insert(
                "sun_systems".into(),
                json::value_f32(&super::sun_view::sun_systems(eval)),
            );
            return json::to_bytes(&Value::Object(out));
        }
        JsonView::Biped => ("rigs", json::value_f32(&biped::view(eval))),
        JsonView::Ik => return json::to_bytes(&json::value_f32(&ik::view::view(eval))),
        JsonView::Cat => return json::to_bytes(&json::value_f32(&cat::view::view(eval))),
        JsonView::Skin => ("skins", json::value_f32(&physique::view::view(eval))),
        JsonView::Shapes => ("shapes", json::value_f32(&shapes(eval))),
        _ => return super::error_json("not an evaluation view"),
    };
    let mut out = serde_json::Map::new();
    out.insert(key.into(), list);
    json::to_bytes(&Value::Object(out))
}

/// One node's spline shape in `shapes.json`: its splines (knots with their
/// handles, in object space), the polylines Max's interpolation makes of them
/// and the rendering settings — or why the shape could not be evaluated.
#[derive(Serialize)]
struct ShapeView {
    index: usize,
    name: String,
    #[serde(flatten)]
    shape: Option<maxfs_scene::eval::objects::shape::ShapeEval>,
    error: Option<String>,
}

fn shapes(eval: &SceneEval) -> Vec<ShapeView> {
    eval.graph
        .nodes()
        .filter_map(|(o, n)| {
            let r = eval.shape(o.index, 0)?;
            Some(ShapeView {
                index: o.index,
                name: n.name.clone(),
                error: r.as_ref().err().map(ToString::to_string),
                shape: r.ok().map(|s| (*s).clone()),
            })
        })
        .collect()
}

/// The evaluated transform of one node, as merged into `nodes.json`.
#[derive(Serialize)]
pub struct Transform {
    pub hidden: bool,
    pub frozen: bool,
    /// Parent-relative matrix at t = 0: four rows of three (Max row-vector
    /// convention); null when the node's transform controller is not evaluated.
    pub local: Value,
    /// World matrix at t = 0; null when it or an ancestor is not evaluated.
    pub world: Value,
    /// Why `local` or `world` is null.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub transform_gaps: Vec<String>,
    /// Object offset as a matrix.
    pub object_offset: Value,
    /// Class of the transform controller, e.g. "Position/Rotation/Scale".
    pub tm_controller: Option<String>,
    /// The visibility track's value at t = 0 and whether it is animated
    /// (absent: the node has none and is always shown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility: Option<scene_summary::Visibility>,
}

/// Evaluated transforms by node index; a failure of the evaluation (damaged
/// data) is returned as text and leaves the stored fields of `nodes.json` intact.
pub fn transforms(
    eval: &SceneEval,
) -> Result<std::collections::HashMap<usize, Transform>, crate::StageError> {
    crate::guard(|| {
        Ok(scene_summary::node_transforms(eval)
            .into_iter()
            .map(|t| {
                (
                    t.index,
                    Transform {
                        hidden: t.hidden,
                        frozen: t.frozen,
                        local: json::value_f32(&t.local),
                        world: json::value_f32(&t.world),
                        transform_gaps: t.transform_gaps,
                        object_offset: json::value_f32(&t.object_offset),
                        tm_controller: t.controller,
                        visibility: t.visibility,
                    },
                )
            })
            .collect())
    })
}
