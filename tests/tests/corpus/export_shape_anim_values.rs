//! The shape process's `.anim` beyond transforms (issue 17): material colour
//! and opacity tracks (export_anim.cpp `addMtlTracks`), the camera field of
//! view (`addObjTracks`) and a Target camera's roll and target
//! (`addNodeTracks`). No corpus file keys these, so keyed controllers are
//! added to copies of real scenes through our own writers
//! (tests/src/rewrite.rs); the expected keys are the ones written here,
//! converted by the plug-in's rule cited at each check (export_anim.cpp of
//! ryzomcore, nel/tools/3d/plugin_max/nel_mesh_lib). With MAXFS_FX_OUT set
//! the .anim files are written there for NeL's own loader
//! (/work/shared/oracles/nel/check.sh).

use super::export_shape_anim::{
    appdata, damaged_exports, export, linear_float, set_uv_param, shape_of, tracks,
};
use maxfs_exporters::nel::anim::{Tangent, Track};
use maxfs_exporters::nel::export::properties::id;
use maxfs_exporters::nel::export::{anim, ExportKind};
use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::render::material as mtl;
use maxfs_scene::typed::ClassId;
use maxfs_scene::Document;
use maxfs_tests::rewrite::SceneEdit;

const BEZIER_FLOAT: ClassId = ClassId(0x2007, 0);
const BEZIER_COLOR: ClassId = ClassId(0x2011, 0);
const TCB_POINT3: ClassId = ClassId(0x442314, 0);
const SC_FLOAT_CONTROL: u32 = 0x9003;
const SC_POINT3_CONTROL: u32 = 0x9005;
/// ClassDirectory dll index of classes built into Max.
const DLL_BUILTIN: i32 = -1;
/// Bezier key flags: in and out tangent type (bits 7–9, 10–12) 5 = user.
const USER_TANGENTS: u32 = (5 << 7) | (5 << 10);
/// Out tangent type 2 = step.
const STEP_OUT: u32 = (5 << 7) | (2 << 10);
const TICKS: f32 = 4800.0;

/// A Bezier colour key: tick, value, in tangent, out tangent (per tick).
type ColourKey = (i32, [f32; 3], [f32; 3], [f32; 3]);

fn class(e: &mut SceneEdit, id: ClassId, sc: u32, name: &str) -> u16 {
    e.class_index_of(id, sc)
        .unwrap_or_else(|| e.add_class(DLL_BUILTIN, id, sc, name))
}

fn words(out: &mut Vec<u8>, w: &[f32]) {
    for x in w {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

/// A Bezier Float with keys (tick, flags, value, in, out); lengths 1/3.
fn bezier_float(e: &mut SceneEdit, keys: &[(i32, u32, f32, f32, f32)]) -> usize {
    let c = class(e, BEZIER_FLOAT, SC_FLOAT_CONTROL, "Bezier Float");
    let mut table = Vec::new();
    for &(t, flags, v, i, o) in keys {
        table.extend_from_slice(&t.to_le_bytes());
        table.extend_from_slice(&flags.to_le_bytes());
        words(&mut table, &[v, i, o, 1.0 / 3.0, 1.0 / 3.0]);
    }
    e.add_object(c, vec![Chunk::leaf(0x2525, table)])
}

/// A Bezier Color with keys (tick, value, in, out): 80-byte records.
fn bezier_color(e: &mut SceneEdit, keys: &[ColourKey]) -> usize {
    let c = class(e, BEZIER_COLOR, SC_POINT3_CONTROL, "Bezier Color");
    let mut table = Vec::new();
    for (t, v, i, o) in keys {
        table.extend_from_slice(&t.to_le_bytes());
        table.extend_from_slice(&USER_TANGENTS.to_le_bytes());
        words(&mut table, v);
        words(&mut table, i);
        words(&mut table, o);
        words(&mut table, &[1.0 / 3.0; 6]);
        words(&mut table, &[0.0; 3]);
    }
    e.add_object(c, vec![Chunk::leaf(0x2526, table)])
}

/// A TCB Point3 with keys (tick, value, [tension, continuity, bias, ease
/// in, ease out]): 64-byte records.
fn tcb_point3(e: &mut SceneEdit, keys: &[(i32, [f32; 3], [f32; 5])]) -> usize {
    let c = class(e, TCB_POINT3, SC_POINT3_CONTROL, "TCB Point3");
    let mut table = Vec::new();
    for (t, v, tcb) in keys {
        table.extend_from_slice(&t.to_le_bytes());
        table.extend_from_slice(&0u32.to_le_bytes());
        words(&mut table, v);
        words(&mut table, tcb);
        words(&mut table, &[0.0; 6]);
    }
    e.add_object(c, vec![Chunk::leaf(0x2521, table)])
}

fn anim_output(out: &maxfs_exporters::nel::export::Exports, name: &str) -> Vec<(String, Track)> {
    let o = out
        .outputs
        .iter()
        .find(|o| o.kind == ExportKind::ShapeAnim && o.name == name)
        .unwrap_or_else(|| panic!("no {name}: {:?}", out.errors));
    tracks(&o.bytes, &o.name)
}

fn track<'a>(t: &'a [(String, Track)], name: &str) -> &'a Track {
    &t.iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no track {name}: {:?}", names(t)))
        .1
}

