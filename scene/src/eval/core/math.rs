//! Small linear algebra in Max's conventions: row vectors, 4×3 matrices whose last
//! row is the translation, so `world = local · parent_world`. f64 throughout;
//! values are stored as f32 in files.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Vec3(pub f64, pub f64, pub f64);

/// Newell's normal of a corner loop: not normalised, its length twice the
/// polygon's area, so it stays meaningful for non-planar loops (the
/// triangulation rules and their measurements test planarity with it).
pub fn newell(p: &[Vec3]) -> Vec3 {
    let mut n = Vec3(0.0, 0.0, 0.0);
    for (i, a) in p.iter().enumerate() {
        let b = p[(i + 1) % p.len()];
        n = n.plus(Vec3(
            (a.1 - b.1) * (a.2 + b.2),
            (a.2 - b.2) * (a.0 + b.0),
            (a.0 - b.0) * (a.1 + b.1),
        ));
    }
    n
}

impl Vec3 {
    pub fn from_f32(v: [f32; 3]) -> Vec3 {
        Vec3(v[0].into(), v[1].into(), v[2].into())
    }
    pub fn plus(self, o: Vec3) -> Vec3 {
        Vec3(self.0 + o.0, self.1 + o.1, self.2 + o.2)
    }
    pub fn minus(self, o: Vec3) -> Vec3 {
        Vec3(self.0 - o.0, self.1 - o.1, self.2 - o.2)
    }
    pub fn scale(self, k: f64) -> Vec3 {
        Vec3(self.0 * k, self.1 * k, self.2 * k)
    }
    pub fn dot(self, o: Vec3) -> f64 {
        self.0 * o.0 + self.1 * o.1 + self.2 * o.2
    }
    pub fn cross(self, o: Vec3) -> Vec3 {
        Vec3(
            self.1 * o.2 - self.2 * o.1,
            self.2 * o.0 - self.0 * o.2,
            self.0 * o.1 - self.1 * o.0,
        )
    }
    pub fn len(self) -> f64 {
        self.dot(self).sqrt()
    }
    pub fn normalized(self) -> Vec3 {
        let l = self.len();
        if l > 0.0 {
            self.scale(1.0 / l)
        } else {
            self
        }
    }
    pub fn to_array(self) -> [f64; 3] {
        [self.0, self.1, self.2]
    }
}

impl From<[f64; 3]> for Vec3 {
    fn from(v: [f64; 3]) -> Vec3 {
        Vec3(v[0], v[1], v[2])
    }
}

/// A unit quaternion (x, y, z, w) with the usual (Hamilton) product.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Quat {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub w: f64,
}

/// The same rotation from the other hemisphere.
impl std::ops::Neg for Quat {
    type Output = Quat;
    fn neg(self) -> Quat {
        Quat {
            x: -self.x,
            y: -self.y,
            z: -self.z,
            w: -self.w,
        }
    }
}

impl Default for Quat {
    fn default() -> Self {
        Quat::IDENTITY
    }
}

impl Quat {
    pub const IDENTITY: Quat = Quat {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        w: 1.0,
    };

    /// `self` or `-self`, whichever lies on `prev`'s hemisphere: a sequence of
    /// rotations read from matrices is fixed only up to sign, and
    /// interpolation between keys wants consecutive ones close.
    pub fn closest_to(self, prev: Option<Quat>) -> Quat {
        if prev.is_some_and(|p| p.dot(self) < 0.0) {
            -self
        } else {
            self
        }
    }

    pub fn from_f32(v: [f32; 4]) -> Quat {
        Quat {
            x: v[0].into(),
            y: v[1].into(),
            z: v[2].into(),
            w: v[3].into(),
        }
    }

    pub fn conjugate(self) -> Quat {
        Quat {
            x: -self.x,
            y: -self.y,
            z: -self.z,
            w: self.w,
        }
    }

