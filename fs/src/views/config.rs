//! `config.json`: the Config stream's typed chunk tree, rendered generically:
//! containers with their children, decoded leaves with their values, undecoded
//! leaves as hex.

use serde_json::{json, Map, Value};

use maxfs_scene::chunk::{Body, Chunk};
use maxfs_scene::typed::{TNode, TValue};
use maxfs_scene::Typed;

use crate::json::{self, f32_value, f32s_value, hex, id16, id32};

pub fn render(typed: &Typed) -> Vec<u8> {
    match typed.stream("Config") {
        Some(s) => json::to_bytes(&json!({
            "stream": "Config",
            "chunks": s.nodes.iter().map(tnode).collect::<Vec<_>>(),
        })),
        None => super::error_json("the file has no chunk-formatted Config stream"),
    }
}

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    Value::Object(m)
}

/// A typed chunk as JSON.
pub fn tnode(n: &TNode) -> Value {
    match n {
        TNode::Container { id, children, .. } => obj(vec![
            ("id", Value::String(id16(*id))),
            (
                "children",
                Value::Array(children.iter().map(tnode).collect()),
            ),
        ]),
        TNode::Value { id, value, .. } => obj(vec![
            ("id", Value::String(id16(*id))),
            ("value", tvalue(value)),
        ]),
        TNode::Raw(c) => raw_chunk(c),
    }
}

/// An undecoded chunk: leaves as hex, containers recursively.
pub fn raw_chunk(c: &Chunk) -> Value {
    match &c.body {
        Body::Leaf(d) => obj(vec![
            ("id", Value::String(id16(c.id))),
            ("size", json!(d.len())),
            ("hex", Value::String(hex(d))),
        ]),
        Body::Container(children) => obj(vec![
            ("id", Value::String(id16(c.id))),
            (
                "children",
                Value::Array(children.iter().map(raw_chunk).collect()),
            ),
        ]),
    }
}

pub fn tvalue(v: &TValue) -> Value {
    match v {
        TValue::U32(x) => json!(x),
        TValue::I32(x) => json!(x),
        TValue::I64(x) => json!(x),
        TValue::F32(bits) => f32_value(f32::from_bits(*bits)),
        TValue::F32s(bits) => {
            f32s_value(&bits.iter().map(|b| f32::from_bits(*b)).collect::<Vec<_>>())
        }
        TValue::Str(s) => Value::String(s.text()),
        TValue::MetaStr(b) => Value::String(b.iter().map(|&c| c as char).collect()),
        TValue::ClassHeader {
            dll,
            class_id,
            super_class,
        } => json!({
            "dll_index": dll,
            "class_id": format!("{:#010x},{:#010x}", class_id.0, class_id.1),
            "super_class": id32(*super_class),
        }),
        TValue::ClassIdSuper {
            class_id,
            super_class,
        }
        | TValue::SuperClassId {
            super_class,
            class_id,
        } => json!({
            "class_id": format!("{:#010x},{:#010x}", class_id.0, class_id.1),
            "super_class": id32(*super_class),
        }),
        TValue::AppDataKey {
            class_id,
            super_class,
            sub_id,
            size,
        } => json!({
            "class_id": format!("{:#010x},{:#010x}", class_id.0, class_id.1),
            "super_class": id32(*super_class),
            "sub_id": sub_id,
            "size": size,
        }),
        TValue::RefArray(v) => json!(v),
        TValue::I32s(v) => json!(v),
        TValue::Rpo(b) => crate::json::value_f32(b),
        TValue::PatchVerts(v) => crate::json::value_f32(v),
        TValue::PatchVecs(v) => crate::json::value_f32(v),
        TValue::PatchEdges(v) => crate::json::value_f32(v),
        TValue::RefPairs { lead, pairs } => json!({ "lead": lead, "pairs": pairs }),
        TValue::NodeParent { parent, flags } => json!({ "parent": parent, "flags": id32(*flags) }),
    }
}
