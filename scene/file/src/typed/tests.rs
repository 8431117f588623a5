//! Typed layer on constructed trees: what the corpus lacks (note tracks, damaged
//! typed leaves) built through the chunk writer.

use crate::chunk::{self, Chunk};
use crate::directories;
use crate::graph::scene_graph;
use crate::typed::{TNode, TValue, TypedStream};

fn utf16(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(|c| c.to_le_bytes()).collect()
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A Scene stream with one node (class 0, superclass 1) carrying the given extra chunks.
fn scene_with_node(extra: Vec<Chunk>) -> Vec<Chunk> {
    let mut node = vec![
        Chunk::leaf(0x2035, u32s(&[2, 0, 1])),
        Chunk::leaf(0x09ce, u32s(&[300])),
        Chunk::leaf(0x0960, u32s(&[7, 0x0080_0800])),
        Chunk::leaf(0x0962, utf16("Box01")),
    ];
    node.extend(extra);
    vec![Chunk::container(0x2012, vec![Chunk::container(0, node)])]
}

fn node_class() -> Vec<directories::ClassEntry> {
    vec![directories::ClassEntry {
        index: 0,
        dll_index: -1,
        class_id: crate::typed::ClassId(1, 0),
        super_class: 1,
        name: "Node".into(),
    }]
}

fn round_trip(chunks: &[Chunk], superclasses: &[u32]) -> TypedStream {
    let ts = TypedStream::parse("Scene", chunks, superclasses);
    assert_eq!(chunk::write(&ts.build()), chunk::write(chunks));
    ts
}

#[test]
fn node_fields_and_note_tracks_decode() {
    let notes = Chunk::container(
        0x2140,
        vec![
            Chunk::leaf(0x0130, u32s(&[1])),
            Chunk::leaf(0x0100, u32s(&[4800])),
            Chunk::leaf(0x0110, u32s(&[4])),
            Chunk::leaf(0x0120, utf16("lspawn fx")),
            Chunk::leaf(0x0100, u32s(&[9600])),
            Chunk::leaf(0x0110, u32s(&[4])),
            Chunk::leaf(0x0120, utf16("wkill fx")),
        ],
    );
    let chunks = scene_with_node(vec![notes]);
    let ts = round_trip(&chunks, &[1]);
    assert!(ts.degraded.is_empty());
    let g = scene_graph(&ts, &node_class(), &[]).expect("graph");
    let o = &g.objects[0];
    let n = o.node.as_ref().expect("node");
    assert_eq!(n.name, "Box01");
    assert_eq!(
        (n.parent, n.flags, n.version),
        (Some(7), Some(0x0080_0800), Some(300))
    );
    assert_eq!(o.references.len(), 1);
    assert_eq!((o.references[0].slot, o.references[0].target), (0, 1));
    let times: Vec<i32> = o.note_keys.iter().map(|k| k.time).collect();
    assert_eq!(times, [4800, 9600]);
    assert_eq!(o.note_keys[1].text, "wkill fx");
}

#[test]
fn damaged_typed_leaf_is_kept_raw_and_reported() {
    // 0x2035 must be a header plus whole (slot, index) pairs; 6 bytes are not.
    let mut chunks = scene_with_node(vec![]);
    if let crate::chunk::Body::Container(objs) = &mut chunks[0].body {
        if let crate::chunk::Body::Container(node) = &mut objs[0].body {
            node[0] = Chunk::leaf(0x2035, vec![2, 0, 0, 0, 1, 0]);
        }
    }
    let ts = round_trip(&chunks, &[1]);
    assert_eq!(ts.degraded.len(), 1);
    assert_eq!(
        ts.degraded[0].path.to_string(),
        "/0000-2012/0000-0000/0000-2035"
    );
    assert!(
        ts.degraded[0].what.contains("pairs"),
        "{}",
        ts.degraded[0].what
    );
}

#[test]
fn node_chunks_are_typed_only_on_nodes() {
    // Superclass 0x10 (geometry): 0x0962 is not a node name there.
    let ts = round_trip(&scene_with_node(vec![]), &[0x10]);
    let obj = &ts.nodes[0].children()[0];
    assert!(matches!(obj.child(0x0962), Some(TNode::Raw(_))));
    assert!(matches!(obj.child(0x2035), Some(TNode::Value { .. })));
}

#[test]
fn appdata_entries_keep_order_and_bytes() {
    let key = |sub: u32, size: u32| {
        let mut k = u32s(&[0x04d6_4858, 0x16d1_751d, 0x1020, sub, size]);
        k.truncate(20);
        k
    };
    let appdata = Chunk::container(
        0x2150,
        vec![
            Chunk::leaf(0x0100, u32s(&[2])),
            Chunk::container(
                0x0110,
                vec![
                    Chunk::leaf(0x0120, key(1423062565, 2)),
                    Chunk::leaf(0x0130, b"1\0".to_vec()),
                ],
            ),
            Chunk::container(
                0x0110,
                vec![
                    Chunk::leaf(0x0120, key(1423062537, 2)),
                    Chunk::leaf(0x0130, b"0\0".to_vec()),
                ],
            ),
        ],
    );
    let ts = round_trip(&scene_with_node(vec![appdata]), &[1]);
    let g = scene_graph(&ts, &[], &[]).expect("graph");
    let subs: Vec<u32> = g.objects[0].appdata.iter().map(|e| e.sub_id).collect();
    assert_eq!(subs, [1423062565, 1423062537]);
    assert_eq!(g.objects[0].appdata[0].value, b"1\0");
}

#[test]
fn config_script_values_round_trip() {
    let mut meta_str = u32s(&[4]);
    meta_str.extend(b"abc\0");
    let meta = Chunk::container(
        0x0007,
        vec![
            Chunk::leaf(0x0060, u32s(&[3])),
            Chunk::leaf(0x0004, 1.5f32.to_le_bytes().to_vec()),
            Chunk::leaf(0x0006, meta_str),
            Chunk::leaf(0x0008, u32s(&[0, 0x3f80_0000, 0x7fc0_0001])),
        ],
    );
    let config = vec![Chunk::container(
        0x2180,
        vec![Chunk::container(
            0x0040,
            vec![Chunk::leaf(0x0050, u32s(&[0x1020, 1, 2])), meta],
        )],
    )];
    let ts = TypedStream::parse("Config", &config, &[]);
    assert!(ts.degraded.is_empty());
    assert_eq!(chunk::write(&ts.build()), chunk::write(&config));
    let entry = &ts.nodes[0].children()[0];
    let m = entry.child(0x0007).expect("meta");
    assert_eq!(
        m.child_value(0x0006),
        Some(&TValue::MetaStr(b"abc".to_vec()))
    );
    // A NaN payload survives the rebuild bit for bit.
    assert_eq!(
        m.child_value(0x0008),
        Some(&TValue::F32s(vec![0, 0x3f80_0000, 0x7fc0_0001]))
    );
}

#[test]
fn directories_read_entries() {
    let dll = vec![
        Chunk::leaf(0x21c0, u32s(&[6])),
        Chunk::container(
            0x2038,
            vec![
                Chunk::leaf(0x2039, utf16("Editable Poly")),
                Chunk::leaf(0x2037, utf16("epoly.dlo")),
            ],
        ),
    ];
    let ts = TypedStream::parse("DllDirectory", &dll, &[]);
    assert_eq!(chunk::write(&ts.build()), chunk::write(&dll));
    let e = directories::dll_entries(&ts);
    assert_eq!(
        (e[0].description.as_str(), e[0].filename.as_str()),
        ("Editable Poly", "epoly.dlo")
    );
}

#[test]
fn directories_read_entries_inside_a_zstd_stream_wrapper() {
    // Max 2023's zstd DllDirectory: the entries inside one 0x2203 container.
    let dll = vec![Chunk::container(
        0x2203,
        vec![
            Chunk::leaf(0x21c0, u32s(&[6])),
            Chunk::container(
                0x2038,
                vec![
                    Chunk::leaf(0x2039, utf16("Editable Poly")),
                    Chunk::leaf(0x2037, utf16("epoly.dlo")),
                ],
            ),
        ],
    )];
    let ts = TypedStream::parse("DllDirectory", &dll, &[]);
    assert_eq!(chunk::write(&ts.build()), chunk::write(&dll));
    let e = directories::dll_entries(&ts);
    assert_eq!((e.len(), e[0].filename.as_str()), (1, "epoly.dlo"));
}
