//! Bone objects (Max's procedural bone geometry) evaluate to meshes on the
//! corpus's bone nodes: shape from their own ParamBlock2 values, closed and
//! outward-facing, and — where a bone's child bone hangs off it — ending where
//! the child starts.

use maxfs_scene::eval::core::coverage::scene_gaps;
use maxfs_scene::eval::core::pblock::{self, Value};
use maxfs_scene::eval::{SceneEval, Vec3};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

const FILES: &[&str] = &[
    "ik/ShoulderBone.max",
    "ik/ikPoping.max",
    "biped/RabbitSkin.max",
];
const BONE: (u32, u32) = (0x28bf6e8d, 0x2ecca840);

/// Float parameters of the bone's block by id (width 0, height 1, taper 2, length 3).
fn dims(eval: &SceneEval, obj: usize) -> [f64; 4] {
    let pb = pblock::reference(&eval.graph, obj, 0).expect("parameter block");
    let block = pblock::param_block2(eval.chunks(pb)).expect("ParamBlock2");
    [0u16, 1, 2, 3].map(|id| match block.param(id).map(|p| &p.value) {
        Some(Value::Float(f)) => f64::from(*f),
        other => panic!("parameter {id}: {other:?}"),
    })
}

/// Signed volume of a closed triangle mesh (positive when faces wind outward).
fn volume(v: &[Vec3], faces: &[[u32; 3]]) -> f64 {
    faces
        .iter()
        .map(|f| {
            let [a, b, c] = f.map(|i| v[i as usize]);
            a.dot(b.cross(c)) / 6.0
        })
        .sum()
}

#[test]
fn bone_objects_build_their_geometry_from_the_parameters() {
    let (mut bones, mut chained) = (0, 0);
    for rel in FILES {
        let doc = Document::open(&corpus_dir().join("max").join(rel)).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let graph = &*eval.graph;
        let gaps = scene_gaps(&eval);
        assert!(
            !gaps.iter().any(|g| g.role == "object" && g.class == "Bone"),
            "{rel}: {gaps:?}"
        );
        // Nodes whose transform is not evaluated (IK, Biped) are not placed.
        let placed = |name: &str| {
            !gaps
                .iter()
                .any(|g| g.role.ends_with("controller") && g.nodes.iter().any(|n| n == name))
        };
        let bone_obj = |node: usize| {
            eval.node_object(node).filter(|&o| {
                graph.objects[o]
                    .class
                    .as_ref()
                    .is_some_and(|c| (c.class_id.0, c.class_id.1) == BONE)
            })
        };
        for (o, n) in graph.nodes() {
            let Some(obj) = bone_obj(o.index) else {
                continue;
            };
            bones += 1;
            let [width, height, taper, length] = dims(&eval, obj);
            let mesh = eval.mesh(o.index, 0).expect("a mesh").expect("bone mesh");
            let who = format!("{rel}/{}", n.name);
            // No fins in the corpus: the shaft (8 corners) and the root apex.
            assert_eq!((mesh.vertices.len(), mesh.faces.len()), (9, 14), "{who}");
            let v = &mesh.vertices;
            let root = (width + height) / 4.0;
            let near = |a: f64, b: f64| (a - b).abs() <= 1e-5 * length.max(1.0);
            assert_eq!(v[8], Vec3::default(), "{who}: apex at the pivot");
            for (k, p) in v[..8].iter().enumerate() {
                let (x, scale) = if k < 4 {
                    (root, 1.0)
                } else {
                    (length, 1.0 - taper)
                };
                assert!(near(p.0, x), "{who}: vertex {k} {p:?}");
                assert!(near(p.1.abs(), height / 2.0 * scale), "{who}: {k} {p:?}");
                assert!(near(p.2.abs(), width / 2.0 * scale), "{who}: {k} {p:?}");
            }
            // Closed and outward: the volume of the pyramid plus the frustum.
            let faces: Vec<[u32; 3]> = mesh.faces.iter().map(|f| f.v).collect();
            let (a0, a1) = (width * height, width * height * (1.0 - taper).powi(2));
            let expect = root * a0 / 3.0 + (length - root) / 3.0 * (a0 + a1 + (a0 * a1).sqrt());
            let got = volume(v, &faces);
            assert!(
                (got - expect).abs() <= 1e-6 * expect,
                "{who}: {got} vs {expect}"
            );
            // A child bone starts at this bone's end (local X = length).
            for (c, cn) in graph.nodes() {
                let is_child = cn.parent.map(|p| p as usize) == Some(o.index);
                if !is_child || bone_obj(c.index).is_none() || !placed(&n.name) || !placed(&cn.name)
                {
                    continue;
                }
                let end = eval
                    .object_tm(o.index, 0)
                    .transform_point(Vec3(length, 0.0, 0.0));
                let start = eval.world_tm(c.index, 0).0[3];
                assert!(
                    end.minus(start).len() <= 1e-4 * length,
                    "{who} ends at {end:?}, {} starts at {start:?}",
                    cn.name
                );
                chained += 1;
            }
        }
    }
    eprintln!("bone objects: {bones} meshes checked, {chained} bone ends at their child bone");
    assert_eq!(bones, 12);
    assert!(chained >= 5, "only {chained} chained bones");
}
