//! `CLodCharacterShapeBuild::compile`: the 32×32 texture info of a character
//! LOD. Every selected triangle is rasterised in UV space at 5×5 oversampling
//! (the plug-in's default `textureOverSample` 25), each covered texel taking
//! the position and normal interpolated at its centre; each texel then keeps
//! the non-empty sample nearest its centre, and empty texels take a
//! neighbour's value once (8-neighbourhood dilation). Float operations follow
//! NeL's (`CTriangle::computeGradient`, `CPolygon2D::computeBorders`, 16.16
//! fixed-point edge scanning) in single precision.

use crate::error::{ExportError, ExportResult};
use crate::nel::clod::PixelInfo;
use crate::nel::stream::Vec3 as NelVec3;

/// NL3D_CLOD_TEXT_WIDTH / HEIGHT.
pub const WIDTH: u32 = 32;
pub const HEIGHT: u32 = 32;
/// sqrt of the plug-in's `textureOverSample` (25).
const OVER: u32 = 5;
/// The widest UV extent rasterised, in textures: NeL wraps texels modulo the
/// texture, so wider triangles only repeat work; beyond this the UVs are
/// refused rather than rasterised row by row without bound.
const MAX_UV_SPAN: f32 = 64.0;

type V = [f32; 3];

fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: V, b: V) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn scale(a: V, k: f32) -> V {
    [a[0] * k, a[1] * k, a[2] * k]
}
fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
/// `CVector::normalize`: unchanged when of length 0.
fn normalized(a: V) -> V {
    let n = dot(a, a).sqrt();
    if n != 0.0 {
        scale(a, 1.0 / n)
    } else {
        a
    }
}

/// A texel's position and normal (`CPixelInfo`); the empty pixel has
/// normal (1000, 0, 0).
#[derive(Clone, Copy, PartialEq)]
pub struct Texel {
    pub pos: V,
    pub normal: V,
}

const EMPTY: Texel = Texel {
    pos: [0.0; 3],
    normal: [1000.0, 0.0, 0.0],
};

/// `CTriangle::computeGradient` of values `c` at corners `t`.
fn gradient(t: [V; 3], c: [f32; 3]) -> V {
    let li = sub(t[1], t[0]);
    let lj = sub(t[2], t[0]);
    let lk = normalized(cross(li, lj));
    let li = normalized(li);
    let lj = cross(lk, li);
    let v1 = [dot(sub(t[1], t[0]), li), dot(sub(t[1], t[0]), lj)];
    let v2 = [dot(sub(t[2], t[0]), li), dot(sub(t[2], t[0]), lj)];
    let (dx01, dx02) = (0.0 - v2[0], v1[0] - v2[0]);
    let (dy01, dy02) = (0.0 - v2[1], v1[1] - v2[1]);
    let (dc01, dc02) = (c[0] - c[2], c[1] - c[2]);
    let gd = dx02 * dy01 - dx01 * dy02;
    let oo = if gd != 0.0 { 1.0 / gd } else { 1.0 };
    let gx = (dc02 * dy01 - dc01 * dy02) * oo;
    let gy = (dc01 * dx02 - dc02 * dx01) * oo;
    add(scale(li, gx), scale(lj, gy))
}

/// `ScanEdge`: one edge into the raster table (16.16 fixed point).
fn scan_edge(out: &mut [(i32, i32)], top: i32, v1: [f32; 2], v2: [f32; 2], right: bool) {
    const ROL16: f32 = 65536.0;
    let ceil_y1 = v1[1].ceil() as i32;
    let height = (v2[1].ceil() - ceil_y1 as f32) as i32;
    if height <= 0 {
        return;
    }
    let inv = (v2[0] - v1[0]) / (v2[1] - v1[1]);
    let i_inv = (ROL16 * inv) as i32;
    let mut x = (ROL16 * (v1[0] + inv * (ceil_y1 as f32 - v1[1]))) as i32;
    let start = (ceil_y1 - top) as isize;
    if !right {
        x = x.wrapping_add(65535);
    }
    for k in 0..height as isize {
        let Some(r) = usize::try_from(start + k).ok().and_then(|i| out.get_mut(i)) else {
            break;
        };
        if right {
            r.1 = x >> 16;
        } else {
            r.0 = x >> 16;
        }
        x = x.wrapping_add(i_inv);
    }
}

