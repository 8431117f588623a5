//! The HI solver (`"IKHISolver"`) on a two-bone chain, as Max's own results
//! show it (docs/ik.md, "The HI solver's knee"). It differs from the IK Limb
//! computation of [`super::hi_limb`] (the SDK sample seed 000 §3 transcribes)
//! only where the middle joint's rest offsets leave the plane its bend axis
//! is normal to:
//!
//! - **the knee** moves from its preferred Euler XYZ angles along the
//!   steepest path of the start-to-end distance in Euler-angle space (every
//!   angle of the joint moves, in proportion to that distance's derivative
//!   by it) until the distance is the goal's, clamped to the chain's reach;
//!   for a planar chain that path is the bend about the plane's normal, the
//!   IK Limb result;
//! - **the start joint** turns the bent chain, taken at the start joint's
//!   preferred angles, so that its end-effector axis lies on the goal's and
//!   its zero-map normal on the goal's swivelled one: the IK Limb's frame
//!   construction with the bent chain's end-effector axis as the initial
//!   one.
//!
//! The path is integrated by arc length in angle space (RK4) and its end put
//! on the goal's distance by Newton steps along the gradient.

use super::hi_limb::{self, HiChain, HiGoal};
use super::primitives::{p3, M3, P3};
use super::SolveError;

/// Arc-length step of the path, radians of Euler-angle space.
const STEP: f64 = 0.01;
/// The longest path followed (radians): past it the goal's distance is taken
/// as unreachable from the preferred pose (a critical point of the distance).
const MAX_PATH: f64 = 4.0 * std::f64::consts::PI;
/// Newton steps that put the path's end on the goal's distance.
const POLISH: usize = 8;
/// The shortest step taken closing in on the distance's extreme.
const MIN_STEP: f64 = 1e-9;
/// Steps tried at most on one path: the nominal path is MAX_PATH / STEP
/// (about 1,260) steps; shortened steps never grow back, so damaged input
/// could otherwise walk 1e-9 at a time.
const MAX_TRIES: usize = 20_000;

type V3 = [f64; 3];
type R3 = [V3; 3];

fn v_dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Row vector times matrix (`p · M`).
fn v_mul(p: V3, m: &R3) -> V3 {
    [0, 1, 2].map(|j| p[0] * m[0][j] + p[1] * m[1][j] + p[2] * m[2][j])
}

/// The axis rotation of Max's row-vector convention (`x · RotZ(90°) = y`), or
/// its derivative by the angle.
fn rot(axis: usize, a: f64, derivative: bool) -> R3 {
    let (s, c) = a.sin_cos();
    let (j, k) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut m = [[0.0; 3]; 3];
    if derivative {
        m[j][j] = -s;
        m[j][k] = c;
        m[k][j] = -c;
        m[k][k] = -s;
    } else {
        m[axis][axis] = 1.0;
        m[j][j] = c;
        m[j][k] = s;
        m[k][j] = -s;
        m[k][k] = c;
    }
    m
}

/// The middle joint's geometry in the start joint's frame: its offset `k`
/// and the end joint's offset `off` in the middle joint's frame.
struct Knee {
    k: V3,
    off: V3,
}

impl Knee {
    /// The start-to-end distance at Euler XYZ angles `q` (`RotX · RotY ·
    /// RotZ`, x first) and its gradient by the angles.
    fn distance(&self, q: V3) -> (f64, V3) {
        let (rx, ry, rz) = (
            rot(0, q[0], false),
            rot(1, q[1], false),
            rot(2, q[2], false),
        );
        let a = v_mul(self.off, &rx);
        let b = v_mul(a, &ry);
        let c = v_mul(b, &rz);
        let w = [0, 1, 2].map(|i| self.k[i] + c[i]);
        let d = v_dot(w, w).sqrt();
        let dx = v_mul(v_mul(v_mul(self.off, &rot(0, q[0], true)), &ry), &rz);
        let dy = v_mul(v_mul(a, &rot(1, q[1], true)), &rz);
        let dz = v_mul(b, &rot(2, q[2], true));
        let g = [dx, dy, dz].map(|dw| v_dot(w, dw) / d);
        (d, g)
    }

    /// Unit step direction at `q`, up the distance's gradient (`side` 1) or
    /// down it (-1); None at a critical point.
    fn direction(&self, q: V3, side: f64) -> Option<V3> {
        let (_, g) = self.distance(q);
        let n = v_dot(g, g).sqrt();
        // Not above the floor, or NaN.
        if n.partial_cmp(&1e-12) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        Some(g.map(|x| side * x / n))
    }

