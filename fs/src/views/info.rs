//! `info.json`: the file at a glance — version, streams and their sizes, parse
//! status per stream, object and class counts, and every problem found.

use serde::Serialize;

use maxfs_scene::eval::SceneEval;
use maxfs_scene::{version, Document, Layout, Typed};

use crate::json;
use crate::state::{Light, MaxState};

#[derive(Serialize)]
struct Info<'a> {
    file: String,
    size: u64,
    status: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clsid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<Version>,
    streams: Vec<StreamInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counts: Option<Counts>,
    problems: Vec<String>,
    /// Classes the evaluation does not compute, with the nodes they affect:
    /// their transforms, meshes and exports are not what 3ds Max shows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unevaluated: Vec<maxfs_scene::eval::core::coverage::Gap>,
    /// Embedded scripts holding commands a scene script should not need
    /// (startup folders, callbacks, system commands …): open such a file in
    /// 3ds Max only with its Safe Scene Script Execution on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unsafe_scripts: Vec<maxfs_scene::scripts::ScriptFinding>,
}

#[derive(Serialize)]
struct Version {
    root_chunk_id: String,
    release: Option<&'static str>,
}

#[derive(Serialize)]
struct StreamInfo {
    name: String,
    file: String,
    stored_size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    compressed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    layout: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    chunks: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    typed_values: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Serialize)]
struct Counts {
    dlls: usize,
    classes: usize,
    class_data: usize,
    objects: Option<usize>,
    nodes: Option<usize>,
    appdata_entries: Option<usize>,
}

/// Streams that must be chunk trees; other streams (property sets, asset
/// metadata) are raw by nature.
pub(crate) const CHUNKED: &[&str] = &[
    "Scene",
    "DllDirectory",
    "ClassDirectory3",
    "ClassDirectory2",
    "ClassDirectory",
    "ClassData",
    "Config",
    "VideoPostQueue",
];

/// The storage CLSID as Windows prints a GUID (it is stored little-endian).
fn clsid_text(b: &[u8; 16]) -> String {
    uuid::Uuid::from_bytes_le(*b).hyphenated().to_string()
}

pub fn render(
    state: &MaxState,
    light: Result<&Light, &str>,
    doc: Result<&Document, &str>,
    typed: Option<Result<&Typed, &str>>,
    eval: Option<&SceneEval>,
) -> Vec<u8> {
    let mut problems = Vec::new();
    let mut streams = Vec::new();
    let file = state
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Ok(light) = light {
        for (i, s) in light.streams.iter().enumerate() {
            let mut si = StreamInfo {
                name: s.name.clone(),
                file: s.file_name.clone(),
                stored_size: s.stored_len,
                size: None,
                compressed: s.compressed,
                layout: None,
                chunks: None,
                typed_values: None,
                note: None,
            };
            let failed = doc
                .ok()
                .and_then(|d| d.file.streams.get(i))
                .and_then(|s| s.error.as_ref());
            if let Some(why) = failed {
                // This stream could not be read; the others are described as usual.
                si.layout = Some("failed");
                si.note = Some(why.clone());
                problems.push(why.clone());
            } else if let Ok(doc) = doc {
                si.size = doc.file.streams.get(i).map(|s| s.data.len() as u64);
                match doc.streams.get(i).map(|s| &s.layout) {
                    Some(Layout::Chunks(c)) => {
                        si.layout = Some("chunks");
                        si.chunks = Some(maxfs_scene::chunk::count(c));
                    }
                    Some(Layout::Raw(e)) => {
                        si.layout = Some("raw");
                        if let Some(e) = e {
                            if CHUNKED.contains(&s.name.as_str()) {
                                problems.push(format!("stream {}: not a chunk tree: {e}", s.name));
                            }
                            si.note = Some(format!("not a chunk tree: {e}"));
                        }
                    }
                    None => {}
                }
                if let Some(Ok(t)) = typed {
                    if let Some(ts) = t.stream(&s.name) {
                        si.typed_values = Some(ts.typed_values());
                        for d in &ts.degraded {
                            problems.push(format!(
                                "stream {}: chunk {}: typed decode fell back to raw: {}",
                                s.name, d.path, d.what
                            ));
                        }
                    }
                }
            }
            streams.push(si);
        }
    }
    let mut version = None;
    let mut counts = None;
    if let Ok(doc) = doc {
        version = doc.version().map(|id| Version {
            root_chunk_id: json::id16(id),
            release: version::release_name(id),
        });
    }
    let mut unevaluated = Vec::new();
    if let Some(eval) = eval {
        unevaluated = maxfs_scene::eval::core::coverage::scene_gaps(eval);
    }
    let mut unsafe_scripts = Vec::new();
    if let Some(Ok(t)) = typed {
        let scene = t.scene.as_ref().ok();
        if let Ok(doc) = doc {
            unsafe_scripts = maxfs_scene::scripts::scan(doc, scene.map(|s| &**s));
        }
        if let Err(e) = &t.scene {
            problems.push(format!("scene graph: {e}"));
        }
        counts = Some(Counts {
            dlls: t.dlls.len(),
            classes: t.classes.len(),
            class_data: t.class_data.len(),
            objects: scene.map(|s| s.objects.len()),
            nodes: scene.map(|s| s.nodes().count()),
            appdata_entries: scene.map(|s| s.objects.iter().map(|o| o.appdata.len()).sum()),
        });
    }
    if let Some(Err(e)) = typed {
        problems.push(format!("typed view: {e}"));
    }
    let error = light.err().or(doc.err());
    if let Some(e) = error {
        problems.insert(0, e.to_string());
    }
    let info = Info {
        file,
        size: state.key.size,
        // "partial": what the evaluation does not compute is listed in
        // `unevaluated`, so the file's views and exports are incomplete.
        status: if error.is_some() {
            "error"
        } else if !unevaluated.is_empty() {
            "partial"
        } else if problems.is_empty() {
            "ok"
        } else {
            "warnings"
        },
        error,
        clsid: light.ok().map(|l| clsid_text(&l.peek.clsid)),
        version,
        streams,
        counts,
        problems,
        unevaluated,
        unsafe_scripts,
    };
    json::to_bytes(&info)
}

#[cfg(test)]
mod clsid_tests {
    #[test]
    fn clsid_reads_as_a_little_endian_guid() {
        let b: [u8; 16] = std::array::from_fn(|i| i as u8);
        assert_eq!(
            super::clsid_text(&b),
            "03020100-0504-0706-0809-0a0b0c0d0e0f"
        );
    }
}
