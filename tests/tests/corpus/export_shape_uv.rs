//! UVs in the NeL `.shape` of textured Babylon nodes (issue 18 item 1): the
//! shape of an Editable Poly (or any mesh) node whose material has a texture
//! carries a first texture-coordinate set, and its values are Babylon's
//! TEXCOORD_0 (NeL writes V as 1 − V, Babylon as −V) as sets, within 1e-4.

use std::collections::BTreeSet;

use maxfs_exporters::nel::export::ExportKind;
use maxfs_exporters::nel::shape::vertex_buffer::ChannelData;
use maxfs_exporters::nel::shape::Shape;
use maxfs_exporters::nel::{read_nel, NelFile};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{accessor, Gltf, MODELS};

fn key(uv: [f64; 2]) -> [i64; 2] {
    uv.map(|x| (x / 1e-4).round() as i64)
}

fn near(set: &BTreeSet<[i64; 2]>, uv: [f64; 2]) -> bool {
    let k = key(uv);
    (-1..=1).any(|a| (-1..=1).any(|b| set.contains(&[k[0] + a, k[1] + b])))
}

#[test]
fn shape_uvs_are_babylons() {
    let (mut nodes, mut poly_nodes, mut uvs) = (0, 0, 0);
    let mut untextured = Vec::new();
    let mut failures = Vec::new();
    for (model, gltf) in MODELS {
        let path = corpus_dir().join(format!("max/babylon/{model}.max"));
        let doc = Document::open(&path).expect("max");
        let eval = maxfs_scene::eval::SceneEval::from_document(doc).expect("scene");
        let (doc, graph) = (&*eval.doc, &*eval.graph);
        let out = maxfs_tests::export_doc(model, doc, &[ExportKind::Shape]);
        let r = Gltf::open(gltf);
        for node in r.g["nodes"].as_array().into_iter().flatten() {
            let (Some(name), Some(mi)) = (node["name"].as_str(), node["mesh"].as_u64()) else {
                continue;
            };
            // The primitives whose material has a texture (NeL writes no UVs
            // for the faces of an untextured material).
            let mut theirs = Vec::new();
            for prim in r.g["meshes"][mi as usize]["primitives"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let m = &r.g["materials"][prim["material"].as_u64().unwrap_or(u64::MAX) as usize];
                if !m["pbrMetallicRoughness"]["baseColorTexture"].is_object() {
                    continue;
                }
                if let Some(i) = prim["attributes"]["TEXCOORD_0"].as_u64() {
                    theirs.extend(
                        accessor(&r.g, &r.bin, i as usize)
                            .iter()
                            .map(|t| [t[0], 1.0 + t[1]]),
                    );
                }
            }
            if theirs.is_empty() {
                continue;
            }
            let file = format!("{}.shape", name.to_ascii_lowercase());
            let Some(o) = out
                .outputs
                .iter()
                .find(|o| o.name.eq_ignore_ascii_case(&file))
            else {
                // Skinned and morphed nodes have their own shape tests.
                continue;
            };
            let nel = read_nel(&o.bytes, &file).expect("shape reads");
            let NelFile::Shape(s) = &nel else {
                panic!("{file}: not a shape");
            };
            let Some(Shape::CMesh(mesh)) = s.shape.get() else {
                continue;
            };
            let Some(geom) = mesh.geom.as_ref() else {
                continue;
            };
            // Materials the NeL exporter builds without a texture (Physical
            // Material, Double Sided: not NeL's) need no UVs.
            let nel_textured = mesh.base.as_ref().is_some_and(|b| {
                b.materials
                    .iter()
                    .any(|m| m.textures.iter().any(|t| t.get().is_some()))
            });
            if !nel_textured {
                untextured.push(format!("{model}/{name}"));
                continue;
            }
            let Some(tc) = geom
                .vbuffer
                .vertices
                .channels
                .iter()
                .find(|c| c.value == "tex_coord0")
            else {
                failures.push(format!(
                    "{model}/{name}: textured, no texture coordinates in the shape"
                ));
                continue;
            };
            let ChannelData::Float(f) = &tc.data else {
                failures.push(format!("{model}/{name}: tex_coord0 not floats"));
                continue;
            };
            let mine: Vec<[f64; 2]> = f
                .chunks_exact(usize::from(tc.components.max(1)))
                .map(|c| [f64::from(c[0].get()), f64::from(c[1].get())])
                .collect();
            // Every Babylon UV of a textured face is in the shape; the shape may
            // add the (0, 0) of untextured faces' vertices.
            let a: BTreeSet<_> = mine.iter().map(|&u| key(u)).collect();
            let b: BTreeSet<_> = theirs.iter().map(|&u| key(u)).collect();
            let missing = theirs.iter().filter(|&&u| !near(&a, u)).count();
            let extra = mine
                .iter()
                .filter(|&&u| u != [0.0, 0.0] && !near(&b, u))
                .count();
            let is_poly = graph
                .nodes()
                .find(|(_, n)| n.name == name)
                .and_then(|(o, _)| eval.node_object(o.index))
                .and_then(|b| graph.objects[b].class.as_ref())
                .is_some_and(|c| c.class_id == maxfs_scene::eval::objects::mesh::EDITABLE_POLY);
            nodes += 1;
            poly_nodes += usize::from(is_poly);
            uvs += mine.len();
            if missing + extra > 0 {
                failures.push(format!(
                    "{model}/{name}: {missing} of {} Babylon UVs not in the shape, {extra} of {} shape UVs not in Babylon's",
                    theirs.len(),
                    mine.len()
                ));
            }
        }
    }
    eprintln!(
        "shape UVs: {nodes} textured nodes ({poly_nodes} Editable Poly), {uvs} vertex UVs; shapes without a texture: {untextured:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(poly_nodes >= 7, "only {poly_nodes} Editable Poly shapes");
}
