//! The spline IK solver (`"SplineIKSolver"`) in a scene. No public .max file
//! with a spline IK chain was found (docs/ik.md, session 30), so the chain is
//! built through the project's writer: ikPoping.max's HI chain (firstBone →
//! SecondBone → Bone03) gets the spline solver's name, its block the picked
//! shape (`kPickShape`, parameter 20 of `IIKChainControl::SplineIKParams`,
//! SDK iiksys.h) and its hidden "root" node the Arc object of
//! prims-pranto/animation.max. The bones are shortened (4 and 3 units) so the
//! chain fits on the arc (radius 4.45), and the start joint's rest offset is
//! put on the arc's first knot.
//!
//! What is checked are the SDK solver's own promises (SplineIKSolver.cpp):
//! the start joint stays where it is (position is outside the solver's
//! scope); each next joint is found on the curve one bone length (within
//! 1/100 of it) from the previous point, in the curve's direction; the bones
//! keep their lengths. So every joint lies on the arc's circle (centre and
//! radius from the Arc's stored knots, in its plane) within the tolerance the
//! march allows, and at increasing angles from the start. The roll about each
//! bone (the zero map and twist parent, \[CORE\]) is not checked: no
//! reference for it exists. Also: the joints' FK transforms are elsewhere (a
//! fallback would fail), coverage names no gap for the chain, ik.json's rule
//! errors stay within the march's tolerance, and the refusals: an up node in
//! use, no shape picked.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::core::coverage::scene_gaps;
use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::rigs::ik::chain::{scene_chains, SceneChain};
use maxfs_scene::eval::{Mat43, SceneEval, Vec3};
use maxfs_tests::rewrite::SceneEdit;

const FILE: &str = "max/ik/ikPoping.max";
const ARC_FILE: &str = "max/prims-pranto/animation.max";
/// IKChainControl block parameters: solver name, picked shape, use up node.
const P_START: u16 = 0;
const P_SOLVER: u16 = 2;
const P_PICK_SHAPE: u16 = 20;
const P_USE_UP_NODE: u16 = 42;
/// IKControl's rest offset (block parameters 36–38).
const P_REST_POS: [u16; 3] = [36, 37, 38];
const BONES: [f32; 2] = [4.0, 3.0];

/// The world TMs of the chain's joints from their FK sub-controllers
/// (IKControl reference 1) alone, composed down from the scene root (the
/// start joint's parent): what a fallback to FK would show.
fn fk_world(eval: &SceneEval, chain: &SceneChain, t: i32) -> Vec<Mat43> {
    let mut up = Mat43::IDENTITY;
    chain
        .joints
        .iter()
        .map(|&j| {
            let ik = eval.tm_controller(j).expect("IKControl");
            let prs = pblock::reference(&eval.graph, ik, 1).expect("FK PRS");
            up = eval.prs_tm(prs, t).expect("PRS").then(&up);
            up
        })
        .collect()
}

fn chain_of(eval: &SceneEval) -> SceneChain {
    let chains = scene_chains(eval);
    assert_eq!(chains.len(), 1);
    chains[0].1.clone().expect("chain builds")
}

/// Adds a copy of ParamBlock2 `block`'s record of parameter `like` (a node
/// constant) as parameter `id` holding `value`, and counts it in the header.
fn add_record(e: &mut SceneEdit, block: usize, like: u16, id: u16, value: i32) {
    let mut chunks = e.object_chunks(block);
    let pos = chunks
        .iter()
        .position(|c| {
            matches!(c.id, 0x000a | 0x000e | 0x100e)
                && c.payload()
                    .is_some_and(|p| p.len() > 4 && u16::from_le_bytes([p[0], p[1]]) == like)
        })
        .expect("record to copy");
    let mut p = chunks[pos].payload().expect("leaf").to_vec();
    p[0..2].copy_from_slice(&id.to_le_bytes());
    let n = p.len();
    p[n - 4..].copy_from_slice(&value.to_le_bytes());
    let record = Chunk::leaf(chunks[pos].id, p);
    let last = chunks
        .iter()
        .rposition(|c| matches!(c.id, 0x000a | 0x000e | 0x100e))
        .expect("records");
    chunks.insert(last + 1, record);
    let header = chunks
        .iter_mut()
        .find(|c| c.id == 0x0009)
        .expect("block header");
    let mut h = header.payload().expect("leaf").to_vec();
    let count = u16::from_le_bytes([h[10], h[11]]) + 1;
    h[10..12].copy_from_slice(&count.to_le_bytes());
    *header = Chunk::leaf(0x0009, h);
    e.set_object_chunks(block, chunks);
}

