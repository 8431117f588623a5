//! MapScaler (issue 19 item 6: a UV-only modifier never costs the geometry).
//! The corpus holds none; the two public files that do (fibll/CG's Tisch.max
//! and Set1.max, world-space MapScalers on four Boxes each) are outside it,
//! so the test writes one, with their block layout (reference 2: 0 scale,
//! 1 Wrap Texture, 2 Up Direction, 3 channel, 4/5 U/V offset, 6 Wrap using
//! Smoothing Groups), onto misc/Crate.max's Box001 through our writer.
//!
//! Expected values: Max's help and MAXScript reference say MapScaler writes
//! one map channel and nothing else, so the Box keeps the geometry the
//! unmodified file gives; the channel it would write is left out and named
//! (its layout is not derived), and any other channel stays as it was.

use maxfs_exporters::nel::export::{export, ExportKind};
use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::node_index;
use maxfs_tests::rewrite::{param_block2, SceneEdit};

const SOURCE: &str = "max/misc/Crate.max";
const NODE: &str = "Box001";
const MAP_SCALER_WSM: ClassId = ClassId(0x0dad_ada2, 0);
const PARAM_BLOCK2: ClassId = ClassId(0x82, 0);

/// Crate.max with a world-space MapScaler writing `channel` on Box001.
fn edited(channel: i32) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    let pb2 = e.class_index(PARAM_BLOCK2).expect("ParamBlock2 objects");
    let template = e.pb2_template();
    let block = e.graph.objects.len();
    let (scale, wrap, up, off, smooth) = (
        100f32.to_le_bytes(),
        1i32.to_le_bytes(),
        1i32.to_le_bytes(),
        0f32.to_le_bytes(),
        0i32.to_le_bytes(),
    );
    let channel = channel.to_le_bytes();
    let values: [(u16, u16, &[u8]); 7] = [
        (0, 0x0000, &scale),
        (1, 0x0004, &wrap),
        (2, 0x000d, &up),
        (3, 0x0001, &channel),
        (4, 0x0000, &off),
        (5, 0x0000, &off),
        (6, 0x0004, &smooth),
    ];
    let added = e.add_object(pb2, param_block2(template, block as u32 + 1, &values));
    assert_eq!(added, block);
    e.add_modifier_with_refs(
        node,
        0,
        MAP_SCALER_WSM,
        "MapScaler",
        "mapscaler.dlm",
        &[0, 2, block as i32],
    );
    SceneEval::from_document(e.finish()).expect("edited scene")
}

fn box_mesh(eval: &SceneEval) -> Mesh {
    let m = eval
        .mesh(node_index(eval, NODE), 0)
        .expect("a mesh")
        .expect("evaluates");
    (*m).clone()
}

#[test]
fn map_scaler_keeps_the_geometry_and_names_its_channel() {
    let plain = box_mesh(&maxfs_tests::corpus_eval(SOURCE));
    assert!(
        plain.maps.iter().any(|c| c.channel == 1),
        "Crate's Box is mapped"
    );
    let eval = edited(1);
    let m = box_mesh(&eval);
    assert_eq!(m.vertices, plain.vertices);
    assert_eq!(m.faces, plain.faces);
    // The Box's own channel 1 would look valid but be wrong: it leaves.
    assert!(m.maps.iter().all(|c| c.channel != 1), "{:?}", m.maps);
    let [missing] = &m.missing_maps[..] else {
        panic!("{:?}", m.missing_maps)
    };
    assert_eq!(missing.channel, Some(1));
    assert_eq!(missing.modifier, "MapScaler");
    assert!(
        missing
            .reason
            .contains("scale 100, Wrap Texture on, channel 1"),
        "{}",
        missing.reason
    );
    // Coverage, the shape export and errors.txt name the node and modifier.
    let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&eval);
    let gap = gaps
        .iter()
        .find(|g| g.role == "map channel")
        .unwrap_or_else(|| panic!("{gaps:?}"));
    assert!(gap.class.contains("MapScaler"), "{}", gap.class);
    assert!(gap.nodes.iter().any(|n| n == NODE), "{:?}", gap.nodes);
    let out = export("crate", &eval, &[ExportKind::Shape]);
    assert!(
        out.outputs
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case("box001.shape")),
        "the Box is still exported: {}",
        out.errors_text()
    );
    let text = out.errors_text();
    assert!(
        text.contains(&format!("shape\t{NODE}\t"))
            && text.contains("map channel 1 of modifier MapScaler"),
        "{text}"
    );
}

#[test]
fn map_scaler_on_another_channel_leaves_channel_1() {
    let plain = box_mesh(&maxfs_tests::corpus_eval(SOURCE));
    let m = box_mesh(&edited(3));
    assert_eq!(m.vertices, plain.vertices);
    let one = |x: &Mesh| x.maps.iter().find(|c| c.channel == 1).cloned();
    assert_eq!(one(&m), one(&plain), "the Box's own mapping stays");
    let [missing] = &m.missing_maps[..] else {
        panic!("{:?}", m.missing_maps)
    };
    assert_eq!(missing.channel, Some(3));
}
