//! CoronaMtl through the scene and the glTF export. The corpus holds none, so
//! babylon/CubesImageFormat.max's node "B" gets one built through the writer
//! with the values stored in Stibenet/3D-model's CookiesWithCup.max (public):
//! its gingerbread "Material #22" (diffuse 128 grey at level 1, reflection
//! level 0.2 of white at glossiness 0.2, "tsvet pryanika.jpg" in texmap slot
//! 0 and "rel'yef pryanika.jpg" in slot 6, here both the node's Bitmap) and
//! "Material #41" (no reflection). The expected glTF values are those stored
//! values under docs/gltf-export.md's rule (roughness = 1 − glossiness, a
//! textured base colour keeps only the level), not our earlier output.
//! Both carry the other channels as stored there (colours 105–107 white,
//! opacity level 127 at 1, levels 126/128 at 0) and #22 its map switches
//! (on for slots 0 and 6 only); docs/max-format.md says what pins them.

use crate::eval_mr_materials::{
    b, f, factor, gltf_material, near, rgb, with_material_of, BOOL, FLOAT, P, RGBA, TEXMAP,
};
use maxfs_fs::views::material_view;
use maxfs_scene::eval::render::material;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;

const CORONA_MTL: ClassId = ClassId(0x70be_6506, 0x4489_31dd);

/// Puts a CoronaMtl named `name` (in Corona's 0x0fa0 header) with one block
/// of `values` on node "B"; the texmap parameters take the node's Bitmap.
fn with_corona(name: &str, values: &[P]) -> (SceneEval, usize, usize) {
    let dll = ("Corona Renderer (synthetic)", "CoronaRenderer.dlr");
    with_material_of(dll, CORONA_MTL, "CoronaMtl", (0x0fa0, name), values)
}

/// The translucency / opacity / self-illumination colours and levels as
/// CookiesWithCup.max stores them in both materials.
fn other_channels() -> Vec<P> {
    vec![
        (105, RGBA, rgb([1.0; 3])),
        (106, RGBA, rgb([1.0; 3])),
        (107, RGBA, rgb([1.0; 3])),
        (127, FLOAT, f(1.0)),
        (126, FLOAT, f(0.0)),
        (128, FLOAT, f(0.0)),
    ]
}

fn gingerbread() -> Vec<P> {
    let grey = 128.0 / 255.0;
    let mut v: Vec<P> = vec![
        (101, RGBA, rgb([grey; 3])),
        (102, RGBA, rgb([1.0; 3])),
        (103, RGBA, rgb([1.0; 3])),
        (121, FLOAT, f(1.0)),
        (122, FLOAT, f(0.2)),
        (123, FLOAT, f(0.0)),
    ];
    v.extend(other_channels());
    // Texmap slots 0‥6 (parameters 141‥147), then the stored switches: on
    // for slots 0 and 6, off for 1‥5.
    v.extend((141..=147).map(|id| (id, TEXMAP, None)));
    v.extend((161..=167).map(|id| (id, BOOL, b(id == 161 || id == 167))));
    v.extend([
        (180, FLOAT, f(0.2)),
        (182, FLOAT, f(1.52)),
        (183, FLOAT, f(1.52)),
        // Diffuse and bump map amounts as stored.
        (290, FLOAT, f(1.0)),
        (296, FLOAT, f(0.1)),
    ]);
    v
}

#[test]
fn corona_gingerbread_diffuse_map_and_glossiness() {
    let (eval, mtl, bitmap) = with_corona("Material #22", &gingerbread());
    let m = material::material(&eval, mtl).expect("material");
    assert_eq!(m.name, "Material #22");
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    let g = gltf_material(&eval, mtl);
    // Textured: the factor keeps the diffuse level (1); roughness 1 − 0.2.
    assert!(near(&factor(&g), &[1.0, 1.0, 1.0, 1.0]), "{g}");
    let rough = g["pbrMetallicRoughness"]["roughnessFactor"].as_f64();
    assert!((rough.expect("roughness") - 0.8).abs() < 1e-6, "{g}");
    assert_eq!(g["alphaMode"], "OPAQUE", "{g}");
    assert!(
        g["pbrMetallicRoughness"]["baseColorTexture"].is_object(),
        "{g}"
    );
    let view = material_view::materials_with_assets(&eval, &material::Assets::of(&eval.doc));
    let v = view.iter().find(|v| v.index == mtl).expect("in the view");
    for (slot, on) in [("base_color", true), ("bump", true), ("reflection", false)] {
        assert!(
            v.maps.iter().any(|r| r.slot == slot
                && r.texmap == bitmap
                && r.enabled == Some(on)
                && r.file.as_deref() == Some("B.jpg")),
            "{slot}: {:?}",
            v.maps
        );
    }
    // The reflection: level 0.2 of white at Fresnel IOR 1.52, as glTF's
    // specular strength, tint and IOR.
    let ext = &g["extensions"];
    let spec = &ext["KHR_materials_specular"];
    assert!(
        (spec["specularFactor"].as_f64().unwrap_or(-1.0) - 0.2).abs() < 1e-6,
        "{g}"
    );
    assert_eq!(
        spec["specularColorFactor"],
        serde_json::json!([1.0, 1.0, 1.0]),
        "{g}"
    );
    let ior = ext["KHR_materials_ior"]["ior"].as_f64().unwrap_or(-1.0);
    assert!((ior - 1.52).abs() < 1e-6, "{g}");
    // The bump amount rides with the map (the normal scale).
    assert!(
        v.maps
            .iter()
            .any(|r| r.slot == "bump" && r.amount == Some(0.1)),
        "{:?}",
        v.maps
    );
    // Diffuse at amount 1, bump exported, the other slots switched off,
    // the other channels at their defaults: evaluated whole.
    let classes = material::undecoded_classes(&eval, mtl);
    assert!(classes.is_empty(), "{classes:?}");
}

