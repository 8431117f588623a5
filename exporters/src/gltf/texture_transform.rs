//! A Bitmap's UV placement (StdUVGen: offset, tiling, W angle, tile and
//! mirror flags) as glTF's `KHR_texture_transform` and sampler wrap modes.
//!
//! Max maps a texture coordinate `p` (V up, image bottom at v = 0) to the
//! image point `A·(p − c) + c − o`: tiling and the W angle act about the map
//! centre `c = (½, ½)`, the offset `o` moves the image, `A = Rot(−w)·Scale(tu, tv)`
//! (a mirrored axis shows the map twice per tile: its tiling counts double).
//! glTF's V runs down (`v' = 1 − v`, which we write into `TEXCOORD_n`), so the
//! glTF transform is that map conjugated by the V flip; the extension's
//! matrix is `T(offset)·R(rotation)·S(scale)` with
//! `R(r) = [[cos r, sin r], [−sin r, cos r]]` (spec), which gives
//! `scale = (tu, tv)`, `rotation = −w` and the offset computed below.

use gltf_json as json;
use json::extensions::texture::{
    TextureTransform, TextureTransformOffset, TextureTransformRotation, TextureTransformScale,
};
use json::texture::WrappingMode;
use json::validation::Checked;
use maxfs_scene::eval::render::material::UvGen;

/// Tiling flag bits of StdUVGen (chunk 0x9002).
const U_WRAP: u32 = 1;
const V_WRAP: u32 = 2;
const U_MIRROR: u32 = 4;
const V_MIRROR: u32 = 8;

/// What a Bitmap's placement becomes in glTF.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Placement {
    /// None when the placement is the identity (no extension written).
    pub transform: Option<[f32; 5]>,
    /// Sampler wrap modes for S (U) and T (V).
    pub wrap: [WrappingMode; 2],
    /// Parts of the placement glTF cannot hold (named in the warnings).
    pub unsupported: Vec<String>,
}

impl Placement {
    /// The extension object of `transform` (offset u, offset v, rotation,
    /// scale u, scale v).
    pub(super) fn extension(&self) -> Option<TextureTransform> {
        let [ou, ov, r, su, sv] = self.transform?;
        Some(TextureTransform {
            offset: TextureTransformOffset([ou, ov]),
            rotation: TextureTransformRotation(r),
            scale: TextureTransformScale([su, sv]),
            tex_coord: None,
            extras: Default::default(),
        })
    }
}

/// The glTF form of a Bitmap's UV generator.
pub(super) fn placement(uv: &UvGen) -> Placement {
    let flags = uv.tiling.unwrap_or(U_WRAP | V_WRAP);
    let wrap_of = |tile: u32, mirror: u32| {
        if flags & mirror != 0 {
            WrappingMode::MirroredRepeat
        } else if flags & tile != 0 {
            WrappingMode::Repeat
        } else {
            WrappingMode::ClampToEdge
        }
    };
    let wrap = [wrap_of(U_WRAP, U_MIRROR), wrap_of(V_WRAP, V_MIRROR)];
    let mut unsupported = Vec::new();
    for (k, name) in [(0, "U"), (1, "V")] {
        if let Some(a) = uv.angle_uvw[k].filter(|a| a.abs() > 1e-6) {
            unsupported.push(format!("{name} angle {:.4} rad", a));
        }
    }
    let mirror = |bit: u32| if flags & bit != 0 { 2.0 } else { 1.0 };
    let tu = f64::from(uv.u_tiling.unwrap_or(1.0)) * mirror(U_MIRROR);
    let tv = f64::from(uv.v_tiling.unwrap_or(1.0)) * mirror(V_MIRROR);
    let w = f64::from(uv.angle_uvw[2].unwrap_or(0.0));
    let o = [
        f64::from(uv.u_offset.unwrap_or(0.0)),
        f64::from(uv.v_offset.unwrap_or(0.0)),
    ];
    let [ou, ov, r, su, sv] = gltf_transform(o, tu, tv, w);
    let identity = [ou, ov, r, su - 1.0, sv - 1.0]
        .iter()
        .all(|x| x.abs() < 1e-6);
    Placement {
        transform: (!identity).then_some([ou, ov, r, su, sv].map(|x| x as f32)),
        wrap,
        unsupported,
    }
}

