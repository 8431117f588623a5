//! DllDirectory, ClassDirectory3 and ClassData as entry lists.

use serde::Serialize;

use crate::typed::{ClassId, TNode, TValue, TypedStream};

/// Plug-in DLL index of classes built into Max itself.
pub const DLL_BUILTIN: i32 = -1;
/// Plug-in DLL index of classes defined by MaxScript.
pub const DLL_MAXSCRIPT: i32 = -2;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DllEntry {
    pub index: usize,
    pub description: String,
    pub filename: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClassEntry {
    pub index: usize,
    pub dll_index: i32,
    #[serde(serialize_with = "ser_class_id")]
    pub class_id: ClassId,
    pub super_class: u32,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClassDataEntry {
    pub index: usize,
    #[serde(serialize_with = "ser_class_id")]
    pub class_id: ClassId,
    pub super_class: u32,
    /// Size of the undecoded body chunk (0x2120).
    pub body_bytes: u64,
}

pub fn ser_class_id<S: serde::Serializer>(c: &ClassId, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{:#010x},{:#010x}", c.0, c.1))
}

fn text(node: &TNode, id: u16) -> String {
    node.child_value(id)
        .and_then(TValue::as_str)
        .map(|s| s.text())
        .unwrap_or_default()
}

/// A directory stream's entries: at the top of plain and gzip streams,
/// inside one wrapper in Max 2023's zstd ones (`zstd_stream::is_entry_wrapper`).
fn entries(s: &TypedStream) -> &[TNode] {
    match s.nodes.as_slice() {
        [w @ TNode::Container { .. }] if crate::zstd_stream::is_entry_wrapper(w.id()) => {
            w.children()
        }
        n => n,
    }
}

pub fn dll_entries(s: &TypedStream) -> Vec<DllEntry> {
    entries(s)
        .iter()
        .filter(|n| n.id() == 0x2038)
        .enumerate()
        .map(|(index, n)| DllEntry {
            index,
            description: text(n, 0x2039),
            filename: text(n, 0x2037),
        })
        .collect()
}

pub fn class_entries(s: &TypedStream) -> Vec<ClassEntry> {
    entries(s)
        .iter()
        .filter(|n| n.id() == 0x2040)
        .enumerate()
        .map(|(index, n)| {
            let (dll_index, class_id, super_class) = match n.child_value(0x2060) {
                Some(TValue::ClassHeader {
                    dll,
                    class_id,
                    super_class,
                }) => (*dll, *class_id, *super_class),
                _ => (DLL_BUILTIN, ClassId::default(), 0),
            };
            ClassEntry {
                index,
                dll_index,
                class_id,
                super_class,
                name: text(n, 0x2042),
            }
        })
        .collect()
}

pub fn class_data_entries(s: &TypedStream) -> Vec<ClassDataEntry> {
    entries(s)
        .iter()
        .filter(|n| n.id() == 0x2100)
        .enumerate()
        .map(|(index, n)| {
            let (class_id, super_class) = match n.child_value(0x2110) {
                Some(TValue::ClassIdSuper {
                    class_id,
                    super_class,
                }) => (*class_id, *super_class),
                _ => (ClassId::default(), 0),
            };
            let body_bytes = n
                .child(0x2120)
                .map(|b| b.build().encoded_len())
                .unwrap_or(0);
            ClassDataEntry {
                index,
                class_id,
                super_class,
                body_bytes,
            }
        })
        .collect()
}

/// Superclass per class directory index, as the Scene schema needs it; the
/// RklPatch class gets its schema key (`typed::schema::RKLPATCH_SCHEMA`).
pub fn superclasses(s: &TypedStream) -> Vec<u32> {
    class_entries(s)
        .iter()
        .map(|c| {
            if c.class_id == crate::rklpatch::RKLPATCH_CLASS && c.super_class == 0x10 {
                crate::typed::schema::RKLPATCH_SCHEMA
            } else {
                c.super_class
            }
        })
        .collect()
}
