//! Noise (issue 19, item 8) is refused by name with why: Max's noise3 /
//! fBm1 tables are not public and no tried table reproduced the vertices of
//! 3ds Max's FBX export of GlobalGameJam-2020's WheelCart_Poly.max
//! (docs/evaluation.md, "Noise"). The corpus holds no Noise, so the test
//! writes one (the current 9-parameter block, Max's defaults: scale 100,
//! 6 iterations, frequency 0.25, strength 0 / 0 / 10) onto
//! kenji-room/Kenjis_Bed.max's ChamferBox001 and checks the refusal — the
//! node is not exported with its noise left out.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::error::EvalErrorKind;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/kenji-room/Kenjis_Bed.max";
const NODE: &str = "ChamferBox001";
const NOISE: ClassId = ClassId(0xf997_b124, 0);
const OLD_PARAM_BLOCK: ClassId = ClassId(0x8, 0);
const OSM: u32 = 0x810;

/// An old ParamBlock parameter: 0x0002 holding its index and a value chunk.
fn param(index: i32, id: u16, value: Vec<u8>) -> Chunk {
    Chunk::container(
        0x0002,
        vec![
            Chunk::leaf(0x0003, index.to_le_bytes().to_vec()),
            Chunk::leaf(id, value),
        ],
    )
}

fn edited() -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    let pb_class = e
        .class_index_of(OLD_PARAM_BLOCK, 0x8)
        .expect("the scene has old ParamBlocks");
    let f = |v: f32| v.to_le_bytes().to_vec();
    let i = |v: i32| v.to_le_bytes().to_vec();
    let strength: Vec<u8> = [0f32, 0.0, 10.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let pb = e.add_object(
        pb_class,
        vec![
            param(0, 0x0101, i(0)),
            param(1, 0x0100, f(100.0)),
            param(2, 0x0101, i(0)),
            param(3, 0x0100, f(0.0)),
            param(4, 0x0100, f(6.0)),
            param(5, 0x0101, i(0)),
            param(6, 0x0100, f(0.25)),
            param(7, 0x0101, i(0)),
            param(8, 0x0103, strength),
        ],
    );
    let dll = e.add_dll("Noise (synthetic)", "mods.dlm");
    let class = e.add_class(dll, NOISE, OSM, "Noise");
    let refs = [-1i32, -1, pb as i32];
    let noise = e.add_object(
        class,
        vec![Chunk::leaf(
            0x2035,
            refs.iter()
                .flat_map(|w| w.to_le_bytes())
                .collect::<Vec<u8>>(),
        )],
    );
    e.add_modifier(node, 0, noise, Chunk::container(0x2512, Vec::new()));
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn noise_is_refused_by_name_with_why() {
    let eval = edited();
    let o = eval
        .graph
        .nodes()
        .find(|(_, n)| n.name == NODE)
        .map(|(o, _)| o.index)
        .expect("the node");
    let err = match eval.mesh(o, 0).expect("a mesh object") {
        Ok(_) => panic!("Noise must not pass its input through"),
        Err(e) => e,
    };
    assert_eq!(err.kind(), EvalErrorKind::NotEvaluated, "{err}");
    let text = err.to_string();
    assert!(text.contains("Noise"), "{text}");
    assert!(text.contains("not public"), "{text}");
}