/// Max placement (offset `o`, tiling `tu`/`tv` with mirror doubling, W angle
/// `w`) → glTF (offset u, offset v, rotation, scale u, scale v).
fn gltf_transform(o: [f64; 2], tu: f64, tv: f64, w: f64) -> [f64; 5] {
    let (s, c) = (-w).sin_cos();
    // A = Rot(−w)·Scale, column vectors.
    let a = [[c * tu, -s * tv], [s * tu, c * tv]];
    let apply = |p: [f64; 2]| {
        [
            a[0][0] * p[0] + a[0][1] * p[1],
            a[1][0] * p[0] + a[1][1] * p[1],
        ]
    };
    let ac = apply([0.5, 0.5]);
    let t = [0.5 - ac[0] - o[0], 0.5 - ac[1] - o[1]];
    // G(q) = F(A·F(q) + t), F(u, v) = (u, 1 − v): translation D(A·e + t) + e
    // with e = (0, 1), D = diag(1, −1); the linear part D·A·D = R(−w)·S in
    // the spec's rotation convention.
    let ae = apply([0.0, 1.0]);
    [ae[0] + t[0], 1.0 - (ae[1] + t[1]), -w, tu, tv]
}

/// A wrap mode as the sampler holds it.
pub(super) fn checked(w: WrappingMode) -> Checked<WrappingMode> {
    Checked::Valid(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Max's map of a texture coordinate, as the module doc states it.
    fn max_map(o: [f64; 2], tu: f64, tv: f64, w: f64, p: [f64; 2]) -> [f64; 2] {
        let (q0, q1) = (p[0] - 0.5, p[1] - 0.5);
        let (x, y) = (tu * q0, tv * q1);
        let (s, c) = (-w).sin_cos();
        [c * x - s * y + 0.5 - o[0], s * x + c * y + 0.5 - o[1]]
    }

    /// The KHR_texture_transform matrix T·R·S of the specification.
    fn spec_map(t: [f64; 5], q: [f64; 2]) -> [f64; 2] {
        let [ou, ov, r, su, sv] = t;
        let (x, y) = (su * q[0], sv * q[1]);
        let (s, c) = r.sin_cos();
        [c * x + s * y + ou, -s * x + c * y + ov]
    }

    #[test]
    fn spec_matrix_reproduces_max_placement_through_the_v_flip() {
        let cases = [
            ([0.0, 0.0], 1.0, 1.0, 0.0),
            ([0.25, -0.1], 1.0, 1.0, 0.0),
            ([0.0, 0.0], 2.0, 3.0, 0.0),
            ([0.0, 0.0], 1.0, 1.0, 0.7),
            ([0.3, 0.6], 4.0, 0.5, -1.2),
            ([-1.5, 2.25], 0.2, 7.0, 3.0),
        ];
        for (o, tu, tv, w) in cases {
            let t = gltf_transform(o, tu, tv, w);
            for q in [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.3, 0.8], [-2.0, 5.0]] {
                // glTF coordinate q is Max's (q.u, 1 − q.v); the image point Max
                // samples, seen in glTF's image space, is flipped back.
                let m = max_map(o, tu, tv, w, [q[0], 1.0 - q[1]]);
                let want = [m[0], 1.0 - m[1]];
                let got = spec_map(t, q);
                for k in 0..2 {
                    assert!(
                        (got[k] - want[k]).abs() < 1e-9,
                        "{o:?} {tu} {tv} {w}: {q:?} → {got:?}, Max {want:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn identity_writes_nothing_and_flags_pick_wrap_modes() {
        let id = UvGen {
            u_offset: Some(0.0),
            v_offset: Some(0.0),
            u_tiling: Some(1.0),
            v_tiling: Some(1.0),
            angle_uvw: [Some(0.0); 3],
            channel: Some(1),
            tiling: Some(0x5000_0003),
        };
        let p = placement(&id);
        assert_eq!(p.transform, None);
        assert_eq!(p.wrap, [WrappingMode::Repeat, WrappingMode::Repeat]);
        assert!(p.unsupported.is_empty());
        let clamp_mirror = UvGen {
            tiling: Some(V_MIRROR),
            angle_uvw: [Some(0.1), None, None],
            ..id.clone()
        };
        let p = placement(&clamp_mirror);
        assert_eq!(
            p.wrap,
            [WrappingMode::ClampToEdge, WrappingMode::MirroredRepeat]
        );
        // Mirrored V shows the map twice per tile.
        let t = p.transform.expect("not the identity");
        assert!((t[4] - 2.0).abs() < 1e-6 && (t[3] - 1.0).abs() < 1e-6);
        assert_eq!(p.unsupported.len(), 1);
        let tiled = UvGen {
            u_tiling: Some(2.0),
            u_offset: Some(0.25),
            ..id
        };
        let t = placement(&tiled).transform.expect("not the identity");
        // Tiling about the centre: u ↦ 2(u − ½) + ½ − ¼ = 2u − ¾.
        assert!(
            (t[0] + 0.75).abs() < 1e-6 && (t[3] - 2.0).abs() < 1e-6,
            "{t:?}"
        );
    }
}