    /// The knee's angles on the steepest path from `q0` where the distance is
    /// `target`; None when the path meets a critical point short of it or
    /// the data is not finite.
    fn bend(&self, q0: V3, target: f64) -> Option<V3> {
        let mut q = q0;
        let (mut d, _) = self.distance(q);
        let side = (target - d).signum();
        let mut walked = 0.0;
        let mut h = STEP;
        let mut crossed = false;
        let mut tries = 0;
        while (target - d) * side > 0.0 {
            tries += 1;
            if walked > MAX_PATH || tries > MAX_TRIES {
                return None;
            }
            let at = |q: V3, k: V3, h: f64| [0, 1, 2].map(|i| q[i] + h * k[i]);
            let Some(k1) = self.direction(q, side) else {
                // A critical point: the preferred pose straight or folded
                // (nothing to follow), or the path's end at full reach.
                if walked == 0.0 {
                    return None;
                }
                break;
            };
            let rk = self.direction(at(q, k1, h / 2.0), side).and_then(|k2| {
                let k3 = self.direction(at(q, k2, h / 2.0), side)?;
                let k4 = self.direction(at(q, k3, h), side)?;
                Some(
                    [0, 1, 2].map(|i| q[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])),
                )
            });
            let Some(next) = rk else {
                h /= 2.0;
                if h < MIN_STEP {
                    break;
                }
                continue;
            };
            let (dn, _) = self.distance(next);
            if (target - dn) * side <= 0.0 {
                q = next;
                crossed = true;
                break;
            }
            let slope = v_dot(self.distance(q).1, k1) * side;
            if (dn - d) * side < 0.5 * h * slope {
                // Past the distance's extreme (full reach, or folded), or
                // sliding along it (the straight poses differ by a twist):
                // close in on it with shorter steps.
                h /= 2.0;
                if h < MIN_STEP {
                    break;
                }
                continue;
            }
            q = next;
            d = dn;
            walked += h;
        }
        // Newton steps along the gradient put a crossing on the distance;
        // none longer than the last step (near the extreme the gradient
        // vanishes).
        for _ in 0..POLISH {
            if !crossed {
                break;
            }
            let (d, g) = self.distance(q);
            let gg = v_dot(g, g);
            let s = (target - d) / gg;
            let len = s.abs() * gg.sqrt();
            // Longer than the last step, or NaN.
            if !matches!(
                len.partial_cmp(&h),
                Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
            ) {
                break;
            }
            q = [0, 1, 2].map(|i| q[i] + s * g[i]);
        }
        let (d, _) = self.distance(q);
        let finite = q.iter().all(|x| x.is_finite()) && d.is_finite();
        finite.then_some(q)
    }
}

fn v(p: P3) -> V3 {
    [p.x, p.y, p.z].map(f64::from)
}

/// Solves a 3-link HI chain (start joint, the middle joint's Z, Y, X links,
/// the end joint) toward `goal` in place, from the preferred angles.
/// Refused like [`hi_limb::solve`] for other link counts; a goal the path
/// cannot reach from the preferred pose (a straight or folded preferred
/// knee) leaves non-finite angles, which the caller reports.
pub fn solve(chain: &mut HiChain, goal: &HiGoal<'_>) -> Result<(), SolveError> {
    if chain.links.len() != 3 {
        return hi_limb::solve(chain, goal);
    }
    chain.root.rot_xyz = chain.root.init_xyz;
    for l in &mut chain.links {
        l.dof_value = l.init_value;
    }
    let knee = Knee {
        k: v(chain.root.link_matrix(false).trans()),
        off: v(chain.links[2].rigid_extend.trans()),
    };
    let q0 = [
        chain.links[2].init_value,
        chain.links[1].init_value,
        chain.links[0].init_value,
    ]
    .map(f64::from);
    let l1 = chain.first_joint().flength();
    let l2 = chain.end_effector().minus(chain.first_joint()).flength();
    let wrist = hi_limb::clamp_goal(goal.goal.trans(), l1 + l2, l1 - l2);
    let target = f64::from(wrist.flength());
    let Some(q) = knee.bend(q0, target) else {
        chain.root.rot_xyz = p3(f32::NAN, f32::NAN, f32::NAN);
        return Ok(());
    };
    chain.links[0].dof_value = q[2] as f32;
    chain.links[1].dof_value = q[1] as f32;
    chain.links[2].dof_value = q[0] as f32;

    // The bent chain at the start joint's preferred angles: its end-effector
    // axis and zero-map normal are the initial frame.
    let bent = chain.end_effector().normalize();
    let initial = hi_limb::frame(bent, (goal.zero_map)(bent));
    let ee = wrist.normalize();
    let p = (goal.zero_map)(ee);
    let t = hi_limb::target_normal(goal, ee);
    let swivel = hi_limb::swivel_angle(p, t, ee);
    let m2 = M3::rot_angle_axis(ee, swivel);
    let rx = ee.vector_transform(&m2);
    let ry = p.vector_transform(&m2);
    let rz = rx.cross(ry).normalize();
    let solved = M3::from_rows(rx, ry, rz, P3::ZERO);
    hi_limb::write_shoulder(&mut chain.root, &initial, &solved);
    Ok(())
}
