//! The generated files of a `foo.max/` directory: `info.json`, `error.txt` and the
//! typed views under `json/`. Each view is a pure function of the parsed document.

pub mod appdata;
pub mod config;
pub mod eval;
pub mod info;
pub mod material_view;
pub mod nel_properties;
pub mod nodes;
pub mod patches;
pub mod scene;
pub mod scene_summary;
pub mod summary;
pub mod sun_view;

use std::path::Path;

use maxfs_scene::eval::SceneEval;
use maxfs_scene::{Document, Typed};

use crate::json;

/// The files under `json/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonView {
    DllDirectory,
    ClassDirectory,
    ClassData,
    Config,
    Scene,
    Nodes,
    AppData,
    SummaryInformation,
    Meshes,
    Animation,
    Materials,
    Cameras,
    Lights,
    NelProperties,
    Biped,
    Ik,
    Cat,
    Skin,
    Patches,
    Shapes,
}

impl JsonView {
    pub const ALL: [JsonView; 20] = [
        JsonView::DllDirectory,
        JsonView::ClassDirectory,
        JsonView::ClassData,
        JsonView::Config,
        JsonView::Scene,
        JsonView::Nodes,
        JsonView::AppData,
        JsonView::SummaryInformation,
        JsonView::Meshes,
        JsonView::Animation,
        JsonView::Materials,
        JsonView::Cameras,
        JsonView::Lights,
        JsonView::NelProperties,
        JsonView::Biped,
        JsonView::Ik,
        JsonView::Cat,
        JsonView::Skin,
        JsonView::Patches,
        JsonView::Shapes,
    ];

    pub fn file_name(self) -> &'static str {
        match self {
            JsonView::DllDirectory => "dll_directory.json",
            JsonView::ClassDirectory => "class_directory.json",
            JsonView::ClassData => "class_data.json",
            JsonView::Config => "config.json",
            JsonView::Scene => "scene.json",
            JsonView::Nodes => "nodes.json",
            JsonView::AppData => "appdata.json",
            JsonView::SummaryInformation => "summary_information.json",
            JsonView::Meshes => "meshes.json",
            JsonView::Animation => "animation.json",
            JsonView::Materials => "materials.json",
            JsonView::Cameras => "cameras.json",
            JsonView::Lights => "lights.json",
            JsonView::NelProperties => "nel_properties.json",
            JsonView::Biped => "biped.json",
            JsonView::Ik => "ik.json",
            JsonView::Cat => "cat.json",
            JsonView::Skin => "skin.json",
            JsonView::Patches => "patches.json",
            JsonView::Shapes => "shapes.json",
        }
    }

    pub fn from_file_name(name: &str) -> Option<JsonView> {
        JsonView::ALL.into_iter().find(|v| v.file_name() == name)
    }
}

/// Renders one view. `eval` is the file's evaluated scene, or why there is none.
pub fn render(
    view: JsonView,
    doc: &Document,
    typed: &Typed,
    eval: Result<&SceneEval, &str>,
) -> Vec<u8> {
    match view {
        JsonView::DllDirectory => json::to_bytes(&typed.dlls),
        JsonView::ClassDirectory => json::to_bytes(&typed.classes),
        JsonView::ClassData => json::to_bytes(&typed.class_data),
        JsonView::Config => config::render(typed),
        JsonView::Scene => scene::render(doc, typed),
        JsonView::Nodes => nodes::render(typed, eval),
        JsonView::AppData => appdata::render(typed),
        JsonView::NelProperties => nel_properties::render(typed),
        JsonView::SummaryInformation => summary::render(doc),
        JsonView::Meshes
        | JsonView::Animation
        | JsonView::Materials
        | JsonView::Cameras
        | JsonView::Lights
        | JsonView::Biped
        | JsonView::Ik
        | JsonView::Cat
        | JsonView::Skin
        | JsonView::Shapes => match eval {
            Ok(e) => eval::render(view, e),
            Err(e) => error_json(e),
        },
        JsonView::Patches => match eval {
            Ok(e) => patches::render(e),
            Err(e) => error_json(e),
        },
    }
}

/// A view that could not be built: the reason, as JSON, so readers get a file
/// rather than an I/O error.
pub fn error_json(what: &str) -> Vec<u8> {
    json::to_bytes(&serde_json::json!({ "error": what }))
}

/// `error.txt`: what failed, for which file, one stage per line.
pub fn error_text(path: &Path, failures: &[String]) -> Vec<u8> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    if failures.is_empty() {
        return format!("{name}: no error\n").into_bytes();
    }
    failures
        .iter()
        .flat_map(|f| format!("{name}: {f}\n").into_bytes())
        .collect()
}