fn names(t: &[(String, Track)]) -> Vec<&str> {
    t.iter().map(|(n, _)| n.as_str()).collect()
}

fn v3(v: &maxfs_exporters::nel::stream::Vec3) -> [f32; 3] {
    [v.x.get(), v.y.get(), v.z.get()]
}

fn vec_tangent(t: &Tangent) -> [f32; 3] {
    match t {
        Tangent::Vector(v) => v3(v),
        other => panic!("not a vector tangent: {other:?}"),
    }
}

fn float_tangent(t: &Tangent) -> f32 {
    match t {
        Tangent::Float(v) => v.get(),
        other => panic!("not a float tangent: {other:?}"),
    }
}

fn times(v: &[f32; 3], k: f32) -> [f32; 3] {
    v.map(|x| x * k)
}

/// Where a Standard material's keyed parameters go in Emissive.max.
struct StdScene {
    doc: Document,
    node: String,
    material: String,
}

const AMBIENT: [ColourKey; 2] = [
    (0, [0.2, 0.4, 0.6], [0.0; 3], [1.0e-4, 2.0e-5, -1.0e-4]),
    (8000, [1.0, 0.5, 0.0], [-1.0e-4, 0.0, 2.0e-4], [0.0; 3]),
];
const SPECULAR: [ColourKey; 2] = [
    (0, [0.9, 0.8, 0.7], [0.0; 3], [3.0e-5, 0.0, 0.0]),
    (8000, [0.5, 0.5, 0.5], [0.0, -3.0e-5, 0.0], [0.0; 3]),
];
/// The specular level: a Linear Float from 0.2 (tick 0) to 1.0 (16000).
const LEVEL: [(i32, f32); 2] = [(0, 0.2), (16000, 1.0)];
const EMISSIVE: [(i32, [f32; 3], [f32; 5]); 2] = [
    (0, [0.1, 0.2, 0.3], [0.5, 0.0, 0.0, 0.0, 0.0]),
    (4800, [0.3, 0.2, 0.1], [0.0, 0.25, -0.25, 0.5, 0.0]),
];
const OPACITY: [(i32, u32, f32, f32, f32); 2] = [
    (0, STEP_OUT, 1.0, 0.0, -1.0e-4),
    (9600, USER_TANGENTS, 0.25, 2.0e-5, 0.0),
];

