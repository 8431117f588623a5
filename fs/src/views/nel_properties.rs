//! `nel_properties.json`: the NeL export properties of every node as the NeL
//! exporter reads them — every NEL3D_APPDATA_* field with the plug-in's
//! default filled in, which fields the node sets explicitly, and the values
//! that could not be decoded — so artists can check an export setting with
//! `grep` or `diff` instead of opening 3ds Max.

use serde::Serialize;
use serde_json::Value;

use maxfs_exporters::nel::export::properties::SceneProperties;
use maxfs_scene::Typed;

use crate::json;

#[derive(Serialize)]
struct Node<'a> {
    index: usize,
    name: &'a str,
    /// Field names set by an AppData entry; the others are defaults.
    set: &'a [&'static str],
    warnings: &'a [String],
    properties: Value,
}

pub fn render(typed: &Typed) -> Vec<u8> {
    let g = match &typed.scene {
        Ok(g) => g,
        Err(e) => return super::error_json(&e.to_string()),
    };
    let props = SceneProperties::of(g);
    let nodes: Vec<Node> = g
        .nodes()
        .filter(|(o, _)| {
            // The scene root carries no export settings.
            o.class
                .as_ref()
                .is_none_or(|c| c.class_id != maxfs_scene::typed::ClassId(2, 0))
        })
        .map(|(o, n)| {
            let p = props.node(o.index);
            let mut properties = json::value_f32(p);
            if let Value::Object(m) = &mut properties {
                m.remove("set");
                m.remove("warnings");
            }
            Node {
                index: o.index,
                name: &n.name,
                set: &p.set,
                warnings: &p.warnings,
                properties,
            }
        })
        .collect();
    json::to_bytes(&serde_json::json!({ "nodes": nodes }))
}
