//! Max's Z-up row-vector matrices as glTF's Y-up column-vector TRS: axis
//! conversion, decomposition, and the shear residual glTF cannot store.

use std::collections::BTreeMap;

use maxfs_scene::eval::{Mat43, SceneEval, Vec3};

/// A Max row-vector matrix as a glTF column-vector 3×4 ([row][col], column 3 =
/// translation) in glTF axes: A·M·Aᵀ with A (x, y, z) → (x, z, −y).
#[inline(never)]
pub fn to_gltf(m: &Mat43) -> [[f64; 4]; 3] {
    let r = m.rows();
    let a = |v: [f64; 3]| [v[0], v[2], -v[1]];
    let cols = [a(r[0]), a(r[2]), a(r[1]).map(|v| -v), a(r[3])];
    let mut o = [[0.0; 4]; 3];
    for (i, row) in o.iter_mut().enumerate() {
        for (j, c) in cols.iter().enumerate() {
            row[j] = c[i];
        }
    }
    o
}

/// A glTF-axes matrix with its translation converted to metres.
#[inline(never)]
pub(super) fn metres(mut m: [[f64; 4]; 3], metres_per_unit: f64) -> [[f64; 4]; 3] {
    for row in &mut m {
        row[3] *= metres_per_unit;
    }
    m
}

/// Translation, rotation (x, y, z, w) and scale of a glTF-axes matrix, and
/// whether T·R·S reproduces it (false with shear).
#[inline(never)]
pub(super) fn decompose(m: &[[f64; 4]; 3]) -> ([f64; 3], [f64; 4], [f64; 3], bool) {
    let t = [m[0][3], m[1][3], m[2][3]];
    let col = |j: usize| [m[0][j], m[1][j], m[2][j]];
    let len = |c: [f64; 3]| (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
    let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    let mut s = [len(col(0)), len(col(1)), len(col(2))];
    if det < 0.0 {
        s[0] = -s[0];
    }
    if s.iter().any(|v| v.abs() < 1e-12 || !v.is_finite()) {
        return (sanitize3(t), [0.0, 0.0, 0.0, 1.0], [1.0; 3], false);
    }
    let mut r = [[0.0; 3]; 3];
    for (i, row) in r.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = m[i][j] / s[j];
        }
    }
    let q = quat_from_rows(&r);
    // Rebuild and compare.
    let rr = rows_from_quat(q);
    let mut exact = true;
    for i in 0..3 {
        for j in 0..3 {
            let scale = m[i][j].abs().max(1.0);
            if (rr[i][j] * s[j] - m[i][j]).abs() > 1e-5 * scale {
                exact = false;
            }
        }
    }
    (sanitize3(t), q, s, exact)
}

#[inline(never)]
pub(super) fn sanitize3(v: [f64; 3]) -> [f64; 3] {
    v.map(|x| if x.is_finite() { x } else { 0.0 })
}

