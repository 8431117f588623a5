//! NEL3D_APPDATA_* export properties per node, with the plug-in's defaults.
//! Placeholder until the properties decoder lands.

use maxfs_scene::graph::SceneGraph;

/// Decoded export properties of every node of a scene.
#[derive(Debug, Clone, Default)]
pub struct SceneProperties {}

impl SceneProperties {
    pub fn of(_graph: &SceneGraph) -> SceneProperties {
        SceneProperties {}
    }
}