/// "Material #41": reflection level 0, so no glossy reflection (roughness 1)
/// and the plain diffuse as the factor; opaque, neither translucent nor
/// self-illuminated: evaluated whole.
#[test]
fn corona_matte_diffuse() {
    let grey = 128.0 / 255.0;
    let values: Vec<P> = vec![
        (101, RGBA, rgb([grey; 3])),
        (102, RGBA, rgb([1.0; 3])),
        (121, FLOAT, f(1.0)),
        (122, FLOAT, f(0.0)),
        (123, FLOAT, f(0.0)),
        (180, FLOAT, f(1.0)),
    ]
    .into_iter()
    .chain(other_channels())
    .collect();
    let (eval, mtl, _) = with_corona("Material #41", &values);
    let g = gltf_material(&eval, mtl);
    let d = f64::from(grey);
    assert!(near(&factor(&g), &[d, d, d, 1.0]), "{g}");
    assert_eq!(
        g["pbrMetallicRoughness"]["roughnessFactor"].as_f64(),
        Some(1.0),
        "{g}"
    );
    assert_eq!(g["alphaMode"], "OPAQUE", "{g}");
    // No reflection: glTF's specular strength 0.
    assert_eq!(
        g["extensions"]["KHR_materials_specular"]["specularFactor"].as_f64(),
        Some(0.0),
        "{g}"
    );
    let classes = material::undecoded_classes(&eval, mtl);
    assert!(classes.is_empty(), "{classes:?}");
}

/// Table.max's "Material #69": opacity level 0.84 of white, no refraction:
/// glTF alpha 0.84, blended.
#[test]
fn corona_opacity_level() {
    let values: Vec<P> = vec![
        (101, RGBA, rgb([0.5; 3])),
        (102, RGBA, rgb([1.0; 3])),
        (103, RGBA, rgb([1.0; 3])),
        (105, RGBA, rgb([1.0; 3])),
        (106, RGBA, rgb([1.0; 3])),
        (107, RGBA, rgb([1.0; 3])),
        (121, FLOAT, f(0.9)),
        (122, FLOAT, f(0.0)),
        (123, FLOAT, f(0.0)),
        (127, FLOAT, f(0.84)),
        (126, FLOAT, f(0.0)),
        (128, FLOAT, f(0.0)),
    ];
    let (eval, mtl, _) = with_corona("Material #69", &values);
    let g = gltf_material(&eval, mtl);
    assert!(near(&factor(&g), &[0.45, 0.45, 0.45, 0.84]), "{g}");
    assert_eq!(g["alphaMode"], "BLEND", "{g}");
}

/// CoronaMtl's translucency level (126) and self-illumination (107 × 128):
/// Wheelbarrow.max's 0.16 translucency of white (colour 106) becomes
/// KHR_materials_diffuse_transmission, a self-illumination level the
/// emissive colour.
#[test]
fn corona_translucency_and_self_illumination() {
    let base: Vec<P> = vec![
        (101, RGBA, rgb([0.5; 3])),
        (102, RGBA, rgb([1.0; 3])),
        (103, RGBA, rgb([1.0; 3])),
        (105, RGBA, rgb([1.0; 3])),
        (106, RGBA, rgb([1.0; 3])),
        (107, RGBA, rgb([1.0, 0.5, 0.25])),
        (121, FLOAT, f(1.0)),
        (122, FLOAT, f(0.0)),
        (123, FLOAT, f(0.0)),
        (127, FLOAT, f(1.0)),
    ];
    let mut translucent = base.clone();
    translucent.extend([(126, FLOAT, f(0.16)), (128, FLOAT, f(0.0))]);
    let (eval, mtl, _) = with_corona("Material #2", &translucent);
    let classes = material::undecoded_classes(&eval, mtl);
    assert!(classes.is_empty(), "{classes:?}");
    let g = gltf_material(&eval, mtl);
    let d = &g["extensions"]["KHR_materials_diffuse_transmission"];
    assert!(
        (d["diffuseTransmissionFactor"].as_f64().unwrap_or(-1.0) - 0.16).abs() < 1e-6,
        "{g}"
    );
    assert_eq!(
        d["diffuseTransmissionColorFactor"],
        serde_json::json!([1.0, 1.0, 1.0]),
        "{g}"
    );
    let mut glowing = base;
    glowing.extend([(126, FLOAT, f(0.0)), (128, FLOAT, f(0.5))]);
    let (eval, mtl, _) = with_corona("Material #3", &glowing);
    let g = gltf_material(&eval, mtl);
    assert_eq!(
        g["emissiveFactor"],
        serde_json::json!([0.5, 0.25, 0.125]),
        "{g}"
    );
    assert!(material::undecoded_classes(&eval, mtl).is_empty());
}

