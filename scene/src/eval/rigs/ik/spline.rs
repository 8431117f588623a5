//! The spline IK solver of seed 000 §4: the chain's joints are placed on a
//! spline one bone length apart by marching the curve parameter `u` with the
//! reference's exact float increments (coarse to fine, with backtracking),
//! then each bone is aimed along the curve, twisted by its share of the
//! start/end twist, and written back as Euler angles relative to its parent.
//!
//! The spline itself comes in through [`SplinePath`] (the scene's shapes are
//! evaluated elsewhere); the chain through [`SplineChain`], the joint
//! iterator's data at the initial angles.

use super::primitives::{FLT_EPSILON, M3, P3, Q4};
use super::SolveError;

/// The coarse, medium and fine parameter increments (exact float literals).
pub const STEP1: f32 = 0.001;
pub const STEP2: f32 = 0.0001;
pub const STEP3: f32 = 0.000001;

/// Iterations one solve may take before it is refused: far above what the
/// marching needs (at most about 10⁶ fine steps per phase), so only a
/// non-finite or hostile input reaches it — bad input never hangs.
const MAX_ITERATIONS: usize = 20_000_000;

/// The curve the chain follows: position at parameter `u ∈ [0, 1]`
/// (`SplinePosAt(u, 1)`, in the goal node's object space) and whether it
/// is closed.
pub trait SplinePath {
    fn pos_at(&self, u: f32) -> P3;
    fn closed(&self) -> bool;
}

/// One joint as the joint iterator reports it at its initial angles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplineJoint {
    /// `ProximalFrame()`: the joint's frame before its own rotation.
    pub proximal_frame: M3,
    /// `GetJointAxes()`: up to three of `x`, `y`, `z`, `_` for none.
    pub axes: [u8; 3],
    /// `GetJointAngles()`: (x, y, z) radians.
    pub angles: P3,
    /// `Pivot()` and `DistalEnd()`: the bone's ends, chain space.
    pub pivot: P3,
    pub distal_end: P3,
}

/// A spline IK chain: its joints (one bone each, root first) and the goal's
/// data.
#[derive(Debug, Clone, PartialEq)]
pub struct SplineChain {
    pub joints: Vec<SplineJoint>,
    /// `linkChain.parentMatrix`: chain space to world.
    pub parent_matrix: M3,
    /// `TwistParent()`: the frame the twist reference is expressed in.
    pub twist_parent: M3,
    /// The goal node's object TM at the solve time (`GetObjectTM`).
    pub goal_object_tm: M3,
    pub start_twist: f32,
    pub end_twist: f32,
}

/// Per-bone axes in each joint's local frame (§4.1).
#[derive(Debug, Clone, PartialEq)]
pub struct BoneAxes {
    pub axes: Vec<P3>,
    pub co_axes: Vec<P3>,
    pub lengths: Vec<f32>,
    pub chain_length: f32,
    /// The twist reference in chain space, unit length (§4.4).
    pub twist_up: P3,
}

/// What a solve produced: the joint points found on the spline (`u`, point),
/// each bone's global frame, and the Euler XYZ triple each joint receives.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SplineSolution {
    pub points: Vec<(f32, P3)>,
    pub frames: Vec<M3>,
    pub angles: Vec<P3>,
}

/// Index of the largest |component|; strict `<`, so ties keep the earlier axis.
pub fn dominant_axis(p: P3) -> usize {
    let mut ei = 0;
    let mut max_abs = f64::from(p.x).abs() as f32;
    if max_abs < f64::from(p.y).abs() as f32 {
        ei = 1;
        max_abs = f64::from(p.y).abs() as f32;
    }
    if max_abs < f64::from(p.z).abs() as f32 {
        ei = 2;
    }
    ei
}

