//! The node's default position, rotation and scale as `CExportNel::decompMatrix`
//! writes them: Max's `decomp_affine` (polar decomposition) of the local matrix,
//! with NeL's quaternion convention (the w sign flipped).
//!
//! For the matrices nodes carry (rotation times a positive or mirrored scale,
//! no shear) the polar decomposition is the orthonormalized axes; the scale is
//! the axis lengths, negated when the matrix mirrors.

use maxfs_scene::eval::Mat43;

/// Default tracks of a mesh base, in f32 as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Defaults {
    pub pos: [f32; 3],
    pub rot: [f32; 4],
    pub scale: [f32; 3],
}

/// Decomposes a Max (row-vector) matrix: rows 0..2 are the axes, row 3 the position.
pub fn decompose(m: &Mat43) -> Defaults {
    let rows = m.rows();
    let axes = [rows[0], rows[1], rows[2]];
    let len = |a: [f64; 3]| (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    let det = m.determinant3();
    let flip = if det < 0.0 { -1.0 } else { 1.0 };
    let mut s = [0.0f64; 3];
    let mut r = [[0.0f64; 3]; 3];
    for i in 0..3 {
        let l = len(axes[i]);
        s[i] = l * flip;
        for j in 0..3 {
            r[i][j] = if l > 0.0 { axes[i][j] / s[i] } else { 0.0 };
        }
    }
    // `r` rows are the rotated axes (Max layout). In NeL's column layout the
    // same matrix has M[j][i] = r[i][j].
    let c = |row: usize, col: usize| r[col][row];
    let trace = c(0, 0) + c(1, 1) + c(2, 2);
    // Shoemake's Qt_FromMatrix on NeL's matrix; NeL's stored quaternion is its
    // negation on the trace branch (decompMatrix flips w of Max's conjugate).
    let q: [f64; 4] = if trace >= 0.0 {
        let t = (trace + 1.0).sqrt();
        let w = 0.5 * t;
        let k = 0.5 / t;
        let q = [
            (c(2, 1) - c(1, 2)) * k,
            (c(0, 2) - c(2, 0)) * k,
            (c(1, 0) - c(0, 1)) * k,
            w,
        ];
        [-q[0], -q[1], -q[2], -q[3]]
    } else {
        let mut h = 0;
        if c(1, 1) > c(0, 0) {
            h = 1;
        }
        if c(2, 2) > c(h, h) {
            h = 2;
        }
        let (i, j, k) = match h {
            0 => (0, 1, 2),
            1 => (1, 2, 0),
            _ => (2, 0, 1),
        };
        let t = (c(i, i) - (c(j, j) + c(k, k)) + 1.0).sqrt();
        let mut q = [0.0; 4];
        q[i] = 0.5 * t;
        let u = 0.5 / t;
        q[j] = (c(i, j) + c(j, i)) * u;
        q[k] = (c(k, i) + c(i, k)) * u;
        q[3] = (c(k, j) - c(j, k)) * u;
        q
    };
    Defaults {
        pos: [rows[3][0] as f32, rows[3][1] as f32, rows[3][2] as f32],
        rot: q.map(|x| x as f32),
        scale: s.map(|x| x as f32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use maxfs_scene::eval::{Quat, Vec3};

    #[test]
    fn identity_gives_nel_minus_one_w() {
        let d = decompose(&Mat43::translation(Vec3(1.0, 2.0, 3.0)));
        assert_eq!(d.pos, [1.0, 2.0, 3.0]);
        assert_eq!(d.scale, [1.0, 1.0, 1.0]);
        let z = (-0.0f32).to_bits();
        assert_eq!(d.rot.map(f32::to_bits), [z, z, z, (-1.0f32).to_bits()]);
    }

    #[test]
    fn scaled_rotation_round_trips() {
        let q = Quat::from_axis_angle(Vec3(0.0, 0.0, 1.0), 2.5);
        let m = Mat43::scaling(Vec3(2.0, 3.0, 4.0)).then(&Mat43::rotation(q));
        let d = decompose(&m);
        assert!((d.scale[0] - 2.0).abs() < 1e-6 && (d.scale[2] - 4.0).abs() < 1e-6);
        let n = (d.rot.iter().map(|x| x * x).sum::<f32>()).sqrt();
        assert!((n - 1.0).abs() < 1e-6);
    }
}
