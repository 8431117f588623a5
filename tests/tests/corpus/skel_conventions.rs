//! The `.skel` conventions of the NeL exporter, as its own outputs fix them:
//! the 26 skeletons of nel/ryzom_graphics (24 Character Studio Biped rigs,
//! one older Biped file, one Bone rig), written by the plug-in's
//! buildSkeletonShape. Each property below is checked on every one of them,
//! then on every `.skel` we export from the corpus:
//!
//! 1. one root, bone 0 (father −1); every father precedes its son and the
//!    order is depth-first (each bone's subtree follows it contiguously);
//! 2. names are unique; a name ending in `_Second` is a repeated node name
//!    whose first bearer comes earlier;
//! 3. the bone map lists every bone once, by name;
//! 4. UnheritScale is set on every bone whose father is a Biped bone
//!    (getNELUnHeritFatherScale: Biped node TMs carry no scale) and on a
//!    Biped root;
//! 5. default tracks: the root's position is null and its rotation the
//!    identity (bones version 2, the current exporter: "root must be exported
//!    with identity"); every bone's Euler rotation and pivot are null;
//! 6. LOD distances: a son of a bone disabled at distance d is disabled at
//!    some distance in (0, d] (CSkeletonShape::build clamps by the father).
//!
//! In the references a Biped bone is one whose name carries the rig's
//! `Bip01` prefix (the Footsteps node is not driven by a Biped controller);
//! in ours it is one whose TM controller is Biped's.

use std::collections::BTreeMap;

use maxfs_exporters::nel::export::{skinning, Context, ExportKind};
use maxfs_exporters::nel::shape::Shape;
use maxfs_exporters::nel::skel::SkeletonShape;
use maxfs_exporters::nel::{read_nel, NelFile};
use maxfs_scene::eval::SceneEval;
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

/// Checks properties 1–6 on one skeleton; `biped` says whether a bone (by
/// index) is a Biped bone. Returns the violations.
fn violations(name: &str, s: &SkeletonShape, biped: &dyn Fn(usize) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let bones = &s.bones;
    let mut bad = |what: String| out.push(format!("{name}: {what}"));
    // 1. Root first, depth-first order.
    for (i, b) in bones.iter().enumerate() {
        let root = b.father_id < 0;
        if root != (i == 0) {
            bad(format!("bone {i} {:?}: father {}", b.name, b.father_id));
        }
        if !root && b.father_id as usize >= i {
            bad(format!(
                "bone {i} {:?}: father {} after it",
                b.name, b.father_id
            ));
        }
    }
    let ancestors = |mut i: usize| {
        let mut a = Vec::new();
        while let Ok(f) = usize::try_from(bones[i].father_id) {
            if a.len() > bones.len() {
                break;
            }
            a.push(f);
            i = f;
        }
        a
    };
    for (i, b) in bones.iter().enumerate().skip(1) {
        // Preorder: the father of bone i is bone i−1 or one of its ancestors.
        let f = b.father_id as usize;
        if f != i - 1 && !ancestors(i - 1).contains(&f) {
            bad(format!(
                "bone {i} {:?} breaks the depth-first order",
                b.name
            ));
        }
    }
    // 2. Names.
    let mut seen = BTreeMap::new();
    for (i, b) in bones.iter().enumerate() {
        if seen.insert(b.name.clone(), i).is_some() {
            bad(format!("name {:?} repeated", b.name));
        }
        if let Some(base) = b.name.strip_suffix("_Second") {
            if seen.get(base).is_none_or(|&j| j >= i) {
                bad(format!("{:?} without an earlier {base:?}", b.name));
            }
        }
    }
    // 3. Bone map.
    let map: BTreeMap<&str, u32> = s.bone_map.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    if map.len() != bones.len()
        || bones
            .iter()
            .enumerate()
            .any(|(i, b)| map.get(b.name.as_str()) != Some(&(i as u32)))
    {
        bad("bone map does not list every bone by name".into());
    }
    // 4. UnheritScale under Biped fathers and on a Biped root.
    for (i, b) in bones.iter().enumerate() {
        let father_biped = usize::try_from(b.father_id).is_ok_and(biped);
        let want = father_biped || (i == 0 && biped(0));
        if want && b.unherit_scale.0 == 0 {
            bad(format!(
                "{:?}: UnheritScale not set under a Biped father",
                b.name
            ));
        }
    }
    // 5. Default tracks.
    for (i, b) in bones.iter().enumerate() {
        let v = |x: &maxfs_exporters::nel::stream::Vec3| [x.x.get(), x.y.get(), x.z.get()];
        if v(&b.default_rot_euler.value) != [0.0; 3] || v(&b.default_pivot.value) != [0.0; 3] {
            bad(format!("{:?}: Euler rotation or pivot not null", b.name));
        }
        if i == 0 && b.version >= 2 {
            let q = &b.default_rot_quat.value;
            if v(&b.default_pos.value) != [0.0; 3]
                || (q.x.get(), q.y.get(), q.z.get(), q.w.get()) != (0.0, 0.0, 0.0, 1.0)
            {
                bad(format!(
                    "root {:?}: default position/rotation not identity",
                    b.name
                ));
            }
        }
    }
    // 6. LOD distances clamped by the father.
    for b in bones.iter().skip(1) {
        let d = |x: &maxfs_exporters::nel::skel::BoneBase| {
            x.lod_disable_distance.map_or(0.0, |v| v.get())
        };
        let fd = d(&bones[b.father_id as usize]);
        if fd > 0.0 && !(d(b) > 0.0 && d(b) <= fd) {
            bad(format!(
                "{:?}: LOD distance {} under a father at {fd}",
                b.name,
                d(b)
            ));
        }
    }
    out
}

