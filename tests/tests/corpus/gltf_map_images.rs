//! Maps on the slots the glTF export embeds as images (base colour,
//! emission) that give no image are named in the material's `extras`, the
//! warnings and `export/errors.txt`, never dropped silently; and V-Ray's
//! VRayBitmap gives its image like a Bitmap.
//!
//! - ik/ShoulderBone.max: "01 - Default" has a Gradient on its diffuse.
//! - compressed/roof_merge_M8.max: RGB Multiply maps (each combining two
//!   maps) on the diffuse of its roof materials.
//! - A VRayBitmap built through the writer on babylon/CubesImageFormat.max's
//!   node "B", in place of its Standard's diffuse Bitmap: its file name and
//!   mapping type as the 661 VRayBitmaps of the public sweeps store them
//!   (parameter 0, the name; 2, the mapping type 4 "3ds Max standard").

use std::path::Path;

use maxfs_fs::tree::{MaxFs, Options};
use maxfs_fs::views::material_view;
use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::render::material;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::corpus_dir;
use maxfs_tests::rewrite::SceneEdit;
use serde_json::Value;

use crate::eval_mr_materials::{block, scene, Scene, P};

/// `export/errors.txt` of corpus file `rel` through the virtual tree.
fn errors_txt(rel: &str) -> String {
    let path = corpus_dir().join("max").join(rel);
    let dir = path.parent().expect("a folder");
    let name = path.file_name().expect("a name");
    let tree = MaxFs::new(dir, Options::default());
    let bytes = tree
        .read(&Path::new(name).join("export/errors.txt"))
        .expect("errors.txt");
    String::from_utf8(bytes).expect("utf8")
}

#[test]
fn a_procedural_diffuse_map_is_named() {
    let errors = errors_txt("ik/ShoulderBone.max");
    assert!(
        errors.lines().any(|l| l.starts_with("gltf\t01 - Default\t")
            && l.contains("diffuse map \"Map #1\" (Gradient): a procedural map")),
        "{errors}"
    );
    let e = maxfs_tests::export_with_stand_in_images(&corpus_dir().join("max/ik/ShoulderBone.max"));
    let (json, _) = maxfs_exporters::gltf::glb::read(&e.glb).expect("glb");
    let g: Value = serde_json::from_slice(json).expect("json");
    let m = g["materials"]
        .as_array()
        .and_then(|a| a.iter().find(|m| m["name"] == "01 - Default"))
        .expect("01 - Default exported");
    assert!(m.get("pbrMetallicRoughness").is_some());
    let named = m["extras"]["textures_not_embedded"].to_string();
    assert!(named.contains("Gradient"), "{m}");
    assert!(
        e.warnings.iter().any(|w| w.contains("Gradient")),
        "{:?}",
        e.warnings
    );
}

#[test]
fn every_compositing_diffuse_map_of_a_node_material_is_named() {
    let rel = "compressed/roof_merge_M8.max";
    let eval = SceneEval::from_document(
        maxfs_scene::Document::open(&corpus_dir().join("max").join(rel)).expect("opens"),
    )
    .expect("scene");
    let views = material_view::materials_with_assets(&eval, &material::Assets::of(&eval.doc));
    let expected: Vec<&str> = views
        .iter()
        .filter(|m| !m.nodes.is_empty())
        .filter(|m| {
            m.maps.iter().any(|r| {
                r.slot == "diffuse" && r.enabled != Some(false) && r.class == "RGB Multiply"
            })
        })
        .map(|m| m.name.as_str())
        .collect();
    assert!(
        !expected.is_empty(),
        "roof_merge_M8 has RGB Multiply diffuse maps"
    );
    let errors = errors_txt(rel);
    for name in &expected {
        assert!(
            errors
                .lines()
                .any(|l| l.starts_with(&format!("gltf\t{name}\t"))
                    && l.contains("(RGB Multiply): a map combining 2 other maps")),
            "{name} not named:\n{errors}"
        );
    }
}

const VRAY_BITMAP: ClassId = ClassId(0x6769_144b, 0x02c1_017d);
const SC_TEXMAP: u32 = 0xc10;
const FILENAME: u16 = 9;
const INT: u16 = 1;
const FLOAT: u16 = 0;

