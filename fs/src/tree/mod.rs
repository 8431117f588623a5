//! The virtual tree: resolving a path under the source root to an entry, listing
//! directories, and producing file contents. Real files and directories pass
//! through; every `.max` file becomes a directory (see docs/user-guide.md).

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::hash::{Hash, Hasher};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

use maxfs_scene::chunk::Chunk;
use maxfs_scene::container::MaxFile;
use maxfs_scene::sectors::Extents;
use maxfs_scene::{Document, Layout};
use parking_lot::Mutex;

use crate::cache::{ByteLru, CacheStats, ContentCache, DocKey, StateRegistry};
use crate::disk_cache::{DiskCache, DiskStats, SourceHash};
use crate::exports::{ExportDir, ExportFile, ExportSet, ERRORS_TXT};
use crate::names::{chunk_name, parse_chunk_name};
use crate::stage_error::{Stage, StageError, StageResult};
use crate::state::{Loaded, MaxState};
use crate::views::JsonView;
use crate::FsError;

mod failures;
mod generate;
mod listing;

/// Tuning of the caches.
#[derive(Debug, Clone)]
pub struct Options {
    /// Byte budget of generated contents (JSON views, info, thumbnails, glTF).
    pub cache_bytes: u64,
    /// Byte budget of parsed `.max` files with what is built from them (typed
    /// layer, evaluated meshes, NeL exports). The default keeps a checkout of
    /// about a hundred typical files warm.
    pub document_bytes: u64,
    /// Per-file decompression budget of parsing (a file over it shows the
    /// stream that crossed it as failed, naming the limit).
    pub inflate: maxfs_scene::container::InflateLimits,
    /// Bytes of evaluated meshes one file may hold; a mesh past it is refused
    /// naming the budget (`--meshes-mb`).
    pub mesh_bytes: u64,
    /// How many files may be evaluated at once (`--evaluations`): bounds the
    /// mount's memory while evaluating to this many mesh budgets.
    pub evaluations: usize,
    /// Generated exports and JSON views kept on disk across mounts (`--cache-dir`).
    pub disk_cache: Option<Arc<DiskCache>>,
    /// List `chunks/` in a `foo.max/` directory. When false it is left out of
    /// listings (so whole-tree walks skip the chunk trees, nearly all of the
    /// tree's entries) but is still reachable by path.
    pub list_chunks: bool,
    /// Folders searched (recursively, ignoring case) for the texture images
    /// `export/scene.glb` embeds, after the stored path and the `.max`'s folder.
    pub maps: Vec<PathBuf>,
    /// Folders searched (recursively, ignoring case) for the particle-system
    /// shapes (`.ps`) of FX instances in instance groups, after the stored
    /// path and the `.max`'s folder.
    pub ps_paths: Vec<PathBuf>,
    /// The tile bank zone symmetry / rotation go through (`--bank`).
    pub bank: Option<Arc<maxfs_exporters::nel::export::zone::TileBankFile>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cache_bytes: 512 << 20,
            document_bytes: 1 << 30,
            inflate: Default::default(),
            mesh_bytes: maxfs_scene::eval::DEFAULT_MESH_BUDGET,
            evaluations: crate::eval_gate::default_permits(),
            disk_cache: None,
            list_chunks: true,
            maps: Vec::new(),
            ps_paths: Vec::new(),
            bank: None,
        }
    }
}

/// What the caches of a tree hold and how they were used.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct TreeStats {
    /// Parsed files with their typed layer, evaluation and exports.
    pub documents: CacheStats,
    /// Generated file contents.
    pub content: CacheStats,
    /// Full parses of a `.max` so far.
    pub document_loads: u64,
    /// The disk cache's counters (all zero without `--cache-dir`).
    pub disk: DiskStats,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File,
    /// A symbolic link of the source tree, served as a link (its target text),
    /// never followed: a link to an ancestor must not make a second copy of the
    /// tree, and a link out of the checkout must not expose what lies there.
    Symlink,
}

