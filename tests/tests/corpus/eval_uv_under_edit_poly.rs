//! A UVW Map below an Edit Poly (issue 19 item 6: UV-only modifiers never
//! cost the geometry, and their channel is not dropped where it can be
//! read). The Edit Poly takes polygons, so the map's channel must reach it
//! on the polygons: each corner takes the map vertex the modifier gave it on
//! the polygons' own triangles (`uv_only::over_polygons`; pinned on public
//! files against their authors' FBX, docs/unseen-files.md). The corpus has
//! no such stack, so this test writes one through the project's writer: an
//! Edit Poly (the object of max2024-rico/Can.max's, with no operations of
//! its own) put on top of kenji-room/house_thing.max's node that carries a
//! UVW Map. An Edit Poly without operations hands its input up, so the
//! expected mesh and channel are the unedited file's, where the UVW Map is
//! the top of the stack.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::modifier::{EDIT_POLY, UVW_MAP};
use maxfs_scene::eval::SceneEval;
use maxfs_tests::channel_corners;
use maxfs_tests::rewrite::SceneEdit;

const MAPPED: &str = "max/kenji-room/house_thing.max";
const EDIT_POLY_FROM: &str = "max/max2024-rico/Can.max";

/// The nodes whose stack's top modifier is a UVW Map.
fn mapped_nodes(eval: &SceneEval) -> Vec<(usize, String)> {
    eval.graph
        .nodes()
        .filter(|(o, _)| {
            eval.modifier_stack(o.index)
                .is_some_and(|(s, _)| s.first().is_some_and(|a| a.class == UVW_MAP))
        })
        .map(|(o, n)| (o.index, n.name.clone()))
        .collect()
}

#[test]
fn a_uvw_map_below_an_edit_poly_reaches_its_polygons() {
    let plain = maxfs_tests::corpus_eval(MAPPED);
    let targets = mapped_nodes(&plain);
    assert!(
        !targets.is_empty(),
        "{MAPPED} has a UVW Map on top of a stack"
    );
    let mut checked = 0;
    for (node, name) in &targets {
        let want = plain.mesh(*node, 0).expect("a mesh").expect("evaluates");
        let mut src = SceneEdit::open(EDIT_POLY_FROM);
        let ep = src
            .graph
            .objects
            .iter()
            .position(|o| o.class.as_ref().is_some_and(|c| c.class_id == EDIT_POLY))
            .expect("Can.max has an Edit Poly");
        let mut e = SceneEdit::open(MAPPED);
        let moved = e.transplant(&mut src, ep);
        let new_ep = moved
            .iter()
            .find(|(old, _)| *old == ep)
            .map(|&(_, new)| new)
            .expect("the Edit Poly was copied");
        let n = e.node(name);
        e.add_modifier(n, 0, new_ep, Chunk::container(0x2512, Vec::new()));
        let eval = SceneEval::from_document(e.finish()).expect("edited scene");
        let n = maxfs_tests::node_named(&eval.graph, name);
        let (stack, _) = eval.modifier_stack(n).expect("a stack");
        assert_eq!(stack[0].class, EDIT_POLY, "{name}");
        assert_eq!(stack[1].class, UVW_MAP, "{name}");
        let got = eval
            .mesh(n, 0)
            .expect("a mesh")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            got.missing_maps.iter().all(|d| d.channel != Some(1)),
            "{name}: {:?}",
            got.missing_maps
        );
        assert_eq!(got.vertices, want.vertices, "{name}");
        assert_eq!(
            got.faces.iter().map(|f| f.v).collect::<Vec<_>>(),
            want.faces.iter().map(|f| f.v).collect::<Vec<_>>(),
            "{name}"
        );
        assert_eq!(
            channel_corners(&got, 1),
            channel_corners(&want, 1),
            "{name}"
        );
        checked += 1;
    }
    assert!(checked > 0);
}