/// How the rewritten file differs from a plain spline IK chain.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Plain,
    UpNode,
    NoShape,
    /// `kTwistHEndAngle` (28) set to [`END_TWIST`].
    EndTwist,
}

const P_TWIST_END: u16 = 28;
const END_TWIST: f32 = 0.6;

/// ikPoping with the spline IK chain; `start` is the start joint's rest
/// offset (None: as stored).
fn rewritten(original: &SceneEval, start: Option<Vec3>, variant: Variant) -> SceneEval {
    let chain = chain_of(original);
    let mut src = SceneEdit::open(ARC_FILE);
    let arc_node = src.node("Arc001");
    let arc = src.reference(arc_node, 1);
    let mut e = SceneEdit::open(FILE);
    let root = e.node("root");
    let copied = e.transplant(&mut src, arc);
    e.set_reference(root, 1, copied[0].1 as i32);
    let block = e.reference(chain.controller, 0);
    e.set_pb2_string(block, P_SOLVER, "SplineIKSolver");
    if variant != Variant::NoShape {
        add_record(&mut e, block, P_START, P_PICK_SHAPE, root as i32);
    }
    if variant == Variant::UpNode {
        // A bool record like the stored kAutoEnable (3), set on.
        add_record(&mut e, block, 3, P_USE_UP_NODE, 1);
    }
    if variant == Variant::EndTwist {
        // A float record like the stored constant 11 (kGoalSize).
        add_record(&mut e, block, 11, P_TWIST_END, END_TWIST.to_bits() as i32);
    }
    for (k, &j) in chain.joints.iter().enumerate() {
        let ik = original.tm_controller(j).expect("IKControl");
        let pb = e.reference(ik, 0);
        let offset = match k {
            0 => start.map(|s| [s.0 as f32, s.1 as f32, s.2 as f32]),
            _ => Some([BONES[k - 1], 0.0, 0.0]),
        };
        if let Some(o) = offset {
            for (id, v) in P_REST_POS.iter().zip(o) {
                e.set_pb2_constant(pb, *id, &v.to_le_bytes());
            }
        }
    }
    SceneEval::from_document(e.finish()).expect("scene")
}

/// The arc in world space: centre, plane normal, radius (from its stored
/// knots, checked to lie on one circle), and the first knot.
struct Circle {
    centre: Vec3,
    normal: Vec3,
    radius: f64,
    start: Vec3,
    /// Axes of the arc's plane in world space (object x and y).
    x: Vec3,
    y: Vec3,
}

fn arc_circle(eval: &SceneEval, node: usize) -> Circle {
    let shape = eval.shape(node, 0).expect("a shape").expect("evaluates");
    let spline = &shape.shape.as_ref().expect("Bezier shape").splines[0];
    assert!(!spline.closed);
    let radius = spline.knots[0].point.len();
    for k in &spline.knots {
        assert!((k.point.len() - radius).abs() < 1e-9 * radius.max(1.0));
        assert_eq!(k.point.2, 0.0);
    }
    let tm = eval.offset_tm(node).then(&eval.world_tm(node, 0));
    let rows = tm.rows();
    let v = |r: [f64; 3]| Vec3(r[0], r[1], r[2]);
    Circle {
        centre: tm.transform_point(Vec3(0.0, 0.0, 0.0)),
        normal: v(rows[2]),
        radius,
        start: tm.transform_point(spline.knots[0].point),
        x: v(rows[0]),
        y: v(rows[1]),
    }
}

