//! `scene.json`: the scene's system unit and time configuration, and every
//! object of the Scene stream with its class, superclass, plug-in DLL and
//! references.

use serde::Serialize;

use maxfs_scene::graph::SceneObject;
use maxfs_scene::settings::{self, SystemUnit, TimeConfig};
use maxfs_scene::{version, Document, Typed};

use crate::json;

#[derive(Serialize)]
struct Scene<'a> {
    version: String,
    release: Option<&'static str>,
    system_unit: Setting<SystemUnit>,
    time: Setting<TimeConfig>,
    objects: Vec<Object<'a>>,
}

#[derive(Serialize)]
struct Object<'a> {
    index: usize,
    chunk_id: String,
    class: Option<&'a str>,
    class_id: Option<String>,
    super_class: Option<String>,
    dll: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    node: Option<&'a str>,
    /// (slot, target index); target -1 is an empty slot.
    references: Vec<(u32, i32)>,
    #[serde(skip_serializing_if = "is_zero")]
    appdata_entries: usize,
    #[serde(skip_serializing_if = "is_zero")]
    note_keys: usize,
}

/// A decoded setting, or why it could not be decoded.
#[derive(Serialize)]
#[serde(untagged)]
enum Setting<T> {
    Decoded(T),
    Error { error: String },
}

impl<T, E: std::fmt::Display> From<Result<T, E>> for Setting<T> {
    fn from(r: Result<T, E>) -> Setting<T> {
        match r {
            Ok(v) => Setting::Decoded(v),
            Err(e) => Setting::Error {
                error: e.to_string(),
            },
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn object(o: &SceneObject) -> Object<'_> {
    Object {
        index: o.index,
        chunk_id: json::id16(o.chunk_id),
        class: o.class.as_ref().map(|c| c.name.as_str()),
        class_id: o
            .class
            .as_ref()
            .map(|c| format!("{:#010x},{:#010x}", c.class_id.0, c.class_id.1)),
        super_class: o.class.as_ref().map(|c| json::id32(c.super_class)),
        dll: o.class.as_ref().map(|c| c.dll.as_str()),
        node: o.node.as_ref().map(|n| n.name.as_str()),
        references: o.references.iter().map(|r| (r.slot, r.target)).collect(),
        appdata_entries: o.appdata.len(),
        note_keys: o.note_keys.len(),
    }
}

pub fn render(doc: &Document, typed: &Typed) -> Vec<u8> {
    match &typed.scene {
        Ok(g) => json::to_bytes(&Scene {
            version: json::id16(g.version),
            release: version::release_name(g.version),
            system_unit: settings::system_unit(doc, g).into(),
            time: settings::time_config(doc).into(),
            objects: g.objects.iter().map(object).collect(),
        }),
        Err(e) => super::error_json(&e.to_string()),
    }
}
