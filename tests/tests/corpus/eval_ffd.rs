//! FFD lattices against what 3ds Max saved with them (prims-greejesh/TreeAnim:
//! six FFD 3x3x3 over Box primitives; no export of the scene exists).
//!
//! Two facts of the file pin the evaluation without using our FFD code's
//! output as its own reference:
//! - the mod-context box (ModApp 0x2511) is the bounding box Max measured of
//!   the FFD's input, in mod-context space: the input we build (base object
//!   and the modifiers below the FFD) must have that box;
//! - a Bézier volume passes through its corner control points: an input
//!   vertex on a corner of that box must land on the corner control point
//!   Max saved (chunk 0x0200, lattice space), taken to object space by the
//!   box and the mod-context TM (the lattice transforms are identity in
//!   this file, which the test requires; a moved lattice is not covered by a
//!   corpus reference).
//!
//! A moved corner point also has to move its vertex: the test checks the
//! deformation is not the identity.

use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::modifier::{self, ffd, ModContext};
use maxfs_tests::{corpus_eval, named_nodes};

fn floats(p: &[u8]) -> Vec<f64> {
    p.chunks_exact(4)
        .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        .collect()
}

#[test]
fn ffd_nodes_keep_max_box_and_corner_points() {
    let eval = corpus_eval("max/prims-greejesh/TreeAnim.max");
    let mut checked = Vec::new();
    let mut moved_corners = 0;
    let nodes = named_nodes(&eval);
    for (node, name) in nodes {
        let Some((stack, _)) = eval.modifier_stack(node) else {
            continue;
        };
        let Some(at) = stack.iter().position(|m| ffd::side(m.class).is_some()) else {
            continue;
        };
        let m = stack[at];
        let n = ffd::side(m.class).unwrap();
        let full = eval.mesh(node, 0).expect("mesh object");
        let full = full.unwrap_or_else(|e| panic!("{name}: {e}"));
        // The FFD's input: the base mesh and the modifiers below the FFD.
        let mut input = (*eval.base_mesh(node).unwrap().unwrap()).clone();
        let cx = ModContext {
            eval: &eval,
            node: Some(node),
            t: 0,
            max_order: true,
            stand_ins: true,
            object: None,
        };
        for below in stack[at + 1..].iter().rev() {
            modifier::apply(below, &mut input, &cx).unwrap();
        }
        let app = m.mod_app.expect("ModApp");
        let leaf = |id: u16| {
            app.children()
                .iter()
                .find(|c| c.id == id)
                .and_then(|c| c.payload())
                .map(floats)
        };
        let b = leaf(0x2511).expect("mod-context box");
        let tm = leaf(0x2510).map(|w| w[..12].to_vec());
        let (min, max) = ([b[0], b[1], b[2]], [b[3], b[4], b[5]]);
        // Row-vector mod-context TM (identity when absent), object → mc space.
        let mc = |v: [f64; 3]| match &tm {
            None => v,
            Some(w) => {
                std::array::from_fn(|c| v[0] * w[c] + v[1] * w[3 + c] + v[2] * w[6 + c] + w[9 + c])
            }
        };
        let inputs: Vec<[f64; 3]> = input.vertices.iter().map(|v| mc(v.to_array())).collect();
        let size: f64 = (0..3)
            .map(|a| (max[a] - min[a]).powi(2))
            .sum::<f64>()
            .sqrt();
        for a in 0..3 {
            let lo = inputs.iter().map(|p| p[a]).fold(f64::INFINITY, f64::min);
            let hi = inputs
                .iter()
                .map(|p| p[a])
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(
                (lo - min[a]).abs() < 1e-5 * size && (hi - max[a]).abs() < 1e-5 * size,
                "{name}: input box axis {a} [{lo}, {hi}], Max's [{}, {}]",
                min[a],
                max[a]
            );
        }
        // Identity lattice transform (the corner check below assumes it).
        let ctl = pblock::reference(&eval.graph, m.object, 0).expect("lattice TM");
        let ctm = eval.prs_tm(ctl, 0).expect("PRS");
        assert!(
            ctm.rows()
                .iter()
                .flatten()
                .zip([1., 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0.])
                .all(|(a, b)| (a - b).abs() < 1e-9),
            "{name}: lattice TM {ctm:?}"
        );
        let chunks = eval.chunks(m.object);
        let pts = floats(
            chunks
                .iter()
                .find(|c| c.id == 0x0200)
                .unwrap()
                .payload()
                .unwrap(),
        );
        let offs = floats(
            chunks
                .iter()
                .find(|c| c.id == 0x0400)
                .unwrap()
                .payload()
                .unwrap(),
        );
        assert_eq!(full.vertices.len(), input.vertices.len(), "{name}");
        let mut corners = 0;
        for (v, (p, q)) in input.vertices.iter().zip(&full.vertices).enumerate() {
            let p = mc(p.to_array());
            let at_corner: Option<[usize; 3]> = (0..3)
                .map(|a| {
                    let tol = 1e-6 * size;
                    if (p[a] - min[a]).abs() < tol {
                        Some(0)
                    } else if (p[a] - max[a]).abs() < tol {
                        Some(n - 1)
                    } else {
                        None
                    }
                })
                .collect::<Option<Vec<_>>>()
                .map(|c| [c[0], c[1], c[2]]);
            let Some([i, j, k]) = at_corner else {
                continue;
            };
            let idx = (i * n + j) * n + k;
            let lattice: [f64; 3] = std::array::from_fn(|a| pts[3 * idx + a] - offs[3 * idx + a]);
            let expected: [f64; 3] =
                std::array::from_fn(|a| lattice[a] * (max[a] - min[a]) + min[a]);
            let got = mc(q.to_array());
            let d = (0..3)
                .map(|a| (got[a] - expected[a]).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                d < 1e-5 * size,
                "{name}: vertex {v} at corner {i}{j}{k} → {got:?}, Max's control point {expected:?}"
            );
            let source: [f64; 3] = [i, j, k].map(|c| c as f64 / (n - 1) as f64);
            if (0..3).any(|a| (lattice[a] - source[a]).abs() > 1e-3) {
                moved_corners += 1;
            }
            corners += 1;
        }
        assert!(
            corners >= 8,
            "{name}: {corners} input vertices on box corners"
        );
        checked.push(name);
    }
    eprintln!("FFD nodes checked: {checked:?}, moved corners {moved_corners}");
    assert_eq!(checked.len(), 6, "{checked:?}");
    assert!(
        moved_corners > 0,
        "no corner moved: the check would not see an identity"
    );
}

