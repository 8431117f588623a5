//! Segment remanence (`CSegRemanenceShape`, weapon trails). No corpus file
//! sets USE_REMANENCE and no reference export of one is in the corpus, so
//! each rule of the plug-in (nel_mesh_lib/export_remanence.cpp
//! `buildRemanence`; seed S003 §10z-dix) is checked on copies of real
//! corpus scenes whose spline nodes get the remanence AppData (and, for the
//! material rules, a material transplanted from kwxport_cube.max) through
//! our writers:
//! - corners: `InterpPiece3D(t, 0, 0, 0)` then `InterpPiece3D(t, 0, k−1, 1)`
//!   for every segment: the spline's knots, in the node's space — checked
//!   against the scene's sampled polyline of the same spline (its knot
//!   points, in order; a closed spline ends on its first knot) placed in
//!   world space by the object TM, against the corner placed by the node TM;
//! - slices (≤ 2 → 2, the plug-in's clamp), sampling period (≤ 0 → 0.02),
//!   roll-up ratio (≤ 0 → 1), texture shifting, as stored;
//! - one material only (a Multi/Sub-Object of 3 is refused as the plug-in
//!   does), named as the animated material with EXPORT_ANIMATED_MATERIALS,
//!   which then carries CMaterialBase's constructor defaults
//!   (animated_material.cpp);
//! - default tracks recompose the node's local matrix (decompMatrix);
//! - the bounding box is CSegRemanenceShape's constructor box;
//! - one curve with a segment, a spline shape, no stack: else refused by name.
//!
//! Every shape reads back and rewrites byte-identically through our NeL
//! reader, and NeL itself loads and rewrites it identically (the oracle). Of the 7
//! corpus splines, 3 have an unsheared local matrix whose default tracks are
//! recomposed (1st_island's Lines sit under a non-uniform scale: shear).

use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
use maxfs_exporters::nel::export::shape::remanence_build::{RemanenceError, RemanenceParams};
use maxfs_exporters::nel::export::ExportKind;
use maxfs_exporters::nel::shape::material::Texture;
use maxfs_exporters::nel::shape::seg_remanence::SegRemanenceShape;
use maxfs_exporters::nel::shape::{Shape, ShapeStream};
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::eval::render::material as mtl;
use maxfs_scene::eval::{SceneEval, Vec3};
use maxfs_scene::Document;
use maxfs_tests::rewrite::SceneEdit;

const KEY: &str = "max/misc/Key.max";
const CUBE: &str = "max/misc/kwxport_cube.max";

