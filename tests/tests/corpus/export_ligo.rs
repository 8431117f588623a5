//! Ligo brick export (`NeLLigoExportZone` via nel_ligo_export.ms) from synthetic
//! `.max` sources against NeL itself. No corpus zone is a brick, so each source is a
//! synthetic brick-shaped zone (`synthetic_brick`: patches on the 160 m cell lines with
//! the tiles, colours and flags of a real nel/snowballs zone's patch) built through our
//! `CZone::build`, retrieved, and written as an RklPatch through the project's own
//! writers (tests/src/zone_source.rs), named by the ligo protocol, with the node's pivot
//! on a cell centre of the transition grid (object offset = −zone centre).
//! Per brick:
//! - the `.zone` equals NeL's own path on the same patches
//!   (tests/oracle/landscape_oracle.cpp `brick`: the object TM, CPatchInfo::transform
//!   with the corpus bank for the slot's mirror / quarter turn, CZone::build), masked
//!   only where the reference exporter leaves bytes uninitialised (`CPatch::Flags`
//!   outside the smooth bits, light factors of light-less corners) and the version byte
//!   (4 written, NeL writes 5);
//! - the mask equals NeL's `CZoneTemplate` (`template`) fed the zone's own open edges
//!   (bind lists, not our patch mesh) through the same TM, reversed when mirrored;
//! - the `.ligozone` equals the text NeL's COXml writes (tests/oracle/ligozone.sh) for
//!   the categories of the script (zone, transname, transtype ×2, transnum or zone,
//!   material; passable; filled, square, size);
//! - NeL reads every `.zone` and `.ligozone` back (`reread`).

use std::path::{Path, PathBuf};

use maxfs_exporters::nel::export::zone::{ligo, TileBankFile};
use maxfs_exporters::nel::export::{self as nexp, Context, ExportKind, ExportOptions};
use maxfs_exporters::nel::zone::Zone;
use maxfs_exporters::nel::zone_build::ligo::{TRANSITION_ROT, TRANSITION_SCALE};
use maxfs_exporters::nel::zone_build::{self, retrieve, BindInfo, ZoneInfo};
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::zone_source::{
    rklpatch_from_zone, with_box_nodes, write_source_at, BoxNode, SourceOptions, NODE,
};
use maxfs_tests::{corpus_dir, files_with_ext};

const SMOOTH_MASK: u8 = 0x3c;

fn oracle() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/landscape.sh")
}

