//! Binary glTF 2.0 (.glb) export of a `.max` scene: node tree with TRS
//! transforms, base meshes (offset baked into the vertices), Standard materials as
//! PBR, cameras, punctual lights and sampled node animation. See
//! docs/gltf-export.md.
//!
//! Axes: Max is Z-up, glTF Y-up (both right-handed); a Max point (x, y, z) is the
//! glTF point (x, z, −y). Lengths are converted from the file's system unit to
//! metres, and animation is sampled once per frame at the file's frame rate.

mod build;
pub mod geometry;
pub mod glb;

use maxfs_scene::eval::SceneEval;
use maxfs_scene::settings::{self, TimeConfig};
use maxfs_scene::Document;

/// A finished export.
#[derive(Debug, Clone)]
pub struct GltfExport {
    /// The .glb file's bytes.
    pub glb: Vec<u8>,
    /// What was left out or approximated (damaged meshes, unknown lights …).
    pub warnings: Vec<String>,
    /// Geometry nodes left out of the model (`name: mesh not exported: why`);
    /// also in `warnings`. A file with any is partial, not exported.
    pub dropped: Vec<String>,
}

/// Exports an evaluated scene. Fails only when the scene cannot be read at
/// all; anything narrower becomes a warning.
pub fn export_scene(eval: &SceneEval) -> Result<GltfExport, String> {
    let (doc, graph) = (&*eval.doc, &*eval.graph);
    let assets = maxfs_scene::eval::render::material::Assets::of(doc);
    let mut notes = Vec::new();
    let metres = settings::system_unit(doc, graph).map_or_else(
        |e| {
            notes.push(format!(
                "system unit not decoded ({e}): lengths left in Max units"
            ));
            1.0
        },
        |u| u.metres_per_unit,
    );
    let time = settings::time_config(doc).unwrap_or_else(|e| {
        notes.push(format!(
            "time configuration not decoded ({e}): sampled at Max's default 30 fps"
        ));
        TimeConfig::DEFAULT
    });
    let scale = build::Scale {
        metres,
        ticks_per_frame: time.ticks_per_frame,
    };
    let (root, bin, mut warnings, dropped) = build::build(eval, &assets, scale);
    notes.append(&mut warnings);
    let warnings = notes;
    let json = root
        .to_vec()
        .map_err(|e| format!("glTF JSON serialisation: {e}"))?;
    Ok(GltfExport {
        glb: glb::write(&json, &bin),
        warnings,
        dropped,
    })
}

/// Opens and exports a `.max` file. Fails only when the scene cannot be read at all.
pub fn export_file(path: &std::path::Path) -> Result<GltfExport, String> {
    let doc = Document::open(path).map_err(|e| e.to_string())?;
    let eval = SceneEval::from_document(doc).map_err(|e| format!("no scene: {e}"))?;
    export_scene(&eval)
}