/// `CPolygon2D::computeBorders` for a triangle: per row from `top`, the
/// first and last covered column.
fn borders(v: [[f32; 2]; 3]) -> (Vec<(i32, i32)>, i32) {
    let next = |i: usize| (i + 1) % 3;
    let prev = |i: usize| (i + 2) % 3;
    let (mut hi, mut lo) = (v[0][1], v[0][1]);
    let (mut p_lo, mut p_hi) = (0usize, 0usize);
    for (i, p) in v.iter().enumerate() {
        if p[1] > lo {
            lo = p[1];
            p_lo = i;
        } else if p[1] < hi {
            hi = p[1];
            p_hi = i;
        }
    }
    let (i_hi, i_lo) = (hi.ceil() as i32, lo.ceil() as i32);
    let height = i_lo - i_hi;
    if height <= 0 {
        return (Vec::new(), i_hi);
    }
    let mut out = vec![(0i32, 0i32); height as usize];
    let mut right = p_hi;
    for _ in 0..3 {
        if v[next(right)][1] == hi {
            right = next(right);
        } else {
            break;
        }
    }
    let mut left = next(right);
    for _ in 0..3 {
        if v[left][1] != hi {
            left = next(left);
        } else {
            break;
        }
    }
    let prev_left = prev(left);
    let ccw = if v[left][0] != v[right][0] {
        v[left][0] > v[right][0]
    } else {
        let (dxn, dyn_) = (
            v[next(right)][0] - v[right][0],
            v[next(right)][1] - v[right][1],
        );
        let (dxp, dyp) = (v[prev_left][0] - v[left][0], v[prev_left][1] - v[left][1]);
        dxn * dyp - dyn_ * dxp < 0.0
    };
    if ccw {
        std::mem::swap(&mut left, &mut right);
    }
    let (first, flip) = if ccw { (left, right) } else { (right, left) };
    let mut cur = first;
    for _ in 0..3 {
        let n = next(cur);
        scan_edge(&mut out, i_hi, v[cur], v[n], !ccw);
        cur = n;
        if cur == p_lo {
            break;
        }
    }
    for _ in 0..3 {
        let n = next(cur);
        scan_edge(&mut out, i_hi, v[n], v[cur], ccw);
        cur = n;
        if cur == flip {
            break;
        }
    }
    (out, i_hi)
}