/// babylon/Emissive.max's first node with a Standard (Blinn) material, its
/// ambient, specular, self-illumination colour and specular level keyed in
/// the shader block and its opacity in the extended block; the diffuse
/// stays a constant. AUTOMATIC_ANIMATION on, EXPORT_ANIMATED_MATERIALS as
/// `animated_materials`.
fn keyed_standard(animated_materials: bool) -> StdScene {
    let rel = "max/babylon/Emissive.max";
    let eval = maxfs_tests::corpus_eval(rel);
    let g = &eval.graph;
    let (node, m) = g
        .nodes()
        .find_map(|(o, _)| {
            let m = mtl::node_material(g, o.index)?;
            (mtl::material(&eval, m)?.class == "Standard").then_some((o.index, m))
        })
        .expect("a node with a Standard material");
    let material = mtl::material(&eval, m).expect("decodes").name;
    let shader = pblock::reference(g, m, 2).expect("shader");
    let cls = g.objects[shader].class.as_ref().map(|c| c.name.clone());
    assert_eq!(cls.as_deref(), Some("Blinn"));
    let block = pblock::reference(g, shader, 0).expect("shader block");
    let ext = pblock::reference(g, m, 4).expect("extended block");
    let mut e = SceneEdit::open(rel);
    for id in [0, 2, 8, 9] {
        e.unset_pb2_constant(block, id);
    }
    let amb = bezier_color(&mut e, &AMBIENT);
    let spec = bezier_color(&mut e, &SPECULAR);
    let emis = tcb_point3(&mut e, &EMISSIVE);
    let level = linear_float(&mut e, &LEVEL);
    for (k, c) in [amb, spec, emis, level].into_iter().enumerate() {
        assert_eq!(e.append_reference(block, c as i32), k as u32);
    }
    e.unset_pb2_constant(ext, 1);
    let op = bezier_float(&mut e, &OPACITY);
    assert_eq!(e.append_reference(ext, op as i32), 0);
    appdata(&mut e, node, id::AUTOMATIC_ANIMATION, "1");
    let flag = if animated_materials { "1" } else { "0" };
    appdata(&mut e, node, id::EXPORT_ANIMATED_MATERIALS, flag);
    let node_name = g.node_name(node).to_string();
    let doc = e.finish();
    // The parameters own the slots in record order: 0, 2, 8, 9 → 0..3.
    let ev = maxfs_scene::eval::SceneEval::from_document(doc.clone()).expect("scene");
    let pb = pblock::param_block2(ev.chunks(block)).expect("shader block");
    for (k, (pid, c)) in [(0, amb), (2, spec), (8, emis), (9, level)]
        .into_iter()
        .enumerate()
    {
        let slot = pb.param(pid).and_then(|p| p.ref_slot);
        assert_eq!(slot, Some(k as u32), "parameter {pid}");
        assert_eq!(pblock::reference(&ev.graph, block, k as u32), Some(c));
    }
    StdScene {
        doc,
        node: node_name,
        material,
    }
}

