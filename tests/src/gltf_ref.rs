//! Reading reference glTF files (the Babylon.js exporter's) for comparisons:
//! node world matrices and float accessors. Shared by the evaluation and the
//! glTF-export tests.

use std::collections::BTreeMap;

use serde_json::Value;

/// Row-major 4×4 (column-vector convention).
pub type M4 = [[f64; 4]; 4];

/// A Max row-vector matrix in glTF axes (the Max point (x, y, z) is the glTF
/// point (x, z, −y)), as a row-major column-vector 4×4: `A·Mᵀ·Aᵀ`.
pub fn max_to_gltf(m: &maxfs_scene::eval::Mat43) -> M4 {
    let r = m.rows();
    let a = |v: [f64; 3]| [v[0], v[2], -v[1]];
    // Column j of the column-vector matrix is row j of the row-vector one; the
    // glTF basis e_x, e_y, e_z maps to Max x, z, −y.
    let cols = [a(r[0]), a(r[1]), a(r[2])];
    let gcols = [cols[0], cols[2], cols[1].map(|v| -v)];
    let t = a(r[3]);
    let mut o = [[0.0; 4]; 4];
    for i in 0..3 {
        for (j, col) in gcols.iter().enumerate() {
            o[i][j] = col[i];
        }
        o[i][3] = t[i];
    }
    o[3][3] = 1.0;
    o
}

pub fn mul(a: &M4, b: &M4) -> M4 {
    let mut o = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            o[i][j] = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    o
}

/// A float array of length `n`, or `default` when absent or of another length.
pub fn nums(v: &Value, n: usize, default: &[f64]) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .filter(|a: &Vec<f64>| a.len() == n)
        .unwrap_or_else(|| default.to_vec())
}

/// Local column-major matrix of a glTF node, as row-major `[row][col]`.
pub fn local(node: &Value) -> M4 {
    if let Some(m) = node.get("matrix") {
        let m = nums(m, 16, &[0.0; 16]);
        let mut o = [[0.0; 4]; 4];
        for c in 0..4 {
            for r in 0..4 {
                o[r][c] = m[c * 4 + r];
            }
        }
        return o;
    }
    let t = nums(&node["translation"], 3, &[0.0; 3]);
    let q = nums(&node["rotation"], 4, &[0.0, 0.0, 0.0, 1.0]);
    let s = nums(&node["scale"], 3, &[1.0; 3]);
    let (x, y, z, w) = (q[0], q[1], q[2], q[3]);
    let r = maxfs_scene::eval::Quat { x, y, z, w }.to_column_matrix();
    let mut o = [[0.0; 4]; 4];
    for i in 0..3 {
        for j in 0..3 {
            o[i][j] = r[i][j] * s[j];
        }
        o[i][3] = t[i];
    }
    o[3][3] = 1.0;
    o
}

/// World matrices of every named glTF node.
pub fn gltf_worlds(doc: &Value) -> BTreeMap<String, M4> {
    let nodes = doc["nodes"].as_array().cloned().unwrap_or_default();
    let mut parent = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for c in n["children"].as_array().into_iter().flatten() {
            if let Some(c) = c.as_u64() {
                parent[c as usize] = Some(i);
            }
        }
    }
    let mut out = BTreeMap::new();
    for (i, n) in nodes.iter().enumerate() {
        let mut m = local(n);
        let mut p = parent[i];
        while let Some(pi) = p {
            m = mul(&local(&nodes[pi]), &m);
            p = parent[pi];
        }
        if let Some(name) = n["name"].as_str() {
            out.insert(name.to_string(), m);
        }
    }
    out
}

