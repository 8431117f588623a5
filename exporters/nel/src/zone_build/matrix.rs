//! The part of NeL's `CMatrix` (misc/matrix.cpp) the landscape tools use: identity, scale,
//! `rotateZ`, `setPos`, products, `inverted` and `mulPoint`, with NeL's state bits, because
//! the bits choose the arithmetic (a scaled matrix is inverted by cofactors in double, a
//! rotation by transposing) and the symmetrisation snaps vertices mapped through these
//! matrices to the cell grid: the operations follow NeL's, value type for value type.

#![allow(
    clippy::needless_range_loop,
    reason = "index loops keep NeL's element-by-element float order visible"
)]

use super::Point;

/// `CMatrix` without the projection row (no landscape tool sets one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Matrix {
    /// `a11..a33`: `m[row][col]`.
    pub m: [[f32; 3]; 3],
    /// `a14, a24, a34`.
    pub t: Point,
    scale33: f32,
    rot: bool,
    scale_uni: bool,
    scale_any: bool,
    trans: bool,
}

impl Default for Matrix {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Matrix {
    /// `CMatrix::Identity`.
    pub const IDENTITY: Matrix = Matrix {
        m: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        t: [0.0; 3],
        scale33: 1.0,
        rot: false,
        scale_uni: false,
        scale_any: false,
        trans: false,
    };

    /// `hasRot()`: any rotation or scale state bit.
    fn has_rot(&self) -> bool {
        self.rot || self.scale_uni || self.scale_any
    }

    /// `setPos`.
    pub fn set_pos(&mut self, v: Point) {
        self.t = v;
        self.trans = v.iter().any(|&c| c != 0.0);
    }

    /// `rotateZ(a)`: the angle's cosine and sine in double, the products rounded to float.
    pub fn rotate_z(&mut self, a: f32) {
        if a == 0.0 {
            return;
        }
        let (ca, sa) = (f64::from(a).cos(), f64::from(a).sin());
        let m = &mut self.m;
        if self.rot || self.scale_uni || self.scale_any {
            for row in m.iter_mut() {
                let (b1, b2) = (f64::from(row[0]), f64::from(row[1]));
                row[0] = (b1 * ca + b2 * sa) as f32;
                row[1] = (b2 * ca - b1 * sa) as f32;
            }
        } else {
            m[0][0] = ca as f32;
            m[1][0] = sa as f32;
            m[2][0] = 0.0;
            m[0][1] = (-sa) as f32;
            m[1][1] = ca as f32;
            m[2][1] = 0.0;
        }
        self.rot = true;
    }

    /// `scale(const CVector &)`: column j times `v[j]`; a uniform vector takes the
    /// uniform-scale path (`Scale33` kept), anything else marks the matrix SCALEANY.
    pub fn scale(&mut self, v: Point) {
        if v == [1.0; 3] {
            return;
        }
        if !self.scale_any && v[0] == v[1] && v[0] == v[2] {
            self.scale_uni = true;
            self.scale33 *= v[0];
            for row in &mut self.m {
                for c in row.iter_mut() {
                    *c *= v[0];
                }
            }
        } else {
            self.scale_any = true;
            for row in &mut self.m {
                for (c, s) in row.iter_mut().zip(v) {
                    *c *= s;
                }
            }
        }
    }

