//! Relax (issue 19, common modifiers). The corpus holds none, so the test
//! writes one onto a real primitive: kenji-room/Kenjis_Bed.max's
//! ChamferBox001 (its positions checked against the author's FBX in
//! `eval_primitives`), with the settings of the 16 Relax modifiers of the
//! public "soft chaire.max" (docs/evaluation.md: Relax Value 0.5, 1
//! iteration, Keep Boundary Pts Fixed on), whose Mesh Totals Max's own
//! match. The rule is Max's documented one: each vertex moves the Relax
//! Value's share of the way to the average of the vertices sharing a
//! visible edge with it, all from the previous positions.

use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::node_index;
use maxfs_tests::rewrite::{OldParam, SceneEdit};

const SOURCE: &str = "max/kenji-room/Kenjis_Bed.max";
const NODE: &str = "ChamferBox001";
const RELAX: ClassId = ClassId(0x64, 0x7f9e);

/// Kenjis_Bed with a Relax on top of ChamferBox001's stack.
fn edited(value: f32, iterations: i32, boundary: i32) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    let pb = e.add_old_param_block(&[
        OldParam::Float(value),
        OldParam::Int(iterations),
        OldParam::Int(boundary),
        OldParam::Int(0),
    ]);
    e.add_modifier_with_refs(node, 0, RELAX, "Relax", "mods.dlm", &[0, 0, pb as i32]);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn relax_moves_each_vertex_halfway_to_its_visible_neighbours() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let before = plain
        .mesh(node_index(&plain, NODE), 0)
        .expect("a mesh")
        .expect("evaluates");
    let eval = edited(0.5, 1, 1);
    let after = eval
        .mesh(node_index(&eval, NODE), 0)
        .expect("a mesh")
        .expect("the Relax evaluates");
    assert_eq!(after.vertices.len(), before.vertices.len());
    assert_eq!(after.faces, before.faces, "Relax keeps the faces");
    // Neighbours across visible edges (edge j of a face: corner j to j+1).
    let n = before.vertices.len();
    let mut nbor: Vec<Vec<u32>> = vec![Vec::new(); n];
    for f in &before.faces {
        for j in 0..3 {
            if f.flags >> j & 1 != 0 {
                let (a, b) = (f.v[j], f.v[(j + 1) % 3]);
                for (x, y) in [(a, b), (b, a)] {
                    if !nbor[x as usize].contains(&y) {
                        nbor[x as usize].push(y);
                    }
                }
            }
        }
    }
    let size = before
        .vertices
        .iter()
        .map(|v| v.0.abs().max(v.1.abs()).max(v.2.abs()))
        .fold(0.0, f64::max);
    let mut worst = 0.0f64;
    let mut moved = 0;
    for (i, (around, &p)) in nbor.iter().zip(&before.vertices).enumerate() {
        assert!(!around.is_empty(), "vertex {i} has visible edges");
        let k = around.len() as f64;
        let avg = around.iter().fold([0.0; 3], |s, &v| {
            let q = before.vertices[v as usize];
            [s[0] + q.0 / k, s[1] + q.1 / k, s[2] + q.2 / k]
        });
        let want = [
            (p.0 + avg[0]) / 2.0,
            (p.1 + avg[1]) / 2.0,
            (p.2 + avg[2]) / 2.0,
        ];
        let a = after.vertices[i];
        worst = worst.max(
            (want[0] - a.0)
                .abs()
                .max((want[1] - a.1).abs())
                .max((want[2] - a.2).abs()),
        );
        if (a.0 - p.0).abs() + (a.1 - p.1).abs() + (a.2 - p.2).abs() > 1e-6 * size {
            moved += 1;
        }
    }
    assert!(worst <= 1e-9 * size, "worst {worst} of {size}");
    assert!(moved > n / 2, "{moved} of {n} vertices moved");
}

#[test]
fn no_iterations_leave_the_mesh_as_it_was() {
    let plain = maxfs_tests::corpus_eval(SOURCE);
    let before = plain.mesh(node_index(&plain, NODE), 0).unwrap().unwrap();
    let eval = edited(0.5, 0, 1);
    let after = eval.mesh(node_index(&eval, NODE), 0).unwrap().unwrap();
    assert_eq!(after.vertices, before.vertices);
}
