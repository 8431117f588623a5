//! Map Extender and NeL VertexTreePaint (issue 17). The corpus holds no
//! instance of either, so each test starts from a real corpus scene
//! (misc/Crate.max: Box001, a Box of 8 vertices and 12 faces with a textured
//! Standard material) and puts the modifier on Box001 through our writers
//! (`SceneEdit::add_modifier`), with local data laid out as the sources say:
//!
//! - Map Extender (seed S003 l.845–847, l.862): the map stored flat in
//!   0x2512 (0x03e8 count, 0x03e9 Point3s, 0x03ea count, 0x03eb corners,
//!   0x03f3 channel) is replayed verbatim; a face count that differs from
//!   the mesh at the modifier's place is refused, the channel left out and
//!   the node and modifier named.
//! - VertexTreePaint (ryzomcore nel_vertex_tree_paint: `SaveLocalData`,
//!   `ModifyObject`, `SetCache`): one COLORREF per geometry vertex in 0x0120;
//!   the vertex-colour channel becomes each corner's vertex colour, byte /
//!   255, black for vertices the list lacks.
//!
//! Expected values are the stored bytes themselves (the rules above replay
//! them unchanged) and the Box's own geometry from the unmodified file.

use maxfs_exporters::gltf::glb;
use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
use maxfs_exporters::nel::export::{export, ExportKind};
use maxfs_exporters::nel::shape::vertex_buffer::ChannelData;
use maxfs_exporters::nel::shape::Shape;
use maxfs_exporters::nel::{read_nel, NelFile};
use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::gltf_ref::accessor;
use maxfs_tests::map_modifiers::{
    container, expected_map, leaf, map_local, paint_local, put_map_modifiers, Modifier,
};
use maxfs_tests::rewrite::SceneEdit;
use serde_json::Value;

const SOURCE: &str = "max/misc/Crate.max";
const NODE: &str = "Box001";

/// Crate.max with `mods` put on Box001, top first.
fn scene(mods: &[Modifier]) -> Document {
    scene_with(mods, &[])
}

/// [`scene`] with NeL AppData entries (id, text) added to Box001.
fn scene_with(mods: &[Modifier], appdata: &[(u32, &str)]) -> Document {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    for &(key, text) in appdata {
        e.add_appdata(node, (NEL_CLASS_ID, NEL_SUPER_CLASS), key, text);
    }
    put_map_modifiers(&mut e, node, mods);
    e.finish()
}

/// Six colours for Box001's eight vertices (the last two stay black).
const COLOURS: [[u8; 3]; 6] = [
    [10, 200, 0],
    [40, 180, 7],
    [70, 160, 14],
    [100, 140, 21],
    [130, 120, 28],
    [255, 100, 35],
];

fn colour_of(v: usize) -> [u8; 3] {
    COLOURS.get(v).copied().unwrap_or([0; 3])
}

fn box_mesh(eval: &SceneEval) -> (usize, Mesh) {
    let n = eval
        .graph
        .nodes()
        .find(|(_, x)| x.name == NODE)
        .map(|(o, _)| o.index)
        .expect("Box001");
    let m = eval.mesh(n, 0).expect("a mesh").expect("evaluates");
    (n, (*m).clone())
}

fn plain() -> Mesh {
    box_mesh(&maxfs_tests::corpus_eval(SOURCE)).1
}

