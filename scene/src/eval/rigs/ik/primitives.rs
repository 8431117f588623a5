//! The solver-local numeric primitives of the IK solvers (seed 000 §1–§2), in
//! the reference build's arithmetic: values are stored as `f32`, expressions are
//! evaluated in `f64` and rounded to `f32` where the x87 reference rounds — at
//! assignments, casts and calls taking `float` parameters. With the reference's
//! 53-bit precision control word an `f64` intermediate is that register, bit for
//! bit, except for its wider exponent range (docs/ik.md says what that means).
//!
//! Matrices are 4×3, row vectors (`p' = p · M`), translation in row 3; `a * b`
//! applies `a` first. Items the spec marks \[CORE\] (implemented in Max's core
//! DLL, not in the solvers) are written as the spec's characterization leads
//! describe and say so in their doc comment.

use std::f64::consts::PI;

/// `FLT_EPSILON`, for the spline solver's explicit thresholds.
pub const FLT_EPSILON: f32 = f32::EPSILON;

/// `acos_safe`: π at or below −1, 0 at or above 1, else the double `acos`;
/// the comparisons are on the float argument, the result stays double (call
/// sites truncate it when they assign it). NaN falls through to `acos(NaN)`.
pub fn acos_safe(x: f32) -> f64 {
    if x <= -1.0 {
        PI
    } else if x >= 1.0 {
        0.0
    } else {
        f64::from(x).acos()
    }
}

/// The SDK float `Sqrt`: x87 `fsqrt` on a 32-bit operand, stored as 32-bit.
/// Rounding first to 53 bits then to 24 equals rounding directly (53 ≥ 2·24+2),
/// so the correctly rounded double root, narrowed, is the same value.
pub fn sqrt_f(a: f32) -> f32 {
    f64::from(a).sqrt() as f32
}

/// `Point3`: three floats.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct P3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// Shorthand constructor.
pub const fn p3(x: f32, y: f32, z: f32) -> P3 {
    P3 { x, y, z }
}

impl P3 {
    pub const ZERO: P3 = p3(0.0, 0.0, 0.0);

    /// `p[i]` (0 → x, 1 → y, 2 → z; anything else → z, never out of bounds).
    pub fn get(self, i: usize) -> f32 {
        match i {
            0 => self.x,
            1 => self.y,
            _ => self.z,
        }
    }

    pub fn set(&mut self, i: usize, v: f32) {
        match i {
            0 => self.x = v,
            1 => self.y = v,
            _ => self.z = v,
        }
    }

    /// The unit vector along axis `i`.
    pub fn unit(i: usize) -> P3 {
        let mut p = P3::ZERO;
        p.set(i, 1.0);
        p
    }

    pub fn plus(self, o: P3) -> P3 {
        p3(self.x + o.x, self.y + o.y, self.z + o.z)
    }

    pub fn minus(self, o: P3) -> P3 {
        p3(self.x - o.x, self.y - o.y, self.z - o.z)
    }

    /// `a * f`: one float product per component.
    pub fn scale(self, f: f32) -> P3 {
        p3(self.x * f, self.y * f, self.z * f)
    }

    /// `x*x + y*y + z*z` in the register (float products are exact in double).
    pub fn sum_sq(self) -> f64 {
        let (x, y, z) = (f64::from(self.x), f64::from(self.y), f64::from(self.z));
        x * x + y * y + z * z
    }

    /// `a % b` / `DotProd`: accumulated in the register, returned as a float.
    pub fn dot(self, o: P3) -> f32 {
        self.dot_reg(o) as f32
    }

    /// The dot product before its final rounding.
    pub fn dot_reg(self, o: P3) -> f64 {
        f64::from(self.x) * f64::from(o.x)
            + f64::from(self.y) * f64::from(o.y)
            + f64::from(self.z) * f64::from(o.z)
    }

    /// `Length()`: CRT double sqrt of the register sum, truncated on return.
    pub fn length(self) -> f32 {
        self.sum_sq().sqrt() as f32
    }

    /// `FLength()`: the sum is rounded to float at `Sqrt`'s float parameter.
    pub fn flength(self) -> f32 {
        sqrt_f(self.sum_sq() as f32)
    }

    /// `CrossProd` / `^` \[CORE\]: the standard formula; each component is two
    /// exact products and one subtraction, rounded once on store.
    pub fn cross(self, o: P3) -> P3 {
        let (ax, ay, az) = (f64::from(self.x), f64::from(self.y), f64::from(self.z));
        let (bx, by, bz) = (f64::from(o.x), f64::from(o.y), f64::from(o.z));
        p3(
            (ay * bz - az * by) as f32,
            (az * bx - ax * bz) as f32,
            (ax * by - ay * bx) as f32,
        )
    }

