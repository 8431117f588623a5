//! VRayMtl, VRayMtlWrapper and Raytrace through the scene and the glTF
//! export. The corpus holds none of them, so babylon/CubesImageFormat.max's
//! node "B" gets each built through the writer in the layouts of
//! scene/src/eval/render/vray.rs and raytrace.rs (pinned by public files:
//! 3ds Max's FBX export of LeadShuriken's 3dsMaxTestScene.max for V-Ray,
//! compared by `examples/vray_fbx_check.rs`), with values chosen here. The
//! expected glTF values follow the mapping of docs/gltf-export.md (roughness
//! = 1 − reflection glossiness, alpha = 1 − refraction colour mean, a
//! textured base keeps only the weight), not our earlier output.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::render::material::{self, SC_MATERIAL};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;

use crate::eval_mr_materials::{
    b, block, f, factor, gltf_material, near, rgb, scene, wide, Scene, BOOL, FLOAT, P, PARAMBLOCK2,
    RGBA, TEXMAP,
};

const VRAY_MTL: ClassId = ClassId(0x37bf_3f2f, 0x7034_695c);
const VRAY_WRAPPER: ClassId = ClassId(0x4095_17df, 0x3a5f_44b6);
const RAYTRACE: ClassId = ClassId(0x2719_0ff4, 0x329b_106e);
const RAYTRACE_TEXMAPS: ClassId = ClassId(0x3a13_795a, 0x3d7f_5059);
const PARAMBLOCK: ClassId = ClassId(0x8, 0);
const INT: u16 = 1;
const MTL: u16 = 14;

fn int(v: i32) -> Option<Vec<u8>> {
    Some(v.to_le_bytes().to_vec())
}

/// An object reference stored inline (V-Ray's texmaps and base material).
fn inline(idx: usize) -> Option<Vec<u8>> {
    int(idx as i32)
}

/// Diffuse (0.2, 0.4, 0.6), self-illumination off (black), reflection 0.5
/// grey at glossiness 0.8, refraction 0.25 grey, translucency off; the
/// diffuse map (100) on at 100 %, the bump slot (103) empty (−1, as V-Ray
/// stores one).
fn vray_values(bitmap: usize) -> (Vec<P>, Vec<P>) {
    let basic = vec![
        (1, RGBA, rgb([0.2, 0.4, 0.6])),
        (68, FLOAT, f(0.0)),
        (81, RGBA, rgb([0.0; 3])),
        (82, BOOL, b(true)),
        (83, FLOAT, f(1.0)),
        (2, RGBA, rgb([0.5; 3])),
        (3, FLOAT, f(0.8)),
        (62, FLOAT, f(1.0)),
        (5, RGBA, rgb([0.25; 3])),
        (6, FLOAT, f(1.0)),
        (9, FLOAT, f(1.6)),
        (25, INT, int(0)),
    ];
    let maps = vec![
        (100, TEXMAP, inline(bitmap)),
        (150, BOOL, b(true)),
        (200, FLOAT, f(100.0)),
        (103, TEXMAP, int(-1)),
        (153, BOOL, b(true)),
        (203, FLOAT, f(30.0)),
    ];
    (basic, maps)
}

/// Builds a VRayMtl (blocks on references 1 and 4, name in the 0x5431
/// header) and, when `wrap`, a VRayMtlWrapper around it on node "B".
/// Returns the scene, the material on the node, the VRayMtl and the bitmap.
fn with_vray(wrap: bool) -> (SceneEval, usize, usize, usize) {
    with_vray_values(wrap, |_, _, _| {})
}