/// The first CMesh's vertex buffer channel `value` of `name`.shape.
fn shape_channel(
    out: &maxfs_exporters::nel::export::Exports,
    value: &str,
) -> (Vec<f32>, Vec<u8>, usize) {
    let o = out
        .outputs
        .iter()
        .find(|o| o.name.eq_ignore_ascii_case("box001.shape"))
        .unwrap_or_else(|| panic!("no box001.shape: {}", out.errors_text()));
    let NelFile::Shape(s) = read_nel(&o.bytes, &o.name).expect("shape reads") else {
        panic!("not a shape")
    };
    let Some(Shape::CMesh(mesh)) = s.shape.get() else {
        panic!("not a CMesh")
    };
    let geom = mesh.geom.as_ref().expect("geometry");
    let positions = geom
        .vbuffer
        .vertices
        .channels
        .iter()
        .find(|c| c.value == "position")
        .and_then(|c| match &c.data {
            ChannelData::Float(f) => Some(f.iter().map(|x| x.get()).collect::<Vec<f32>>()),
            _ => None,
        })
        .expect("float positions");
    let c = geom
        .vbuffer
        .vertices
        .channels
        .iter()
        .find(|c| c.value == value)
        .unwrap_or_else(|| panic!("no {value} in the shape"));
    let bytes = match &c.data {
        ChannelData::Bytes(b) => b.clone(),
        ChannelData::Float(f) => f.iter().flat_map(|x| x.get().to_le_bytes()).collect(),
        _ => panic!("{value}: unexpected data"),
    };
    (positions, bytes, usize::from(c.components))
}

/// glTF attribute `attr` of Box001's primitives, every vertex.
fn gltf_attribute(eval: &SceneEval, attr: &str) -> Vec<Vec<f64>> {
    let e = maxfs_exporters::gltf::export_scene(eval).expect("glTF export");
    let (json, bin) = glb::read(&e.glb).expect("glb");
    let g: Value = serde_json::from_slice(json).expect("json");
    let mesh = g["meshes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["name"] == NODE)
        .expect("Box001 mesh");
    let mut out = Vec::new();
    for p in mesh["primitives"].as_array().into_iter().flatten() {
        let i = p["attributes"][attr]
            .as_u64()
            .unwrap_or_else(|| panic!("no {attr}"));
        out.extend(accessor(&g, bin, i as usize));
    }
    out
}

#[test]
fn map_extender_replays_its_stored_map() {
    let plain = plain();
    assert_eq!((plain.vertices.len(), plain.faces.len()), (8, 12));
    for is_leaf in [false, true] {
        let doc = scene(&[Modifier::MapExtender(if is_leaf {
            leaf(&map_local(1, 12))
        } else {
            container(map_local(1, 12))
        })]);
        let eval = SceneEval::from_document(doc).expect("scene");
        let (_, m) = box_mesh(&eval);
        // Geometry untouched, channel 1 the stored map exactly.
        assert_eq!(m.vertices, plain.vertices);
        assert_eq!(m.faces, plain.faces);
        let ch = m.maps.iter().find(|c| c.channel == 1).expect("channel 1");
        let (v, f) = expected_map(12);
        assert_eq!((&ch.vertices, &ch.faces), (&v, &f), "leaf form {is_leaf}");
        assert!(m.missing_maps.is_empty(), "{:?}", m.missing_maps);
        // The NeL shape's UV1 and the glTF TEXCOORD_0 are the stored UVs,
        // V flipped (1 − v; exact for these values), as sets of the corners.
        let want: std::collections::BTreeSet<[u32; 2]> = v
            .iter()
            .map(|t| [t[0].to_bits(), (1.0 - t[1]).to_bits()])
            .collect();
        let out = export("crate", &eval, &[ExportKind::Shape]);
        assert_eq!(out.errors_text(), "", "leaf form {is_leaf}");
        let (_, uv, k) = shape_channel(&out, "tex_coord0");
        let got: std::collections::BTreeSet<[u32; 2]> = uv
            .chunks_exact(4 * k)
            .map(|c| {
                let f = |o: usize| u32::from_le_bytes([c[o], c[o + 1], c[o + 2], c[o + 3]]);
                [f(0), f(4)]
            })
            .collect();
        assert_eq!(got, want, "shape UV1, leaf form {is_leaf}");
        let gl: std::collections::BTreeSet<[u32; 2]> = gltf_attribute(&eval, "TEXCOORD_0")
            .iter()
            .map(|t| [(t[0] as f32).to_bits(), (t[1] as f32).to_bits()])
            .collect();
        assert_eq!(gl, want, "glTF TEXCOORD_0, leaf form {is_leaf}");
    }
}

#[test]
fn map_extender_on_channel_2_leaves_channel_1() {
    let plain = plain();
    let doc = scene(&[Modifier::MapExtender(leaf(&map_local(2, 12)))]);
    let eval = SceneEval::from_document(doc).expect("scene");
    let (_, m) = box_mesh(&eval);
    let one = |x: &Mesh| x.maps.iter().find(|c| c.channel == 1).cloned();
    assert_eq!(one(&m), one(&plain), "the Box's own mapping stays");
    let two = m.maps.iter().find(|c| c.channel == 2).expect("channel 2");
    let (v, f) = expected_map(12);
    assert_eq!((&two.vertices, &two.faces), (&v, &f));
}

#[test]
fn map_extender_face_count_mismatch_is_refused_by_name() {
    let plain = plain();
    let doc = scene(&[Modifier::MapExtender(container(map_local(1, 10)))]);
    let eval = SceneEval::from_document(doc).expect("scene");
    let (_, m) = box_mesh(&eval);
    // The geometry is kept; channel 1 is left out, not the Box's stale map.
    assert_eq!(m.vertices, plain.vertices);
    assert_eq!(m.faces, plain.faces);
    assert!(m.maps.iter().all(|c| c.channel != 1), "{:?}", m.maps);
    let [missing] = &m.missing_maps[..] else {
        panic!("{:?}", m.missing_maps)
    };
    assert_eq!(missing.channel, Some(1));
    assert_eq!(missing.modifier, "Map Extender");
    assert!(
        missing.reason.contains("10 faces") && missing.reason.contains("12"),
        "{}",
        missing.reason
    );
    // Coverage and the shape export name the node and the modifier.
    let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&eval);
    let gap = gaps
        .iter()
        .find(|g| g.role == "map channel")
        .unwrap_or_else(|| panic!("{gaps:?}"));
    assert!(gap.class.contains("Map Extender"), "{}", gap.class);
    assert!(gap.nodes.iter().any(|n| n == NODE), "{:?}", gap.nodes);
    let out = export("crate", &eval, &[ExportKind::Shape]);
    let text = out.errors_text();
    assert!(
        text.contains(&format!("shape\t{NODE}\t"))
            && text.contains("map channel 1 of modifier Map Extender"),
        "{text}"
    );
}

