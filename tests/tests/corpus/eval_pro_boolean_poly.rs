//! An Edit Poly on a ProBoolean: Max hands the poly modifier the stored
//! result mesh converted to polygons (`objects::poly_make`: faces joined
//! across hidden edges in edge order, a region with holes one polygon
//! bridged to them). The polygons themselves are checked on public files
//! that cannot be in the corpus (Buwaka's sidewalk 03 and level, against
//! the Unwrap UVW caches Max wrote above such Edit Polys, and the edge and
//! face counts their operations recorded; docs/unseen-files.md) and on one
//! of sidewalk 03's regions in the unit tests.
//!
//! The corpus holds no poly modifier on a ProBoolean, so this test writes an
//! Edit Poly without operations onto Kenjis_Room.max's three ProBooleans
//! (frames: a box with a box-shaped hole through it, 16 vertices, 32
//! triangles) through our writer. What Max's data pins: the triangle mesh
//! that comes out is the one Max exported to the FBX beside the scene
//! (vertex and triangle counts, world positions both ways), and the Edit
//! Poly takes the frame as 8 quads around it and the two faces with holes
//! as one polygon each (10 polygons; 16 − 26 + 10 = 0, a frame's Euler
//! characteristic, the two bridges counted as edges).

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::settings;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

use crate::eval_fbx::{diagonal, fbx_world_vertices, load_fbx, worst_nearest};

const SOURCE: &str = "max/kenji-room/Kenjis_Room.max";
const FBX: &str = "ref/kenji-room/Kenjis_Room.FBX";
const PRO_BOOLEANS: [&str; 3] = ["Box002", "Box004", "Box006"];
const EDIT_POLY: ClassId = ClassId(0x79aa_6e1d, 0x71a0_75b7);
const OSM: u32 = 0x810;

/// Kenjis_Room.max with an empty Edit Poly on each ProBoolean.
fn with_edit_polys() -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let class = match e.class_index_of(EDIT_POLY, OSM) {
        Some(c) => c,
        None => {
            let dll = e.add_dll("Edit Poly (synthetic)", "EPoly.dlm");
            e.add_class(dll, EDIT_POLY, OSM, "Edit Poly")
        }
    };
    for name in PRO_BOOLEANS {
        let node = e.node(name);
        let modifier = e.add_object(class, Vec::new());
        e.add_modifier(node, 0, modifier, Chunk::container(0x2512, Vec::new()));
    }
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn edit_poly_on_pro_boolean_gives_maxs_triangles() {
    let eval = with_edit_polys();
    let dir = maxfs_tests::corpus_dir();
    let unit = settings::system_unit(&eval.doc, &eval.graph).expect("unit");
    let scene = load_fbx(&dir.join(FBX), unit.metres_per_unit);
    for name in PRO_BOOLEANS {
        let node = maxfs_tests::node_named(&eval.graph, name);
        let (stack, _) = eval.modifier_stack(node).expect("a stack");
        let names: Vec<&str> = stack.iter().map(|a| a.name).collect();
        assert_eq!(names, ["Edit Poly"], "{name}");
        let poly = maxfs_scene::eval::modifier::edit_poly_output(&eval, node, 0, 0)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let degrees: Vec<usize> = poly.faces.iter().map(|f| f.v.len()).collect();
        assert_eq!(poly.vertices.len(), 16, "{name}");
        assert_eq!(
            degrees.iter().filter(|&&d| d == 4).count(),
            8,
            "{name}: {degrees:?}"
        );
        assert_eq!(degrees.len(), 10, "{name}: {degrees:?}");
        assert_eq!(poly.walked_edges().len(), 26, "{name}");
        let mesh = eval
            .mesh(node, 0)
            .expect("a mesh")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let tm = eval.object_tm(node, 0);
        let ours: Vec<[f64; 3]> = mesh
            .vertices
            .iter()
            .map(|v| tm.transform_point(*v).to_array())
            .collect();
        let theirs = fbx_world_vertices(&scene, name).expect("FBX mesh");
        let fbx_node = scene
            .nodes
            .iter()
            .find(|n| n.element.name.as_ref() == name)
            .expect("FBX node");
        let fbx_tris: usize = fbx_node
            .mesh
            .as_ref()
            .expect("FBX mesh")
            .faces
            .iter()
            .map(|f| (f.num_indices as usize).saturating_sub(2))
            .sum();
        assert_eq!(ours.len(), theirs.len(), "{name}: vertices");
        assert_eq!(mesh.faces.len(), fbx_tris, "{name}: triangles");
        let size = diagonal(&theirs);
        let worst = worst_nearest(&theirs, &ours).max(worst_nearest(&ours, &theirs));
        assert!(worst <= 1e-5 * size, "{name}: worst {worst} of {size}");
    }
}