/// The Standard material's keyed values become `<mtl>.ambient`,
/// `.specular`, `.emissive` and `.opacity` (CAnimatedMaterial value names,
/// animated_material.h; "selfIllumColor" → emissive, export_anim.cpp
/// addMtlTracks), the unkeyed diffuse none. Colours as stored (0–1, NeL's
/// RGBA keyframers scale by 255 when evaluated), Bezier colour tangents
/// ×4800 (buildNelKey(CKeyBezierVector), export_anim.cpp:1127-1134), the
/// specular value times the specular level at the key's tick (GetShinStr,
/// export_anim.cpp:1142-1148: 0.2 at tick 0, 0.6 at 8000 on the Linear
/// Float written), TCB values and parameters as stored
/// (export_anim.cpp:1193-1215), opacity as its stored fraction with its
/// Bezier tangents as stored and the step flag from the out-tangent type
/// (export_anim.cpp:1082-1091). The .shape marks the same material animated.
#[test]
fn standard_material_colour_and_opacity_tracks() {
    // Without EXPORT_ANIMATED_MATERIALS no material track is written.
    let plain = keyed_standard(false);
    let out = export("emissive", &plain.doc, &[ExportKind::ShapeAnim]);
    let t = anim_output(&out, &format!("{}.anim", plain.node));
    let prefix = format!("{}.", plain.material);
    assert!(
        !names(&t).iter().any(|n| n.starts_with(&prefix)),
        "{:?}",
        names(&t)
    );

    let s = keyed_standard(true);
    let out = export(
        "emissive",
        &s.doc,
        &[ExportKind::Shape, ExportKind::ShapeAnim],
    );
    let t = anim_output(&out, &format!("{}.anim", s.node));
    let p = |v: &str| format!("{}.{v}", s.material);
    let mut got: Vec<&str> = names(&t)
        .into_iter()
        .filter(|n| n.starts_with(&p("")))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [p("ambient"), p("emissive"), p("opacity"), p("specular")],
        "{:?}",
        names(&t)
    );

    let check_bezier = |name: &str, keys: &[ColourKey], level: &dyn Fn(i32) -> f32| {
        let Track::CTrackKeyFramerBezierRGBA(k) = track(&t, name) else {
            panic!("{name}: not a Bezier RGBA track")
        };
        assert_eq!(k.keys.len(), keys.len(), "{name}");
        for ((time, key), (tick, v, i, o)) in k.keys.iter().zip(keys) {
            assert_eq!(time.get(), *tick as f32 / TICKS, "{name}");
            let want = times(v, level(*tick));
            for (g, w) in v3(&key.value).iter().zip(want) {
                assert!((g - w).abs() <= 1e-6, "{name} at {tick}: {g} vs {w}");
            }
            assert_eq!(vec_tangent(&key.in_tan), times(i, TICKS), "{name} in");
            assert_eq!(vec_tangent(&key.out_tan), times(o, TICKS), "{name} out");
            assert_eq!(key.step.0, 0);
        }
    };
    check_bezier(&p("ambient"), &AMBIENT, &|_| 1.0);
    // The level the Linear Float holds at the key's tick (written above).
    let level = |tick: i32| {
        let (a, b) = (LEVEL[0], LEVEL[1]);
        a.1 + (b.1 - a.1) * (tick - a.0) as f32 / (b.0 - a.0) as f32
    };
    assert!((level(8000) - 0.6).abs() < 1e-6);
    check_bezier(&p("specular"), &SPECULAR, &level);

    let Track::CTrackKeyFramerTCBRGBA(k) = track(&t, &p("emissive")) else {
        panic!("emissive: not a TCB RGBA track")
    };
    assert_eq!(k.keys.len(), 2);
    for ((time, key), (tick, v, tcb)) in k.keys.iter().zip(&EMISSIVE) {
        assert_eq!(time.get(), *tick as f32 / TICKS);
        assert_eq!(v3(&key.value), *v);
        let got = [
            key.tension.get(),
            key.continuity.get(),
            key.bias.get(),
            key.ease_to.get(),
            key.ease_from.get(),
        ];
        assert_eq!(got, *tcb);
    }

    let Track::CTrackKeyFramerBezierFloat(k) = track(&t, &p("opacity")) else {
        panic!("opacity: not a Bezier float track")
    };
    assert_eq!(k.keys.len(), 2);
    for ((time, key), (tick, flags, v, i, o)) in k.keys.iter().zip(&OPACITY) {
        assert_eq!(time.get(), *tick as f32 / TICKS);
        assert_eq!(key.value.get(), *v);
        assert_eq!(float_tangent(&key.in_tan), *i);
        assert_eq!(float_tangent(&key.out_tan), *o);
        assert_eq!(key.step.0 != 0, *flags == STEP_OUT);
    }

    // export_mesh.cpp: with EXPORT_ANIMATED_MATERIALS the mesh's material is
    // animated under the same name the tracks carry.
    let shape = shape_of(&out, &format!("{}.shape", s.node.to_lowercase()));
    let am = &shape.base.as_ref().expect("base").animated_materials;
    assert!(
        am.iter().any(|(_, m)| m.name == s.material),
        "{:?}",
        am.iter().map(|(_, m)| &m.name).collect::<Vec<_>>()
    );
}