/// Reads a shape back, checks it rewrites to the same bytes, returns it.
fn remanence_of(bytes: &[u8], name: &str) -> SegRemanenceShape {
    let f = read_nel(bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(write_nel(&f).expect("rewrite"), bytes, "{name}: rewrite");
    match f {
        NelFile::Shape(ShapeStream { shape }) => match shape.get() {
            Some(Shape::CSegRemanenceShape(s)) => s.clone(),
            other => panic!("{name}: not a remanence shape: {other:?}"),
        },
        other => panic!("{name}: not a shape: {other:?}"),
    }
}

/// NeL's own checker (tests/oracle/nel_check.sh) on `files`: each loads
/// and is written back byte-identically.
pub(crate) fn nel_oracle(files: &[(String, Vec<u8>)]) {
    maxfs_tests::oracle::check("nel_check.sh", files, "OK\t");
}

fn appdata(e: &mut SceneEdit, node: usize, entries: &[(u32, &str)]) {
    for (sub, text) in entries {
        e.add_appdata(node, (NEL_CLASS_ID, NEL_SUPER_CLASS), *sub, text);
    }
}

/// The scene's own sampling of the node's spline: the polyline's knot
/// points in object space, the first again at the end of a closed one.
fn knots_of_polyline(eval: &SceneEval, node: usize) -> Vec<Vec3> {
    let s = eval.shape(node, 0).expect("a shape").expect("evaluates");
    assert_eq!(s.polylines.len(), 1, "one curve");
    let line = &s.polylines[0];
    let mut pts: Vec<Vec3> = line.pts.iter().filter(|p| p.knot).map(|p| p.p).collect();
    if line.closed {
        pts.push(pts[0]);
    }
    pts
}

/// Every corner, placed in the world by the node TM, is the corresponding
/// knot of the sampled spline placed by the object TM (1e-5 of the size).
fn check_corners(eval: &SceneEval, node: usize, s: &SegRemanenceShape, what: &str) {
    let knots = knots_of_polyline(eval, node);
    assert_eq!(
        s.corners.len(),
        knots.len(),
        "{what}: corners = segments + 1"
    );
    let world = eval.world_tm(node, 0);
    let object = eval.object_tm(node, 0);
    let size = knots.iter().fold(1.0f64, |m, k| m.max(k.len()));
    for (c, k) in s.corners.iter().zip(&knots) {
        let c = Vec3(c.x.get() as f64, c.y.get() as f64, c.z.get() as f64);
        let a = world.transform_point(c);
        let b = object.transform_point(*k);
        assert!(
            a.minus(b).len() <= 1e-5 * size,
            "{what}: corner {a:?} vs knot {b:?}"
        );
    }
}

/// decompMatrix's tracks recompose the local matrix: Max rows (axes) are the
/// columns of NeL's quaternion rotation, times the scale.
/// Returns false (nothing checked) for a sheared local matrix.
fn check_defaults(eval: &SceneEval, node: usize, s: &SegRemanenceShape, what: &str) -> bool {
    let p = s.default_pos.as_ref().expect("v2 tracks").value.clone();
    let q = s.default_rot_quat.as_ref().expect("v2").value.clone();
    let sc = s.default_scale.as_ref().expect("v2").value.clone();
    // Column-vector rotation matrix of a unit quaternion (CMatrix::setRot).
    let r = maxfs_scene::eval::core::math::Quat {
        x: q.x.get() as f64,
        y: q.y.get() as f64,
        z: q.z.get() as f64,
        w: q.w.get() as f64,
    }
    .to_column_matrix();
    let scale = [sc.x.get() as f64, sc.y.get() as f64, sc.z.get() as f64];
    let rows = eval.local_tm(node, 0).rows();
    // NeL's tracks hold no shear: a sheared local matrix (a non-uniform
    // scale above a rotation, as 1st_island's Lines have) only recomposes
    // to its polar part, which is checked elsewhere (decomp.rs).
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let len = |a: [f64; 3]| dot(a, a).sqrt();
    let sheared = (0..3).any(|i| {
        let j = (i + 1) % 3;
        dot(rows[i], rows[j]).abs() > 1e-5 * len(rows[i]) * len(rows[j])
    });
    if sheared {
        return false;
    }
    for i in 0..3 {
        for j in 0..3 {
            let m = r[j][i] * scale[i];
            assert!(
                (m - rows[i][j]).abs() < 1e-5 * scale[i].abs().max(1.0),
                "{what}: axis {i}[{j}] {m} vs {}",
                rows[i][j]
            );
        }
    }
    let pos = [p.x.get() as f64, p.y.get() as f64, p.z.get() as f64];
    for j in 0..3 {
        assert!(
            (pos[j] - rows[3][j]).abs() < 1e-5 * rows[3][j].abs().max(1.0),
            "{what}: pos"
        );
    }
    true
}

/// The object index of the material called `name` in corpus file `rel`.
fn material_named(rel: &str, name: &str) -> usize {
    let eval = maxfs_tests::corpus_eval(rel);
    (0..eval.graph.objects.len())
        .find(|&i| mtl::material(&eval, i).is_some_and(|m| m.name == name))
        .unwrap_or_else(|| panic!("{rel}: no material {name}"))
}

fn export_shapes(stem: &str, doc: &Document) -> maxfs_exporters::nel::export::Exports {
    maxfs_tests::export_doc(stem, doc, &[ExportKind::Shape])
}

fn reason(ex: &maxfs_exporters::nel::export::Exports, node: &str) -> Option<String> {
    ex.errors
        .iter()
        .find(|x| x.node == node)
        .map(|x| x.reason.clone())
}

/// Key.max's SplineShape "Shape" (an open spline of 2 knots, the usual trail
/// segment) with every parameter set, and kwxport_cube's "top" material
/// (Standard with top.tga) on it: the full layout.
#[test]
fn remanence_from_key_spline() {
    let mut cube = SceneEdit::open(CUBE);
    let top = material_named(CUBE, "top");
    let mut e = SceneEdit::open(KEY);
    let node = e.node("Shape");
    let copied = e.transplant(&mut cube, top);
    e.set_reference(node, 3, copied[0].1 as i32);
    appdata(
        &mut e,
        node,
        &[
            (id::USE_REMANENCE, "1"),
            (id::REMANENCE_SLICE_NUMBER, "12"),
            (id::REMANENCE_SAMPLING_PERIOD, "0.05"),
            (id::REMANENCE_ROLLUP_RATIO, "0.5"),
            (id::REMANENCE_SHIFTING_TEXTURE, "1"),
            (id::EXPORT_ANIMATED_MATERIALS, "1"),
        ],
    );
    let doc = e.finish();
    let ex = export_shapes("Key", &doc);
    assert_eq!(reason(&ex, "Shape"), None, "{:?}", ex.errors);
    let out = ex
        .outputs
        .iter()
        .find(|o| o.name == "shape.shape")
        .expect("shape.shape");
    let s = remanence_of(&out.bytes, &out.name);
    assert_eq!(s.version, 2);
    assert_eq!(s.num_slices, 12);
    assert_eq!(s.slice_time.get(), 0.05);
    assert_eq!(s.roll_up_ratio.map(|r| r.get()), Some(0.5));
    assert_eq!(s.texture_shifting.0, 1);
    // The constructor box, never set by the plug-in.
    assert_eq!(
        [
            s.bbox.center.x.get(),
            s.bbox.half_size.x.get(),
            s.bbox.half_size.z.get()
        ],
        [0.0, 3.0, 3.0]
    );
    let eval = SceneEval::from_document(doc.clone()).expect("scene");
    check_corners(&eval, node, &s, "Key Shape");
    assert_eq!(s.corners.len(), 2);
    assert!(check_defaults(&eval, node, &s, "Key Shape"), "not sheared");
    // The single material, with its texture; the animated material is the
    // material's name with CMaterialBase's constructor defaults.
    match s.material.textures[0].get() {
        Some(Texture::CTextureFile(f)) => assert_eq!(f.file_name, "top.tga"),
        other => panic!("texture 0: {other:?}"),
    }
    let a = s.animated_material.get().expect("animated material");
    assert_eq!(a.name, "top");
    assert_eq!(
        [
            a.ambient.value.r,
            a.diffuse.value.r,
            a.specular.value.r,
            a.emissive.value.g
        ],
        [64, 128, 0, 128]
    );
    assert_eq!(
        (a.shininess.value.get(), a.opacity.value.get()),
        (10.0, 1.0)
    );
    assert_eq!(a.texture.value, 0x7FFF_FFFF);
    nel_oracle(&[("shape.shape".into(), out.bytes.clone())]);
}

/// The plug-in's parameter fallbacks (export_remanence.cpp): slices ≤ 2 → 2,
/// period ≤ 0 → 0.02, roll-up ≤ 0 → 1; shifting off and no animated material
/// by default; the node's default material when it has none (Key's Shape).
#[test]
fn remanence_parameter_fallbacks() {
    let mut e = SceneEdit::open(KEY);
    let node = e.node("Shape");
    appdata(
        &mut e,
        node,
        &[
            (id::USE_REMANENCE, "1"),
            (id::REMANENCE_SLICE_NUMBER, "1"),
            (id::REMANENCE_SAMPLING_PERIOD, "0"),
            (id::REMANENCE_ROLLUP_RATIO, "-2"),
        ],
    );
    let doc = e.finish();
    let ex = export_shapes("Key", &doc);
    let out = ex
        .outputs
        .iter()
        .find(|o| o.name == "shape.shape")
        .unwrap_or_else(|| panic!("{:?}", ex.errors));
    let s = remanence_of(&out.bytes, &out.name);
    assert_eq!(s.num_slices, 2);
    assert_eq!(s.slice_time.get(), 0.02);
    assert_eq!(s.roll_up_ratio.map(|r| r.get()), Some(1.0));
    assert_eq!(s.texture_shifting.0, 0);
    assert!(s.animated_material.get().is_none());
    let mut files = vec![("fallbacks.shape".to_string(), out.bytes.clone())];

    // Without any parameter: the plug-in's defaults (2 slices, 0.02 s, 1).
    let mut e = SceneEdit::open(KEY);
    appdata(&mut e, node, &[(id::USE_REMANENCE, "1")]);
    let ex = export_shapes("Key", &e.finish());
    let out = ex
        .outputs
        .iter()
        .find(|o| o.name == "shape.shape")
        .expect("exports");
    let d = remanence_of(&out.bytes, &out.name);
    assert_eq!(
        (
            d.num_slices,
            d.slice_time.get(),
            d.roll_up_ratio.map(|r| r.get())
        ),
        (2, 0.02, Some(1.0))
    );
    files.push(("defaults.shape".to_string(), out.bytes.clone()));
    nel_oracle(&files);
}

/// Splines of other corpus files: 1st_island's four Lines, animation.max's
/// Line and Arc (a parametric shape), LD33_Character's Line. Every corner is
/// a knot of the sampled spline in the node's space; a closed spline comes
/// back to its first knot; slices and period as set.
#[test]
fn remanence_corners_on_corpus_splines() {
    let (mut checked, mut recomposed) = (0, 0);
    let mut files = Vec::new();
    for (file, stem) in [
        ("max/prims-pranto/1st_island.max", "1st_island"),
        ("max/prims-pranto/animation.max", "animation"),
        ("max/cat/LD33_Character.max", "LD33_Character"),
    ] {
        let base = maxfs_tests::corpus_eval(file);
        let splines: Vec<(usize, String)> = maxfs_tests::named_nodes(&base)
            .into_iter()
            .filter(|&(n, _)| {
                base.shape(n, 0).is_some()
                    && base.modifier_stack(n).is_none_or(|(s, _)| s.is_empty())
            })
            .collect();
        assert!(!splines.is_empty(), "{file}: spline nodes");
        let mut e = SceneEdit::open(file);
        for (n, _) in &splines {
            appdata(
                &mut e,
                *n,
                &[
                    (id::USE_REMANENCE, "1"),
                    (id::REMANENCE_SLICE_NUMBER, "7"),
                    (id::REMANENCE_SAMPLING_PERIOD, "0.125"),
                ],
            );
        }
        let doc = e.finish();
        let ex = export_shapes(stem, &doc);
        let eval = SceneEval::from_document(doc).expect("scene");
        for (n, name) in &splines {
            let want = format!("{}.shape", name.to_lowercase());
            let Some(out) = ex.outputs.iter().find(|o| o.name == want) else {
                panic!("{file} {name}: {:?}", reason(&ex, name));
            };
            let s = remanence_of(&out.bytes, &out.name);
            assert_eq!((s.num_slices, s.slice_time.get()), (7, 0.125));
            check_corners(&eval, *n, &s, &format!("{file} {name}"));
            recomposed += usize::from(check_defaults(&eval, *n, &s, &format!("{file} {name}")));
            let spline = eval.shape(*n, 0).expect("shape").expect("ok");
            let closed = spline.polylines[0].closed;
            let (first, last) = (&s.corners[0], &s.corners[s.corners.len() - 1]);
            assert_eq!(
                closed,
                first.x.get() == last.x.get()
                    && first.y.get() == last.y.get()
                    && first.z.get() == last.z.get(),
                "{file} {name}: a closed spline ends on its first knot"
            );
            files.push((format!("{stem}_{want}"), out.bytes.clone()));
            checked += 1;
        }
    }
    eprintln!("remanence: {checked} corpus splines, {recomposed} unsheared defaults recomposed");
    assert!(checked >= 6, "only {checked} splines checked");
    assert!(recomposed >= 1, "no unsheared spline node");
    nel_oracle(&files);
}

/// The plug-in's refusals, each named: a Multi/Sub-Object of three
/// materials ("should have a single material"), a mesh ("Can't get curves"),
/// two curves (Villian's Egg: "only one curve"), a spline under a modifier
/// stack (Sword's Line under Extrude and Edit Poly: not evaluated on
/// shapes), a negative slice count, a NaN period.
#[test]
fn remanence_refusals() {
    // Multi/Sub-Object.
    let mut cube = SceneEdit::open(CUBE);
    let multi = material_named(CUBE, "cubematerial");
    let mut e = SceneEdit::open(KEY);
    let node = e.node("Shape");
    let copied = e.transplant(&mut cube, multi);
    e.set_reference(node, 3, copied[0].1 as i32);
    appdata(&mut e, node, &[(id::USE_REMANENCE, "1")]);
    let ex = export_shapes("Key", &e.finish());
    assert_eq!(
        reason(&ex, "Shape"),
        Some(RemanenceError::NotOneMaterial(3).to_string())
    );

    // A mesh node.
    let mut e = SceneEdit::open("max/neloid/block.max");
    let node = e.node("Box01");
    appdata(&mut e, node, &[(id::USE_REMANENCE, "1")]);
    let r = reason(&export_shapes("block", &e.finish()), "Box01").expect("refused");
    assert!(
        r.starts_with("remanent segment: can't get curves from a Box"),
        "{r}"
    );

    // Two curves.
    let mut e = SceneEdit::open("max/prims-pranto/Villian.max");
    let node = e.node("Egg001");
    appdata(&mut e, node, &[(id::USE_REMANENCE, "1")]);
    let r = reason(&export_shapes("Villian", &e.finish()), "Egg001").expect("refused");
    assert!(r.contains("has 2 curve(s)"), "{r}");

    // A stack on the spline.
    let eval = maxfs_tests::corpus_eval("max/prims-greejesh/Sword.max");
    let (line, line_name) = maxfs_tests::named_nodes(&eval)
        .into_iter()
        .find(|&(n, _)| eval.shape(n, 0).is_some())
        .expect("Sword's Line");
    let mut e = SceneEdit::open("max/prims-greejesh/Sword.max");
    appdata(&mut e, line, &[(id::USE_REMANENCE, "1")]);
    let r = reason(&export_shapes("Sword", &e.finish()), &line_name).expect("refused");
    assert!(r.starts_with("remanent segment: modifier Edit Poly"), "{r}");

    // Parameters the plug-in would turn into nonsense.
    let mut p = maxfs_exporters::nel::export::properties::NodeProperties::default();
    p.remanence_slice_number = -3;
    assert!(matches!(
        RemanenceParams::from_props(&p),
        Err(RemanenceError::NegativeSlices(-3))
    ));
    p.remanence_slice_number = 4;
    p.remanence_sampling_period = f32::NAN;
    assert!(matches!(
        RemanenceParams::from_props(&p),
        Err(RemanenceError::NotFinite("REMANENCE_SAMPLING_PERIOD"))
    ));
    let mut e = SceneEdit::open(KEY);
    let node = e.node("Shape");
    appdata(
        &mut e,
        node,
        &[(id::USE_REMANENCE, "1"), (id::REMANENCE_SLICE_NUMBER, "-1")],
    );
    assert_eq!(
        reason(&export_shapes("Key", &e.finish()), "Shape"),
        Some(RemanenceError::NegativeSlices(-1).to_string())
    );
}