/// Float data of an accessor (tightly packed or strided float32 views).
pub fn accessor(g: &Value, bin: &[u8], index: usize) -> Vec<Vec<f64>> {
    let acc = &g["accessors"][index];
    let width = match acc["type"].as_str() {
        Some("SCALAR") => 1,
        Some("VEC2") => 2,
        Some("VEC3") => 3,
        Some("VEC4") => 4,
        Some("MAT4") => 16,
        _ => panic!("accessor type"),
    };
    assert_eq!(acc["componentType"], 5126, "float accessors only");
    let view = &g["bufferViews"][acc["bufferView"].as_u64().expect("view") as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    let stride = view["byteStride"]
        .as_u64()
        .map_or(width * 4, |s| s as usize);
    (0..acc["count"].as_u64().expect("count") as usize)
        .map(|i| {
            (0..width)
                .map(|k| {
                    let at = start + i * stride + k * 4;
                    f32::from_le_bytes([bin[at], bin[at + 1], bin[at + 2], bin[at + 3]]).into()
                })
                .collect()
        })
        .collect()
}

/// The Babylon models: (.max name under max/babylon, glTF path under
/// ref/babylon-gltf). AnimatedCube/ holds the exports of both AnimatedCube files.
pub const MODELS: &[(&str, &str)] = &[
    ("AnimatedCubePosition", "AnimatedCube/all_position.gltf"),
    ("AnimatedCubeRotation", "AnimatedCube/all_rotation.gltf"),
    (
        "AnimatedMeshCameraLight",
        "AnimatedMeshCameraLight/AnimatedMeshCameraLight.gltf",
    ),
    (
        "AnimatedMorphCube",
        "AnimatedMorphCube/AnimatedMorphCube.gltf",
    ),
    ("CartoonHouses", "CartoonHouses/CartoonHouses.gltf"),
    ("CubesImageFormat", "CubesImageFormat/CubesImageFormat.gltf"),
    ("CustomAttributes", "CustomAttributes/CustomAttributes.gltf"),
    (
        "DoubleSidedMaterial",
        "DoubleSidedMaterial/DoubleSidedMaterial.gltf",
    ),
    ("Emissive", "Emissive/Emission.gltf"),
    ("Instances", "Instances/Instances.gltf"),
    ("LightOrientation", "LightOrientation/LightOrientation.gltf"),
    ("RiggedElf", "RiggedElf/RiggedElf.gltf"),
    ("RiggedFigure", "RiggedFigure/RiggedFigure.gltf"),
    ("SimpleTriangle", "SimpleTriangle/SimpleTriangle.gltf"),
    ("WaterBottle", "WaterBottle/WaterBottle.gltf"),
];

/// A reference glTF with its external buffer, under ref/babylon-gltf/.
pub struct Gltf {
    pub g: Value,
    pub bin: Vec<u8>,
}

impl Gltf {
    pub fn open(rel: &str) -> Gltf {
        let path = crate::corpus_dir().join("ref/babylon-gltf").join(rel);
        let g: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("gltf")).expect("json");
        let uri = g["buffers"][0]["uri"].as_str().expect("external buffer");
        let bin = std::fs::read(path.with_file_name(uri)).expect("bin");
        Gltf { g, bin }
    }

    pub fn node_name(&self, i: usize) -> String {
        self.g["nodes"][i]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Integer or float accessor data (JOINTS_0 is u8/u16).
    pub fn any_accessor(&self, index: usize) -> Vec<Vec<f64>> {
        let acc = &self.g["accessors"][index];
        let ct = acc["componentType"].as_u64().expect("type");
        if ct == 5126 {
            return accessor(&self.g, &self.bin, index);
        }
        let width = match acc["type"].as_str() {
            Some("SCALAR") => 1,
            Some("VEC4") => 4,
            _ => panic!("accessor type"),
        };
        let size = if ct == 5121 { 1 } else { 2 };
        let view = &self.g["bufferViews"][acc["bufferView"].as_u64().expect("view") as usize];
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
        let stride = view["byteStride"]
            .as_u64()
            .map_or(width * size, |s| s as usize);
        (0..acc["count"].as_u64().expect("count") as usize)
            .map(|i| {
                (0..width)
                    .map(|k| {
                        let at = start + i * stride + k * size;
                        if size == 1 {
                            f64::from(self.bin[at])
                        } else {
                            f64::from(u16::from_le_bytes([self.bin[at], self.bin[at + 1]]))
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// Objects whose nodes Babylon re-orients (cameras 0x20, lights 0x30): it turns
/// them to look down glTF's −Z, so their rotation (and that of their children) is
/// not Max's. Their positions must still match.
pub fn reoriented(graph: &maxfs_scene::graph::SceneGraph, node: usize) -> bool {
    reoriented_ancestor(graph, node).is_some()
}

/// The nearest of `node` and its ancestors whose object is a camera or a light
/// (see [`reoriented`]); its descendants keep their Max transforms relative to it.
pub fn reoriented_ancestor(graph: &maxfs_scene::graph::SceneGraph, node: usize) -> Option<usize> {
    let mut cur = Some(node);
    for _ in 0..64 {
        let n = cur?;
        let obj = graph.objects[n]
            .references
            .iter()
            .find(|r| r.slot == 1)
            .and_then(|r| graph.objects.get(r.target as usize));
        if obj
            .and_then(|o| o.class.as_ref())
            .is_some_and(|c| c.super_class == 0x20 || c.super_class == 0x30)
        {
            return Some(n);
        }
        cur = graph.objects[n]
            .node
            .as_ref()
            .and_then(|i| i.parent)
            .map(|p| p as usize);
    }
    None
}

/// The Babylon models whose glTF holds one animation clip over Max's timeline
/// (the rigged models hold several clips whose offsets are not in the glTF).
pub const SINGLE_CLIP: &[(&str, &str)] = &[
    ("AnimatedCubePosition", "AnimatedCube/all_position.gltf"),
    ("AnimatedCubeRotation", "AnimatedCube/all_rotation.gltf"),
    (
        "AnimatedMeshCameraLight",
        "AnimatedMeshCameraLight/AnimatedMeshCameraLight.gltf",
    ),
    (
        "AnimatedMorphCube",
        "AnimatedMorphCube/AnimatedMorphCube.gltf",
    ),
];
