//! `summary_information.json`: both OLE property sets decoded — title, author,
//! dates, the thumbnail's format; Max's version, build and saved-as version from
//! the document summary; and the user-defined file properties.

use serde_json::{json, Map, Value};

use maxfs_scene::peek::{DOCUMENT_SUMMARY_INFORMATION, SUMMARY_INFORMATION};
use maxfs_scene::summary::{
    parse_property_set, PropValue, PropertySet, Section, FMTID_DOC_SUMMARY, FMTID_SUMMARY,
    FMTID_USER_DEFINED, PID_CODEPAGE, PID_THUMBNAIL,
};
use maxfs_scene::Document;

use crate::json::{self, hex};

const SUMMARY_NAMES: &[(u32, &str)] = &[
    (2, "title"),
    (3, "subject"),
    (4, "author"),
    (5, "keywords"),
    (6, "comments"),
    (7, "template"),
    (8, "last_author"),
    (9, "revision"),
    (10, "edit_time"),
    (11, "last_printed"),
    (12, "created"),
    (13, "last_saved"),
    (14, "pages"),
    (15, "words"),
    (16, "characters"),
    (17, "thumbnail"),
    (18, "application"),
    (19, "security"),
];

const DOC_NAMES: &[(u32, &str)] = &[
    (2, "category"),
    (3, "presentation_target"),
    (4, "bytes"),
    (5, "lines"),
    (6, "paragraphs"),
    (7, "slides"),
    (8, "notes"),
    (9, "hidden_slides"),
    (10, "multimedia_clips"),
    (11, "scale_crop"),
    (12, "heading_pairs"),
    (13, "document_parts"),
    (14, "manager"),
    (15, "company"),
    (16, "links_dirty"),
];

const PID_LOCALE: u32 = 0x8000_0000;

/// 100 ns ticks since 1601 → "YYYY-MM-DDTHH:MM:SSZ" (UTC); a stamp outside
/// the calendar's range is shown as its raw tick count.
pub fn filetime_text(ticks: u64) -> String {
    let secs = (ticks / 10_000_000) as i64 - 11_644_473_600;
    time::OffsetDateTime::from_unix_timestamp(secs)
        .ok()
        .and_then(|t| {
            t.format(time::macros::format_description!(
                "[year]-[month]-[day]T[hour]:[minute]:[second]Z"
            ))
            .ok()
        })
        .unwrap_or_else(|| format!("filetime {ticks}"))
}