#[test]
fn damaged_map_extender_data_keeps_the_geometry() {
    let plain = plain();
    let mut local = map_local(1, 12);
    // Texture vertices cut short of the count 0x03e8 gives.
    if let Some(c) = local.iter_mut().find(|c| c.id == 0x03e9) {
        let p = c.payload().expect("leaf")[..100].to_vec();
        *c = Chunk::leaf(0x03e9, p);
    }
    let doc = scene(&[Modifier::MapExtender(leaf(&local))]);
    let eval = SceneEval::from_document(doc).expect("scene");
    let (_, m) = box_mesh(&eval);
    assert_eq!(m.vertices, plain.vertices);
    assert!(m.maps.iter().all(|c| c.channel != 1));
    let [missing] = &m.missing_maps[..] else {
        panic!("{:?}", m.missing_maps)
    };
    assert_eq!(missing.channel, Some(1));
    assert!(missing.reason.contains("0x03e9"), "{}", missing.reason);
}

#[test]
fn vertex_tree_paint_colours_reach_shape_and_gltf() {
    let plain = plain();
    let doc = scene(&[Modifier::VertexTreePaint(container(paint_local(&COLOURS)))]);
    let eval = SceneEval::from_document(doc).expect("scene");
    let (node, m) = box_mesh(&eval);
    assert_eq!(m.vertices, plain.vertices);
    assert_eq!(m.faces, plain.faces);
    // Channel 0: each corner's colour is its geometry vertex's, byte / 255.
    let c0 = m
        .maps
        .iter()
        .find(|c| c.channel == 0)
        .expect("vertex colours");
    assert_eq!(c0.faces.len(), m.faces.len());
    for (f, tf) in m.faces.iter().zip(&c0.faces) {
        for (&v, &t) in f.v.iter().zip(tf) {
            let want = colour_of(v as usize).map(|b| f32::from(b) / 255.0);
            assert_eq!(c0.vertices[t as usize], want);
        }
    }
    // glTF COLOR_0: the colours, opaque.
    let mut want: Vec<[u8; 3]> = (0..8).map(colour_of).collect();
    want.sort_unstable();
    want.dedup();
    let mut got: Vec<[u8; 3]> = gltf_attribute(&eval, "COLOR_0")
        .iter()
        .map(|c| {
            assert_eq!(c[3], 1.0, "opaque");
            [0, 1, 2].map(|k| (c[k] * 255.0).round() as u8)
        })
        .collect();
    got.sort_unstable();
    got.dedup();
    assert_eq!(got, want, "glTF COLOR_0");
    // The NeL shape with the wind-tree vertex program (VERTEXPROGRAM_ID 1,
    // the program VertexTreePaint paints for) writes them as its vertex
    // colours: each vertex buffer vertex has its geometry vertex's colour.
    let doc = scene_with(
        &[Modifier::VertexTreePaint(container(paint_local(&COLOURS)))],
        &[(id::VERTEXPROGRAM_ID, "1")],
    );
    let eval = SceneEval::from_document(doc).expect("scene");
    let out = export("crate", &eval, &[ExportKind::Shape]);
    assert_eq!(out.errors_text(), "");
    let (pos, col, k) = shape_channel(&out, "primary_color");
    assert_eq!(k, 4);
    let to_node = eval.offset_tm(node);
    let corners: Vec<[f32; 3]> = m
        .vertices
        .iter()
        .map(|v| {
            let p = to_node.transform_point(*v);
            [p.0 as f32, p.1 as f32, p.2 as f32]
        })
        .collect();
    let n = pos.len() / 3;
    assert_eq!(col.len(), 4 * n);
    for i in 0..n {
        let p = &pos[3 * i..3 * i + 3];
        let v = corners
            .iter()
            .position(|c| (0..3).all(|j| (c[j] - p[j]).abs() < 1e-4))
            .unwrap_or_else(|| panic!("shape vertex {i} at {p:?} is no Box vertex"));
        assert_eq!(
            col[4 * i..4 * i + 3],
            colour_of(v),
            "shape vertex {i} (Box vertex {v})"
        );
    }
}

