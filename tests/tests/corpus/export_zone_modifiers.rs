//! NeL Edit Patch and NeL Paint on an RklPatch: their stored final patch is the
//! output (`EditPatchData::Apply` / `PaintPatchData::Apply` with EPD_HASDATA;
//! Edit Patch first puts its mapped input points + delta over it), without
//! EPD_HASDATA the input passes through. The sources are built from two
//! real zones of different patch counts (tests/src/zone_source.rs): base
//! object = zone A, final patch = zone B, and the export must equal zone B
//! under the masks of the 96-zone test (`export_zone::diff`), or CZone::build
//! of B's patches with the mapped vertices moved (our port, byte-identical to
//! NeL's own build on all corpus zones: docs/zones.md).

use maxfs_exporters::nel::zone::Zone;
use maxfs_exporters::nel::zone_build::{build_with, BuildOptions, ZoneInfo};
use maxfs_scene::chunk::{Body, Chunk};
use maxfs_scene::eval::core::coverage::{mesh_coverage, MeshCoverage};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::rklpatch::{MapVert, RklPatch, VertMapper};
use maxfs_tests::zone_source::{
    build_moved, corpus_zone_sources, rklpatch_from_zone, write_source, CorpusZoneSource,
    PatchModifier, SourceOptions, NODE,
};

use crate::export_zone::{diff, export, exported_zone};

/// Zone A (the first corpus zone) and zone B (the next one with another patch
/// count), as sources of their own.
fn two_zones() -> (CorpusZoneSource, CorpusZoneSource) {
    let mut all = corpus_zone_sources().into_iter();
    let a = all.next().expect("a zone");
    let b = all
        .find(|z| z.info.patches.len() != a.info.patches.len())
        .expect("a zone of another patch count");
    (a, b)
}

fn model(z: &CorpusZoneSource) -> RklPatch {
    rklpatch_from_zone(&z.info, [0.0; 3])
}

/// A source holding zone A's patches under `modifiers`, named `stem` (its zone id).
fn source(a: &CorpusZoneSource, stem: &str, modifiers: &[PatchModifier]) -> Vec<u8> {
    write_source(
        &model(a),
        &SourceOptions {
            cancel_translation: Some(maxfs_tests::zone_source::template_translation()),
            modifiers,
            ..SourceOptions::plain(stem)
        },
    )
}

/// A mapper over `input`'s points with every record unmapped (-1: the input's
/// points are gone from the output), except `moves` (input point → (output
/// point, delta)).
fn mapper(input: &RklPatch, moves: &[(usize, usize, [f32; 3])]) -> VertMapper {
    let table = |n: usize, pos: &dyn Fn(usize) -> [u32; 3], moves: &[(usize, usize, [f32; 3])]| {
        (0..n)
            .map(|i| {
                let m = moves.iter().find(|m| m.0 == i);
                MapVert {
                    original_stored: 1,
                    vert: m.map_or(-1, |m| m.1 as i32),
                    original: pos(i),
                    delta: m.map_or([0.0f32; 3], |m| m.2).map(f32::to_bits),
                }
            })
            .collect()
    };
    VertMapper {
        verts: table(input.verts.len(), &|i| input.verts[i].p, moves),
        vecs: table(input.vecs.len(), &|i| input.vecs[i].p, &[]),
    }
}

/// The zone's expected equal to `reference` (and its `geometry`) under the masks.
fn assert_zone(ours: &Zone, reference: &Zone, geometry: &Zone, what: &str) {
    let d = diff(ours, reference, geometry);
    assert!(d.is_empty(), "{what}: {}", d.join("; "));
}

fn rebuilt(info: &ZoneInfo) -> Zone {
    build_with(info, &BuildOptions::default()).expect("rebuilds")
}