fn value(v: &PropValue) -> Value {
    match v {
        PropValue::Empty => Value::Null,
        PropValue::I2(x) => json!(x),
        PropValue::I4(x) => json!(x),
        PropValue::Ui2(x) => json!(x),
        PropValue::Ui4(x) => json!(x),
        PropValue::I8(x) => json!(x),
        PropValue::Ui8(x) => json!(x),
        PropValue::R4(x) => json::f32_value(*x),
        PropValue::R8(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
        PropValue::Bool(b) => json!(b),
        PropValue::Str(s) => Value::String(s.clone()),
        PropValue::FileTime(t) => Value::String(filetime_text(*t)),
        PropValue::ClipboardData { tag, format, data } => json!({
            "clipboard_tag": tag,
            "clipboard_format": format,
            "bytes": data.len(),
        }),
        PropValue::Blob(b) => json!({ "bytes": b.len(), "hex": hex(b) }),
        PropValue::Clsid(b) => Value::String(hex(b)),
        PropValue::Vector(items) => Value::Array(items.iter().map(value).collect()),
        PropValue::Unknown { vt, bytes } => json!({ "type": vt, "hex": hex(bytes) }),
    }
}

/// Every property of a section under its name (or `property_<id>`).
fn section_props(
    sec: &Section,
    names: &[(u32, &str)],
    is_summary: bool,
    out: &mut Map<String, Value>,
) {
    for p in &sec.properties {
        let name = match p.id {
            PID_CODEPAGE => "codepage".to_string(),
            PID_LOCALE => "locale".to_string(),
            id => names
                .iter()
                .find(|(i, _)| *i == id)
                .map(|(_, n)| n.to_string())
                .or_else(|| sec.name_of(id).map(str::to_string))
                .unwrap_or_else(|| format!("property_{id}")),
        };
        let v = match (p.id, &p.value) {
            // Edit time is a duration, not a date.
            (10, PropValue::FileTime(t)) if is_summary => {
                json!({ "seconds": t / 10_000_000 })
            }
            (PID_THUMBNAIL, v @ PropValue::ClipboardData { .. }) => {
                let mut t = value(v);
                if let Some(set_dib) = thumbnail_info(v) {
                    t["dib"] = set_dib;
                }
                t
            }
            (_, v) => value(v),
        };
        out.insert(name, v);
    }
}

fn thumbnail_info(v: &PropValue) -> Option<Value> {
    let PropValue::ClipboardData { data, format, .. } = v else {
        return None;
    };
    let dib = if *format == 8 {
        data.as_slice()
    } else {
        maxfs_scene::summary::find_dib(data)?
    };
    let le32 = |at: usize| -> Option<i32> {
        dib.get(at..at + 4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    Some(json!({
        "width": le32(4)?,
        "height": le32(8)?.abs(),
        "bits_per_pixel": dib.get(14..16).map(|b| u16::from_le_bytes([b[0], b[1]]))?,
    }))
}

/// Max's "General" heading: "3ds Max Version: 19,00", "Build: …", "Saved As Version: …".
fn max_general(sec: &Section) -> (Map<String, Value>, Value) {
    let mut general = Map::new();
    let mut headings = Vec::new();
    let (Some(PropValue::Vector(pairs)), Some(PropValue::Vector(parts))) =
        (sec.get(12), sec.get(13))
    else {
        return (general, Value::Array(headings));
    };
    let mut parts = parts.iter();
    for pair in pairs.chunks(2) {
        let [PropValue::Str(name), count] = pair else {
            continue;
        };
        let n = match count {
            PropValue::I4(n) => (*n).max(0) as usize,
            PropValue::Ui4(n) => *n as usize,
            _ => 0,
        };
        let items: Vec<Value> = parts.by_ref().take(n).map(value).collect();
        if name == "General" {
            for it in &items {
                let Some(s) = it.as_str() else { continue };
                match s.split_once(": ") {
                    Some((k, v)) if k.ends_with("Version") || k == "Build" => {
                        let key = match k {
                            "Build" => "build".to_string(),
                            "Saved As Version" => "saved_as_version".to_string(),
                            _ => "max_version".to_string(),
                        };
                        general.insert(key, Value::String(v.to_string()));
                    }
                    _ if s == "Compressed" || s == "Uncompressed" => {
                        general.insert("compression".into(), Value::String(s.to_string()));
                    }
                    _ => {}
                }
            }
        }
        headings.push(json!({ "heading": name, "items": items }));
    }
    (general, Value::Array(headings))
}

fn set_json(data: &[u8], f: impl FnOnce(&PropertySet) -> Value) -> Value {
    match parse_property_set(data) {
        Ok(set) => f(&set),
        Err(e) => json!({ "error": e.to_string() }),
    }
}

pub fn render(doc: &Document) -> Vec<u8> {
    let mut out = Map::new();
    out.insert(
        "summary_information".into(),
        match doc.file.stream(SUMMARY_INFORMATION) {
            None => Value::Null,
            Some(s) => set_json(&s.data, |set| {
                let mut m = Map::new();
                if let Some(sec) = set.section(&FMTID_SUMMARY) {
                    section_props(sec, SUMMARY_NAMES, true, &mut m);
                }
                Value::Object(m)
            }),
        },
    );
    let mut props = Value::Null;
    out.insert(
        "document_summary_information".into(),
        match doc.file.stream(DOCUMENT_SUMMARY_INFORMATION) {
            None => Value::Null,
            Some(s) => set_json(&s.data, |set| {
                let mut m = Map::new();
                if let Some(sec) = set.section(&FMTID_DOC_SUMMARY) {
                    let (general, headings) = max_general(sec);
                    m.insert("max".into(), Value::Object(general));
                    m.insert("contents".into(), headings);
                    let mut rest = Map::new();
                    section_props(sec, DOC_NAMES, false, &mut rest);
                    rest.remove("heading_pairs");
                    rest.remove("document_parts");
                    m.insert("properties".into(), Value::Object(rest));
                }
                if let Some(sec) = set.section(&FMTID_USER_DEFINED) {
                    let mut user = Map::new();
                    section_props(sec, &[], false, &mut user);
                    props = Value::Object(user);
                }
                Value::Object(m)
            }),
        },
    );
    out.insert("file_properties".into(), props);
    json::to_bytes(&Value::Object(out))
}

#[cfg(test)]
mod tests {
    #[test]
    fn filetime() {
        // 2018-01-01T00:00:00Z
        assert_eq!(
            super::filetime_text(131_592_384_000_000_000),
            "2018-01-01T00:00:00Z"
        );
        assert_eq!(super::filetime_text(0), "1601-01-01T00:00:00Z");
        assert_eq!(
            super::filetime_text(u64::MAX),
            "filetime 18446744073709551615"
        );
    }
}