const CORONA_PORTAL_MTL: ClassId = ClassId(0x7666_6506, 0x448a_de9d);

/// Table.max's "Material #68", a CoronaPortalMtl whose block holds no
/// parameter: glTF gets a fully transparent surface with no reflection,
/// the NeL shape names the portal, and coverage counts it evaluated.
#[test]
fn corona_portal_shows_nothing() {
    let dll = ("Corona Renderer (synthetic)", "CoronaRenderer.dlr");
    let (eval, mtl, _) = with_material_of(
        dll,
        CORONA_PORTAL_MTL,
        "CoronaPortalMtl",
        (0x0fa0, "Material #68"),
        &[],
    );
    let m = material::material(&eval, mtl).expect("material");
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    assert!(material::undecoded_classes(&eval, mtl).is_empty());
    let g = gltf_material(&eval, mtl);
    assert_eq!(factor(&g)[3], 0.0, "{g}");
    assert_eq!(g["alphaMode"], "BLEND", "{g}");
    assert_eq!(
        g["extensions"]["KHR_materials_specular"]["specularFactor"].as_f64(),
        Some(0.0),
        "{g}"
    );
    let out = maxfs_exporters::nel::export::export(
        "portal",
        &eval,
        &[maxfs_exporters::nel::export::ExportKind::Shape],
    );
    assert!(
        out.errors
            .iter()
            .any(|e| e.node == "B" && e.reason.contains("a light portal")),
        "{}",
        out.errors_text()
    );
}

const CORONA_PHYSICAL_MTL: ClassId = ClassId(0x6912_ab89, 0x8715_1720);
const INT: u16 = 1;

/// sweep6's test.max "Material #37" (public), the parameters the export
/// reads as stored: base 0.5 grey at level 1, non-metal, roughness 0.75,
/// IOR 1.5, opacity white at 1, refraction 0, clearcoat 0.02 — plus the
/// base map slot (103) holding the node's Bitmap, switched on at amount 1.
#[test]
fn corona_physical_values() {
    let values: Vec<P> = vec![
        (101, RGBA, rgb([0.5; 3])),
        (102, FLOAT, f(1.0)),
        (103, TEXMAP, None),
        (104, BOOL, b(true)),
        (105, FLOAT, f(1.0)),
        (111, INT, Some(0i32.to_le_bytes().to_vec())),
        (121, RGBA, rgb([1.0; 3])),
        (122, FLOAT, f(1.0)),
        (131, FLOAT, f(0.75)),
        (171, FLOAT, f(1.5)),
        (191, FLOAT, f(0.0)),
        (211, FLOAT, f(0.02)),
        (331, RGBA, rgb([1.0; 3])),
        (332, FLOAT, f(0.0)),
        (421, INT, Some(0i32.to_le_bytes().to_vec())),
        (461, INT, Some(0i32.to_le_bytes().to_vec())),
    ];
    let dll = ("Corona Renderer (synthetic)", "CoronaRenderer.dlr");
    let (eval, mtl, _) = with_material_of(
        dll,
        CORONA_PHYSICAL_MTL,
        "CoronaPhysicalMtl",
        (0x0fa0, "Material #37"),
        &values,
    );
    let g = gltf_material(&eval, mtl);
    // Textured: the factor keeps the base level.
    assert!(near(&factor(&g), &[1.0, 1.0, 1.0, 1.0]), "{g}");
    assert!(
        g["pbrMetallicRoughness"]["baseColorTexture"].is_object(),
        "{g}"
    );
    let pbr = &g["pbrMetallicRoughness"];
    assert_eq!(pbr["metallicFactor"].as_f64(), Some(0.0), "{g}");
    assert_eq!(pbr["roughnessFactor"].as_f64(), Some(0.75), "{g}");
    assert_eq!(
        g["extensions"]["KHR_materials_ior"]["ior"].as_f64(),
        Some(1.5),
        "{g}"
    );
    assert_eq!(g["alphaMode"], "OPAQUE", "{g}");
    // The clearcoat 0.02 (IOR 1.5, untinted) is glTF's clear coat.
    let coat = &g["extensions"]["KHR_materials_clearcoat"];
    let f = coat["clearcoatFactor"].as_f64().unwrap_or(-1.0);
    assert!((f - 0.02).abs() < 1e-6, "{g}");
    let classes = material::undecoded_classes(&eval, mtl);
    assert!(classes.is_empty(), "{classes:?}");
}