    pub fn compose(self, o: Quat) -> Quat {
        Quat {
            w: self.w * o.w - self.x * o.x - self.y * o.y - self.z * o.z,
            x: self.w * o.x + self.x * o.w + self.y * o.z - self.z * o.y,
            y: self.w * o.y - self.x * o.z + self.y * o.w + self.z * o.x,
            z: self.w * o.z + self.x * o.y - self.y * o.x + self.z * o.w,
        }
    }

    pub fn dot(self, o: Quat) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z + self.w * o.w
    }

    pub fn normalized(self) -> Quat {
        let l = self.dot(self).sqrt();
        if l > 0.0 {
            Quat {
                x: self.x / l,
                y: self.y / l,
                z: self.z / l,
                w: self.w / l,
            }
        } else {
            Quat::IDENTITY
        }
    }

    pub fn from_axis_angle(axis: Vec3, angle: f64) -> Quat {
        let a = axis.normalized();
        let (s, c) = (angle * 0.5).sin_cos();
        Quat {
            x: a.0 * s,
            y: a.1 * s,
            z: a.2 * s,
            w: c,
        }
    }

    /// Spherical interpolation along the shorter arc.
    pub fn slerp(self, o: Quat, u: f64) -> Quat {
        let mut d = self.dot(o);
        let mut o = o;
        if d < 0.0 {
            d = -d;
            o = Quat {
                x: -o.x,
                y: -o.y,
                z: -o.z,
                w: -o.w,
            };
        }
        let (a, b) = if d > 0.9999 {
            (1.0 - u, u)
        } else {
            let th = d.acos();
            let s = th.sin();
            (((1.0 - u) * th).sin() / s, (u * th).sin() / s)
        };
        Quat {
            x: a * self.x + b * o.x,
            y: a * self.y + b * o.y,
            z: a * self.z + b * o.z,
            w: a * self.w + b * o.w,
        }
        .normalized()
    }

    /// The 3×3 rotation for column vectors (`p' = M · p`), as `[row][col]`: the
    /// one quaternion-to-matrix formula of the project (glTF, NeL and the IK
    /// solver use it too; the row-vector form is its transpose).
    pub fn to_column_matrix(self) -> [[f64; 3]; 3] {
        let Quat { x, y, z, w } = self;
        [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y - z * w),
                2.0 * (x * z + y * w),
            ],
            [
                2.0 * (x * y + z * w),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z - x * w),
            ],
            [
                2.0 * (x * z - y * w),
                2.0 * (y * z + x * w),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ]
    }

    /// The unit quaternion of a row-vector rotation (`p' = p · M`), the
    /// inverse of [`to_rows`](Self::to_rows) (Shepperd's branches keep it
    /// accurate near 180°).
    pub fn from_rows(m: [Vec3; 3]) -> Quat {
        // c[r][k]: the column-vector matrix, the transpose of the rows.
        let c = |r: usize, k: usize| m[k].to_array()[r];
        let tr = c(0, 0) + c(1, 1) + c(2, 2);
        let q = if tr > 0.0 {
            let s = 2.0 * (1.0 + tr).sqrt();
            Quat {
                w: s / 4.0,
                x: (c(2, 1) - c(1, 2)) / s,
                y: (c(0, 2) - c(2, 0)) / s,
                z: (c(1, 0) - c(0, 1)) / s,
            }
        } else if c(0, 0) > c(1, 1) && c(0, 0) > c(2, 2) {
            let s = 2.0 * (1.0 + c(0, 0) - c(1, 1) - c(2, 2)).sqrt();
            Quat {
                w: (c(2, 1) - c(1, 2)) / s,
                x: s / 4.0,
                y: (c(0, 1) + c(1, 0)) / s,
                z: (c(0, 2) + c(2, 0)) / s,
            }
        } else if c(1, 1) > c(2, 2) {
            let s = 2.0 * (1.0 + c(1, 1) - c(0, 0) - c(2, 2)).sqrt();
            Quat {
                w: (c(0, 2) - c(2, 0)) / s,
                x: (c(0, 1) + c(1, 0)) / s,
                y: s / 4.0,
                z: (c(1, 2) + c(2, 1)) / s,
            }
        } else {
            let s = 2.0 * (1.0 + c(2, 2) - c(0, 0) - c(1, 1)).sqrt();
            Quat {
                w: (c(1, 0) - c(0, 1)) / s,
                x: (c(0, 2) + c(2, 0)) / s,
                y: (c(1, 2) + c(2, 1)) / s,
                z: s / 4.0,
            }
        };
        q.normalized()
    }

    /// The 3×3 rotation for row vectors (`p' = p · M`) that turns points by this
    /// quaternion, i.e. the transpose of [`to_column_matrix`](Self::to_column_matrix).
    pub fn to_rows(self) -> [Vec3; 3] {
        let m = self.to_column_matrix();
        [
            Vec3(m[0][0], m[1][0], m[2][0]),
            Vec3(m[0][1], m[1][1], m[2][1]),
            Vec3(m[0][2], m[1][2], m[2][2]),
        ]
    }
}

