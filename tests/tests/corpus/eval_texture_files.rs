//! Bitmap file names (issue 18 item 2): every Bitmap texmap that stores a file
//! name — inline in its parameter block (up to Max 2014) or as an asset GUID
//! resolved through FileAssetMetaData2/3 — shows it, in the texmap view and in
//! materials.json's maps. Names are checked against what other tools wrote from
//! the same scenes: Babylon's glTF images and the authors' FBX textures.

use std::collections::BTreeSet;

use maxfs_fs::views::material_view;
use maxfs_scene::eval::render::material::{file_base, Assets};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::MODELS;

fn stem(name: &str) -> String {
    let base = file_base(name);
    base.rsplit_once('.')
        .map_or(base, |(s, _)| s)
        .to_ascii_lowercase()
}

/// Per corpus file: Bitmap texmaps with a stored name (decoded or not) and the
/// decoded file names, read independently of the decoder: an asset GUID in the
/// Bitmap's block (0x1260 → 0x0002, 16 bytes) or a non-empty inline path.
struct FileNames {
    bitmaps: usize,
    stored: usize,
    shown: usize,
    files: BTreeSet<String>,
    missing: Vec<String>,
}

fn file_names(rel: &std::path::Path) -> Option<FileNames> {
    let doc = Document::open(rel).ok()?;
    let eval = SceneEval::from_document(doc).ok()?;
    let (doc, graph) = (&*eval.doc, &*eval.graph);
    let assets = Assets::of(doc);
    let mut out = FileNames {
        bitmaps: 0,
        stored: 0,
        shown: 0,
        files: BTreeSet::new(),
        missing: Vec::new(),
    };
    for t in material_view::texmaps(&eval, &assets) {
        if t.class_id != [0x240, 0] {
            continue;
        }
        out.bitmaps += 1;
        // What the file stores, in the bitmap parameter's 0x0003 container of
        // any of the Bitmap's blocks: an asset GUID (0x1260 → 0x0002, 16 bytes)
        // or an inline path (0x1230, UTF-16, non-empty).
        let bitmap_chunks: Vec<_> = graph.objects[t.index]
            .references
            .iter()
            .filter_map(|r| usize::try_from(r.target).ok())
            .flat_map(|k| eval.chunks(k))
            .filter(|c| c.id == 0x0003)
            .flat_map(|c| c.children())
            .collect();
        let guid = bitmap_chunks
            .iter()
            .filter(|c| c.id == 0x1260)
            .flat_map(|c| c.children())
            .any(|c| c.id == 0x0002 && c.payload().is_some_and(|p| p.len() == 16));
        let inline = bitmap_chunks
            .iter()
            .any(|c| c.id == 0x1230 && c.payload().is_some_and(|p| p.iter().any(|&b| b != 0)));
        let stored = guid || inline;
        if !stored {
            continue;
        }
        out.stored += 1;
        match t.file.as_deref().filter(|f| !f.is_empty()) {
            Some(f) => {
                out.shown += 1;
                out.files.insert(file_base(f).to_string());
            }
            None => out.missing.push(format!("texmap {} ({})", t.index, t.name)),
        }
    }
    // materials.json: every map slot on a Bitmap with a stored name shows it.
    for m in material_view::materials_with_assets(&eval, &assets) {
        for map in &m.maps {
            if map.class == "Bitmap" && map.file.is_none() {
                let t = maxfs_scene::eval::render::material::texmap(&eval, map.texmap, &assets);
                if t.is_some_and(|t| t.asset.is_some()) {
                    out.missing
                        .push(format!("material {} slot {}: file null", m.name, map.slot));
                }
            }
        }
    }
    Some(out)
}

#[test]
fn every_stored_bitmap_name_is_shown() {
    let mut failures = Vec::new();
    let (mut files, mut stored, mut shown) = (0, 0, 0);
    for p in maxfs_tests::corpus_max_files() {
        let Some(n) = file_names(&p) else {
            continue;
        };
        if n.bitmaps == 0 {
            continue;
        }
        let rel = p
            .strip_prefix(corpus_dir())
            .unwrap_or(&p)
            .display()
            .to_string();
        eprintln!(
            "{rel}: {} Bitmaps, {} store a file name, {} shown",
            n.bitmaps, n.stored, n.shown
        );
        files += 1;
        stored += n.stored;
        shown += n.shown;
        failures.extend(n.missing.iter().map(|m| format!("{rel}: {m}")));
    }
    eprintln!("{files} files, {stored} Bitmaps store a name, {shown} shown");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(stored, shown);
    assert!(shown >= 200, "only {shown} Bitmap names");
}