/// [`with_vray`] with `tweak` applied to the basic and maps values (its
/// last argument: the bitmap).
fn with_vray_values(
    wrap: bool,
    tweak: impl Fn(&mut Vec<P>, &mut Vec<P>, usize),
) -> (SceneEval, usize, usize, usize) {
    let Scene {
        mut edit,
        node,
        bitmap,
        template,
        ..
    } = scene();
    let dll = edit.add_dll("V-Ray (synthetic)", "vrender.dlr");
    let cls = edit.add_class(dll, VRAY_MTL, SC_MATERIAL, "VRayMtl");
    let pb2 = edit.class_index(PARAMBLOCK2).expect("ParamBlock2 class");
    let (mut basic, mut maps) = vray_values(bitmap);
    tweak(&mut basic, &mut maps, bitmap);
    let basic = edit.add_object(pb2, block(template.clone(), &basic));
    let maps = edit.add_object(pb2, block(template.clone(), &maps));
    let header = Chunk::container(0x5431, vec![Chunk::leaf(0x4001, wide("VRay Synthetic"))]);
    let mtl = edit.add_object(cls, vec![header]);
    edit.append_reference(mtl, -1);
    edit.set_reference(mtl, 1, basic as i32);
    edit.set_reference(mtl, 4, maps as i32);
    edit.set_reference(mtl, 7, bitmap as i32);
    let on_node = if wrap {
        let wcls = edit.add_class(dll, VRAY_WRAPPER, SC_MATERIAL, "VRayMtlWrapper");
        let values: Vec<P> = vec![
            (0, MTL, inline(mtl)),
            (1, BOOL, b(false)),
            (8, BOOL, b(false)),
        ];
        let wpb = edit.add_object(pb2, block(template, &values));
        let header = Chunk::container(0x4000, vec![Chunk::leaf(0x4001, wide("Wrapper"))]);
        let w = edit.add_object(wcls, vec![header]);
        edit.append_reference(w, wpb as i32);
        edit.append_reference(w, mtl as i32);
        w
    } else {
        mtl
    };
    edit.set_reference(node, 3, on_node as i32);
    (
        SceneEval::from_document(edit.finish()).expect("scene"),
        on_node,
        mtl,
        bitmap,
    )
}

fn check_vray_gltf(eval: &SceneEval, mtl: usize) {
    let g = gltf_material(eval, mtl);
    // Textured: the factor keeps the weight (1); alpha 1 − 0.25.
    assert!(near(&factor(&g), &[1.0, 1.0, 1.0, 0.75]), "{g}");
    assert_eq!(g["alphaMode"], "BLEND", "{g}");
    assert!(
        g["pbrMetallicRoughness"]["baseColorTexture"].is_object(),
        "{g}"
    );
    let rough = g["pbrMetallicRoughness"]["roughnessFactor"].as_f64();
    assert!((rough.expect("roughness") - 0.2).abs() < 1e-6, "{g}");
    assert_eq!(
        g["pbrMetallicRoughness"]["metallicFactor"].as_f64(),
        Some(0.0),
        "{g}"
    );
}

#[test]
fn vray_mtl_values_maps_and_name() {
    let (eval, mtl, _, bitmap) = with_vray(false);
    let m = material::material(&eval, mtl).expect("material");
    assert_eq!(m.name, "VRay Synthetic");
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    let p = m.pbr.as_ref().expect("pbr");
    assert_eq!(p.base_color, Some([0.2, 0.4, 0.6]));
    assert!(
        m.maps
            .iter()
            .any(|r| r.slot == "base_color" && r.texmap == bitmap && r.enabled == Some(true)),
        "{:?}",
        m.maps
    );
    // The black bump slot is empty, not a map.
    assert!(!m.maps.iter().any(|r| r.slot == "bump"), "{:?}", m.maps);
    // The grey reflection has no glTF counterpart beyond its glossiness.
    let classes = material::undecoded_classes(&eval, mtl);
    assert!(
        classes.len() == 1 && classes[0].starts_with("VRayMtl (partially: reflection colour"),
        "{classes:?}"
    );
    check_vray_gltf(&eval, mtl);
}

