//! Point lights in `.ig` files. The NeL corpus files have no lights, so real
//! Babylon scenes with lights get NeL AppData (IGNAME, light group, animated
//! light, realtime flag) written into their Scene stream by our own chunk and
//! container writers; the reopened file is exported and its point lights are
//! checked against the independent Babylon glTF of the same scene (light
//! types, colours, spot cone, world positions and directions after the Y-up
//! conversion) and against the plug-in's rules (calc_lm.cpp
//! SLightBuild::convertFromMaxLight, export_scene.cpp buildInstanceGroup,
//! CPointLightNamedArray::build).

use maxfs_exporters::nel::export::ig_lights::light_type;
use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
use maxfs_exporters::nel::export::{Context, ExportKind, Exports};
use maxfs_exporters::nel::ig::{InstanceGroup, PointLightNamed};
use maxfs_exporters::nel::stream::Rgba;
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{gltf_worlds, M4};
use maxfs_tests::rewrite::SceneEdit;
use serde_json::Value;

/// Positions: glTF and Max agree to 1e-4 scene units (Babylon writes f32).
const POS_TOL: f64 = 1e-4;
/// Unit directions and angles.
const DIR_TOL: f64 = 1e-4;

/// The .max at `rel` with NeL AppData added to named nodes, through the
/// chunk and container writers.
fn with_appdata(rel: &str, add: &[(&str, u32, &str)]) -> Document {
    let mut e = SceneEdit::open(rel);
    for (node, sub_id, text) in add {
        let idx = e.node(node);
        e.add_appdata(idx, (NEL_CLASS_ID, NEL_SUPER_CLASS), *sub_id, text);
    }
    e.finish()
}

/// Exports the ig files of a document; every ig reads back and re-serializes
/// byte for byte.
fn igs(doc: &Document, stem: &str) -> (Exports, Vec<(String, InstanceGroup)>) {
    let ex = maxfs_tests::export_doc(stem, doc, &[ExportKind::Ig]);
    let mut out = Vec::new();
    for o in ex.outputs.iter().filter(|o| o.kind == ExportKind::Ig) {
        let f = read_nel(&o.bytes, &o.name).expect("our ig reads back");
        assert_eq!(
            write_nel(&f).expect("rewrites"),
            o.bytes,
            "{}: re-serialization",
            o.name
        );
        let NelFile::InstanceGroup(ig) = f else {
            panic!("{} is not an instance group", o.name)
        };
        out.push((o.name.clone(), ig));
    }
    (ex, out)
}

fn gltf(rel: &str) -> Value {
    let p = corpus_dir().join("ref/babylon-gltf").join(rel);
    serde_json::from_slice(&std::fs::read(&p).expect("gltf")).expect("json")
}

/// glTF (Y up) to Max (Z up): (x, y, z) → (x, −z, y).
fn to_max(v: [f64; 3]) -> [f64; 3] {
    [v[0], -v[2], v[1]]
}

fn translation(m: &M4) -> [f64; 3] {
    to_max([m[0][3], m[1][3], m[2][3]])
}

/// A glTF light shines down its node's −Z.
fn minus_z(m: &M4) -> [f64; 3] {
    let z = [m[0][2], m[1][2], m[2][2]];
    let n = (z[0] * z[0] + z[1] * z[1] + z[2] * z[2]).sqrt();
    to_max([-z[0] / n, -z[1] / n, -z[2] / n])
}

fn v3(v: &maxfs_exporters::nel::stream::Vec3) -> [f64; 3] {
    [v.x.get().into(), v.y.get().into(), v.z.get().into()]
}

fn near(a: [f64; 3], b: [f64; 3], tol: f64) -> bool {
    (0..3).all(|i| (a[i] - b[i]).abs() <= tol * b[i].abs().max(1.0))
}

fn rgba(c: &Rgba) -> [u8; 4] {
    [c.r, c.g, c.b, c.a]
}