/// Babylon names its images `<stem>_<channel>.<ext>` after the bitmap's file
/// stem, or after the material when it bakes several maps together.
#[test]
fn babylon_image_names_are_our_bitmap_files() {
    const SUFFIXES: &[&str] = &["_basecolor", "_metallicroughness", "_normal", "_emissive"];
    let mut checked = 0;
    let mut by_material = 0;
    let mut failures = Vec::new();
    for (model, gltf) in MODELS {
        let p = corpus_dir().join(format!("max/babylon/{model}.max"));
        let n = file_names(&p).expect("opens");
        let ours: BTreeSet<String> = n.files.iter().map(|f| stem(f)).collect();
        let doc = Document::open(&p).expect("max");
        let eval = maxfs_scene::eval::SceneEval::from_document(doc).expect("scene");
        let materials: BTreeSet<String> = material_view::materials(&eval)
            .into_iter()
            .map(|m| m.name.to_ascii_lowercase())
            .collect();
        let text = std::fs::read_to_string(corpus_dir().join("ref/babylon-gltf").join(gltf))
            .expect("gltf");
        let g: serde_json::Value = serde_json::from_str(&text).expect("json");
        for img in g["images"].as_array().into_iter().flatten() {
            let Some(uri) = img["uri"].as_str() else {
                continue;
            };
            let full = stem(uri);
            let s = SUFFIXES
                .iter()
                .find_map(|x| full.strip_suffix(x))
                .unwrap_or(&full)
                .to_string();
            if ours.contains(&s) || ours.contains(&full) {
                checked += 1;
            } else if materials.contains(&s) {
                by_material += 1;
            } else {
                failures.push(format!(
                    "{model}: image {uri}: no Bitmap file {s}.* ({ours:?}) nor material ({materials:?})"
                ));
            }
        }
    }
    eprintln!(
        "babylon images: {checked} named after our Bitmap files, {by_material} after materials"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 16, "only {checked} images checked");
}

/// The authors' FBX exports name each texture's file; each is a Bitmap file of
/// the .max (case-insensitive base name), unless the FBX is of another
/// revision — then it is listed.
#[test]
fn fbx_texture_files_are_our_bitmap_files() {
    let pairs = [
        ("max2024-rico", "Can", "Can.fbx"),
        ("max2024-rico", "Chair", "Chair.fbx"),
        ("max2024-rico", "Mug", "Mug.fbx"),
        (
            "max2024-rico",
            "NewModularWallWindowCorner",
            "NewModularWallWindowCorner.fbx",
        ),
        ("max2024-rico", "PictureFrame", "PictureFrame.fbx"),
        ("max2024-rico", "Shotgun", "Shotgun.fbx"),
        ("max2024-rico", "Table", "Table.fbx"),
        ("max2024-rico", "WaterCooler", "WaterCooler.fbx"),
        ("max2024-rico", "Wire", "Wire.fbx"),
        ("kenji-room", "Kenjis_Bed", "Kenjis_Bed.FBX"),
        ("kenji-room", "Kenjis_chair", "Kenjis_Chair.FBX"),
        ("kenji-room", "Kenjis_Monitor", "Kenjis_Monitor.FBX"),
        ("kenji-room", "Kenjis_Room", "Kenjis_Room.FBX"),
        ("kenji-room", "Kenjis_Sofa", "Kenjis_Sofa.FBX"),
        ("kenji-room", "Kenjis_Wardrobe", "Kenjis_Wardrobe.FBX"),
    ];
    let (mut matched, mut other) = (0, Vec::new());
    for (dir, max, fbx) in pairs {
        let n = file_names(&corpus_dir().join(format!("max/{dir}/{max}.max"))).expect("opens");
        let ours: BTreeSet<String> = n.files.iter().map(|f| f.to_ascii_lowercase()).collect();
        let scene = ufbx::load_file(
            corpus_dir()
                .join(format!("ref/{dir}/{fbx}"))
                .to_str()
                .expect("path"),
            ufbx::LoadOpts::default(),
        )
        .expect("fbx");
        for t in scene.textures.iter() {
            let f = file_base(&t.filename).to_ascii_lowercase();
            if f.is_empty() {
                continue;
            }
            if ours.contains(&f) {
                matched += 1;
            } else {
                other.push(format!("{max}: FBX texture {f} not among {ours:?}"));
            }
        }
    }
    eprintln!("FBX textures: {matched} match our Bitmap files; not found:");
    for o in &other {
        eprintln!("  {o}");
    }
    assert!(matched >= 10, "only {matched} FBX texture names matched");
}