/// A resolved path: what it is, its exact size, and how to get at it.
///
/// Compact (40 bytes) so that long-lived tables of entries, such as the inode
/// table of the mount, stay small: an entry inside a `foo.max/` is the per-file
/// state (which holds the one copy of the file's path) and a small place id; it
/// never holds the parsed document, which only the document LRU owns.
#[derive(Clone)]
pub struct Entry {
    pub kind: Kind,
    pub size: u64,
    node: Node,
}

#[derive(Clone)]
enum Node {
    Real(Arc<RealNode>),
    Max(Arc<MaxState>, V),
}

struct RealNode {
    path: Arc<Path>,
    mtime: SystemTime,
    perm: u16,
}

/// The identity of an entry: one version of one path. Two entries with equal
/// keys stand for the same file with the same bytes (inside a `.max`) or the
/// same real path.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct EntryKey(KeyInner);

/// The identity of an entry inside a `foo.max/` (16 bytes, no heap): the
/// per-file state's id and the place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VirtualKey(u32, V);

#[derive(Clone, PartialEq, Eq, Hash)]
enum KeyInner {
    Real(Arc<Path>),
    Max(u32, V),
}

/// A place inside a `foo.max/` directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum V {
    Root,
    Source,
    Info,
    Error,
    Thumbnail,
    StreamsDir,
    Stream(u32),
    ChunksDir,
    /// The chunk tree of a stream (stream index).
    ChunkStream(u32),
    /// A chunk: stream index, then its number in the stream's [`ChunkIndex`].
    ///
    /// [`ChunkIndex`]: crate::state::ChunkIndex
    Chunk(u32, u32),
    JsonDir,
    Json(JsonView),
    /// `shape/` and `export/`: the NeL exports (see [`crate::exports`]).
    ShapeDir,
    ExportDir,
    /// An exported file: its index in the file's [`ExportSet`].
    ExportFile(u32),
    /// The decoded JSON beside an exported file (`x.shape.json`).
    ExportJson(u32),
    ExportErrors,
    SceneGlb,
}

/// Bytes of a virtual file; stream and chunk contents borrow the parsed file.
#[derive(Clone)]
pub enum Blob {
    Owned(Arc<[u8]>),
    Stream(Arc<MaxFile>, usize),
    Leaf(Arc<Document>, usize, Arc<[usize]>),
}

impl Blob {
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Blob::Owned(b) => b,
            Blob::Stream(f, i) => f.streams.get(*i).map_or(&[][..], |s| &s.data),
            Blob::Leaf(d, s, path) => leaf_payload(d, *s, path).unwrap_or(&[]),
        }
    }
}

/// An opened file: a real file read in place, a plain stream read in place
/// from its source (the runs of sectors it occupies), or bytes in memory.
pub enum Content {
    File(std::fs::File),
    Extents(std::fs::File, Arc<Extents>),
    Bytes(Blob),
}

impl Content {
    /// Up to `len` bytes from `offset` (fewer at the end of the file).
    pub fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        let got = self.read_into(offset, &mut buf)?;
        buf.truncate(got);
        Ok(buf)
    }

    /// Fills `buf` from `offset`: the number of bytes read (fewer than
    /// `buf.len()` only at the end of the file).
    pub fn read_into(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Content::File(f) => {
                use std::os::unix::fs::FileExt;
                let mut got = 0;
                while got < buf.len() {
                    match f.read_at(&mut buf[got..], offset + got as u64) {
                        Ok(0) => break,
                        Ok(n) => got += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok(got)
            }
            Content::Extents(f, e) => e.read_into(f, offset, buf),
            Content::Bytes(b) => {
                let src = slice_at(b.as_slice(), offset, buf.len());
                buf[..src.len()].copy_from_slice(src);
                Ok(src.len())
            }
        }
    }

    /// The source file a read goes to (checked after the read against the
    /// version the entry stands for); `None` for bytes in memory.
    pub fn file(&self) -> Option<&std::fs::File> {
        match self {
            Content::File(f) | Content::Extents(f, _) => Some(f),
            Content::Bytes(_) => None,
        }
    }
}