/// Chain axis, twist and chain up vectors, and every bone's axis, co-axis and
/// length (§4.1). `None` for a chain without joints.
pub fn bone_axes(chain: &SplineChain, zero_map: &dyn Fn(P3) -> P3) -> Option<BoneAxes> {
    let first = chain.joints.first()?.pivot;
    let last = chain.joints.last()?.distal_end;
    // Never normalized: the raw vector goes to the zero map.
    let chain_axis = last.minus(first);
    let mut twist_up = zero_map(chain_axis);
    let mut chain_up = twist_up;
    let to_chain = chain.parent_matrix.inverse();
    twist_up = twist_up.vector_transform(&chain.twist_parent);
    twist_up = twist_up.vector_transform(&to_chain);
    chain_up = chain_up.vector_transform(&to_chain);
    twist_up.unify();
    chain_up.unify();

    let mut out = BoneAxes {
        axes: Vec::with_capacity(chain.joints.len()),
        co_axes: Vec::with_capacity(chain.joints.len()),
        lengths: Vec::with_capacity(chain.joints.len()),
        chain_length: 0.0,
        twist_up,
    };
    for j in &chain.joints {
        let mut mat = j.proximal_frame;
        for i in (0..3).rev() {
            match j.axes[i] {
                b'_' => break,
                b'x' => mat.pre_rotate(0, j.angles.x),
                b'y' => mat.pre_rotate(1, j.angles.y),
                b'z' => mat.pre_rotate(2, j.angles.z),
                _ => {}
            }
        }
        let mat = mat.inverse();
        let mut axis = j.distal_end.transform(&mat);
        axis.unify();
        let ei = dominant_axis(axis);
        let bone_up = chain_up.vector_transform(&mat);
        let mut co = bone_up.cross(axis);
        if co.length_unify() < 100.0 * FLT_EPSILON {
            co = P3::unit((ei + 2) % 3).cross(axis);
            co.unify();
        }
        let co = axis.cross(co);
        out.axes.push(axis);
        out.co_axes.push(co);
        let len = j.distal_end.minus(j.pivot).flength();
        out.lengths.push(len);
        out.chain_length += len;
    }
    Some(out)
}

/// The three marching thresholds for a bone of length `l`: the first bone
/// divides by 7, later ones by 5.
fn thresholds(l: f32, first: bool) -> (f32, f32, f32) {
    (if first { l / 7.0 } else { l / 5.0 }, l / 50.0, l / 100.0)
}

/// The step along u towards a point still `short` away: the coarsest whose
/// threshold `short` exceeds (compared in double precision, as the
/// reference does), None within the finest (arrived).
fn step_for(short: f64, (eps1, eps2, eps3): (f32, f32, f32)) -> Option<f32> {
    if short > f64::from(eps1) {
        Some(STEP1)
    } else if short > f64::from(eps2) {
        Some(STEP2)
    } else if short > f64::from(eps3) {
        Some(STEP3)
    } else {
        None
    }
}

/// Counts iterations and refuses to go past [`MAX_ITERATIONS`].
struct Budget(usize);

impl Budget {
    fn tick(&mut self) -> Result<(), SolveError> {
        self.0 += 1;
        if self.0 > MAX_ITERATIONS {
            return Err(SolveError::NoProgress);
        }
        Ok(())
    }
}

