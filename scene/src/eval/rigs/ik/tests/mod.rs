//! Solver tests from the text of seed 000: every expected value is derived by
//! hand from the spec's formulas and geometric statements (law of cosines,
//! swivel plane, spacing bands of the march), never from the solver's output.

mod hi_limb;
mod joint_flags;
mod limb;
mod primitives;
mod spline;
mod spline_chain;

use super::primitives::{p3, P3};

/// f64 geometry for expected values.
pub type V = [f64; 3];

pub fn v(p: P3) -> V {
    [p.x.into(), p.y.into(), p.z.into()]
}

pub fn f(a: V) -> P3 {
    p3(a[0] as f32, a[1] as f32, a[2] as f32)
}

pub fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub fn scale(a: V, k: f64) -> V {
    [a[0] * k, a[1] * k, a[2] * k]
}

pub fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn len(a: V) -> f64 {
    dot(a, a).sqrt()
}

pub fn unit(a: V) -> V {
    scale(a, 1.0 / len(a))
}

/// Rodrigues: `x` turned by `angle` about unit `axis`, right-hand rule.
pub fn rot(x: V, axis: V, angle: f64) -> V {
    let (s, c) = angle.sin_cos();
    add(
        add(scale(x, c), scale(cross(axis, x), s)),
        scale(axis, dot(axis, x) * (1.0 - c)),
    )
}

#[track_caller]
pub fn close(a: V, b: V, tol: f64) {
    assert!(len(sub(a, b)) <= tol, "{a:?} vs {b:?} (tolerance {tol})");
}
