//! The evaluated kwxport_cube (Box → Edit Mesh → Unwrap UVW) against the kW X-port
//! plug-in's COLLADA export of the same file: positions, node placement, material
//! per face, vertex colours (map channel 0, set by the Edit Mesh) and texture
//! coordinates (map channel 1, edited by Unwrap UVW), per face corner.

use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

/// The numbers of `<float_array id="ID" …>…</float_array>`.
fn float_array(dae: &str, id: &str) -> Vec<f64> {
    let open = format!("<float_array id=\"{id}\"");
    let start = dae.find(&open).expect("float array");
    let body = &dae[start..];
    let from = body.find('>').expect("tag end") + 1;
    let to = body.find("</float_array>").expect("close");
    body[from..to]
        .split_whitespace()
        .map(|w| w.parse().expect("float"))
        .collect()
}

/// Each `<triangles material="M">`: the material and its `<p>` index list.
fn triangles(dae: &str) -> Vec<(String, Vec<usize>)> {
    let mut out = Vec::new();
    let mut rest = dae;
    while let Some(i) = rest.find("<triangles material=\"") {
        rest = &rest[i + "<triangles material=\"".len()..];
        let material = rest[..rest.find('"').expect("quote")].to_string();
        let p = rest.find("<p>").expect("p") + 3;
        let end = rest.find("</p>").expect("/p");
        let idx = rest[p..end]
            .split_whitespace()
            .map(|w| w.parse().expect("index"))
            .collect();
        out.push((material, idx));
    }
    out
}

#[test]
fn kwxport_cube_matches_collada() {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join("max/misc/kwxport_cube.max")).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let graph = &*eval.graph;
    let dae = std::fs::read_to_string(corpus.join("ref/kwxport/cube.dae")).expect("dae");
    let (o, _) = graph
        .nodes()
        .find(|(_, n)| n.name == "Box01")
        .expect("Box01");
    let (stack, _) = eval.modifier_stack(o.index).expect("object");
    let names: Vec<&str> = stack.iter().map(|m| m.name).collect();
    assert_eq!(names, ["Unwrap UVW", "Edit Mesh"]);
    let mesh = eval
        .mesh(o.index, 0)
        .expect("a mesh")
        .expect("stack applies");

    // Node placement: the DAE node is a pure translation.
    let world = eval.object_tm(o.index, 0);
    let rows = world.rows();
    assert!(
        (rows[3][2] - -19.685).abs() < 1e-3 && rows[3][0].abs() < 1e-4,
        "{rows:?}"
    );

    let pos = float_array(&dae, "Box01-mesh-positions-array");
    let col = float_array(&dae, "Box01-mesh-map-channel0-array");
    let uvw = float_array(&dae, "Box01-mesh-map-channel1-array");
    assert_eq!(pos.len(), 3 * mesh.vertices.len());
    for (i, v) in mesh.vertices.iter().enumerate() {
        let v = v.to_array();
        for k in 0..3 {
            assert!((v[k] - pos[3 * i + k]).abs() < 1e-3, "vertex {i}: {v:?}");
        }
    }
    let map = |ch: i32| {
        mesh.maps
            .iter()
            .find(|m| m.channel == ch)
            .unwrap_or_else(|| panic!("channel {ch}"))
    };
    let (colours, uvs) = (map(0), map(1));
    let mut material_of = std::collections::BTreeMap::new();
    let mut seen = vec![false; mesh.faces.len()];
    let mut corners = 0;
    for (material, p) in triangles(&dae) {
        // Corners are (vertex, normal, colour, texcoord) index quadruples.
        for tri in p.chunks_exact(12) {
            let v: Vec<u32> = (0..3).map(|k| tri[4 * k] as u32).collect();
            let f = mesh
                .faces
                .iter()
                .position(|f| f.v[..] == v[..])
                .unwrap_or_else(|| panic!("no face over {v:?}"));
            assert!(!seen[f], "face {f} twice");
            seen[f] = true;
            let id = mesh.faces[f].material;
            assert_eq!(
                *material_of.entry(material.clone()).or_insert(id),
                id,
                "{material}: material ids"
            );
            for k in 0..3 {
                let c = colours.vertices[colours.faces[f][k] as usize];
                let t = uvs.vertices[uvs.faces[f][k] as usize];
                let (ci, ti) = (tri[4 * k + 2], tri[4 * k + 3]);
                for a in 0..3 {
                    assert!(
                        (f64::from(c[a]) - col[3 * ci + a]).abs() < 1e-4,
                        "face {f} corner {k}: colour {c:?}"
                    );
                }
                for a in 0..2 {
                    assert!(
                        (f64::from(t[a]) - uvw[3 * ti + a]).abs() < 1e-4,
                        "face {f} corner {k}: uv {t:?} vs {:?}",
                        &uvw[3 * ti..3 * ti + 3]
                    );
                }
                corners += 1;
            }
        }
    }
    assert!(seen.iter().all(|&s| s), "faces missing from the DAE");
    assert_eq!(corners, 36);
    // Three materials, one id each: the Edit Mesh gave every side id 2.
    let ids: std::collections::BTreeSet<u16> = material_of.values().copied().collect();
    assert_eq!(ids.len(), 3, "{material_of:?}");
    assert_eq!(material_of["side"], 2);
}

