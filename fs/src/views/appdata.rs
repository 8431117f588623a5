//! `appdata.json`: every AppData entry of every object, with its key, the NeL
//! name of the key when it is one, the value decoded for grep (8-bit or UTF-16
//! text, or a small integer) and the raw bytes in hex.

use serde::Serialize;
use serde_json::{json, Value};

use maxfs_scene::graph::AppDataEntry;
use maxfs_scene::Typed;

use crate::appdata_names::nel_name;
use crate::json::{self, hex};

#[derive(Serialize)]
struct Owner<'a> {
    object: usize,
    class: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    node: Option<&'a str>,
    entries: Vec<Value>,
}

/// How a value reads: (kind, decoded value).
pub fn decode_value(v: &[u8]) -> (&'static str, Value) {
    let text = |b: &[u8]| {
        b.iter()
            .all(|&c| c >= 0x20 || c == b'\t' || c == b'\n' || c == b'\r')
    };
    let trimmed = v.strip_suffix(&[0]).unwrap_or(v);
    if !trimmed.is_empty() && !trimmed.contains(&0) && text(trimmed) {
        return (
            "string",
            Value::String(trimmed.iter().map(|&c| c as char).collect()),
        );
    }
    if v.len() >= 2 && v.len() & 1 == 0 {
        let units: Vec<u16> = v
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let units = units.strip_suffix(&[0]).unwrap_or(&units);
        if !units.is_empty() && !units.contains(&0) {
            if let Ok(s) = String::from_utf16(units) {
                if s.chars()
                    .all(|c| !c.is_control() || c == '\t' || c == '\n' || c == '\r')
                {
                    return ("utf16", Value::String(s));
                }
            }
        }
    }
    match v.len() {
        0 => ("empty", Value::Null),
        1 => ("int", json!(v[0])),
        2 => ("int", json!(i16::from_le_bytes([v[0], v[1]]))),
        4 => ("int", json!(i32::from_le_bytes([v[0], v[1], v[2], v[3]]))),
        _ => ("bytes", Value::Null),
    }
}

pub fn entry(e: &AppDataEntry) -> Value {
    let (kind, value) = decode_value(&e.value);
    let mut m = serde_json::Map::new();
    m.insert(
        "class_id".into(),
        Value::String(format!("{:#010x},{:#010x}", e.class_id.0, e.class_id.1)),
    );
    m.insert(
        "super_class".into(),
        Value::String(json::id32(e.super_class)),
    );
    m.insert("sub_id".into(), json!(e.sub_id));
    if let Some((name, index)) = nel_name(e.class_id, e.super_class, e.sub_id) {
        m.insert("name".into(), Value::String(name.into()));
        if let Some(i) = index {
            m.insert("index".into(), json!(i));
        }
    }
    m.insert("size".into(), json!(e.size));
    m.insert("type".into(), Value::String(kind.into()));
    m.insert("value".into(), value);
    m.insert("hex".into(), Value::String(hex(&e.value)));
    Value::Object(m)
}

pub fn render(typed: &Typed) -> Vec<u8> {
    let g = match &typed.scene {
        Ok(g) => g,
        Err(e) => return super::error_json(&e.to_string()),
    };
    let owners: Vec<Owner> = g
        .objects
        .iter()
        .filter(|o| !o.appdata.is_empty())
        .map(|o| Owner {
            object: o.index,
            class: o.class.as_ref().map(|c| c.name.as_str()),
            node: o.node.as_ref().map(|n| n.name.as_str()),
            entries: o.appdata.iter().map(entry).collect(),
        })
        .collect();
    #[derive(Serialize)]
    struct Out<'a> {
        objects: Vec<Owner<'a>>,
    }
    json::to_bytes(&Out { objects: owners })
}