/// Marches the spline and returns the joint points (§4.2–4.3).
pub fn march(
    path: &dyn SplinePath,
    to_joint: &M3,
    first_joint: P3,
    lengths: &[f32],
) -> Result<Vec<(f32, P3)>, SolveError> {
    let mut points = Vec::with_capacity(lengths.len() + 1);
    let Some(&l0) = lengths.first() else {
        return Ok(points);
    };
    let sample = |u: f32| path.pos_at(u).transform(to_joint);
    let mut budget = Budget(0);
    let (mut eps1, mut eps2, mut eps3) = thresholds(l0, true);

    // The first joint: the first point within eps3 of the chain's first pivot.
    let mut u = 0f32;
    let mut u_last = 0f32;
    let (mut u_best, mut dist_best, mut best) = (0f32, f32::MAX, P3::ZERO);
    let (mut u_before_best, mut u_after_best, mut flag) = (0f32, 0f32, false);
    let mut start = None;
    while u <= 1.0 {
        budget.tick()?;
        let s = sample(u);
        let dist = s.minus(first_joint).flength();
        if dist < dist_best {
            (u_best, dist_best, best, u_before_best, flag) = (u, dist, s, u_last, true);
        }
        u_last = u;
        if let Some(step) = step_for(f64::from(dist), (eps1, eps2, eps3)) {
            u += step;
        } else {
            points.push((u, s));
            start = Some(s);
            break;
        }
        if flag {
            u_after_best = u;
            flag = false;
        }
    }
    let mut start = match start {
        Some(s) => s,
        None => {
            // No convergence: refine around the best sample, finest step.
            let u_best_initial = u_best;
            let rescan = |u: f32, best_state: &mut (f32, f32, P3)| {
                let s = sample(u);
                let dist = s.minus(first_joint).flength();
                if dist < best_state.1 {
                    *best_state = (u, dist, s);
                }
            };
            let mut state = (u_best, dist_best, best);
            u = u_before_best + STEP3;
            while u < u_best_initial {
                budget.tick()?;
                rescan(u, &mut state);
                u += STEP3;
            }
            if state.0 >= u_best_initial {
                while u < u_after_best {
                    budget.tick()?;
                    rescan(u, &mut state);
                    u += STEP3;
                }
            }
            (u_best, best) = (state.0, state.2);
            // (The reference computes an offset to the true first joint here
            // and never uses it.)
            u = u_best;
            points.push((u, best));
            best
        }
    };

    let n = lengths.len();
    let mut j = 0usize;
    let mut u_prev = u;
    let accept = |u: f32, s: P3, j: &mut usize, points: &mut Vec<(f32, P3)>| {
        points.push((u, s));
        *j += 1;
        s
    };
    if path.closed() {
        // Closed: u wraps at 1; du bounds one bone's search to one lap.
        let mut du = 0f32;
        let wrap = |u: f32| if f64::from(u) > 1.0 { u - 1.00 } else { u };
        while du <= 1.0 && j < n {
            budget.tick()?;
            let s = sample(u);
            let dist = s.minus(start).flength();
            let short = f64::from(lengths[j]) - f64::from(dist);
            let over = f64::from(dist) - f64::from(lengths[j]);
            if let Some(step) = step_for(short, (eps1, eps2, eps3)) {
                u_prev = u;
                u = wrap(u + step);
                du += step;
            } else {
                let retry = if over > f64::from(eps3) {
                    let step = if u > u_prev {
                        u - u_prev
                    } else {
                        (1.0 + f64::from(u) - f64::from(u_prev)) as f32
                    };
                    if step == STEP1 {
                        Some((STEP2, f64::from(STEP2) - f64::from(STEP1)))
                    } else if step == STEP2 {
                        Some((STEP3, f64::from(STEP3) - f64::from(STEP2)))
                    } else {
                        None
                    }
                } else {
                    None
                };
                match retry {
                    Some((step, back)) => {
                        u = u_prev + step;
                        du = (f64::from(du) + back) as f32;
                        if u > 1.0 {
                            u -= 1.0;
                        }
                    }
                    None => {
                        // Accepted (converged, or gave up refining); u_prev
                        // stays — the closed variant does not update it.
                        start = accept(u, s, &mut j, &mut points);
                        du = 0.0;
                        if j < n {
                            (eps1, eps2, eps3) = thresholds(lengths[j], false);
                        }
                    }
                }
            }
        }
    } else {
        while u <= 1.0 && j < n {
            budget.tick()?;
            let s = sample(u);
            let dist = s.minus(start).flength();
            let short = f64::from(lengths[j]) - f64::from(dist);
            let over = f64::from(dist) - f64::from(lengths[j]);
            if let Some(step) = step_for(short, (eps1, eps2, eps3)) {
                u_prev = u;
                u += step;
            } else {
                if over > f64::from(eps3) {
                    // Overshot: retry the last step finer, if it was a coarse
                    // one (exact float equality, as the reference tests it).
                    let step = u - u_prev;
                    if step == STEP1 {
                        u = u_prev + STEP2;
                        continue;
                    } else if step == STEP2 {
                        u = u_prev + STEP3;
                        continue;
                    }
                }
                start = accept(u, s, &mut j, &mut points);
                u_prev = u;
                if j < n {
                    (eps1, eps2, eps3) = thresholds(lengths[j], false);
                }
            }
        }
    }
    Ok(points)
}