fn run(script: &Path, args: &[String]) -> String {
    let o = std::process::Command::new("bash")
        .arg(script)
        .args(args)
        .output()
        .expect("run the NeL oracle");
    assert!(
        o.status.success(),
        "oracle {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn bank_path() -> PathBuf {
    corpus_dir().join("nel/snowballs/tiles/bank.bank")
}

fn read_zone(bytes: &[u8]) -> Zone {
    match read_nel(bytes, "x.zone").expect("zone reads") {
        NelFile::Zone(z) => z,
        _ => panic!("not a zone"),
    }
}

/// The zone's patches with the binds naming other zones dropped (what the source holds).
fn own_patches(z: &Zone) -> ZoneInfo {
    let mut info = retrieve(z).expect("retrieve");
    for pi in &mut info.patches {
        for b in &mut pi.bind_edges {
            if b.zone_id != z.zone_id {
                b.n_patchs = 0;
                b.next = [0; 4];
                b.edge = [0; 4];
            }
        }
    }
    info
}

/// Fits a zone to the cell (0,0)–(160,160): its xy box is mapped onto the cell,
/// `x' = (x − lo) · k` in float (the snowballs zones are not on a 160 m grid; the oracle
/// takes the same step). Returns (lo, k).
fn fit_to_cell(info: &mut ZoneInfo) -> ([f32; 2], [f32; 2]) {
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for pi in &info.patches {
        for v in &pi.patch.vertices {
            for k in 0..2 {
                lo[k] = lo[k].min(v[k]);
                hi[k] = hi[k].max(v[k]);
            }
        }
    }
    let k = [160.0 / (hi[0] - lo[0]), 160.0 / (hi[1] - lo[1])];
    for pi in &mut info.patches {
        let p = &mut pi.patch;
        for v in p
            .vertices
            .iter_mut()
            .chain(&mut p.tangents)
            .chain(&mut p.interiors)
        {
            v[0] = (v[0] - lo[0]) * k[0];
            v[1] = (v[1] - lo[1]) * k[1];
        }
    }
    (lo, k)
}

/// A brick zone as NeL reads it: (file, zone, own patches, lo, k of the oracle's fit).
type Fitted = (PathBuf, Zone, ZoneInfo, [f32; 2], [f32; 2]);

/// The cell of each transition slot (nel_ligo_export.ms TransitionIds, slot → (x, y)).
const SLOT_CELL: [(f32, f32); 9] = [
    (0.0, 0.0),
    (1.0, 0.0),
    (1.0, 1.0),
    (1.0, 2.0),
    (0.0, 2.0),
    (0.0, 3.0),
    (1.0, 3.0),
    (2.0, 3.0),
    (3.0, 3.0),
];

fn export(bytes: &[u8], stem: &str, bank: &TileBankFile) -> (nexp::Exports, SceneEval) {
    let doc = Document::from_bytes(bytes).expect("synthetic source reopens");
    let eval = SceneEval::from_document(doc).expect("evaluates");
    let opts = ExportOptions {
        bank: Some(std::sync::Arc::new(bank.clone())),
        ..Default::default()
    };
    let out = nexp::export_with(
        stem,
        &eval,
        &[ExportKind::Zone, ExportKind::LigoZone],
        &opts,
    );
    (out, eval)
}

/// Our zone with NeL's uninitialised bits and version byte, written again.
fn comparable(ours: &[u8], nel: &[u8]) -> Vec<u8> {
    let mut a = read_zone(ours);
    let b = read_zone(nel);
    a.version = b.version;
    for (x, y) in a.patches.iter_mut().zip(&b.patches) {
        let (fa, fb) = (x.flags.unwrap_or(0), y.flags.unwrap_or(0));
        x.flags = Some((fa & SMOOTH_MASK) | (fb & !SMOOTH_MASK));
        if let (Some(ta), Some(tb)) = (&mut x.tile_light_influences, &y.tile_light_influences) {
            for (p, q) in ta.iter_mut().zip(tb) {
                if p.light == [0xff, 0xff] {
                    p.packed_light_factor = q.packed_light_factor;
                }
            }
        }
    }
    write_nel(&NelFile::Zone(a)).expect("write")
}

/// NeL's template input: the zone's corners through `tm` and its open edges (no
/// neighbour in the bind lists), reversed on a mirrored brick.
fn template_input(info: &ZoneInfo, tm: &[[f32; 3]; 4], mirrored: bool) -> String {
    let n = info
        .patches
        .iter()
        .flat_map(|p| p.base_vertices)
        .max()
        .map_or(0, |m| usize::from(m) + 1);
    let mut verts = vec![[0f32; 3]; n];
    let mut s = String::new();
    let mut edges = String::new();
    for pi in &info.patches {
        for k in 0..4 {
            let v = pi.patch.vertices[k];
            let c = |j: usize| v[0] * tm[0][j] + v[1] * tm[1][j] + v[2] * tm[2][j] + tm[3][j];
            verts[usize::from(pi.base_vertices[k])] = [c(0), c(1), c(2)];
            if pi.bind_edges[k].n_patchs == 0 {
                let (a, b) = (pi.base_vertices[k], pi.base_vertices[(k + 1) % 4]);
                let (a, b) = if mirrored { (b, a) } else { (a, b) };
                edges.push_str(&format!("e {a} {b}\n"));
            }
        }
    }
    for v in &verts {
        s.push_str(&format!("v {:.9e} {:.9e} {:.9e}\n", v[0], v[1], v[2]));
    }
    s + &edges
}

/// A brick-shaped zone over the 160 m `cells` (x, y): `n`×`n` patches per cell on a
/// regular grid with the cell lines as borders, corners counter-clockwise (NeL's
/// `CBezierPatch` order), shared edges bound 1:1 (edge `e` meets the neighbour's edge
/// `(e + 2) % 4`), base vertices numbered densely. Every patch takes the orders, tiles,
/// colours, lumels, flags and noise of the source zone's first patch (a real corpus
/// zone); heights follow one smooth field so shared borders agree.
fn synthetic_brick(src: &ZoneInfo, n: usize, cells: &[(usize, usize)], zone_id: u16) -> ZoneInfo {
    let proto = &src.patches[0];
    let side = 160.0 / n as f32;
    let height = |x: f32, y: f32| 3.0 * (x / 37.0).sin() + 2.0 * (y / 53.0).cos() + 0.01 * x;
    let at = |s: f32, t: f32, a: usize, b: usize| {
        let (x, y) = ((a as f32 + s) * side, (b as f32 + t) * side);
        [x, y, height(x, y)]
    };
    // Patch grid positions, in cell then row order; their patch index.
    let mut grid = Vec::new();
    for &(cx, cy) in cells {
        for b in 0..n {
            for a in 0..n {
                grid.push((cx * n + a, cy * n + b));
            }
        }
    }
    let index = |g: (usize, usize)| grid.iter().position(|&q| q == g);
    let mut vertex_ids = std::collections::BTreeMap::new();
    let mut patches = Vec::new();
    for &(a, b) in &grid {
        let mut pi = proto.clone();
        // Corners A, B, C, D in (s, t) of the patch square, counter-clockwise.
        let corner = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        let lerp =
            |p: (f32, f32), q: (f32, f32), f: f32| (p.0 + (q.0 - p.0) * f, p.1 + (q.1 - p.1) * f);
        for k in 0..4 {
            let (c, d) = (corner[k], corner[(k + 1) % 4]);
            pi.patch.vertices[k] = at(c.0, c.1, a, b);
            let t0 = lerp(c, d, 1.0 / 3.0);
            let t1 = lerp(c, d, 2.0 / 3.0);
            pi.patch.tangents[2 * k] = at(t0.0, t0.1, a, b);
            pi.patch.tangents[2 * k + 1] = at(t1.0, t1.1, a, b);
            let i = lerp(c, (0.5, 0.5), 2.0 / 3.0);
            pi.patch.interiors[k] = at(i.0, i.1, a, b);
            let key = (a + c.0 as usize, b + c.1 as usize);
            let next = vertex_ids.len() as u16;
            pi.base_vertices[k] = *vertex_ids.entry(key).or_insert(next);
            // Edge k: bottom, right, top, left.
            let nb = match k {
                0 => b.checked_sub(1).map(|y| (a, y)),
                1 => Some((a + 1, b)),
                2 => Some((a, b + 1)),
                _ => a.checked_sub(1).map(|x| (x, b)),
            };
            pi.bind_edges[k] = match nb.and_then(index) {
                Some(p) => BindInfo {
                    n_patchs: 1,
                    zone_id,
                    next: [p as u16, 0, 0, 0],
                    edge: [((k + 2) % 4) as u8, 0, 0, 0],
                    ..Default::default()
                },
                None => BindInfo {
                    zone_id,
                    ..Default::default()
                },
            };
        }
        patches.push(pi);
    }
    ZoneInfo {
        zone_id,
        patches,
        border_vertices: Vec::new(),
        point_lights: None,
    }
}

/// [`synthetic_brick`] from the first patch of the real zone `zp`, built by our
/// `CZone::build` and written into `dir` (what NeL is handed); (file, zone as read back,
/// its own patches).
fn brick_zone_file(
    dir: &Path,
    zp: &Path,
    n: usize,
    cells: &[(usize, usize)],
) -> (PathBuf, Zone, ZoneInfo) {
    let orig = read_zone(&std::fs::read(zp).expect("read"));
    let synth = synthetic_brick(&own_patches(&orig), n, cells, orig.zone_id);
    let built = zone_build::build_with(&synth, &Default::default()).expect("build");
    let name = format!(
        "synthetic-{}cells-{n}x{n}-from-{}.zone",
        cells.len(),
        zp.file_stem().unwrap().to_string_lossy()
    );
    let path = dir.join(name);
    let bytes = write_nel(&NelFile::Zone(built)).expect("write");
    std::fs::write(&path, &bytes).expect("write");
    let zone = read_zone(&bytes);
    let info = own_patches(&zone);
    (path, zone, info)
}

/// The `.ligozone` text NeL's COXml writes (tests/oracle/ligozone.sh) for a brick of
/// mask `mask` (row-major 0/1) and the script's categories `props`, then `passable`
/// no, `filled`, `square`, `size` as script.cpp adds them.
fn nel_ligozone(
    dir: &Path,
    brick: &str,
    w: &str,
    h: &str,
    mask: &str,
    props: &[(String, String)],
) -> Vec<u8> {
    let filled = if mask.bytes().all(|b| b == b'1') {
        "yes"
    } else {
        "no"
    };
    let square = if w == h { "yes" } else { "no" };
    let nel_text = dir.join(format!("nel-{brick}.ligozone"));
    let mut a = vec![
        nel_text.display().to_string(),
        w.to_string(),
        h.to_string(),
        mask.to_string(),
    ];
    a.extend(
        props
            .iter()
            .map(|(k, v)| format!("{}={}", k.to_ascii_lowercase(), v.to_ascii_lowercase())),
    );
    a.push("passable=no".into());
    a.push(format!("filled={filled}"));
    a.push(format!("square={square}"));
    a.push(format!("size={w}x{h}"));
    let lz = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/ligozone.sh");
    run(&lz, &a);
    std::fs::read(&nel_text).expect("NeL ligozone")
}

#[test]
fn ligo_bricks_equal_nel_own_export_path() {
    let zones = files_with_ext(&corpus_dir().join("nel"), &["zonel", "zone"]);
    assert!(!zones.is_empty());
    let bank = TileBankFile::load(&bank_path()).expect("corpus bank");
    let dir = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    let (mut zones_equal, mut masks_equal, mut texts_equal) = (0, 0, 0);
    let mut written: Vec<PathBuf> = Vec::new();
    let mut expected = 0;
    // No corpus zone is a ligo brick (the snowballs zones are off the 160 m grid and,
    // fitted to a cell, their borders are jagged: MultipleEdge), so the bricks are
    // synthetic (`synthetic_brick`), written as `.zone` through our CZone::build and
    // handed to NeL as such (no fitting: lo 0, k 1): one cell of 2×2 and of 4×4
    // patches and an L of three cells of 2×2 patches, each from the first patch of a
    // different corpus zone. Every transition slot (all mirror /
    // turn cases) and a material brick of each.
    let one = [(0, 0)];
    let ell = [(0, 0), (1, 0), (0, 1)];
    let shapes: [(usize, &[(usize, usize)]); 3] = [(2, &one), (4, &one), (2, &ell)];
    let usable: Vec<Fitted> = shapes
        .iter()
        .enumerate()
        .map(|(i, &(n, cells))| {
            let (path, zone, info) = brick_zone_file(dir.path(), &zones[i % zones.len()], n, cells);
            (path, zone, info, [0.0; 2], [1.0; 2])
        })
        .collect();
    for (zp, _orig, info, lo, k) in &usable {
        let (zp, lo, k) = (zp.as_path(), *lo, *k);
        let zname = zp.file_name().unwrap().to_string_lossy().into_owned();
        let c = [80.0f32, 80.0];
        let model = rklpatch_from_zone(info, [0.0; 3]);
        // A transition brick is one cell (the slot comes from the node's centre); a
        // brick over several cells is exported as a material brick only.
        let multi_cell = info
            .patches
            .iter()
            .flat_map(|p| p.patch.vertices)
            .any(|v| v[0] > 160.5 || v[1] > 160.5);
        let slots = if multi_cell { 0 } else { 9 };
        expected += 1 + slots;
        let cases: Vec<(&str, Option<usize>)> = std::iter::once(("zonematerial-foret-a1", None))
            .chain((1..=slots).map(|s| ("zonetransition-foret-prairie-2", Some(s))))
            .collect();
        for (stem, slot) in cases {
            let cell = slot.map_or((0.0, 0.0), |s| SLOT_CELL[s - 1]);
            let pos = [cell.0 * 160.0 + 80.0, cell.1 * 160.0 + 80.0, 1.0];
            let bytes = write_source_at(
                &model,
                &SourceOptions::plain("brick"),
                Some((pos, [-c[0], -c[1], -1.0])),
            );
            let (out, eval) = export(&bytes, stem, &bank);
            let tag = format!("{zname} {stem} slot {slot:?}");
            let brick = match slot {
                Some(s) => format!("foret-prairie-2-{}", s - 1),
                None => "foret-a1".to_string(),
            };
            let get = |ext: &str| {
                out.outputs
                    .iter()
                    .find(|o| o.name == format!("{brick}.{ext}"))
                    .map(|o| o.bytes.clone())
            };
            let (Some(zone_bytes), Some(text)) = (get("zone"), get("ligozone")) else {
                failures.push(format!("{tag}: not exported: {}", out.errors_text()));
                continue;
            };
            let ctx = Context::new(stem, &eval);
            let (tm, sym, rot) = match slot {
                Some(s) => (
                    ligo::transition_object_tm(&ctx, NODE, s).expect("tm"),
                    TRANSITION_SCALE[s - 1],
                    TRANSITION_ROT[s - 1],
                ),
                None => {
                    let m = eval.object_tm(NODE, 0).0;
                    (m.map(|r| [r.0 as f32, r.1 as f32, r.2 as f32]), false, 0)
                }
            };
            // The zone, through NeL.
            let nel_out = dir.path().join(format!("nel-{brick}.zone"));
            let mut args = vec![
                "brick".to_string(),
                bank_path().display().to_string(),
                "160".into(),
                "1".into(),
                u8::from(sym).to_string(),
                rot.to_string(),
            ];
            args.extend(tm.iter().flatten().map(|v| format!("{v:.9e}")));
            args.extend(
                [lo[0], lo[1], k[0], k[1]]
                    .iter()
                    .map(|v| format!("{v:.9e}")),
            );
            args.push(zp.display().to_string());
            args.push(nel_out.display().to_string());
            let r = run(&oracle(), &args);
            if !r.starts_with("OK") {
                failures.push(format!("{tag}: NeL: {r}"));
                continue;
            }
            let nel_bytes = std::fs::read(&nel_out).expect("oracle zone");
            if comparable(&zone_bytes, &nel_bytes) == nel_bytes {
                zones_equal += 1;
            } else {
                failures.push(format!("{tag}: zone differs from NeL's"));
            }
            // The mask, through NeL's CZoneTemplate.
            let tfile = dir.path().join(format!("{brick}.template"));
            std::fs::write(&tfile, template_input(info, &tm, sym)).expect("write");
            let r = run(
                &oracle(),
                &[
                    "template".into(),
                    "160".into(),
                    "1".into(),
                    tfile.display().to_string(),
                ],
            );
            let mut it = r.split_whitespace();
            let (Some("OK"), Some(w), Some(h), Some(mask)) =
                (it.next(), it.next(), it.next(), it.next())
            else {
                failures.push(format!("{tag}: NeL template: {r}"));
                continue;
            };
            // The L is an L to NeL too: 2×2 cells, three of them set.
            if multi_cell {
                assert_eq!(
                    (w, h, mask.bytes().filter(|&b| b == b'1').count()),
                    ("2", "2", 3),
                    "{tag}: NeL's mask {mask}"
                );
            }
            // The .ligozone NeL writes for the script's categories and NeL's mask.
            let src = maxfs_exporters::nel::zone_build::ligo::BrickSource::from_stem(stem)
                .expect("brick source");
            let (_, props) = src.bricks().swap_remove(slot.map_or(0, |s| s - 1));
            let expected = nel_ligozone(dir.path(), &brick, w, h, mask, &props);
            if text == expected {
                texts_equal += 1;
                masks_equal += 1;
            } else {
                failures.push(format!(
                    "{tag}: .ligozone differs from NeL's (NeL mask {w}x{h} {mask}):\n{}",
                    String::from_utf8_lossy(&text)
                ));
            }
            for (ext, b) in [("zone", &zone_bytes), ("ligozone", &text)] {
                let p = dir.path().join(format!("{}-{brick}.{ext}", written.len()));
                std::fs::write(&p, b).expect("write");
                written.push(p);
            }
        }
    }
    // One patch per cell: its open edges run corner to corner, and NeL's CZoneTemplate
    // refuses consecutive vertices on different X lines (VertexList, code 4); so must we.
    {
        let orig = read_zone(&std::fs::read(&zones[0]).expect("read"));
        let single = synthetic_brick(&own_patches(&orig), 1, &[(0, 0)], orig.zone_id);
        let tfile = dir.path().join("single.template");
        let identity = [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 0.0],
        ];
        std::fs::write(&tfile, template_input(&single, &identity, false)).expect("write");
        let r = run(
            &oracle(),
            &[
                "template".into(),
                "160".into(),
                "1".into(),
                tfile.display().to_string(),
            ],
        );
        assert_eq!(r.trim(), "FAIL 4", "NeL on a one-patch brick");
        let model = rklpatch_from_zone(&single, [0.0; 3]);
        let bytes = write_source_at(
            &model,
            &SourceOptions::plain("brick"),
            Some(([80.0, 80.0, 1.0], [-80.0, -80.0, -1.0])),
        );
        let (out, _) = export(&bytes, "zonematerial-foret-a1", &bank);
        assert!(
            !out.outputs.iter().any(|o| o.kind == ExportKind::LigoZone)
                && out.errors_text().contains("(VertexList) (CLigoError 4)"),
            "{}",
            out.errors_text()
        );
    }
    // NeL reads every exported file back.
    let mut args = vec!["reread".to_string()];
    args.extend(written.iter().map(|p| p.display().to_string()));
    let r = run(&oracle(), &args);
    let ok = r.lines().filter(|l| l.starts_with("OK\t")).count();
    for l in r.lines() {
        if !l.starts_with("OK\t") || (l.contains(".ligozone\t") && !l.contains("\tsame\t")) {
            failures.push(format!("NeL reread: {l}"));
        }
    }
    eprintln!(
        "ligo bricks vs NeL: {zones_equal} zones equal, {masks_equal} masks and {texts_equal} .ligozone texts equal, {ok}/{} files reread by NeL",
        written.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(zones_equal, expected);
    assert_eq!(ok, written.len());
}

/// The script's and the plug-in's refusals, by name: a mirrored slot without the bank,
/// two patch nodes in a material source, and a file name with a fourth token.
#[test]
fn ligo_refusals_are_named() {
    let zones = files_with_ext(&corpus_dir().join("nel"), &["zonel", "zone"]);
    let orig = read_zone(&std::fs::read(&zones[0]).expect("read"));
    let mut info = own_patches(&orig);
    fit_to_cell(&mut info);
    let c = [80.0f32, 80.0];
    let model = rklpatch_from_zone(&info, [0.0; 3]);
    let opts = |second: Option<&'static str>| SourceOptions {
        second_node: second,
        ..SourceOptions::plain("brick")
    };
    let placed = |cell: (f32, f32), second| {
        write_source_at(
            &model,
            &opts(second),
            Some((
                [cell.0 * 160.0 + 80.0, cell.1 * 160.0 + 80.0, 1.0],
                [-c[0], -c[1], -1.0],
            )),
        )
    };
    let go = |bytes: &[u8], stem: &str| {
        let doc = Document::from_bytes(bytes).expect("reopens");
        let eval = SceneEval::from_document(doc).expect("evaluates");
        nexp::export(stem, &eval, &[ExportKind::Zone, ExportKind::LigoZone])
    };
    // Slot 5 (mirrored, a quarter turn) needs the bank.
    let out = go(&placed((0.0, 2.0), None), "zonetransition-a-b-1");
    assert!(out.outputs.is_empty());
    assert!(
        out.errors_text().contains("needs the tile bank") && out.errors_text().contains("--bank"),
        "{}",
        out.errors_text()
    );
    // Two RklPatch nodes in a material source.
    let out = go(&placed((0.0, 0.0), Some("brick2")), "zonematerial-a-b");
    assert!(
        out.errors_text()
            .contains("ERROR In file zonematerial-a-b, multiple NelPatchMesh. Can't export."),
        "{}",
        out.errors_text()
    );
    // Not a brick source: four tokens; the direct export then asks for an NN_AB name.
    let out = go(&placed((0.0, 0.0), None), "zonematerial-a-b-c");
    assert!(!out.outputs.iter().any(|o| o.kind == ExportKind::LigoZone));
    // A slot cell the script leaves undefined (x 0, y 1).
    let out = go(&placed((0.0, 1.0), None), "zonetransition-a-b-1");
    assert!(
        out.errors_text()
            .contains("A zone is not at the right position"),
        "{}",
        out.errors_text()
    );
}

