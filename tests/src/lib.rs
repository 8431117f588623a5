//! Shared helpers for the end-to-end tests: where the corpus is and how to walk it.

use std::path::{Path, PathBuf};

/// The shared corpus: `$MAXFS_CORPUS`, else `../shared/corpus` beside the project root.
pub fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MAXFS_CORPUS") {
        return PathBuf::from(dir);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = root.join("../shared/corpus");
    assert!(
        dir.is_dir(),
        "corpus not found at {} (set MAXFS_CORPUS)",
        dir.display()
    );
    dir
}

/// Every file under `dir` whose extension (lowercase) is one of `exts`, sorted.
pub fn files_with_ext(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Some(ext) = p.extension().and_then(|x| x.to_str()) {
                if exts.iter().any(|w| w.eq_ignore_ascii_case(ext)) {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// All `.max` files of the corpus.
pub fn corpus_max_files() -> Vec<PathBuf> {
    files_with_ext(&corpus_dir().join("max"), &["max"])
}
pub mod biped_binds;
pub mod gltf_ref;
pub mod mutation;
pub mod texel_diff;
pub use texel_diff::{channel_difference, gltf_texture_image};

/// Exports `max` to glTF with a 1×1 stand-in image (in a temporary folder used
/// as the .max's folder) for every Bitmap file name of the scene whose
/// extension the `image` crate writes: the corpus holds no images, and tests
/// of what textures carry (texCoord, slots) need them found. PSD and DDS
/// stand-ins are written by `psd_rgb` / `dds_bc1`.
pub fn export_with_stand_in_images(max: &Path) -> maxfs_exporters::gltf::GltfExport {
    let doc = maxfs_scene::Document::open(max).expect("max opens");
    let eval = maxfs_scene::eval::SceneEval::from_document(doc).expect("scene");
    export_eval_with_stand_in_images(&eval)
}

/// As `export_with_stand_in_images`, for a scene already evaluated (one
/// built through the writer).
pub fn export_eval_with_stand_in_images(
    eval: &maxfs_scene::eval::SceneEval,
) -> maxfs_exporters::gltf::GltfExport {
    let dir = stand_in_images(eval);
    let search = maxfs_exporters::gltf::TextureSearch {
        max_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    maxfs_exporters::gltf::export_scene_with(eval, &search).expect("export")
}

/// A temporary folder holding a 1×1 stand-in image for every Bitmap file name
/// of the scene the `image` crate can write, and PSD / DDS files written by
/// hand (see `export_with_stand_in_images`).
pub fn stand_in_images(eval: &maxfs_scene::eval::SceneEval) -> tempfile::TempDir {
    use maxfs_scene::eval::render::material as mtl;
    let assets = mtl::Assets::of(&eval.doc);
    let dir = tempfile::tempdir().expect("tmp");
    for i in 0..eval.graph.objects.len() {
        let Some(file) = mtl::texmap(eval, i, &assets).and_then(|t| t.file) else {
            continue;
        };
        let base = mtl::file_base(&file);
        if base.is_empty() || base.contains(['/', '\\']) {
            continue;
        }
        let ext = base.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
        if ext == "psd" || ext == "dds" {
            let bytes = if ext == "psd" {
                psd_rgb(&image::RgbImage::from_pixel(
                    1,
                    1,
                    image::Rgb([200, 100, 50]),
                ))
            } else {
                dds_bc1(4, 4, &[(0xf800, 0x001f, 0)])
            };
            std::fs::write(dir.path().join(base), bytes).expect("stand-in written");
            continue;
        }
        let Ok(format) = image::ImageFormat::from_path(base) else {
            continue;
        };
        let img = image::RgbImage::from_pixel(1, 1, image::Rgb([200, 100, 50]));
        // Formats the crate cannot encode are left missing.
        let _ = img.save_with_format(dir.path().join(base), format);
    }
    dir
}
pub mod map_modifiers;
pub mod nel_nodes;
pub mod oracle;
pub mod rewrite;
pub mod zone_source;

/// A Photoshop file of `img`: 8-bit RGB, no layers, raw planar composite
/// (header, empty colour-mode / resource / layer sections, compression 0).
pub fn psd_rgb(img: &image::RgbImage) -> Vec<u8> {
    let (w, h) = img.dimensions();
    let mut out = b"8BPS".to_vec();
    out.extend_from_slice(&1u16.to_be_bytes());
    out.extend_from_slice(&[0; 6]);
    out.extend_from_slice(&3u16.to_be_bytes());
    out.extend_from_slice(&h.to_be_bytes());
    out.extend_from_slice(&w.to_be_bytes());
    out.extend_from_slice(&8u16.to_be_bytes());
    out.extend_from_slice(&3u16.to_be_bytes());
    for _ in 0..3 {
        out.extend_from_slice(&0u32.to_be_bytes());
    }
    out.extend_from_slice(&0u16.to_be_bytes());
    for c in 0..3 {
        out.extend(img.pixels().map(|p| p.0[c]));
    }
    out
}

/// A DirectDraw Surface of `w`×`h` pixels in BC1 (DXT1), one mip level:
/// `blocks` are (colour 0, colour 1 as RGB565, 2-bit indices) in row order of
/// 4×4 blocks.
pub fn dds_bc1(w: u32, h: u32, blocks: &[(u16, u16, u32)]) -> Vec<u8> {
    let mut out = b"DDS ".to_vec();
    let mut head = [0u32; 31];
    head[0] = 124; // header size
    head[1] = 0x1 | 0x2 | 0x4 | 0x1000 | 0x8_0000; // caps, height, width, pixel format, linear size
    head[2] = h;
    head[3] = w;
    head[4] = 8 * blocks.len() as u32;
    head[6] = 1; // mip levels
    head[18] = 32; // pixel format size
    head[19] = 0x4; // FOURCC
    head[20] = u32::from_le_bytes(*b"DXT1");
    head[26] = 0x1000; // texture
    for v in head {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for (c0, c1, idx) in blocks {
        out.extend_from_slice(&c0.to_le_bytes());
        out.extend_from_slice(&c1.to_le_bytes());
        out.extend_from_slice(&idx.to_le_bytes());
    }
    out
}

/// street.max's Sphere01 made a LOD master with Sphere02 as its only slave
/// (distances 50 and 200), in a copy of the scene graph: the corpus has no LOD
/// set. `slave_extra` adds NeL properties to the slave (e.g. LOD_MRM).
pub fn street_lod_set(
    graph: &mut maxfs_scene::graph::SceneGraph,
    slave_extra: &[maxfs_scene::graph::AppDataEntry],
) {
    use maxfs_exporters::nel::export::properties::{id, nel_entry};
    let find = |g: &maxfs_scene::graph::SceneGraph, name: &str| {
        g.objects
            .iter()
            .position(|o| o.node.as_ref().is_some_and(|n| n.name == name))
            .expect("node")
    };
    let master = find(graph, "Sphere01");
    graph.objects[master].appdata.extend([
        nel_entry(id::LOD_NAME_COUNT, "1"),
        nel_entry(id::LOD_NAME, "Sphere02"),
        nel_entry(id::LOD_DIST_MAX, "50"),
    ]);
    let slave = find(graph, "Sphere02");
    graph.objects[slave]
        .appdata
        .push(nel_entry(id::LOD_DIST_MAX, "200"));
    graph.objects[slave]
        .appdata
        .extend(slave_extra.iter().cloned());
}

/// The evaluated scene of a corpus file (`rel` under the corpus root).
pub fn corpus_eval(rel: &str) -> maxfs_scene::eval::SceneEval {
    let doc = maxfs_scene::Document::open(&corpus_dir().join(rel)).expect("corpus .max opens");
    maxfs_scene::eval::SceneEval::from_document(doc).expect("scene")
}

/// The JSON chunk of a GLB our exporter wrote, parsed.
pub fn gltf_json(glb: &[u8]) -> serde_json::Value {
    let (json, _) = maxfs_exporters::gltf::glb::read(glb).expect("a GLB");
    serde_json::from_slice(json).expect("its JSON")
}

/// Every node of a scene as (object index, name), owned so the evaluation
/// can be borrowed again inside the loop.
pub fn named_nodes(eval: &maxfs_scene::eval::SceneEval) -> Vec<(usize, String)> {
    eval.graph
        .nodes()
        .map(|(o, n)| (o.index, n.name.clone()))
        .collect()
}

/// Calls `f(path, eval, node, name, stack, base)` for every node with a
/// modifier stack (top first) in each file of `paths`; a file that does not
/// open is reported on stderr and skipped. The loop the measuring examples
/// share.
pub fn for_each_stack(
    paths: impl IntoIterator<Item = String>,
    mut f: impl FnMut(
        &str,
        &maxfs_scene::eval::SceneEval,
        usize,
        &str,
        &[maxfs_scene::eval::modifier::Applied<'_>],
        usize,
    ),
) {
    for path in paths {
        let eval = match eval_of(&path) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        for (node, name) in named_nodes(&eval) {
            if let Some((stack, base)) = eval.modifier_stack(node) {
                f(&path, &eval, node, &name, &stack, base);
            }
        }
    }
}

/// The ParamBlock2 at reference `slot` of object `obj` as "id=value" texts
/// joined by `sep` (ids in hex when `hex`), or "" without one: what the
/// measuring examples print.
pub fn param_block2_text(
    eval: &maxfs_scene::eval::SceneEval,
    obj: usize,
    slot: u32,
    hex: bool,
    sep: &str,
) -> String {
    use maxfs_scene::eval::core::pblock;
    pblock::reference(&eval.graph, obj, slot)
        .and_then(|pb| pblock::param_block2(eval.chunks(pb)).ok())
        .map(|b| {
            b.params
                .iter()
                .map(|p| {
                    if hex {
                        format!("{:#x}={:?}", p.id, p.value)
                    } else {
                        format!("{}={:?}", p.id, p.value)
                    }
                })
                .collect::<Vec<_>>()
                .join(sep)
        })
        .unwrap_or_default()
}

/// The evaluation of `doc` with an edited copy of its scene graph (cases the
/// corpus lacks: LOD sets, MRM, bone LODs).
pub fn eval_with_graph(
    doc: &maxfs_scene::Document,
    graph: maxfs_scene::graph::SceneGraph,
) -> maxfs_scene::eval::SceneEval {
    let typed = std::sync::Arc::new(doc.typed());
    maxfs_scene::eval::SceneEval::with_graph(
        std::sync::Arc::new(doc.clone()),
        typed,
        std::sync::Arc::new(graph),
    )
}

/// Exports `kinds` of a document whose file is `<stem>.max`. A document
/// whose scene cannot be read exports nothing and reports why.
pub fn export_doc(
    stem: &str,
    doc: &maxfs_scene::Document,
    kinds: &[maxfs_exporters::nel::export::ExportKind],
) -> maxfs_exporters::nel::export::Exports {
    use maxfs_exporters::nel::export::{export, ExportKind, Exports};
    match maxfs_scene::eval::SceneEval::from_document(doc.clone()) {
        Ok(eval) => export(stem, &eval, kinds),
        Err(e) => {
            let mut out = Exports::default();
            out.push_error(
                kinds.first().copied().unwrap_or(ExportKind::Shape),
                "",
                format!("scene not readable: {e}"),
            );
            out
        }
    }
}

/// Whether kernel mounts can be tested here. Without /dev/fuse a mount test
/// says so loudly and skips, unless `MAXFS_REQUIRE_FUSE=1` (set by CI), where
/// a missing FUSE fails the test instead of hiding it.
pub fn fuse_available() -> bool {
    let ok = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/fuse")
        .is_ok();
    if !ok {
        assert!(
            std::env::var("MAXFS_REQUIRE_FUSE").as_deref() != Ok("1"),
            "MAXFS_REQUIRE_FUSE=1 but /dev/fuse cannot be opened"
        );
        eprintln!("\n\n*** SKIPPING: FUSE unavailable (/dev/fuse cannot be opened) ***\n\n");
    }
    ok
}

/// The corpus .max files whose authors' FBX 7.4 export of the same (static)
/// scene is in ref/: (max file under max/, fbx file under ref/).
pub const STATIC_FBX_SCENES: &[(&str, &str)] = &[
    ("max2024-rico/Can.max", "max2024-rico/Can.fbx"),
    ("max2024-rico/Chair.max", "max2024-rico/Chair.fbx"),
    ("max2024-rico/Mug.max", "max2024-rico/Mug.fbx"),
    (
        "max2024-rico/NewModularWallWindowCorner.max",
        "max2024-rico/NewModularWallWindowCorner.fbx",
    ),
    (
        "max2024-rico/PictureFrame.max",
        "max2024-rico/PictureFrame.fbx",
    ),
    ("max2024-rico/Shotgun.max", "max2024-rico/Shotgun.fbx"),
    ("max2024-rico/Table.max", "max2024-rico/Table.fbx"),
    (
        "max2024-rico/WaterCooler.max",
        "max2024-rico/WaterCooler.fbx",
    ),
    ("max2024-rico/Wire.max", "max2024-rico/Wire.fbx"),
    ("kenji-room/Kenjis_Bed.max", "kenji-room/Kenjis_Bed.FBX"),
    ("kenji-room/Kenjis_chair.max", "kenji-room/Kenjis_Chair.FBX"),
    (
        "kenji-room/Kenjis_Monitor.max",
        "kenji-room/Kenjis_Monitor.FBX",
    ),
    ("kenji-room/Kenjis_Room.max", "kenji-room/Kenjis_Room.FBX"),
    ("kenji-room/Kenjis_Sofa.max", "kenji-room/Kenjis_Sofa.FBX"),
    (
        "kenji-room/Kenjis_Wardrobe.max",
        "kenji-room/Kenjis_Wardrobe.FBX",
    ),
];

/// The index of the node named `name`; panics (in a test) when there is none.
pub fn node_index(eval: &maxfs_scene::eval::SceneEval, name: &str) -> usize {
    node_named(&eval.graph, name)
}

/// A chunk payload read as little-endian u32 words (a trailing partial word is dropped).
pub fn le_words(p: &[u8]) -> Vec<u32> {
    p.chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// The local data (chunk 0x2512 of its ModApp) modifier `m` keeps for its
/// node: where Unwrap UVW caches its input and Edit Poly records its
/// operations. Panics (in a test) when there is none.
pub fn local_data<'a>(
    m: &maxfs_scene::eval::modifier::Applied<'a>,
) -> &'a maxfs_scene::chunk::Chunk {
    m.mod_app
        .and_then(|a| a.children().iter().find(|c| c.id == 0x2512))
        .expect("the modifier's local data (0x2512)")
}

/// A polygon as Unwrap UVW cached its input: geometry corners and material.
pub type CachedPolygon = (Vec<u32>, u32);

/// What an Unwrap UVW saved of its input in its local data (chunk 0x2512):
/// the vertex positions (0x0330) and the polygons (0x0870: degree, texture
/// corners, face index, material, flags, then the geometry corners). Max's
/// own record of the mesh below it, which tests compare our stack against.
pub fn unwrap_cache(local: &maxfs_scene::chunk::Chunk) -> (Vec<[f64; 3]>, Vec<CachedPolygon>) {
    let payload = |id: u16| {
        local
            .children()
            .iter()
            .find(|c| c.id == id)
            .and_then(maxfs_scene::chunk::Chunk::payload)
            .expect("cached chunk")
    };
    let g = payload(0x0330);
    let pos: Vec<[f64; 3]> = g[4..]
        .chunks_exact(12)
        .map(|b| {
            let f = |i: usize| f64::from(f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]));
            [f(0), f(4), f(8)]
        })
        .collect();
    assert_eq!(pos.len(), le_words(&g[..4])[0] as usize, "0x0330's count");
    let w = le_words(payload(0x0870));
    let mut polys = Vec::new();
    let mut at = 1;
    for _ in 0..w[0] {
        let deg = w[at] as usize;
        polys.push((w[at + 4 + deg..at + 4 + 2 * deg].to_vec(), w[at + 2 + deg]));
        at += 1 + 2 * deg + 3;
    }
    (pos, polys)
}

/// The index of the node called `name`; panics naming it when the scene has none.
pub fn node_named(graph: &maxfs_scene::graph::SceneGraph, name: &str) -> usize {
    graph
        .nodes()
        .find(|(_, n)| n.name == name)
        .map(|(o, _)| o.index)
        .unwrap_or_else(|| panic!("no node {name:?}"))
}

/// The evaluated scene of a .max file named on a tool's command line, or
/// the process ends with status 1 and the file's error (the examples' entry).
pub fn eval_or_exit(path: &str) -> maxfs_scene::eval::SceneEval {
    match eval_of(path) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}

/// The object index of node `name` of a tool's scene, or the process ends
/// with status 1 (the examples' node argument).
pub fn node_or_exit(eval: &maxfs_scene::eval::SceneEval, name: &str) -> usize {
    match eval.graph.nodes().find(|(_, n)| n.name == name) {
        Some((o, _)) => o.index,
        None => {
            eprintln!("no node {name}");
            std::process::exit(1);
        }
    }
}

/// The scenes of the measuring examples' file arguments, each announced as
/// `== path`; a file that does not open is reported on stderr and skipped.
pub fn each_eval(
    paths: impl IntoIterator<Item = String>,
) -> impl Iterator<Item = maxfs_scene::eval::SceneEval> {
    paths.into_iter().filter_map(|path| match eval_of(&path) {
        Ok(eval) => {
            println!("== {path}");
            Some(eval)
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            None
        }
    })
}

/// The evaluated scene of a .max file at `path`, or its error as text.
pub fn eval_of(path: &str) -> Result<maxfs_scene::eval::SceneEval, String> {
    maxfs_scene::Document::open(Path::new(path))
        .map_err(|e| e.to_string())
        .and_then(|d| maxfs_scene::eval::SceneEval::from_document(d).map_err(|e| e.to_string()))
}

/// Largest difference of two transforms: of the rotation/scale elements and
/// of the position components (how the rig tests and tools state agreement).
pub fn tm_diff(a: &maxfs_scene::eval::Mat43, b: &maxfs_scene::eval::Mat43) -> (f64, f64) {
    let (a, b) = (a.rows(), b.rows());
    let rot = (0..3)
        .flat_map(|r| (0..3).map(move |c| (r, c)))
        .map(|(r, c)| (a[r][c] - b[r][c]).abs())
        .fold(0.0, f64::max);
    let pos = (0..3)
        .map(|c| (a[3][c] - b[3][c]).abs())
        .fold(0.0, f64::max);
    (rot, pos)
}

/// The axis-aligned bounds (low, high corner) of `points`; infinite for none.
pub fn bounds<'a>(
    points: impl IntoIterator<Item = &'a maxfs_scene::eval::core::math::Vec3>,
) -> ([f64; 3], [f64; 3]) {
    points.into_iter().fold(
        ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
        |(mut lo, mut hi), v| {
            for (i, x) in v.to_array().into_iter().enumerate() {
                lo[i] = lo[i].min(x);
                hi[i] = hi[i].max(x);
            }
            (lo, hi)
        },
    )
}

/// The corners of a mesh's surface: welded positions where three or more
/// distinct planes of its triangles meet. A vertex inside a flat region (one
/// plane) or in the middle of a straight crease (two planes) is not one, so
/// two triangulations of the same polyhedron, one with extra vertices along
/// its edges and faces (our CSG) and one without (Max's Boolean), have the
/// same corners: what Max's own vertex count of a Boolean result checks.
/// Positions of `kept` (the operands' vertices: Max keeps those on the
/// result's surface, a cylinder's cap centre too) count as well.
pub fn corner_count(
    m: &maxfs_scene::eval::objects::mesh::Mesh,
    kept: &[maxfs_scene::eval::core::math::Vec3],
) -> usize {
    use std::collections::HashMap;
    let (lo, hi) = bounds(&m.vertices);
    let size = (0..3)
        .map(|i| (hi[i] - lo[i]).powi(2))
        .sum::<f64>()
        .sqrt()
        .max(1e-30);
    // Weld positions closer than 1e-7 of the size (grid cells, neighbours looked up).
    let cell = 1e-7 * size;
    let key = |p: [f64; 3]| p.map(|x| (x / cell).round() as i64);
    let mut grid: HashMap<[i64; 3], usize> = HashMap::new();
    let mut welded = Vec::with_capacity(m.vertices.len());
    let mut count = 0;
    for v in &m.vertices {
        let k = key(v.to_array());
        let mut found = None;
        'n: for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if let Some(&w) = grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) {
                        found = Some(w);
                        break 'n;
                    }
                }
            }
        }
        let w = found.unwrap_or_else(|| {
            grid.insert(k, count);
            count += 1;
            count - 1
        });
        welded.push(w);
    }
    let mut planes: Vec<Vec<maxfs_scene::eval::core::math::Vec3>> = vec![Vec::new(); count];
    for f in &m.faces {
        let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
        let n = b.minus(a).cross(c.minus(a));
        // Slivers' normals are noise: only triangles of some area say a plane.
        if n.len() < 1e-9 * size * size {
            continue;
        }
        let n = n.normalized();
        for i in f.v {
            let w = welded[i as usize];
            if !planes[w].iter().any(|p| p.dot(n) > 1.0 - 1e-7) {
                planes[w].push(n);
            }
        }
    }
    let mut keep = vec![false; count];
    for p in kept {
        let k = key(p.to_array());
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if let Some(&w) = grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) {
                        keep[w] = true;
                    }
                }
            }
        }
    }
    (0..count)
        .filter(|&w| keep[w] || planes[w].len() >= 3)
        .count()
}

/// Map channel `channel`'s value at each corner, per face (panics naming the
/// channel when the mesh lacks it): what UV tests compare, whatever the map
/// vertices' numbering.
pub fn channel_corners(
    m: &maxfs_scene::eval::objects::mesh::Mesh,
    channel: i32,
) -> Vec<[[f32; 3]; 3]> {
    let ch = m
        .maps
        .iter()
        .find(|c| c.channel == channel)
        .unwrap_or_else(|| panic!("no map channel {channel}"));
    ch.faces
        .iter()
        .map(|f| f.map(|t| ch.vertices[t as usize]))
        .collect()
}
