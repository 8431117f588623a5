//! The IK Limb solver (`"IKLimb"`) in a scene, on ikPoping.max's HI chain
//! rewritten through the project's writer (the corpus holds no IK Limb
//! chain). Expected values come from what the solver's public SDK sample and
//! the IK system's header state, computed here in f64 from the stored rest
//! offsets and preferred angles (IKControl 36–41), never from our own output:
//!
//! - at a goal on the preferred pose's end joint with swivel 0 the joints take
//!   the preferred pose (also what a public file's Skin bind shows);
//! - at every other frame of the goal's animation the end joint reaches the
//!   goal (or its clamp on the goal line), the bones keep their lengths and
//!   the chain plane is the zero plane — the preferred plane's normal moved
//!   off the goal line — turned by the swivel angle about that line;
//! - with 2 joints the start joint turns its preferred frame by the shortest
//!   rotation onto the goal direction, which the HI path (3 joints only)
//!   refuses.
//!
//! The FK transforms are elsewhere at the checked frames, so a fallback would
//! fail.

use maxfs_scene::eval::core::controller::euler_matrix;
use maxfs_scene::eval::core::coverage::scene_gaps;
use maxfs_scene::eval::core::pblock::{self, Value};
use maxfs_scene::eval::rigs::ik::chain::{scene_chains, SceneChain};
use maxfs_scene::eval::rigs::ik::primitives::M3;
use maxfs_scene::eval::{Mat43, SceneEval, Vec3};
use maxfs_tests::rewrite::SceneEdit;

const FILE: &str = "max/ik/ikPoping.max";
/// IKChainControl's end joint, solver name and swivel angle, IKControl's rest
/// angles (block parameters).
const P_END: u16 = 1;
const P_SOLVER: u16 = 2;
const P_SWIVEL: u16 = 4;
const P_REST_ROT: [u16; 3] = [39, 40, 41];

fn chain_of(eval: &SceneEval) -> SceneChain {
    let chains = scene_chains(eval);
    assert_eq!(chains.len(), 1);
    chains[0].1.clone().expect("chain builds")
}

fn euler_of(m: &Mat43) -> [f32; 3] {
    let r = m.rows();
    let m3 = M3 {
        m: [0, 1, 2, 3].map(|i| r[i].map(|x| x as f32)),
    };
    let e = m3.to_euler_xyz();
    [e.x, e.y, e.z]
}

/// The stored rest offset and Euler XYZ angles (IKControl 36–41) of a joint.
fn stored_rest(eval: &SceneEval, joint: usize) -> ([f64; 3], [f64; 3]) {
    let ik = eval.tm_controller(joint).expect("IKControl");
    let pb = pblock::reference(&eval.graph, ik, 0).expect("block");
    let b = pblock::param_block2(eval.chunks(pb)).expect("ParamBlock2");
    let f = |id: u16| match b.param(id).map(|p| &p.value) {
        Some(Value::Float(x)) => f64::from(*x),
        other => panic!("parameter {id}: {other:?}"),
    };
    ([f(36), f(37), f(38)], [f(39), f(40), f(41)])
}

fn dist(a: Vec3, b: Vec3) -> f64 {
    a.minus(b).len()
}

/// The largest element difference, rotation or position.
fn max_diff(a: &Mat43, b: &Mat43) -> f64 {
    let (r, p) = maxfs_tests::tm_diff(a, b);
    r.max(p)
}

/// ikPoping with the chain's preferred angles set to `angles` (start, middle
/// joint) and its solver named `solver`.
fn rewritten(
    original: &SceneEval,
    chain: &SceneChain,
    angles: [[f32; 3]; 2],
    solver: &str,
) -> SceneEval {
    let mut e = SceneEdit::open(FILE);
    let block = e.reference(chain.controller, 0);
    e.set_pb2_string(block, P_SOLVER, solver);
    for (k, a) in angles.iter().enumerate() {
        let ik = original.tm_controller(chain.joints[k]).expect("IKControl");
        let pb = e.reference(ik, 0);
        for (id, v) in P_REST_ROT.iter().zip(a) {
            e.set_pb2_constant(pb, *id, &v.to_le_bytes());
        }
    }
    SceneEval::from_document(e.finish()).expect("scene")
}