/// The texture info of triangles `tris` (indices into `pos`, `normals`,
/// `uvs`), only those `selected` when it has one entry per triangle. A
/// triangle whose UVs are not finite covers no texel; one spanning more
/// than 64 textures is an error.
pub fn compile(
    pos: &[V],
    normals: &[V],
    uvs: &[[f32; 2]],
    tris: &[u32],
    selected: &[bool],
) -> ExportResult<Vec<PixelInfo>> {
    let (w_over, h_over) = (WIDTH * OVER, HEIGHT * OVER);
    let mut over = vec![EMPTY; (w_over * h_over) as usize];
    let use_sel = selected.len() == tris.len() / 3;
    for (ti, t) in tris.chunks_exact(3).enumerate() {
        if use_sel && !selected[ti] {
            continue;
        }
        let idx = [t[0] as usize, t[1] as usize, t[2] as usize];
        let (Some(uv), Some(p), Some(n)) = (
            idx.iter()
                .map(|&i| uvs.get(i).copied())
                .collect::<Option<Vec<_>>>(),
            idx.iter()
                .map(|&i| pos.get(i).copied())
                .collect::<Option<Vec<_>>>(),
            idx.iter()
                .map(|&i| normals.get(i).copied())
                .collect::<Option<Vec<_>>>(),
        ) else {
            continue;
        };
        if uv.iter().flatten().any(|x| !x.is_finite()) {
            continue;
        }
        let span = |c: usize| {
            let (lo, hi) = uv
                .iter()
                .fold((f32::MAX, f32::MIN), |(l, h), u| (l.min(u[c]), h.max(u[c])));
            hi - lo
        };
        if span(0) > MAX_UV_SPAN || span(1) > MAX_UV_SPAN {
            return Err(ExportError::invalid(format!(
                "triangle {ti}: its UVs span {} × {} textures (at most {MAX_UV_SPAN} rasterised)",
                span(0),
                span(1)
            )));
        }
        let tri: [V; 3] =
            std::array::from_fn(|k| [uv[k][0] * w_over as f32, uv[k][1] * h_over as f32, 0.0]);
        let grad = |f: &dyn Fn(usize) -> f32| gradient(tri, [f(0), f(1), f(2)]);
        let gp: [V; 3] = std::array::from_fn(|c| grad(&|k| p[k][c]));
        let gn: [V; 3] = std::array::from_fn(|c| grad(&|k| n[k][c]));
        let op: [f32; 3] = std::array::from_fn(|c| p[0][c] - dot(gp[c], tri[0]));
        let on: [f32; 3] = std::array::from_fn(|c| n[0][c] - dot(gn[c], tri[0]));
        let poly: [[f32; 2]; 3] = std::array::from_fn(|k| [tri[k][0] - 0.5, tri[k][1] - 0.5]);
        let (rows, min_y) = borders(poly);
        for (y, &(x0, x1)) in rows.iter().enumerate() {
            let vy = (y as i32 + min_y) as f32 + 0.5;
            for x in x0..=x1 {
                let v = [x as f32 + 0.5, vy, 0.0];
                let texel = Texel {
                    pos: std::array::from_fn(|c| op[c] + dot(gp[c], v)),
                    normal: normalized(std::array::from_fn(|c| on[c] + dot(gn[c], v))),
                };
                let tx = (x as u32) % w_over;
                let ty = ((y as i32 + min_y) as u32) % h_over;
                over[(ty * w_over + tx) as usize] = texel;
            }
        }
    }
    // Down sample: the non-empty sample nearest each texel's centre.
    let middle = (OVER - 1) as f32 / 2.0;
    let mut tex = vec![EMPTY; (WIDTH * HEIGHT) as usize];
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let mut best = f32::MAX;
            let mut pick = EMPTY;
            for yo in 0..OVER {
                for xo in 0..OVER {
                    let d = (yo as f32 - middle).powi(2) + (xo as f32 - middle).powi(2);
                    let s = over[((y * OVER + yo) * w_over + (x * OVER + xo)) as usize];
                    if s != EMPTY && d < best {
                        best = d;
                        pick = s;
                    }
                }
            }
            tex[(y * WIDTH + x) as usize] = pick;
        }
    }
    // Dilate once: an empty texel takes its first non-empty neighbour.
    let src = tex.clone();
    for y in 0..HEIGHT as i32 {
        let (y0, y1) = ((y - 1).max(0), (y + 1).min(HEIGHT as i32 - 1));
        for x in 0..WIDTH as i32 {
            if tex[(y * WIDTH as i32 + x) as usize] != EMPTY {
                continue;
            }
            let (x0, x1) = ((x - 1).max(0), (x + 1).min(WIDTH as i32 - 1));
            'search: for yb in y0..=y1 {
                for xb in x0..=x1 {
                    let nb = src[(yb * WIDTH as i32 + xb) as usize];
                    if nb != EMPTY {
                        tex[(y * WIDTH as i32 + x) as usize] = nb;
                        break 'search;
                    }
                }
            }
        }
    }
    let v = NelVec3::from;
    Ok(tex
        .into_iter()
        .map(|t| PixelInfo {
            pos: v(t.pos),
            normal: v(t.normal),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borders_cover_the_rows_of_a_triangle() {
        let (rows, top) = borders([[0.5, 0.5], [10.5, 0.5], [0.5, 10.5]]);
        assert_eq!(top, 1);
        assert_eq!(rows.len(), 10);
        for (i, &(a, b)) in rows.iter().enumerate() {
            assert!(a <= b, "row {i}: {a}..{b}");
            assert!(a >= 0 && b <= 10);
        }
        // Same triangle, other winding: same rows.
        let (other, _) = borders([[0.5, 0.5], [0.5, 10.5], [10.5, 0.5]]);
        assert_eq!(rows, other);
    }

    #[test]
    fn a_full_square_fills_the_texture_with_interpolated_positions() {
        let pos = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        let normals = [[0.0, 0.0, 1.0]; 4];
        let uvs = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let tex =
            compile(&pos, &normals, &uvs, &[0, 1, 2, 0, 2, 3], &[true, true]).expect("compiles");
        assert_eq!(tex.len(), 1024);
        for (i, t) in tex.iter().enumerate() {
            let (x, y) = ((i % 32) as f32, (i / 32) as f32);
            assert!(
                (t.normal.z.get() - 1.0).abs() < 1e-5,
                "texel {i} empty or wrong"
            );
            // The centre sample of texel (x, y) sits at ((x + 0.5) / 32, …).
            assert!((t.pos.x.get() - (x + 0.5) / 32.0).abs() < 1e-4, "texel {i}");
            assert!((t.pos.y.get() - (y + 0.5) / 32.0).abs() < 1e-4, "texel {i}");
        }
        // Unselected triangles leave the texture empty.
        let none =
            compile(&pos, &normals, &uvs, &[0, 1, 2, 0, 2, 3], &[false, false]).expect("compiles");
        assert!(none.iter().all(|t| t.normal.x.get() == 1000.0));
        // UVs far outside the texture are refused, not rasterised for ever.
        let far = [[0.0, 0.0], [1e7, 0.0], [1e7, 1e7], [0.0, 1e7]];
        assert!(compile(&pos, &normals, &far, &[0, 1, 2], &[]).is_err());
    }
}
