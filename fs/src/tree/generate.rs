//! Generated contents of a `foo.max/`: the loaded stages of the file, the NeL
//! export set, JSON views, info, thumbnails and scene.glb, through the content
//! cache and the optional disk cache.

use super::*;
use crate::gltf_stage::GltfStage;

impl MaxFs {
    /// Where `export/scene.glb` looks for texture images of `state`'s file.
    pub(super) fn texture_search(&self, state: &MaxState) -> maxfs_exporters::gltf::TextureSearch {
        maxfs_exporters::gltf::TextureSearch {
            max_dir: self.root.join(state.path()).parent().map(Path::to_path_buf),
            roots: self.maps.clone(),
            log: None,
        }
    }

    /// `export/errors.txt`: the NeL exports' errors, then one `gltf` line per
    /// texture image `scene.glb` cannot embed (`gltf<TAB>material<TAB>reason`)
    /// and per part `scene.glb` leaves out or approximates
    /// (`gltf<TAB>-<TAB>subject: what`).
    pub(super) fn errors_txt(&self, state: &MaxState) -> Result<Vec<u8>, FsError> {
        let mut text = self.export_set(state)?.errors_text();
        if let Ok(stage) = self.gltf_stage(state) {
            for line in &stage.lines {
                text.extend(format!("gltf\t{line}\n").into_bytes());
            }
        }
        Ok(text)
    }

    /// The glTF stage of a file (`scene.glb` and its errors.txt lines), from
    /// the disk cache while the images it looked up are unchanged, else built
    /// from the evaluated scene.
    pub(super) fn gltf_stage(&self, state: &MaxState) -> Result<Arc<GltfStage>, FsError> {
        let loaded = self.loaded(state)?;
        let search = self.texture_search(state);
        let mut grew = false;
        let r = loaded.gltf(|l| {
            grew = true;
            let place = self.disk_place(state, "export/scene.glb");
            if let Some((disk, hash, place)) = &place {
                if let Some(stage) = disk
                    .get(hash, place)
                    .and_then(|b| GltfStage::from_bytes(&b, &search))
                {
                    return Ok(Arc::new(stage));
                }
            }
            *self
                .generations
                .lock()
                .entry(format!("{}/export/{SCENE_GLB}", state.path().display()))
                .or_default() += 1;
            let eval = l.eval()?;
            let stage = self
                .gate
                .run(|| crate::guard(|| Ok(GltfStage::build(&eval, &search))));
            match &stage {
                Ok(s) => {
                    if let Some((disk, hash, place)) = &place {
                        disk.put(hash, place, &s.to_bytes());
                    }
                }
                Err(e) => {
                    let what = format!("{}: {SCENE_GLB}: {e}", state.path().display());
                    crate::warn_once::warn(&state.key, &what)
                }
            }
            stage.map(Arc::new)
        });
        if grew {
            self.docs.trim();
        }
        r.map_err(FsError::Failed)
    }

    /// The bytes of `export/scene.glb`.
    pub(super) fn scene_glb(&self, state: &MaxState) -> Result<Arc<[u8]>, FsError> {
        self.gltf_stage(state)?.glb.clone().map_err(FsError::Failed)
    }