/// The Standard material's decoded colours where they are keyed: Max shows
/// the material at frame 0, so the keyed ambient and specular (Bezier
/// Color) and self-illumination colour (TCB Point3) are the values of their
/// keys at tick 0 written above, and the unkeyed diffuse keeps the constant
/// Emissive.max stores. An ambient driven by a float track (Linear Float),
/// or with no controller on its slot, is no colour.
#[test]
fn standard_keyed_colours_are_their_values_at_frame_0() {
    let rel = "max/babylon/Emissive.max";
    let decoded = |eval: &maxfs_scene::eval::SceneEval, node: &str| {
        let n = maxfs_tests::node_index(eval, node);
        let m = mtl::node_material(&eval.graph, n).expect("material");
        mtl::material(eval, m).expect("decodes")
    };
    let close = |got: Option<[f32; 3]>, want: [f32; 3], what: &str| {
        let got = got.unwrap_or_else(|| panic!("{what}: none"));
        assert!(
            got.iter().zip(want).all(|(g, w)| (g - w).abs() <= 1e-6),
            "{what}: {got:?} vs {want:?}"
        );
    };
    let plain = maxfs_tests::corpus_eval(rel);
    let s = keyed_standard(true);
    let eval = maxfs_scene::eval::SceneEval::from_document(s.doc).expect("scene");
    let m = decoded(&eval, &s.node);
    close(m.ambient, AMBIENT[0].1, "ambient");
    close(m.specular, SPECULAR[0].1, "specular");
    close(m.self_illum_color, EMISSIVE[0].1, "self-illumination");
    let before = decoded(&plain, &s.node);
    assert!(before.diffuse.is_some());
    assert_eq!(m.diffuse, before.diffuse);
    assert_ne!(
        before.ambient, m.ambient,
        "the key differs from the constant"
    );

    // The same ambient slot driven by a float track, then by nothing.
    let g = &plain.graph;
    let node = maxfs_tests::node_index(&plain, &s.node);
    let mtl_index = mtl::node_material(g, node).expect("material");
    let shader = pblock::reference(g, mtl_index, 2).expect("shader");
    let block = pblock::reference(g, shader, 0).expect("shader block");
    for with_float in [true, false] {
        let mut e = SceneEdit::open(rel);
        e.unset_pb2_constant(block, 0);
        if with_float {
            let level = linear_float(&mut e, &LEVEL);
            assert_eq!(e.append_reference(block, level as i32), 0);
        }
        let eval = maxfs_scene::eval::SceneEval::from_document(e.finish()).expect("scene");
        let m = decoded(&eval, &s.node);
        assert_eq!(m.ambient, None, "float track: {with_float}");
        assert_eq!(m.diffuse, before.diffuse);
    }
}

/// block.max's Box01 NeL Material delegates to a Standard on its reference
/// 0; its shader block gets a keyed ambient and, with `specular`, a keyed
/// specular colour. Returns the scene and the NeL material's name.
fn keyed_nel_material(specular: bool) -> (Document, String) {
    let rel = "max/neloid/block.max";
    let eval = maxfs_tests::corpus_eval(rel);
    let g = &eval.graph;
    let node = g
        .nodes()
        .find(|(_, n)| n.name == "Box01")
        .map(|(o, _)| o.index)
        .expect("Box01");
    let m = mtl::node_material(g, node).expect("material");
    let name = mtl::material(&eval, m).expect("decodes").name;
    let std = pblock::reference(g, m, 0).expect("delegate");
    assert_eq!(
        g.objects[std].class.as_ref().map(|c| c.class_id),
        Some(ClassId(2, 0)),
        "the delegate is a Standard"
    );
    let shader = pblock::reference(g, std, 2).expect("shader");
    let block = pblock::reference(g, shader, 0).expect("shader block");
    let mut e = SceneEdit::open(rel);
    e.unset_pb2_constant(block, 0);
    let amb = bezier_color(&mut e, &AMBIENT);
    assert_eq!(e.append_reference(block, amb as i32), 0);
    if specular {
        e.unset_pb2_constant(block, 2);
        let spec = bezier_color(&mut e, &SPECULAR);
        assert_eq!(e.append_reference(block, spec as i32), 1);
    }
    appdata(&mut e, node, id::AUTOMATIC_ANIMATION, "1");
    appdata(&mut e, node, id::EXPORT_ANIMATED_MATERIALS, "1");
    (e.finish(), name)
}

