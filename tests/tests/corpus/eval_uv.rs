//! Generated mapping coordinates (map channel 1) of parametric primitives, per
//! face corner, against 3ds Max's own ASCII export (.ASE: MESH_TVERTLIST and
//! MESH_TFACELIST) and against Babylon's glTF export (TEXCOORD_0, one glTF vertex
//! per face corner, triangles in Max's face order).
//!
//! The NeL exports of the neloid tiles (ref/nel-neloid/tile*.shape) cannot serve:
//! they hold a 0.9×0.9×0.2 chamfered box centred on its pivot (188 triangles,
//! atlas UVs in 0.23..0.77), while tile.max's Box01 is a plain 1×1×0.2 box with
//! 2×2×2 segments — the shapes were exported from another revision of the model.

use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::{objects::primitive, SceneEval};
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

thread_local! {
    /// Largest UV difference of matched corners (reported).
    static WORST: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// A triangle's corners: world position (glTF axes) and channel-1 UV.
type Tri = [([f64; 3], [f64; 2]); 3];

/// Corner `k` of `b` at each corner of `a` (positions within `tol`), when the two
/// triangles cover the same three points.
fn corner_map(a: &Tri, b: &Tri, tol: f64) -> Option<[usize; 3]> {
    let mut out = [usize::MAX; 3];
    for (k, (p, _)) in a.iter().enumerate() {
        out[k] = (0..3)
            .find(|&j| !out[..k].contains(&j) && (0..3).all(|i| (p[i] - b[j].0[i]).abs() <= tol))?;
    }
    Some(out)
}

/// Our triangles of a node against Babylon's: each glTF triangle is found among
/// ours by its three positions and its corners' UVs compared. Returns (triangles
/// matched, corners compared, corners whose UV differs, glTF triangles with no
/// triangle of ours on the same points, first difference).
fn compare_triangles(
    ours: &[Tri],
    theirs: &[Tri],
    tol: f64,
) -> (usize, usize, usize, usize, String) {
    use std::collections::HashMap;
    let cell = |t: &Tri| {
        let c = [0, 1, 2].map(|i| t.iter().map(|(p, _)| p[i]).sum::<f64>() / 3.0);
        c.map(|x| (x / (4.0 * tol)).floor() as i64)
    };
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, t) in ours.iter().enumerate() {
        grid.entry(cell(t)).or_default().push(i);
    }
    let (mut matched, mut corners, mut bad, mut missing) = (0, 0, 0, 0);
    let mut first = String::new();
    for t in theirs {
        let c = cell(t);
        let mut candidates = Vec::new();
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    for &i in grid
                        .get(&[c[0] + dx, c[1] + dy, c[2] + dz])
                        .into_iter()
                        .flatten()
                    {
                        if let Some(m) = corner_map(t, &ours[i], tol) {
                            candidates.push((i, m));
                        }
                    }
                }
            }
        }
        if candidates.is_empty() {
            missing += 1;
            continue;
        }
        matched += 1;
        corners += 3;
        // Coincident triangles (double-sided copies, stacked faces): the best one.
        let errors = |&(i, m): &(usize, [usize; 3])| {
            (0..3).filter(|&k| !near2(ours[i][m[k]].1, t[k].1)).count()
        };
        let best = candidates.iter().min_by_key(|c| errors(c)).expect("one");
        let e = errors(best);
        let (bi, bm) = best;
        for k in 0..3 {
            let (a, b) = (ours[*bi][bm[k]].1, t[k].1);
            WORST.with(|w| w.set(w.get().max((a[0] - b[0]).abs()).max((a[1] - b[1]).abs())));
        }
        if e > 0 {
            bad += e;
            if first.is_empty() {
                let (i, m) = best;
                first = format!(
                    "at {:?}: ours {:?}, glTF {:?}",
                    t[0].0,
                    m.map(|j| ours[*i][j].1),
                    t.map(|c| c.1)
                );
            }
        }
    }
    (matched, corners, bad, missing, first)
}

