//! A Bitmap's UV placement (StdUVGen offset, tiling, W angle) as the matrix
//! the plug-in takes from `Texmap::GetUVTransform` (export_material.cpp
//! `getVertMapChannel`), and that matrix as NeL's user texture matrix
//! (export_misc.cpp `uvMatrix2NelUVMatrix`).
//!
//! The placement model is NeL's own: `CAnimatedMaterial::update`
//! (nel/src/3d/animated_material.cpp) rebuilds the texture matrix from the
//! very StdUVGen values the plug-in exports as UTrans/VTrans/UScale/VScale/
//! WRot tracks (export_anim.cpp `addTexTracks`: "U Offset", "V Offset", "U
//! Tiling", "V Tiling", "W Angle"), so the static matrix baked at export and
//! the animated one must agree: a texture coordinate `p` maps to
//! `S(tu, tv)·R(w)·(p − c − o) + c` with `c = (½, ½)`, and
//! `CMaterial::decompUserTexMat` recovers (o, t, w) from it.

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::render::material::UvGen;

use crate::nel::stream::{Matrix, F32};

/// A Max `Matrix3` as rows I, J, K and translation, applied to `(u, v, w, 1)`.
pub type UvMatrix = [[f32; 3]; 4];

pub const IDENTITY: UvMatrix = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0; 3]];

/// CMatrix state bits.
const MAT_TRANS: u32 = 1;
const MAT_ROT: u32 = 2;
const MAT_SCALEANY: u32 = 8;
const MAT_VALIDROT: u32 = 64;

/// The placement's UV matrix, or why it cannot be one: NeL's texture matrix
/// turns about W only, so a U or V angle (a rotation out of the UV plane) is
/// refused rather than dropped.
pub fn max_uv_matrix(uv: &UvGen) -> ExportResult<UvMatrix> {
    for (k, axis) in [(0, "U"), (1, "V")] {
        if let Some(a) = uv.angle_uvw[k].filter(|a| *a != 0.0) {
            return Err(ExportError::refused(format!(
                "the texture's {axis} angle ({a} rad) is not a NeL texture matrix"
            )));
        }
    }
    let (tu, tv) = (uv.u_tiling.unwrap_or(1.0), uv.v_tiling.unwrap_or(1.0));
    let (ou, ov) = (uv.u_offset.unwrap_or(0.0), uv.v_offset.unwrap_or(0.0));
    let w = uv.angle_uvw[2].unwrap_or(0.0);
    Ok(placement_matrix([ou, ov], [tu, tv], w))
}

/// `S·R(w)` with translation `S·R(w)·(−c − o) + c`, in f32 as NeL builds it.
pub fn placement_matrix(offset: [f32; 2], tiling: [f32; 2], w: f32) -> UvMatrix {
    let (s, c) = (w.sin(), w.cos());
    let i = [tiling[0] * c, tiling[1] * s];
    let j = [-tiling[0] * s, tiling[1] * c];
    let p = [-0.5 - offset[0], -0.5 - offset[1]];
    let t = [
        i[0] * p[0] + j[0] * p[1] + 0.5,
        i[1] * p[0] + j[1] * p[1] + 0.5,
    ];
    [
        [i[0], i[1], 0.0],
        [j[0], j[1], 0.0],
        [0.0, 0.0, 1.0],
        [t[0], t[1], 0.0],
    ]
}

/// A NeL `CMatrix` under construction: column-major rotation `a[row][col]`,
/// translation, state bits (nel/src/misc/matrix.cpp).
#[derive(Clone, Copy)]
struct NelMat {
    a: [[f32; 3]; 3],
    t: [f32; 3],
    bits: u32,
}

impl NelMat {
    /// `identity(); setRot(I, J, K); setPos(P)`.
    fn of_rows(m: &UvMatrix) -> NelMat {
        let a = std::array::from_fn(|r| std::array::from_fn(|c| m[c][r]));
        let t = m[3];
        let trans = if t.iter().any(|&x| x != 0.0) {
            MAT_TRANS
        } else {
            0
        };
        NelMat {
            a,
            t,
            bits: MAT_ROT | MAT_SCALEANY | trans,
        }
    }

