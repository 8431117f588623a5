//! A whole `.max` read through every layer: container, chunk trees, typed streams.

use std::path::Path;
use std::sync::Arc;

use crate::chunk::{self, Chunk};
use crate::container::{InflateLimits, MaxFile};
use crate::directories::{self, ClassDataEntry, ClassEntry, DllEntry};
use crate::error::{ChunkError, ChunkPath, MaxError, TypedError};
use crate::graph::{self, SceneGraph};
use crate::typed::TypedStream;

/// How a stream's bytes are organised, decided by trying the chunk parser.
#[derive(Debug, Clone)]
pub enum Layout {
    Chunks(Vec<Chunk>),
    /// Not a chunk tree (property sets, asset metadata, …); the error says why.
    Raw(Option<ChunkError>),
}

#[derive(Debug, Clone)]
pub struct StreamDoc {
    pub name: String,
    pub layout: Layout,
}

impl StreamDoc {
    pub fn chunks(&self) -> Option<&[Chunk]> {
        match &self.layout {
            Layout::Chunks(c) => Some(c),
            Layout::Raw(_) => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Document {
    pub file: MaxFile,
    /// Parallel to `file.streams`.
    pub streams: Vec<StreamDoc>,
}

/// The typed view of a document.
#[derive(Debug, Clone)]
pub struct Typed {
    /// One per chunk-formatted stream, in file order.
    pub streams: Vec<TypedStream>,
    pub dlls: Vec<DllEntry>,
    pub classes: Vec<ClassEntry>,
    pub class_data: Vec<ClassDataEntry>,
    /// Shared so the evaluated scene can own it without a copy.
    pub scene: Result<Arc<SceneGraph>, TypedError>,
}

impl Typed {
    pub fn stream(&self, name: &str) -> Option<&TypedStream> {
        self.streams.iter().find(|s| s.name == name)
    }
}

impl Document {
    pub fn from_file(file: MaxFile) -> Document {
        let streams = file
            .streams
            .iter()
            .map(|s| StreamDoc {
                name: s.name.clone(),
                layout: if s.data.is_empty() {
                    Layout::Raw(None)
                } else {
                    match chunk::parse_bytes(&s.data) {
                        Ok(c) => Layout::Chunks(c),
                        Err(e) => Layout::Raw(Some(e)),
                    }
                },
            })
            .collect();
        Document { file, streams }
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Document, MaxError> {
        Ok(Self::from_file(MaxFile::from_bytes(bytes)?))
    }

    pub fn open(path: &Path) -> Result<Document, MaxError> {
        Ok(Self::from_file(MaxFile::open(path)?))
    }

    /// Bytes held in memory: the stream buffers (chunk leaves share them) and
    /// the chunk trees' nodes.
    pub fn heap_bytes(&self) -> u64 {
        let data: usize = self.file.streams.iter().map(|s| s.data.len()).sum();
        let chunks: usize = self
            .streams
            .iter()
            .filter_map(|s| s.chunks())
            .map(chunk::count)
            .sum();
        (data + chunks * std::mem::size_of::<Chunk>()) as u64
    }

    /// Reads a file held in memory, within the inflate `limits`.
    pub fn from_bytes_with(bytes: &[u8], limits: &InflateLimits) -> Result<Document, MaxError> {
        Ok(Self::from_file(MaxFile::from_bytes_with(bytes, limits)?))
    }

    /// Reads a file from disk sector by sector, within the inflate `limits`.
    pub fn open_with(path: &Path, limits: &InflateLimits) -> Result<Document, MaxError> {
        Ok(Self::from_file(MaxFile::open_with(path, limits)?))
    }

    pub fn stream(&self, name: &str) -> Option<&StreamDoc> {
        self.streams.iter().find(|s| s.name == name)
    }

    /// The Scene stream's root chunk id (the Max version), when it is a chunk tree.
    pub fn version(&self) -> Option<u16> {
        self.stream("Scene")?.chunks()?.first().map(|c| c.id)
    }

    /// Types every chunk-formatted stream; ClassDirectory3 first, since the Scene schema needs it.
    pub fn typed(&self) -> Typed {
        let class_stream = self
            .streams
            .iter()
            .find(|s| s.name.starts_with("ClassDirectory"))
            .and_then(|s| Some(TypedStream::parse(&s.name, s.chunks()?, &[])));
        let superclasses = class_stream
            .as_ref()
            .map(directories::superclasses)
            .unwrap_or_default();
        let streams: Vec<TypedStream> = self
            .streams
            .iter()
            .filter_map(|s| Some(TypedStream::parse(&s.name, s.chunks()?, &superclasses)))
            .collect();
        let find = |n: &str| streams.iter().find(|s| s.name == n);
        let dlls = find("DllDirectory")
            .map(directories::dll_entries)
            .unwrap_or_default();
        let classes = class_stream
            .as_ref()
            .map(directories::class_entries)
            .unwrap_or_default();
        let class_data = find("ClassData")
            .map(directories::class_data_entries)
            .unwrap_or_default();
        let scene = match find("Scene") {
            Some(s) => graph::scene_graph(s, &classes, &dlls).map(Arc::new),
            None => Err(TypedError {
                stream: "Scene".into(),
                path: ChunkPath::default(),
                what: match self.stream("Scene").map(|s| &s.layout) {
                    None => "the file has no Scene stream".into(),
                    Some(Layout::Raw(Some(e))) => format!("not a chunk tree: {e}"),
                    Some(_) => "the Scene stream is empty".into(),
                },
            }),
        };
        Typed {
            streams,
            dlls,
            classes,
            class_data,
            scene,
        }
    }
}