/// Every Babylon mesh node, whatever its object (Editable Poly and Mesh,
/// primitives, modifier stacks): the glTF has TEXCOORD_0, so our evaluated mesh
/// must have map channel 1, and each glTF triangle's corner UVs (V flipped back)
/// equal those of our triangle on the same three world positions within 1e-4.
#[test]
fn evaluated_uvs_match_babylon_gltf() {
    use maxfs_scene::eval::core::transform::invert;
    use maxfs_tests::gltf_ref::{gltf_worlds, reoriented_ancestor};
    let corpus = corpus_dir();
    let (mut nodes, mut poly_nodes, mut triangles, mut corners) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (model, gltf) in MODELS {
        let doc = Document::open(&corpus.join(format!("max/babylon/{model}.max"))).expect("max");
        let eval = SceneEval::from_document(doc).expect("scene");
        let graph = &*eval.graph;
        let Gltf { g, bin } = Gltf::open(gltf);
        let worlds = gltf_worlds(&g);
        for node in g["nodes"].as_array().into_iter().flatten() {
            let (Some(name), Some(mi)) = (node["name"].as_str(), node["mesh"].as_u64()) else {
                continue;
            };
            let world = &worlds[name];
            let mut theirs: Vec<Tri> = Vec::new();
            for prim in g["meshes"][mi as usize]["primitives"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let attr = |k: &str| prim["attributes"][k].as_u64().map(|i| i as usize);
                let pos = accessor(&g, &bin, attr("POSITION").expect("POSITION"));
                let Some(uv) = attr("TEXCOORD_0").map(|i| accessor(&g, &bin, i)) else {
                    continue;
                };
                let idx = indices(
                    &g,
                    &bin,
                    prim["indices"].as_u64().expect("indices") as usize,
                );
                for t in idx.chunks_exact(3) {
                    theirs.push([0, 1, 2].map(|k| {
                        let p = &pos[t[k]];
                        let w = [0, 1, 2].map(|i| {
                            world[i][0] * p[0]
                                + world[i][1] * p[1]
                                + world[i][2] * p[2]
                                + world[i][3]
                        });
                        (w, [uv[t[k]][0], -uv[t[k]][1]])
                    }));
                }
            }
            if theirs.is_empty() {
                continue;
            }
            let Some((o, _)) = graph.nodes().find(|(_, n)| n.name == name) else {
                failures.push(format!("{model}/{name}: no Max node"));
                continue;
            };
            let mesh = match eval.mesh(o.index, 0) {
                Some(Ok(m)) => m,
                Some(Err(e)) => {
                    failures.push(format!("{model}/{name}: {e}"));
                    continue;
                }
                None => {
                    failures.push(format!("{model}/{name}: not a mesh object"));
                    continue;
                }
            };
            let Some(ch) = mesh.maps.iter().find(|c| c.channel == 1) else {
                failures.push(format!(
                    "{model}/{name}: TEXCOORD_0 in glTF, no map channel 1"
                ));
                continue;
            };
            let is_poly = eval
                .node_object(o.index)
                .and_then(|b| graph.objects[b].class.as_ref())
                .is_some_and(|c| c.class_id == maxfs_scene::eval::objects::mesh::EDITABLE_POLY);
            // World positions as the mesh test places them: by our object TM, or
            // (below a camera or light Babylon re-orients) relative to that node.
            let otm = eval.object_tm(o.index, 0);
            let anchor = reoriented_ancestor(graph, o.index).and_then(|a| {
                let an = &graph.objects[a].node.as_ref()?.name;
                Some((invert(&eval.world_tm(a, 0)), worlds.get(an)?))
            });
            let place = |v: maxfs_scene::eval::Vec3, anchored: bool| -> [f64; 3] {
                let w = otm.transform_point(v);
                match (&anchor, anchored) {
                    (Some((inv, gw)), true) => {
                        let r = inv.transform_point(w);
                        let p = [r.0, r.2, -r.1];
                        [0, 1, 2]
                            .map(|i| gw[i][0] * p[0] + gw[i][1] * p[1] + gw[i][2] * p[2] + gw[i][3])
                    }
                    _ => [w.0, w.2, -w.1],
                }
            };
            let extent = theirs
                .iter()
                .flatten()
                .flat_map(|(p, _)| *p)
                .fold(1.0f64, |m, v| m.max(v.abs()));
            let tol = 1e-4 * extent;
            let build = |anchored: bool| -> Option<Vec<Tri>> {
                mesh.faces
                    .iter()
                    .zip(&ch.faces)
                    .map(|(f, tf)| {
                        let mut t = [([0.0; 3], [0.0; 2]); 3];
                        for k in 0..3 {
                            let uv = ch.vertices.get(tf[k] as usize)?;
                            t[k] = (
                                place(mesh.vertices[f.v[k] as usize], anchored),
                                [f64::from(uv[0]), f64::from(uv[1])],
                            );
                        }
                        Some(t)
                    })
                    .collect()
            };
            let Some(ours) = build(false) else {
                failures.push(format!(
                    "{model}/{name}: channel 1 indexes past its vertices"
                ));
                continue;
            };
            let mut result = compare_triangles(&ours, &theirs, tol);
            if result.3 > 0 && anchor.is_some() {
                let anchored = build(true).expect("same indices");
                let r = compare_triangles(&anchored, &theirs, tol);
                if r.3 < result.3 {
                    result = r;
                }
            }
            let (m, c, bad, missing, first) = result;
            nodes += 1;
            poly_nodes += usize::from(is_poly);
            triangles += m;
            corners += c;
            if bad > 0 || missing > 0 {
                failures.push(format!(
                    "{model}/{name}{}: {bad} of {c} corners differ, {missing} of {} glTF triangles not found; first {first}",
                    if is_poly { " (Editable Poly)" } else { "" },
                    theirs.len()
                ));
            }
        }
    }
    eprintln!(
        "babylon UVs: {nodes} nodes ({poly_nodes} Editable Poly), {triangles} triangles, {corners} corners compared, worst difference {:e}",
        WORST.with(|w| w.get())
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(nodes >= 86, "only {nodes} nodes compared");
}