#[test]
fn ik_limb_keeps_the_preferred_pose_at_its_goal_and_solves_elsewhere() {
    let original = maxfs_tests::corpus_eval("max/ik/ikPoping.max");
    let chain = chain_of(&original);
    assert_eq!(chain.solver, "IKHISolver");
    let l1 = Vec3::from_f32([chain.rest[1].0.x, chain.rest[1].0.y, chain.rest[1].0.z]).len();
    let l2 = Vec3::from_f32([chain.rest[2].0.x, chain.rest[2].0.y, chain.rest[2].0.z]).len();
    let length = l1 + l2;
    let tol = 1e-3 * length;

    // A frame with the goal well inside the reach (not clamped): the pose the
    // HI solver gives there becomes the preferred pose (only a way to build
    // an input whose preferred end joint sits on the goal).
    let t = (0..=80)
        .map(|f| f * 160)
        .find(|&t| {
            let start = chain.root_frame(&original, t).0[3];
            let d = dist(chain.goal_world(&original, t).0[3], start);
            d < 0.9 * length && d > (l1 - l2).abs() + 0.1 * length
        })
        .expect("a frame with the goal in reach");
    let pose = chain.solve_at(&original, t).expect("HI solve");
    let angles = [euler_of(&pose.local[0]), euler_of(&pose.local[1])];

    let limb = rewritten(&original, &chain, angles, "IKLimb");
    let hi = rewritten(&original, &chain, angles, "IKHISolver");
    let c = chain_of(&limb);
    assert_eq!(c.solver, "IKLimb");

    // The preferred pose from the stored values alone: each joint's rest
    // offset and Euler XYZ angles under its parent.
    let parent = limb.graph.objects[c.joints[0]]
        .node
        .as_ref()
        .and_then(|n| n.parent)
        .map_or(Mat43::IDENTITY, |p| limb.world_tm(p as usize, t));
    let mut expected = Vec::new();
    let mut up = parent;
    for &j in &c.joints {
        let (pos, rot) = stored_rest(&limb, j);
        let local = euler_matrix(0, rot).then(&Mat43::translation(Vec3(pos[0], pos[1], pos[2])));
        up = local.then(&up);
        expected.push(up);
    }
    let goal = c.goal_world(&limb, t).0[3];
    let mut worst = 0.0f64;
    for (k, &j) in c.joints.iter().enumerate() {
        let w = limb.world_tm(j, t);
        let d = dist(w.0[3], expected[k].0[3]);
        worst = worst.max(d);
        assert!(
            d < tol,
            "joint {k} at {:?}, preferred {:?}",
            w.0[3],
            expected[k].0[3]
        );
        assert!(max_diff(&w, &expected[k]) < 1e-3 * length.max(1.0));
        // The HI solver gives the same pose at this goal.
        let h = hi.world_tm(j, t);
        assert!(max_diff(&w, &h) < tol, "joint {k}: IKLimb {w:?}, HI {h:?}");
    }
    let [s, m, e] = [0, 1, 2].map(|k| limb.world_tm(c.joints[k], t).0[3]);
    assert!(dist(e, goal) < tol, "end {e:?}, goal {goal:?}");
    assert!((dist(m, s) - l1).abs() < tol && (dist(e, m) - l2).abs() < tol);
    // The FK transforms (what a refused tick gives) are elsewhere: the check
    // above tells the solve from a fallback.
    let mut fk = parent;
    for &j in &c.joints {
        let ik = limb.tm_controller(j).expect("IKControl");
        let prs = pblock::reference(&limb.graph, ik, 1).expect("FK controller");
        fk = limb.prs_tm(prs, t).expect("FK PRS").then(&fk);
    }
    assert!(
        dist(fk.0[3], goal) > 10.0 * tol,
        "FK end {:?} on the goal",
        fk.0[3]
    );
    eprintln!(
        "IKLimb at tick {t}: worst joint {worst:.2e} from the preferred pose (chain {length:.2})"
    );

    // Elsewhere: solved at every frame, on the goal, in the zero plane.
    let frames = off_preferred_checks(&limb, &c, 0.0, l1, l2, &expected_at(&limb, &c));
    assert!(frames.away > 10, "{frames:?}");
    assert!(!scene_gaps(&limb)
        .iter()
        .any(|g| g.class.starts_with("IKChainControl") || g.class.starts_with("IKControl")));
    assert_eq!(limb.ik_state().fallback_ticks(0).1, 0);
    // On this planar chain the HI solver's knee path (docs/ik.md) is the IK
    // Limb's bend about the plane normal: the two files agree at every frame
    // to 1e-4 of the chain (the HI path is integrated, the IK Limb one
    // closed-form; clamped frames, where the path ends at full reach, differ
    // most: 1.5e-5).
    for f in 0..=80 {
        for &j in &c.joints {
            let d = max_diff(&limb.world_tm(j, f * 160), &hi.world_tm(j, f * 160));
            assert!(
                d < 1e-4 * length.max(1.0),
                "frame {f}: IKLimb and HI differ by {d}"
            );
        }
    }
    eprintln!("IKLimb off the preferred pose: {frames:?}");
}