/// A NeL Material's own colour parameters are named cAmbient … (nel_material.ms),
/// so getControlerByName reaches the delegate Standard's "ambient": the
/// track carries the NeL material's name. A keyed specular there is refused
/// by name: the plug-in reads the specular level through a cast of the
/// material to StdMat2 (export_anim.cpp:740), which a scripted material is not.
#[test]
fn nel_material_delegate_tracks_and_specular_refusal() {
    let (doc, name) = keyed_nel_material(false);
    let out = export("block", &doc, &[ExportKind::ShapeAnim]);
    let t = anim_output(&out, "Box01.anim");
    let Track::CTrackKeyFramerBezierRGBA(k) = track(&t, &format!("{name}.ambient")) else {
        panic!("not a Bezier RGBA track")
    };
    let values: Vec<[f32; 3]> = k.keys.iter().map(|(_, k)| v3(&k.value)).collect();
    assert_eq!(values, [AMBIENT[0].1, AMBIENT[1].1]);

    let (doc, name) = keyed_nel_material(true);
    let out = export("block", &doc, &[ExportKind::ShapeAnim]);
    assert!(out.outputs.is_empty(), "{:?}", names_of(&out));
    let why: Vec<&str> = out.errors.iter().map(|e| e.reason.as_str()).collect();
    assert!(
        why.iter()
            .any(|w| w.contains(&format!("{name}.specular")) && w.contains("not a Standard")),
        "{why:?}"
    );
}

fn names_of(out: &maxfs_exporters::nel::export::Exports) -> Vec<&str> {
    out.outputs.iter().map(|o| o.name.as_str()).collect()
}

const CAMERAS: &str = "max/babylon/AnimatedMeshCameraLight.max";
/// Field-of-view keys (radians, as the old ParamBlock stores them).
const FOV: [(i32, u32, f32, f32, f32); 2] = [
    (0, USER_TANGENTS, std::f32::consts::FRAC_PI_4, 0.0, 5.0e-5),
    (4800, USER_TANGENTS, 1.2, -5.0e-5, 0.0),
];
const ROLL: [(i32, u32, f32, f32, f32); 2] = [
    (0, USER_TANGENTS, 0.0, 0.0, 1.0e-4),
    (9600, STEP_OUT, 0.5, 0.0, 0.0),
];

/// AnimatedMeshCameraLight.max with keyed FOV on the Target camera
/// UserCamera and the Free camera AnimatedFreeCamera (old ParamBlock
/// parameter 0 made controller-driven), a keyed roll on UserCamera's LookAt,
/// and AUTOMATIC_ANIMATION on those, on CameraAnimatedTarget and on its
/// (animated) target node.
fn keyed_cameras() -> Document {
    let eval = maxfs_tests::corpus_eval(CAMERAS);
    let g = &eval.graph;
    let node = |name: &str| maxfs_tests::node_named(g, name);
    let mut e = SceneEdit::open(CAMERAS);
    for cam in ["UserCamera", "AnimatedFreeCamera"] {
        let n = node(cam);
        let obj = eval.node_object(n).expect("camera object");
        let pb = pblock::reference(g, obj, 0).expect("camera ParamBlock");
        let params = pblock::param_block(eval.chunks(pb)).expect("decodes");
        assert!(
            params.iter().all(|p| p.ref_slot.is_none()),
            "{cam}: constants"
        );
        set_uv_param(&mut e, pb, 0, None);
        let fov = bezier_float(&mut e, &FOV);
        assert_eq!(e.append_reference(pb, fov as i32), 0, "{cam}: FOV's slot");
        appdata(&mut e, n, id::AUTOMATIC_ANIMATION, "1");
    }
    let user = node("UserCamera");
    let lookat = eval.tm_controller(user).expect("LookAt");
    let roll = bezier_float(&mut e, &ROLL);
    e.set_reference(lookat, 2, roll as i32);
    for n in ["CameraAnimatedTarget", "CameraAnimatedTarget.Target"] {
        appdata(&mut e, node(n), id::AUTOMATIC_ANIMATION, "1");
    }
    e.finish()
}

