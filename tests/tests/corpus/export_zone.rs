//! Direct zone export against every real zone of the corpus: the zone is taken
//! apart (`CZone::retrieve`), written as a synthetic RklPatch source through our
//! own chunk and container writers (tests/src/zone_source.rs), read back by the
//! file layer, evaluated and exported; the `.zone` must equal the original
//! under the masks below. This checks the export rules and the decoder/writer
//! symmetry; the RklPatch decode itself is verified only against the seed's
//! layout (docs/zones.md).
//!
//! Masked, with why:
//! - compressed lumels, tile light influences, point lights: written by
//!   zone_lighter after export (.zonel); the export writes 255 lumels and resets;
//! - tile vegetable state (CTileElement bits 13-14): zone_lighter /
//!   zone_vegetable set it; the exporter always writes AboveWater;
//! - CTileElement bit 15 and empty layers' rotation bits, CPatch::Flags outside
//!   the 0x3c smooth mask, unused CBindInfo slots: bytes the reference exporter
//!   leaves uninitialised (seed S003 l.302);
//! - border vertices, and bind edges whose zone id is another zone's: the
//!   welder adds them after export; the zone version byte: the export writes
//!   v4 (seed S003 l.299), the snowballs zones are v3.

use maxfs_exporters::nel::export::zone::zone_id;
use maxfs_exporters::nel::export::{self as nexp, ExportKind};
use maxfs_exporters::nel::zone::Zone;
use maxfs_exporters::nel::zone_build::{build_with, retrieve, BuildOptions};
use maxfs_exporters::nel::{read_kind, NelFile, NelKind};
use maxfs_scene::eval::core::coverage::{mesh_coverage, MeshCoverage};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::rklpatch::{MapVert, VertMapper};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::zone_source::{
    build_moved, corpus_zone_source, corpus_zone_sources, corpus_zones, rklpatch_from_zone,
    template_translation, write_source, PatchModifier, SourceOptions, NODE, TEMPLATE,
};

pub(crate) fn read_zone(bytes: &[u8]) -> Zone {
    match read_kind(bytes, NelKind::Zone).expect("zone reads") {
        NelFile::Zone(z) => z,
        _ => unreachable!(),
    }
}

pub(crate) fn export(bytes: &[u8], stem: &str) -> (nexp::Exports, SceneEval) {
    let doc = Document::from_bytes(bytes).expect("synthetic source reopens");
    let eval = SceneEval::from_document(doc).expect("evaluates");
    (nexp::export(stem, &eval, &[ExportKind::Zone]), eval)
}

/// Field-by-field differences under the masks, one line each.
/// `geometry` is the zone whose header and packed control points are expected
/// (CZone::build of the retrieved patches: retrieve loses the original
/// floats' bounding box, so bias and scale are those of the retrieved points);
/// everything else is compared with `reference`.
pub(crate) fn diff(ours: &Zone, reference: &Zone, geometry: &Zone) -> Vec<String> {
    let mut d = Vec::new();
    let mut check = |what: String, same: bool| {
        if !same {
            d.push(what);
        }
    };
    check("zone id".into(), ours.zone_id == reference.zone_id);
    check(
        "bbox/bias/scale".into(),
        format!(
            "{:?}{:?}{:?}",
            ours.zone_bb, ours.patch_bias, ours.patch_scale
        ) == format!(
            "{:?}{:?}{:?}",
            geometry.zone_bb, geometry.patch_bias, geometry.patch_scale
        ),
    );
    check(
        "num vertices".into(),
        ours.num_vertices == reference.num_vertices,
    );
    check(
        "patch count".into(),
        ours.patches.len() == reference.patches.len(),
    );
    for (i, (a, b)) in ours.patches.iter().zip(&reference.patches).enumerate() {
        let pts = |p: &maxfs_exporters::nel::zone::Patch| {
            format!("{:?}{:?}{:?}", p.vertices, p.tangents, p.interiors)
        };
        check(
            format!("patch {i} control points"),
            geometry.patches.get(i).is_some_and(|g| pts(a) == pts(g)),
        );
        check(
            format!("patch {i} order"),
            (a.order_s, a.order_t) == (b.order_s, b.order_t),
        );
        // CPatch v6 (the snowballs zones) keeps its colours in the old layout.
        let colours = |p: &maxfs_exporters::nel::zone::Patch| -> Vec<u16> {
            if p.tile_colors.is_empty() {
                p.tile_colors_v6.iter().map(|c| c.color565).collect()
            } else {
                p.tile_colors.iter().map(|c| c.color565).collect()
            }
        };
        check(format!("patch {i} tile colours"), colours(a) == colours(b));
        let mask = |t: &maxfs_exporters::nel::zone::TileElement| {
            let mut f = t.flags & !(0x3 << 13) & !0x8000;
            for l in 0..3 {
                if t.tile[l] == 0xffff {
                    f &= !(0x3 << (2 * l));
                }
            }
            (f, t.tile)
        };
        check(
            format!("patch {i} tiles"),
            a.tiles.iter().map(mask).eq(b.tiles.iter().map(mask)),
        );
        check(
            format!("patch {i} smooth flags"),
            a.flags.map(|f| f & 0x3c) == b.flags.map(|f| f & 0x3c),
        );
        check(
            format!("patch {i} noise rotation / corner smooth"),
            (a.noise_rotation, a.corner_smooth_flag) == (b.noise_rotation, b.corner_smooth_flag),
        );
    }
    for (i, (a, b)) in ours
        .patch_connects
        .iter()
        .zip(&reference.patch_connects)
        .enumerate()
    {
        check(
            format!("patch {i} base vertices"),
            a.base_vertices == b.base_vertices,
        );
        check(
            format!("patch {i} error size"),
            a.error_size == b.error_size,
        );
        for (e, (x, y)) in a.bind_edges.iter().zip(&b.bind_edges).enumerate() {
            if y.zone_id != reference.zone_id {
                // zone_welder bound this border edge to a neighbour zone after export.
                continue;
            }
            let valid = if x.n_patchs == 5 {
                1
            } else {
                usize::from(x.n_patchs).min(4)
            };
            let same = x.n_patchs == y.n_patchs
                && x.zone_id == y.zone_id
                && x.next[..valid] == y.next[..valid]
                && x.edge[..valid] == y.edge[..valid];
            check(format!("patch {i} edge {e} binds"), same);
        }
    }
    d
}