/// The tessellation of the node (meshes.json, glTF) and json/patches.json follow `z`.
fn views_follow(eval: &SceneEval, stem: &str, z: &CorpusZoneSource) {
    let cells: usize = z
        .info
        .patches
        .iter()
        .map(|p| usize::from(p.order_s) * usize::from(p.order_t))
        .sum();
    assert_eq!(mesh_coverage(eval, NODE), MeshCoverage::Evaluated);
    let mesh = eval.mesh(NODE, 0).expect("a mesh").expect("evaluates");
    assert_eq!(mesh.faces.len(), 2 * cells, "tessellated faces");
    let glb = maxfs_exporters::gltf::export_scene(eval).expect("glTF");
    let g = gltf::Gltf::from_slice(&glb.glb).expect("valid glTF");
    let node = g
        .document
        .nodes()
        .find(|n| n.name() == Some(stem))
        .expect("the patch node in the glTF");
    let indices: usize = node
        .mesh()
        .expect("a mesh")
        .primitives()
        .map(|p| p.indices().expect("indexed").count())
        .sum();
    assert_eq!(indices, 6 * cells, "glTF triangles");
    let json: serde_json::Value =
        serde_json::from_slice(&maxfs_fs::views::patches::render(eval)).expect("json");
    let entry = &json["patches"][0];
    let want = model(z);
    assert_eq!(
        entry["mesh"]["counts"]["patches"].as_u64(),
        Some(z.info.patches.len() as u64)
    );
    assert_eq!(
        entry["mesh"]["counts"]["vertices"].as_u64(),
        Some(want.verts.len() as u64)
    );
    assert!(entry["patch_modifiers"]
        .as_array()
        .is_some_and(|m| !m.is_empty()));
}

#[test]
fn edit_patch_final_patch_of_another_topology_is_exported() {
    let (a, b) = two_zones();
    let (base, fin) = (model(&a), model(&b));
    assert_ne!(base.patches.len(), fin.patches.len());
    eprintln!(
        "base {} ({} patches, {} vertices), final {} ({} patches, {} vertices)",
        a.stem,
        base.patches.len(),
        base.verts.len(),
        b.stem,
        fin.patches.len(),
        fin.verts.len()
    );
    // No mapped records: the output is B's stored patches as they are.
    let bytes = source(
        &a,
        &b.stem,
        &[PatchModifier::edit_patch(&mapper(&base, &[]), &fin)],
    );
    let (out, eval) = export(&bytes, &b.stem);
    let ours = exported_zone(&out);
    assert_zone(&ours, &b.zone, &rebuilt(&b.info), "final patch B");
    assert_eq!(ours.patches.len(), b.zone.patches.len());
    views_follow(&eval, &b.stem, &b);

    // Mapped records: input point i moves output point j to input i + delta
    // (Point3 + Point3 in single precision), over B's stored positions.
    let moves: [(usize, usize, [f32; 3]); 3] = [
        (0, 0, [0.0, 0.0, 2.5]),
        (3, 7, [1.0, -1.0, 0.0]),
        (9, 12, [0.0, 0.5, -3.0]),
    ];
    let bytes = source(
        &a,
        &b.stem,
        &[PatchModifier::edit_patch(&mapper(&base, &moves), &fin)],
    );
    let ours = exported_zone(&export(&bytes, &b.stem).0);
    let (want, touched) = build_moved(&b.info, |corner, _| {
        let m = moves.iter().find(|m| m.1 == corner)?;
        let from = base.verts[m.0].pos();
        Some(std::array::from_fn(|k| from[k] + m.2[k]))
    });
    assert!(
        touched >= 3,
        "moved corners used by {touched} patch corners"
    );
    assert_zone(&ours, &b.zone, &want, "final patch B with moves");
    assert!(
        !diff(&ours, &b.zone, &rebuilt(&b.info)).is_empty(),
        "the moves must show"
    );
}

#[test]
fn nel_paint_final_patch_is_exported_and_passes_through_without_data() {
    let (a, b) = two_zones();
    let fin = model(&b);
    let bytes = source(&a, &b.stem, &[PatchModifier::paint(&fin)]);
    let (out, eval) = export(&bytes, &b.stem);
    assert_zone(
        &exported_zone(&out),
        &b.zone,
        &rebuilt(&b.info),
        "paint final patch B",
    );
    views_follow(&eval, &b.stem, &b);

    // Never painted (no EPD_HASDATA): zone A passes through.
    let bytes = source(&a, &a.stem, &[PatchModifier::paint(&fin).with_flags(0)]);
    let (out, eval) = export(&bytes, &a.stem);
    assert_zone(
        &exported_zone(&out),
        &a.zone,
        &rebuilt(&a.info),
        "unpainted",
    );
    views_follow(&eval, &a.stem, &a);

    // Stacked: Edit Patch (final B) under an unpainted Paint (final A) → B; an
    // Edit Patch without data under a Paint with final B → B.
    let base = model(&a);
    for stack in [
        vec![
            PatchModifier::edit_patch(&mapper(&base, &[]), &fin),
            PatchModifier::paint(&base).with_flags(0),
        ],
        vec![
            PatchModifier::edit_patch(&mapper(&base, &[]), &base).with_flags(0),
            PatchModifier::paint(&fin),
        ],
    ] {
        let bytes = source(&a, &b.stem, &stack);
        assert_zone(
            &exported_zone(&export(&bytes, &b.stem).0),
            &b.zone,
            &rebuilt(&b.info),
            "stacked",
        );
    }
}