/// nel_ligo_export.ms l.9-11, typed here from the script for the expected values:
/// `TransitionScale`, `TransitionRot`, `TransitionPos` of slots 1..=9.
const SCRIPT_SCALE: [bool; 9] = [false, false, false, false, true, false, false, false, false];
const SCRIPT_ROT: [u8; 9] = [2, 1, 3, 0, 1, 3, 0, 0, 0];
const SCRIPT_POS: [[f64; 2]; 9] = [
    [0.0, 0.0],
    [-1.0, 0.0],
    [-1.0, -1.0],
    [-1.0, -2.0],
    [0.0, -2.0],
    [0.0, -3.0],
    [-1.0, -3.0],
    [-2.0, -3.0],
    [-3.0, -3.0],
];

/// `buildTransitionMatrixObj mt slot cellSize` (nel_ligo_export.ms l.242-267), step by
/// step in Max's row-vector order with the scene's matrices:
/// `copyMt = transMatrix (TransitionPos[slot] * cellSize)`,
/// `translate copyMt [-cellSize/2, -cellSize/2, 0]`,
/// `scale copyMt [-1,1,1] true` when `TransitionScale[slot]` (translation scaled too),
/// `rotateZ copyMt (90 * TransitionRot[slot])`,
/// `translate copyMt [cellSize/2, cellSize/2, 0]`, and the result `mt * copyMt`.
fn script_transition_obj(
    mt: &maxfs_scene::eval::Mat43,
    slot: usize,
    cell: f64,
) -> maxfs_scene::eval::Mat43 {
    use maxfs_scene::eval::{Mat43, Vec3};
    let i = slot - 1;
    let mut copy = Mat43::translation(Vec3(SCRIPT_POS[i][0] * cell, SCRIPT_POS[i][1] * cell, 0.0))
        .then(&Mat43::translation(Vec3(-cell / 2.0, -cell / 2.0, 0.0)));
    if SCRIPT_SCALE[i] {
        copy = copy.then(&Mat43::scaling(Vec3(-1.0, 1.0, 1.0)));
    }
    if SCRIPT_ROT[i] != 0 {
        copy = copy.then(&Mat43::rot_z(
            (90.0 * f64::from(SCRIPT_ROT[i])).to_radians(),
        ));
    }
    copy = copy.then(&Mat43::translation(Vec3(cell / 2.0, cell / 2.0, 0.0)));
    mt.then(&copy)
}