/// Every light of LightOrientation.max (four free spots with KHR_lights_punctual
/// in the glTF) in one ig: type, colours, cone, position, direction, range.
#[test]
fn light_orientation_spots_match_gltf() {
    let spots = [
        "spotLight_pi_div_4",
        "spotLight_pi_div_8",
        "spotLight_pi_div_16",
        "spotLight_pi_div_32",
    ];
    let mut add: Vec<(&str, u32, &str)> =
        spots.iter().map(|s| (*s, id::IGNAME, "lights")).collect();
    // Grouping: one animated light in group 1, one "Sun" (not animated) in group 2.
    add.push(("spotLight_pi_div_8", id::LM_ANIMATED_LIGHT, "torch"));
    add.push(("spotLight_pi_div_8", id::LM_LIGHT_GROUP, "1"));
    add.push(("spotLight_pi_div_16", id::LM_ANIMATED_LIGHT, "Sun"));
    add.push(("spotLight_pi_div_16", id::LM_LIGHT_GROUP, "2"));
    let doc = with_appdata("max/babylon/LightOrientation.max", &add);
    let (ex, igs) = igs(&doc, "LightOrientation");
    assert!(ex.errors.is_empty(), "{}", ex.errors_text());
    assert_eq!(igs.len(), 1);
    let (name, ig) = &igs[0];
    assert_eq!(name, "lights.ig");
    assert!(ig.instances.is_empty(), "lights only");
    assert_eq!(ig.real_time_sun_contribution.map(|b| b.0), Some(0));
    let arr = ig.point_lights.as_ref().expect("point lights");
    assert_eq!(arr.version, 1);
    assert_eq!(arr.lights.len(), 4);

    // Sorted by (animated light, group): "" 0, "" 0, "" 2, "torch" 1.
    let keys: Vec<(&str, Option<u32>)> = arr
        .lights
        .iter()
        .map(|l| (l.animated_light.as_str(), l.light_group))
        .collect();
    assert_eq!(
        keys,
        [
            ("", Some(0)),
            ("", Some(0)),
            ("", Some(2)),
            ("torch", Some(1))
        ]
    );
    let groups: Vec<(&str, u32, u32, u32)> = arr
        .groups
        .iter()
        .map(|g| {
            (
                g.animation_light.as_str(),
                g.light_group,
                g.start_id,
                g.end_id,
            )
        })
        .collect();
    assert_eq!(groups, [("", 0, 0, 2), ("", 2, 2, 3), ("torch", 1, 3, 4)]);

    let doc_g = gltf("LightOrientation/LightOrientation.gltf");
    let worlds = gltf_worlds(&doc_g);
    let klights = doc_g["extensions"]["KHR_lights_punctual"]["lights"]
        .as_array()
        .cloned()
        .expect("KHR lights");
    let mut compared = 0;
    for node in doc_g["nodes"].as_array().into_iter().flatten() {
        let Some(li) = node["extensions"]["KHR_lights_punctual"]["light"].as_u64() else {
            continue;
        };
        let gl = &klights[li as usize];
        let name = node["name"].as_str().expect("name");
        let w = &worlds[name];
        let pos = translation(w);
        let l: &PointLightNamed = arr
            .lights
            .iter()
            .find(|l| near(v3(&l.light.position), pos, POS_TOL))
            .unwrap_or_else(|| panic!("no point light at {name}'s position {pos:?}"));
        let spot = l.light.spot.as_ref().expect("version 1+ spot part");
        assert_eq!(gl["type"].as_str(), Some("spot"));
        assert_eq!(spot.light_type, light_type::SPOT, "{name}");
        // Colour: the glTF colour, not multiplied by the intensity (1e5 here).
        let c: Vec<u8> = gl["color"]
            .as_array()
            .expect("colour")
            .iter()
            .map(|v| (v.as_f64().expect("f") * 255.0) as u8)
            .collect();
        assert_eq!(rgba(&l.light.diffuse), [c[0], c[1], c[2], 255], "{name}");
        assert_eq!(rgba(&l.light.specular), [c[0], c[1], c[2], 255], "{name}");
        assert_eq!(rgba(&l.light.ambient), [0, 0, 0, 255], "{name}");
        assert_eq!(rgba(&l.default_diffuse), rgba(&l.light.diffuse));
        assert_eq!(rgba(&l.default_ambient), rgba(&l.light.ambient));
        // Cone: the outer angle is the falloff half-angle.
        let outer = gl["spot"]["outerConeAngle"].as_f64().expect("outer cone");
        let end = f64::from(spot.angle_end.get());
        assert!((end - outer).abs() <= DIR_TOL, "{name}: {end} vs {outer}");
        let begin = f64::from(spot.angle_begin.get());
        assert!(
            begin > 0.0 && begin < end,
            "{name}: hotspot {begin} inside falloff {end}"
        );
        // Direction: the glTF light node's −Z in Max axes.
        let dir = v3(&spot.direction);
        assert!(
            near(dir, minus_z(w), DIR_TOL),
            "{name}: {dir:?} vs {:?}",
            minus_z(w)
        );
        // No far attenuation in Max (glTF range is infinite): the plug-in's (10, 10).
        assert!(gl["range"].as_f64().expect("range") > 1e30);
        assert_eq!(l.light.attenuation_begin.get(), 10.0);
        assert_eq!(l.light.attenuation_end.get(), 10.0);
        assert_eq!(l.light.add_ambient_with_sun.map(|b| b.0), Some(0));
        compared += 1;
    }
    eprintln!("LightOrientation: {compared} point lights compared with the glTF");
    assert_eq!(compared, 4);
}