#[test]
fn vray_wrapper_renders_its_base() {
    let (eval, wrapper, _, _) = with_vray(true);
    let m = material::material(&eval, wrapper).expect("material");
    assert_eq!(m.name, "Wrapper");
    assert_eq!(m.class, "VRayMtlWrapper");
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    assert_eq!(
        m.pbr.as_ref().and_then(|p| p.base_color),
        Some([0.2, 0.4, 0.6])
    );
    check_vray_gltf(&eval, wrapper);
}

/// The node's Bitmap as the reflection glossiness map (104, on, at
/// `amount` %), the reflection colour `reflection`.
fn with_glossiness_map(amount: f32, reflection: [f32; 3]) -> (SceneEval, usize) {
    let (eval, mtl, _, _) = with_vray_values(false, |basic, maps, bitmap| {
        for v in basic.iter_mut().filter(|v| v.0 == 2) {
            v.2 = rgb(reflection);
        }
        maps.extend([
            (104, TEXMAP, inline(bitmap)),
            (154, BOOL, b(true)),
            (204, FLOAT, f(amount)),
        ]);
    });
    (eval, mtl)
}

/// A glossiness map drives glTF's roughness as Physical's inverted
/// roughness map does: packed into the metallic-roughness image (the
/// factor 1, the texels 255 − glossiness). Below 100 % V-Ray blends it
/// with the value: named. Without a glossy reflection it changes nothing.
#[test]
fn vray_glossiness_map_is_the_inverted_roughness_map() {
    let (eval, mtl) = with_glossiness_map(100.0, [0.5; 3]);
    let m = material::material(&eval, mtl).expect("material");
    assert_eq!(m.pbr.as_ref().and_then(|p| p.roughness_inv), Some(true));
    assert!(
        m.maps
            .iter()
            .any(|r| r.slot == "roughness" && r.enabled == Some(true)),
        "{:?}",
        m.maps
    );
    let classes = material::undecoded_classes(&eval, mtl);
    assert!(
        classes.iter().all(|c| !c.contains("glossiness map")),
        "{classes:?}"
    );
    let g = gltf_material(&eval, mtl);
    let pmr = &g["pbrMetallicRoughness"];
    assert!(pmr["metallicRoughnessTexture"].is_object(), "{g}");
    assert_eq!(pmr["roughnessFactor"].as_f64(), Some(1.0), "{g}");
    assert_eq!(pmr["metallicFactor"].as_f64(), Some(0.0), "{g}");

    let (eval, mtl) = with_glossiness_map(50.0, [0.5; 3]);
    let classes = material::undecoded_classes(&eval, mtl);
    assert!(
        classes
            .iter()
            .any(|c| c
                .contains("reflection_glossiness map at 50% (blended with the value Some(0.8)")),
        "{classes:?}"
    );

    // Black reflection, no reflection map: no glossy reflection to shape.
    let (eval, mtl) = with_glossiness_map(100.0, [0.0; 3]);
    let m = material::material(&eval, mtl).expect("material");
    assert_eq!(m.pbr.as_ref().and_then(|p| p.roughness_inv), Some(false));
    assert!(
        m.maps.iter().any(|r| r.slot == "reflection_glossiness"),
        "{:?}",
        m.maps
    );
    assert!(material::undecoded_classes(&eval, mtl).is_empty());
    let g = gltf_material(&eval, mtl);
    assert!(
        g["pbrMetallicRoughness"]["metallicRoughnessTexture"].is_null(),
        "{g}"
    );
    assert_eq!(
        g["pbrMetallicRoughness"]["roughnessFactor"].as_f64(),
        Some(1.0),
        "{g}"
    );
}

/// An old ParamBlock parameter: index and value chunk.
fn old_param(index: i32, value: Chunk) -> Chunk {
    Chunk::container(
        0x0002,
        vec![Chunk::leaf(0x0003, index.to_le_bytes().to_vec()), value],
    )
}

