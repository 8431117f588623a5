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
    let g = maxfs_tests::gltf_json(&e.glb);
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
    let g = maxfs_tests::gltf_json(&e.glb);
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

const NORMAL_BUMP: ClassId = ClassId(0x243e_22c6, 0x63f6_a014);

/// A Standard's bump slot holding a Normal Bump (node "B" of
/// CubesImageFormat.max, the Normal Bump built through the writer around the
/// Standard's own diffuse Bitmap): the Bitmap is the glTF normal texture,
/// scaled by the slot's stored amount, as Physical Material's bump is. The
/// Standard's other maps the glTF cannot carry are named: roof_merge_M8's
/// glossiness Bitmaps and height bumps.
#[test]
fn a_standard_normal_bump_is_the_normal_texture_and_other_maps_are_named() {
    let Scene {
        mut edit,
        standard,
        bitmap,
        ..
    } = scene();
    let (texmaps, diffuse_slot) = holder_of(&edit, bitmap);
    assert_eq!(diffuse_slot, 3, "the diffuse is Texmaps slot 2·1 + 1");
    let dll = edit.add_dll("Normal Bump (synthetic)", "mtlgen.dlt");
    let cls = edit.add_class(dll, NORMAL_BUMP, SC_TEXMAP, "Normal Bump");
    let name = Chunk::container(
        0x4000,
        vec![Chunk::leaf(
            0x4001,
            crate::eval_mr_materials::wide("Map #8"),
        )],
    );
    let nb = edit.add_object(cls, vec![name]);
    edit.append_reference(nb, bitmap as i32);
    // Bump is Standard map 8: Texmaps slot 2·8 + 1, enabled in the maps
    // block (the Standard's ParamBlock2 of block id 3, parameter 0).
    edit.set_reference(texmaps, 17, nb as i32);
    let blocks: Vec<usize> = edit.graph.objects[standard]
        .references
        .iter()
        .filter_map(|r| usize::try_from(r.target).ok())
        .collect();
    let maps_block = blocks
        .into_iter()
        .find(|&b| block_id(&mut edit, b) == Some(3))
        .expect("the Standard's maps block");
    edit.set_pb2_tab_word(maps_block, 0, 8, 1u32.to_le_bytes());
    let eval = SceneEval::from_document(edit.finish()).expect("scene");
    let m = material::material(&eval, standard).expect("material");
    let bump = m
        .maps
        .iter()
        .find(|r| r.slot == "bump")
        .unwrap_or_else(|| panic!("no bump map: {:?}", m.maps));
    assert_ne!(bump.enabled, Some(false), "{bump:?}");
    let amount = f64::from(bump.amount.expect("Standard stores its map amounts"));
    let e = maxfs_tests::export_eval_with_stand_in_images(&eval);
    let g = maxfs_tests::gltf_json(&e.glb);
    let gm = g["materials"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["name"] == m.name.as_str()))
        .expect("the Standard is exported");
    let scale = gm["normalTexture"]["scale"].as_f64();
    let scale = scale.unwrap_or_else(|| panic!("no normal texture: {gm} {:?}", e.warnings));
    assert!((scale - amount).abs() < 1e-6, "{gm}");

    let e = maxfs_tests::export_with_stand_in_images(
        &corpus_dir().join("max/compressed/roof_merge_M8.max"),
    );
    for what in [
        "glossiness map not exported",
        "bump map of class \"Bitmap\"",
    ] {
        assert!(
            e.gaps().any(|w| w.contains(what)),
            "{what} not named: {:?}",
            e.warnings
        );
    }
}

/// The block id of ParamBlock2 `idx` (its 0x0009 header: u32 version, u16
/// block id).
fn block_id(edit: &mut SceneEdit, idx: usize) -> Option<u16> {
    let chunks = edit.object_chunks(idx);
    let h = chunks.iter().find(|c| c.id == 0x0009)?;
    let p = h.payload()?;
    Some(u16::from_le_bytes([*p.get(4)?, *p.get(5)?]))
}
