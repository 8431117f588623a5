//! Arch & Design, Architectural and the Strauss shader through the scene and
//! the glTF export. The corpus holds none of them, so babylon/
//! CubesImageFormat.max's node "B" gets each built through the writer with
//! the values stored in public files (aintech/BitDefence AntiMateriel_1.max's
//! "11 - Default" and "Material #2", AmirHosein-Vahed/3DMax "page 3view.max",
//! danieldownes/ReptonReturns' intro scene). The expected glTF values are
//! those stored values under the mapping rule of docs/gltf-export.md
//! (roughness = 1 − glossiness, alpha = 1 − transparency, a textured base
//! colour keeps only the weight), not our earlier output.

use maxfs_fs::views::material_view;
use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::render::material::{self, SC_MATERIAL};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;
use serde_json::Value;

const ARCH_DESIGN: ClassId = ClassId(0x70b0_5735, 0x4a16_3654);
const ARCHITECTURAL: ClassId = ClassId(0x13d1_1bbe, 0x691e_3037);
const STRAUSS: ClassId = ClassId(0x2857_f450, 0);
pub(crate) const PARAMBLOCK2: ClassId = ClassId(0x82, 0);

pub(crate) const FLOAT: u16 = 0;
pub(crate) const RGBA: u16 = 2;
pub(crate) const BOOL: u16 = 4;
const PCNT: u16 = 6;
pub(crate) const TEXMAP: u16 = 15;
const FRGBA: u16 = 0x17;

/// One parameter: id, type, constant payload (None: a texmap owning the
/// block's next reference slot).
pub(crate) type P = (u16, u16, Option<Vec<u8>>);

pub(crate) fn f(v: f32) -> Option<Vec<u8>> {
    Some(v.to_le_bytes().to_vec())
}