/// The part of `data` a read of `len` bytes at `offset` returns.
pub fn slice_at(data: &[u8], offset: u64, len: usize) -> &[u8] {
    let start = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(data.len());
    let end = start.saturating_add(len).min(data.len());
    &data[start..end]
}

fn leaf_payload<'a>(doc: &'a Document, stream: usize, path: &[usize]) -> Option<&'a [u8]> {
    chunk_at(doc, stream, path)?.payload()
}

fn top_chunks(doc: &Document, stream: usize) -> Option<&[Chunk]> {
    match &doc.streams.get(stream)?.layout {
        Layout::Chunks(top) => Some(top),
        Layout::Raw(_) => None,
    }
}

fn chunk_at<'a>(doc: &'a Document, stream: usize, path: &[usize]) -> Option<&'a Chunk> {
    let top = top_chunks(doc, stream)?;
    let (first, rest) = path.split_first()?;
    let mut c = top.get(*first)?;
    for &i in rest {
        c = c.children().get(i)?;
    }
    Some(c)
}

/// Chunk number `id` of stream `stream` of `doc` (the document of `loaded`).
fn numbered_chunk<'a>(
    loaded: &Loaded,
    doc: &'a Document,
    stream: u32,
    id: u32,
) -> Option<&'a Chunk> {
    let top = top_chunks(doc, stream as usize)?;
    loaded.chunk_index(stream as usize)?.chunk(top, id)
}

fn is_max(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("max"))
}

fn version_of(key: &DocKey) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (key.size, key.mtime_ns, key.ctime_ns).hash(&mut h);
    h.finish() | 1
}

fn mtime_of(key: &DocKey) -> SystemTime {
    let ns = key.mtime_ns;
    if ns >= 0 {
        SystemTime::UNIX_EPOCH + std::time::Duration::from_nanos(ns as u64)
    } else {
        SystemTime::UNIX_EPOCH
    }
}

type ContentKey = (DocKey, V);

/// A listed name, its kind, and its entry when known without generating anything.
pub type KnownEntry = (OsString, Kind, Option<Entry>);

/// Per (node, time): how many times its modifier stack was evaluated.
pub type StackCounts = HashMap<(usize, i32), u32>;

/// The smallest size limit of parsed files, whatever the documents budget (a
/// budget of 0 means "keep nothing cached", not "parse nothing").
const MIN_PARSE_LIMIT: u64 = 64 << 20;

/// Per-file states kept alive while nothing else refers to them.
const RECENT_STATES: usize = 64;

/// The tree over one source directory. Cheap to share between threads.
pub struct MaxFs {
    root: PathBuf,
    states: StateRegistry<DocKey, MaxState>,
    next_state: AtomicU32,
    docs: ByteLru<DocKey, StageResult<Loaded>>,
    content: ContentCache<ContentKey, StageError>,
    doc_loads: AtomicU64,
    generations: Mutex<HashMap<String, u64>>,
    inflate: maxfs_scene::container::InflateLimits,
    mesh_bytes: u64,
    gate: crate::eval_gate::EvalGate,
    disk: Option<Arc<DiskCache>>,
    list_chunks: bool,
    /// Files larger than this are not parsed (parsing holds the whole file).
    max_parse_bytes: u64,
    maps: Vec<PathBuf>,
    ps_paths: Vec<PathBuf>,
    bank: Option<Arc<maxfs_exporters::nel::export::zone::TileBankFile>>,
}

