//! Winding of our GLB meshes against the authors' FBX exports (ref/max2024-rico,
//! ref/kenji-room, ref/ik-ld35, ref/biped-ld35, read with `ufbx`) and the
//! Babylon.js exporter's glTF.
//!
//! Which side of a triangle is the front is what a renderer sees: glTF says a
//! node whose world matrix has a negative determinant has its triangles wound
//! clockwise (the importer flips them), and FBX importers (Unity, Unreal,
//! Blender) do the same for mirrored nodes. So per mesh node the compared
//! quantity is the *effective* signed volume: the signed volume of the
//! world-space triangles (about their centroid) times the sign of the world
//! matrix's determinant. Positive means the faces point outward as seen by a
//! renderer. A node whose volume is too small against its extent to have a
//! clear sign (planes, open strips) is counted, not compared.

use std::collections::BTreeMap;

use maxfs_exporters::gltf::{export_file, glb};
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{accessor, gltf_worlds, M4};
use maxfs_tests::STATIC_FBX_SCENES;
use serde_json::Value;

/// The rigged scenes compared besides [`STATIC_FBX_SCENES`].
const RIGGED_FBX_PAIRS: &[(&str, &str)] = &[
    ("ik-ld35/Green@Idle.max", "ik-ld35/Green@Idle.FBX"),
    ("ik-ld35/Green@Spawn.max", "ik-ld35/Green@Spawn.FBX"),
    ("ik-ld35/Green@Run.max", "ik-ld35/Green@Run.FBX"),
    ("ik-ld35/Blue@Spawn.max", "ik-ld35/Blue@Spawn.FBX"),
    ("biped-ld35/Player.max", "biped-ld35/Player.FBX"),
    ("biped-ld35/Yellow.max", "biped-ld35/Yellow.FBX"),
    ("biped-ld35/Red@Run.max", "biped-ld35/Red@Run.FBX"),
];

/// Below this |volume| / extent³ a mesh's orientation is not clear enough to compare.
const CLEAR: f64 = 1e-3;