    /// The NeL exports of a file, a stage of its loaded document (exported on
    /// first need).
    pub(super) fn export_set(&self, state: &MaxState) -> Result<Arc<ExportSet>, FsError> {
        let loaded = self.loaded(state)?;
        let stem = crate::exports::source_stem(state.path());
        let mut grew = false;
        let r = loaded.exports(|l| {
            grew = true;
            // Particle-system instances read their `.ps` shapes: a kept set
            // holds while those lookups do (lookups.rs).
            let ps_search = maxfs_exporters::gltf::TextureSearch {
                max_dir: self.root.join(state.path()).parent().map(Path::to_path_buf),
                roots: self.ps_paths.clone(),
                log: None,
            };
            let place = self.disk_place(state, "exports");
            if let Some((disk, hash, place)) = &place {
                if let Some(set) = disk.get(hash, place).and_then(|b| {
                    crate::lookups::unwrap(&b, &ps_search).and_then(ExportSet::from_bytes)
                }) {
                    return Ok(Arc::new(set));
                }
            }
            *self
                .generations
                .lock()
                .entry(format!("{}/export", state.path().display()))
                .or_default() += 1;
            let log = maxfs_exporters::gltf::ResolutionLog::default();
            let options = maxfs_exporters::nel::export::ExportOptions {
                ps_search: Some(maxfs_exporters::gltf::TextureSearch {
                    log: Some(log.clone()),
                    ..ps_search
                }),
                bank: self.bank.clone(),
            };
            let r = self.gate.run(|| l.build_exports(&stem, &options));
            match &r {
                Ok(set) => {
                    if let Some((disk, hash, place)) = &place {
                        let deps = crate::lookups::Dep::all_of(&log);
                        disk.put(hash, place, &crate::lookups::wrap(&deps, &set.to_bytes()));
                    }
                }
                Err(e) => {
                    let what = format!("{}: export: {e}", state.path().display());
                    crate::warn_once::warn(&state.key, &what)
                }
            }
            r
        });
        if grew {
            // The document grew by its exports and evaluated meshes.
            self.docs.trim();
        }
        r.map_err(FsError::Failed)
    }

    /// The parsed document of `state`, from the document LRU (parsed on a miss).
    pub(super) fn load(&self, state: &MaxState) -> StageResult<Loaded> {
        self.docs.get_or_load(&state.key, || {
            if state.key.size > self.max_parse_bytes {
                // Parsing reads the whole file into memory: a file larger than
                // the documents budget would break it on its own.
                let why = format!(
                    "{}: not parsed: the file is {} bytes, over the documents budget of {} bytes                      (maxfs mount --documents-mb)",
                    state.path().display(),
                    state.key.size,
                    self.max_parse_bytes
                );
                crate::warn_once::warn(&state.key, &why);
                return Err(StageError::new(Stage::Budget, why));
            }
            self.doc_loads.fetch_add(1, Ordering::Relaxed);
            state.load(&self.inflate, self.mesh_bytes)
        })
    }

    pub(super) fn loaded(&self, state: &MaxState) -> Result<Arc<Loaded>, FsError> {
        self.load(state).map_err(FsError::Failed)
    }

    /// The document (chunk trees) of a loaded file, parsed on first need; the
    /// document LRU is weighed again when that happens.
    pub(super) fn doc_of(&self, loaded: &Loaded) -> Result<Arc<Document>, FsError> {
        let built = loaded.doc_built();
        let doc = loaded.doc().map_err(FsError::Failed);
        if !built {
            self.docs.trim();
        }
        doc
    }

    /// The disk cache with the source's hash and the entry name for `what`, when
    /// a cache directory is configured and the source could be hashed. The
    /// inflate limits, texture roots and particle-system folders are part of
    /// the name: they decide which streams read, which images are embedded and
    /// which `.ps` boxes the instance groups use.
    pub(super) fn disk_place(
        &self,
        state: &MaxState,
        what: &str,
    ) -> Option<(&DiskCache, SourceHash, String)> {
        let disk = self.disk.as_deref()?;
        let hash = state.source_hash()?;
        let i = &self.inflate;
        // The texture search roots decide which images scene.glb embeds.
        let place = format!(
            "{what}|inflate {}x {} {}|meshes {}|maps {:?}|ps {:?}|bank {:?}",
            i.ratio,
            i.floor,
            i.max,
            self.mesh_bytes,
            self.maps,
            self.ps_paths,
            self.bank.as_ref().map(|b| &b.path)
        );
        Some((disk, hash, place))
    }

    /// Generated files that depend only on the source and the tool, and cost an
    /// evaluation: the ones worth keeping on disk. (`scene.glb` is kept as part
    /// of the glTF stage, with the image files it depends on; `errors.txt` is
    /// made from the export and glTF stages, both kept.)
    pub(super) fn persistent(v: V) -> bool {
        matches!(v, V::Json(_) | V::ExportJson(_))
    }