fn dot(a: Vec3, b: Vec3) -> f64 {
    a.0 * b.0 + a.1 * b.1 + a.2 * b.2
}

/// Angle of `p` about the circle's centre in its plane, radians.
fn angle_on(c: &Circle, p: Vec3) -> f64 {
    let d = p.minus(c.centre);
    dot(d, c.y).atan2(dot(d, c.x))
}

#[test]
fn spline_ik_places_the_joints_on_the_arc_one_bone_apart() {
    let original = maxfs_tests::corpus_eval(FILE);
    let probe = rewritten(&original, None, Variant::Plain);
    let root = maxfs_tests::node_index(&probe, "root");
    let circle = arc_circle(&probe, root);
    assert!(circle.radius > 4.0 && circle.radius < 5.0);

    let eval = rewritten(&original, Some(circle.start), Variant::Plain);
    let chain = chain_of(&eval);
    assert_eq!(chain.solver, "SplineIKSolver");
    let goal = chain.spline.expect("spline goal");
    assert_eq!(goal.shape, Some(root));
    assert!(!goal.use_up_node);

    let t = 0;
    let pose = chain.solve_at(&eval, t).expect("spline solve");
    let joints: Vec<Vec3> = chain
        .joints
        .iter()
        .map(|&j| eval.world_tm(j, t).0[3])
        .collect();
    // The start joint stays on its rest offset, the arc's first knot.
    assert!(joints[0].minus(circle.start).len() < 1e-4);
    let mut allowed = f64::from(BONES[0]) / 100.0;
    let mut last_angle = angle_on(&circle, joints[0]);
    for k in 0..joints.len() {
        let d = joints[k].minus(circle.centre);
        let radial = (d.len() - circle.radius).abs();
        let off_plane = dot(d, circle.normal).abs();
        // The Bezier arc's own distance from the circle is below 1e-3 r.
        let tol = allowed + 1e-3 * circle.radius;
        assert!(
            radial < tol,
            "joint {k}: {radial} off the circle (allowed {tol})"
        );
        eprintln!(
            "joint {k}: {radial:.3e} off the circle (allowed {tol:.3e}), {:.3e} from its curve point",
            joints[k].minus(pose.curve_points[k]).len()
        );
        assert!(
            off_plane < 1e-4,
            "joint {k}: {off_plane} off the arc's plane"
        );
        if k > 0 {
            let len = joints[k].minus(joints[k - 1]).len();
            assert!(
                (len - f64::from(BONES[k - 1])).abs() < 1e-4,
                "bone {k}: length {len}"
            );
            // Along the arc (counter-clockwise about its normal), by less
            // than half a turn.
            let mut a = angle_on(&circle, joints[k]) - last_angle;
            if a < 0.0 {
                a += std::f64::consts::TAU;
            }
            assert!(a > 0.1 && a < std::f64::consts::PI, "joint {k}: turned {a}");
            last_angle = angle_on(&circle, joints[k]);
            allowed += f64::from(BONES[k - 1]) / 100.0;
        }
        // The solver's own point for this joint is on the curve too.
        let p = pose.curve_points[k];
        let radial_p = (p.minus(circle.centre).len() - circle.radius).abs();
        assert!(radial_p < 1e-3 * circle.radius, "point {k}: {radial_p}");
    }
    assert_eq!(pose.curve_points.len(), joints.len());
    eprintln!("spline IK on the arc: radius {}", circle.radius);

    // The FK transforms are elsewhere: a fallback to FK would fail above.
    let fk = fk_world(&eval, &chain, t);
    assert!(fk[1].0[3].minus(joints[1]).len() > 1.0);
    assert!(fk[2].0[3].minus(joints[2]).len() > 1.0);

    // The same pose at every frame (nothing animates the arc or the parent),
    // and coverage names no gap for the chain's nodes.
    for f in [1, 40, 80] {
        let w = eval.world_tm(chain.joints[2], f * 160).0[3];
        assert!(w.minus(joints[2]).len() < 1e-9);
    }
    let names = ["ikGoal", "firstBone", "SecondBone", "Bone03"];
    for g in scene_gaps(&eval) {
        assert!(
            !g.nodes.iter().any(|n| names.contains(&n.as_str()))
                && !g.class.starts_with("IKChainControl"),
            "gap {g:?}"
        );
    }

    // ik.json: a spline rule whose errors stay within the march's tolerance.
    let view = maxfs_scene::eval::rigs::ik::view::view(&eval);
    let rule = &view.rules[0];
    assert_eq!(rule.kind, "spline");
    let worst = rule
        .errors
        .iter()
        .map(|e| e.expect("solved at every frame"))
        .fold(0.0, f64::max);
    assert!(worst <= allowed + 1e-6, "ik.json error {worst}");
}