#[test]
fn ryzom_skeletons_fix_the_conventions_and_ours_follow_them() {
    let dir = corpus_dir().join("nel/ryzom_graphics");
    let files = maxfs_tests::files_with_ext(&dir, &["skel"]);
    // At least the 26 the README lists (more may be added; never an exact count).
    assert!(
        files.len() >= 26,
        "ryzom_graphics .skel files: {}",
        files.len()
    );
    let mut failures = Vec::new();
    let (mut bones, mut under_biped) = (0, 0);
    for f in &files {
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let s = skeleton(&std::fs::read(f).expect("read"), &name);
        let is_biped = |i: usize| {
            let n = &s.bones[i].name;
            n.starts_with("Bip01") && !n.ends_with("Footsteps")
        };
        bones += s.bones.len();
        under_biped += s
            .bones
            .iter()
            .filter(|b| usize::try_from(b.father_id).is_ok_and(is_biped))
            .count();
        failures.extend(violations(&name, &s, &is_biped));
    }
    eprintln!(
        "ryzom_graphics: {} skeletons, {bones} bones, {under_biped} under a Biped father",
        files.len()
    );
    assert!(
        under_biped > 1500,
        "{under_biped} bones under Biped fathers"
    );
    // Ours: every .skel the corpus exports.
    let mut ours = Vec::new();
    for f in maxfs_tests::corpus_max_files() {
        let stem = f
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let doc = Document::open(&f).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let out = maxfs_exporters::nel::export::export(&stem, &eval, &[ExportKind::Skel]);
        let ctx = Context::new(&stem, &eval);
        let by_name: BTreeMap<String, usize> = eval
            .graph
            .nodes()
            .map(|(o, n)| (n.name.clone(), o.index))
            .collect();
        for o in out.outputs.iter().filter(|o| o.name.ends_with(".skel")) {
            let s = skeleton(&o.bytes, &o.name);
            // Bone names are node names ("_Second" for repeats).
            let node = |i: usize| {
                let n = &s.bones[i].name;
                by_name
                    .get(n)
                    .or_else(|| n.strip_suffix("_Second").and_then(|b| by_name.get(b)))
                    .copied()
            };
            let is_biped =
                |i: usize| node(i).is_some_and(|n| skinning::biped_controller(&ctx, n).is_some());
            failures.extend(violations(&format!("{stem}/{}", o.name), &s, &is_biped));
            ours.push(format!("{stem}: {} bones", s.bones.len()));
        }
    }
    eprintln!("our .skel exports: {}", ours.join(", "));
    assert!(ours.len() >= 2, "only {} .skel exported", ours.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
