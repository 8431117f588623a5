//! Binary glTF 2.0 (.glb) export of a `.max` scene: node tree with TRS
//! transforms, base meshes (offset baked into the vertices), Standard materials as
//! PBR, cameras, punctual lights and sampled node animation. See
//! docs/gltf-export.md.
//!
//! Axes: Max is Z-up, glTF Y-up (both right-handed); a Max point (x, y, z) is the
//! glTF point (x, z, −y). Lengths are converted from the file's system unit to
//! metres, and animation is sampled once per frame at the file's frame rate.

use crate::error::ExportResult;

mod anim;
mod axes;
mod build;
mod morph;
mod pbr;
mod rig_motion;
mod skin;
mod visibility;
pub use pbr::materials_only;
pub mod geometry;
pub mod glb;
mod image_formats;
mod metal_rough;
mod texture_transform;
pub mod textures;
mod vertex_color;

pub use textures::{ResolutionLog, TextureSearch};

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
    /// Everything else the model shows otherwise than Max would: a skin or
    /// morph baked at frame 0, a light, map channel or texture placement left
    /// out, a material with default colours (`subject: what`); also in
    /// `warnings`. A file with any is partial too. Missing image files are not
    /// here: the source lacks them, the export does not.
    pub approximated: Vec<String>,
}

impl GltfExport {
    /// Everything that makes the export partial: dropped meshes, then the
    /// approximations.
    pub fn gaps(&self) -> impl Iterator<Item = &String> {
        self.dropped.iter().chain(&self.approximated)
    }
}

/// Exports an evaluated scene without looking for texture images (every
/// textured material is reported in the warnings). Fails only when the scene
/// cannot be read at all; anything narrower becomes a warning.
pub fn export_scene(eval: &SceneEval) -> ExportResult<GltfExport> {
    export_scene_with(eval, &TextureSearch::default())
}

/// Exports an evaluated scene, embedding the texture images `search` finds
/// (docs/gltf-export.md, "Textures").
pub fn export_scene_with(eval: &SceneEval, search: &TextureSearch) -> ExportResult<GltfExport> {
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
    let scale = build::Scale { metres, time };
    let mut built = build::build(eval, &assets, scale, search);
    // A unit or frame rate taken by default scales the whole model.
    let mut approximated = notes.clone();
    approximated.append(&mut built.approximated);
    notes.append(&mut built.warnings);
    let json = built.root.to_vec()?;
    Ok(GltfExport {
        glb: glb::write(&json, &built.bin),
        warnings: notes,
        dropped: built.dropped,
        approximated,
    })
}

/// Opens and exports a `.max` file, looking for texture images beside and
/// below it. Fails only when the scene cannot be read at all.
pub fn export_file(path: &std::path::Path) -> ExportResult<GltfExport> {
    export_file_with(path, &[])
}

/// Opens and exports a `.max` file, looking for texture images beside and
/// below it, then below each of `maps`.
pub fn export_file_with(
    path: &std::path::Path,
    maps: &[std::path::PathBuf],
) -> ExportResult<GltfExport> {
    let doc = Document::open(path)?;
    let eval = SceneEval::from_document(doc)?;
    let search = TextureSearch {
        max_dir: path.parent().map(std::path::Path::to_path_buf),
        roots: maps.to_vec(),
        log: None,
    };
    export_scene_with(&eval, &search)
}

/// The maps of the scene's node materials (Multi/Sub-Object followed) on the
/// slots the export embeds as images that give none: a Bitmap whose image
/// `search` does not find or cannot decode, as (material name, "slot map
/// \"file\": reason"), and a map without an image (procedural, a Bitmap with
/// none, an asset the file does not list), as (material name, "slot map
/// \"name\" (class): why"); sorted and without repeats. Cheaper than an
/// export: nothing is encoded. Used for `errors.txt`.
pub fn texture_problems(eval: &SceneEval, search: &TextureSearch) -> Vec<(String, String)> {
    use maxfs_scene::eval::render::material as mtl;
    let assets = mtl::Assets::of(&eval.doc);
    let mut todo: Vec<usize> = eval
        .graph
        .nodes()
        .filter_map(|(o, _)| mtl::node_material(&eval.graph, o.index))
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    let mut out = std::collections::BTreeSet::new();
    let mut checked = std::collections::BTreeMap::new();
    while let Some(m) = todo.pop() {
        if !seen.insert(m) {
            continue;
        }
        let Some(mat) = mtl::material(eval, m) else {
            continue;
        };
        todo.extend(mat.sub_materials.iter().flatten());
        if let Some(ds) = &mat.double_sided {
            todo.extend([ds.facing, ds.back].into_iter().flatten());
        }
        for r in &mat.maps {
            if r.enabled == Some(false) || !build::EXPORTED_SLOTS.contains(&r.slot.as_str()) {
                continue;
            }
            let Some(t) = mtl::texmap(eval, r.texmap, &assets) else {
                continue;
            };
            let Some(stored) = t.file.clone().filter(|f| !mtl::file_base(f).is_empty()) else {
                out.insert((mat.name.clone(), build::no_image(&r.slot, &t).to_string()));
                continue;
            };
            let verdict = checked
                .entry(stored.clone())
                .or_insert_with(|| search.resolve(&stored).map(|p| textures::probe(&p)));
            let reason = match verdict {
                Ok(Ok(_)) => continue,
                Ok(Err(e)) | Err(e) => e.to_string(),
            };
            out.insert((
                mat.name.clone(),
                format!("{} map {:?}: {reason}", r.slot, mtl::file_base(&stored)),
            ));
        }
    }
    out.into_iter().collect()
}