#[test]
fn spline_ik_refuses_what_it_does_not_evaluate_by_name() {
    let original = maxfs_tests::corpus_eval(FILE);
    for (variant, why) in [
        (Variant::UpNode, "up node"),
        (Variant::NoShape, "no shape picked"),
    ] {
        let eval = rewritten(&original, None, variant);
        let chain = chain_of(&eval);
        let e = chain.solve_at(&eval, 0).expect_err("refused");
        assert!(e.to_string().contains(why), "{e}");
        let gaps = scene_gaps(&eval);
        assert!(
            gaps.iter()
                .any(|g| g.class.starts_with("IKChainControl") && g.class.contains(why)),
            "{gaps:?}"
        );
        // Its joints keep their FK transforms.
        let fk = fk_world(&eval, &chain, 0);
        for (k, &j) in chain.joints.iter().enumerate() {
            let (r, p) = maxfs_tests::tm_diff(&eval.world_tm(j, 0), &fk[k]);
            assert!(r < 1e-9 && p < 1e-9, "joint {k}: {r} {p}");
        }
    }
}

/// The world-space rotation taking frame `b` to frame `a` (3×3 parts,
/// rotations; row vectors, so `b⁻¹ · a`): its angle and axis.
fn relative_rotation(a: &Mat43, b: &Mat43) -> (f64, Vec3) {
    let (ra, rb) = (a.rows(), b.rows());
    // r = bᵀ · a (b orthonormal).
    let mut r = [[0.0f64; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = (0..3).map(|k| rb[k][i] * ra[k][j]).sum();
        }
    }
    let trace = r[0][0] + r[1][1] + r[2][2];
    let angle = ((trace - 1.0) / 2.0).clamp(-1.0, 1.0).acos();
    let axis = Vec3(r[1][2] - r[2][1], r[2][0] - r[0][2], r[0][1] - r[1][0]);
    (angle, axis.scale(1.0 / axis.len()))
}

#[test]
fn spline_ik_end_twist_turns_the_later_bones_about_their_axes_only() {
    // SDK rule: bone b of n turns by start + end/(n−1)·b about its own axis;
    // here n = 2, start 0: bone 0 is unchanged, bone 1 turns by the whole end
    // twist, and no joint moves (twist only rolls the bones).
    let original = maxfs_tests::corpus_eval(FILE);
    let probe = rewritten(&original, None, Variant::Plain);
    let circle = arc_circle(&probe, maxfs_tests::node_index(&probe, "root"));
    let plain = rewritten(&original, Some(circle.start), Variant::Plain);
    let twisted = rewritten(&original, Some(circle.start), Variant::EndTwist);
    let chain = chain_of(&twisted);
    let goal = chain.spline.expect("spline goal");
    assert_eq!(goal.end_twist.value, END_TWIST);
    assert_eq!(goal.start_twist.value, 0.0);
    for t in [0, 1600] {
        let w = |e: &SceneEval, k: usize| e.world_tm(chain.joints[k], t);
        for k in 0..3 {
            let d = w(&twisted, k).0[3].minus(w(&plain, k).0[3]).len();
            assert!(d < 1e-5, "joint {k} moved {d}");
        }
        let (a0, _) = relative_rotation(&w(&twisted, 0), &w(&plain, 0));
        assert!(a0 < 1e-5, "bone 0 turned {a0}");
        let (a1, axis) = relative_rotation(&w(&twisted, 1), &w(&plain, 1));
        assert!(
            (a1 - f64::from(END_TWIST)).abs() < 1e-4,
            "bone 1 turned {a1}"
        );
        let bone = w(&plain, 2).0[3].minus(w(&plain, 1).0[3]);
        let along = dot(axis, bone.scale(1.0 / bone.len())).abs();
        assert!(
            along > 1.0 - 1e-4,
            "bone 1 turned about {axis:?}, bone {bone:?}"
        );
    }
}

