//! Everything known about one version of one `.max` file, computed in stages on
//! first need: the peek (OLE directory), the document (streams and chunk trees),
//! the typed view. Each stage runs once per version, whoever asks first.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use maxfs_scene::peek::{self, Peek};
use maxfs_scene::{Document, Typed};

use crate::cache::DocKey;
use crate::names::escape_stream_name;

/// One stream as listed under `streams/`.
#[derive(Debug, Clone)]
pub struct StreamEntry {
    pub name: String,
    /// The escaped file name under `streams/` and `chunks/`.
    pub file_name: String,
    pub stored_len: u64,
    pub compressed: bool,
}

/// What `ls foo.max/` needs: the stream list and whether there is a thumbnail.
#[derive(Debug)]
pub struct Light {
    pub peek: Peek,
    pub streams: Vec<StreamEntry>,
    pub has_thumbnail: bool,
}

/// A stage failure, kept as text so it can be cached and shown in error.txt.
pub type StageResult<T> = Result<Arc<T>, String>;

pub struct MaxState {
    pub key: DocKey,
    light: OnceLock<StageResult<Light>>,
    doc: OnceLock<StageResult<Document>>,
    typed: OnceLock<Arc<Typed>>,
}

impl MaxState {
    pub fn new(key: DocKey) -> MaxState {
        MaxState {
            key,
            light: OnceLock::new(),
            doc: OnceLock::new(),
            typed: OnceLock::new(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.key.path
    }

    pub fn light(&self) -> StageResult<Light> {
        self.light
            .get_or_init(|| {
                let r = crate::guard(|| load_light(self.path()));
                if let Err(e) = &r {
                    log::warn!("{}: {e}", self.path().display());
                }
                r
            })
            .clone()
    }

    pub fn doc(&self, loads: &std::sync::atomic::AtomicU64) -> StageResult<Document> {
        self.doc
            .get_or_init(|| {
                loads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                log::debug!("parsing {}", self.path().display());
                let r = crate::guard(|| {
                    let bytes =
                        std::fs::read(self.path()).map_err(|e| format!("cannot read: {e}"))?;
                    Document::from_bytes(&bytes)
                        .map(Arc::new)
                        .map_err(|e| e.to_string())
                });
                if let Err(e) = &r {
                    log::warn!("{}: {e}", self.path().display());
                }
                r
            })
            .clone()
    }

    pub fn typed(&self, doc: &Document) -> Result<Arc<Typed>, String> {
        if let Some(t) = self.typed.get() {
            return Ok(t.clone());
        }
        let t = crate::guard(|| Ok(Arc::new(doc.typed())))?;
        Ok(self.typed.get_or_init(|| t).clone())
    }
}

fn load_light(path: &Path) -> Result<Arc<Light>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let peek = peek::peek(std::io::BufReader::new(file)).map_err(|e| e.to_string())?;
    let mut used = std::collections::HashSet::new();
    let streams = peek
        .streams
        .iter()
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
            }
        })
        .collect();
    let has_thumbnail = peek
        .summary_information
        .as_deref()
        .and_then(|d| maxfs_scene::summary::parse_property_set(d).ok())
        .is_some_and(|set| {
            maxfs_scene::summary::thumbnail_dib(&set)
                .and_then(|dib| crate::thumbnail::check_dib(dib).ok())
                .is_some()
        });
    Ok(Arc::new(Light {
        peek,
        streams,
        has_thumbnail,
    }))
}
