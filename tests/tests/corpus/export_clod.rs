//! `.clod` (CLodCharacterShapeBuild) from a corpus character: the skinned
//! nodes of babylon/RiggedFigure.max get CHARACTER_LOD = "1" in a copy of
//! the scene written through the project's writers. Each `.clod` must read
//! back and rewrite byte-identically, load, rewrite identically and build
//! into a `CLodCharacterShape` in NeL itself (tests/oracle/pacs_check.sh),
//! and carry the source mesh: every world-space vertex of the mesh below the
//! Skin, no other position, and per vertex the Skin's stored weights (4
//! heaviest, renormalised) on bones named as the Skin's bone nodes.

use std::collections::{BTreeMap, BTreeSet};

use maxfs_exporters::nel::clod::LodCharacterShapeBuild;
use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
use maxfs_exporters::nel::export::ExportKind;
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::eval::modifier::skin;
use maxfs_scene::eval::{SceneEval, Stack, Vec3};
use maxfs_tests::rewrite::SceneEdit;

const FILE: &str = "max/babylon/RiggedFigure.max";

fn is_root_level(eval: &SceneEval, node: usize) -> bool {
    let p = eval.graph.objects[node]
        .node
        .as_ref()
        .and_then(|n| n.parent);
    p.is_none_or(|p| {
        eval.graph.objects[p as usize]
            .class
            .as_ref()
            .is_none_or(|c| c.name == "RootNode")
    })
}

/// The NeL oracle on `files`: each loads, builds and rewrites identically.
fn oracle(files: &[(String, Vec<u8>)]) {
    maxfs_tests::oracle::check("pacs_check.sh", files, "OK\tclod\t");
}

#[test]
fn character_lods_carry_the_skinned_source_mesh() {
    let base = maxfs_tests::corpus_eval(FILE);
    let chars: Vec<(usize, String)> = maxfs_tests::named_nodes(&base)
        .into_iter()
        .filter(|&(n, _)| {
            matches!(skin::node_skin(&base, n), Some(Ok(_))) && is_root_level(&base, n)
        })
        .collect();
    assert!(!chars.is_empty(), "a root-level skinned node");
    let mut e = SceneEdit::open(FILE);
    for (n, _) in &chars {
        e.add_appdata(*n, (NEL_CLASS_ID, NEL_SUPER_CLASS), id::CHARACTER_LOD, "1");
    }
    let doc = e.finish();
    let out = maxfs_tests::export_doc("RiggedFigure", &doc, &[ExportKind::Clod]);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert_eq!(out.outputs.len(), chars.len());
    let eval = SceneEval::from_document(doc).expect("scene");
    let mut files = Vec::new();
    for ((node, name), o) in chars.iter().zip(&out.outputs) {
        assert_eq!(o.name, format!("{name}.clod"));
        let f = read_nel(&o.bytes, &o.name).expect("reads back");
        assert_eq!(
            write_nel(&f).expect("rewrites"),
            o.bytes,
            "{name}: byte-identical rewrite"
        );
        let NelFile::LodCharacterShapeBuild(b) = f else {
            panic!("{name}: not a CLodCharacterShapeBuild")
        };
        check_source(&eval, *node, name, &b);
        files.push((o.name.clone(), o.bytes.clone()));
    }
    oracle(&files);
}

/// The build against the mesh below the Skin and the Skin's stored weights.
fn check_source(eval: &SceneEval, node: usize, name: &str, b: &LodCharacterShapeBuild) {
    let sk = skin::node_skin(eval, node).expect("skin").expect("decodes");
    let mesh = eval
        .mesh_with(node, 0, Stack::Without(sk.modifier))
        .expect("object")
        .expect("mesh below the Skin");
    let tm = eval.object_tm(node, 0);
    let world: Vec<Vec3> = mesh
        .vertices
        .iter()
        .map(|p| tm.transform_point(*p))
        .collect();
    let size = world.iter().map(|p| p.len()).fold(0.0, f64::max);
    // The Skin's weights per vertex: 4 heaviest, renormalised, by bone name.
    let expect: Vec<BTreeMap<String, f64>> = sk
        .vertices
        .iter()
        .map(|inf| {
            let mut v: Vec<(u32, f32)> = inf.clone();
            v.sort_by(|a, b| b.1.total_cmp(&a.1));
            v.truncate(4);
            let sum: f64 = v.iter().map(|x| f64::from(x.1)).sum();
            v.iter()
                .map(|&(bone, w)| {
                    let n = sk.bones[bone as usize].node.expect("bone node");
                    (eval.graph.node_name(n).to_string(), f64::from(w) / sum)
                })
                .collect()
        })
        .collect();
    let used: BTreeSet<&String> = expect.iter().flat_map(|m| m.keys()).collect();
    let named: BTreeSet<&String> = b.bones_names.iter().collect();
    assert_eq!(
        named, used,
        "{name}: bone names are the bones the Skin weights"
    );
    assert_eq!(b.skin_weights.len(), b.vertices.len());
    let mut seen = vec![false; world.len()];
    for (i, (p, w)) in b.vertices.iter().zip(&b.skin_weights).enumerate() {
        let p = Vec3(
            f64::from(p.x.get()),
            f64::from(p.y.get()),
            f64::from(p.z.get()),
        );
        let ours: BTreeMap<String, f64> = w
            .influences
            .iter()
            .filter(|x| x.1.get() > 0.0)
            .map(|&(m, x)| (b.bones_names[m as usize].clone(), f64::from(x.get())))
            .collect();
        // Source vertices at this position (seams may hold several).
        let at: Vec<usize> = (0..world.len())
            .filter(|&v| world[v].minus(p).len() < 1e-5 * size)
            .collect();
        assert!(
            !at.is_empty(),
            "{name}: vertex {i} at {p:?} is no source vertex"
        );
        let matches = |v: usize| {
            expect[v].len() == ours.len()
                && expect[v]
                    .iter()
                    .all(|(k, w)| ours.get(k).is_some_and(|o| (o - w).abs() < 1e-5))
        };
        let hits: Vec<usize> = at.iter().copied().filter(|&v| matches(v)).collect();
        assert!(
            !hits.is_empty(),
            "{name}: vertex {i}: {ours:?} vs {:?}",
            expect[at[0]]
        );
        for v in hits {
            seen[v] = true;
        }
    }
    // Every vertex a face uses is there (a vertex no face uses is not).
    let mut used_by_faces = vec![false; world.len()];
    for f in &mesh.faces {
        for &v in &f.v {
            used_by_faces[v as usize] = true;
        }
    }
    let missing = (0..world.len())
        .filter(|&v| used_by_faces[v] && !seen[v])
        .count();
    assert_eq!(missing, 0, "{name}: source vertices without a LOD vertex");
    assert!(b.vertices.len() >= world.len());
    let tex = b.texture.as_ref().expect("version 1 texture info");
    assert_eq!(
        (tex.width, tex.height, tex.texture_info.len()),
        (32, 32, 1024)
    );
    // Texels are empty (normal x = 1000) or carry a unit normal. (Whether
    // any is covered depends on the mesh's UVs on material 0; the
    // rasteriser itself is tested in exporters' clod::texture.)
    for t in &tex.texture_info {
        let n = [t.normal.x.get(), t.normal.y.get(), t.normal.z.get()];
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        assert!(
            n[0] == 1000.0 || (len - 1.0).abs() < 1e-4,
            "{name}: texel normal {n:?}"
        );
    }
}
