//! The geometry of cat/LD33_Character.max's CAT bones and hubs
//! (scene/src/eval/objects/cat_object.rs, docs/cat.md), against what the
//! file stores independently of the object's parameter block:
//! - each bone controller's chunk 10, the dimensions CAT caches from the
//!   object (CATNodeControl::UpdateObjDim: length, half depth, half width
//!   for a limb bone; height, half length, half width for a hub; scene
//!   units): the box must span exactly these;
//! - the envelope Box001's Skin made for HeadBone001 when it was added (a
//!   geometric object: the envelope runs along its bounding box's longest
//!   axis, from the far end to the near end through the centre of the other
//!   two; a stored value Max derived from the object's geometry): it must
//!   run along our box's X extent at its Y/Z centre. The other bones'
//!   envelopes are (0.5, 0, 0) → (−0.5, 0, 0), the same for all of them, and
//!   say nothing of their geometry.
//!
//! The exports include the boxes: every CAT bone node has a glTF mesh.

use maxfs_scene::eval::core::controller::{Controller, Track};
use maxfs_scene::eval::modifier::skin;
use maxfs_scene::eval::objects::cat_object::{CAT_BONE, HUB_OBJECT};
use maxfs_scene::eval::rigs::cat::records;
use maxfs_scene::eval::{SceneEval, Vec3};
use maxfs_scene::Document;
use maxfs_tests::{corpus_dir, node_named};

const FILE: &str = "cat/LD33_Character.max";
/// Chunk 10 holds f32 values computed by CAT from f32 parameters; our box
/// computes the same products in f32: they agree to f32 rounding.
const F32_TOL: f64 = 1e-5;

fn scene() -> SceneEval {
    let doc = Document::open(&corpus_dir().join("max").join(FILE)).expect("max file");
    SceneEval::from_document(doc).expect("scene")
}

/// (min, max) of the mesh's vertices along each axis.
fn extents(v: &[Vec3]) -> [(f64, f64); 3] {
    let along = |k: usize| {
        let c = v.iter().map(|p| [p.0, p.1, p.2][k]);
        (
            c.clone().fold(f64::MAX, f64::min),
            c.fold(f64::MIN, f64::max),
        )
    };
    [along(0), along(1), along(2)]
}

/// Every CATBone and HubObject node builds its 8-vertex, 12-face box, whose
/// extents are the dimensions the bone's controller stored in chunk 10.
#[test]
fn ld33_cat_boxes_span_the_stored_bone_dimensions() {
    let eval = scene();
    let (mut bones, mut hubs, mut worst) = (0, 0, 0.0f64);
    for (o, n) in eval.graph.nodes() {
        let node = o.index;
        let Some(obj) = eval.node_object(node) else {
            continue;
        };
        let class = eval.graph.objects[obj].class.as_ref().map(|c| c.class_id);
        let is_hub = class == Some(HUB_OBJECT);
        if !is_hub && class != Some(CAT_BONE) {
            continue;
        }
        let mesh = match eval.mesh(node, 0) {
            Some(Ok(m)) => m,
            other => panic!("{}: {other:?}", n.name),
        };
        assert_eq!(
            (mesh.vertices.len(), mesh.faces.len()),
            (8, 12),
            "{}",
            n.name
        );
        let ctl = eval.tm_controller(node).expect("a CAT controller");
        let d = records::cat_control(&eval, ctl)
            .dims
            .unwrap_or_else(|| panic!("{}: no chunk 10", n.name))
            .map(f64::from);
        let [x, y, z] = extents(&mesh.vertices);
        // Spans along the three axes; a limb bone also starts at its root.
        let expected = if is_hub {
            hubs += 1;
            [
                x.1 - x.0 - d[0],
                y.1 - y.0 - 2.0 * d[1],
                z.0 + d[2],
                z.1 - d[2],
            ]
        } else {
            bones += 1;
            [x.0, x.1 - d[0], y.0 + d[1], y.1 - d[1]]
        };
        let off = expected
            .iter()
            .chain(&[z.0 + d[2], z.1 - d[2]])
            .fold(0.0f64, |a, e| a.max(e.abs()));
        worst = worst.max(off);
        assert!(
            off < F32_TOL * d[0].max(1.0),
            "{}: extents {:?} vs stored dims {d:?}",
            n.name,
            [x, y, z]
        );
    }
    println!("{FILE}: {bones} CATBone and {hubs} HubObject boxes, worst {worst:.1e} from chunk 10");
    assert_eq!((bones, hubs), (23, 3));
}