/// Solves the chain onto the spline. An empty chain, or a march that records
/// no point, leaves an empty solution (the chain untouched, as the reference).
pub fn solve(
    chain: &SplineChain,
    path: &dyn SplinePath,
    zero_map: &dyn Fn(P3) -> P3,
) -> Result<SplineSolution, SolveError> {
    let Some(bones) = bone_axes(chain, zero_map) else {
        return Ok(SplineSolution::default());
    };
    let to_joint = chain.goal_object_tm.mul(&chain.parent_matrix.inverse());
    let first_joint = chain.joints[0].pivot;
    let points = march(path, &to_joint, first_joint, &bones.lengths)?;
    if points.is_empty() {
        return Ok(SplineSolution::default());
    }
    let (frames, angles) = bone_frames(
        &bones,
        &points,
        &|u| path.pos_at(u).transform(&to_joint),
        chain.start_twist,
        chain.end_twist,
    );
    Ok(SplineSolution {
        points,
        frames,
        angles,
    })
}

/// Twist of bone `b` of `n` (§4.5): the start twist plus its share of the end
/// twist, in the register, rounded once.
pub fn bone_twist(start: f32, end: f32, b: usize, n: usize) -> f32 {
    if b == 0 {
        return start;
    }
    let share = f64::from(end) / (n as f64 - 1.0);
    (f64::from(start) + share * b as f64) as f32
}

/// Frames and Euler triples of every bone (§4.5). `points` is not empty.
pub fn bone_frames(
    bones: &BoneAxes,
    points: &[(f32, P3)],
    sample: &dyn Fn(f32) -> P3,
    start_twist: f32,
    end_twist: f32,
) -> (Vec<M3>, Vec<P3>) {
    let n = bones.axes.len();
    let u_count = points.len();
    let mut frames: Vec<M3> = Vec::with_capacity(n);
    let mut angles = Vec::with_capacity(n);
    let mut dir = P3::ZERO;
    for b in 0..n {
        let twist = bone_twist(start_twist, end_twist, b, n);
        // Past the last point found the previous direction carries over.
        if b + 1 == u_count {
            dir = sample(1.00).minus(points[b].1).normalize();
        } else if b == u_count {
            dir = sample(1.0).minus(sample(0.99)).normalize();
        } else if b < u_count {
            dir = points[b + 1].1.minus(points[b].1).normalize();
        }
        let axis = bones.axes[b];
        let co = bones.co_axes[b];
        let i = dominant_axis(axis);
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        let mut basis = M3::IDENTITY;
        basis.set_row(i, axis);
        basis.set_row(k, co);
        basis.set_row(j, co.cross(axis));
        basis.set_row(3, P3::ZERO);
        // Inverted: it takes the joint's local bone axis to unit axis i.
        let basis_inv = basis.inverse();

        let mut global = M3::IDENTITY;
        global.set_row(i, dir);
        let mut norm = bones.twist_up.cross(dir);
        if norm.length_unify() < 100.0 * FLT_EPSILON {
            norm = P3::unit(k).cross(dir);
            norm.unify();
        }
        global.set_row(j, norm);
        global.set_row(k, dir.cross(norm));
        let mut global = basis_inv.mul(&global);

        let rotation = Q4::from_ang_axis(axis, twist).conjugate();
        let local = match frames.last() {
            None => {
                global = rotation.pre_apply_to(&global);
                global
            }
            Some(parent) => {
                let local = rotation.pre_apply_to(&global.mul(&parent.inverse()));
                global = local.mul(parent);
                local
            }
        };
        frames.push(global);
        angles.push(local.to_euler_xyz());
    }
    (frames, angles)
}