pub(crate) fn exported_zone(out: &nexp::Exports) -> Zone {
    assert!(out.errors.is_empty(), "{}", out.errors_text());
    assert_eq!(out.outputs.len(), 1);
    read_zone(&out.outputs[0].bytes)
}

#[test]
fn every_corpus_zone_round_trips_through_a_synthetic_source() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for src in corpus_zone_sources() {
        let (stem, original, info) = (&src.stem, &src.zone, &src.info);
        // zone_export.ms findID on the file name gives the stored zone id.
        assert_eq!(
            zone_id(stem).ok(),
            Some(original.zone_id),
            "{}",
            src.path.display()
        );
        let (out, _) = export(&src.bytes, stem);
        if !out.errors.is_empty() {
            failures.push(format!("{}: {}", src.path.display(), out.errors_text()));
            continue;
        }
        assert_eq!(out.outputs[0].name, format!("{stem}.zone"));
        let ours = exported_zone(&out);
        assert_eq!(ours.version, 4, "the reference exporter's version byte");
        let rebuilt = build_with(info, &BuildOptions::default()).expect("rebuilds");
        let d = diff(&ours, original, &rebuilt);
        if !d.is_empty() {
            failures.push(format!("{}: {}", src.path.display(), d.join("; ")));
        }
        checked += 1;
    }
    eprintln!("zones checked: {checked}, differing: {}", failures.len());
    assert!(checked >= 90, "{checked}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// block.max's own object TM (a translation by (6.52, 4.71, 0)) kept: every
/// point goes through `v * objectTM` in single precision. Object-space points
/// are chosen so that the sum gives the world point back when a float allows
/// it; the rest may land one packed unit away at a quantization boundary.
#[test]
fn zones_export_through_a_translated_object_tm() {
    let t = template_translation();
    assert!(t[0] != 0.0 && t[1] != 0.0, "{t:?}");
    let zones = corpus_zones();
    let (mut words, mut off_by_one, mut worse) = (0usize, 0usize, 0usize);
    for path in zones.iter().take(8) {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let original = read_zone(&std::fs::read(path).unwrap());
        let info = retrieve(&original).unwrap();
        let bytes = write_source(&rklpatch_from_zone(&info, t), &SourceOptions::plain(&stem));
        let ours = exported_zone(&export(&bytes, &stem).0);
        let rebuilt = build_with(&info, &BuildOptions::default()).unwrap();
        for (a, b) in ours.patches.iter().zip(&rebuilt.patches) {
            let flat = |p: &maxfs_exporters::nel::zone::Patch| -> Vec<i16> {
                p.vertices
                    .iter()
                    .chain(&p.tangents)
                    .chain(&p.interiors)
                    .flat_map(|v| [v.x, v.y, v.z])
                    .collect()
            };
            for (x, y) in flat(a).into_iter().zip(flat(b)) {
                words += 1;
                match (i32::from(x) - i32::from(y)).abs() {
                    0 => {}
                    1 => off_by_one += 1,
                    _ => worse += 1,
                }
            }
        }
    }
    eprintln!("translated TM: {words} packed words, {off_by_one} off by one, {worse} worse");
    assert_eq!(worse, 0);
    assert!(off_by_one * 100 <= words, "{off_by_one} of {words}");
}

/// A NeL Edit Patch moving three vertices: the export follows (expected: the
/// original patches with those corners moved, built by CZone::build). Its stored
/// final patch is the unmoved input, as when the input changed after the edit:
/// `UpdateAndApplyDeltas` puts input + delta over it.
#[test]
fn nel_edit_patch_moves_reach_the_zone() {
    let t = template_translation();
    let path = corpus_zones().into_iter().next().unwrap();
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    let original = read_zone(&std::fs::read(&path).unwrap());
    let info = retrieve(&original).unwrap();
    let model = rklpatch_from_zone(&info, [0.0; 3]);
    let moved: [(usize, [f32; 3]); 3] = [
        (0, [0.0, 0.0, 2.5]),
        (5, [1.0, -1.0, 0.0]),
        (9, [0.0, 0.5, -3.0]),
    ];
    let mapper = VertMapper {
        verts: model
            .verts
            .iter()
            .enumerate()
            .map(|(i, v)| MapVert {
                original_stored: 1,
                vert: i as i32,
                original: v.p,
                delta: moved
                    .iter()
                    .find(|m| m.0 == i)
                    .map_or([0.0f32; 3], |m| m.1)
                    .map(f32::to_bits),
            })
            .collect(),
        vecs: Vec::new(),
    };
    let bytes = write_source(
        &model,
        &SourceOptions {
            cancel_translation: Some(t),
            modifiers: &[PatchModifier::edit_patch(&mapper, &model)],
            ..SourceOptions::plain(&stem)
        },
    );
    let (out, eval) = export(&bytes, &stem);
    let ours = exported_zone(&out);
    let (want, touched) = build_moved(&info, |corner, p| {
        let m = moved.iter().find(|m| m.0 == corner)?;
        Some(std::array::from_fn(|k| p[k] + m.1[k]))
    });
    assert!(
        touched >= 3,
        "moved corners used by {touched} patch corners"
    );
    let d = diff(&ours, &original, &want);
    assert!(d.is_empty(), "{}", d.join("; "));
    let unmoved = build_with(&info, &BuildOptions::default()).unwrap();
    assert!(
        !diff(&ours, &original, &unmoved).is_empty(),
        "the moves must show"
    );
    // The mesh view follows too, and the node counts as evaluated.
    assert_eq!(mesh_coverage(&eval, NODE), MeshCoverage::Evaluated);
    let mesh = eval.mesh(NODE, 0).unwrap().unwrap();
    let cells: usize = info
        .patches
        .iter()
        .map(|p| usize::from(p.order_s) * usize::from(p.order_t))
        .sum();
    assert_eq!(mesh.faces.len(), 2 * cells);
}

/// The tessellated mesh starts each patch at its first corner, in object space.
#[test]
fn tessellation_passes_through_the_corners() {
    let path = corpus_zones().into_iter().next().unwrap();
    let src = corpus_zone_source(&path, template_translation());
    let (info, stem) = (src.info, src.stem);
    let (_, eval) = export(&src.bytes, &stem);
    let mesh = eval.mesh(NODE, 0).unwrap().unwrap();
    let mut at = 0usize;
    for pi in &info.patches {
        let (s, tt) = (usize::from(pi.order_s), usize::from(pi.order_t));
        let corners = [at, at + s, at + (s + 1) * (tt + 1) - 1, at + (s + 1) * tt];
        for (k, &vi) in corners.iter().enumerate() {
            let v = mesh.vertices[vi];
            let p = pi.patch.vertices[k];
            let err = (v.0 - f64::from(p[0])).abs()
                + (v.1 - f64::from(p[1])).abs()
                + (v.2 - f64::from(p[2])).abs();
            assert!(err < 1e-3, "patch corner {k}: {v:?} vs {p:?}");
        }
        at += (s + 1) * (tt + 1);
    }
    assert_eq!(at, mesh.vertices.len());
}

/// zone_export.ms / the seed's port refuse these; each lands in errors.txt.
#[test]
fn refusals_go_to_errors_txt() {
    let t = template_translation();
    let path = corpus_zones().into_iter().next().unwrap();
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    let model = rklpatch_from_zone(
        &retrieve(&read_zone(&std::fs::read(&path).unwrap())).unwrap(),
        [0.0; 3],
    );
    let opts = |name: &'static str, frozen: bool, second: Option<&'static str>| SourceOptions {
        cancel_translation: Some(t),
        frozen,
        second_node: second,
        ..SourceOptions::plain(name)
    };
    let refused = |bytes: Vec<u8>, stem: &str, needle: &str| {
        let (out, _) = export(&bytes, stem);
        assert!(out.outputs.is_empty(), "{needle}");
        let text = out.errors_text();
        assert!(
            text.starts_with("zone\t") && text.contains(needle),
            "{text}"
        );
    };
    refused(
        write_source(&model, &opts("zone", false, None)),
        &stem,
        "is not NN_AB",
    );
    refused(
        write_source(&model, &opts("1_AA", false, Some("1_AB"))),
        &stem,
        "2 non-frozen RklPatch nodes (1_AA, 1_AB)",
    );
    refused(
        write_source(&model, &opts("1_AA", true, None)),
        &stem,
        "every RklPatch node is frozen",
    );
    // No RklPatch: a file named like a zone reports it, any other file is not a zone source.
    let template = std::fs::read(corpus_dir().join(TEMPLATE)).unwrap();
    refused(template.clone(), "1_AA", "no zone found");
    let (out, _) = export(&template, "block");
    assert!(out.outputs.is_empty() && out.errors.is_empty());
}
