//! The skinned `.shape` of the rigged Babylon models, read back through the NeL
//! reader: its per-vertex bone weights (palette → matrix block → bone name)
//! against the glTF skin of the same .max (JOINTS_0 / WEIGHTS_0), and its
//! vertices against the evaluated mesh the plug-in starts from.

use std::collections::{BTreeMap, BTreeSet};

use maxfs_exporters::nel::export::ExportKind;
use maxfs_exporters::nel::shape::mesh::Mesh;
use maxfs_exporters::nel::shape::vertex_buffer::ChannelData;
use maxfs_exporters::nel::shape::Shape;
use maxfs_exporters::nel::{read_nel, NelFile};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::Gltf;

pub(crate) type Weights = BTreeMap<String, i64>;

/// Weights rounded to 1e-4 so that maps compare as set elements.
pub(crate) fn key(w: f64) -> i64 {
    (w * 1e4).round() as i64
}

pub(crate) fn channel<'a>(m: &'a Mesh, name: &str) -> Option<&'a ChannelData> {
    let geom = m.geom.as_ref()?;
    geom.vbuffer
        .vertices
        .channels
        .iter()
        .find(|c| c.value == name)
        .map(|c| &c.data)
}

pub(crate) fn floats(d: Option<&ChannelData>) -> Vec<f32> {
    match d {
        Some(ChannelData::Float(v)) => v.iter().map(|f| f.get()).collect(),
        _ => Vec::new(),
    }
}

/// Per NeL vertex: its bone weights by name, through the matrix block whose
/// passes use it (a vertex keeps one palette across blocks: buildSkin mirrors
/// slots so that this holds).
pub(crate) fn shape_weights(m: &Mesh) -> Vec<Weights> {
    let geom = m.geom.as_ref().expect("geom");
    let bones = geom
        .bones_name
        .as_ref()
        .expect("skinned shapes name their bones");
    let weights = floats(channel(m, "weight"));
    let palette = match channel(m, "palette_skin") {
        Some(ChannelData::Bytes(b)) => b.clone(),
        other => panic!("palette channel: {other:?}"),
    };
    let n = geom.vbuffer.header.num_vertices as usize;
    assert_eq!(weights.len(), 4 * n, "4 weights per vertex");
    assert_eq!(palette.len(), 4 * n, "4 palette entries per vertex");
    let mut block_of = vec![None; n];
    for (b, block) in geom.matrix_blocks.iter().enumerate() {
        for pass in &block.rdr_pass {
            for &i in &pass.pblock.indexes {
                let slot = &mut block_of[i as usize];
                assert!(slot.is_none_or(|s| s == b || palettes_agree(geom, s, b, &palette, i)));
                slot.get_or_insert(b);
            }
        }
    }
    (0..n)
        .map(|v| {
            let b = block_of[v].expect("every vertex is used by a pass");
            let ids = &geom.matrix_blocks[b].matrix_id;
            let mut out = Weights::new();
            for k in 0..4 {
                let w = f64::from(weights[4 * v + k]);
                if w > 0.0 {
                    let bone = ids[palette[4 * v + k] as usize] as usize;
                    *out.entry(bones[bone].clone()).or_default() += key(w);
                }
            }
            out
        })
        .collect()
}

/// A vertex shared by two blocks must name the same bones in both.
fn palettes_agree(
    geom: &maxfs_exporters::nel::shape::mesh::MeshGeom,
    a: usize,
    b: usize,
    palette: &[u8],
    v: u32,
) -> bool {
    (0..4).all(|k| {
        let p = palette[4 * v as usize + k] as usize;
        geom.matrix_blocks[a].matrix_id[p] == geom.matrix_blocks[b].matrix_id[p]
    })
}

