//! `export/scene.glb` and the glTF lines of `export/errors.txt` as one stage of
//! a loaded file: the glTF is built once (it used to be built once for the
//! file and again for errors.txt), held beside the NeL exports and weighed in
//! the documents budget, and kept in the disk cache.
//!
//! The glTF depends on files outside its source, the texture images it found
//! (and embedded) or did not find: a stored stage is served only while they
//! are unchanged (lookups.rs).

use std::path::PathBuf;
use std::sync::Arc;

use maxfs_exporters::gltf::{self, ResolutionLog, TextureSearch};
use maxfs_exporters::tsv::field;
use maxfs_scene::eval::SceneEval;

use crate::lookups::Dep;
use crate::stage_error::{Stage, StageError};

/// What the glTF export of one file gives the tree.
#[derive(Debug)]
pub struct GltfStage {
    /// The `.glb` bytes, or why the scene could not be exported at all.
    pub glb: Result<Arc<[u8]>, StageError>,
    /// The `errors.txt` lines after `gltf<TAB>`: one per texture image that
    /// is not embedded (`material<TAB>reason`), then one per part left out or
    /// approximated (`-<TAB>subject: what`).
    pub lines: Vec<String>,
    /// Every texture lookup the build made (see the module docs).
    deps: Vec<Dep>,
}

/// The index of a stored stage; the `.glb` bytes follow it.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    deps: Vec<Dep>,
    lines: Vec<String>,
    glb: StoredGlb,
}

/// The `.glb`'s length, or why there is none (stored as serde stores a
/// `Result`, so entries written before this type read back).
#[derive(serde::Serialize, serde::Deserialize)]
enum StoredGlb {
    Ok(u64),
    Err(String),
}

impl GltfStage {
    /// Exports `eval` with `search` and lists the images it could not embed.
    pub fn build(eval: &SceneEval, search: &TextureSearch) -> GltfStage {
        let log = ResolutionLog::default();
        let logged = TextureSearch {
            log: Some(log.clone()),
            ..search.clone()
        };
        let mut lines: Vec<String> = gltf::texture_problems(eval, &logged)
            .into_iter()
            .map(|(material, reason)| format!("{}\t{}", field(&material), field(&reason)))
            .collect();
        let glb = match gltf::export_scene_with(eval, &logged) {
            Ok(e) => {
                lines.extend(e.gaps().map(|gap| format!("-\t{}", field(gap))));
                Ok(Arc::from(e.glb))
            }
            Err(e) => {
                lines.push(format!("-\tnot exported: {}", field(&e.to_string())));
                Err(StageError::new(Stage::Export, e))
            }
        };
        let deps = Dep::all_of(&log);
        GltfStage { glb, lines, deps }
    }

    /// Heap bytes held (the `.glb` dominates).
    pub fn bytes(&self) -> u64 {
        let glb = self.glb.as_ref().map_or(0, |b| b.len());
        let lines: usize = self.lines.iter().map(String::len).sum();
        (glb + lines) as u64
    }

    /// Bytes for the disk cache; [`GltfStage::from_bytes`] reads them back.
    pub fn to_bytes(&self) -> Vec<u8> {
        let index = Stored {
            deps: self.deps.clone(),
            lines: self.lines.clone(),
            glb: match &self.glb {
                Ok(b) => StoredGlb::Ok(b.len() as u64),
                Err(e) => StoredGlb::Err(e.message().to_string()),
            },
        };
        let json = serde_json::to_vec(&index).unwrap_or_default();
        let mut out = (json.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(&json);
        if let Ok(glb) = &self.glb {
            out.extend_from_slice(glb);
        }
        out
    }

    /// Reads [`GltfStage::to_bytes`] when every texture lookup it recorded
    /// still resolves the same way under `search`; `None` otherwise (or for
    /// anything malformed): the caller rebuilds the stage.
    pub fn from_bytes(b: &[u8], search: &TextureSearch) -> Option<GltfStage> {
        let (len, rest) = b.split_first_chunk::<8>()?;
        let (json, data) =
            rest.split_at_checked(usize::try_from(u64::from_le_bytes(*len)).ok()?)?;
        let index: Stored = serde_json::from_slice(json).ok()?;
        let glb = match index.glb {
            StoredGlb::Ok(n) if usize::try_from(n).ok()? == data.len() => Ok(Arc::from(data)),
            StoredGlb::Err(e) if data.is_empty() => Err(StageError::new(Stage::Export, e)),
            _ => return None,
        };
        if !Dep::all_hold(&index.deps, search) {
            return None;
        }
        Some(GltfStage {
            glb,
            lines: index.lines,
            deps: index.deps,
        })
    }

    /// The image files the stage embedded (for tests and diagnostics).
    pub fn found_images(&self) -> Vec<PathBuf> {
        self.deps.iter().filter_map(Dep::found_path).collect()
    }
}
