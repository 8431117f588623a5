//! Max's Double Sided material in glTF, against the Babylon.js exporter's glTF
//! of the same scene (ref/babylon-gltf/DoubleSidedMaterial): the facing
//! material shades the triangles as stored, the back material a second
//! primitive of the same triangles turned over (reversed winding, negated
//! normals). Materials are told apart by name; triangles are compared in world
//! space as oriented triangles (corners up to rotation, winding kept).

use maxfs_exporters::gltf::{export_file, glb};
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{accessor, gltf_worlds, Gltf};
use serde_json::Value;

type Tri = [[f64; 3]; 3];

/// Index data of accessor `index` (any unsigned width).
fn indices(g: &Value, bin: &[u8], index: usize) -> Vec<usize> {
    let acc = &g["accessors"][index];
    let view = &g["bufferViews"][acc["bufferView"].as_u64().expect("view") as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    let width = match acc["componentType"].as_u64() {
        Some(5121) => 1,
        Some(5123) => 2,
        _ => 4,
    };
    (0..acc["count"].as_u64().expect("count") as usize)
        .map(|i| {
            let mut b = [0u8; 4];
            b[..width].copy_from_slice(&bin[start + i * width..start + (i + 1) * width]);
            u32::from_le_bytes(b) as usize
        })
        .collect()
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Per primitive of node `node`'s mesh: material name, world triangles, and
/// how many corner normals point to the side the winding faces (of all).
fn primitives(g: &Value, bin: &[u8], node: &str) -> Vec<(String, Vec<Tri>, (usize, usize))> {
    let w = gltf_worlds(g)[node];
    let apply =
        |p: &[f64]| [0, 1, 2].map(|i| w[i][0] * p[0] + w[i][1] * p[1] + w[i][2] * p[2] + w[i][3]);
    let turn = |n: &[f64]| [0, 1, 2].map(|i| w[i][0] * n[0] + w[i][1] * n[1] + w[i][2] * n[2]);
    let n = g["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| n["name"] == node && n["mesh"].is_u64())
        .unwrap_or_else(|| panic!("no mesh node {node}"));
    let mut out = Vec::new();
    for prim in g["meshes"][n["mesh"].as_u64().expect("mesh") as usize]["primitives"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let material = prim["material"]
            .as_u64()
            .and_then(|m| g["materials"][m as usize]["name"].as_str())
            .unwrap_or_default()
            .to_string();
        let attr = |k: &str| prim["attributes"][k].as_u64().expect(k) as usize;
        let pos = accessor(g, bin, attr("POSITION"));
        let nrm = accessor(g, bin, attr("NORMAL"));
        let idx = indices(g, bin, prim["indices"].as_u64().expect("indices") as usize);
        let mut tris = Vec::new();
        let (mut along, mut corners) = (0, 0);
        for t in idx.chunks_exact(3) {
            let tri: Tri = [0, 1, 2].map(|k| apply(&pos[t[k]]));
            let face = cross(sub(tri[1], tri[0]), sub(tri[2], tri[0]));
            for &k in t {
                corners += 1;
                along += usize::from(dot(face, turn(&nrm[k])) > 0.0);
            }
            tris.push(tri);
        }
        out.push((material, tris, (along, corners)));
    }
    out
}

/// Whether oriented triangle `a` equals `b` (same corners, same winding).
fn same(a: &Tri, b: &Tri, tol: f64) -> bool {
    let near = |p: [f64; 3], q: [f64; 3]| (0..3).all(|i| (p[i] - q[i]).abs() <= tol);
    (0..3).any(|r| (0..3).all(|k| near(a[k], b[(k + r) % 3])))
}

#[test]
fn double_sided_material_writes_a_turned_back_primitive_as_babylon_does() {
    let path = corpus_dir().join("max/babylon/DoubleSidedMaterial.max");
    let e = export_file(&path).expect("export");
    let (json, bin) = glb::read(&e.glb).expect("glb");
    let ours: Value = serde_json::from_slice(json).expect("json");
    let Gltf {
        g: theirs,
        bin: tbin,
    } = Gltf::open("DoubleSidedMaterial/DoubleSidedMaterial.gltf");
    let mine = primitives(&ours, bin, "Plane001");
    let refs = primitives(&theirs, &tbin, "Plane001");
    let names = |p: &[(String, Vec<Tri>, (usize, usize))]| {
        p.iter().map(|x| x.0.clone()).collect::<Vec<_>>()
    };
    assert_eq!(names(&mine), names(&refs));
    assert_eq!(names(&refs), ["FrontMaterial", "BackMaterial"]);
    let extent = refs
        .iter()
        .flat_map(|p| p.1.iter().flatten().flatten())
        .fold(1.0f64, |m, v| m.max(v.abs()));
    let tol = 1e-4 * extent;
    for ((name, ot, (oa, oc)), (_, tt, (ta, tc))) in mine.iter().zip(&refs) {
        assert_eq!(ot.len(), tt.len(), "{name}: triangle count");
        let unmatched = ot
            .iter()
            .filter(|a| !tt.iter().any(|b| same(a, b, tol)))
            .count();
        assert_eq!(
            unmatched,
            0,
            "{name}: {unmatched} of {} triangles differ",
            ot.len()
        );
        // Both put every normal on the side the winding faces.
        assert_eq!((oa, ta), (oc, tc), "{name}: normals against winding");
    }
    // The back is the front turned over: every back triangle is a front
    // triangle with its winding reversed.
    let (front, back) = (&mine[0].1, &mine[1].1);
    assert!(back
        .iter()
        .all(|b| front.iter().any(|f| same(&[b[0], b[2], b[1]], f, tol))));
}

/// A Double Sided whose facing side is itself (damaged data, written
/// through our writer into DoubleSidedMaterial.max) must not recurse for
/// ever: the export ends, the node written without that side's material.
#[test]
fn a_double_sided_material_facing_itself_ends() {
    use maxfs_scene::eval::SceneEval;
    use maxfs_tests::rewrite::SceneEdit;
    let mut e = SceneEdit::open("max/babylon/DoubleSidedMaterial.max");
    let ds = e
        .graph
        .objects
        .iter()
        .position(|o| {
            o.class
                .as_ref()
                .is_some_and(|c| (c.class_id.0, c.class_id.1) == (0x210, 0))
        })
        .expect("a Double Sided material");
    e.set_reference(ds, 1, ds as i32);
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");
    let out = maxfs_exporters::gltf::export_scene(&eval).expect("the export ends");
    let g = maxfs_tests::gltf_json(&out.glb);
    assert!(
        g["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .any(|n| n["name"] == "Plane001"),
        "the node is still written"
    );
}