/// A Max transform: three rows of the 3×3 part, then the translation row.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Mat43(pub [Vec3; 4]);

impl Default for Mat43 {
    fn default() -> Self {
        Mat43::IDENTITY
    }
}

impl Mat43 {
    pub const IDENTITY: Mat43 = Mat43([
        Vec3(1.0, 0.0, 0.0),
        Vec3(0.0, 1.0, 0.0),
        Vec3(0.0, 0.0, 1.0),
        Vec3(0.0, 0.0, 0.0),
    ]);

    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        let [a, b, c, t] = self.0;
        a.scale(p.0).plus(b.scale(p.1)).plus(c.scale(p.2)).plus(t)
    }

    pub fn transform_vector(&self, p: Vec3) -> Vec3 {
        let [a, b, c, _] = self.0;
        a.scale(p.0).plus(b.scale(p.1)).plus(c.scale(p.2))
    }

    /// `self · o`: apply self first, then o (row-vector order).
    pub fn then(&self, o: &Mat43) -> Mat43 {
        let [a, b, c, t] = self.0;
        Mat43([
            o.transform_vector(a),
            o.transform_vector(b),
            o.transform_vector(c),
            o.transform_point(t),
        ])
    }

    pub fn translation(t: Vec3) -> Mat43 {
        let mut m = Mat43::IDENTITY;
        m.0[3] = t;
        m
    }

    pub fn rotation(q: Quat) -> Mat43 {
        let r = q.to_rows();
        Mat43([r[0], r[1], r[2], Vec3::default()])
    }

    pub fn scaling(s: Vec3) -> Mat43 {
        Mat43([
            Vec3(s.0, 0.0, 0.0),
            Vec3(0.0, s.1, 0.0),
            Vec3(0.0, 0.0, s.2),
            Vec3::default(),
        ])
    }

    /// Rotation about X for row vectors, as Max builds it (`RotateXMatrix`).
    pub fn rot_x(a: f64) -> Mat43 {
        let (s, c) = a.sin_cos();
        Mat43([
            Vec3(1.0, 0.0, 0.0),
            Vec3(0.0, c, s),
            Vec3(0.0, -s, c),
            Vec3::default(),
        ])
    }

    pub fn rot_y(a: f64) -> Mat43 {
        let (s, c) = a.sin_cos();
        Mat43([
            Vec3(c, 0.0, -s),
            Vec3(0.0, 1.0, 0.0),
            Vec3(s, 0.0, c),
            Vec3::default(),
        ])
    }

    pub fn rot_z(a: f64) -> Mat43 {
        let (s, c) = a.sin_cos();
        Mat43([
            Vec3(c, s, 0.0),
            Vec3(-s, c, 0.0),
            Vec3(0.0, 0.0, 1.0),
            Vec3::default(),
        ])
    }

    pub fn rows(&self) -> [[f64; 3]; 4] {
        self.0.map(Vec3::to_array)
    }

    pub fn determinant3(&self) -> f64 {
        let [a, b, c, _] = self.0;
        a.dot(b.cross(c))
    }
}
