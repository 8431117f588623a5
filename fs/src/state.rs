//! Everything known about one version of one `.max` file, computed in stages on
//! first need: the peek (OLE directory) in the per-file state; the streams, the
//! document (chunk trees), its typed view and chunk numbering in [`Loaded`],
//! which only the document LRU keeps. Each stage runs once per load, whoever
//! asks first: reading `streams/` inflates the streams but parses no chunk
//! tree (two thirds of a full parse on the corpus).

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use maxfs_scene::chunk::Chunk;
use maxfs_scene::container::MaxFile;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::peek::{self, Peek};
use maxfs_scene::sectors::Extents;
use maxfs_scene::{Document, Layout, Typed};

use crate::cache::{DocKey, Weigh};
use crate::exports::ExportSet;
use crate::gltf_stage::GltfStage;
use crate::names::escape_stream_name;
use crate::stage_error::{Stage, StageError, StageResult};

/// One stream as listed under `streams/`.
#[derive(Debug, Clone)]
pub struct StreamEntry {
    pub name: String,
    /// The escaped file name under `streams/` and `chunks/`.
    pub file_name: String,
    pub stored_len: u64,
    pub compressed: bool,
    /// Where a plain stream's bytes lie in the source file: such a stream is
    /// served by `pread` from the source, without loading the file.
    pub extents: Option<Arc<Extents>>,
}

/// What `ls foo.max/` needs: the stream list and whether there is a thumbnail.
#[derive(Debug)]
pub struct Light {
    pub peek: Peek,
    pub streams: Vec<StreamEntry>,
    /// Whether the summary stream holds a usable thumbnail, decided on first
    /// need (only `ls foo.max/` and `thumbnail.png` ask).
    thumbnail: OnceLock<bool>,
}

impl Light {
    pub fn has_thumbnail(&self) -> bool {
        *self.thumbnail.get_or_init(|| {
            self.peek
                .summary_information
                .as_deref()
                .and_then(|d| maxfs_scene::summary::parse_property_set(d).ok())
                .is_some_and(|set| {
                    maxfs_scene::summary::thumbnail_dib(&set)
                        .and_then(|dib| crate::thumbnail::check_dib(dib).ok())
                        .is_some()
                })
        })
    }
}

/// What stays in memory for one version of one `.max` while anything refers to
/// it: its key (the one copy of its path) and the light stage. The parsed
/// document is not here: it lives in the tree's document LRU ([`Loaded`]).
pub struct MaxState {
    /// Unique among the states of one tree (entries are identified by it).
    pub id: u32,
    pub key: DocKey,
    /// Permission bits of the source file.
    pub perm: u16,
    light: OnceLock<StageResult<Light>>,
    /// The source's content hash, for the disk cache (`None` when unreadable).
    source_hash: OnceLock<Option<crate::disk_cache::SourceHash>>,
}