    /// `Normalize` \[CORE\]: each component divided by `Length()` (the SDK says
    /// so); a zero vector comes back unchanged — the solvers' `== 0.0f` tests
    /// on `LengthUnify` imply no guard rewrites it.
    pub fn normalize(self) -> P3 {
        let l = self.length();
        if l == 0.0 {
            return self;
        }
        p3(self.x / l, self.y / l, self.z / l)
    }

    /// `LengthUnify` \[CORE\]: normalizes in place (as `Normalize`) and returns
    /// the length before, exactly as computed (0 for a zero vector).
    pub fn length_unify(&mut self) -> f32 {
        let l = self.length();
        if l != 0.0 {
            *self = p3(self.x / l, self.y / l, self.z / l);
        }
        l
    }

    /// `Unify` \[CORE\]: `LengthUnify` without the result.
    pub fn unify(&mut self) {
        self.length_unify();
    }

    /// `p * M`: the full affine transform \[CORE\]; each component is one
    /// register sum rounded on store.
    pub fn transform(self, m: &M3) -> P3 {
        let c = |j: usize| {
            (f64::from(self.x) * f64::from(m.m[0][j])
                + f64::from(self.y) * f64::from(m.m[1][j])
                + f64::from(self.z) * f64::from(m.m[2][j])
                + f64::from(m.m[3][j])) as f32
        };
        p3(c(0), c(1), c(2))
    }

    /// `VectorTransform` \[CORE\]: the 3×3 part only, row-vector convention.
    pub fn vector_transform(self, m: &M3) -> P3 {
        let c = |j: usize| {
            (f64::from(self.x) * f64::from(m.m[0][j])
                + f64::from(self.y) * f64::from(m.m[1][j])
                + f64::from(self.z) * f64::from(m.m[2][j])) as f32
        };
        p3(c(0), c(1), c(2))
    }
}

/// `Matrix3`: four rows of three floats. The identity flags of the SDK type are
/// not carried: the spec presumes `ValidateFlags` compares exactly, and then a
/// fast path through an identity block yields the same numbers as the full
/// arithmetic (docs/ik.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct M3 {
    pub m: [[f32; 3]; 4],
}

impl Default for M3 {
    fn default() -> Self {
        M3::IDENTITY
    }
}

