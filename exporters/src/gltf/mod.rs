//! Binary glTF 2.0 (.glb) export of a `.max` scene: node tree with TRS
//! transforms, base meshes (offset baked into the vertices), Standard materials as
//! PBR, cameras, punctual lights and sampled node animation. See
//! docs/gltf-export.md.
//!
//! Axes: Max is Z-up, glTF Y-up (both right-handed); a Max point (x, y, z) is the
//! glTF point (x, z, −y).

mod build;
pub mod geometry;
pub mod glb;

use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;

/// A finished export.
#[derive(Debug, Clone)]
pub struct GltfExport {
    /// The .glb file's bytes.
    pub glb: Vec<u8>,
    /// What was left out or approximated (damaged meshes, unknown lights …).
    pub warnings: Vec<String>,
}

/// Exports an evaluated scene. Anything narrower than the whole scene that
/// cannot be exported becomes a warning.
pub fn export_scene(eval: &SceneEval) -> Result<GltfExport, String> {
    let assets = maxfs_scene::eval::material::Assets::of(&eval.doc);
    let (root, bin, warnings) = build::build(eval, &assets);
    let json = root
        .to_vec()
        .map_err(|e| format!("glTF JSON serialisation: {e}"))?;
    Ok(GltfExport {
        glb: glb::write(&json, &bin),
        warnings,
    })
}

/// Opens and exports a `.max` file. Fails only when the scene cannot be read at all.
pub fn export_file(path: &std::path::Path) -> Result<GltfExport, String> {
    let doc = Document::open(path).map_err(|e| e.to_string())?;
    let eval = SceneEval::from_document(doc).map_err(|e| format!("no scene: {e}"))?;
    export_scene(&eval)
}
