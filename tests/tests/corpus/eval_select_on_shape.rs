//! Mesh Select and Poly Select directly on a shape (issue 19: common
//! modifiers, no silent drops). Both take a mesh (a poly mesh), so Max
//! converts the shape below them as it does for Edit Poly: the tube shown
//! in viewports when "Enable In Viewport" is on, else the closed outlines
//! filled. Pinned on a public file (docs/evaluation.md): the GeometryChecker
//! sample's unittest.max, nine Text shapes under a Mesh Select, whose
//! vertex total then equals Max's Mesh Totals (11,342). The corpus holds no
//! such stack, so this test writes one into Villian.max's Egg001 (both
//! outlines closed, shown in viewports) and checks the tube Max's rule
//! gives: one ring of `sides` vertices per interpolated point, two
//! triangles per quad, no cap (a closed outline has no ends).

use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/prims-pranto/Villian.max";
const NODE: &str = "Egg001";

fn with_select(class: ClassId, name: &str, dll: &str) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    e.add_modifier_with_refs(node, 0, class, name, dll, &[]);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn a_select_modifier_on_a_shape_takes_the_shape_as_a_mesh() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let node = maxfs_tests::node_named(&plain.graph, NODE);
    let shape = plain
        .shape(node, 0)
        .expect("Egg001 is a shape")
        .expect("evaluates");
    assert!(shape.render.in_viewport, "the rule under test: the tube");
    let sides = if shape.render.use_viewport {
        shape.render.viewport.sides
    } else {
        shape.render.section.sides
    } as usize;
    let points: usize = shape.polylines.iter().map(|l| l.pts.len()).sum();
    assert!(shape.polylines.iter().all(|l| l.closed));
    for (class, name, dll) in [
        (ClassId(0x73d8_ff93, 0), "Mesh Select", "mods.dlm"),
        (
            ClassId(0x7ce5_206b, 0x3118_1505),
            "Poly Select",
            "polyselect.dlm",
        ),
    ] {
        let eval = with_select(class, name, dll);
        let node = maxfs_tests::node_named(&eval.graph, NODE);
        let mesh = eval
            .mesh(node, 0)
            .expect("a mesh")
            .unwrap_or_else(|e| panic!("{name} on a shape: {e}"));
        assert_eq!(mesh.vertices.len(), points * sides, "{name}");
        assert_eq!(mesh.faces.len(), 2 * points * sides, "{name}");
        let gaps = maxfs_scene::eval::core::coverage::scene_gaps(&eval);
        assert!(gaps.iter().all(|g| !g.class.contains(name)), "{gaps:?}");
    }
}