#[inline(never)]
pub(super) fn quat_from_rows(r: &[[f64; 3]; 3]) -> [f64; 4] {
    let tr = r[0][0] + r[1][1] + r[2][2];
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [
            (r[2][1] - r[1][2]) / s,
            (r[0][2] - r[2][0]) / s,
            (r[1][0] - r[0][1]) / s,
            0.25 * s,
        ]
    } else if r[0][0] > r[1][1] && r[0][0] > r[2][2] {
        let s = (1.0 + r[0][0] - r[1][1] - r[2][2]).max(0.0).sqrt() * 2.0;
        [
            0.25 * s,
            (r[0][1] + r[1][0]) / s,
            (r[0][2] + r[2][0]) / s,
            (r[2][1] - r[1][2]) / s,
        ]
    } else if r[1][1] > r[2][2] {
        let s = (1.0 + r[1][1] - r[0][0] - r[2][2]).max(0.0).sqrt() * 2.0;
        [
            (r[0][1] + r[1][0]) / s,
            0.25 * s,
            (r[1][2] + r[2][1]) / s,
            (r[0][2] - r[2][0]) / s,
        ]
    } else {
        let s = (1.0 + r[2][2] - r[0][0] - r[1][1]).max(0.0).sqrt() * 2.0;
        [
            (r[0][2] + r[2][0]) / s,
            (r[1][2] + r[2][1]) / s,
            0.25 * s,
            (r[1][0] - r[0][1]) / s,
        ]
    };
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    if n > 1e-12 && n.is_finite() {
        q.map(|v| v / n)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

#[inline(never)]
pub(super) fn rows_from_quat(q: [f64; 4]) -> [[f64; 3]; 3] {
    let [x, y, z, w] = q;
    maxfs_scene::eval::Quat { x, y, z, w }.to_column_matrix()
}

#[inline(never)]
pub(super) fn f3(v: [f64; 3]) -> [f32; 3] {
    v.map(|x| x as f32)
}

#[inline(never)]
pub(super) fn clamp01(v: f32) -> f32 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Parent of each node (indices into `nodes`), with cycles broken.
#[inline(never)]
/// A glTF-axes matrix back in Max axes (the inverse of [`to_gltf`]).
pub(super) fn from_gltf(o: &[[f64; 4]; 3]) -> Mat43 {
    let col = |j: usize| [o[0][j], o[1][j], o[2][j]];
    let max = |w: [f64; 3]| Vec3(w[0], -w[2], w[1]);
    Mat43([
        max(col(0)),
        max(col(2).map(|v| -v)),
        max(col(1)),
        max(col(3)),
    ])
}

/// Local TMs glTF can store. glTF nodes hold translation, rotation and scale
/// only (a `matrix` must decompose into them), but a Max local TM shears when a
/// scale acts about a rotated axis. Such a node keeps its nearest TRS and hands
/// the rest, a linear residual X with L = X·TRS, to what it carries: its mesh
/// is built through X and its children's local TMs start with X, so every world
/// position stays what Max computes. Animated nodes are sampled as TRS and keep
/// no residual. Returns the local TM per position of `nodes` and the residual
/// per object index.
pub(super) fn trs_locals(
    eval: &SceneEval,
    nodes: &[usize],
    parent: &[Option<usize>],
    animated: &BTreeMap<usize, Vec<i32>>,
) -> (Vec<Mat43>, BTreeMap<usize, Mat43>) {
    let mut local: Vec<Option<Mat43>> = vec![None; nodes.len()];
    let mut residual: Vec<Option<Mat43>> = vec![None; nodes.len()];
    for start in 0..nodes.len() {
        // Parents first (the parent vector has no cycles).
        let mut chain = vec![start];
        while let Some(p) = parent[*chain.last().unwrap_or(&start)] {
            if local[p].is_some() || chain.len() > nodes.len() {
                break;
            }
            chain.push(p);
        }
        for &i in chain.iter().rev() {
            if local[i].is_some() {
                continue;
            }
            let n = nodes[i];
            let mut l = eval.local_tm(n, 0);
            if let Some(x) = parent[i].and_then(|p| residual[p].as_ref()) {
                l = l.then(x);
            }
            if !animated.contains_key(&n) {
                let (t, q, s, exact) = decompose(&to_gltf(&l));
                if !exact {
                    let r = rows_from_quat(q);
                    let mut p = [[0.0; 4]; 3];
                    for (row, (rr, tt)) in p.iter_mut().zip(r.iter().zip(t)) {
                        for j in 0..3 {
                            row[j] = rr[j] * s[j];
                        }
                        row[3] = tt;
                    }
                    let trs = from_gltf(&p);
                    residual[i] = Some(l.then(&maxfs_scene::eval::core::transform::invert(&trs)));
                }
            }
            local[i] = Some(l);
        }
    }
    let residual = nodes
        .iter()
        .zip(residual)
        .filter_map(|(&n, x)| x.map(|x| (n, x)))
        .collect();
    (
        local
            .into_iter()
            .map(|l| l.unwrap_or(Mat43::IDENTITY))
            .collect(),
        residual,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gltf_axes_convert_back_exactly() {
        let m = Mat43([
            Vec3(0.8, 0.3, -0.1),
            Vec3(-0.2, 1.7, 0.4),
            Vec3(0.05, -0.6, 2.5),
            Vec3(10.0, -20.0, 30.0),
        ]);
        let back = from_gltf(&to_gltf(&m));
        for (a, b) in back.rows().iter().flatten().zip(m.rows().iter().flatten()) {
            assert!((a - b).abs() < 1e-12, "{back:?} vs {m:?}");
        }
    }

    #[test]
    fn a_shear_splits_into_a_trs_and_a_linear_residual() {
        // Non-uniform scale about a rotated axis, then a rotation and a move.
        let s = Mat43([
            Vec3(2.0, 0.0, 0.0),
            Vec3(0.0, 0.5, 0.0),
            Vec3(0.0, 0.0, 1.0),
            Vec3::default(),
        ]);
        let q = Mat43::rot_z(0.6);
        let l = invert_rot(&q)
            .then(&s)
            .then(&q)
            .then(&Mat43::rot_z(0.3))
            .then(&Mat43::translation(Vec3(1.0, 2.0, 3.0)));
        let (t, r, sc, exact) = decompose(&to_gltf(&l));
        assert!(!exact, "the test matrix shears");
        let rr = rows_from_quat(r);
        let mut p = [[0.0; 4]; 3];
        for i in 0..3 {
            for j in 0..3 {
                p[i][j] = rr[i][j] * sc[j];
            }
            p[i][3] = t[i];
        }
        let trs = from_gltf(&p);
        let x = l.then(&maxfs_scene::eval::core::transform::invert(&trs));
        // X carries no translation, and X·TRS gives L back.
        assert!(x.rows()[3].iter().all(|v| v.abs() < 1e-9), "{x:?}");
        let back = x.then(&trs);
        for (a, b) in back.rows().iter().flatten().zip(l.rows().iter().flatten()) {
            assert!((a - b).abs() < 1e-9);
        }
    }

    fn invert_rot(m: &Mat43) -> Mat43 {
        maxfs_scene::eval::core::transform::invert(m)
    }
}
