//! The IK Limb solver (`"IKLimb"`) in a scene, on ikPoping.max's HI chain
//! rewritten through the project's writer (the corpus holds no IK Limb
//! chain). What is verified (docs/ik.md): at a goal on the preferred pose's
//! end joint with swivel 0, Max shows the preferred pose (a Skin bind taken
//! with an IK Limb chain on, in a public file, equals it; the manual's plane
//! rotation is then the identity). So the chain's preferred angles (IKControl
//! 39–41) are rewritten to a pose whose end joint sits on the goal at one
//! frame: there the joints must take the pose composed from the stored rest
//! offsets and angles, the end joint must be on the goal and the bones keep
//! their lengths, and the HI solver must agree; at every other frame the chain
//! is refused by name and its joints keep their FK transforms.

use maxfs_scene::eval::core::controller::euler_matrix;
use maxfs_scene::eval::core::coverage::scene_gaps;
use maxfs_scene::eval::core::pblock::{self, Value};
use maxfs_scene::eval::rigs::ik::chain::{scene_chains, SceneChain};
use maxfs_scene::eval::rigs::ik::primitives::M3;
use maxfs_scene::eval::{Mat43, SceneEval, Vec3};
use maxfs_tests::rewrite::SceneEdit;

const FILE: &str = "max/ik/ikPoping.max";
/// IKChainControl's solver name, IKControl's rest angles (block parameters).
const P_SOLVER: u16 = 2;
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
fn ik_limb_keeps_the_preferred_pose_at_its_goal_and_is_refused_elsewhere() {
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

    // Elsewhere the goal is away from the preferred end joint: refused by
    // name at those frames, FK there, and the frame above solved.
    let far = (0..=80)
        .map(|f| f * 160)
        .find(|&u| dist(c.goal_world(&limb, u).0[3], expected[2].0[3]) > 0.1 * length)
        .expect("a frame with the goal elsewhere");
    let why = c
        .solve_at(&limb, far)
        .expect_err("refused away from the preferred pose");
    assert!(why.to_string().contains("IKLimb solve"), "{why}");
    assert!(
        why.to_string().contains("preferred pose's end joint"),
        "{why}"
    );
    let gaps = scene_gaps(&limb);
    let gap = gaps
        .iter()
        .find(|g| g.class.starts_with("IKChainControl"))
        .unwrap_or_else(|| panic!("no IKChainControl gap: {gaps:?}"));
    assert!(
        gap.class.contains("not solved at") && gap.class.contains("IKLimb solve"),
        "{}",
        gap.class
    );
    let (ticks, count) = limb.ik_state().fallback_ticks(0);
    assert!(
        count > 0 && ticks.contains(&far) && !ticks.contains(&t),
        "{ticks:?}"
    );
    // The HI version of the same file solves at every frame.
    assert!(!scene_gaps(&hi)
        .iter()
        .any(|g| g.class.starts_with("IKChainControl")));
}
