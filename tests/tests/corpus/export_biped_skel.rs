//! `.skel` of the corpus Biped rigs, in figure mode as skel_export.ms exports
//! them (`$Bip01.controller.figureMode = true`, then NelExportSkeleton).
//!
//! - Every rig whose bones all evaluate in figure mode writes a skeleton that
//!   our NeL reader reads back and re-serializes byte for byte; a rig with a
//!   bone the figure refuses writes none and errors.txt names the bone and why.
//! - Each bone's bind pose (InvBindPos inverted) is its figure-mode world TM:
//!   for a Biped bone the one eval_biped.rs and eval_biped_neoaxis.rs check
//!   against the Skin bind poses and NeoAxis; the default tracks compose
//!   back to the bind poses down the hierarchy (the root reset to identity).
//! - Conventions the 24 Biped skeletons of nel/ryzom_graphics (written by the
//!   plug-in from figure mode) fix, checked on them and on ours: the footsteps
//!   node sits on the ground (world z within 2e-3 of the rig's height of 0)
//!   with the world's axes, under the COM at its (x, y); the pelvis's local
//!   rotation is ±(0.5, 0.5, 0.5, −0.5); a hand turns about its forearm's X
//!   by about a right angle (within 10°), the left one way, the right the
//!   other.

use maxfs_exporters::nel::export::{skel, ExportKind};
use maxfs_exporters::nel::shape::Shape;
use maxfs_exporters::nel::skel::SkeletonShape;
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::eval::core::transform::invert;
use maxfs_scene::eval::rigs::biped::{self, figure};
use maxfs_scene::eval::{Mat43, Quat, SceneEval, Vec3};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

fn skeleton(bytes: &[u8], name: &str) -> SkeletonShape {
    match read_nel(bytes, name).unwrap_or_else(|e| panic!("{name}: {e}")) {
        NelFile::Shape(s) => match s.shape.get() {
            Some(Shape::CSkeletonShape(k)) => k.clone(),
            _ => panic!("{name}: not a skeleton"),
        },
        _ => panic!("{name}: not a shape stream"),
    }
}

/// The bind pose of bone `i` (InvBindPos inverted), Max rows.
fn bind(s: &SkeletonShape, i: usize) -> Mat43 {
    invert(&skel::mat43_of(&s.bones[i].inv_bind_pos))
}

fn quat(q: &maxfs_exporters::nel::stream::Quat) -> Quat {
    Quat {
        x: f64::from(q.x.get()),
        y: f64::from(q.y.get()),
        z: f64::from(q.z.get()),
        w: f64::from(q.w.get()),
    }
}

fn bone(s: &SkeletonShape, name: &str) -> Option<usize> {
    s.bones.iter().position(|b| b.name == name)
}

/// The conventions of the module doc on one skeleton; `height` scales the
/// ground tolerance. Returns the violations and how many hands were seen.
fn conventions(tag: &str, s: &SkeletonShape, height: f64) -> (Vec<String>, usize) {
    let mut bad = Vec::new();
    let prefix = s.bones[0].name.clone();
    if let Some(f) = bone(s, &format!("{prefix} Footsteps")) {
        let (w, com) = (bind(s, f), bind(s, 0));
        let axes = (0..3)
            .flat_map(|r| (0..3).map(move |c| (r, c)))
            .map(|(r, c)| (w.rows()[r][c] - Mat43::IDENTITY.rows()[r][c]).abs())
            .fold(0.0, f64::max);
        let p = w.0[3];
        let under = (p.0 - com.0[3].0).abs().max((p.1 - com.0[3].1).abs());
        if axes > 1e-4 || p.2.abs() > 2e-3 * height || under > 1e-4 * height {
            bad.push(format!(
                "{tag}: footsteps at {p:?} (axes off by {axes:.1e}) under a COM at {:?}",
                com.0[3]
            ));
        }
    }
    if let Some(p) = bone(s, &format!("{prefix} Pelvis")) {
        let q = quat(&s.bones[p].default_rot_quat.value);
        if q.dot(Quat {
            x: 0.5,
            y: 0.5,
            z: 0.5,
            w: -0.5,
        })
        .abs()
            < 1.0 - 1e-5
        {
            bad.push(format!("{tag}: pelvis local rotation {q:?}"));
        }
    }
    let mut hands = 0;
    for (side, sign) in [("L", -1.0), ("R", 1.0)] {
        let (Some(h), Some(f)) = (
            bone(s, &format!("{prefix} {side} Hand")),
            bone(s, &format!("{prefix} {side} Forearm")),
        ) else {
            continue;
        };
        hands += 1;
        // The hand's Y axis in its forearm's frame: (0, 0, ±1) for a turn of
        // ±90° about X.
        let local = bind(s, h).then(&invert(&bind(s, f)));
        let y = local.0[1].normalized();
        if y.2 * sign < (80f64).to_radians().cos() {
            bad.push(format!(
                "{tag}: {side} hand's Y axis {y:?} in its forearm's frame"
            ));
        }
    }
    (bad, hands)
}