impl MaxFs {
    pub fn new(root: impl Into<PathBuf>, options: Options) -> MaxFs {
        MaxFs {
            root: root.into(),
            states: StateRegistry::new(RECENT_STATES),
            next_state: AtomicU32::new(0),
            docs: ByteLru::new(options.document_bytes),
            content: ContentCache::new(options.cache_bytes),
            doc_loads: AtomicU64::new(0),
            generations: Mutex::new(HashMap::new()),
            inflate: options.inflate,
            mesh_bytes: options.mesh_bytes,
            gate: crate::eval_gate::EvalGate::new(options.evaluations),
            disk: options.disk_cache,
            list_chunks: options.list_chunks,
            max_parse_bytes: options.document_bytes.max(MIN_PARSE_LIMIT),
            maps: options.maps,
            ps_paths: options.ps_paths,
            bank: options.bank,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How many times a `.max` was fully parsed (streams and chunk trees).
    pub fn document_loads(&self) -> u64 {
        self.doc_loads.load(Ordering::Relaxed)
    }

    /// How often each generated file was generated, keyed `<source path>/<virtual path>`.
    pub fn generation_counts(&self) -> HashMap<String, u64> {
        self.generations.lock().clone()
    }

    /// Bytes held by the generated-content cache.
    pub fn cached_bytes(&self) -> u64 {
        self.content.bytes()
    }

    /// How many parsed documents the document LRU holds.
    pub fn cached_documents(&self) -> usize {
        self.docs.len()
    }

    /// Hits, misses, evictions and bytes of the caches.
    pub fn stats(&self) -> TreeStats {
        TreeStats {
            documents: self.docs.stats(),
            content: self.content.stats(),
            document_loads: self.document_loads(),
            disk: self.disk.as_ref().map(|d| d.stats()).unwrap_or_default(),
        }
    }

    /// The mesh memo of the evaluated scene of the `.max` at `rel`, when that
    /// file is loaded and evaluated; loads and evaluates nothing.
    pub fn eval_stats(&self, rel: &Path) -> Option<(maxfs_scene::eval::MemoStats, StackCounts)> {
        let e = self.lookup(rel).ok()?;
        let Node::Max(state, _) = &e.node else {
            return None;
        };
        let loaded = self.docs.peek(&state.key)?.ok()?;
        let eval = loaded.eval_if_built()?;
        Some((eval.memo_stats(), eval.stack_evaluations()))
    }

    /// Forgets the parsed versions of the source at `path` (an absolute path
    /// under the root), when the caller knows it changed (the mount's source
    /// watch): their memory is freed at once instead of when the budget needs
    /// it. Nothing is served wrong without this call: a changed source is a
    /// new version with its own key.
    pub fn source_changed(&self, path: &Path) {
        self.docs.remove_where(|k| k.path.as_path() == path);
    }

    /// The entry at `rel` (relative to the root; `""` is the root).
    pub fn lookup(&self, rel: &Path) -> Result<Entry, FsError> {
        let mut e = self.real_entry(self.root.clone())?;
        // (A symlink on the way is a link, not a directory: `child` refuses it.)
        for c in rel.components() {
            match c {
                Component::Normal(n) => e = self.child(&e, n)?,
                Component::CurDir => {}
                _ => return Err(FsError::NotFound),
            }
        }
        Ok(e)
    }

    fn real_entry(&self, path: PathBuf) -> Result<Entry, FsError> {
        // The root is followed (it may be a link to the checkout); nothing below it is.
        let meta = if path == self.root {
            std::fs::metadata(&path)
        } else {
            std::fs::symlink_metadata(&path)
        }
        .map_err(FsError::from_io)?;
        use std::os::unix::fs::PermissionsExt;
        let perm = (meta.permissions().mode() & 0o7555) as u16;
        let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        if meta.is_file() && is_max(&path) {
            let key = DocKey::of(&path, &meta);
            let state = self.states.get_or_insert(&key, || {
                MaxState::new(
                    self.next_state.fetch_add(1, Ordering::Relaxed),
                    key.clone(),
                    perm,
                )
            });
            return Ok(Entry {
                kind: Kind::Dir,
                size: 0,
                node: Node::Max(state, V::Root),
            });
        }
        let kind = if meta.is_dir() {
            Kind::Dir
        } else if meta.is_file() {
            Kind::File
        } else if meta.is_symlink() {
            Kind::Symlink
        } else {
            return Err(FsError::NotFound); // devices, fifos, sockets are not mirrored
        };
        Ok(Entry {
            kind,
            // A link's size is the length of its target, as lstat reports it.
            size: if kind == Kind::Dir { 0 } else { meta.len() },
            node: Node::Real(Arc::new(RealNode {
                path: path.into(),
                mtime,
                perm,
            })),
        })
    }

    /// The entry again, as the source is now: real files and `.max` directories
    /// are stat'ed afresh; entries inside a `.max` never change and are returned as is.
    pub fn refresh(&self, entry: &Entry) -> Result<Entry, FsError> {
        match &entry.node {
            Node::Real(r) => self.real_entry(r.path.to_path_buf()),
            Node::Max(state, V::Root) => self.real_entry(state.path().to_path_buf()),
            Node::Max(..) => Ok(entry.clone()),
        }
    }

    /// The entry `name` inside directory `parent`.
    pub fn child(&self, parent: &Entry, name: &OsStr) -> Result<Entry, FsError> {
        if parent.kind != Kind::Dir {
            return Err(FsError::NotADirectory);
        }
        if name.is_empty() || name == "." || name == ".." || name.as_encoded_bytes().contains(&b'/')
        {
            return Err(FsError::NotFound);
        }
        match &parent.node {
            Node::Real(dir) => self.real_entry(dir.path.join(name)),
            Node::Max(state, v) => {
                let name = name.to_str().ok_or(FsError::NotFound)?;
                let child = self.virtual_child(state, *v, name)?;
                self.virtual_entry(state, child)
            }
        }
    }

    /// [`MaxFs::child`] when the entry's size is known without generating
    /// anything (real entries, streams, chunks, directories, exports once their
    /// directory is listed), else `None`: a listing that hands out attributes
    /// (the mount's READDIRPLUS) must not evaluate every JSON view it lists.
    pub fn child_if_known(&self, parent: &Entry, name: &OsStr) -> Option<Result<Entry, FsError>> {
        let Node::Max(state, v) = &parent.node else {
            return Some(self.child(parent, name));
        };
        if parent.kind != Kind::Dir {
            return Some(Err(FsError::NotADirectory));
        }
        let Some(name) = name.to_str() else {
            return Some(Err(FsError::NotFound));
        };
        // Resolving a name inside a directory that could be listed generates
        // nothing (virtual_child only reads what the listing already built).
        let child = match self.virtual_child(state, *v, name) {
            Ok(c) => c,
            Err(e) => return Some(Err(e)),
        };
        let known = match child {
            V::Root
            | V::StreamsDir
            | V::ChunksDir
            | V::ChunkStream(_)
            | V::JsonDir
            | V::ShapeDir
            | V::ExportDir
            | V::Source
            | V::Chunk(..)
            | V::ExportFile(_) => true,
            // A stored stream's length is in the directory; an inflated one's
            // only once the file is parsed.
            V::Stream(i) => light_of(state)
                .ok()
                .and_then(|l| l.streams.get(i as usize).map(|s| !s.compressed))
                .unwrap_or(false),
            V::Info
            | V::Error
            | V::Thumbnail
            | V::Json(_)
            | V::ExportJson(_)
            | V::ExportErrors
            | V::SceneGlb => false,
        };
        known.then(|| self.virtual_entry(state, child))
    }

    /// [`MaxFs::list`] with each entry resolved where [`MaxFs::child_if_known`]
    /// would resolve it; chunk directories (nearly all directories of a walked
    /// tree) are resolved in one pass over their children.
    pub fn list_known(&self, dir: &Entry) -> Result<Vec<KnownEntry>, FsError> {
        if let (Node::Max(state, v @ (V::ChunkStream(_) | V::Chunk(..))), Kind::Dir) =
            (&dir.node, dir.kind)
        {
            return self.chunk_entries(state, *v);
        }
        Ok(self
            .list(dir)?
            .into_iter()
            .map(|(name, kind)| {
                let e = self.child_if_known(dir, &name).and_then(Result::ok);
                (name, kind, e)
            })
            .collect())
    }

    fn chunk_entries(&self, state: &Arc<MaxState>, v: V) -> Result<Vec<KnownEntry>, FsError> {
        let (stream, parent) = match v {
            V::ChunkStream(i) => (i, None),
            V::Chunk(i, p) => (i, Some(p)),
            _ => return Err(FsError::NotADirectory),
        };
        let loaded = self.loaded(state)?;
        let doc = self.doc_of(&loaded)?;
        let chunks = match parent {
            None => top_chunks(&doc, stream as usize),
            Some(p) => numbered_chunk(&loaded, &doc, stream, p).map(Chunk::children),
        }
        .ok_or(FsError::NotFound)?;
        let index = loaded
            .chunk_index(stream as usize)
            .ok_or(FsError::NotFound)?;
        let mut out: Vec<KnownEntry> = chunks
            .iter()
            .enumerate()
            .map(|(pos, c)| {
                let leaf = !c.is_container();
                let kind = if leaf { Kind::File } else { Kind::Dir };
                // As virtual_entry resolves a chunk: a payload makes a file.
                let entry = index.child(parent, pos).map(|n| {
                    let (kind, size) = match c.payload() {
                        Some(p) => (Kind::File, p.len() as u64),
                        None => (Kind::Dir, 0),
                    };
                    Entry {
                        kind,
                        size,
                        node: Node::Max(state.clone(), V::Chunk(stream, n)),
                    }
                });
                (OsString::from(chunk_name(pos, c.id, leaf)), kind, entry)
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// The leaf chunks beside chunk `e` (same parent, `e` excluded) with their
    /// payloads, up to `max_bytes` in all and none larger than `max_each`:
    /// what a reader of one chunk of a directory (`grep -r`) reads next, so the
    /// mount can hand them to the kernel's page cache with the first read.
    pub fn sibling_leaves(&self, e: &Entry, max_each: u64, max_bytes: u64) -> Vec<(Entry, Blob)> {
        let Node::Max(state, V::Chunk(stream, id)) = &e.node else {
            return Vec::new();
        };
        let (stream, id) = (*stream, *id);
        let Ok(loaded) = self.loaded(state) else {
            return Vec::new();
        };
        let Ok(doc) = self.doc_of(&loaded) else {
            return Vec::new();
        };
        let Some(index) = loaded.chunk_index(stream as usize) else {
            return Vec::new();
        };
        let Some(parent) = index.parent(id) else {
            return Vec::new();
        };
        let (siblings, base_path) = match parent {
            None => (top_chunks(&doc, stream as usize), Vec::new()),
            Some(p) => (
                numbered_chunk(&loaded, &doc, stream, p).map(Chunk::children),
                index.path(p).unwrap_or_default(),
            ),
        };
        let Some(siblings) = siblings else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut total = 0u64;
        for (pos, c) in siblings.iter().enumerate() {
            let Some(number) = index.child(parent, pos) else {
                break;
            };
            let Some(payload) = c.payload() else { continue };
            let len = payload.len() as u64;
            if number == id || len == 0 || len > max_each {
                continue;
            }
            total += len;
            if total > max_bytes {
                break;
            }
            let mut path = base_path.clone();
            path.push(pos);
            out.push((
                Entry {
                    kind: Kind::File,
                    size: len,
                    node: Node::Max(state.clone(), V::Chunk(stream, number)),
                },
                Blob::Leaf(doc.clone(), stream as usize, path.into()),
            ));
        }
        out
    }

    /// The names in directory `dir`, sorted, with their kinds.
    pub fn list(&self, dir: &Entry) -> Result<Vec<(OsString, Kind)>, FsError> {
        if dir.kind != Kind::Dir {
            return Err(FsError::NotADirectory);
        }
        let mut out = match &dir.node {
            Node::Real(r) => self.list_real(&r.path)?,
            Node::Max(state, v) => self
                .list_virtual(state, *v)?
                .into_iter()
                .map(|(n, k)| (OsString::from(n), k))
                .collect(),
        };
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    fn list_real(&self, path: &Path) -> Result<Vec<(OsString, Kind)>, FsError> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(path).map_err(FsError::from_io)? {
            let Ok(e) = e else { continue };
            let p = e.path();
            let Ok(t) = e.file_type() else { continue };
            let kind = if t.is_dir() || (t.is_file() && is_max(&p)) {
                Kind::Dir
            } else if t.is_file() {
                Kind::File
            } else if t.is_symlink() {
                Kind::Symlink
            } else {
                continue;
            };
            out.push((e.file_name(), kind));
        }
        Ok(out)
    }

    /// The target of a symbolic link, as stored (never resolved).
    pub fn readlink(&self, entry: &Entry) -> Result<PathBuf, FsError> {
        match &entry.node {
            Node::Real(r) if entry.kind == Kind::Symlink => {
                std::fs::read_link(&r.path).map_err(FsError::from_io)
            }
            _ => Err(FsError::Io("not a symbolic link".into(), Some(22))),
        }
    }

    /// Opens a file entry for reading.
    pub fn open(&self, entry: &Entry) -> Result<Content, FsError> {
        if entry.kind != Kind::File {
            return Err(FsError::IsADirectory);
        }
        match &entry.node {
            Node::Real(r) => Ok(Content::File(
                std::fs::File::open(&r.path).map_err(FsError::from_io)?,
            )),
            Node::Max(state, v) => Ok(Content::Bytes(match *v {
                V::Source => {
                    return Ok(Content::File(
                        std::fs::File::open(state.path()).map_err(FsError::from_io)?,
                    ))
                }
                V::Stream(i) => {
                    // A plain stream whose sectors are all present is read in
                    // place: no load, no copy (see `maxfs_scene::sectors`).
                    let light = light_of(state)?;
                    if let Some(x) = light
                        .streams
                        .get(i as usize)
                        .and_then(|s| s.extents.clone())
                    {
                        let f = std::fs::File::open(state.path()).map_err(FsError::from_io)?;
                        return Ok(Content::Extents(f, x));
                    }
                    let loaded = self.loaded(state)?;
                    let s = loaded.file.streams.get(i as usize);
                    if let Some(why) = s.and_then(|s| s.error.as_ref()) {
                        // This stream only; the file's other streams still read.
                        return Err(FsError::Failed(StageError::new(Stage::Stream, why)));
                    }
                    Blob::Stream(loaded.file.clone(), i as usize)
                }
                V::Chunk(i, id) => {
                    let loaded = self.loaded(state)?;
                    let doc = self.doc_of(&loaded)?;
                    let path = loaded
                        .chunk_index(i as usize)
                        .and_then(|x| x.path(id))
                        .ok_or(FsError::NotFound)?;
                    Blob::Leaf(doc, i as usize, path.into())
                }
                V::ExportFile(i) => {
                    let set = self.export_set(state)?;
                    let file = set.files.get(i as usize).ok_or(FsError::NotFound)?;
                    Blob::Owned(file.bytes.clone())
                }
                V::SceneGlb => Blob::Owned(self.scene_glb(state)?),
                v => Blob::Owned(self.generated(state, v)?),
            })),
        }
    }

    /// The whole content of the file at `rel`.
    pub fn read(&self, rel: &Path) -> Result<Vec<u8>, FsError> {
        let e = self.lookup(rel)?;
        let c = self.open(&e)?;
        match c {
            Content::File(mut f) => {
                let mut v = Vec::with_capacity(e.size as usize);
                std::io::Read::read_to_end(&mut f, &mut v).map_err(FsError::from_io)?;
                self.check_unchanged(&e, &f)?;
                Ok(v)
            }
            Content::Extents(ref f, ref x) => {
                let v = x
                    .read_at(f, 0, x.len() as usize)
                    .map_err(FsError::from_io)?;
                self.check_unchanged(&e, f)?;
                Ok(v)
            }
            Content::Bytes(b) => Ok(b.as_slice().to_vec()),
        }
    }
}

impl Entry {
    /// True for entries inside a `foo.max/` directory: their name, size and bytes
    /// are fixed for the version of the source file they were resolved from.
    pub fn is_immutable(&self) -> bool {
        matches!(&self.node, Node::Max(_, v) if *v != V::Root)
    }

    pub fn mtime(&self) -> SystemTime {
        match &self.node {
            Node::Real(r) => r.mtime,
            Node::Max(state, _) => mtime_of(&state.key),
        }
    }

    /// Permission bits (write bits always clear).
    pub fn perm(&self) -> u16 {
        match &self.node {
            Node::Real(_) if self.kind == Kind::Symlink => 0o777,
            Node::Real(r) => r.perm,
            Node::Max(state, V::Root) => (state.perm | 0o111) & 0o555,
            Node::Max(..) if self.kind == Kind::Dir => 0o555,
            Node::Max(..) => 0o444,
        }
    }

    /// Changes whenever the source file behind this entry changes; with the path
    /// it identifies one immutable version of a virtual file. Zero for real entries.
    pub fn version(&self) -> u64 {
        match &self.node {
            Node::Real(_) => 0,
            Node::Max(state, _) => version_of(&state.key),
        }
    }

    /// The identity of this entry (see [`EntryKey`]).
    pub fn key(&self) -> EntryKey {
        EntryKey(match &self.node {
            Node::Real(r) => KeyInner::Real(r.path.clone()),
            Node::Max(state, v) => KeyInner::Max(state.id, *v),
        })
    }

    /// The compact identity of an entry inside a `foo.max/` (the `.max`
    /// directory itself included); `None` for real entries.
    pub fn virtual_key(&self) -> Option<VirtualKey> {
        match &self.node {
            Node::Real(_) => None,
            Node::Max(state, v) => Some(VirtualKey(state.id, *v)),
        }
    }

    /// The version of the source a `source.max` or stream entry stands for
    /// (both may be read in place from the source); `None` for every other entry.
    pub fn source_version(&self) -> Option<&DocKey> {
        match &self.node {
            Node::Max(state, V::Source | V::Stream(_)) => Some(&state.key),
            _ => None,
        }
    }

    /// The path of a real file or directory (not of a `.max` or its inside).
    pub fn real_path(&self) -> Option<&Path> {
        match &self.node {
            Node::Real(r) => Some(&r.path),
            Node::Max(..) => None,
        }
    }

    /// The source path and the place inside it, for messages.
    pub fn describe(&self) -> String {
        match &self.node {
            Node::Real(r) => r.path.display().to_string(),
            Node::Max(state, v) => format!("{}/{}", state.path().display(), v.display()),
        }
    }
}

impl V {
    fn display(&self) -> String {
        match self {
            V::Root => String::new(),
            V::Source => "source.max".into(),
            V::Info => "info.json".into(),
            V::Error => "error.txt".into(),
            V::Thumbnail => "thumbnail.png".into(),
            V::StreamsDir => "streams".into(),
            V::Stream(i) => format!("streams/#{i}"),
            V::ChunksDir => "chunks".into(),
            V::ChunkStream(i) => format!("chunks/#{i}"),
            V::Chunk(i, id) => format!("chunks/#{i}/chunk {id}"),
            V::JsonDir => "json".into(),
            V::Json(j) => format!("json/{}", j.file_name()),
            V::ShapeDir => "shape".into(),
            V::ExportDir => "export".into(),
            V::ExportFile(i) => format!("export #{i}"),
            V::ExportJson(i) => format!("export #{i}.json"),
            V::ExportErrors => format!("export/{ERRORS_TXT}"),
            V::SceneGlb => format!("export/{SCENE_GLB}"),
        }
    }
}

/// The binary glTF of the whole scene under `export/`.
const SCENE_GLB: &str = "scene.glb";

/// Files that get a decoded `.json` twin: every NeL binary.
fn has_json_view(file: &ExportFile) -> bool {
    !file.name.ends_with(".json")
}

fn light_of(state: &MaxState) -> Result<Arc<crate::state::Light>, FsError> {
    state.light().map_err(|_| FsError::NotFound)
}

fn stream_index(state: &MaxState, name: &str) -> Result<u32, FsError> {
    light_of(state)?
        .streams
        .iter()
        .position(|s| s.file_name == name)
        .and_then(|i| u32::try_from(i).ok())
        .ok_or(FsError::NotFound)
}

fn chunk_list(chunks: &[Chunk]) -> Vec<(String, Kind)> {
    chunks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let leaf = !c.is_container();
            (
                chunk_name(i, c.id, leaf),
                if leaf { Kind::File } else { Kind::Dir },
            )
        })
        .collect()
}
