//! VRay2SidedMtl (the corpus has none; 89 sit in sohaibshams' V-Ray
//! exterior scenes, all on tree leaves): built through the writer on
//! babylon/CubesImageFormat.max's node B, around B's own Standard material
//! (front) and A's (back), with the parameters those files store
//! (0 front, 1 back, 3 "use back material", 7 translucency colour).
//! Exported as a Double Sided: front faces with the front material, the
//! same faces turned over with the back one (the front again when no back
//! material is in use); the translucency is named, never dropped.

use maxfs_exporters::gltf::export_scene;
use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::render::material;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;

use crate::eval_mr_materials::{b, block, rgb, scene, wide, Scene, P, PARAMBLOCK2, RGBA};

const VRAY_2SIDED: ClassId = ClassId(0x6066_686a, 0x1173_1b4b);
const SC_MATERIAL: u32 = 0xc00;
const MTL: u16 = 14;

/// Node B on a VRay2SidedMtl of B's Standard, with A's as back material
/// when `back` (its switch set to `back_on`). Returns the scene, the new
/// material and the two Standards.
fn two_sided(back: bool, back_on: bool) -> (SceneEval, usize, usize, usize) {
    let Scene {
        mut edit,
        node,
        standard,
        template,
        ..
    } = scene();
    let a = edit.node("A");
    let other = edit.reference(a, 3);
    assert_ne!(other, standard);
    let dll = edit.add_dll("V-Ray (synthetic)", "vrender.dlr");
    let cls = edit.add_class(dll, VRAY_2SIDED, SC_MATERIAL, "VRay2SidedMtl");
    let pb2 = edit.class_index(PARAMBLOCK2).expect("ParamBlock2s");
    let back_idx: i32 = if back { other as i32 } else { -1 };
    let values: Vec<P> = vec![
        (0, MTL, Some((standard as i32).to_le_bytes().to_vec())),
        (1, MTL, Some(back_idx.to_le_bytes().to_vec())),
        (3, 4, b(back_on)),
        (7, RGBA, rgb([0.5, 0.5, 0.5])),
    ];
    let pb = edit.add_object(pb2, block(template, &values));
    let name = Chunk::container(0x4000, vec![Chunk::leaf(0x4001, wide("Leaves_mtl"))]);
    let m = edit.add_object(cls, vec![name]);
    edit.append_reference(m, pb as i32);
    edit.set_reference(node, 3, m as i32);
    let eval = SceneEval::from_document(edit.finish()).expect("scene");
    (eval, m, standard, other)
}

/// Node B's primitives in the glTF: (material name, index count).
fn primitives_of_b(eval: &SceneEval) -> Vec<(String, u64)> {
    let e = export_scene(eval).expect("export");
    let root = maxfs_tests::gltf_json(&e.glb);
    let node = root["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["name"] == "B")
        .expect("B");
    let mesh = &root["meshes"][node["mesh"].as_u64().expect("a mesh") as usize];
    mesh["primitives"]
        .as_array()
        .expect("primitives")
        .iter()
        .map(|p| {
            let mat = &root["materials"][p["material"].as_u64().expect("material") as usize];
            let count = root["accessors"][p["indices"].as_u64().expect("indices") as usize]
                ["count"]
                .as_u64()
                .expect("count");
            (mat["name"].as_str().unwrap_or_default().to_string(), count)
        })
        .collect()
}

fn name_of(eval: &SceneEval, m: usize) -> String {
    material::material(eval, m).expect("a material").name
}

#[test]
fn without_a_back_material_the_front_shades_both_sides() {
    // Stored back material with its switch off: V-Ray ignores it.
    for (back, back_on) in [(false, false), (true, false)] {
        let (eval, m, front, _) = two_sided(back, back_on);
        let decoded = material::material(&eval, m).expect("decoded");
        assert!(decoded.errors.is_empty(), "{:?}", decoded.errors);
        let ds = decoded.double_sided.expect("two sides");
        assert_eq!((ds.facing, ds.back), (Some(front), Some(front)));
        let prims = primitives_of_b(&eval);
        let front_name = name_of(&eval, front);
        assert_sides(&prims, &front_name, &front_name);
        // Named: the translucency, nothing about the back.
        assert_eq!(
            material::undecoded_classes(&eval, m),
            ["VRay2SidedMtl (partially: translucency colour [0.5, 0.5, 0.5] (light through the surface; not exported))"]
        );
    }
}

#[test]
fn a_back_material_in_use_shades_the_back_faces() {
    let (eval, m, front, other) = two_sided(true, true);
    let ds = material::material(&eval, m)
        .expect("decoded")
        .double_sided
        .expect("two sides");
    assert_eq!((ds.facing, ds.back), (Some(front), Some(other)));
    let prims = primitives_of_b(&eval);
    assert_sides(&prims, &name_of(&eval, front), &name_of(&eval, other));
}

/// B's six material-id groups each give two primitives: the faces with
/// `front`, then the same number of indices with `back`.
fn assert_sides(prims: &[(String, u64)], front: &str, back: &str) {
    assert_eq!(prims.len(), 12, "{prims:?}");
    for pair in prims.chunks_exact(2) {
        assert_eq!(
            (pair[0].0.as_str(), pair[1].0.as_str()),
            (front, back),
            "{prims:?}"
        );
        assert_eq!(
            pair[0].1, pair[1].1,
            "the same faces, turned over: {prims:?}"
        );
    }
}
