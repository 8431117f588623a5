//! 2,000 deterministic mutations of corpus .max files through the whole reader
//! (container, chunk layer, typed layer, scene graph, gates): no panic, no
//! unbounded allocation, and each yields Ok or a precise error. Anything that
//! still parses must still round-trip (T1 and T2 never FAIL).

use maxfs_exporters::nel::{
    self,
    export::{self, ExportKind},
};
use maxfs_scene::check::{check_bytes, check_file, Outcome};
use maxfs_scene::chunk::{self, Chunk};
use maxfs_scene::container::MaxFile;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_max_files;
use maxfs_tests::mutation::{
    assert_precise, header_offsets, peak_of, read_all, Counting, Damage, Rng,
};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn two_thousand_mutations_never_panic_and_stay_bounded() {
    // (what, bytes, file, the stem the exports run under)
    let mut originals: Vec<(String, Vec<u8>, MaxFile, &str)> = corpus_max_files()
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).expect("corpus readable");
            let file = MaxFile::from_bytes(&bytes).expect("corpus parses");
            (p.display().to_string(), bytes, file, "mutated")
        })
        .collect();
    // No public .max holds an RklPatch: one synthetic zone source (a real
    // zone's patches through our writers) stands in, so the RPO blob, the
    // PatchMesh chunks, the tessellation and the zone export are mutated too.
    let zone = maxfs_tests::corpus_dir().join("nel/snowballs/zones/3_AC.zonel");
    let zone = match maxfs_exporters::nel::read_kind(
        &std::fs::read(&zone).expect("zone readable"),
        maxfs_exporters::nel::NelKind::Zone,
    ) {
        Ok(maxfs_exporters::nel::NelFile::Zone(z)) => z,
        other => panic!("3_AC.zonel: {:?}", other.err()),
    };
    let info = maxfs_exporters::nel::zone_build::retrieve(&zone).expect("retrieves");
    let bytes = maxfs_tests::zone_source::write_source(
        &maxfs_tests::zone_source::rklpatch_from_zone(&info, [0.0; 3]),
        &maxfs_tests::zone_source::SourceOptions::plain("3_AC"),
    );
    let file = MaxFile::from_bytes(&bytes).expect("synthetic zone source parses");
    originals.push(("synthetic 3_AC RklPatch source".into(), bytes, file, "3_AC"));
    // The same patches as a ligo transition source (pivot on cell (0,0), so slot 1) with
    // Boxes in two brick instance groups (one moved by buildTransitionMatrixObj, one
    // parented under it) and one group named after no brick: the brick zone, mask and
    // transition ig paths are mutated too.
    let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
    for v in info.patches.iter().flat_map(|p| p.patch.vertices) {
        for k in 0..2 {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    let centre = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    let brick = maxfs_tests::zone_source::write_source_at(
        &maxfs_tests::zone_source::rklpatch_from_zone(&info, [0.0; 3]),
        &maxfs_tests::zone_source::SourceOptions::plain("brick"),
        Some(([80.0, 80.0, 1.0], [-centre[0], -centre[1], -1.0])),
    );
    let ig = maxfs_exporters::nel::export::properties::id::IGNAME;
    let tags = [
        [(ig, "foret-prairie-2-0")],
        [(ig, "Foret-Prairie-2-4")],
        [(ig, "no-brick")],
    ];
    let boxes: Vec<maxfs_tests::zone_source::BoxNode> = [
        ("b0", [40.0, 50.0, 1.0], 0, None),
        ("b4", [60.0, 380.0, 2.0], 1, None),
        ("b4child", [70.0, 390.0, 2.0], 1, Some(1)),
        ("stray", [10.0, 10.0, 0.0], 2, None),
    ]
    .into_iter()
    .map(
        |(name, position, tag, parent)| maxfs_tests::zone_source::BoxNode {
            name,
            position,
            rotation: [0.0, 0.0, 0.6],
            appdata: &tags[tag],
            parent,
        },
    )
    .collect();
    let (bytes, _) = maxfs_tests::zone_source::with_box_nodes(&brick, &boxes);
    let file = MaxFile::from_bytes(&bytes).expect("synthetic transition source parses");
    let stem = "zonetransition-foret-prairie-2";
    {
        // The intact source reaches the moved ig path.
        let eval = SceneEval::from_document(Document::from_file(file.clone())).expect("evaluates");
        let out = export::export(stem, &eval, &[ExportKind::Ig]);
        assert!(
            out.outputs.iter().any(|o| o.name == "foret-prairie-2-0.ig"),
            "{}",
            out.errors_text()
        );
    }
    originals.push((
        "synthetic transition brick source".into(),
        bytes,
        file,
        stem,
    ));
    // Baseline: what an intact file costs, per input byte, for the bound below.
    let mut worst_ratio = 0.0f64;
    for (_, bytes, _, _) in &originals {
        let (_, peak) = peak_of(|| check_bytes(bytes, false));
        worst_ratio = worst_ratio.max(peak as f64 / bytes.len() as f64);
    }
    assert!(
        worst_ratio < 64.0,
        "intact files cost {worst_ratio:.1} bytes per input byte"
    );
    let bound = |input: usize| (input as f64 * (worst_ratio * 2.0).max(16.0)) as usize + (8 << 20);

    let mut rng = Rng(0x6d61_7866_735f_6d75);
    let mut counts = [0usize; 5];
    for i in 0..2000 {
        let (name, bytes, file, stem) = &originals[i % originals.len()];
        let kind = rng.below(5);
        let what = format!("mutation {i} kind {kind} of {name}");
        let (report, peak, input) = match kind {
            // Bit flips anywhere in the compound file.
            0 => {
                let mut m = bytes.clone();
                for _ in 0..1 + rng.below(8) {
                    let at = rng.below(m.len());
                    m[at] ^= 1 << rng.below(8);
                }
                let (r, p) = peak_of(|| check_bytes(&m, false));
                (r, p, m.len())
            }
            // Truncation of the compound file.
            1 => {
                let m = &bytes[..rng.below(bytes.len())];
                let (r, p) = peak_of(|| check_bytes(m, false));
                (r, p, m.len())
            }
            // Size-field edits of chunk headers inside a chunk stream.
            2 | 3 => {
                let mut f = file.clone();
                let chunked: Vec<usize> = (0..f.streams.len())
                    .filter(|&k| chunk::is_chunked(&f.streams[k].data))
                    .collect();
                let k = chunked[rng.below(chunked.len())];
                let mut data = f.streams[k].data.to_vec();
                let mut offs = Vec::new();
                header_offsets(&chunk::parse(&data).expect("intact"), 0, &mut offs);
                let at = offs[rng.below(offs.len())] + 2;
                let old = u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
                let new = match rng.below(6) {
                    0 => 0,
                    1 => old ^ 0x8000_0000,
                    2 => old.wrapping_add(1 + rng.below(16) as u32),
                    3 => old.wrapping_sub(1 + rng.below(16) as u32),
                    4 => rng.next() as u32,
                    _ => 0xFFFF_FFFF,
                };
                data[at..at + 4].copy_from_slice(&new.to_le_bytes());
                if kind == 3 {
                    // Also cut the stream somewhere.
                    let cut = rng.below(data.len());
                    data.truncate(cut);
                }
                f.streams[k].data = data.into();
                let input: usize = f.streams.iter().map(|s| s.data.len()).sum();
                if i % 4 == 2 {
                    read_all(f.clone(), stem);
                }
                let (r, p) = peak_of(|| check_file(f, false));
                (r, p, input)
            }
            // Byte edits inside the Scene stream: the chunk tree usually survives, so
            // the typed layer and the evaluation see damaged values (counts, indices,
            // floats) rather than damaged framing.
            4 => {
                let mut f = file.clone();
                Damage::Bytes.apply(&mut f, &mut rng);
                read_all(f.clone(), stem);
                let input: usize = f.streams.iter().map(|s| s.data.len()).sum();
                let (r, p) = peak_of(|| check_file(f, false));
                (r, p, input)
            }
            _ => unreachable!(),
        };
        assert_precise(&what, &report);
        assert!(
            peak <= bound(input),
            "{what}: peak allocation {peak} for {input} input bytes (bound {})",
            bound(input)
        );
        counts[match report.outcome {
            Outcome::Ok => 0,
            Outcome::Error(_) => 1,
            Outcome::NotACompoundFile(_) => 2,
            Outcome::Unsupported(_) => 3,
            Outcome::Fail(_) => 4,
        }] += 1;
    }
    eprintln!(
        "mutations: {} ok, {} error, {} not-compound, {} unsupported; intact cost {worst_ratio:.1}x",
        counts[0], counts[1], counts[2], counts[3]
    );
    // The mutations must actually reach the error paths, not only land in slack bytes.
    assert!(
        counts[1] > 200,
        "too few mutations produced errors: {counts:?}"
    );
    assert!(
        counts[0] > 100,
        "too few mutations still parsed: {counts:?}"
    );
}

/// The collision, PACS and vegetable exporters on damaged scenes: copies of
/// corpus files carrying COLLISION / VEGETABLE AppData and a nel_pacs_box
/// object (built as in tests/tests/corpus/export_collision.rs) get 300 byte
/// edits inside their Scene stream each; every export must come back as NeL
/// files that reread and rewrite identically, or as named errors.
#[test]
fn collision_pacs_veget_exports_on_damaged_scenes() {
    use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
    use maxfs_tests::nel_nodes::{make_pacs, pacs_values, NEL_PACS_BOX};
    use maxfs_tests::rewrite::SceneEdit;

    let nel = (NEL_CLASS_ID, NEL_SUPER_CLASS);
    let mut street = SceneEdit::open("max/ryzomcore/street.max");
    for (n, k, v) in [
        ("cluster01", id::COLLISION, "1"),
        ("cluster02", id::COLLISION, "1"),
        ("cluster02", id::COLLISION_EXTERIOR, "1"),
        ("Sphere01", id::COLLISION, "1"),
        ("Sphere01", id::IGNAME, "indoor"),
    ] {
        let i = street.node(n);
        street.add_appdata(i, nel, k, v);
    }
    let mut cube = SceneEdit::open("max/misc/Crate.max");
    let i = cube.node("Box001");
    cube.add_appdata(i, nel, id::VEGETABLE, "1");
    cube.add_appdata(i, nel, id::COLLISION, "1");
    let mut pacs = SceneEdit::open("max/assimp/RotatingCube.max");
    let n = pacs.node("Box01");
    let bx = pacs.reference(n, 1);
    make_pacs(
        &mut pacs,
        "Box01",
        NEL_PACS_BOX,
        "PACS Box",
        bx,
        &pacs_values(),
    );
    let files = [street.finish_file(), cube.finish_file(), pacs.finish_file()];
    // The intact scenes do export the new kinds (so the mutations reach them).
    let kinds = [ExportKind::Cmb, ExportKind::PacsPrim, ExportKind::Veget];
    let expected: [&[ExportKind]; 3] = [
        &[ExportKind::Cmb],
        &[ExportKind::Cmb, ExportKind::Veget],
        &[ExportKind::PacsPrim],
    ];
    for (f, want) in files.iter().zip(expected) {
        let eval = SceneEval::from_document(Document::from_file(f.clone())).expect("eval");
        let ex = export::export("intact", &eval, &kinds);
        for k in want {
            assert!(
                ex.outputs.iter().any(|o| o.kind == *k),
                "{k:?}: {}",
                ex.errors_text()
            );
        }
    }
    let mut rng = Rng(0x636f_6c6c_6973_696f);
    for i in 0..900 {
        let mut f = files[i % files.len()].clone();
        Damage::Bytes.apply(&mut f, &mut rng);
        read_all(f, "mutated");
    }
}

/// Physique, Morpher and character-LOD data on damaged scenes: Wire.max
/// (Physique and Skin), AnimatedMorphCube.max (two Morphers with targets)
/// and RiggedFigure.max with CHARACTER_LOD set on its skinned node get 300
/// byte edits in their Scene stream each; the evaluation (Physique and
/// Morpher deformation) and every export (blend shapes, MorphFactor
/// tracks, .clod) must give rereadable NeL files or named errors, never a
/// panic, with bounded allocation.
#[test]
fn physique_morpher_clod_on_damaged_scenes() {
    use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
    use maxfs_tests::rewrite::SceneEdit;

    let mut clod = SceneEdit::open("max/babylon/RiggedFigure.max");
    let skinned: Vec<usize> = {
        let eval = maxfs_tests::corpus_eval("max/babylon/RiggedFigure.max");
        maxfs_tests::named_nodes(&eval)
            .into_iter()
            .filter(|&(n, _)| {
                matches!(
                    maxfs_scene::eval::modifier::skin::node_skin(&eval, n),
                    Some(Ok(_))
                )
            })
            .map(|(n, _)| n)
            .collect()
    };
    for n in skinned {
        clod.add_appdata(n, (NEL_CLASS_ID, NEL_SUPER_CLASS), id::CHARACTER_LOD, "1");
    }
    let open =
        |rel: &str| MaxFile::open(&maxfs_tests::corpus_dir().join(rel)).expect("corpus file opens");
    let files = [
        open("max/max2024-rico/Wire.max"),
        open("max/babylon/AnimatedMorphCube.max"),
        clod.finish_file(),
    ];
    // The intact scenes reach the new paths.
    let kinds = [ExportKind::Shape, ExportKind::Anim, ExportKind::Clod];
    let intact: Vec<_> = files
        .iter()
        .map(|f| {
            let eval = SceneEval::from_document(Document::from_file(f.clone())).expect("eval");
            export::export("intact", &eval, &kinds)
        })
        .collect();
    assert!(intact[1].outputs.iter().any(|o| o.kind == ExportKind::Anim));
    assert!(intact[2].outputs.iter().any(|o| o.kind == ExportKind::Clod));
    let mut rng = Rng(0x7068_7973_6971_7565);
    let mut worst = 0usize;
    for i in 0..900 {
        let mut f = files[i % files.len()].clone();
        Damage::Bytes.apply(&mut f, &mut rng);
        let input: usize = f.streams.iter().map(|s| s.data.len()).sum();
        let (_, peak) = peak_of(|| read_all(f, "mutated"));
        // Evaluation and export hold meshes and NeL files: a fixed factor of
        // the input, never what a damaged count asks for.
        assert!(
            peak < 256 * input.max(1 << 20),
            "mutation {i}: {peak} bytes for {input}"
        );
        worst = worst.max(peak);
    }
    eprintln!("worst peak {worst} bytes");
}

/// Rigs on damaged scenes: the HI-solver chain of ikPoping.max, the IK legs
/// of ik-ld35 Green@Run, the CAT rig of LD33_Character and the Biped take
/// Red@Run get 100 byte edits in their Scene stream each. The evaluation
/// (IK solves at every frame for coverage, Biped keys, CAT controllers
/// named as not evaluated) and every export must give rereadable NeL files
/// or named errors, never a panic, with bounded allocation.
#[test]
fn ik_cat_biped_rigs_on_damaged_scenes() {
    let open = |rel: &str| {
        MaxFile::open(&maxfs_tests::corpus_dir().join("max").join(rel)).expect("corpus file opens")
    };
    let files = [
        open("ik/ikPoping.max"),
        open("ik-ld35/Green@Run.max"),
        open("cat/LD33_Character.max"),
        open("biped-ld35/Red@Run.max"),
    ];
    let mut rng = Rng(0x7269_6773_6b65_7973);
    let mut worst = 0usize;
    for i in 0..400 {
        let mut f = files[i % files.len()].clone();
        Damage::Bytes.apply(&mut f, &mut rng);
        let input: usize = f.streams.iter().map(|s| s.data.len()).sum();
        let (_, peak) = peak_of(|| {
            if let Ok(eval) = SceneEval::from_document(Document::from_file(f.clone())) {
                // Coverage solves every enabled IK chain over the range.
                std::hint::black_box(maxfs_scene::eval::core::coverage::scene_gaps(&eval));
            }
            read_all(f, "mutated")
        });
        assert!(
            peak < 256 * input.max(1 << 20),
            "mutation {i}: {peak} bytes for {input}"
        );
        worst = worst.max(peak);
    }
    eprintln!("worst peak {worst} bytes");
}

/// Map Extender and NeL VertexTreePaint local data, damaged: Crate.max's
/// Box001 carries both (built as in tests/tests/corpus/eval_map_modifiers.rs)
/// and 300 times one of their local data gets byte edits, a cut or a count
/// word replaced, saved as a container when the damaged bytes still parse as
/// chunks, else as a leaf. The Box's geometry survives whatever the data
/// (the UV-only rule): each channel is the modifier's or named as missing;
/// every export rereads; no panic, bounded allocation.
#[test]
fn map_modifier_local_data_damaged() {
    use maxfs_tests::map_modifiers::{
        container, map_local, paint_local, put_map_modifiers, Modifier,
    };
    use maxfs_tests::rewrite::SceneEdit;

    let source = "max/misc/Crate.max";
    let box_mesh = |eval: &SceneEval| {
        let n = eval
            .graph
            .nodes()
            .find(|(_, x)| x.name == "Box001")
            .map(|(o, _)| o.index)
            .expect("Box001");
        eval.mesh(n, 0).expect("a mesh")
    };
    let plain = box_mesh(&maxfs_tests::corpus_eval(source)).expect("plain Box");
    let colours: Vec<[u8; 3]> = (0..8u8).map(|i| [i * 30, 255 - i * 20, i]).collect();
    let mut rng = Rng(0x6d61_7065_7874_6c64);
    let (mut applied, mut missing) = (0usize, 0usize);
    for i in 0..300usize {
        // Map Extender's channel: 1 and 2 in turn.
        let channel = if i % 2 == 0 { 1 } else { 2 };
        let intact = [
            chunk::write(&paint_local(&colours)),
            chunk::write(&map_local(channel, 12)),
        ];
        let which = rng.below(2);
        let mut b = intact[which].clone();
        match rng.below(3) {
            0 => {
                for _ in 0..1 + rng.below(8) {
                    let at = rng.below(b.len());
                    b[at] = rng.next() as u8;
                }
            }
            1 => b.truncate(rng.below(b.len())),
            _ => {
                let at = 4 * rng.below(b.len() / 4);
                let w: u32 = match rng.below(4) {
                    0 => 0,
                    1 => u32::MAX,
                    2 => 0x7fff_ffff,
                    _ => rng.next() as u32,
                };
                b[at..at + 4].copy_from_slice(&w.to_le_bytes());
            }
        }
        let damaged = match chunk::parse(&b) {
            Ok(chunks) => container(chunks),
            Err(_) => Chunk::leaf(0x2512, b),
        };
        let local = |k: usize| {
            if k == which {
                damaged.clone()
            } else {
                container(chunk::parse(&intact[k]).expect("intact"))
            }
        };
        let mut e = SceneEdit::open(source);
        let node = e.node("Box001");
        put_map_modifiers(
            &mut e,
            node,
            &[
                Modifier::VertexTreePaint(local(0)),
                Modifier::MapExtender(local(1)),
            ],
        );
        let file = e.finish_file();
        let input: usize = file.streams.iter().map(|s| s.data.len()).sum();
        let (_, peak) = peak_of(|| {
            let eval = SceneEval::from_document(Document::from_file(file.clone())).expect("scene");
            let m = box_mesh(&eval)
                .unwrap_or_else(|e| panic!("mutation {i}: the geometry is lost: {e}"));
            assert_eq!(m.vertices, plain.vertices, "mutation {i}");
            assert_eq!(m.faces, plain.faces, "mutation {i}");
            for ch in [0, channel] {
                let has = m.maps.iter().any(|c| c.channel == ch);
                let named = m
                    .missing_maps
                    .iter()
                    .any(|r| r.channel.is_none_or(|c| c == ch) && !r.reason.is_empty());
                assert!(
                    has || named,
                    "mutation {i}: channel {ch} neither written nor named"
                );
                if has {
                    applied += 1;
                } else {
                    missing += 1;
                }
            }
            read_all(file, "mutated");
        });
        assert!(
            peak < 256 * input.max(1 << 20),
            "mutation {i}: {peak} bytes for {input}"
        );
    }
    eprintln!("channels applied {applied}, named missing {missing}");
    assert!(
        missing > 30 && applied > 300,
        "{applied} applied, {missing} missing"
    );
}

/// Segment remanence on damaged scenes: Key.max with USE_REMANENCE (and
/// every remanence parameter) on its SplineShape, and 1st_island.max with it
/// on its four Lines, get 300 byte edits in their Scene stream each. The
/// spline evaluation and the remanence build (tests/tests/corpus/
/// export_remanence.rs) must give rereadable NeL files or named errors.
#[test]
fn remanence_on_damaged_scenes() {
    use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
    use maxfs_tests::rewrite::SceneEdit;

    let nel = (NEL_CLASS_ID, NEL_SUPER_CLASS);
    let mut key = SceneEdit::open("max/misc/Key.max");
    let n = key.node("Shape");
    for (k, v) in [
        (id::USE_REMANENCE, "1"),
        (id::REMANENCE_SLICE_NUMBER, "9"),
        (id::REMANENCE_SAMPLING_PERIOD, "0.04"),
        (id::REMANENCE_ROLLUP_RATIO, "2"),
        (id::REMANENCE_SHIFTING_TEXTURE, "1"),
        (id::EXPORT_ANIMATED_MATERIALS, "1"),
    ] {
        key.add_appdata(n, nel, k, v);
    }
    let mut island = SceneEdit::open("max/prims-pranto/1st_island.max");
    for name in ["Line001", "Line002", "Line004", "Line005"] {
        let n = island.node(name);
        island.add_appdata(n, nel, id::USE_REMANENCE, "1");
    }
    let files = [key.finish_file(), island.finish_file()];
    for f in &files {
        let eval = SceneEval::from_document(Document::from_file(f.clone())).expect("eval");
        let ex = export::export("intact", &eval, &[ExportKind::Shape]);
        let remanence = ex
            .outputs
            .iter()
            .filter(|o| {
                matches!(
                    nel::read_nel(&o.bytes, &o.name),
                    Ok(nel::NelFile::Shape(s))
                        if matches!(s.shape.get(), Some(nel::shape::Shape::CSegRemanenceShape(_)))
                )
            })
            .count();
        assert!(remanence > 0, "{}", ex.errors_text());
    }
    let mut rng = Rng(0x7265_6d61_6e65_6e63);
    for i in 0..600 {
        let mut f = files[i % files.len()].clone();
        Damage::Bytes.apply(&mut f, &mut rng);
        read_all(f, "mutated");
    }
}

/// The Path Constraint damaged: animation.max's snow man (its Position List
/// holds one, tests/tests/corpus/eval_path_constraint.rs) gets 300 edits of
/// the constraint, its parameter block or its percent controller — bytes
/// changed, chunks cut, words replaced, references pointed at nothing, at
/// non-nodes, at the snow man itself or at its own child (a path that
/// depends on the node it places), switches set to odd values. The snow man
/// and its children always get finite transforms at every time, coverage
/// and every view and export run: named errors, no panic, bounded memory.
#[test]
fn path_constraint_damaged() {
    use maxfs_scene::chunk::Body;
    use maxfs_tests::rewrite::SceneEdit;

    let source = "max/prims-pranto/animation.max";
    let base = SceneEdit::open(source);
    let man = base.node("snow man");
    let arc = base.node("Arc001");
    let line = base.node("Line002");
    let prs = base.reference(man, 0);
    let list = base.reference(prs, 0);
    let path = base.reference(list, 1);
    let block = base.reference(path, 2);
    let percent = base.reference(block, 0);
    let targets = [
        -1,
        man as i32,
        arc as i32,
        prs as i32,
        line as i32,
        path as i32,
        1 << 30,
    ];
    let mut rng = Rng(0x7061_7468_636f_6e73);
    let (mut placed, mut named) = (0usize, 0usize);
    for i in 0..300usize {
        let mut e = SceneEdit::open(source);
        let obj = [path, block, percent][rng.below(3)];
        match rng.below(5) {
            0..=2 => {
                // A leaf of the object: bytes, a cut, or a word.
                let mut chunks = e.object_chunks(obj);
                let leaves: Vec<usize> = (0..chunks.len())
                    .filter(|&k| chunks[k].payload().is_some_and(|p| !p.is_empty()))
                    .collect();
                let k = leaves[rng.below(leaves.len())];
                let mut b = chunks[k].payload().expect("leaf").to_vec();
                match rng.below(3) {
                    0 => {
                        for _ in 0..1 + rng.below(4) {
                            let at = rng.below(b.len());
                            b[at] = rng.next() as u8;
                        }
                    }
                    1 => b.truncate(rng.below(b.len())),
                    _ if b.len() >= 4 => {
                        let at = 4 * rng.below(b.len() / 4);
                        let w: u32 = match rng.below(4) {
                            0 => 0,
                            1 => u32::MAX,
                            2 => 0x7fc0_0000, // NaN
                            _ => rng.next() as u32,
                        };
                        b[at..at + 4].copy_from_slice(&w.to_le_bytes());
                    }
                    _ => b.clear(),
                }
                chunks[k].body = Body::Leaf(b.into());
                e.set_object_chunks(obj, chunks);
            }
            3 => {
                // A reference: the block's percent or path slot, or the
                // constraint's block.
                let (o, slot) =
                    [(block, 0), (block, 2), (block, 3), (path, 2), (path, 1)][rng.below(5)];
                e.set_reference(o, slot, targets[rng.below(targets.len())]);
            }
            _ => {
                // A switch: follow, loop, constant velocity, relative, axis.
                let id = [2u16, 7, 8, 12, 13][rng.below(5)];
                let w: u32 = [0, 1, u32::MAX, rng.next() as u32][rng.below(4)];
                e.set_pb2_constant(block, id, &w.to_le_bytes());
            }
        }
        let file = e.finish_file();
        let input: usize = file.streams.iter().map(|s| s.data.len()).sum();
        let (_, peak) = peak_of(|| {
            if let Ok(eval) = SceneEval::from_document(Document::from_file(file.clone())) {
                let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&eval);
                let kids: Vec<usize> = eval
                    .graph
                    .nodes()
                    .filter(|(_, n)| n.parent == Some(man as u32))
                    .map(|(o, _)| o.index)
                    .collect();
                for t in [-4800, 0, 2880, 8000, 16000, 40000] {
                    for n in std::iter::once(man).chain(kids.iter().copied()) {
                        let m = eval.world_tm(n, t);
                        assert!(
                            m.0.iter()
                                .all(|r| r.0.is_finite() && r.1.is_finite() && r.2.is_finite()),
                            "mutation {i}: node {n} at {t}: {m:?}"
                        );
                    }
                }
                if gaps.iter().any(|g| g.nodes.iter().any(|n| n == "snow man")) {
                    named += 1;
                } else {
                    placed += 1;
                }
            }
            read_all(file, "mutated");
        });
        assert!(
            peak < 256 * input.max(1 << 20),
            "mutation {i}: {peak} bytes for {input}"
        );
    }
    eprintln!("snow man placed {placed}, named {named}");
    assert!(placed > 30 && named > 30, "{placed} placed, {named} named");
}