impl M3 {
    pub const IDENTITY: M3 = M3 {
        m: [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 0.0],
        ],
    };

    pub fn from_rows(r0: P3, r1: P3, r2: P3, r3: P3) -> M3 {
        M3 {
            m: [r0, r1, r2, r3].map(|r| [r.x, r.y, r.z]),
        }
    }

    /// A matrix with the given 3×3 part (each element rounded on store) and no
    /// translation.
    pub fn from_3x3(m: [[f64; 3]; 3]) -> M3 {
        let [a, b, c] = m.map(|r| r.map(|x| x as f32));
        M3 {
            m: [a, b, c, [0.0; 3]],
        }
    }

    /// A pure translation.
    pub fn translation(t: P3) -> M3 {
        let mut m = M3::IDENTITY;
        m.set_row(3, t);
        m
    }

    /// Row `i` (0–3; anything larger reads row 3).
    pub fn row(&self, i: usize) -> P3 {
        let r = self.m[i.min(3)];
        p3(r[0], r[1], r[2])
    }

    pub fn set_row(&mut self, i: usize, p: P3) {
        self.m[i.min(3)] = [p.x, p.y, p.z];
    }

    pub fn trans(&self) -> P3 {
        self.row(3)
    }

    /// `a * b` \[CORE\]: `a` applies first; each element one register sum.
    pub fn mul(&self, b: &M3) -> M3 {
        let mut r = [[0f32; 3]; 4];
        for (i, row) in r.iter_mut().enumerate() {
            for (j, out) in row.iter_mut().enumerate() {
                let mut s = f64::from(self.m[i][0]) * f64::from(b.m[0][j])
                    + f64::from(self.m[i][1]) * f64::from(b.m[1][j])
                    + f64::from(self.m[i][2]) * f64::from(b.m[2][j]);
                if i == 3 {
                    s += f64::from(b.m[3][j]);
                }
                *out = s as f32;
            }
        }
        M3 { m: r }
    }

    /// `Inverse` \[CORE\]: the affine inverse by cofactors in the register, each
    /// element rounded on store. A singular 3×3 part yields non-finite values
    /// (as a division by a zero determinant does), never a panic.
    pub fn inverse(&self) -> M3 {
        let a = self.m.map(|r| r.map(f64::from));
        let c00 = a[1][1] * a[2][2] - a[1][2] * a[2][1];
        let c01 = a[1][2] * a[2][0] - a[1][0] * a[2][2];
        let c02 = a[1][0] * a[2][1] - a[1][1] * a[2][0];
        let det = a[0][0] * c00 + a[0][1] * c01 + a[0][2] * c02;
        let inv = [
            [
                c00 / det,
                (a[0][2] * a[2][1] - a[0][1] * a[2][2]) / det,
                (a[0][1] * a[1][2] - a[0][2] * a[1][1]) / det,
            ],
            [
                c01 / det,
                (a[0][0] * a[2][2] - a[0][2] * a[2][0]) / det,
                (a[0][2] * a[1][0] - a[0][0] * a[1][2]) / det,
            ],
            [
                c02 / det,
                (a[0][1] * a[2][0] - a[0][0] * a[2][1]) / det,
                (a[0][0] * a[1][1] - a[0][1] * a[1][0]) / det,
            ],
        ];
        let mut r = [[0f32; 3]; 4];
        for i in 0..3 {
            for j in 0..3 {
                r[i][j] = inv[i][j] as f32;
            }
        }
        for j in 0..3 {
            r[3][j] = -(a[3][0] * inv[0][j] + a[3][1] * inv[1][j] + a[3][2] * inv[2][j]) as f32;
        }
        M3 { m: r }
    }

    /// `RotateXMatrix(a)` etc. \[CORE\]: right-handed for row vectors (x·RotZ(90°)
    /// = y), entries the CRT double sine and cosine of the float angle.
    pub fn rotate_axis(axis: usize, a: f32) -> M3 {
        let (s, c) = f64::from(a).sin_cos();
        let (s, c) = (s as f32, c as f32);
        let mut m = M3::IDENTITY;
        let (j, k) = ((axis + 1) % 3, (axis + 2) % 3);
        m.m[j][j] = c;
        m.m[j][k] = s;
        m.m[k][j] = -s;
        m.m[k][k] = c;
        m
    }

    /// `PreRotateX/Y/Z` \[CORE\]: multiplication on the left by the axis rotation.
    pub fn pre_rotate(&mut self, axis: usize, a: f32) {
        *self = M3::rotate_axis(axis, a).mul(self);
    }

    /// `RotAngleAxisMatrix(axis, angle)` \[CORE\]: rotation about a unit axis,
    /// right-handed for row vectors (the axis-z case is `RotateZMatrix`), built
    /// in the register from the float axis and the double sine and cosine.
    pub fn rot_angle_axis(axis: P3, angle: f32) -> M3 {
        let (s, c) = f64::from(angle).sin_cos();
        let t = 1.0 - c;
        let (x, y, z) = (f64::from(axis.x), f64::from(axis.y), f64::from(axis.z));
        let m = [
            [c + t * x * x, t * x * y + s * z, t * x * z - s * y],
            [t * x * y - s * z, c + t * y * y, t * y * z + s * x],
            [t * x * z + s * y, t * y * z - s * x, c + t * z * z],
        ];
        M3::from_3x3(m)
    }

    /// `MatrixToEuler(M, eul, EULERTYPE_XYZ)` \[CORE\]: the angles (x, y, z) with
    /// `M = RotX(x) · RotY(y) · RotZ(z)` in row-vector order (x applies first).
    /// Shoemake's extraction (Graphics Gems IV) on the transposed matrix, in the
    /// register; near gimbal lock (`cos y ≤ 16·FLT_EPSILON`) z is taken as 0.
    pub fn to_euler_xyz(&self) -> P3 {
        let a = self.m.map(|r| r.map(f64::from));
        let cy = (a[0][0] * a[0][0] + a[0][1] * a[0][1]).sqrt();
        if cy > 16.0 * f64::from(FLT_EPSILON) {
            p3(
                a[1][2].atan2(a[2][2]) as f32,
                (-a[0][2]).atan2(cy) as f32,
                a[0][1].atan2(a[0][0]) as f32,
            )
        } else {
            p3(
                (-a[2][1]).atan2(a[1][1]) as f32,
                (-a[0][2]).atan2(cy) as f32,
                0.0,
            )
        }
    }
}