/// The numbers of a DirectX .x text block: everything between `start` and the
/// next `stop`, split on the format's separators.
fn x_numbers(x: &str, start: &str, stop: &str) -> Vec<f64> {
    let from = x.find(start).expect("block") + start.len();
    let body = &x[from..];
    let body = &body[..body.find(stop).expect("block end")];
    body.split([';', ',', ' ', '\n', '\r', '\t'])
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().expect("number"))
        .collect()
}

#[test]
fn kwxport_cube_matches_directx_x() {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join("max/misc/kwxport_cube.max")).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let graph = &*eval.graph;
    let x = std::fs::read_to_string(corpus.join("ref/kwxport/cube.x")).expect("x");
    let (o, _) = graph
        .nodes()
        .find(|(_, n)| n.name == "Box01")
        .expect("Box01");
    let mesh = eval
        .mesh(o.index, 0)
        .expect("a mesh")
        .expect("stack applies");

    // The .x is Y-up and scaled: a Max point (x, y, z) is s·(x, z, y). The frame
    // matrix's translation gives s against our world translation.
    let frame = x_numbers(&x, "FrameTransformMatrix relative {", "}");
    assert_eq!(frame.len(), 16);
    let world = eval.object_tm(o.index, 0).rows();
    let s = frame[13] / world[3][2];
    assert!((s - 0.025).abs() < 1e-6, "scale {s}");
    assert!(frame[12].abs() < 1e-6 && frame[14].abs() < 1e-6);

    // Mesh: n, n points, m, then m faces as (3, a, b, c).
    let m = x_numbers(&x, "Mesh mesh_Box01 {", "MeshNormals");
    let n = m[0] as usize;
    let pos: Vec<[f64; 3]> = (0..n)
        .map(|i| [m[1 + 3 * i], m[2 + 3 * i], m[3 + 3 * i]])
        .collect();
    let nf = m[1 + 3 * n] as usize;
    let faces: Vec<[usize; 3]> = (0..nf)
        .map(|f| {
            let at = 2 + 3 * n + 4 * f;
            assert_eq!(m[at], 3.0, "triangles only");
            [m[at + 1] as usize, m[at + 2] as usize, m[at + 3] as usize]
        })
        .collect();
    let tc = x_numbers(&x, "MeshTextureCoords tc0 {", "}");
    assert_eq!(tc[0] as usize, n);
    let col = x_numbers(&x, "MeshVertexColors col0 {", "}");
    assert_eq!(col[0] as usize, n);
    let colour = |i: usize| {
        let at = 1 + 5 * i;
        assert_eq!(col[at] as usize, i, "colour index");
        [col[at + 1], col[at + 2], col[at + 3]]
    };

    // A corner: (position, uv with DirectX's flipped v, colour), compared as
    // sets per triangle (the .x winds the other way round: left-handed).
    type Corner = ([f64; 3], [f64; 2], [f64; 3]);
    let theirs = |i: usize| -> Corner { (pos[i], [tc[1 + 2 * i], 1.0 - tc[2 + 2 * i]], colour(i)) };
    let map = |ch: i32| mesh.maps.iter().find(|m| m.channel == ch).expect("channel");
    let (colours, uvs) = (map(0), map(1));
    let ours = |f: usize, k: usize| -> Corner {
        let v = mesh.vertices[mesh.faces[f].v[k] as usize].to_array();
        let t = uvs.vertices[uvs.faces[f][k] as usize];
        let c = colours.vertices[colours.faces[f][k] as usize];
        (
            [s * v[0], s * v[2], s * v[1]],
            [f64::from(t[0]), f64::from(t[1])],
            [f64::from(c[0]), f64::from(c[1]), f64::from(c[2])],
        )
    };
    let same = |a: &Corner, b: &Corner| {
        (0..3).all(|i| (a.0[i] - b.0[i]).abs() < 1e-5)
            && (0..2).all(|i| (a.1[i] - b.1[i]).abs() < 1e-5)
            && (0..3).all(|i| (a.2[i] - b.2[i]).abs() < 1e-5)
    };
    let mut used = vec![false; mesh.faces.len()];
    for (t, tri) in faces.iter().enumerate() {
        let c: Vec<Corner> = tri.iter().map(|&i| theirs(i)).collect();
        let f = (0..mesh.faces.len())
            .find(|&f| !used[f] && (0..3).all(|k| c.iter().any(|tc| same(tc, &ours(f, k)))))
            .unwrap_or_else(|| panic!(".x triangle {t} {c:?} has no face of ours"));
        used[f] = true;
    }
    assert!(used.iter().all(|&u| u), "faces missing from the .x");
    assert_eq!(faces.len(), 12);
}
