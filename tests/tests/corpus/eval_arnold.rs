//! Arnold Standard Surface (MAXtoA) through the scene and the glTF export.
//! The corpus has no Standard Surface, so babylon/CubesImageFormat.max's node
//! "B" gets one built through the writer the way MAXtoA saves it
//! (docs/max-format.md): a material whose reference 0 holds the "parameters"
//! group of aiPBParameter objects, with the values of Babylon's public
//! BabylonMaterialAttributes/TransparencyMode/Mask.max — base 0.8, base_color
//! (0, 0, 1), specular_roughness 0.1, metalness 0 and the node's own Bitmap
//! wired to opacity. Babylon's exporter wrote that material as
//! baseColorFactor (0, 0, 0.8), roughnessFactor 0.1, metallicFactor 0, MASK:
//! the expected values.

use maxfs_fs::views::material_view;
use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::render::material::{self, SC_MATERIAL};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;
use serde_json::Value;

const STANDARD_SURFACE: ClassId = ClassId(0x7e73_161f, 0x62f7_4b4c);
const AI_PARAMETER: ClassId = ClassId(0x38e6_7d6e, 0x3de3_000e);
const PARAMBLOCK2: ClassId = ClassId(0x82, 0);

fn wide(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// An aiPBParameter's chunks: name, type, count, values (one, no controller).
fn parameter(name: &str, ty: u32, value: Vec<u8>) -> Vec<Chunk> {
    vec![
        Chunk::leaf(0x0001, wide(name)),
        Chunk::leaf(0x0002, ty.to_le_bytes().to_vec()),
        Chunk::leaf(0x0009, 0u32.to_le_bytes().to_vec()),
        Chunk::container(
            0x0003,
            vec![
                Chunk::leaf(0x0004, 1u32.to_le_bytes().to_vec()),
                Chunk::leaf(0x0005, (-1i32).to_le_bytes().to_vec()),
                Chunk::leaf(0x0006, value),
            ],
        ),
    ]
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// CubesImageFormat.max with node "B" on a Standard Surface; returns the
/// evaluation, the material's object index and the wired Bitmap's.
fn with_standard_surface(opacity_wired: bool) -> (SceneEval, usize, usize) {
    let mut e = SceneEdit::open("max/babylon/CubesImageFormat.max");
    let node = e.node("B");
    let standard = e.reference(node, 3);
    // The Standard's diffuse Bitmap, through its Texmaps container.
    let bitmap = {
        let path = maxfs_tests::corpus_dir().join("max/babylon/CubesImageFormat.max");
        let doc = maxfs_scene::Document::open(&path).expect("opens");
        let eval = SceneEval::from_document(doc).expect("scene");
        let m = material::material(&eval, standard).expect("material");
        m.maps.first().expect("a map").texmap
    };
    let dll = e.add_dll(
        "Arnold Shaders Loader (synthetic)",
        "arnoldshadersloader.gup",
    );
    let surface = e.add_class(dll, STANDARD_SURFACE, SC_MATERIAL, "Standard Surface");
    let ai = e.add_class(dll, AI_PARAMETER, 0x200, "aiPBParameter");
    let pb2 = e
        .class_index(PARAMBLOCK2)
        .unwrap_or_else(|| e.add_class(-1, PARAMBLOCK2, 0x82, "ParamBlock2"));
    let mut refs = vec![
        e.add_object(ai, parameter("base", 0, floats(&[0.8]))),
        e.add_object(ai, parameter("base_color", 2, floats(&[0.0, 0.0, 1.0]))),
        e.add_object(ai, parameter("specular_roughness", 0, floats(&[0.1]))),
        e.add_object(ai, parameter("metalness", 0, floats(&[0.0]))),
        e.add_object(ai, parameter("opacity", 2, floats(&[1.0, 1.0, 1.0]))),
        e.add_object(
            ai,
            parameter("opacity.connected", 4, 1u32.to_le_bytes().to_vec()),
        ),
    ];
    if opacity_wired {
        let shader = e.add_object(
            ai,
            parameter("opacity.shader", 15, (bitmap as u32).to_le_bytes().to_vec()),
        );
        e.append_reference(shader, bitmap as i32);
        refs.push(shader);
    }
    let group = e.add_object(ai, parameter("parameters", 21, Vec::new()));
    for r in refs {
        e.append_reference(group, r as i32);
    }
    let block = e.add_object(pb2, Vec::new());
    e.append_reference(block, group as i32);
    let name = Chunk::container(0x0100, vec![Chunk::leaf(0x4001, wide("Surface"))]);
    let mtl = e.add_object(surface, vec![name]);
    e.append_reference(mtl, block as i32);
    e.set_reference(node, 3, mtl as i32);
    let eval = SceneEval::from_document(e.finish()).expect("scene");
    (eval, mtl, bitmap)
}

fn gltf_material(eval: &SceneEval, mtl: usize) -> Value {
    let search = maxfs_exporters::gltf::TextureSearch::default();
    let (ms, _) = maxfs_exporters::gltf::materials_only(eval, &search, &[mtl]);
    serde_json::to_value(ms[0].clone().expect("a material")).expect("json")
}

#[test]
fn standard_surface_is_exported_as_babylon_did() {
    for wired in [false, true] {
        let (eval, mtl, bitmap) = with_standard_surface(wired);
        let m = material::material(&eval, mtl).expect("material");
        assert_eq!(m.class, "Standard Surface");
        assert!(m.errors.is_empty(), "{:?}", m.errors);
        assert!(material::undecoded_classes(&eval, mtl).is_empty());
        let g = gltf_material(&eval, mtl);
        let pbr = &g["pbrMetallicRoughness"];
        let base: Vec<f64> = pbr["baseColorFactor"]
            .as_array()
            .expect("factor")
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        for (ours, babylon) in base.iter().zip([0.0, 0.0, 0.8, 1.0]) {
            assert!((ours - babylon).abs() < 1e-6, "{g}");
        }
        let rough = pbr["roughnessFactor"].as_f64().expect("roughness");
        assert!((rough - 0.1).abs() < 1e-6, "{g}");
        assert_eq!(pbr["metallicFactor"].as_f64().unwrap_or(0.0), 0.0, "{g}");
        let mode = if wired { "MASK" } else { "OPAQUE" };
        assert_eq!(g["alphaMode"], mode, "{g}");
        // The view names the node's Bitmap (B.jpg) on the cutout slot.
        let view = material_view::materials_with_assets(&eval, &material::Assets::of(&eval.doc));
        let v = view.iter().find(|v| v.index == mtl).expect("in the view");
        assert_eq!(v.nodes, vec!["B".to_string()]);
        assert_eq!(
            v.maps.iter().any(|r| r.slot == "cutout"
                && r.texmap == bitmap
                && r.file.as_deref() == Some("B.jpg")),
            wired,
            "{:?}",
            v.maps
        );
    }
}

/// A Standard Surface whose block lost its parameter group is named, not
/// exported with defaults silently.
#[test]
fn a_standard_surface_without_its_parameters_is_named() {
    let mut e = SceneEdit::open("max/babylon/CubesImageFormat.max");
    let node = e.node("B");
    let dll = e.add_dll(
        "Arnold Shaders Loader (synthetic)",
        "arnoldshadersloader.gup",
    );
    let surface = e.add_class(dll, STANDARD_SURFACE, SC_MATERIAL, "Standard Surface");
    let mtl = e.add_object(surface, Vec::new());
    e.set_reference(node, 3, mtl as i32);
    let eval = SceneEval::from_document(e.finish()).expect("scene");
    let m = material::material(&eval, mtl).expect("material");
    assert!(m.pbr.is_none());
    assert!(
        m.errors.iter().any(|x| x.contains("reference 0")),
        "{:?}",
        m.errors
    );
    assert_eq!(
        material::undecoded_classes(&eval, mtl),
        vec!["Standard Surface".to_string()]
    );
}