/// Ripple (TreeAnim's Plane002; no export of the scene exists): the file's
/// own amplitudes bound the effect. Every vertex moves by at most the larger
/// amplitude (a sine times a decay ≤ 1), along one direction (the gizmo's Z),
/// and some vertex moves: the modifier is not skipped.
#[test]
fn ripple_moves_within_its_amplitude() {
    use maxfs_scene::eval::objects::primitive::block_params;
    let eval = corpus_eval("max/prims-greejesh/TreeAnim.max");
    let mut checked = 0;
    let nodes = named_nodes(&eval);
    for (node, name) in nodes {
        let Some((stack, _)) = eval.modifier_stack(node) else {
            continue;
        };
        let Some(m) = stack.iter().find(|m| m.class == modifier::RIPPLE) else {
            continue;
        };
        assert_eq!(stack.len(), 1, "{name}: the check assumes Ripple alone");
        let pb = pblock::reference(&eval.graph, m.object, 2).expect("pblock");
        let p = block_params(&eval, pb, 0).expect("params");
        let bound = p.float(0).unwrap().abs().max(p.float(1).unwrap().abs());
        let base = eval.base_mesh(node).unwrap().unwrap();
        let full = eval
            .mesh(node, 0)
            .unwrap()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(base.vertices.len(), full.vertices.len(), "{name}");
        let moves: Vec<_> = base
            .vertices
            .iter()
            .zip(&full.vertices)
            .map(|(a, b)| b.minus(*a))
            .collect();
        let longest = moves.iter().map(|d| d.len()).fold(0.0, f64::max);
        eprintln!("{name}: amplitude bound {bound}, largest move {longest}");
        assert!(longest > 1e-3 * bound, "{name}: nothing moved");
        assert!(
            longest <= bound * (1.0 + 1e-9),
            "{name}: {longest} > {bound}"
        );
        let dir = moves
            .iter()
            .find(|d| d.len() > 1e-6 * bound)
            .unwrap()
            .normalized();
        for d in &moves {
            assert!(
                d.cross(dir).len() < 1e-6 * bound,
                "{name}: a move off the wave axis"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 1);
}
