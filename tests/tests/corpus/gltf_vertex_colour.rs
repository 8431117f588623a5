//! COLOR_0 in our GLB against the kW X-port plug-in's DirectX export of the
//! same scene (ref/kwxport/cube.x, written by 3ds Max's own mesh API): every
//! .x triangle's corners (UV, vertex colour) are a triangle of ours, one to one.
//! The Rainbow meshes of the ld35 files carry only an alpha channel: COLOR_0
//! is written with white RGB and their stored alpha.

use maxfs_exporters::gltf::glb;
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::accessor;
use serde_json::Value;

fn x_numbers(x: &str, start: &str, stop: &str) -> Vec<f64> {
    let from = x.find(start).expect("block") + start.len();
    let body = &x[from..];
    let body = &body[..body.find(stop).expect("block end")];
    body.split([';', ',', ' ', '\n', '\r', '\t'])
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().expect("number"))
        .collect()
}

/// A u32 index accessor (tightly packed, as we write them).
fn indices(g: &Value, bin: &[u8], index: usize) -> Vec<usize> {
    let acc = &g["accessors"][index];
    assert_eq!(acc["componentType"], 5125, "u32 indices");
    let view = &g["bufferViews"][acc["bufferView"].as_u64().expect("view") as usize];
    let at = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    let n = acc["count"].as_u64().expect("count") as usize;
    bin[at..at + 4 * n]
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .collect()
}

/// Triangles of corners (u, v, r, g, b, a) of the primitives of mesh `name`.
fn our_triangles(rel: &str, name: &str) -> Vec<Vec<[f64; 6]>> {
    let e = maxfs_tests::export_with_stand_in_images(&corpus_dir().join(rel));
    let (json, bin) = glb::read(&e.glb).expect("glb");
    let g: Value = serde_json::from_slice(json).expect("json");
    let mesh = g["meshes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("{rel}: no mesh {name}"));
    let mut out = Vec::new();
    for p in mesh["primitives"].as_array().into_iter().flatten() {
        let at = |s: &str| {
            let i = p["attributes"][s]
                .as_u64()
                .unwrap_or_else(|| panic!("{rel} {name}: no {s}"));
            accessor(&g, bin, i as usize)
        };
        let (uv, col) = (at("TEXCOORD_0"), at("COLOR_0"));
        assert_eq!(
            g["accessors"][p["attributes"]["COLOR_0"].as_u64().unwrap_or(0) as usize]["type"],
            "VEC4"
        );
        let idx = indices(&g, bin, p["indices"].as_u64().expect("indices") as usize);
        for t in idx.chunks(3) {
            out.push(
                t.iter()
                    .map(|&i| {
                        [
                            uv[i][0], uv[i][1], col[i][0], col[i][1], col[i][2], col[i][3],
                        ]
                    })
                    .collect(),
            );
        }
    }
    out
}

#[test]
fn kwxport_cube_vertex_colours_match_directx_x() {
    let x = std::fs::read_to_string(corpus_dir().join("ref/kwxport/cube.x")).expect("x");
    let m = x_numbers(&x, "Mesh mesh_Box01 {", "MeshNormals");
    let n = m[0] as usize;
    let nf = m[1 + 3 * n] as usize;
    let tc = x_numbers(&x, "MeshTextureCoords tc0 {", "}");
    let col = x_numbers(&x, "MeshVertexColors col0 {", "}");
    assert_eq!((tc[0] as usize, col[0] as usize), (n, n));
    // The .x's v is DirectX's (image top at 0), as glTF's.
    let corner = |i: usize| -> [f64; 6] {
        let c = 1 + 5 * i;
        assert_eq!(col[c] as usize, i);
        [
            tc[1 + 2 * i],
            tc[2 + 2 * i],
            col[c + 1],
            col[c + 2],
            col[c + 3],
            col[c + 4],
        ]
    };
    let ours = our_triangles("max/misc/kwxport_cube.max", "Box01");
    assert_eq!(ours.len(), nf);
    let same = |a: &[f64; 6], b: &[f64; 6]| (0..6).all(|k| (a[k] - b[k]).abs() < 1e-5);
    let mut used = vec![false; ours.len()];
    let mut coloured = 0;
    for f in 0..nf {
        let at = 2 + 3 * n + 4 * f;
        let theirs: Vec<[f64; 6]> = (1..4).map(|k| corner(m[at + k] as usize)).collect();
        coloured += usize::from(theirs.iter().any(|c| c[2..5] != [1.0, 1.0, 1.0]));
        let t = (0..ours.len())
            .find(|&t| !used[t] && theirs.iter().all(|c| ours[t].iter().any(|o| same(c, o))))
            .unwrap_or_else(|| panic!(".x triangle {f} {theirs:?} has no triangle of ours"));
        used[t] = true;
    }
    // The reference is not all white: the test can see colours.
    assert!(coloured >= 4, "{coloured} coloured triangles");
}

#[test]
fn alpha_only_meshes_get_white_colour_with_their_alpha() {
    use maxfs_scene::eval::SceneEval;
    use maxfs_scene::Document;
    let rel = "max/ik-ld35/Green@Spawn.max";
    let doc = Document::open(&corpus_dir().join(rel)).expect("opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let (o, _) = eval
        .graph
        .nodes()
        .find(|(_, n)| n.name == "Rainbow")
        .expect("Rainbow");
    let mesh = eval.mesh(o.index, 0).expect("mesh").expect("evaluates");
    let alpha = mesh.maps.iter().find(|m| m.channel == -2).expect("alpha");
    assert!(mesh.maps.iter().all(|m| m.channel != 0));
    let stored: std::collections::BTreeSet<u32> = alpha
        .vertices
        .iter()
        .map(|v| v[0].clamp(0.0, 1.0).to_bits())
        .collect();
    for t in our_triangles(rel, "Rainbow") {
        for c in t {
            assert_eq!(c[2..5], [1.0, 1.0, 1.0]);
            assert!(stored.contains(&(c[5] as f32).to_bits()), "alpha {}", c[5]);
        }
    }
}