#[test]
fn stacked_map_modifiers_apply_in_order() {
    // VertexTreePaint on top of a Map Extender on channel 1: both channels
    // as stored, the geometry the Box's.
    let plain = plain();
    let doc = scene(&[
        Modifier::VertexTreePaint(container(paint_local(&COLOURS))),
        Modifier::MapExtender(container(map_local(1, 12))),
    ]);
    let eval = SceneEval::from_document(doc).expect("scene");
    let (node, m) = box_mesh(&eval);
    let (applied, _) = eval.modifier_stack(node).expect("stack");
    let names: Vec<&str> = applied.iter().map(|a| a.name).collect();
    assert_eq!(names, ["NeL VertexTreePaint", "Map Extender"]);
    assert_eq!(m.vertices, plain.vertices);
    let (v, f) = expected_map(12);
    let one = m.maps.iter().find(|c| c.channel == 1).expect("channel 1");
    assert_eq!((&one.vertices, &one.faces), (&v, &f));
    assert!(m.maps.iter().any(|c| c.channel == 0));
    assert!(m.missing_maps.is_empty());
}

#[test]
fn damaged_vertex_tree_paint_data_leaves_colours_out() {
    let plain = plain();
    let mut local = paint_local(&COLOURS);
    // A count of 9 colours over 6 stored.
    let mut p = local[1].payload().expect("leaf").to_vec();
    p[..4].copy_from_slice(&9i32.to_le_bytes());
    local[1] = Chunk::leaf(0x0120, p);
    let doc = scene(&[Modifier::VertexTreePaint(container(local))]);
    let eval = SceneEval::from_document(doc).expect("scene");
    let (_, m) = box_mesh(&eval);
    assert_eq!(m.vertices, plain.vertices);
    assert!(m.maps.iter().all(|c| c.channel != 0));
    let [missing] = &m.missing_maps[..] else {
        panic!("{:?}", m.missing_maps)
    };
    assert_eq!(missing.channel, Some(0));
    assert_eq!(missing.modifier, "NeL VertexTreePaint");
    assert!(missing.reason.contains("0x0120"), "{}", missing.reason);
}