/// World matrices (column-major, glTF's column vectors) of every named node.
fn gltf_worlds(g: &gltf::Gltf) -> Vec<(String, [[f64; 4]; 4])> {
    fn mul(a: &[[f64; 4]; 4], b: &[[f64; 4]; 4]) -> [[f64; 4]; 4] {
        // Column-major: (a·b)[c][r] = Σk a[k][r]·b[c][k].
        let mut o = [[0.0; 4]; 4];
        for c in 0..4 {
            for r in 0..4 {
                o[c][r] = (0..4).map(|k| a[k][r] * b[c][k]).sum();
            }
        }
        o
    }
    fn walk(n: gltf::Node, up: &[[f64; 4]; 4], out: &mut Vec<(String, [[f64; 4]; 4])>) {
        let local = n.transform().matrix().map(|c| c.map(f64::from));
        let w = mul(up, &local);
        if let Some(name) = n.name() {
            out.push((name.to_string(), w));
        }
        for c in n.children() {
            walk(c, &w, out);
        }
    }
    let id = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let mut out = Vec::new();
    for s in g.document.scenes() {
        for n in s.nodes() {
            walk(n, &id, &mut out);
        }
    }
    out
}

#[test]
fn spline_ik_bones_reach_the_gltf_export_solved() {
    // The exporter takes node transforms from the same evaluation: the
    // glTF joints, brought back to Max axes (x, −z, y) and units (scale from
    // the 4-unit first bone), sit where the solve put them — not at FK,
    // whose bones are 135.7 and 121.1 long.
    let original = maxfs_tests::corpus_eval(FILE);
    let probe = rewritten(&original, None, Variant::Plain);
    let circle = arc_circle(&probe, maxfs_tests::node_index(&probe, "root"));
    let eval = rewritten(&original, Some(circle.start), Variant::Plain);
    let chain = chain_of(&eval);
    let e = maxfs_exporters::gltf::export_scene(&eval).expect("glTF");
    let g = gltf::Gltf::from_slice(&e.glb).expect("our GLB reads");
    let worlds = gltf_worlds(&g);
    let at = |name: &str| {
        let w = worlds
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no glTF node {name}"))
            .1;
        Vec3(w[3][0], -w[3][2], w[3][1])
    };
    let got: Vec<Vec3> = ["firstBone", "SecondBone", "Bone03"]
        .iter()
        .map(|n| at(n))
        .collect();
    let scale = got[1].minus(got[0]).len() / f64::from(BONES[0]);
    assert!(scale > 0.0);
    let max: Vec<Vec3> = chain
        .joints
        .iter()
        .map(|&j| eval.world_tm(j, 0).0[3])
        .collect();
    for k in 1..3 {
        let want = max[k].minus(max[0]);
        let have = got[k].minus(got[0]).scale(1.0 / scale);
        assert!(
            have.minus(want).len() < 1e-4,
            "joint {k}: glTF {have:?}, solved {want:?}"
        );
    }
    // And the solved joints are on the arc (the other test's invariant).
    let d = (max[1].minus(circle.centre).len() - circle.radius).abs();
    assert!(d < 0.05, "{d}");
}