/// The brick zone of the ig tests: 2×2 patches on cell (0,0) from the first corpus zone.
fn ig_test_brick() -> maxfs_scene::rklpatch::RklPatch {
    let zones = files_with_ext(&corpus_dir().join("nel"), &["zonel", "zone"]);
    let orig = read_zone(&std::fs::read(&zones[0]).expect("read"));
    let info = synthetic_brick(&own_patches(&orig), 2, &[(0, 0)], orig.zone_id);
    rklpatch_from_zone(&info, [0.0; 3])
}

fn ig_test_source(nodes: &[BoxNode]) -> (Vec<u8>, Vec<usize>) {
    let bytes = write_source_at(
        &ig_test_brick(),
        &SourceOptions::plain("brick"),
        // The patch node in slot 1 (cell (0,0)): the script's `ok and findOne`.
        Some(([80.0, 80.0, 1.0], [-80.0, -80.0, -1.0])),
    );
    with_box_nodes(&bytes, nodes)
}

/// Transition brick instance groups (`exportInstanceGroupFromZone` with the slot's
/// brick name): one Box per slot whose IGNAME is that slot's brick (mixed case: the
/// script lowercases), turned about Z, in the slot's cell; one more named after no brick.
/// Each slot's `.ig` holds its Box placed at `world · copyMt` of the script's formula
/// above (position within 1e-3 m; the NeL rotation and scale, rebuilt as a matrix,
/// within 1e-5 of the formula's axes), and NeL reads every `.ig` back and rewrites it
/// byte-identically (tests/oracle/nel_check.sh).
#[test]
fn transition_brick_igs_follow_build_transition_matrix_obj() {
    use maxfs_exporters::nel::export::properties::id;
    let stem = "zonetransition-foret-prairie-2";
    let names: Vec<String> = (1..=9).map(|s| format!("box{s}")).collect();
    let ignames: Vec<String> = (1..=9)
        .map(|s| format!("Foret-Prairie-2-{}", s - 1))
        .collect();
    let appdata: Vec<[(u32, &str); 1]> =
        ignames.iter().map(|g| [(id::IGNAME, g.as_str())]).collect();
    let stray = [(id::IGNAME, "foret-prairie-2-9")];
    let mut nodes: Vec<BoxNode> = (0..9)
        .map(|i| {
            let (cx, cy) = SLOT_CELL[i];
            let s = i as f32;
            BoxNode {
                name: &names[i],
                position: [
                    cx * 160.0 + 20.0 + 11.0 * s,
                    cy * 160.0 + 130.0 - 9.0 * s,
                    2.0 + s,
                ],
                rotation: [0.0, 0.0, 0.35 * (s + 1.0)],
                appdata: &appdata[i],
                parent: None,
            }
        })
        .collect();
    nodes.push(BoxNode {
        name: "stray",
        position: [5.0, 6.0, 7.0],
        rotation: [0.0; 3],
        appdata: &stray,
        parent: None,
    });
    let (bytes, made) = ig_test_source(&nodes);
    let doc = Document::from_bytes(&bytes).expect("reopens");
    let eval = SceneEval::from_document(doc).expect("evaluates");
    let out = nexp::export(stem, &eval, &[ExportKind::Ig]);
    let errors = out.errors_text();
    assert!(
        errors.contains("foret-prairie-2-9.ig") && errors.contains("exports it from no slot"),
        "{errors}"
    );
    assert_eq!(errors.lines().count(), 1, "{errors}");
    let mut files = Vec::new();
    let (mut worst_pos, mut worst_axis) = (0.0f64, 0.0f64);
    for slot in 1..=9 {
        let name = format!("foret-prairie-2-{}.ig", slot - 1);
        let o = out
            .outputs
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("{name} not exported: {errors}"));
        let NelFile::InstanceGroup(ig) = read_nel(&o.bytes, &name).expect("ig reads") else {
            panic!("{name}: not an ig")
        };
        assert_eq!(ig.instances.len(), 1, "{name}");
        let inst = &ig.instances[0];
        assert_eq!(
            inst.instance_name.as_deref(),
            Some(names[slot - 1].as_str())
        );
        // The node TM the source holds (checked against the values written into its
        // controllers: Euler Z θ then the position, Max's RotateZMatrix convention).
        let n = &nodes[slot - 1];
        let w = eval.world_tm(made[slot - 1], 0);
        let built = maxfs_scene::eval::Mat43::rot_z(f64::from(n.rotation[2])).then(
            &maxfs_scene::eval::Mat43::translation(maxfs_scene::eval::Vec3::from_f32(n.position)),
        );
        for (a, b) in w.rows().iter().flatten().zip(built.rows().iter().flatten()) {
            assert!((a - b).abs() < 1e-5, "{name}: node TM {w:?} vs {built:?}");
        }
        let want = script_transition_obj(&w, slot, 160.0).rows();
        let pos = [inst.pos.x.get(), inst.pos.y.get(), inst.pos.z.get()].map(f64::from);
        for k in 0..3 {
            worst_pos = worst_pos.max((pos[k] - want[3][k]).abs());
        }
        let q = [
            inst.rot.x.get(),
            inst.rot.y.get(),
            inst.rot.z.get(),
            inst.rot.w.get(),
        ]
        .map(f64::from);
        let qm = maxfs_scene::eval::Quat {
            x: q[0],
            y: q[1],
            z: q[2],
            w: q[3],
        }
        .to_column_matrix();
        let s = [inst.scale.x.get(), inst.scale.y.get(), inst.scale.z.get()].map(f64::from);
        for i in 0..3 {
            for j in 0..3 {
                // NeL's column matrix · scale is the transpose of Max's rows.
                worst_axis = worst_axis.max((qm[i][j] * s[j] - want[j][i]).abs());
            }
        }
        // The mirrored slot keeps its mirror.
        let det = want[0][0] * (want[1][1] * want[2][2] - want[1][2] * want[2][1])
            - want[0][1] * (want[1][0] * want[2][2] - want[1][2] * want[2][0])
            + want[0][2] * (want[1][0] * want[2][1] - want[1][1] * want[2][0]);
        assert_eq!(det < 0.0, SCRIPT_SCALE[slot - 1], "{name}");
        files.push((name, o.bytes.clone()));
    }
    eprintln!(
        "transition brick igs: 9 slots, worst position error {worst_pos:.2e} m, worst axis error {worst_axis:.2e}"
    );
    assert!(worst_pos < 1e-3, "{worst_pos}");
    assert!(worst_axis < 1e-5, "{worst_axis}");
    crate::export_remanence::nel_oracle(&files);
}

