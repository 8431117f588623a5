//! A number of a Physical Material (and of the other decoders sharing
//! `material::block0`) driven by a controller is read at frame 0, where Max
//! shows the material; one driven by a controller that is not read is named,
//! never left at its default. The corpus has no such material (the sweeps'
//! бочка.max and Lab08-1.max do), so Mug.max's "01 - Default" has its
//! metalness keyed through the project's writer.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::render::material;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

const MUG: &str = "max/max2024-rico/Mug.max";
const LINEAR_FLOAT: ClassId = ClassId(0x2001, 0);
/// A float controller class this evaluation does not read (Noise Float).
const NOISE_FLOAT: ClassId = ClassId(0x87a6df24, 0);
const SC_FLOAT_CONTROL: u32 = 0x9003;
/// Physical Material's metalness (ParamBlock2 id 6).
const METALNESS: u16 = 6;

/// Mug.max's "01 - Default" (a Physical Material): its object index.
fn default_01(plain: &SceneEval) -> usize {
    (0..plain.graph.objects.len())
        .find(|&i| {
            plain.graph.objects[i]
                .class
                .as_ref()
                .is_some_and(|c| c.name == "Physical Material")
                && material::material(plain, i).is_some_and(|m| m.name == "01 - Default")
        })
        .expect("Mug.max's 01 - Default")
}

/// Mug.max with material `mtl`'s metalness driven by a new controller of
/// `class` holding `chunks`.
fn keyed(mtl: usize, class: ClassId, name: &str, chunks: Vec<Chunk>) -> SceneEval {
    let mut e = SceneEdit::open(MUG);
    let block = e.reference(mtl, 0);
    let c = e
        .class_index_of(class, SC_FLOAT_CONTROL)
        .unwrap_or_else(|| e.add_class(-1, class, SC_FLOAT_CONTROL, name));
    let ctl = e.add_object(c, chunks);
    e.append_reference(block, ctl as i32);
    e.unset_pb2_constant(block, METALNESS);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn an_animated_physical_parameter_is_its_value_at_frame_0() {
    let plain = maxfs_tests::corpus_eval(MUG);
    let mut table = Vec::new();
    for (t, v) in [(0i32, 0.75f32), (16000, 0.25)] {
        table.extend(t.to_le_bytes());
        table.extend(0u32.to_le_bytes());
        table.extend(v.to_le_bytes());
    }
    let mtl = default_01(&plain);
    let eval = keyed(
        mtl,
        LINEAR_FLOAT,
        "Linear Float",
        vec![Chunk::leaf(0x2511, table)],
    );
    let before = material::material(&plain, mtl).expect("decoded");
    let m = material::material(&eval, mtl).expect("decoded");
    let metal = |m: &material::Material| m.pbr.as_ref().and_then(|p| p.metalness);
    assert_ne!(
        metal(&before),
        Some(0.75),
        "the key differs from the constant"
    );
    assert_eq!(metal(&m), Some(0.75));
    assert_eq!(m.unmapped, before.unmapped);

    let eval = keyed(mtl, NOISE_FLOAT, "Noise Float", Vec::new());
    let m = material::material(&eval, mtl).expect("decoded");
    assert_eq!(metal(&m), None);
    assert!(
        m.unmapped
            .iter()
            .any(|u| u.contains("parameter 6 animated by Noise Float")),
        "{:?}",
        m.unmapped
    );
}