impl MaxState {
    pub fn new(id: u32, key: DocKey, perm: u16) -> MaxState {
        MaxState {
            id,
            key,
            perm,
            light: OnceLock::new(),
            source_hash: OnceLock::new(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.key.path
    }

    /// The content hash of the source, read once per version of the file.
    pub fn source_hash(&self) -> Option<crate::disk_cache::SourceHash> {
        *self
            .source_hash
            .get_or_init(|| crate::disk_cache::hash_file(self.path()).ok())
    }

    pub fn light(&self) -> StageResult<Light> {
        self.light
            .get_or_init(|| {
                let r = crate::guard(|| load_light(self.path()));
                if let Err(e) = &r {
                    crate::warn_once::warn(&self.key, &format!("{}: {e}", self.path().display()));
                }
                r
            })
            .clone()
    }

    /// Reads the file's streams (inflated within the limits); the chunk trees
    /// are parsed on first need ([`Loaded::doc`]); its evaluation will hold at
    /// most `mesh_bytes` of meshes.
    pub fn load(
        &self,
        inflate: &maxfs_scene::container::InflateLimits,
        mesh_bytes: u64,
    ) -> StageResult<Loaded> {
        log::debug!("parsing {}", self.path().display());
        let r = crate::guard(|| {
            let bytes = std::fs::read(self.path())
                .map_err(|e| StageError::new(Stage::Streams, format!("cannot read: {e}")))?;
            let file = MaxFile::from_bytes_with(&bytes, inflate)
                .map_err(|e| StageError::new(Stage::Streams, e))?;
            drop(bytes);
            for (_, why) in file.failed_streams() {
                // Once per file version; reading that stream gives EIO, the others read.
                crate::warn_once::warn(&self.key, &format!("{}: {why}", self.path().display()));
            }
            Ok(Arc::new(Loaded {
                file_bytes: file.streams.iter().map(|s| s.data.len() as u64).sum(),
                file: Arc::new(file),
                doc: OnceLock::new(),
                doc_bytes: OnceLock::new(),
                typed: OnceLock::new(),
                eval: OnceLock::new(),
                exports: OnceLock::new(),
                gltf: OnceLock::new(),
                chunks: OnceLock::new(),
                mesh_bytes,
            }))
        });
        if let Err(e) = &r {
            crate::warn_once::warn(&self.key, &format!("{}: {e}", self.path().display()));
        }
        r
    }
}

/// A parsed `.max` and what is derived from it, owned by the document LRU:
/// the typed layer and the evaluated scene are stages of it, so every view and
/// export of one file reads one typed layer and one evaluation.
pub struct Loaded {
    /// The streams, inflated (shared with the document's chunk trees).
    pub file: Arc<MaxFile>,
    doc: OnceLock<StageResult<Document>>,
    typed: OnceLock<StageResult<Typed>>,
    eval: OnceLock<StageResult<SceneEval>>,
    exports: OnceLock<StageResult<ExportSet>>,
    gltf: OnceLock<StageResult<GltfStage>>,
    chunks: OnceLock<Vec<ChunkIndex>>,
    /// Bytes of the inflated streams.
    file_bytes: u64,
    /// `doc.heap_bytes()` once the document is built, computed once.
    doc_bytes: OnceLock<u64>,
    /// The evaluation's mesh budget.
    mesh_bytes: u64,
}

/// The typed layer copies little (values point into the chunk leaves); this
/// share of the document's bytes stands for it in the budget.
const TYPED_SHARE: u64 = 2;

impl Weigh for StageResult<Loaded> {
    fn bytes(&self) -> u64 {
        match self {
            Ok(l) => l.bytes(),
            Err(e) => e.message().len() as u64,
        }
    }
}

impl Loaded {
    /// The document: the streams with their chunk trees (parsed on first need;
    /// the stream bytes are shared, not copied).
    pub fn doc(&self) -> StageResult<Document> {
        self.doc
            .get_or_init(|| {
                crate::guard(|| Ok(Arc::new(Document::from_file(MaxFile::clone(&self.file)))))
            })
            .clone()
    }

    /// True once the chunk trees are parsed (or failed to be).
    pub fn doc_built(&self) -> bool {
        self.doc.get().is_some()
    }

    pub fn typed(&self) -> StageResult<Typed> {
        self.typed
            .get_or_init(|| {
                let doc = self.doc()?;
                crate::guard(|| Ok(Arc::new(doc.typed())))
            })
            .clone()
    }

    /// The evaluated scene (fails when the scene graph could not be read).
    pub fn eval(&self) -> StageResult<SceneEval> {
        self.eval
            .get_or_init(|| {
                let typed = self.typed()?;
                let doc = self.doc()?;
                crate::guard(|| {
                    SceneEval::new(doc, typed)
                        .map(|e| {
                            e.set_mesh_budget(self.mesh_bytes);
                            Arc::new(e)
                        })
                        .map_err(|e| StageError::new(Stage::Scene, format!("scene graph: {e}")))
                })
            })
            .clone()
    }

    /// The evaluated scene if it has been built; builds nothing.
    pub fn eval_if_built(&self) -> Option<Arc<SceneEval>> {
        self.eval.get().and_then(|r| r.as_ref().ok()).cloned()
    }

    /// Every NeL export of the file, made on first need by `make` (which
    /// builds them from [`Loaded::build_exports`] or takes them from the disk
    /// cache). `make` runs once however many readers race for it: the one place
    /// to count and report a build.
    pub fn exports(
        &self,
        make: impl FnOnce(&Loaded) -> StageResult<ExportSet>,
    ) -> StageResult<ExportSet> {
        self.exports.get_or_init(|| make(self)).clone()
    }

    /// The glTF stage (`scene.glb` and its errors.txt lines), made by `make`
    /// on first need.
    pub fn gltf(
        &self,
        make: impl FnOnce(&Loaded) -> StageResult<GltfStage>,
    ) -> StageResult<GltfStage> {
        self.gltf.get_or_init(|| make(self)).clone()
    }

    /// Builds every NeL export of the file from the evaluated scene.
    pub fn build_exports(
        &self,
        stem: &str,
        options: &maxfs_exporters::nel::export::ExportOptions,
    ) -> StageResult<ExportSet> {
        self.eval().and_then(|eval| {
            crate::guard(|| {
                Ok(Arc::new(ExportSet::build_with(
                    stem,
                    &eval,
                    &maxfs_exporters::nel::export::ExportKind::ALL,
                    options,
                )))
            })
        })
    }

    /// Bytes held by this file's stages: the document, its typed layer, the
    /// evaluated meshes and the exported files.
    pub fn bytes(&self) -> u64 {
        // The document's bytes include the streams it shares.
        let doc_bytes = match self.doc.get() {
            Some(Ok(d)) => *self.doc_bytes.get_or_init(|| d.heap_bytes()),
            _ => self.file_bytes,
        };
        let typed = if self.typed.get().is_some() {
            doc_bytes / TYPED_SHARE
        } else {
            0
        };
        let eval = self.eval_if_built().map_or(0, |e| e.memo_stats().bytes);
        let exports = match self.exports.get() {
            Some(Ok(set)) => set.files.iter().map(|f| f.bytes.len() as u64).sum(),
            _ => 0,
        };
        let gltf = match self.gltf.get() {
            Some(Ok(g)) => g.bytes(),
            _ => 0,
        };
        doc_bytes + typed + eval + exports + gltf
    }

    /// The chunk numbering of stream `stream` (empty for a stream without
    /// chunks); `None` also when the document could not be built.
    pub fn chunk_index(&self, stream: usize) -> Option<&ChunkIndex> {
        let doc = self.doc().ok()?;
        self.chunks
            .get_or_init(|| {
                doc.streams
                    .iter()
                    .map(|s| match &s.layout {
                        Layout::Chunks(top) => ChunkIndex::build(top),
                        Layout::Raw(_) => ChunkIndex::default(),
                    })
                    .collect()
            })
            .get(stream)
    }
}

/// Chunks of one stream numbered breadth first, so that an entry can name a
/// chunk with one `u32`: the top chunks are `0..top.len()`, and the children of
/// a chunk are numbered consecutively from its `first_child`.
#[derive(Default)]
pub struct ChunkIndex {
    /// Per chunk: (parent number or `NO_PARENT`, number of the first child).
    rows: Vec<(u32, u32)>,
}

const NO_PARENT: u32 = u32::MAX;

impl ChunkIndex {
    fn build(top: &[Chunk]) -> ChunkIndex {
        let mut rows: Vec<(u32, u32)> = top.iter().map(|_| (NO_PARENT, 0)).collect();
        let mut queue: VecDeque<&Chunk> = top.iter().collect();
        let mut id = 0usize;
        while let Some(c) = queue.pop_front() {
            rows[id].1 = rows.len() as u32;
            for ch in c.children() {
                rows.push((id as u32, 0));
                queue.push_back(ch);
            }
            id += 1;
        }
        ChunkIndex { rows }
    }

    /// The number of the `pos`-th top chunk or child of chunk `parent`; the
    /// caller checks that the chunk exists.
    pub fn child(&self, parent: Option<u32>, pos: usize) -> Option<u32> {
        let base = match parent {
            None => 0,
            Some(p) => self.rows.get(p as usize)?.1 as usize,
        };
        u32::try_from(base.checked_add(pos)?).ok()
    }

    /// The chunk numbered `id`.
    pub fn chunk<'a>(&self, top: &'a [Chunk], id: u32) -> Option<&'a Chunk> {
        let path = self.path(id)?;
        let (first, rest) = path.split_first()?;
        let mut c = top.get(*first)?;
        for &i in rest {
            c = c.children().get(i)?;
        }
        Some(c)
    }