#[test]
fn skinned_shapes_carry_the_gltf_skin_weights() {
    for model in ["RiggedElf", "RiggedFigure"] {
        let path = corpus_dir().join(format!("max/babylon/{model}.max"));
        let doc = Document::open(&path).expect("max");
        let out = maxfs_tests::export_doc(model, &doc, &[ExportKind::Shape]);
        let gl = Gltf::open(&format!("{model}/{model}.gltf"));
        let gnode = gl.g["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .find(|n| n.get("skin").is_some())
            .expect("skinned glTF node");
        let name = format!(
            "{}.shape",
            gnode["name"].as_str().unwrap_or_default().to_lowercase()
        );
        let o = out
            .outputs
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("{model}: no {name}; errors {:?}", out.errors));
        let f = read_nel(&o.bytes, &o.name).expect("reads back");
        let mesh = match &f {
            NelFile::Shape(s) => match s.shape.get() {
                Some(Shape::CMesh(m)) => m,
                other => panic!("{model}: {name} is {other:?}"),
            },
            _ => panic!("not a shape"),
        };
        assert!(
            mesh.geom.as_ref().expect("geom").skinned.get(),
            "{name} skinned"
        );
        let ours: BTreeSet<Weights> = shape_weights(mesh).into_iter().collect();

        // The glTF's distinct weight maps.
        let skin = &gl.g["skins"][gnode["skin"].as_u64().expect("skin") as usize];
        let joints: Vec<String> = skin["joints"]
            .as_array()
            .expect("joints")
            .iter()
            .map(|j| gl.node_name(j.as_u64().expect("joint") as usize))
            .collect();
        let prim = &gl.g["meshes"][gnode["mesh"].as_u64().expect("mesh") as usize]["primitives"][0]
            ["attributes"];
        let jn = gl.any_accessor(prim["JOINTS_0"].as_u64().expect("joints") as usize);
        let wt = gl.any_accessor(prim["WEIGHTS_0"].as_u64().expect("weights") as usize);
        let theirs: BTreeSet<Weights> = jn
            .iter()
            .zip(&wt)
            .map(|(j, w)| {
                let mut m = Weights::new();
                for k in 0..4 {
                    if w[k] > 0.0 {
                        *m.entry(joints[j[k] as usize].clone()).or_default() += key(w[k]);
                    }
                }
                m
            })
            .collect();
        let close = |a: &Weights, b: &Weights| {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| (v - w).abs() <= 1))
        };
        let missing: Vec<&Weights> = theirs
            .iter()
            .filter(|t| !ours.iter().any(|o| close(o, t)))
            .collect();
        let extra: Vec<&Weights> = ours
            .iter()
            .filter(|o| !theirs.iter().any(|t| close(o, t)))
            .collect();
        eprintln!(
            "{model}: {} distinct weight maps in {name}, {} in the glTF; {} glTF maps not in \
             ours, {} of ours not in the glTF",
            ours.len(),
            theirs.len(),
            missing.len(),
            extra.len()
        );
        match model {
            // Every vertex has at most 4 influences: the sets are equal.
            "RiggedElf" => {
                assert!(
                    missing.is_empty() && extra.is_empty(),
                    "{missing:?} {extra:?}"
                );
            }
            // 85 vertices have more than 4 influences: NeL keeps the 4 heaviest and
            // renormalises, Babylon keeps the first 4 stored (export_skel_anim.rs
            // checks those against the Skin data); the maps of every other vertex
            // are shared.
            _ => {
                assert!(!ours.is_empty());
                // Measured: 111 of 124 distinct maps shared, 13 on each side differ.
                let shared = theirs.len() - missing.len();
                assert!(shared >= 111, "{shared}/{}", theirs.len());
                assert!(missing.len() <= 13 && extra.len() <= 13);
                for m in ours.iter().chain(theirs.iter()) {
                    assert!(m.len() <= 4, "{m:?}");
                }
                for m in &extra {
                    let sum: i64 = m.values().sum();
                    assert!((sum - 10_000).abs() <= 2, "NeL weights sum to 1: {m:?}");
                }
            }
        }
    }
}