/// The script moves a node under a moved parent twice (Max carries children along):
/// refused by name; and without a placed patch node the script exports no ig at all.
#[test]
fn transition_brick_igs_refusals_are_named() {
    use maxfs_exporters::nel::export::properties::id;
    let tag = [(id::IGNAME, "foret-prairie-2-3")];
    let nodes = [
        BoxNode {
            name: "parent",
            position: [200.0, 250.0, 0.0],
            rotation: [0.0; 3],
            appdata: &tag,
            parent: None,
        },
        BoxNode {
            name: "child",
            position: [210.0, 260.0, 0.0],
            rotation: [0.0; 3],
            appdata: &tag,
            parent: Some(0),
        },
    ];
    let (bytes, _) = ig_test_source(&nodes);
    let go = |bytes: &[u8], stem: &str| {
        let doc = Document::from_bytes(bytes).expect("reopens");
        let eval = SceneEval::from_document(doc).expect("evaluates");
        nexp::export(stem, &eval, &[ExportKind::Ig])
    };
    let out = go(&bytes, "zonetransition-foret-prairie-2");
    assert!(out.outputs.is_empty());
    assert!(
        out.errors_text()
            .contains("node child has a parent moved by buildTransitionMatrixObj too"),
        "{}",
        out.errors_text()
    );
    // The same group in a material source is exported as it stands.
    let out = go(&bytes, "zonematerial-foret-a1");
    assert!(out.outputs.iter().any(|o| o.name == "foret-prairie-2-3.ig"));
    // Patch node at an undefined cell (x 0, y 1): no ig.
    let one = [BoxNode {
        name: "alone",
        position: [200.0, 250.0, 0.0],
        rotation: [0.0; 3],
        appdata: &tag,
        parent: None,
    }];
    let bytes = write_source_at(
        &ig_test_brick(),
        &SourceOptions::plain("brick"),
        Some(([80.0, 240.0, 1.0], [-80.0, -80.0, -1.0])),
    );
    let (bytes, _) = with_box_nodes(&bytes, &one);
    let out = go(&bytes, "zonetransition-foret-prairie-2");
    assert!(out.outputs.is_empty());
    assert!(
        out.errors_text().contains("patch nodes are not placed"),
        "{}",
        out.errors_text()
    );
}