    /// `setMulMatrix` for two general rotation matrices without projection:
    /// the state bits OR-ed, VALIDROT set, each sum evaluated left to right.
    fn mul(&self, m2: &NelMat) -> NelMat {
        let m1 = self;
        let a = std::array::from_fn(|r| {
            std::array::from_fn(|c| {
                m1.a[r][0] * m2.a[0][c] + m1.a[r][1] * m2.a[1][c] + m1.a[r][2] * m2.a[2][c]
            })
        });
        let bits = (m1.bits | m2.bits) | MAT_VALIDROT;
        let mut t = [0.0; 3];
        if bits & MAT_TRANS != 0 {
            for (r, x) in t.iter_mut().enumerate() {
                *x = m1.a[r][0] * m2.t[0] + m1.a[r][1] * m2.t[1] + m1.a[r][2] * m2.t[2];
                if m1.bits & MAT_TRANS != 0 {
                    *x += m1.t[r];
                }
            }
        }
        NelMat { a, t, bits }
    }

    fn matrix(&self) -> Matrix {
        let f = F32::from_f32;
        Matrix {
            version: 0,
            state_bits: self.bits,
            // Not a uniform scale: the writer stores 1.
            scale33: f(1.0),
            rot: Some(std::array::from_fn(|k| f(self.a[k / 3][k % 3]))),
            trans: (self.bits & MAT_TRANS != 0).then(|| self.t.map(f)),
            proj: None,
        }
    }
}

/// `uvMatrix2NelUVMatrix`: the Max UV matrix conjugated by the V flip NeL's
/// exported UVs carry (`convert = (u, 1 − v, w)`), `convert · M · convert`.
pub fn nel_user_tex_mat(m: &UvMatrix) -> Matrix {
    let convert = NelMat::of_rows(&[
        [1.0, 0.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0],
    ]);
    convert.mul(&NelMat::of_rows(m)).mul(&convert).matrix()
}

