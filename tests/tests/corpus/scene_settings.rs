//! The scene's system unit and time configuration (`maxfs_scene::settings`)
//! against the FBX the authors exported from the same scenes (read with ufbx):
//! FBX stores the exporting scene's unit as `OriginalUnitScaleFactor` and its
//! frame rate and take range in the global settings and the take.

use std::path::{Path, PathBuf};

use maxfs_scene::settings;
use maxfs_scene::Document;
use maxfs_tests::{corpus_dir, files_with_ext};

/// The FBX folders and the .max folders they were exported from.
const PAIRS: &[(&str, &str)] = &[
    ("ref/max2024-rico", "max/max2024-rico"),
    ("ref/kenji-room", "max/kenji-room"),
    ("ref/biped-ld35", "max/biped-ld35"),
    ("ref/ik-ld35", "max/ik-ld35"),
];

/// FBX exports whose take range is not the saved file's animation range, and why.
/// Yellow.FBX's creation stamp (2016-04-18 13:59:02 local) is 16 minutes after
/// Yellow.max was last saved (06:43:40Z; every other FBX of the set is stamped
/// minutes *before* its file's save, at the same UTC+7 offset): it was exported
/// from a later, unsaved state whose range ends at frame 32, not 30.
const RANGE_EXCEPTIONS: &[(&str, &str)] = &[("Yellow", "exported after the last save")];

/// The .max of an FBX: same stem, case-insensitively (`Kenjis_Chair.FBX` →
/// `Kenjis_chair.max`); `ShotgunAnimated.fbx` is an export of Shotgun.max.
fn source_of(fbx: &Path, max_dir: &Path) -> Option<PathBuf> {
    let stem = fbx.file_stem()?.to_str()?;
    let stem = if stem == "ShotgunAnimated" {
        "Shotgun"
    } else {
        stem
    };
    std::fs::read_dir(max_dir).ok()?.flatten().find_map(|e| {
        let p = e.path();
        let s = p.file_stem()?.to_str()?;
        let is_max = p.extension()?.eq_ignore_ascii_case("max");
        (is_max && s.eq_ignore_ascii_case(stem)).then_some(p)
    })
}

#[test]
fn unit_frame_rate_and_range_match_fbx() {
    let corpus = corpus_dir();
    let (mut files, mut ranges) = (0, 0);
    let mut failures = Vec::new();
    for (fbx_dir, max_dir) in PAIRS {
        for fbx in files_with_ext(&corpus.join(fbx_dir), &["fbx"]) {
            let name = fbx.display().to_string();
            let Some(max) = source_of(&fbx, &corpus.join(max_dir)) else {
                failures.push(format!("{name}: no .max source"));
                continue;
            };
            let scene = ufbx::load_file(fbx.to_str().expect("utf-8 path"), Default::default())
                .unwrap_or_else(|e| panic!("{name}: {}", e.description));
            let doc = Document::open(&max).expect("max");
            let typed = doc.typed();
            let graph = typed.scene.as_ref().expect("scene");
            let unit = settings::system_unit(&doc, graph).expect("system unit");
            let time = settings::time_config(&doc).expect("time configuration");
            files += 1;
            let want_unit = scene.settings.original_unit_meters;
            if (unit.metres_per_unit - want_unit).abs() > 1e-9 * want_unit {
                failures.push(format!(
                    "{name}: unit {} m ({} × {}), FBX {want_unit} m",
                    unit.metres_per_unit, unit.scale, unit.unit
                ));
            }
            if f64::from(time.frame_rate) != scene.settings.frames_per_second {
                failures.push(format!(
                    "{name}: {} fps, FBX {}",
                    time.frame_rate, scene.settings.frames_per_second
                ));
            }
            let stem = max.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let excepted = RANGE_EXCEPTIONS.iter().any(|(s, _)| *s == stem);
            for stack in scene.anim_stacks.iter() {
                let ours = f64::from(time.end - time.start) / 4800.0;
                let theirs = stack.time_end - stack.time_begin;
                let same = (ours - theirs).abs() < 1e-6;
                if same == excepted {
                    failures.push(format!(
                        "{name}: range {}..{} ticks ({ours} s), FBX take {theirs} s{}",
                        time.start,
                        time.end,
                        if excepted {
                            " (listed as an exception)"
                        } else {
                            ""
                        }
                    ));
                }
                ranges += 1;
            }
        }
    }
    eprintln!("scene settings vs FBX: {files} files, {ranges} take ranges compared");
    assert!(files >= 27, "only {files} FBX files compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every corpus file has a decodable system unit and time configuration, and
/// the frame step is whole ticks.
#[test]
fn every_corpus_file_has_units_and_time() {
    let mut failures = Vec::new();
    let files = files_with_ext(&corpus_dir().join("max"), &["max"]);
    for f in &files {
        let doc = Document::open(f).expect("max");
        let typed = doc.typed();
        let Ok(graph) = typed.scene.as_ref() else {
            continue;
        };
        if let Err(e) = settings::system_unit(&doc, graph) {
            failures.push(format!("{}: {e}", f.display()));
        }
        match settings::time_config(&doc) {
            Ok(t) => assert_eq!(t.ticks_per_frame * t.frame_rate as i32, 4800),
            Err(e) => failures.push(format!("{}: {e}", f.display())),
        }
    }
    assert!(files.len() >= 74, "{} files", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