/// Effective signed volume and extent (bounding-box diagonal) of world-space
/// triangles under a world matrix of determinant sign `sign`.
fn orientation(tris: &[[[f64; 3]; 3]], sign: f64) -> (f64, f64) {
    let n = (tris.len() * 3) as f64;
    let mut c = [0.0; 3];
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for p in tris.iter().flatten() {
        for k in 0..3 {
            c[k] += p[k] / n;
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let d = |p: [f64; 3]| [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
    let mut vol = 0.0;
    for t in tris {
        let [a, b, cc] = t.map(d);
        vol += a[0] * (b[1] * cc[2] - b[2] * cc[1]) - a[1] * (b[0] * cc[2] - b[2] * cc[0])
            + a[2] * (b[0] * cc[1] - b[1] * cc[0]);
    }
    let ext = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt();
    (sign * vol / 6.0, ext)
}

fn det3(m: &M4) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

fn apply(m: &M4, p: &[f64]) -> [f64; 3] {
    [0, 1, 2].map(|i| m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3])
}

/// Unsigned integer data of an index accessor.
fn indices(g: &Value, bin: &[u8], index: usize) -> Vec<usize> {
    let acc = &g["accessors"][index];
    let view = &g["bufferViews"][acc["bufferView"].as_u64().expect("view") as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    let count = acc["count"].as_u64().expect("count") as usize;
    let width = match acc["componentType"].as_u64() {
        Some(5121) => 1,
        Some(5123) => 2,
        _ => 4,
    };
    (0..count)
        .map(|i| {
            let at = start + i * width;
            let mut b = [0u8; 4];
            b[..width].copy_from_slice(&bin[at..at + width]);
            u32::from_le_bytes(b) as usize
        })
        .collect()
}

/// Effective orientation of every named glTF mesh node: (volume, extent).
fn gltf_orientations(g: &Value, bin: &[u8]) -> BTreeMap<String, (f64, f64)> {
    let worlds = gltf_worlds(g);
    let mut out = BTreeMap::new();
    for node in g["nodes"].as_array().into_iter().flatten() {
        let (Some(name), Some(mi)) = (node["name"].as_str(), node["mesh"].as_u64()) else {
            continue;
        };
        let w = worlds[name];
        let mut tris = Vec::new();
        for prim in g["meshes"][mi as usize]["primitives"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let pos = accessor(
                g,
                bin,
                prim["attributes"]["POSITION"].as_u64().expect("pos") as usize,
            );
            let Some(ii) = prim["indices"].as_u64() else {
                continue;
            };
            for t in indices(g, bin, ii as usize).chunks_exact(3) {
                tris.push([0, 1, 2].map(|k| apply(&w, &pos[t[k]])));
            }
        }
        if !tris.is_empty() {
            out.entry(name.to_string())
                .or_insert_with(|| orientation(&tris, det3(&w).signum()));
        }
    }
    out
}

fn ours(rel: &str) -> (Value, Vec<u8>) {
    let e = export_file(&corpus_dir().join("max").join(rel)).expect("export");
    let (json, bin) = glb::read(&e.glb).expect("glb");
    (serde_json::from_slice(json).expect("json"), bin.to_vec())
}

/// Compares orientations; returns (compared, unclear, mirrored compared).
fn compare(
    file: &str,
    theirs: &BTreeMap<String, (f64, f64, bool)>,
    ours: &BTreeMap<String, (f64, f64)>,
    failures: &mut Vec<String>,
) -> (usize, usize, usize) {
    let (mut compared, mut unclear, mut mirrored) = (0, 0, 0);
    for (name, &(tv, te, tm)) in theirs {
        let Some(&(ov, oe)) = ours.get(name) else {
            eprintln!("    {file}/{name}: no mesh in our GLB");
            continue;
        };
        let clear = |v: f64, e: f64| e > 0.0 && v.abs() > CLEAR * e.powi(3);
        if !clear(tv, te) || !clear(ov, oe) {
            unclear += 1;
            continue;
        }
        compared += 1;
        mirrored += usize::from(tm);
        if tv.signum() != ov.signum() {
            failures.push(format!(
                "{file}/{name}: inside out (reference volume {tv:.4e}, ours {ov:.4e}{})",
                if tm { ", mirrored node" } else { "" }
            ));
        }
    }
    (compared, unclear, mirrored)
}

#[test]
fn mesh_winding_matches_fbx_references() {
    let corpus = corpus_dir();
    let mut failures = Vec::new();
    let (mut compared, mut unclear, mut mirrored) = (0, 0, 0);
    for (max, fbx) in STATIC_FBX_SCENES.iter().chain(RIGGED_FBX_PAIRS) {
        let scene = ufbx::load_file(
            corpus.join("ref").join(fbx).to_str().expect("path"),
            ufbx::LoadOpts::default(),
        )
        .expect("fbx loads");
        let mut theirs = BTreeMap::new();
        for node in scene.nodes.iter() {
            let Some(mesh) = node.mesh.as_ref() else {
                continue;
            };
            let m = &node.geometry_to_world;
            let w: M4 = [
                [m.m00, m.m01, m.m02, m.m03],
                [m.m10, m.m11, m.m12, m.m13],
                [m.m20, m.m21, m.m22, m.m23],
                [0.0, 0.0, 0.0, 1.0],
            ];
            let mut tris = Vec::new();
            for f in mesh.faces.iter() {
                let corner = |i: u32| {
                    let v = mesh.vertex_position[(f.index_begin + i) as usize];
                    apply(&w, &[v.x, v.y, v.z])
                };
                for k in 1..f.num_indices.saturating_sub(1) {
                    tris.push([corner(0), corner(k), corner(k + 1)]);
                }
            }
            if tris.is_empty() {
                continue;
            }
            let sign = det3(&w).signum();
            let (v, e) = orientation(&tris, sign);
            theirs
                .entry(node.element.name.to_string())
                .or_insert((v, e, sign < 0.0));
        }
        let (g, bin) = ours(max);
        let (c, u, m) = compare(max, &theirs, &gltf_orientations(&g, &bin), &mut failures);
        eprintln!(
            "  {max}: {c} compared, {u} unclear, of {} FBX mesh nodes",
            theirs.len()
        );
        compared += c;
        unclear += u;
        mirrored += m;
    }
    eprintln!(
        "winding vs FBX: {compared} mesh nodes compared ({mirrored} mirrored), {unclear} without a clear volume sign"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 50, "only {compared} nodes compared");
}

#[test]
fn mesh_winding_matches_babylon_gltf() {
    let corpus = corpus_dir();
    let mut failures = Vec::new();
    let (mut compared, mut unclear, mut mirrored) = (0, 0, 0);
    for (model, gltf) in maxfs_tests::gltf_ref::MODELS {
        let path = corpus.join("ref/babylon-gltf").join(gltf);
        let g: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("gltf")).expect("json");
        let bin = g["buffers"][0]["uri"]
            .as_str()
            .map(|u| std::fs::read(path.with_file_name(u)).expect("bin"))
            .unwrap_or_default();
        let worlds = gltf_worlds(&g);
        let theirs: BTreeMap<String, (f64, f64, bool)> = gltf_orientations(&g, &bin)
            .into_iter()
            .map(|(n, (v, e))| {
                let m = worlds.get(&n).is_some_and(|w| det3(w) < 0.0);
                (n, (v, e, m))
            })
            .collect();
        let (og, obin) = ours(&format!("babylon/{model}.max"));
        let (c, u, m) = compare(
            model,
            &theirs,
            &gltf_orientations(&og, &obin),
            &mut failures,
        );
        compared += c;
        unclear += u;
        mirrored += m;
    }
    eprintln!(
        "winding vs Babylon: {compared} mesh nodes compared ({mirrored} mirrored), {unclear} without a clear volume sign"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 20, "only {compared} nodes compared");
}

/// Lists every corpus mesh node whose glTF world matrix mirrors (not an assertion
/// by itself: the references above decide; this prints where mirroring occurs).
#[test]
fn mirrored_nodes_in_corpus_are_listed() {
    let (mut n, mut files) = (0, 0);
    for f in maxfs_tests::corpus_max_files() {
        let e = export_file(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        files += 1;
        let (json, bin) = glb::read(&e.glb).expect("glb");
        let g: Value = serde_json::from_slice(json).expect("json");
        let worlds = gltf_worlds(&g);
        for (name, (v, ext)) in gltf_orientations(&g, bin) {
            if worlds.get(&name).is_some_and(|w| det3(w) < 0.0) {
                n += 1;
                eprintln!(
                    "mirrored: {} / {name}: effective volume {v:.3e} (extent {ext:.3})",
                    f.display()
                );
            }
        }
    }
    eprintln!("{n} mirrored mesh nodes in {files} files");
    assert!(files >= 70);
}