pub(crate) fn rgb(v: [f32; 3]) -> Option<Vec<u8>> {
    Some(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

/// An fRGBA value: four floats, alpha 1.
fn frgba(v: [f32; 3]) -> Option<Vec<u8>> {
    Some(
        [v[0], v[1], v[2], 1.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect(),
    )
}

pub(crate) fn b(v: bool) -> Option<Vec<u8>> {
    Some(u32::from(v).to_le_bytes().to_vec())
}

pub(crate) fn wide(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// A ParamBlock2 from `template` (a real block's chunks) holding `values`.
pub(crate) fn block(template: Vec<Chunk>, values: &[P]) -> Vec<Chunk> {
    let values: Vec<(u16, u16, Option<&[u8]>)> = values
        .iter()
        .map(|(id, ty, p)| (*id, *ty, p.as_deref()))
        .collect();
    maxfs_tests::rewrite::param_block2_with(template, None, &values)
}

pub(crate) struct Scene {
    pub(crate) edit: SceneEdit,
    pub(crate) node: usize,
    pub(crate) standard: usize,
    pub(crate) bitmap: usize,
    pub(crate) template: Vec<Chunk>,
}

pub(crate) fn scene() -> Scene {
    let mut edit = SceneEdit::open("max/babylon/CubesImageFormat.max");
    let node = edit.node("B");
    let standard = edit.reference(node, 3);
    let bitmap = {
        let path = maxfs_tests::corpus_dir().join("max/babylon/CubesImageFormat.max");
        let doc = maxfs_scene::Document::open(&path).expect("opens");
        let eval = SceneEval::from_document(doc).expect("scene");
        let m = material::material(&eval, standard).expect("material");
        m.maps.first().expect("a map").texmap
    };
    let shader = edit.reference(standard, 2);
    let pb = edit.reference(shader, 0);
    let template = edit.object_chunks(pb);
    Scene {
        edit,
        node,
        standard,
        bitmap,
        template,
    }
}

/// Puts a material of `class` with one block of `values` on node "B"; the
/// texmap parameters take the node's Bitmap.
fn with_material(class: ClassId, name: &str, values: &[P]) -> (SceneEval, usize, usize) {
    let dll = ("mental ray materials (synthetic)", "mrmaterialattribs.dlt");
    with_material_of(dll, class, name, (0x4000, "Synthetic"), values)
}

/// Puts a material of `class` (its plug-in `dll`: description, file) with one
/// block of `values` on node "B", named by `header` (the material's name
/// chunk and the name); the texmap parameters take the node's Bitmap.
/// Returns the scene, the material and the Bitmap.
pub(crate) fn with_material_of(
    dll: (&str, &str),
    class: ClassId,
    class_name: &str,
    header: (u16, &str),
    values: &[P],
) -> (SceneEval, usize, usize) {
    let Scene {
        mut edit,
        node,
        bitmap,
        template,
        ..
    } = scene();
    let dll = edit.add_dll(dll.0, dll.1);
    let cls = edit.add_class(dll, class, SC_MATERIAL, class_name);
    let pb2 = edit
        .class_index(PARAMBLOCK2)
        .unwrap_or_else(|| edit.add_class(-1, PARAMBLOCK2, 0x82, "ParamBlock2"));
    let pb = edit.add_object(pb2, block(template, values));
    for _ in values.iter().filter(|v| v.2.is_none()) {
        edit.append_reference(pb, bitmap as i32);
    }
    let name = Chunk::container(header.0, vec![Chunk::leaf(0x4001, wide(header.1))]);
    let mtl = edit.add_object(cls, vec![name]);
    edit.append_reference(mtl, pb as i32);
    edit.set_reference(node, 3, mtl as i32);
    (
        SceneEval::from_document(edit.finish()).expect("scene"),
        mtl,
        bitmap,
    )
}

/// The glTF material, its images stood in for (the corpus holds none).
pub(crate) fn gltf_material(eval: &SceneEval, mtl: usize) -> Value {
    gltf_material_and_warnings(eval, mtl).0
}

/// The glTF material and the export's warnings.
fn gltf_material_and_warnings(eval: &SceneEval, mtl: usize) -> (Value, Vec<String>) {
    let dir = maxfs_tests::stand_in_images(eval);
    let search = maxfs_exporters::gltf::TextureSearch {
        max_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let (ms, warnings) = maxfs_exporters::gltf::materials_only(eval, &search, &[mtl]);
    let g = serde_json::to_value(ms[0].clone().expect("a material")).expect("json");
    (g, warnings)
}

pub(crate) fn factor(g: &Value) -> Vec<f64> {
    g["pbrMetallicRoughness"]["baseColorFactor"]
        .as_array()
        .expect("factor")
        .iter()
        .filter_map(Value::as_f64)
        .collect()
}

pub(crate) fn near(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
}

/// "11 - Default": diffuse 128 grey, weight 1, glossiness 0.1, refraction
/// weight 0 — and in a second build "Material #2"'s enabled mapM0 (the
/// node's Bitmap in place of its Text_BG.png) with a transparency of 0.5.
#[test]
fn arch_design_values_and_diffuse_map() {
    let grey = 128.0 / 255.0;
    let plain: Vec<P> = vec![
        (0, FRGBA, frgba([grey; 3])),
        (1, FLOAT, f(0.2)),
        (2, FLOAT, f(1.0)),
        (6, FLOAT, f(0.1)),
        (11, FLOAT, f(0.3)),
        (20, FLOAT, f(0.0)),
        (300, BOOL, b(false)),
    ];
    let (eval, mtl, _) = with_material(ARCH_DESIGN, "Arch & Design", &plain);
    let m = material::material(&eval, mtl).expect("material");
    assert_eq!(m.name, "Synthetic");
    assert!(m.errors.is_empty() && m.unmapped.is_empty(), "{m:?}");
    assert!(material::undecoded_classes(&eval, mtl).is_empty());
    let g = gltf_material(&eval, mtl);
    let g_grey = f64::from(grey);
    assert!(near(&factor(&g), &[g_grey, g_grey, g_grey, 1.0]), "{g}");
    let rough = g["pbrMetallicRoughness"]["roughnessFactor"].as_f64();
    assert!((rough.expect("roughness") - 0.9).abs() < 1e-6, "{g}");
    assert_eq!(g["alphaMode"], "OPAQUE", "{g}");

    let mut mapped = plain.clone();
    mapped[5] = (20, FLOAT, f(0.5));
    mapped.push((120, TEXMAP, None));
    mapped.push((150, BOOL, b(true)));
    let (eval, mtl, bitmap) = with_material(ARCH_DESIGN, "Arch & Design", &mapped);
    let g = gltf_material(&eval, mtl);
    // Textured: the factor keeps the diffuse weight (1) and the alpha 1 − 0.5.
    assert!(near(&factor(&g), &[1.0, 1.0, 1.0, 0.5]), "{g}");
    assert_eq!(g["alphaMode"], "BLEND", "{g}");
    assert!(
        g["pbrMetallicRoughness"]["baseColorTexture"].is_object(),
        "{g}"
    );
    let view = material_view::materials_with_assets(&eval, &material::Assets::of(&eval.doc));
    let v = view.iter().find(|v| v.index == mtl).expect("in the view");
    assert!(
        v.maps.iter().any(|r| r.slot == "base_color"
            && r.texmap == bitmap
            && r.enabled == Some(true)
            && r.file.as_deref() == Some("B.jpg")),
        "{:?}",
        v.maps
    );
}

/// The 24 texmap parameters (120‥143, slots 0‥23, every one the node's
/// Bitmap) with the on-flags (150‥173) of `on` set and the others off.
fn arch_design_maps(on: &[u16]) -> Vec<P> {
    let mut values = Vec::new();
    for k in 0..24 {
        values.push((120 + k, TEXMAP, None));
    }
    for k in 0..24 {
        values.push((150 + k, BOOL, b(on.contains(&k))));
    }
    values
}

/// fibll/CG's Arch & Design materials (public; Stone1.max "01 - Default"):
/// the diffuse Bitmap also on mapM2 and mapM17, bump amount (197) 0.8,
/// reflection glossiness 0.3. By the block's public parameter order mapM2 is
/// refl_color_map and mapM17 bump_map: the reflection colour map is named as
/// not exported, the bump takes its amount, and a plain Bitmap on the bump
/// (a height bump) gives no glTF normal texture but a named warning.
#[test]
fn arch_design_maps_by_name_and_bump_amount() {
    let mut values: Vec<P> = vec![
        (0, FRGBA, frgba([0.5; 3])),
        (2, FLOAT, f(1.0)),
        (6, FLOAT, f(0.3)),
        (197, FLOAT, f(0.8)),
    ];
    values.extend(arch_design_maps(&[0, 2, 17]));
    let (eval, mtl, bitmap) = with_material(ARCH_DESIGN, "Arch & Design", &values);
    let m = material::material(&eval, mtl).expect("material");
    let on: Vec<(&str, Option<f32>)> = m
        .maps
        .iter()
        .filter(|r| r.enabled == Some(true))
        .map(|r| (r.slot.as_str(), r.amount))
        .collect();
    assert_eq!(
        on,
        [
            ("base_color", None),
            ("refl_color", None),
            ("bump", Some(0.8))
        ],
        "{:?}",
        m.maps
    );
    assert!(m.maps.iter().all(|r| r.texmap == bitmap));
    assert!(m.maps.iter().any(|r| r.slot == "self_illum"));
    assert_eq!(m.unmapped, ["refl_color map (not exported)"], "{m:?}");
    let (g, warnings) = gltf_material_and_warnings(&eval, mtl);
    assert!(g.get("normalTexture").is_none(), "{g}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("bump map of class \"Bitmap\"")),
        "{warnings:?}"
    );
}

/// max2024-rico's NewModularWallWindowCorner.max and the Normal Bump on
/// its "Material #2"'s bump slot.
fn rico_normal_bump() -> (&'static str, usize) {
    let rel = "max/max2024-rico/NewModularWallWindowCorner.max";
    let eval = SceneEval::from_document(
        maxfs_scene::Document::open(&maxfs_tests::corpus_dir().join(rel)).expect("opens"),
    )
    .expect("scene");
    let all = material_view::materials_with_assets(&eval, &material::Assets::of(&eval.doc));
    let normal_bump = all
        .iter()
        .find(|m| m.name == "Material #2")
        .and_then(|m| m.maps.iter().find(|r| r.slot == "bump"))
        .expect("Material #2 has a bump map")
        .texmap;
    (rel, normal_bump)
}

/// Puts an Arch & Design of one block of `values` (its 24 texmap slots
/// empty but mapM17, the bump, which is `bump`) on `node`; returns it.
fn arch_design_with_bump(
    edit: &mut SceneEdit,
    node: usize,
    template: Vec<Chunk>,
    values: &[P],
    bump: usize,
) -> usize {
    let dll = edit.add_dll("mental ray materials (synthetic)", "mrmaterialattribs.dlt");
    let cls = edit.add_class(dll, ARCH_DESIGN, SC_MATERIAL, "Arch & Design");
    let pb2 = edit
        .class_index(PARAMBLOCK2)
        .unwrap_or_else(|| edit.add_class(-1, PARAMBLOCK2, 0x82, "ParamBlock2"));
    let pb = edit.add_object(pb2, block(template, values));
    for k in 0..24 {
        edit.append_reference(pb, if k == 17 { bump as i32 } else { -1 });
    }
    let name = Chunk::container(0x4000, vec![Chunk::leaf(0x4001, wide("Synthetic"))]);
    let mtl = edit.add_object(cls, vec![name]);
    edit.append_reference(mtl, pb as i32);
    edit.set_reference(node, 3, mtl as i32);
    mtl
}

/// The same bump slot holding the Normal Bump of max2024-rico's
/// NewModularWallWindowCorner.max ("Material #2"; the material is built in
/// that file, on WallWindowCorner01): its normal Bitmap is the glTF normal
/// texture, scaled by the bump amount 0.44 (fibll's other stored value).
#[test]
fn arch_design_normal_bump_is_the_normal_texture() {
    let (rel, normal_bump) = rico_normal_bump();
    let mut edit = SceneEdit::open(rel);
    let node = edit.node("WallWindowCorner01");
    let template = edit.pb2_template();
    let mut values: Vec<P> = vec![(0, FRGBA, frgba([0.5; 3])), (197, FLOAT, f(0.44))];
    values.extend(arch_design_maps(&[17]));
    let mtl = arch_design_with_bump(&mut edit, node, template, &values, normal_bump);
    let eval = SceneEval::from_document(edit.finish()).expect("scene");
    let m = material::material(&eval, mtl).expect("material");
    assert!(m.unmapped.is_empty(), "{m:?}");
    let (g, warnings) = gltf_material_and_warnings(&eval, mtl);
    let scale = g["normalTexture"]["scale"].as_f64();
    let scale = scale.unwrap_or_else(|| panic!("no normal texture: {g} {warnings:?}"));
    assert!((scale - 0.44).abs() < 1e-6, "{g}");
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// A Bitmap naming its image by an asset the file's asset table does not
/// hold (NewModularWallWindowCorner's normal Bitmap copied into another
/// file) is named in the texmap's errors and in the glTF warnings, not
/// dropped.
#[test]
fn a_bitmap_asset_missing_from_the_table_is_named() {
    let (rel, normal_bump) = rico_normal_bump();
    let Scene {
        mut edit,
        node,
        template,
        ..
    } = scene();
    let mut src = SceneEdit::open(rel);
    let copied = edit.transplant(&mut src, normal_bump)[0].1;
    let mut values: Vec<P> = vec![(0, FRGBA, frgba([0.5; 3]))];
    values.extend(arch_design_maps(&[17]));
    let mtl = arch_design_with_bump(&mut edit, node, template, &values, copied);
    let eval = SceneEval::from_document(edit.finish()).expect("scene");
    let assets = material::Assets::of(&eval.doc);
    let bump = material::texmap(&eval, copied, &assets).expect("a texmap");
    let bitmap = material::texmap(&eval, bump.sub_maps[0], &assets).expect("its Bitmap");
    assert!(bitmap.file.is_none());
    assert!(
        bitmap.errors.iter().any(|e| e.contains("asset table")),
        "{bitmap:?}"
    );
    let search = maxfs_exporters::gltf::TextureSearch::default();
    let (_, warnings) = maxfs_exporters::gltf::materials_only(&eval, &search, &[mtl]);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("bump map") && w.contains("asset table")),
        "{warnings:?}"
    );
}

/// The highlights-only flag (9) set is named, not guessed.
#[test]
fn arch_design_metal_flag_is_named() {
    let values: Vec<P> = vec![
        (0, FRGBA, frgba([0.5; 3])),
        (6, FLOAT, f(1.0)),
        (9, BOOL, b(true)),
    ];
    let (eval, mtl, _) = with_material(ARCH_DESIGN, "Arch & Design", &values);
    let classes = material::undecoded_classes(&eval, mtl);
    assert_eq!(classes.len(), 1, "{classes:?}");
    assert!(
        classes[0].starts_with("Arch & Design (partially:"),
        "{classes:?}"
    );
}

/// "page 3view.max": the documented default diffuse (150, 150, 150), IOR
/// 1.5, shininess, transparency, luminance and translucency 0 (ids 195, 199,
/// 197, 207 as `GetPropNames` orders them): complete, matte (roughness 1).
#[test]
fn architectural_diffuse() {
    let values: Vec<P> = vec![
        (1, RGBA, rgb([150.0 / 255.0; 3])),
        (2, FLOAT, f(1.5)),
        (5, PCNT, f(1.0)),
        (195, PCNT, f(0.0)),
        (199, PCNT, f(0.0)),
        (197, FLOAT, f(0.0)),
        (207, PCNT, f(0.0)),
    ];
    let (eval, mtl, _) = with_material(ARCHITECTURAL, "Architectural", &values);
    let g = gltf_material(&eval, mtl);
    let d = 150.0 / 255.0;
    assert!(near(&factor(&g), &[d, d, d, 1.0]), "{g}");
    let classes = material::undecoded_classes(&eval, mtl);
    assert!(classes.is_empty(), "{classes:?}");
}

/// A luminance (cd/m², id 197) set has no counterpart in the exports: the
/// material is named as partial with it.
#[test]
fn architectural_luminance_is_named() {
    let values: Vec<P> = vec![(1, RGBA, rgb([150.0 / 255.0; 3])), (197, FLOAT, f(1500.0))];
    let (eval, mtl, _) = with_material(ARCHITECTURAL, "Architectural", &values);
    let classes = material::undecoded_classes(&eval, mtl);
    assert!(
        classes.len() == 1 && classes[0].starts_with("Architectural (partially: luminance 1500"),
        "{classes:?}"
    );
}

/// The Repton intro scene's "nameRepton": a Standard whose Strauss shader
/// block holds colour (20, 255, 2)/255, glossiness 0.1, metalness 0 and whose
/// map channel 0 (Color) is a Bitmap: exported as the diffuse texture with
/// roughness 1 − 0.1.
#[test]
fn strauss_shader_colour_and_map() {
    let Scene {
        mut edit,
        node,
        standard,
        bitmap,
        template,
    } = scene();
    let dll = edit.add_dll("Strauss shader (synthetic)", "strauss.dlt");
    let cls = edit.add_class(dll, STRAUSS, 0x10b0, "Strauss");
    let pb2 = edit.class_index(PARAMBLOCK2).expect("ParamBlock2 class");
    let colour = [20.0 / 255.0, 1.0, 2.0 / 255.0];
    let values: Vec<P> = vec![(0, RGBA, rgb(colour)), (1, PCNT, f(0.1)), (2, PCNT, f(0.0))];
    let pb = edit.add_object(pb2, block(template, &values));
    let shader = edit.add_object(cls, Vec::new());
    edit.append_reference(shader, pb as i32);
    edit.set_reference(standard, 2, shader as i32);
    // The node's Bitmap moved from Blinn's diffuse channel (1) to channel 0.
    let texmaps = edit.reference(standard, 1);
    edit.set_reference(texmaps, 1, bitmap as i32);
    edit.set_reference(texmaps, 3, -1);
    let _ = node;
    let eval = SceneEval::from_document(edit.finish()).expect("scene");
    let m = material::material(&eval, standard).expect("material");
    assert_eq!(m.diffuse, Some(colour));
    assert_eq!(m.ambient, None);
    assert!(m.unmapped.is_empty(), "{:?}", m.unmapped);
    assert!(material::undecoded_classes(&eval, standard).is_empty());
    assert!(
        m.maps
            .iter()
            .any(|r| r.slot == "diffuse" && r.texmap == bitmap),
        "{:?}",
        m.maps
    );
    let g = gltf_material(&eval, standard);
    let rough = g["pbrMetallicRoughness"]["roughnessFactor"].as_f64();
    assert!((rough.expect("roughness") - 0.9).abs() < 1e-6, "{g}");
}
