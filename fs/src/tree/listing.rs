//! The inside of a `foo.max/` directory: which names each virtual directory
//! lists and which entry a name resolves to.

use super::*;

impl MaxFs {
    pub(super) fn list_virtual(
        &self,
        state: &MaxState,
        v: V,
    ) -> Result<Vec<(String, Kind)>, FsError> {
        let f = |n: &str| (n.to_string(), Kind::File);
        let d = |n: &str| (n.to_string(), Kind::Dir);
        Ok(match v {
            V::Root => match state.light() {
                Err(_) => vec![f("error.txt"), f("info.json"), f("source.max")],
                Ok(light) => {
                    let mut v = Vec::with_capacity(9);
                    if self.list_chunks {
                        v.push(d("chunks"));
                    }
                    if !self.stage_errors(state).is_empty() {
                        v.push(f("error.txt"));
                    }
                    v.extend([
                        d("export"),
                        f("info.json"),
                        d("json"),
                        d("shape"),
                        f("source.max"),
                        d("streams"),
                    ]);
                    if light.has_thumbnail() {
                        v.push(f("thumbnail.png"));
                    }
                    v
                }
            },
            V::StreamsDir => light_of(state)?
                .streams
                .iter()
                .map(|s| f(&s.file_name))
                .collect(),
            V::ChunksDir => {
                let light = light_of(state)?;
                match self.loaded(state).and_then(|l| self.doc_of(&l)) {
                    Ok(doc) => doc
                        .streams
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| matches!(s.layout, Layout::Chunks(_)))
                        .filter_map(|(i, _)| light.streams.get(i).map(|s| d(&s.file_name)))
                        .collect(),
                    Err(_) => Vec::new(),
                }
            }
            V::ChunkStream(i) => {
                let doc = self.doc_of(&*self.loaded(state)?)?;
                chunk_list(top_chunks(&doc, i as usize).ok_or(FsError::NotFound)?)
            }
            V::Chunk(i, id) => {
                let loaded = self.loaded(state)?;
                let doc = self.doc_of(&loaded)?;
                let c = numbered_chunk(&loaded, &doc, i, id).ok_or(FsError::NotFound)?;
                chunk_list(c.children())
            }
            V::JsonDir => JsonView::ALL.iter().map(|j| f(j.file_name())).collect(),
            V::ShapeDir | V::ExportDir => {
                let set = self.export_set(state)?;
                let dir = if v == V::ShapeDir {
                    ExportDir::Shape
                } else {
                    ExportDir::Export
                };
                let mut out = Vec::new();
                if dir == ExportDir::Export {
                    out.push(f(ERRORS_TXT));
                    out.push(f(SCENE_GLB));
                }
                for (_, file) in set.in_dir(dir) {
                    out.push(f(&file.name));
                    if has_json_view(file) {
                        out.push(f(&format!("{}.json", file.name)));
                    }
                }
                out
            }
            _ => return Err(FsError::NotADirectory),
        })
    }

    pub(super) fn virtual_child(&self, state: &MaxState, v: V, name: &str) -> Result<V, FsError> {
        let found = match v {
            V::Root => {
                let light = state.light();
                match (name, &light) {
                    ("source.max", _) => V::Source,
                    ("info.json", _) => V::Info,
                    ("error.txt", Err(_)) => V::Error,
                    ("error.txt", Ok(_)) if !self.stage_errors(state).is_empty() => V::Error,
                    ("streams", Ok(_)) => V::StreamsDir,
                    ("chunks", Ok(_)) => V::ChunksDir,
                    ("json", Ok(_)) => V::JsonDir,
                    ("shape", Ok(_)) => V::ShapeDir,
                    ("export", Ok(_)) => V::ExportDir,
                    ("thumbnail.png", Ok(l)) if l.has_thumbnail() => V::Thumbnail,
                    _ => return Err(FsError::NotFound),
                }
            }
            V::StreamsDir => V::Stream(stream_index(state, name)?),
            V::ChunksDir => {
                let i = stream_index(state, name)?;
                let doc = self.doc_of(&*self.loaded(state)?)?;
                top_chunks(&doc, i as usize).ok_or(FsError::NotFound)?;
                V::ChunkStream(i)
            }
            V::ChunkStream(i) | V::Chunk(i, _) => {
                let (pos, id, leaf) = parse_chunk_name(name).ok_or(FsError::NotFound)?;
                let parent = match v {
                    V::Chunk(_, p) => Some(p),
                    _ => None,
                };
                let loaded = self.loaded(state)?;
                let doc = self.doc_of(&loaded)?;
                let siblings = match parent {
                    None => top_chunks(&doc, i as usize),
                    Some(p) => numbered_chunk(&loaded, &doc, i, p).map(Chunk::children),
                };
                let c = siblings.and_then(|s| s.get(pos)).ok_or(FsError::NotFound)?;
                if c.id != id || c.is_container() == leaf {
                    return Err(FsError::NotFound);
                }
                let number = loaded
                    .chunk_index(i as usize)
                    .and_then(|x| x.child(parent, pos))
                    .ok_or(FsError::NotFound)?;
                V::Chunk(i, number)
            }
            V::JsonDir => V::Json(JsonView::from_file_name(name).ok_or(FsError::NotFound)?),
            V::ShapeDir | V::ExportDir => {
                let dir = if v == V::ShapeDir {
                    ExportDir::Shape
                } else {
                    ExportDir::Export
                };
                if dir == ExportDir::Export && name == SCENE_GLB {
                    return Ok(V::SceneGlb);
                }
                let set = self.export_set(state)?;
                if dir == ExportDir::Export && name == ERRORS_TXT {
                    return Ok(V::ExportErrors);
                }
                let index = |i: usize| u32::try_from(i).map_err(|_| FsError::NotFound);
                if let Some(i) = set.find(dir, name) {
                    V::ExportFile(index(i)?)
                } else {
                    let i = name
                        .strip_suffix(".json")
                        .and_then(|n| set.find(dir, n))
                        .filter(|&i| set.files.get(i).is_some_and(has_json_view))
                        .ok_or(FsError::NotFound)?;
                    V::ExportJson(index(i)?)
                }
            }
            _ => return Err(FsError::NotADirectory),
        };
        Ok(found)
    }

    pub(super) fn virtual_entry(&self, state: &Arc<MaxState>, v: V) -> Result<Entry, FsError> {
        let key = &state.key;
        let (kind, size) = match v {
            V::Root
            | V::StreamsDir
            | V::ChunksDir
            | V::ChunkStream(_)
            | V::JsonDir
            | V::ShapeDir
            | V::ExportDir => (Kind::Dir, 0),
            V::ExportFile(i) => {
                let set = self.export_set(state)?;
                let file = set.files.get(i as usize).ok_or(FsError::NotFound)?;
                (Kind::File, file.bytes.len() as u64)
            }
            // Generated once into the content cache: the texture search walks folders.
            V::ExportErrors => (Kind::File, self.generated(state, v)?.len() as u64),
            V::Source => (Kind::File, key.size),
            V::Stream(i) => {
                let light = light_of(state)?;
                let s = light.streams.get(i as usize).ok_or(FsError::NotFound)?;
                if s.compressed {
                    let loaded = self.loaded(state)?;
                    let len = loaded
                        .file
                        .streams
                        .get(i as usize)
                        .map_or(0, |s| s.data.len());
                    (Kind::File, len as u64)
                } else {
                    (Kind::File, s.stored_len)
                }
            }
            V::Chunk(i, id) => {
                let loaded = self.loaded(state)?;
                let doc = self.doc_of(&loaded)?;
                let c = numbered_chunk(&loaded, &doc, i, id).ok_or(FsError::NotFound)?;
                match c.payload() {
                    Some(p) => (Kind::File, p.len() as u64),
                    None => (Kind::Dir, 0),
                }
            }
            V::SceneGlb => (Kind::File, self.scene_glb(state)?.len() as u64),
            V::Info | V::Error | V::Thumbnail | V::Json(_) | V::ExportJson(_) => {
                (Kind::File, self.generated(state, v)?.len() as u64)
            }
        };
        Ok(Entry {
            kind,
            size,
            node: Node::Max(state.clone(), v),
        })
    }
}