fn check_float(name: &str, tr: &Track, keys: &[(i32, u32, f32, f32, f32)]) {
    let Track::CTrackKeyFramerBezierFloat(k) = tr else {
        panic!("{name}: not a Bezier float track: {tr:?}")
    };
    assert_eq!(k.keys.len(), keys.len(), "{name}");
    for ((time, key), (tick, flags, v, i, o)) in k.keys.iter().zip(keys) {
        assert_eq!(time.get(), *tick as f32 / TICKS, "{name}");
        assert_eq!(key.value.get(), *v, "{name}");
        assert_eq!(float_tangent(&key.in_tan), *i, "{name}");
        assert_eq!(float_tangent(&key.out_tan), *o, "{name}");
        assert_eq!(key.step.0 != 0, *flags == STEP_OUT, "{name}");
    }
}

/// addObjTracks: the camera's "FOV" controller as `fov`, a float track of
/// the stored radians (CCamera::getFovValueName, camera.h; buildNelKey of a
/// Bezier float, export_anim.cpp:1082-1091), for Free and Target cameras.
/// addNodeTracks, for a Target camera only (isCamera): the LookAt's roll as
/// `roll` and the target node's position controller as `target`
/// (export_anim.cpp:413-466), the latter the same track as the target
/// node's own `pos` (its .anim here, whose positions the glTF comparison of
/// automatic_animation_node_tracks_match_gltf covers for such nodes).
#[test]
fn camera_fov_roll_and_target_tracks() {
    let doc = keyed_cameras();
    let out = export("cameras", &doc, &[ExportKind::ShapeAnim]);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let user = anim_output(&out, "UserCamera.anim");
    check_float("UserCamera fov", track(&user, "fov"), &FOV);
    check_float("UserCamera roll", track(&user, anim::ROLL), &ROLL);
    let free = anim_output(&out, "AnimatedFreeCamera.anim");
    check_float("AnimatedFreeCamera fov", track(&free, "fov"), &FOV);
    assert!(
        !names(&free).contains(&anim::ROLL) && !names(&free).contains(&anim::TARGET),
        "a Free camera has no roll or target: {:?}",
        names(&free)
    );
    let cam = anim_output(&out, "CameraAnimatedTarget.anim");
    let target = anim_output(&out, "CameraAnimatedTarget.Target.anim");
    let a = serde_json::to_value(track(&cam, anim::TARGET)).expect("json");
    let b = serde_json::to_value(track(&target, anim::POS)).expect("json");
    assert_eq!(a, b, "target = the target node's pos track");
    assert!(
        !names(&cam).contains(&"fov") && !names(&cam).contains(&anim::ROLL),
        "unkeyed FOV and roll give no track: {:?}",
        names(&cam)
    );
}

/// The constructed material and camera scenes, damaged: the exporters never
/// panic (see export_shape_anim::damaged_exports).
#[test]
fn damaged_material_and_camera_scenes_export_cleanly() {
    for (doc, stem, seed) in [
        (keyed_standard(true).doc, "emissive", 0x00c0_10a7_5eed_u64),
        (keyed_cameras(), "cameras", 0x00ca_3e7a_f00d_u64),
        (keyed_nel_material(false).0, "block", 0x0b10_c0de_u64),
    ] {
        let (runs, anims) = damaged_exports(&doc, stem, seed);
        assert!(
            runs > 30 && anims > 5,
            "{stem}: {runs} runs, {anims} animations"
        );
    }
}