    /// The parent of chunk `id`: `Some(None)` for a top chunk.
    pub fn parent(&self, id: u32) -> Option<Option<u32>> {
        let &(parent, _) = self.rows.get(id as usize)?;
        Some((parent != NO_PARENT).then_some(parent))
    }

    /// Sibling positions from the top down to chunk `id`.
    pub fn path(&self, id: u32) -> Option<Vec<usize>> {
        let mut path = Vec::new();
        let mut i = id;
        loop {
            let &(parent, _) = self.rows.get(i as usize)?;
            if parent == NO_PARENT {
                path.push(i as usize);
                break;
            }
            // Parents are numbered before their children, so this ends.
            let first = self.rows.get(parent as usize)?.1;
            path.push(i.checked_sub(first)? as usize);
            i = parent;
        }
        path.reverse();
        Some(path)
    }
}

fn load_light(path: &Path) -> StageResult<Light> {
    let file = std::fs::File::open(path)
        .map_err(|e| StageError::new(Stage::Container, format!("cannot open: {e}")))?;
    let mut peek = peek::peek(std::io::BufReader::new(file))
        .map_err(|e| StageError::new(Stage::Container, e))?;
    let mut used = std::collections::HashSet::new();
    let streams = peek
        .streams
        .iter_mut()
        .map(|s| {
            let mut file_name = escape_stream_name(&s.name);
            // Escaping is injective, but OLE names compare case-insensitively: keep unique anyway.
            while !used.insert(file_name.clone()) {
                file_name.push('~');
            }
            StreamEntry {
                name: s.name.clone(),
                file_name,
                stored_len: s.stored_len,
                compressed: s.compressed,
                // Moved, not copied: the peek keeps the directory only.
                extents: s.extents.take().filter(|_| !s.compressed).map(Arc::new),
            }
        })
        .collect();
    Ok(Arc::new(Light {
        peek,
        streams,
        thumbnail: OnceLock::new(),
    }))
}