    pub(super) fn generated(&self, state: &MaxState, v: V) -> Result<Arc<[u8]>, FsError> {
        let key = (state.key.clone(), v);
        self.content
            .get_or_generate(&key, || {
                let place = if Self::persistent(v) {
                    self.disk_place(state, &v.display())
                } else {
                    None
                };
                if let Some((disk, hash, place)) = &place {
                    if let Some(b) = disk.get(hash, place) {
                        return Ok(b);
                    }
                }
                *self
                    .generations
                    .lock()
                    .entry(format!("{}/{}", state.path().display(), v.display()))
                    .or_default() += 1;
                let r = crate::guard(|| self.generate(state, v)).inspect_err(|e| {
                    let what = format!("{}: {}: {e}", state.path().display(), v.display());
                    crate::warn_once::warn(&state.key, &what)
                });
                // Generating may have built stages of the document (typed
                // layer, evaluation): weigh the documents again.
                self.docs.trim();
                if let (Ok(b), Some((disk, hash, place))) = (&r, &place) {
                    disk.put(hash, place, b);
                }
                r
            })
            .map_err(FsError::Failed)
    }

    pub(super) fn generate(&self, state: &MaxState, v: V) -> Result<Vec<u8>, StageError> {
        let view = |why: &str| StageError::new(Stage::View, why);
        let light = state.light();
        let doc = || -> StageResult<Loaded> {
            light.as_ref().map_err(|e| e.clone())?;
            self.load(state)
        };
        match v {
            V::Error => Ok(crate::views::error_text(
                state.path(),
                &self.stage_errors(state),
            )),
            V::Info => self.gate.run(|| {
                let loaded = doc();
                let document = loaded.clone().and_then(|l| l.doc());
                let typed = loaded.as_ref().ok().map(|l| l.typed());
                let eval = loaded.as_ref().ok().and_then(|l| l.eval().ok());
                Ok(crate::views::info::render(
                    state,
                    light.as_deref().map_err(StageError::message),
                    document.as_deref().map_err(StageError::message),
                    typed
                        .as_ref()
                        .map(|t| t.as_deref().map_err(StageError::message)),
                    eval.as_deref(),
                ))
            }),
            V::Thumbnail => {
                let light = light?;
                let set = light
                    .peek
                    .summary_information
                    .as_deref()
                    .ok_or_else(|| view("no SummaryInformation stream"))
                    .and_then(|d| {
                        maxfs_scene::summary::parse_property_set(d)
                            .map_err(|_| view("bad property set"))
                    })?;
                let dib = maxfs_scene::summary::thumbnail_dib(&set)
                    .ok_or_else(|| view("no thumbnail in SummaryInformation"))?;
                crate::thumbnail::dib_to_png(dib).map_err(|e| StageError::new(Stage::View, e))
            }
            V::Json(view) => self.gate.run(|| {
                let rendered = doc().and_then(|l| {
                    let d = l.doc()?;
                    let t = l.typed()?;
                    let eval = l.eval();
                    Ok(crate::views::render(
                        view,
                        &d,
                        &t,
                        eval.as_deref().map_err(StageError::message),
                    ))
                });
                Ok(match rendered {
                    Ok(bytes) => bytes,
                    Err(e) => crate::views::error_json(e.message()),
                })
            }),
            V::ExportJson(i) => {
                let set = self
                    .export_set(state)
                    .map_err(|e| e.into_stage(Stage::Export))?;
                let file = set
                    .files
                    .get(i as usize)
                    .ok_or_else(|| view("no such export"))?;
                maxfs_exporters::nel::nel_json(&file.bytes, &file.name, false)
                    .map(String::into_bytes)
                    .map_err(|e| StageError::new(Stage::View, e))
            }
            V::ExportErrors => self
                .errors_txt(state)
                .map_err(|e| e.into_stage(Stage::View)),
            _ => Err(view("not a generated file")),
        }
    }
}