/// Old-style change records, mapper records that do not fit, damaged or missing
/// final patches: errors.txt names the modifier and the cause, coverage the modifier.
#[test]
fn patch_modifier_refusals_are_named() {
    let (a, b) = two_zones();
    let (base, fin) = (model(&a), model(&b));
    let edit = |m: &VertMapper| PatchModifier::edit_patch(m, &fin);
    let with = |mut m: PatchModifier, f: &dyn Fn(&mut Vec<Chunk>)| {
        f(&mut m.data);
        m
    };
    let leaf = |id: u16, bytes: Vec<u8>| Chunk::leaf(id, bytes);
    let mut past_input = mapper(&base, &[]);
    past_input.verts.push(MapVert {
        original_stored: 1,
        vert: 0,
        original: [0; 3],
        delta: [0; 3],
    });
    let cases: Vec<(PatchModifier, &str)> = vec![
        (
            with(edit(&mapper(&base, &[])), &|d| {
                d.push(leaf(0x2040, vec![0; 12]))
            }),
            "PVertMoveRecord (0x2040)",
        ),
        (
            with(edit(&mapper(&base, &[])), &|d| {
                d.insert(0, leaf(0x1000, 4u32.to_le_bytes().to_vec()))
            }),
            "EPD_GENERAL_CHUNK (pre-release 3) (0x1000)",
        ),
        (
            with(PatchModifier::paint(&fin), &|d| {
                d.push(leaf(0x2070, vec![0; 8]))
            }),
            "PatchChangeRecord (0x2070)",
        ),
        (
            edit(&mapper(&base, &[(2, fin.verts.len() + 3, [0.0; 3])])),
            "targets point",
        ),
        (edit(&past_input), "past the input"),
        (
            with(PatchModifier::paint(&fin), &|d| {
                for c in d.iter_mut().filter(|c| c.id == 0x4001) {
                    let p = c.payload().expect("leaf");
                    c.body = Body::Leaf(p[..p.len() - 3].to_vec().into());
                }
            }),
            "stored final patch: final RPatchMesh (RFINALPATCH)",
        ),
        (
            with(PatchModifier::paint(&fin), &|d| {
                d.retain(|c| c.id != 0x1140)
            }),
            "final patch (FINALPATCH)",
        ),
        (
            with(PatchModifier::paint(&fin), &|d| {
                for c in d.iter_mut().filter(|c| c.id == 0x1140) {
                    if let Body::Container(k) = &mut c.body {
                        for v in k.iter_mut().filter(|v| v.id == 0x0BE0) {
                            let p = v.payload().expect("leaf");
                            v.body = Body::Leaf(p[..p.len() - 1].to_vec().into());
                        }
                    }
                }
            }),
            "stored final patch: chunk 0x0be0 (patch vertices) kept raw",
        ),
        (
            // The final RPatchMesh of zone A with the PatchMesh of zone B.
            with(PatchModifier::paint(&fin), &|d| {
                let other = PatchModifier::paint(&base);
                for c in d.iter_mut().filter(|c| c.id == 0x4001) {
                    *c = other
                        .data
                        .iter()
                        .find(|c| c.id == 0x4001)
                        .expect("r")
                        .clone();
                }
            }),
            "the RPO data describes",
        ),
    ];
    for (m, needle) in cases {
        let name = if m.class == maxfs_scene::rklpatch::NEL_PAINT_CLASS {
            "NeL Paint"
        } else {
            "NeL Edit"
        };
        let bytes = source(&a, &b.stem, std::slice::from_ref(&m));
        let (out, eval) = export(&bytes, &b.stem);
        assert!(out.outputs.is_empty(), "{needle}: exported");
        let text = out.errors_text();
        assert!(
            text.starts_with("zone\t") && text.contains(needle) && text.contains(name),
            "{needle}: {text}"
        );
        match mesh_coverage(&eval, NODE) {
            MeshCoverage::Modifiers(names) => {
                assert!(names.iter().any(|n| n.contains(name)), "{names:?}")
            }
            other => panic!("{needle}: coverage {other:?}"),
        }
    }
}