/// Skin's envelope for HeadBone001 (stored end points, object space) runs
/// from our box's far X end to its root, through its Y/Z centre.
#[test]
fn ld33_head_bone_box_matches_its_skin_envelope() {
    let eval = scene();
    let box001 = node_named(&eval.graph, "Box001");
    let head_bone = node_named(&eval.graph, "Base HumanHeadBone001");
    let sk = match skin::node_skin(&eval, box001) {
        Some(Ok(s)) => s,
        other => panic!("Box001 Skin: {other:?}"),
    };
    let (start, end) = envelope(&eval, sk.modifier, head_bone);
    println!("HeadBone001 envelope: {start:?} → {end:?}");
    let mesh = eval.mesh(head_bone, 0).expect("a mesh").expect("built");
    let [x, y, z] = extents(&mesh.vertices);
    let centre = |(a, b): (f64, f64)| (a + b) / 2.0;
    for (got, want) in [
        (start.0, x.1),
        (end.0, x.0),
        (start.1, centre(y)),
        (end.1, centre(y)),
        (start.2, centre(z)),
        (end.2, centre(z)),
    ] {
        assert!((got - want).abs() < 1e-6, "{start:?} → {end:?} vs {x:?}");
    }
}

/// Every CAT bone and hub node has a mesh in the glTF export.
#[test]
fn ld33_cat_boxes_are_exported() {
    let eval = scene();
    let e = maxfs_exporters::gltf::export_scene(&eval).expect("glTF");
    let g = gltf::Gltf::from_slice(&e.glb).expect("our GLB reads");
    let with_mesh: Vec<String> = g
        .document
        .nodes()
        .filter(|n| n.mesh().is_some())
        .filter_map(|n| n.name().map(str::to_string))
        .collect();
    let cat_nodes: Vec<String> = eval
        .graph
        .nodes()
        .filter(|(o, _)| {
            eval.node_object(o.index)
                .and_then(|obj| eval.graph.objects[obj].class.as_ref())
                .is_some_and(|c| c.class_id == CAT_BONE || c.class_id == HUB_OBJECT)
        })
        .map(|(_, n)| n.name.clone())
        .collect();
    assert_eq!(cat_nodes.len(), 26);
    for n in &cat_nodes {
        assert!(with_mesh.contains(n), "{n} has no glTF mesh");
    }
}

/// The stored envelope end points of `bone` in Skin modifier `modifier`:
/// chunk 0x0030 holds per bone u32 n, n × (f32, u32, u32) cross-sections,
/// u16 flags, u32 bone node slot, u32 start and end point controller slots
/// (scene/src/eval/modifier/skin.rs); the points are Bezier Point3 values.
fn envelope(eval: &SceneEval, modifier: usize, bone: usize) -> (Vec3, Vec3) {
    let refs = &eval.graph.objects[modifier].references;
    let target = |slot: u32| {
        refs.iter()
            .find(|r| r.slot == slot)
            .and_then(|r| usize::try_from(r.target).ok())
    };
    let p = eval
        .chunks(modifier)
        .iter()
        .find(|c| c.id == 0x0030)
        .and_then(|c| c.payload())
        .expect("Skin bone records 0x0030");
    let u32_at = |at: usize| u32::from_le_bytes(p[at..at + 4].try_into().unwrap());
    let mut at = 0;
    while at < p.len() {
        let n = u32_at(at) as usize;
        at += 4 + 12 * n + 2;
        let (b, s, e) = (u32_at(at), u32_at(at + 4), u32_at(at + 8));
        at += 12;
        if target(b) == Some(bone) {
            let point = |slot: u32| {
                let ctl = target(slot).expect("an end point controller");
                let stored = keyless_point3(eval, ctl);
                // The product must read the same stored value (it once read
                // 0x2503, the position controllers' chunk, and saw zero).
                match eval.controller(ctl) {
                    Some(Controller::Point3 {
                        track: Track::Constant { value },
                        ..
                    }) => assert_eq!(Vec3(value[0], value[1], value[2]), stored),
                    other => panic!("controller {ctl}: {other:?}"),
                }
                stored
            };
            return (point(s), point(e));
        }
    }
    panic!("no Skin envelope for node {bone}");
}

/// The value of a key-less Bezier Point3 controller: in this Max 2015 file
/// it is saved as three f32 in chunk 0x2501 inside the keyframer's 0x7127
/// container (the envelope points hold no keys).
fn keyless_point3(eval: &SceneEval, ctl: usize) -> Vec3 {
    let chunks = eval.chunks(ctl);
    assert!(
        !chunks.iter().any(|c| c.id == 0x2526),
        "controller {ctl} has Bezier keys"
    );
    let p = chunks
        .iter()
        .filter(|c| c.id == 0x7127)
        .flat_map(|c| c.children())
        .find(|c| c.id == 0x2501)
        .and_then(|c| c.payload())
        .expect("a stored value 0x2501");
    assert_eq!(p.len(), 12, "controller {ctl}: three f32");
    let f = |i: usize| f64::from(f32::from_le_bytes(p[4 * i..4 * i + 4].try_into().unwrap()));
    Vec3(f(0), f(1), f(2))
}