/// A file-name parameter's payload: its length and UTF-16 text.
fn file_name(s: &str) -> Option<Vec<u8>> {
    let wide: Vec<u8> = s.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let mut p = (wide.len() as u32).to_le_bytes().to_vec();
    p.extend(wide);
    Some(p)
}

/// Node "B" of CubesImageFormat.max with a VRayBitmap of mapping type
/// `mapping` on its Standard's diffuse, naming B.jpg (the Bitmap's image).
/// Returns the scene and the VRayBitmap.
fn with_vray_bitmap(mapping: i32) -> (SceneEval, usize) {
    let Scene {
        mut edit,
        bitmap,
        template,
        ..
    } = scene();
    let (holder, slot) = holder_of(&edit, bitmap);
    let uvgen = edit.reference(bitmap, 0);
    let dll = edit.add_dll("V-Ray (synthetic)", "vrender.dlr");
    let cls = edit.add_class(dll, VRAY_BITMAP, SC_TEXMAP, "VRayBitmap");
    let pb2 = edit
        .class_index(crate::eval_mr_materials::PARAMBLOCK2)
        .expect("the file has ParamBlock2s");
    let values: Vec<P> = vec![
        (0, FILENAME, file_name("B.jpg")),
        (1, FLOAT, Some(1.0f32.to_le_bytes().to_vec())),
        (2, INT, Some(mapping.to_le_bytes().to_vec())),
    ];
    let pb = edit.add_object(pb2, block(template, &values));
    let name = Chunk::container(
        0x4000,
        vec![Chunk::leaf(
            0x4001,
            crate::eval_mr_materials::wide("Map #9"),
        )],
    );
    let vray = edit.add_object(cls, vec![name]);
    edit.append_reference(vray, pb as i32);
    edit.append_reference(vray, uvgen as i32);
    edit.set_reference(holder, slot, vray as i32);
    (
        SceneEval::from_document(edit.finish()).expect("scene"),
        vray,
    )
}

/// The object and reference slot that hold `target`.
fn holder_of(edit: &SceneEdit, target: usize) -> (usize, u32) {
    edit.graph
        .objects
        .iter()
        .find_map(|o| {
            o.references
                .iter()
                .find(|r| r.target == target as i32)
                .map(|r| (o.index, r.slot))
        })
        .expect("the Bitmap is referenced")
}

#[test]
fn a_vray_bitmap_is_the_texture_of_its_image() {
    let (eval, vray) = with_vray_bitmap(4);
    let assets = material::Assets::of(&eval.doc);
    let t = material::texmap(&eval, vray, &assets).expect("a texmap");
    assert_eq!(t.file.as_deref(), Some("B.jpg"), "{t:?}");
    assert!(t.errors.is_empty(), "{t:?}");
    assert!(t.uv.is_some(), "its Placement is its UV generator");
    let e = maxfs_tests::export_eval_with_stand_in_images(&eval);
    let (json, _) = maxfs_exporters::gltf::glb::read(&e.glb).expect("glb");
    let g: Value = serde_json::from_slice(json).expect("json");
    let textured = g["materials"]
        .as_array()
        .expect("materials")
        .iter()
        .filter(|m| m["pbrMetallicRoughness"]["baseColorTexture"].is_object())
        .count();
    assert!(textured >= 1, "{}", g["materials"]);
    assert!(
        !e.warnings.iter().any(|w| w.contains("Map #9")),
        "{:?}",
        e.warnings
    );

    // An environment projection (mapping type 0, spherical … ) is no surface
    // texture: named, not placed.
    let (eval, vray) = with_vray_bitmap(0);
    let t = material::texmap(&eval, vray, &material::Assets::of(&eval.doc)).expect("a texmap");
    assert!(t.file.is_none());
    let e = maxfs_tests::export_eval_with_stand_in_images(&eval);
    assert!(
        e.warnings
            .iter()
            .any(|w| w.contains("Map #9") && w.contains("mapping type 0")),
        "{:?}",
        e.warnings
    );
}
