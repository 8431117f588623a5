//! `maxfs textconv`: a stable, line-oriented summary of a `.max` for `git diff`
//! (see docs/user-guide.md for the .gitattributes lines). Only content that
//! means something to a person is shown; the order follows the file.

use std::fmt::Write;

use maxfs_scene::{version, Document, Layout};

use crate::appdata_names::nel_name;
use crate::views::appdata::decode_value;

/// The text summary of a `.max` held in memory; `name` is shown in the header.
pub fn textconv(name: &str, bytes: &[u8]) -> String {
    let mut out = String::new();
    // No file name: git hands textconv a temporary copy with a random name.
    let _ = name;
    let _ = writeln!(out, "size: {} bytes", bytes.len());
    let doc = match Document::from_bytes(bytes) {
        Ok(d) => d,
        Err(e) => {
            let _ = writeln!(out, "error: {e}");
            return out;
        }
    };
    let _ = writeln!(
        out,
        "version: {}",
        doc.version().map_or("none".to_string(), version::describe)
    );
    let _ = writeln!(out, "\n[streams]");
    for (s, sd) in doc.file.streams.iter().zip(&doc.streams) {
        let layout = match &sd.layout {
            Layout::Chunks(c) => format!("{} chunks", maxfs_scene::chunk::count(c)),
            Layout::Raw(_) => "raw".to_string(),
        };
        let _ = writeln!(
            out,
            "{} {} bytes{} {layout}",
            crate::names::escape_stream_name(&s.name),
            s.data.len(),
            match (s.zstd, s.compressed) {
                (true, _) => " zstd",
                (false, true) => " gzip",
                _ => "",
            }
        );
    }
    let typed = doc.typed();
    // Only when there are any: a diff then shows a commit bringing them in.
    let scripts = maxfs_scene::scripts::scan(&doc, typed.scene.as_deref().ok());
    if !scripts.is_empty() {
        let _ = writeln!(out, "\n[unsafe scripts]");
        for f in &scripts {
            let _ = writeln!(out, "{}", f.summary());
        }
    }
    let summary = crate::views::summary::render(&doc);
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&summary) {
        let _ = writeln!(out, "\n[summary]");
        flatten("", &v, &mut out);
    }
    let _ = writeln!(out, "\n[dlls]");
    for d in &typed.dlls {
        let _ = writeln!(out, "{} {} ({})", d.index, d.filename, d.description);
    }
    let _ = writeln!(out, "\n[classes]");
    for c in &typed.classes {
        let _ = writeln!(
            out,
            "{} {} ({:#010x},{:#010x}) sc {:#x} dll {}",
            c.index, c.name, c.class_id.0, c.class_id.1, c.super_class, c.dll_index
        );
    }
    match &typed.scene {
        Err(e) => {
            let _ = writeln!(out, "\n[scene]\nerror: {e}");
        }
        Ok(g) => {
            let _ = writeln!(out, "\n[scene]\n{} objects", g.objects.len());
            let _ = writeln!(out, "\n[nodes]");
            for (o, n) in g.nodes() {
                let parent = n
                    .parent
                    .and_then(|p| g.objects.get(p as usize))
                    .and_then(|p| p.node.as_ref().map(|n| n.name.clone()))
                    .unwrap_or_default();
                let class = o.class.as_ref().map_or("?", |c| c.name.as_str());
                let _ = writeln!(out, "{} {:?} ({class}) parent {parent:?}", o.index, n.name);
            }
            let _ = writeln!(out, "\n[appdata]");
            for o in &g.objects {
                let owner = o
                    .node
                    .as_ref()
                    .map(|n| format!("{:?}", n.name))
                    .unwrap_or_else(|| format!("#{}", o.index));
                for e in &o.appdata {
                    let key = match nel_name(e.class_id, e.super_class, e.sub_id) {
                        Some((n, Some(i))) => format!("{n}[{i}]"),
                        Some((n, None)) => n.to_string(),
                        None => format!(
                            "({:#010x},{:#010x}) sc {:#x} sub {}",
                            e.class_id.0, e.class_id.1, e.super_class, e.sub_id
                        ),
                    };
                    let (_, value) = decode_value(&e.value);
                    let shown = if value.is_null() {
                        format!(
                            "{} bytes {}",
                            e.value.len(),
                            crate::json::hex(&e.value[..e.value.len().min(32)])
                        )
                    } else {
                        value.to_string()
                    };
                    let _ = writeln!(out, "{owner} {key} = {shown}");
                }
            }
        }
    }
    out
}

fn flatten(prefix: &str, v: &serde_json::Value, out: &mut String) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&p, v, out);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), v, out);
            }
        }
        serde_json::Value::Null => {}
        v => {
            let _ = writeln!(out, "{prefix}: {v}");
        }
    }
}