/// `CMaterial::decompUserTexMat`: (u trans, v trans, w rotation, u scale,
/// v scale) of a user texture matrix, as NeL recovers the animation defaults
/// of a material (`CMaterialBase::copyFromMaterial`).
pub fn decomp_user_tex_mat(m: &Matrix) -> [f32; 5] {
    let convert = NelMat::of_rows(&[
        [1.0, 0.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0],
    ]);
    let r = m
        .rot
        .map_or([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], |r| {
            r.map(|x| x.get())
        });
    let user = NelMat {
        a: [[r[0], r[1], r[2]], [r[3], r[4], r[5]], [r[6], r[7], r[8]]],
        t: m.trans.map_or([0.0; 3], |t| t.map(|x| x.get())),
        bits: m.state_bits,
    };
    let tex = convert.mul(&user).mul(&convert);
    let (i, j) = ([tex.a[0][0], tex.a[1][0]], [tex.a[0][1], tex.a[1][1]]);
    let u_scale = (i[0] * i[0] + j[0] * j[0]).sqrt();
    let v_scale = (i[1] * i[1] + j[1] * j[1]).sqrt();
    let n = (i[0] * i[0] + i[1] * i[1]).sqrt();
    let ix = if n > 0.0 { i[0] / n } else { 1.0 };
    let mut w = ix.clamp(-1.0, 1.0).acos();
    if i[1] < 0.0 {
        w = 2.0 * std::f32::consts::PI - w;
    }
    // offset = ½ + (SR)⁻¹·(pos − ½), on the 2×2 part (K stays the unit axis).
    let det = tex.a[0][0] * tex.a[1][1] - tex.a[0][1] * tex.a[1][0];
    let d = [tex.t[0] - 0.5, tex.t[1] - 0.5];
    let (ox, oy) = if det != 0.0 {
        (
            (tex.a[1][1] * d[0] - tex.a[0][1] * d[1]) / det,
            (-tex.a[1][0] * d[0] + tex.a[0][0] * d[1]) / det,
        )
    } else {
        (0.0, 0.0)
    };
    [-(0.5 + ox), -(0.5 + oy), w, u_scale, v_scale]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(m: &UvMatrix, p: [f32; 2]) -> [f32; 2] {
        [
            p[0] * m[0][0] + p[1] * m[1][0] + m[3][0],
            p[0] * m[0][1] + p[1] * m[1][1] + m[3][1],
        ]
    }

    #[test]
    fn identity_placement_is_identity() {
        let m = max_uv_matrix(&UvGen::default()).expect("plain");
        for (a, b) in m.iter().flatten().zip(IDENTITY.iter().flatten()) {
            assert!((a - b).abs() < 1e-7, "{m:?}");
        }
    }

    /// Offset alone shifts the lookup by −offset; tiling scales about the
    /// map centre, which stays fixed (animated_material.cpp's model).
    #[test]
    fn offset_and_tiling() {
        let m = placement_matrix([0.25, -0.5], [1.0, 1.0], 0.0);
        assert_eq!(apply(&m, [0.3, 0.7]), [0.3 - 0.25, 0.7 + 0.5]);
        let m = placement_matrix([0.0, 0.0], [2.0, 3.0], 0.0);
        assert_eq!(apply(&m, [0.5, 0.5]), [0.5, 0.5]);
        assert_eq!(apply(&m, [1.0, 0.0]), [1.5, -1.0]);
    }

    /// NeL's decomposition gives back the StdUVGen values the matrix was
    /// built from (what the UTrans/VTrans/UScale/VScale tracks hold); its
    /// angle is read off the scaled I axis, atan2(tv·sin w, tu·cos w).
    #[test]
    fn nel_decomposition_recovers_the_placement() {
        for (o, t, w) in [
            ([0.0f32, 0.0f32], [1.0f32, 1.0f32], 0.0f32),
            ([0.25, -0.125], [2.0, 3.0], 0.0),
            ([0.1, 0.7], [1.5, 0.5], 0.6),
            ([-0.3, 0.05], [4.0, 4.0], 5.0),
        ] {
            let d = decomp_user_tex_mat(&nel_user_tex_mat(&placement_matrix(o, t, w)));
            let a = (t[1] * w.sin()).atan2(t[0] * w.cos());
            let a = if a < 0.0 {
                a + 2.0 * std::f32::consts::PI
            } else {
                a
            };
            let want = [o[0], o[1], a, t[0], t[1]];
            for (k, (a, b)) in d.iter().zip(want).enumerate() {
                assert!((a - b).abs() < 1e-4, "{k}: {d:?} vs {want:?}");
            }
        }
    }

    #[test]
    fn out_of_plane_angles_are_refused() {
        let uv = UvGen {
            angle_uvw: [Some(0.5), None, None],
            ..UvGen::default()
        };
        assert!(max_uv_matrix(&uv)
            .unwrap_err()
            .to_string()
            .contains("U angle"));
    }

    /// The conjugation by the V flip: NeL's matrix applied to (u, 1 − v)
    /// gives the flipped image of the Max matrix applied to (u, v).
    #[test]
    fn user_matrix_conjugates_the_v_flip() {
        let m = placement_matrix([0.1, 0.2], [2.0, 0.5], 0.7);
        let n = nel_user_tex_mat(&m);
        assert_eq!(
            n.state_bits,
            MAT_TRANS | MAT_ROT | MAT_SCALEANY | MAT_VALIDROT
        );
        let r = n.rot.expect("rot").map(|x| x.get());
        let t = n.trans.expect("trans").map(|x| x.get());
        for p in [[0.0f32, 0.0], [0.3, 0.9], [1.0, 1.0]] {
            let q = apply(&m, p);
            let (u, v) = (p[0], 1.0 - p[1]);
            let x = r[0] * u + r[1] * v + t[0];
            let y = r[3] * u + r[4] * v + t[1];
            assert!((x - q[0]).abs() < 1e-5 && (y - (1.0 - q[1])).abs() < 1e-5);
        }
    }
}
