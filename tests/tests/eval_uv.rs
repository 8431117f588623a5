//! Generated mapping coordinates (map channel 1) of parametric primitives, per
//! face corner, against 3ds Max's own ASCII export (.ASE: MESH_TVERTLIST and
//! MESH_TFACELIST) and against Babylon's glTF export (TEXCOORD_0, one glTF vertex
//! per face corner, triangles in Max's face order).
//!
//! The NeL exports of the neloid tiles (ref/nel-neloid/tile*.shape) cannot serve:
//! they hold a 0.9×0.9×0.2 chamfered box centred on its pivot (188 triangles,
//! atlas UVs in 0.23..0.77), while tile.max's Box01 is a plain 1×1×0.2 box with
//! 2×2×2 segments — the shapes were exported from another revision of the model.

use maxfs_scene::eval::mesh::Mesh;
use maxfs_scene::eval::{primitive, SceneEval};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{accessor, Gltf, MODELS};
use serde_json::Value;

/// UVs of face `f`'s three corners in channel 1.
fn corner_uvs(m: &Mesh, f: usize) -> Option<[[f64; 2]; 3]> {
    let ch = m.maps.iter().find(|c| c.channel == 1)?;
    let tf = ch.faces.get(f)?;
    let mut out = [[0.0; 2]; 3];
    for (k, &i) in tf.iter().enumerate() {
        let t = ch.vertices.get(i as usize)?;
        out[k] = [f64::from(t[0]), f64::from(t[1])];
    }
    Some(out)
}

fn near2(a: [f64; 2], b: [f64; 2]) -> bool {
    (a[0] - b[0]).abs() <= 1e-4 && (a[1] - b[1]).abs() <= 1e-4
}

/// Per `*GEOMOBJECT`: node name and the UVs of each face's corners.
fn ase_uvs(text: &str) -> Vec<(String, Vec<[[f64; 2]; 3]>)> {
    let mut out = Vec::new();
    let mut name = String::new();
    let mut tverts: Vec<[f64; 2]> = Vec::new();
    let mut faces = Vec::new();
    let mut flush = |name: &mut String, tverts: &mut Vec<[f64; 2]>, faces: &mut Vec<[usize; 3]>| {
        if !name.is_empty() {
            let f = faces.iter().map(|t| t.map(|i| tverts[i])).collect();
            out.push((std::mem::take(name), f));
        }
        tverts.clear();
        faces.clear();
    };
    for line in text.lines().map(str::trim) {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.first().copied() {
            Some("*GEOMOBJECT")
            | Some("*CAMERAOBJECT")
            | Some("*LIGHTOBJECT")
            | Some("*HELPEROBJECT") => {
                flush(&mut name, &mut tverts, &mut faces);
                if w[0] == "*GEOMOBJECT" {
                    name = "?".into();
                }
            }
            Some("*NODE_NAME") if name == "?" => {
                name = line["*NODE_NAME".len()..].trim().trim_matches('"').into();
            }
            Some("*MESH_TVERT") => {
                tverts.push([w[2].parse().expect("u"), w[3].parse().expect("v")]);
            }
            Some("*MESH_TFACE") => {
                faces.push([2, 3, 4].map(|k| w[k].parse().expect("tface index")));
            }
            _ => {}
        }
    }
    flush(&mut name, &mut tverts, &mut faces);
    out
}

fn check_ase(max: &str, ase: &str) -> usize {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join(max)).expect("max opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let graph = &*eval.graph;
    let text = std::fs::read_to_string(corpus.join(ase)).expect("ase");
    let mut corners = 0;
    for (name, faces) in ase_uvs(&text) {
        let (o, _) = graph.nodes().find(|(_, n)| n.name == name).expect("node");
        let mesh = eval.base_mesh(o.index).expect("a mesh").expect("decodes");
        assert_eq!(mesh.faces.len(), faces.len(), "{name}: faces");
        for (f, want) in faces.iter().enumerate() {
            let ours = corner_uvs(&mesh, f).expect("channel 1 covers every face");
            for k in 0..3 {
                assert!(
                    near2(ours[k], want[k]),
                    "{name}: face {f} corner {k}: ours {:?} ase {:?}",
                    ours[k],
                    want[k]
                );
                corners += 1;
            }
        }
    }
    corners
}

#[test]
fn box_uvs_match_ase() {
    // One 12-face box each: 36 corners.
    assert_eq!(
        check_ase("max/assimp/RotatingCube.max", "ref/assimp/RotatingCube.ASE"),
        36
    );
    assert_eq!(
        check_ase(
            "max/assimp/CameraRollAnim.max",
            "ref/assimp/CameraRollAnim.ase"
        ),
        36
    );
}