/// What the checks of [`off_preferred_checks`] saw.
#[derive(Debug)]
struct Seen {
    /// Frames with the goal more than 1 % of the chain from the preferred end.
    away: usize,
    /// Frames with the goal out of reach (clamped).
    clamped: usize,
    /// Worst end-joint distance from the goal or its clamp, bone length
    /// change and plane-normal error.
    reach: f64,
    bones: f64,
    plane: f64,
    /// `away` frames where the FK end joint is more than 10⁻² of the chain
    /// from the solved one (where a fallback to FK would show).
    fk_far: usize,
}

/// The preferred pose at `t` composed from the stored values (each joint's
/// rest offset and Euler XYZ angles under its parent's world transform).
fn expected_at<'a>(eval: &'a SceneEval, c: &'a SceneChain) -> impl Fn(i32) -> Vec<Mat43> + 'a {
    move |t| {
        let parent = eval.graph.objects[c.joints[0]]
            .node
            .as_ref()
            .and_then(|n| n.parent)
            .map_or(Mat43::IDENTITY, |p| eval.world_tm(p as usize, t));
        let mut up = parent;
        c.joints
            .iter()
            .map(|&j| {
                let (pos, rot) = stored_rest(eval, j);
                up = euler_matrix(0, rot)
                    .then(&Mat43::translation(Vec3(pos[0], pos[1], pos[2])))
                    .then(&up);
                up
            })
            .collect()
    }
}

/// `x` turned by `angle` about unit `axis`, right-hand rule (Rodrigues).
fn turn(x: Vec3, axis: Vec3, angle: f64) -> Vec3 {
    let (s, k) = angle.sin_cos();
    x.scale(k)
        .plus(axis.cross(x).scale(s))
        .plus(axis.scale(axis.dot(x) * (1.0 - k)))
}