/// LIGO_USE_BOUNDINGBOX: the mask is `getSquareMask` of the built zone (ligo
/// plugin_max script.cpp), not the zone template. Material bricks of the three synthetic
/// shapes carrying the AppData ("1"); expected: NeL's own brick zone for the source's
/// patches (`landscape_oracle brick`), its square mask (`landscape_oracle square`: NeL's
/// `CZone::serial` + `retrieve`, then the plug-in's rule), and the `.ligozone` NeL's
/// COXml writes for it. The L's box is 2×2 with all four cells set (its template mask
/// has three).
#[test]
fn bounding_box_masks_equal_nel_square_mask() {
    use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
    let zones = files_with_ext(&corpus_dir().join("nel"), &["zonel", "zone"]);
    let bank = TileBankFile::load(&bank_path()).expect("corpus bank");
    let dir = tempfile::tempdir().expect("tempdir");
    let stem = "zonematerial-foret-a1";
    let one = [(0, 0)];
    let ell = [(0, 0), (1, 0), (0, 1)];
    let shapes: [(usize, &[(usize, usize)]); 3] = [(2, &one), (4, &one), (2, &ell)];
    let mut sizes = Vec::new();
    for (i, &(n, cells)) in shapes.iter().enumerate() {
        let (zp, _, info) = brick_zone_file(dir.path(), &zones[i % zones.len()], n, cells);
        let bytes = write_source_at(
            &rklpatch_from_zone(&info, [0.0; 3]),
            &SourceOptions::plain("brick"),
            Some(([80.0, 80.0, 1.0], [-80.0, -80.0, -1.0])),
        );
        let mut e = maxfs_tests::rewrite::SceneEdit::from_file(
            maxfs_scene::container::MaxFile::from_bytes(&bytes).expect("parses"),
        );
        e.add_appdata(
            NODE,
            (NEL_CLASS_ID, NEL_SUPER_CLASS),
            id::LIGO_USE_BOUNDINGBOX,
            "1",
        );
        let bytes = e.finish_file().to_bytes().expect("writes");
        let (out, eval) = export(&bytes, stem, &bank);
        let text = out
            .outputs
            .iter()
            .find(|o| o.name == "foret-a1.ligozone")
            .unwrap_or_else(|| panic!("{}: no .ligozone: {}", zp.display(), out.errors_text()))
            .bytes
            .clone();
        // NeL's zone for the source's patches, then its square mask.
        let m = eval.object_tm(NODE, 0).0;
        let tm = m.map(|r| [r.0 as f32, r.1 as f32, r.2 as f32]);
        let nel_zone = dir.path().join(format!("nel-square-{i}.zone"));
        let mut args = vec![
            "brick".to_string(),
            bank_path().display().to_string(),
            "160".into(),
            "1".into(),
            "0".into(),
            "0".into(),
        ];
        args.extend(tm.iter().flatten().map(|v| format!("{v:.9e}")));
        args.extend(["0", "0", "1", "1"].map(String::from));
        args.push(zp.display().to_string());
        args.push(nel_zone.display().to_string());
        let r = run(&oracle(), &args);
        assert!(r.starts_with("OK"), "NeL brick: {r}");
        let r = run(
            &oracle(),
            &[
                "square".into(),
                "160".into(),
                nel_zone.display().to_string(),
            ],
        );
        let mut it = r.split_whitespace();
        let (Some("OK"), Some(w), Some(h)) = (it.next(), it.next(), it.next()) else {
            panic!("NeL square: {r}")
        };
        let cells_n = w.parse::<usize>().expect("w") * h.parse::<usize>().expect("h");
        let mask = "1".repeat(cells_n);
        let src = maxfs_exporters::nel::zone_build::ligo::BrickSource::from_stem(stem)
            .expect("brick source");
        let (_, props) = src.bricks().swap_remove(0);
        let expected = nel_ligozone(dir.path(), &format!("square-{i}"), w, h, &mask, &props);
        assert_eq!(
            String::from_utf8_lossy(&text),
            String::from_utf8_lossy(&expected),
            "{}",
            zp.display()
        );
        sizes.push(format!("{w}x{h}"));
    }
    eprintln!("bounding-box masks equal NeL's: {sizes:?}");
    assert_eq!(sizes, ["1x1", "1x1", "2x2"]);
}