    /// `setMulMatrix(m1, m2)` (`m1 * m2`), without projections.
    pub fn mul(m1: &Matrix, m2: &Matrix) -> Matrix {
        let mut r = Matrix {
            rot: m1.rot || m2.rot,
            scale_uni: m1.scale_uni || m2.scale_uni,
            scale_any: m1.scale_any || m2.scale_any,
            trans: m1.trans || m2.trans,
            ..Matrix::IDENTITY
        };
        let (a, b) = (&m1.m, &m2.m);
        let m1_identity = !m1.has_rot();
        let m2_identity = !m2.has_rot();
        let m1_scale_only = !m1.rot;
        let m2_scale_only = !m2.rot;
        if !m1_identity && !m2_identity && !m1_scale_only && !m2_scale_only {
            for i in 0..3 {
                for j in 0..3 {
                    r.m[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
                }
            }
        } else if m1_identity || m2_identity {
            if !(m1_identity && m2_identity) {
                r.m = if m2_identity { *a } else { *b };
            }
        } else if m1_scale_only && m2_scale_only {
            r.m = [
                [a[0][0] * b[0][0], 0.0, 0.0],
                [0.0, a[1][1] * b[1][1], 0.0],
                [0.0, 0.0, a[2][2] * b[2][2]],
            ];
        } else if m1_scale_only {
            for i in 0..3 {
                for j in 0..3 {
                    r.m[i][j] = a[i][i] * b[i][j];
                }
            }
        } else {
            for i in 0..3 {
                for j in 0..3 {
                    r.m[i][j] = a[i][j] * b[j][j];
                }
            }
        }
        r.scale33 = if r.scale_uni && !r.scale_any {
            m1.scale33 * m2.scale33
        } else {
            1.0
        };
        if r.trans {
            let t = &m2.t;
            r.t = if m1_identity {
                *t
            } else if m1_scale_only {
                [a[0][0] * t[0], a[1][1] * t[1], a[2][2] * t[2]]
            } else {
                std::array::from_fn(|i| a[i][0] * t[0] + a[i][1] * t[1] + a[i][2] * t[2])
            };
            if m1.trans {
                for i in 0..3 {
                    r.t[i] += m1.t[i];
                }
            }
        }
        r
    }

    /// `inverted()`: cofactors in double for SCALEANY, a transpose otherwise (scaled by
    /// 1/Scale33² for a uniform scale), then the translation through the inverted rotation.
    /// A singular matrix gives the identity, as NeL's does.
    pub fn inverted(&self) -> Matrix {
        let mut r = Matrix {
            rot: self.rot,
            scale_uni: self.scale_uni,
            scale_any: self.scale_any,
            trans: self.trans,
            ..Matrix::IDENTITY
        };
        let a = &self.m;
        if self.scale_any {
            let col = |j: usize| [a[0][j], a[1][j], a[2][j]];
            let (i, j, k) = (col(0), col(1), col(2));
            let invi = [
                j[1] * k[2] - k[1] * j[2],
                j[2] * k[0] - k[2] * j[0],
                j[0] * k[1] - k[0] * j[1],
            ];
            let invj = [
                k[1] * i[2] - i[1] * k[2],
                k[2] * i[0] - i[2] * k[0],
                k[0] * i[1] - i[0] * k[1],
            ];
            let invk = [
                i[1] * j[2] - j[1] * i[2],
                i[2] * j[0] - j[2] * i[0],
                i[0] * j[1] - j[0] * i[1],
            ];
            let s = invi[0] * i[0] + invj[0] * j[0] + invk[0] * k[0];
            if s == 0.0 {
                return Matrix::IDENTITY;
            }
            let s = 1.0 / f64::from(s);
            for (row, inv) in [invi, invj, invk].iter().enumerate() {
                for c in 0..3 {
                    r.m[row][c] = (f64::from(inv[c]) * s) as f32;
                }
            }
        } else if self.scale_uni {
            if self.scale33 == 0.0 {
                return Matrix::IDENTITY;
            }
            let big_s = 1.0 / f64::from(self.scale33);
            r.scale33 = big_s as f32;
            let s = big_s * big_s;
            for i in 0..3 {
                for j in 0..3 {
                    r.m[i][j] = (f64::from(a[j][i]) * s) as f32;
                }
            }
        } else {
            for i in 0..3 {
                for j in 0..3 {
                    r.m[i][j] = a[j][i];
                }
            }
        }
        if self.trans {
            let t = &self.t;
            let m = r.m;
            r.t =
                std::array::from_fn(|i| m[i][0] * (-t[0]) + m[i][1] * (-t[1]) + m[i][2] * (-t[2]));
        }
        r
    }

    /// `mulPoint` (`matrix * vector`).
    pub fn mul_point(&self, v: &Point) -> Point {
        let a = &self.m;
        let mut r = if self.has_rot() {
            std::array::from_fn(|i| a[i][0] * v[0] + a[i][1] * v[1] + a[i][2] * v[2])
        } else {
            *v
        };
        if self.trans {
            for i in 0..3 {
                r[i] += self.t[i];
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mirror then a quarter turn and back: NeL's route (SCALEANY, cofactor inverse)
    /// gives the original point within float rounding, and the quarter turn's cosine is
    /// the float of cos(π/2 in float), not zero.
    #[test]
    fn mirror_turn_and_inverse() {
        let mut sym = Matrix::IDENTITY;
        sym.scale([1.0, -1.0, 1.0]);
        let mut rot = Matrix::IDENTITY;
        rot.rotate_z(std::f32::consts::PI / 2.0);
        assert_eq!(
            rot.m[0][0],
            (f64::from(std::f32::consts::PI / 2.0)).cos() as f32
        );
        assert_ne!(rot.m[0][0], 0.0);
        let m = Matrix::mul(&sym, &rot);
        let p = m.mul_point(&[3.0, 5.0, 7.0]);
        assert!((p[0] + 5.0).abs() < 1e-5 && (p[1] + 3.0).abs() < 1e-5 && p[2] == 7.0);
        let back = m.inverted().mul_point(&p);
        for (b, o) in back.iter().zip([3.0, 5.0, 7.0]) {
            assert!((b - o).abs() < 1e-5, "{back:?}");
        }
        let mut tr = Matrix::IDENTITY;
        tr.rotate_z(std::f32::consts::PI);
        tr.set_pos([10.0, 0.0, 0.0]);
        let q = tr.inverted().mul_point(&tr.mul_point(&[1.0, 2.0, 3.0]));
        assert!((q[0] - 1.0).abs() < 1e-5 && (q[1] - 2.0).abs() < 1e-5);
        assert_eq!(Matrix::IDENTITY.inverted(), Matrix::IDENTITY);
    }
}