/// Checks a 3-joint IK Limb chain at every frame of ikPoping's goal
/// animation against the SDK's statements; `swivel` is the chain's constant
/// swivel angle (start-joint space).
fn off_preferred_checks(
    eval: &SceneEval,
    c: &SceneChain,
    swivel: f64,
    l1: f64,
    l2: f64,
    preferred: &dyn Fn(i32) -> Vec<Mat43>,
) -> Seen {
    let length = l1 + l2;
    let tol = 1e-3 * length;
    let mut seen = Seen {
        away: 0,
        clamped: 0,
        reach: 0.0,
        bones: 0.0,
        plane: 0.0,
        fk_far: 0,
    };
    for f in 0..=80 {
        let t = f * 160;
        c.solve_at(eval, t)
            .unwrap_or_else(|e| panic!("frame {f}: {e}"));
        let [s, m, e] = [0, 1, 2].map(|k| eval.world_tm(c.joints[k], t).0[3]);
        let goal = c.goal_world(eval, t).0[3];
        let pref = preferred(t);
        let to_goal = goal.minus(s);
        let d = to_goal.len();
        let ee = to_goal.normalized();
        // The goal, or its clamp into the shell [|l1 − l2|, l1 + l2].
        let target = if d > length {
            seen.clamped += 1;
            s.plus(ee.scale(length))
        } else if d < (l1 - l2).abs() {
            seen.clamped += 1;
            s.plus(ee.scale((l1 - l2).abs()))
        } else {
            goal
        };
        seen.reach = seen.reach.max(dist(e, target));
        seen.bones = seen
            .bones
            .max((dist(m, s) - l1).abs())
            .max((dist(e, m) - l2).abs());
        // The zero plane: the preferred plane normal n0 = ee0 ^ elbow0 with
        // its component along the goal line removed, turned by the swivel.
        let n0 = pref[2].0[3]
            .minus(s)
            .normalized()
            .cross(pref[1].0[3].minus(s).normalized());
        let zero = n0.minus(ee.scale(n0.dot(ee))).normalized();
        let want = turn(zero, ee, swivel);
        let got = ee.cross(m.minus(s)).normalized();
        // Near full reach the elbow sits almost on the goal line and the
        // plane is ill-defined: measured where the bend is visible.
        if ee.cross(m.minus(s).normalized()).len() > 0.05 {
            seen.plane = seen.plane.max(got.minus(want).len());
        }
        if dist(goal, pref[2].0[3]) > 0.01 * length {
            seen.away += 1;
            let mut fk = Mat43::IDENTITY;
            let parent = eval.graph.objects[c.joints[0]]
                .node
                .as_ref()
                .and_then(|n| n.parent)
                .map_or(Mat43::IDENTITY, |p| eval.world_tm(p as usize, t));
            let mut up = parent;
            for &j in &c.joints {
                let ik = eval.tm_controller(j).expect("IKControl");
                let prs = pblock::reference(&eval.graph, ik, 1).expect("FK controller");
                up = eval.prs_tm(prs, t).expect("FK PRS").then(&up);
                fk = up;
            }
            if dist(fk.0[3], e) > 1e-2 * length {
                seen.fk_far += 1;
            }
        }
    }
    // ikPoping's chain reaches its goal or clamp within 0.060 (2.3e-4 of
    // the chain: acos of a cosine an ulp off 1 at full reach, docs/ik.md).
    assert!(seen.reach < tol, "{seen:?}");
    assert!(seen.bones < tol, "{seen:?}");
    // acos(1 − ulp) in the swivel scalar: up to ~5e-4 rad.
    assert!(seen.plane < 2e-3, "{seen:?}");
    assert!(seen.fk_far > 10, "{seen:?}");
    seen
}

#[test]
fn ik_limb_turns_the_chain_plane_by_its_swivel_angle() {
    let original = maxfs_tests::corpus_eval(FILE);
    let chain = chain_of(&original);
    let l =
        |k: usize| Vec3::from_f32([chain.rest[k].0.x, chain.rest[k].0.y, chain.rest[k].0.z]).len();
    let (l1, l2) = (l(1), l(2));
    let swivel = 0.6f32;
    let mut e = SceneEdit::open(FILE);
    let block = e.reference(chain.controller, 0);
    e.set_pb2_string(block, P_SOLVER, "IKLimb");
    // ikPoping's swivel angle has a controller: made a constant instead.
    assert!(chain.swivel.is_some());
    e.make_pb2_constant(block, P_SWIVEL, &swivel.to_le_bytes());
    let limb = SceneEval::from_document(e.finish()).expect("scene");
    let c = chain_of(&limb);
    assert_eq!(c.solver, "IKLimb");
    assert_eq!((c.swivel, c.swivel_default), (None, swivel));
    let seen = off_preferred_checks(
        &limb,
        &c,
        f64::from(swivel),
        l1,
        l2,
        &expected_at(&limb, &c),
    );
    assert!(seen.away > 10, "{seen:?}");
    eprintln!("IKLimb at swivel {swivel}: {seen:?}");
}