/// `Quat`: x, y, z vector part, w scalar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Q4 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub w: f32,
}

impl Default for Q4 {
    /// The SDK's default constructor is the identity (normative).
    fn default() -> Self {
        Q4 {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0,
        }
    }
}

impl Q4 {
    /// `Conjugate()` \[CORE\]: (−x, −y, −z, w).
    pub fn conjugate(self) -> Q4 {
        Q4 {
            x: -self.x,
            y: -self.y,
            z: -self.z,
            w: self.w,
        }
    }

    /// The solvers' local quaternion × pure-vector product (normative formulas).
    pub fn mul_vec(self, v: P3) -> Q4 {
        let (qx, qy, qz, qw) = (
            f64::from(self.x),
            f64::from(self.y),
            f64::from(self.z),
            f64::from(self.w),
        );
        let (vx, vy, vz) = (f64::from(v.x), f64::from(v.y), f64::from(v.z));
        Q4 {
            w: (-qx * vx - qy * vy - qz * vz) as f32,
            x: (qw * vx + qy * vz - qz * vy) as f32,
            y: (qw * vy + qz * vx - qx * vz) as f32,
            z: (qw * vz + qx * vy - qy * vx) as f32,
        }
    }

    /// `Quat::operator*(Quat)` \[CORE\], as the Hamilton product `self · o`.
    /// The spec's other candidate (left-to-right, i.e. `o · self`) makes
    /// `ApplyRowQuat` the identity — `q·(q̄·v) = v` — so no swivel angle could
    /// ever act; the Hamilton order is the one under which the solver works.
    pub fn times(self, o: Q4) -> Q4 {
        let (ax, ay, az, aw) = (
            f64::from(self.x),
            f64::from(self.y),
            f64::from(self.z),
            f64::from(self.w),
        );
        let (bx, by, bz, bw) = (
            f64::from(o.x),
            f64::from(o.y),
            f64::from(o.z),
            f64::from(o.w),
        );
        Q4 {
            w: (aw * bw - ax * bx - ay * by - az * bz) as f32,
            x: (aw * bx + ax * bw + ay * bz - az * by) as f32,
            y: (aw * by - ax * bz + ay * bw + az * bx) as f32,
            z: (aw * bz + ax * by - ay * bx + az * bw) as f32,
        }
    }

    /// `Quat(AngAxis(axis, angle))` \[CORE\]: axis·sin(a/2), cos(a/2), without the
    /// negation of `MakeRowQuat` (Max's API rotations follow the left-hand rule).
    pub fn from_ang_axis(axis: P3, angle: f32) -> Q4 {
        let (s, c) = (0.5 * f64::from(angle)).sin_cos();
        Q4 {
            x: (s * f64::from(axis.x)) as f32,
            y: (s * f64::from(axis.y)) as f32,
            z: (s * f64::from(axis.z)) as f32,
            w: c as f32,
        }
    }

    /// `Quat::MakeMatrix` \[CORE\]: the row-vector matrix of `p ↦ q̄ p q`, the
    /// rotation `ApplyRowQuat` performs (left-hand rule for the stored angle).
    pub fn make_matrix(self) -> M3 {
        let (x, y, z, w) = (
            f64::from(self.x),
            f64::from(self.y),
            f64::from(self.z),
            f64::from(self.w),
        );
        let m = crate::eval::core::math::Quat { x, y, z, w }.to_column_matrix();
        M3::from_3x3(m)
    }

    /// `RotationValue(q).PreApplyTo(M)` \[CORE\]: `M = MakeMatrix(q) · M`.
    pub fn pre_apply_to(self, m: &M3) -> M3 {
        self.make_matrix().mul(m)
    }
}

/// `MakeRowQuat(axis, angle)`: CRT double sine and cosine of the half angle,
/// the sine negated (row-vector convention) and truncated to float before the
/// float × float product with each axis component (normative order).
pub fn make_row_quat(axis: P3, angle: f32) -> Q4 {
    let half = 0.5 * f64::from(angle);
    let c = half.cos();
    let s = -half.sin();
    let sf = s as f32;
    Q4 {
        x: sf * axis.x,
        y: sf * axis.y,
        z: sf * axis.z,
        w: c as f32,
    }
}

/// `ApplyRowQuat(p, q)`: `(q̄ · p) · q` — the local vector product, then the
/// library quaternion product — keeping the vector part.
pub fn apply_row_quat(p: P3, q: Q4) -> P3 {
    let r = q.conjugate().mul_vec(p).times(q);
    p3(r.x, r.y, r.z)
}