/// Triangle indices of a glTF primitive (u16 or u32).
fn indices(g: &Value, bin: &[u8], index: usize) -> Vec<usize> {
    let acc = &g["accessors"][index];
    let view = &g["bufferViews"][acc["bufferView"].as_u64().expect("view") as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    let n = acc["count"].as_u64().expect("count") as usize;
    match acc["componentType"].as_u64() {
        Some(5123) => (0..n)
            .map(|i| u16::from_le_bytes([bin[start + 2 * i], bin[start + 2 * i + 1]]) as usize)
            .collect(),
        Some(5125) => (0..n)
            .map(|i| {
                let b = &bin[start + 4 * i..start + 4 * i + 4];
                u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
            })
            .collect(),
        other => panic!("index type {other:?}"),
    }
}

/// Every primitive node of the Babylon models: each glTF triangle's corners
/// (node-space position, UV) equal our face's corners in order. Babylon writes V as
/// −V (Max's 0..1 becomes 0..−1).
#[test]
fn primitive_uvs_match_babylon_gltf() {
    let corpus = corpus_dir();
    let mut nodes = 0;
    let mut corners = 0;
    let mut classes = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for (model, gltf) in MODELS {
        let doc = Document::open(&corpus.join(format!("max/babylon/{model}.max"))).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let graph = &*eval.graph;
        let Gltf { g, bin } = Gltf::open(gltf);
        for node in g["nodes"].as_array().into_iter().flatten() {
            let (Some(name), Some(mi)) = (node["name"].as_str(), node["mesh"].as_u64()) else {
                continue;
            };
            let Some((o, _)) = graph.nodes().find(|(_, n)| n.name == name) else {
                continue;
            };
            // Only primitives shown directly (no modifier stack).
            let Some(class) = o
                .references
                .iter()
                .find(|r| r.slot == 1)
                .and_then(|r| graph.objects.get(usize::try_from(r.target).ok()?))
                .and_then(|x| x.class.as_ref())
                .filter(|c| primitive::is_primitive(c.class_id))
            else {
                continue;
            };
            classes.insert(class.name.clone());
            let mesh = match eval.base_mesh(o.index).expect("a primitive") {
                Ok(m) => m,
                Err(e) => {
                    failures.push(format!("{model}/{name}: {e}"));
                    continue;
                }
            };
            nodes += 1;
            // Node space (object offset applied): the comparison is about the mesh, not
            // about node transforms (some of which the glTF bakes differently).
            let otm = eval.offset_tm(o.index);
            let mut tris = Vec::new();
            for prim in g["meshes"][mi as usize]["primitives"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let attr = |k: &str| prim["attributes"][k].as_u64().expect(k) as usize;
                let pos = accessor(&g, &bin, attr("POSITION"));
                let uv = accessor(&g, &bin, attr("TEXCOORD_0"));
                let idx = indices(
                    &g,
                    &bin,
                    prim["indices"].as_u64().expect("indices") as usize,
                );
                for t in idx.chunks_exact(3) {
                    tris.push(
                        t.iter()
                            .map(|&i| ([pos[i][0], pos[i][1], pos[i][2]], [uv[i][0], -uv[i][1]]))
                            .collect::<Vec<_>>(),
                    );
                }
            }
            if tris.len() != mesh.faces.len() {
                failures.push(format!(
                    "{model}/{name}: {} faces, glTF {} triangles",
                    mesh.faces.len(),
                    tris.len()
                ));
                continue;
            }
            let extent = tris
                .iter()
                .flatten()
                .flat_map(|(w, _)| *w)
                .fold(1.0f64, |m, v| m.max(v.abs()));
            let mut bad = 0;
            let mut first = None;
            for (f, tri) in tris.iter().enumerate() {
                let Some(uvs) = corner_uvs(&mesh, f) else {
                    failures.push(format!("{model}/{name}: no channel 1 for face {f}"));
                    break;
                };
                for k in 0..3 {
                    let v = otm.transform_point(mesh.vertices[mesh.faces[f].v[k] as usize]);
                    let ours = [v.0, v.2, -v.1];
                    let (pos, uv) = &tri[k];
                    let same_pos = (0..3).all(|i| (ours[i] - pos[i]).abs() <= 1e-4 * extent);
                    if !same_pos || !near2(uvs[k], *uv) {
                        bad += 1;
                        first.get_or_insert(format!(
                            "face {f} corner {k}: ours {ours:?} {:?}, glTF {pos:?} {uv:?}",
                            uvs[k]
                        ));
                    }
                    corners += 1;
                }
            }
            if bad > 0 {
                failures.push(format!(
                    "{model}/{name} ({}): {bad} corners differ, first {}",
                    class.name,
                    first.unwrap_or_default()
                ));
            }
        }
    }
    eprintln!("babylon primitive UVs: {nodes} nodes, {corners} corners, classes {classes:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(nodes >= 40, "only {nodes} primitive nodes compared");
}