#[test]
fn ik_limb_of_two_joints_turns_the_start_joint_onto_the_goal() {
    let original = maxfs_tests::corpus_eval(FILE);
    let chain = chain_of(&original);
    let mid = chain.joints[1];
    let rewrite = |solver: &str| {
        let mut e = SceneEdit::open(FILE);
        let block = e.reference(chain.controller, 0);
        e.set_pb2_string(block, P_SOLVER, solver);
        e.set_pb2_constant(block, P_END, &(mid as i32).to_le_bytes());
        // kEndJointRef follows the parameter.
        e.set_reference(chain.controller, 2, mid as i32);
        // ikPoping's goal runs along its chain's line: turn the start joint's
        // preferred angles off it so that every frame needs a turn.
        let ik = original.tm_controller(chain.joints[0]).expect("IKControl");
        let pb = e.reference(ik, 0);
        let r = chain.rest[0].1;
        for (id, v) in P_REST_ROT.iter().zip([r.x + 0.3, r.y - 0.4, r.z + 0.5]) {
            e.set_pb2_constant(pb, *id, &v.to_le_bytes());
        }
        SceneEval::from_document(e.finish()).expect("scene")
    };
    let limb = rewrite("IKLimb");
    let c = chain_of(&limb);
    assert_eq!(c.joints, chain.joints[..2]);
    let bone = Vec3::from_f32([c.rest[1].0.x, c.rest[1].0.y, c.rest[1].0.z]).len();
    let preferred = expected_at(&limb, &c);
    let (mut worst_dir, mut worst_frame, mut turned, mut fk_gap) =
        (0.0f64, 0.0f64, 0, f64::INFINITY);
    for f in 0..=80 {
        let t = f * 160;
        c.solve_at(&limb, t)
            .unwrap_or_else(|e| panic!("frame {f}: {e}"));
        let start = limb.world_tm(c.joints[0], t);
        let s = start.0[3];
        let end = limb.world_tm(c.joints[1], t).0[3];
        let g = c.goal_world(&limb, t).0[3].minus(s).normalized();
        // The end joint on the goal line at the bone's length.
        worst_dir = worst_dir.max(dist(end, s.plus(g.scale(bone))));
        // The start joint's axes: the preferred ones turned about b0 ^ g.
        let pref = preferred(t);
        let b0 = pref[1].0[3].minus(s).normalized();
        let axis = b0.cross(g);
        let angle = b0.dot(g).clamp(-1.0, 1.0).acos();
        if angle > 0.05 {
            turned += 1;
            let axis = axis.normalized();
            for i in 0..3 {
                let want = turn(pref[0].0[i], axis, angle);
                worst_frame = worst_frame.max(start.0[i].minus(want).len());
            }
            // FK puts the end joint elsewhere.
            let ik = limb.tm_controller(c.joints[0]).expect("IKControl");
            let prs = pblock::reference(&limb.graph, ik, 1).expect("FK controller");
            let parent = limb.graph.objects[c.joints[0]]
                .node
                .as_ref()
                .and_then(|n| n.parent)
                .map_or(Mat43::IDENTITY, |p| limb.world_tm(p as usize, t));
            let fk_start = limb.prs_tm(prs, t).expect("FK PRS").then(&parent);
            let ik1 = limb.tm_controller(c.joints[1]).expect("IKControl");
            let prs1 = pblock::reference(&limb.graph, ik1, 1).expect("FK controller");
            let fk_end = limb.prs_tm(prs1, t).expect("FK PRS").then(&fk_start).0[3];
            fk_gap = fk_gap.min(dist(fk_end, end));
        }
    }
    eprintln!(
        "IKLimb, 2 joints (bone {bone:.2}): end joint within {worst_dir:.2e} of the goal \
         line, axes within {worst_frame:.2e} of the shortest turn ({turned} frames turned), \
         FK end joint at least {fk_gap:.2} away"
    );
    assert!(turned > 10);
    assert!(worst_dir < 1e-4 * bone, "{worst_dir}");
    assert!(worst_frame < 1e-4, "{worst_frame}");
    assert!(fk_gap > 1e-2 * bone, "{fk_gap}");
    assert!(!scene_gaps(&limb)
        .iter()
        .any(|g| g.class.starts_with("IKChainControl")));
    // The HI path takes 3 joints only: the same chain under the HI solver's
    // name is refused by name.
    let hi = rewrite("IKHISolver");
    let gaps = scene_gaps(&hi);
    assert!(
        gaps.iter()
            .any(|g| g.class.contains("the HI solver takes 3")),
        "{gaps:?}"
    );
}
