//! The object colour of a node (3ds Max's wireframe colour, what it renders
//! where a material's colour is "by object"): chunk 0x0974 on the node, or
//! its layer's colour (0x1030 of the Base Layer it references) when the
//! node is set to colour by layer (byte 7, bit 1 of chunk 0x0A28).
//!
//! Expected values: 3ds Max's FBX export writes each mesh's object colour as
//! its geometry's `Color` property; the authors' FBX of the corpus scenes
//! (ref/kenji-room, ref/max2024-rico, ref/biped-ld35, ref/ik-ld35) give them.
//! No corpus node colours by layer (seven public ones do: WindowFrame.max and
//! Humgio's OverWorld files, docs/max-format.md "Object colour"), so that
//! rule is exercised by setting the flag through our writer.

use maxfs_scene::eval::render::object_colour::{layer, object_colour, Source, BASE_LAYER};
use maxfs_scene::eval::SceneEval;
use maxfs_tests::corpus_dir;
use maxfs_tests::rewrite::SceneEdit;

use crate::eval_fbx::load_fbx;

const SCENES: &[(&str, &str)] = &[
    (
        "max/kenji-room/Kenjis_Sofa.max",
        "ref/kenji-room/Kenjis_Sofa.FBX",
    ),
    (
        "max/kenji-room/Kenjis_Bed.max",
        "ref/kenji-room/Kenjis_Bed.FBX",
    ),
    (
        "max/kenji-room/Kenjis_Room.max",
        "ref/kenji-room/Kenjis_Room.FBX",
    ),
    (
        "max/kenji-room/Kenjis_Wardrobe.max",
        "ref/kenji-room/Kenjis_Wardrobe.FBX",
    ),
    (
        "max/max2024-rico/Shotgun.max",
        "ref/max2024-rico/Shotgun.fbx",
    ),
    ("max/max2024-rico/Table.max", "ref/max2024-rico/Table.fbx"),
    ("max/max2024-rico/Chair.max", "ref/max2024-rico/Chair.fbx"),
    ("max/biped-ld35/Red@Run.max", "ref/biped-ld35/Red@Run.FBX"),
];

/// The FBX's `Color` of each mesh node, as 8-bit RGB.
fn fbx_colours(rel: &str) -> Vec<(String, [u8; 3])> {
    let scene = load_fbx(&corpus_dir().join(rel), 0.0254);
    scene
        .nodes
        .iter()
        .filter_map(|n| {
            let mesh = n.mesh.as_ref()?;
            let p = mesh
                .element
                .props
                .props
                .iter()
                .find(|p| p.name.as_ref() == "Color")?;
            let v = p.value_vec4;
            let c = [v.x, v.y, v.z].map(|x| (x * 255.0).round() as u8);
            Some((n.element.name.to_string(), c))
        })
        .collect()
}

/// The node named `name`, if the scene has one (the FBX also names nodes
/// the .max holds otherwise, such as its own root).
fn find_node(eval: &SceneEval, name: &str) -> Option<usize> {
    eval.graph
        .nodes()
        .find(|(_, n)| n.name == name)
        .map(|(o, _)| o.index)
}

#[test]
fn object_colours_are_the_colours_max_exports() {
    let mut compared = 0;
    for (max, fbx) in SCENES {
        let eval = maxfs_tests::corpus_eval(max);
        for (name, want) in fbx_colours(fbx) {
            let Some(node) = find_node(&eval, &name) else {
                continue;
            };
            let got = object_colour(&eval, node);
            assert_eq!(got, Some((want, Source::Node)), "{max} {name}");
            compared += 1;
        }
    }
    assert!(compared >= 40, "{compared} nodes compared");
}

fn layer_of(eval: &SceneEval, node: usize) -> usize {
    eval.graph.objects[node]
        .references
        .iter()
        .filter_map(|r| usize::try_from(r.target).ok())
        .find(|&t| {
            eval.graph
                .class(t)
                .is_some_and(|c| c.class_id == BASE_LAYER)
        })
        .expect("the node's layer")
}

#[test]
fn a_node_coloured_by_layer_takes_its_layers_colour() {
    const FILE: &str = "max/kenji-room/Kenjis_Sofa.max";
    let plain = maxfs_tests::corpus_eval(FILE);
    let node = maxfs_tests::node_index(&plain, "Box007");
    let own = plain.graph.objects[node]
        .node
        .as_ref()
        .and_then(|n| n.wire_colour);
    assert_eq!(object_colour(&plain, node).map(|c| c.0), own);
    let layer_index = layer_of(&plain, node);
    // Every node of the sofa is on 3ds Max's default layer, named "0".
    let on = layer(&plain, node).expect("a layer");
    assert_eq!((on.object, on.name.as_deref()), (layer_index, Some("0")));

    let mut e = SceneEdit::open(FILE);
    e.set_leaf(node, 0x0A28, vec![0, 0, 0, 0, 0, 0, 0, 0x02]);
    e.set_leaf(layer_index, 0x1030, vec![12, 34, 56, 0]);
    let by_layer = SceneEval::from_document(e.finish()).expect("edited scene");
    let info = by_layer.graph.objects[node].node.as_ref().expect("a node");
    assert!(info.colour_by_layer);
    assert_eq!(info.wire_colour, own, "its own colour stays stored");
    assert_eq!(
        object_colour(&by_layer, node),
        Some(([12, 34, 56], Source::Layer(layer_index)))
    );
    // The other nodes on that layer keep their own colours.
    for (o, n) in by_layer.graph.nodes() {
        if o.index != node && !n.colour_by_layer && n.wire_colour.is_some() {
            assert_eq!(
                object_colour(&by_layer, o.index).map(|c| c.1),
                Some(Source::Node)
            );
        }
    }
}

/// A node without a material is written in its object colour (3ds Max
/// renders it so), matte; the colour is the one Max's FBX export gives.
#[test]
fn nodes_without_a_material_are_written_in_their_object_colour() {
    let mut checked = 0;
    for (max, fbx) in SCENES {
        let eval = maxfs_tests::corpus_eval(max);
        let e = maxfs_exporters::gltf::export_scene(&eval).expect("glTF");
        let g = maxfs_tests::gltf_json(&e.glb);
        for (name, want) in fbx_colours(fbx) {
            let Some(node) = find_node(&eval, &name) else {
                continue;
            };
            if maxfs_scene::eval::render::material::node_material(&eval.graph, node).is_some() {
                continue;
            }
            let Some(mesh) = g["meshes"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|m| m["name"] == name.as_str())
            else {
                continue;
            };
            for p in mesh["primitives"].as_array().into_iter().flatten() {
                if p["attributes"].get("COLOR_0").is_some() {
                    continue;
                }
                let m = &g["materials"][p["material"].as_u64().expect("a material") as usize];
                let pbr = &m["pbrMetallicRoughness"];
                let base: Vec<f64> = (0..3)
                    .map(|k| pbr["baseColorFactor"][k].as_f64().expect("base colour"))
                    .collect();
                for k in 0..3 {
                    assert!(
                        (base[k] - f64::from(want[k]) / 255.0).abs() < 1e-6,
                        "{max} {name}: {base:?} against {want:?}"
                    );
                }
                assert_eq!(pbr["metallicFactor"].as_f64(), Some(0.0));
                checked += 1;
            }
        }
    }
    assert!(checked >= 3, "{checked} primitives checked");
}