/// AnimatedMeshCameraLight.max: omni, free and target spots, and directional
/// lights. Directional lights are no point lights but light the group as the
/// sun when EXPORT_AS_SUN_LIGHT is set; the skylight is not a standard light
/// and is refused with a message; EXPORT_REALTIME_LIGHT = 0 leaves a light out.
#[test]
fn animated_mesh_camera_light_rules() {
    let lit = [
        "AnimatedSpotLightTarget",
        "SpotLightAnimatedTarget",
        "AnimatedFreeSpotLight",
        "AnimatedOmniLight",
        "DirectionalLightAnimatedTarget",
        "AnimatedDirectionalLight",
    ];
    let mut add: Vec<(&str, u32, &str)> = lit.iter().map(|s| (*s, id::IGNAME, "lit")).collect();
    add.push(("AnimatedDirectionalLight", id::EXPORT_AS_SUN_LIGHT, "1"));
    add.push(("AnimatedSkyLight", id::IGNAME, "sky"));
    add.push(("AnimatedDirectionalLightTarget", id::IGNAME, "off"));
    add.push(("SpotLightAnimatedTarget", id::IGNAME, "off"));
    add.push(("SpotLightAnimatedTarget", id::EXPORT_REALTIME_LIGHT, "0"));
    let doc = with_appdata("max/babylon/AnimatedMeshCameraLight.max", &add);
    let (ex, igs) = igs(&doc, "AnimatedMeshCameraLight");
    let by_name = |n: &str| {
        &igs.iter()
            .find(|(name, _)| name == n)
            .unwrap_or_else(|| panic!("no {n}"))
            .1
    };

    // The skylight: refused by name, its (empty) group still written.
    assert_eq!(ex.errors.len(), 1, "{}", ex.errors_text());
    assert!(
        ex.errors_text().contains("AnimatedSkyLight") && ex.errors_text().contains("Skylight"),
        "{}",
        ex.errors_text()
    );
    let sky = by_name("sky.ig");
    assert_eq!(
        sky.point_lights
            .as_ref()
            .map(|a| (a.version, a.lights.len())),
        Some((1, 0))
    );

    // "off": a non-sun directional and a spot whose realtime export is off.
    let off = by_name("off.ig");
    assert_eq!(off.point_lights.as_ref().map(|a| a.lights.len()), Some(0));
    assert_eq!(off.real_time_sun_contribution.map(|b| b.0), Some(0));

    let lit_ig = by_name("lit.ig");
    assert_eq!(
        lit_ig.real_time_sun_contribution.map(|b| b.0),
        Some(1),
        "sun"
    );
    let arr = lit_ig.point_lights.as_ref().expect("lights");
    // Two target spots minus the one moved to "off", the free spot, the omni.
    assert_eq!(arr.lights.len(), 3);
    assert_eq!(arr.groups.len(), 1);

    let g = gltf("AnimatedMeshCameraLight/AnimatedMeshCameraLight.gltf");
    let worlds = gltf_worlds(&g);
    let find = |name: &str| {
        let pos = translation(&worlds[name]);
        arr.lights
            .iter()
            .find(|l| near(v3(&l.light.position), pos, POS_TOL))
            .unwrap_or_else(|| panic!("no point light at {name}'s glTF position {pos:?}"))
    };
    let omni = find("AnimatedOmniLight");
    let s = omni.light.spot.as_ref().expect("spot part");
    assert_eq!(s.light_type, light_type::POINT);
    assert_eq!(rgba(&omni.light.diffuse), [255, 255, 255, 255]);

    // Target spot: direction from the light to its target's glTF position.
    let t = find("AnimatedSpotLightTarget");
    let s = t.light.spot.as_ref().expect("spot part");
    assert_eq!(s.light_type, light_type::SPOT);
    let a = translation(&worlds["AnimatedSpotLightTarget"]);
    let b = translation(&worlds["AnimatedSpotLightTarget.Target"]);
    let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    let want = [d[0] / n, d[1] / n, d[2] / n];
    assert!(
        near(v3(&s.direction), want, DIR_TOL),
        "{:?} vs {want:?}",
        v3(&s.direction)
    );
    // 45° falloff, 43° hotspot: half-angles in radians.
    assert!((f64::from(s.angle_end.get()) - 22.5f64.to_radians()).abs() < 1e-6);
    assert!((f64::from(s.angle_begin.get()) - 21.5f64.to_radians()).abs() < 1e-6);

    // Free spot: the node's −Z (rule). Babylon re-orients light nodes that
    // are not KHR lights (identity rotation here), so the glTF cannot say it:
    // the world matrix is our evaluation, checked elsewhere (eval_babylon.rs)
    // for positions; here only that the exporter takes −Z of it, normalized.
    let f = find("AnimatedFreeSpotLight");
    let s = f.light.spot.as_ref().expect("spot part");
    let typed = doc.typed();
    let graph = typed.scene.as_ref().expect("scene");
    let eval = maxfs_tests::eval_with_graph(&doc, maxfs_scene::graph::SceneGraph::clone(graph));
    let ctx = Context::new("AnimatedMeshCameraLight", &eval);
    let node = graph
        .nodes()
        .find(|(_, n)| n.name == "AnimatedFreeSpotLight")
        .map(|(o, _)| o.index)
        .expect("node");
    let k = ctx.eval.world_tm(node, 0).rows()[2];
    let n = (k[0] * k[0] + k[1] * k[1] + k[2] * k[2]).sqrt();
    let want = [-k[0] / n, -k[1] / n, -k[2] / n];
    assert!(
        near(v3(&s.direction), want, 1e-6),
        "{:?} vs {want:?}",
        v3(&s.direction)
    );
    eprintln!("AnimatedMeshCameraLight: 3 point lights, sun flag, 1 refused skylight");
}

/// A file prepared for NeL without lights: street.max's ig has an empty
/// light array, written as version 1 as today's NeL writes it (the Max 3-era
/// reference has 0; export_ig.rs names that difference).
#[test]
fn street_has_an_empty_current_version_light_array() {
    let doc = Document::open(&corpus_dir().join("max/ryzomcore/street.max")).expect("street");
    let (_, igs) = igs(&doc, "street");
    let arr = igs[0].1.point_lights.as_ref().expect("array");
    assert_eq!((arr.version, arr.lights.len(), arr.groups.len()), (1, 0, 0));
}