/// NeL Edit Patch and NeL Paint with damaged local data: a synthetic zone source
/// (3_AC's patches) under an Edit Patch whose stored final patch is 3_AD's
/// (vertex mapper moving two points) and a Paint whose final patch is 3_AC's
/// own; 200 times one chunk of one of the two local data (flags, VERTMAP,
/// FINALPATCH, RFINALPATCH, …) gets byte edits, a cut or an overwritten word. The patch stack
/// must give a model or a named error, never panic, and stay bounded; the mesh,
/// patches.json and the exports run over it ([`read_all`]).
#[test]
fn patch_modifier_final_patch_damaged() {
    use maxfs_scene::eval::objects::patch::node_patch;
    use maxfs_scene::rklpatch::{MapVert, VertMapper};
    use maxfs_tests::zone_source::{
        rklpatch_from_zone, write_source, PatchModifier, SourceOptions, NODE,
    };

    let zone = |name: &str| {
        let p = maxfs_tests::corpus_dir()
            .join("nel/snowballs/zones")
            .join(name);
        match nel::read_kind(&std::fs::read(&p).expect("zone"), nel::NelKind::Zone) {
            Ok(nel::NelFile::Zone(z)) => {
                rklpatch_from_zone(&nel::zone_build::retrieve(&z).expect("retrieves"), [0.0; 3])
            }
            other => panic!("{name}: {:?}", other.err()),
        }
    };
    let (base, fin) = (zone("3_AC.zonel"), zone("3_AD.zonel"));
    let mapper = VertMapper {
        verts: (0..base.verts.len())
            .map(|i| MapVert {
                original_stored: 1,
                vert: if i < 2 { i as i32 * 5 } else { -1 },
                original: base.verts[i].p,
                delta: [0.0f32, 0.0, 1.5].map(f32::to_bits),
            })
            .collect(),
        vecs: Vec::new(),
    };
    let intact = [
        PatchModifier::edit_patch(&mapper, &fin),
        PatchModifier::paint(&base),
    ];
    let mut rng = Rng(0x7061_7463_685f_6d6f);
    let (mut evaluated, mut refused) = (0usize, 0usize);
    for i in 0..200usize {
        let which = rng.below(2);
        let mut mods = intact.clone();
        // One chunk of the local data (flags, VERTMAP, FINALPATCH, RFINALPATCH, …).
        let data = &mut mods[which].data;
        let k = rng.below(data.len());
        let mut b = chunk::write(std::slice::from_ref(&data[k]));
        match rng.below(3) {
            0 => {
                for _ in 0..1 + rng.below(8) {
                    let at = 6 + rng.below(b.len() - 6);
                    b[at] = rng.next() as u8;
                }
            }
            1 => b.truncate(6 + rng.below(b.len() - 6)),
            _ => {
                let at = 4 * rng.below(b.len() / 4);
                let w: u32 = match rng.below(4) {
                    0 => 0,
                    1 => u32::MAX,
                    2 => 0x7fff_ffff,
                    _ => rng.next() as u32,
                };
                b[at..at + 4].copy_from_slice(&w.to_le_bytes());
            }
        }
        data[k] = match chunk::parse(&b) {
            Ok(mut c) if c.len() == 1 => c.remove(0),
            _ => Chunk::leaf(data[k].id, b[6.min(b.len())..].to_vec()),
        };
        let bytes = write_source(
            &base,
            &SourceOptions {
                modifiers: &mods,
                ..SourceOptions::plain("3_AC")
            },
        );
        let file = MaxFile::from_bytes(&bytes).expect("synthetic source parses");
        let input: usize = file.streams.iter().map(|s| s.data.len()).sum();
        let (_, peak) = peak_of(|| {
            let eval = SceneEval::from_document(Document::from_file(file.clone())).expect("scene");
            match node_patch(&eval, NODE).expect("an RklPatch node") {
                Ok(_) => evaluated += 1,
                Err(e) => {
                    let text = e.to_string();
                    assert!(
                        text.contains("NeL Edit") || text.contains("NeL Paint"),
                        "mutation {i}: the modifier is not named: {text}"
                    );
                    refused += 1;
                }
            }
            read_all(file, "3_AC");
        });
        assert!(
            peak < 256 * input.max(1 << 20),
            "mutation {i}: {peak} bytes for {input}"
        );
    }
    eprintln!("patch modifiers: {evaluated} evaluated, {refused} refused by name");
    assert!(
        evaluated > 20 && refused > 40,
        "{evaluated} evaluated, {refused} refused"
    );
}
