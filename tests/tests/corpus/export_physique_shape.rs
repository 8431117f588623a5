//! Skin and Physique give the same skinned `.shape` when their weights are
//! equal: a constructed pair on the Babylon rigs. For every Skin-skinned
//! node, a Physique ModApp carrying the same influences is written with the
//! chunk writer and read back through Physique's decode and link rules (one
//! link-table slot per bone whose link starts at that bone; multi-influence
//! vertices in the deformable form, single ones in the rigid form); its
//! result, in the Skin shape (`Physique::to_skin`), is exported through the
//! skinned-shape path and must give the shape the Skin gives.

use maxfs_exporters::nel::export::shape::{shape_bytes, skinned_shape_bytes};
use maxfs_exporters::nel::export::Context;
use maxfs_scene::chunk::{self, Chunk};
use maxfs_scene::eval::modifier::physique::{self, decode, Physique, PhysiqueError, Rig};
use maxfs_scene::eval::modifier::skin::{self, Skin};

/// Node ids of the constructed link ends: far above any scene object.
const END_BASE: usize = 1 << 40;

/// The Physique a Skin's influences give: slot 0 the first bone (the
/// root attachment), slot i + 1 a link end whose parent is Skin bone i.
fn physique_of(skin: &Skin) -> Physique {
    let records: Vec<Chunk> = skin
        .vertices
        .iter()
        .map(|inf| {
            let mut p = (inf.len() as u32).to_le_bytes().to_vec();
            for &(bone, w) in inf {
                let k = bone as i32;
                let link_ref = if inf.len() == 1 { !k } else { k + 1 };
                p.extend(link_ref.to_le_bytes());
                for x in [0.5f32, 0.1, 45.0, w] {
                    p.extend(x.to_le_bytes());
                }
            }
            Chunk::container(0x2506, vec![Chunk::leaf(0x0989, p)])
        })
        .collect();
    let bytes = chunk::write(&[Chunk::container(0x2504, records)]);
    let data = chunk::parse(&bytes).expect("written link data parses");
    let local = decode::decode_vertex_data(data[0].children()).expect("decodes");
    let bones: Vec<usize> = skin
        .bones
        .iter()
        .map(|b| b.node.expect("every Skin bone has a node"))
        .collect();
    let mut refs = vec![bones.first().copied()];
    refs.extend((0..bones.len()).map(|i| Some(END_BASE + i)));
    let parent = |n: usize| n.checked_sub(END_BASE).and_then(|i| bones.get(i).copied());
    let rig = Rig {
        refs: &refs,
        parent: &parent,
        is_com: &|_| false,
    };
    let weights = physique::resolve(&local, &rig).expect("links resolve");
    Physique {
        modifier: skin.modifier,
        refs,
        local,
        weights,
        bind: Err(PhysiqueError::Missing(
            "bind pose (not needed by the export)",
        )),
    }
}

/// A shape read back, as its JSON view.
fn json_of(bytes: &[u8]) -> serde_json::Value {
    let f = maxfs_exporters::nel::read_nel(bytes, "x.shape").expect("reads back");
    serde_json::to_value(&f).expect("json")
}

/// The first place two views differ: numbers may differ by 1e-6 (the
/// weights are renormalised once more on the Physique side), everything
/// else must be equal.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) => {
            let (x, y) = (x.as_f64()?, y.as_f64()?);
            ((x - y).abs() > 1e-6).then(|| format!("{at}: {x} vs {y}"))
        }
        (V::Array(x), V::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{at}: {} vs {} items", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}[{i}]")))
        }
        (V::Object(x), V::Object(y)) => {
            if x.len() != y.len() {
                return Some(format!("{at}: fields differ"));
            }
            x.iter().find_map(|(k, p)| match y.get(k) {
                Some(q) => first_difference(p, q, &format!("{at}.{k}")),
                None => Some(format!("{at}.{k}: missing")),
            })
        }
        _ => (a != b).then(|| format!("{at}: {a} vs {b}")),
    }
}

#[test]
fn skin_and_physique_with_equal_weights_export_the_same_shape() {
    let mut compared = 0;
    for model in ["RiggedElf", "RiggedFigure"] {
        let eval = maxfs_tests::corpus_eval(&format!("max/babylon/{model}.max"));
        let ctx = Context::new(model, &eval);
        for (node, name) in maxfs_tests::named_nodes(&eval) {
            let Some(Ok(skin)) = skin::node_skin(&eval, node) else {
                continue;
            };
            let Ok(from_skin) = shape_bytes(&ctx, node) else {
                continue;
            };
            let phy = physique_of(&skin);
            // Multi-influence vertices exercise the deformable form.
            assert!(phy.local.vertices.iter().any(|v| v.len() > 1), "{name}");
            let from_physique =
                skinned_shape_bytes(&ctx, node, phy.to_skin()).expect("Physique shape");
            if let Some(d) = first_difference(&json_of(&from_skin), &json_of(&from_physique), "") {
                panic!("{model}/{name}: the Physique's shape differs from the Skin's at {d}");
            }
            compared += 1;
        }
    }
    assert!(compared >= 2, "skinned shapes compared: {compared}");
}

/// A node with a mesh interface (INTERFACE_FILE) is written without the
/// border weld and named in the errors (the seed's warn-and-continue),
/// its shape byte-identical to the one without the AppData.
#[test]
fn interface_meshes_export_with_the_gap_named() {
    use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
    use maxfs_exporters::nel::export::ExportKind;
    use maxfs_tests::rewrite::SceneEdit;
    let rel = "max/babylon/RiggedFigure.max";
    let plain = maxfs_scene::Document::open(&maxfs_tests::corpus_dir().join(rel)).expect("opens");
    let before = maxfs_tests::export_doc("RiggedFigure", &plain, &[ExportKind::Shape]);
    let shape = before.outputs.first().expect("a shape").clone();
    let node_name = shape.name.trim_end_matches(".shape").to_string();
    let mut e = SceneEdit::open(rel);
    let idx = e
        .graph
        .objects
        .iter()
        .position(|o| {
            o.node
                .as_ref()
                .is_some_and(|n| n.name.to_lowercase() == node_name)
        })
        .expect("the node");
    e.add_appdata(
        idx,
        (NEL_CLASS_ID, NEL_SUPER_CLASS),
        id::INTERFACE_FILE,
        "interfaces/armour.max",
    );
    let after = maxfs_tests::export_doc("RiggedFigure", &e.finish(), &[ExportKind::Shape]);
    let again = after
        .outputs
        .iter()
        .find(|o| o.name == shape.name)
        .expect("still exported");
    assert!(again.bytes == shape.bytes, "same shape without the weld");
    let named: Vec<_> = after
        .errors
        .iter()
        .filter(|e| e.reason.contains("INTERFACE_FILE"))
        .collect();
    assert_eq!(named.len(), 1, "{:?}", after.errors);
    assert!(named[0].reason.contains("interfaces/armour.max"));
}