fn old_colour(c: [f32; 3]) -> Chunk {
    Chunk::leaf(
        0x0102,
        c.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
    )
}

fn old_float(v: f32) -> Chunk {
    Chunk::leaf(0x0100, v.to_le_bytes().to_vec())
}

fn old_int(v: i32) -> Chunk {
    Chunk::leaf(0x0101, v.to_le_bytes().to_vec())
}

/// Raytrace: diffuse (0.8, 0.1, 0.1), luminosity colour (0.1, 0.2, 0.3)
/// with its switch on, transparency amount 0.3 with its switch off, no
/// reflection; the node's Bitmap on map 1 (diffuse).
#[test]
fn raytrace_values_and_diffuse_map() {
    let Scene {
        mut edit,
        node,
        bitmap,
        ..
    } = scene();
    let dll = edit.add_dll("Raytrace (synthetic)", "raytracemtl.dlt");
    let cls = edit.add_class(dll, RAYTRACE, SC_MATERIAL, "Raytrace");
    let tcls = edit.add_class(dll, RAYTRACE_TEXMAPS, 0x100, "Texmaps");
    let pcls = edit
        .class_index_of(PARAMBLOCK, 0x8)
        .unwrap_or_else(|| edit.add_class(-1, PARAMBLOCK, 0x8, "ParamBlock"));
    let values = [
        old_colour([0.0; 3]),
        old_float(0.0),
        old_int(1),
        old_colour([0.8, 0.1, 0.1]),
        old_colour([0.0; 3]),
        old_float(0.0),
        old_int(1),
        old_colour([0.1, 0.2, 0.3]),
        old_float(0.0),
        old_int(1),
        old_colour([0.0; 3]),
        old_float(0.3),
        old_int(0),
        old_float(1.5),
        old_colour([1.0; 3]),
        old_float(0.5),
    ];
    let mut chunks = vec![Chunk::leaf(
        0x0001,
        (values.len() as u32).to_le_bytes().to_vec(),
    )];
    chunks.extend(
        values
            .into_iter()
            .enumerate()
            .map(|(k, v)| old_param(k as i32, v)),
    );
    let pb = edit.add_object(pcls, chunks);
    let tm = edit.add_object(tcls, Vec::new());
    edit.append_reference(tm, -1);
    edit.set_reference(tm, 3, bitmap as i32);
    let header = Chunk::container(0x4000, vec![Chunk::leaf(0x4001, wide("Ray"))]);
    let mtl = edit.add_object(cls, vec![header]);
    edit.append_reference(mtl, pb as i32);
    edit.append_reference(mtl, tm as i32);
    edit.set_reference(node, 3, mtl as i32);
    let eval = SceneEval::from_document(edit.finish()).expect("scene");

    let m = material::material(&eval, mtl).expect("material");
    assert_eq!(m.name, "Ray");
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    assert_eq!(m.diffuse, Some([0.8, 0.1, 0.1]));
    assert!((m.opacity.expect("opacity") - 0.7).abs() < 1e-6);
    assert_eq!(m.self_illum_color, Some([0.1, 0.2, 0.3]));
    assert!(
        m.maps
            .iter()
            .any(|r| r.slot == "diffuse" && r.texmap == bitmap),
        "{:?}",
        m.maps
    );
    let classes = material::undecoded_classes(&eval, mtl);
    assert!(
        classes.len() == 1 && classes[0].starts_with("Raytrace (partially:"),
        "{classes:?}"
    );
    let g = gltf_material(&eval, mtl);
    assert!(near(&factor(&g), &[1.0, 1.0, 1.0, 0.7]), "{g}");
    assert_eq!(g["alphaMode"], "BLEND", "{g}");
    let e: Vec<f64> = g["emissiveFactor"]
        .as_array()
        .expect("emissive")
        .iter()
        .filter_map(serde_json::Value::as_f64)
        .collect();
    assert!(near(&e, &[0.1, 0.2, 0.3]), "{g}");
}