#[test]
fn ryzom_biped_skeletons_fix_footsteps_pelvis_and_hands() {
    let dir = corpus_dir().join("nel/ryzom_graphics");
    let (mut bad, mut checked, mut hands) = (Vec::new(), 0, 0);
    for f in maxfs_tests::files_with_ext(&dir, &["skel"]) {
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let s = skeleton(&std::fs::read(&f).expect("read"), &name);
        if !s.bones[0].name.starts_with("Bip") {
            continue;
        }
        // The references are in metres: a 1.8 m figure.
        let (b, h) = conventions(&name, &s, 1.8);
        checked += 1;
        hands += h;
        bad.extend(b);
    }
    println!("nel/ryzom_graphics: {checked} Biped skeletons, {hands} hands");
    assert!(
        checked >= 20 && hands >= 40,
        "{checked} skeletons, {hands} hands"
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The corpus Biped files and whether their figure evaluates in full.
const RIGS: &[(&str, bool)] = &[
    ("biped-ld35/Player.max", true),
    ("biped-ld35/Player@Idle.max", true),
    ("biped-ld35/Player@Run.max", true),
    ("biped-ld35/Red@Run.max", true),
    ("biped-ld35/Red@Spawn.max", true),
    // Bip01 R/L Ear0/1 and their nubs: extra limbs (ids 200/201, 400/401).
    ("biped-ld35/Yellow.max", true),
    ("biped-ld35/Yellow@Spawn.max", true),
    // Bip01 is linked to Dummy01: the link-parent rule is not evaluated.
    ("biped/RabbitSkin.max", false),
    // Its asymmetric left arm evaluates (each side its own halves, checked
    // against its Skin's stored mesh TMs: eval_biped_figure_mode.rs).
    ("biped/SeanConway_Character.max", true),
];

#[test]
fn biped_skeletons_export_in_figure_mode() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for &(rel, whole) in RIGS {
        let stem = std::path::Path::new(rel)
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("stem");
        let doc = Document::open(&corpus_dir().join("max").join(rel)).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let out = maxfs_exporters::nel::export::export(stem, &eval, &[ExportKind::Skel]);
        let skel_out = out.outputs.iter().find(|o| o.name.ends_with(".skel"));
        let Some(o) = skel_out else {
            let errors: Vec<String> = out
                .errors
                .iter()
                .filter(|e| e.kind == ExportKind::Skel)
                .map(|e| format!("{}: {}", e.node, e.reason))
                .collect();
            assert!(!whole, "{rel}: no .skel: {}", errors.join("; "));
            assert!(
                errors.iter().any(|e| e.contains("not evaluated (")),
                "{rel}: no .skel and no reason named: {errors:?}"
            );
            report.push(format!("{rel}: refused: {}", errors.join("; ")));
            continue;
        };
        assert!(whole, "{rel}: a .skel although a bone is not evaluated");
        let s = skeleton(&o.bytes, &o.name);
        assert_eq!(
            write_nel(&read_nel(&o.bytes, &o.name).expect("reads")).expect("writes"),
            o.bytes,
            "{rel}: re-serializes"
        );
        let rig = biped::rigs(&eval).remove(0).expect("rig");
        let height = rig.figure.height.expect("height");
        // Bind poses: the figure-mode world TM of every Biped bone.
        let (mut biped_bones, mut worst_bind) = (0, 0.0f64);
        for (i, b) in s.bones.iter().enumerate() {
            let Some(rb) = rig.bones.iter().find(|r| r.name == b.name) else {
                continue;
            };
            let want = figure::world(&rig, rb.role).expect("evaluated");
            let got = bind(&s, i);
            let d = (0..4)
                .flat_map(|r| (0..3).map(move |c| (r, c)))
                .map(|(r, c)| {
                    let k = if r == 3 { 1.0 / height } else { 1.0 };
                    (got.rows()[r][c] - want.rows()[r][c]).abs() * k
                })
                .fold(0.0, f64::max);
            biped_bones += 1;
            worst_bind = worst_bind.max(d);
            if d > 1e-4 {
                failures.push(format!("{rel}: {} bind pose off by {d:.2e}", b.name));
            }
        }
        // Default tracks compose back to the bind poses (root at identity).
        let root = bind(&s, 0);
        let mut composed: Vec<Mat43> = Vec::with_capacity(s.bones.len());
        let mut worst = 0.0f64;
        for (i, b) in s.bones.iter().enumerate() {
            let local = Mat43::rotation(quat(&b.default_rot_quat.value).normalized()).then(
                &Mat43::translation(Vec3(
                    f64::from(b.default_pos.value.x.get()),
                    f64::from(b.default_pos.value.y.get()),
                    f64::from(b.default_pos.value.z.get()),
                )),
            );
            let w = match usize::try_from(b.father_id) {
                Ok(f) => local.then(&composed[f]),
                Err(_) => Mat43::IDENTITY,
            };
            let want = bind(&s, i).then(&invert(&root));
            let d = (0..4)
                .flat_map(|r| (0..3).map(move |c| (r, c)))
                .map(|(r, c)| {
                    (w.rows()[r][c] - want.rows()[r][c]).abs() / if r == 3 { height } else { 1.0 }
                })
                .fold(0.0, f64::max);
            worst = worst.max(d);
            composed.push(w);
        }
        if worst > 1e-4 {
            failures.push(format!(
                "{rel}: default tracks miss the bind poses by {worst:.2e}"
            ));
        }
        let (bad, hands) = conventions(rel, &s, height);
        failures.extend(bad);
        report.push(format!(
            "{rel}: {} bones ({biped_bones} Biped) at their figure pose within {worst_bind:.1e} (positions over the height {height:.1}), default tracks within {worst:.1e}, {hands} hands",
            s.bones.len()
        ));
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
