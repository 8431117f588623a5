//! Squeeze (issue 19, common modifiers). The corpus holds none (two public
//! files do: aleezeh611's Console.max and maruzu's infografia chocolate.max,
//! four nodes, no export of them), so the test writes one onto
//! misc/Crate.max's Box001 through our writer, with the mod-context box Max
//! would store (the Box's own bounds) and an old ParamBlock laid out as the
//! public SDK sample's `SpindleMod` (0 bulge, 1 bulge curve, 2 squeeze,
//! 3 squeeze curve, 4 limit, 5/6 limits, 7 bias, 8 volume).
//!
//! Expected values follow the sample's stated behaviour, worked by hand for
//! the settings written: with squeeze amount 1, curve 1, no bulge, bias 0,
//! volume 1, every vertex keeps its height and is scaled across by
//! ½ + ½·|z| / (h / 2) about the gizmo's Z axis (h the box's height), i.e.
//! ½ at z = 0 and 1½ at z = h; with bulge 0.5 (curve 2) and no squeeze each
//! vertex keeps x and y and its z grows by 0.5·(|z| / (h / 2)) / (1 + ρ²),
//! ρ its distance from the axis over half the box's XY diagonal.

use maxfs_scene::eval::core::math::Vec3;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::node_index;
use maxfs_tests::rewrite::{OldParam, SceneEdit};

const SOURCE: &str = "max/misc/Crate.max";
const NODE: &str = "Box001";
const SQUEEZE: ClassId = ClassId(0x11d5_27a5, 0x3a51_49a4);

fn box_vertices(eval: &SceneEval) -> Vec<Vec3> {
    eval.mesh(node_index(eval, NODE), 0)
        .expect("a mesh")
        .expect("evaluates")
        .vertices
        .clone()
}

fn bounds(v: &[Vec3]) -> (Vec3, Vec3) {
    let f = |g: fn(f64, f64) -> f64, k: usize, init: f64| {
        v.iter().map(|p| p.to_array()[k]).fold(init, g)
    };
    (
        Vec3(
            f(f64::min, 0, f64::MAX),
            f(f64::min, 1, f64::MAX),
            f(f64::min, 2, f64::MAX),
        ),
        Vec3(
            f(f64::max, 0, f64::MIN),
            f(f64::max, 1, f64::MIN),
            f(f64::max, 2, f64::MIN),
        ),
    )
}

/// Crate.max with a Squeeze (bulge, squeeze) on Box001 over its own bounds.
fn edited(bulge: f32, squeeze: f32, plain: &[Vec3]) -> SceneEval {
    let mut e = SceneEdit::open(SOURCE);
    let node = e.node(NODE);
    let pb = e.add_old_param_block(&[
        OldParam::Float(bulge),
        OldParam::Float(2.0),
        OldParam::Float(squeeze),
        OldParam::Float(1.0),
        OldParam::Int(0),
        OldParam::Float(-50.0),
        OldParam::Float(50.0),
        OldParam::Float(0.0),
        OldParam::Float(1.0),
    ]);
    e.add_modifier_with_refs(node, 0, SQUEEZE, "Squeeze", "mods.dlm", &[0, 2, pb as i32]);
    let (lo, hi) = bounds(plain);
    let mut b = Vec::new();
    for x in lo.to_array().iter().chain(&hi.to_array()) {
        b.extend((*x as f32).to_le_bytes());
    }
    let derived = e.current_reference(node, 1);
    e.put_nested_leaf(derived, &[0x2500], 0x2511, b);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn squeeze_pinches_across_by_height_and_keeps_heights() {
    let plain = box_vertices(&maxfs_tests::corpus_eval(SOURCE));
    let (lo, hi) = bounds(&plain);
    assert!(
        lo.2.abs() < 1e-6 && hi.2 > 0.0,
        "Crate's Box stands on z = 0"
    );
    let out = box_vertices(&edited(0.0, 1.0, &plain));
    assert_eq!(out.len(), plain.len());
    let half = hi.2 / 2.0;
    for (a, b) in plain.iter().zip(&out) {
        let k = 0.5 + 0.5 * a.2.abs() / half;
        let want = Vec3(a.0 * k, a.1 * k, a.2);
        assert!(
            b.minus(want).len() < 1e-4 * hi.2,
            "{a:?} → {b:?}, want {want:?}"
        );
    }
}

#[test]
fn squeeze_bulge_lifts_by_height_with_the_radius_fall_off() {
    let plain = box_vertices(&maxfs_tests::corpus_eval(SOURCE));
    let (lo, hi) = bounds(&plain);
    let out = box_vertices(&edited(0.5, 0.0, &plain));
    let half = hi.2 / 2.0;
    let r_max = 0.5 * (hi.0 - lo.0).hypot(hi.1 - lo.1);
    for (a, b) in plain.iter().zip(&out) {
        let r = a.0.hypot(a.1) / r_max;
        let lift = 0.5 * (a.2.abs() / half) / (1.0 + r * r);
        let want = Vec3(a.0, a.1, a.2 * (1.0 + lift));
        assert!(
            b.minus(want).len() < 1e-4 * hi.2,
            "{a:?} → {b:?}, want {want:?}"
        );
    }
}
