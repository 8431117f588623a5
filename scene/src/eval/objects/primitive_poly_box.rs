//! The polygon form of a Box, as `BoxObject::BuildPolyBox` (Max SDK sample
//! `boxobj.cpp`) makes it for a poly modifier: one quad per grid cell, in the
//! builder's vertex, face and map order, which Edit Poly's records index.

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMap, PolyMesh};
use crate::eval::objects::primitive::Params;

/// Quads built at most (a damaged segment count must not allocate much).
const MAX_QUADS: usize = 1 << 21;

/// Box (length along Y 0, width along X 1, height 2, width / length / height
/// segments 3, 4, 5, generate mapping 6). Vertices: the bottom grid (rows along
/// +Y, each from −X), the top grid, then one ring per inner height step walking
/// −Y (front), +X (right), +Y (back, from +X), −X (left, from +Y), each side
/// without its last corner. Faces: bottom, top, front, right, back, left, each
/// as `BuildPolyBox` walks it (materials 1, 0, 4, 3, 5, 2; smoothing groups
/// 1<<2, 1<<1, 1<<3, 1<<4, 1<<5, 1<<6, top and bottom swapped by the
/// smoothing fix). A negative height reverses every face's corners after the
/// first. Coordinates accumulate in single precision as the builder does.
///
/// Map channel 1 (when mapping is on): six grids of texture vertices (bottom,
/// top, front, right, back, left), U and V stepping by 1 / segments; the
/// bottom's U runs from 1 down. With the real-world map size on, they step by
/// width, length or height / segments instead (a size of 0 stays 0 here: the
/// builder steps before it guards against 0), the bottom's U still from 1
/// down (Buwaka's Door boxes, whose ProBoolean kept bottom U = 1 − 50·s).
pub(crate) fn poly_box(p: &Params, smoothing_fix: bool) -> Result<PolyMesh, EvalError> {
    let (l, w, h) = (p.float(0)? as f32, p.float(1)? as f32, p.float(2)? as f32);
    let (ws, ls, hs) = (p.segments(3)?, p.segments(4)?, p.segments(5)?);
    let nfaces = 2 * (ls * ws + hs * ls + ws * hs);
    if nfaces > MAX_QUADS {
        return Err(EvalError::malformed(
            "",
            format!("a box of {nfaces} quads (damaged segment counts)"),
        ));
    }
    let bias = h < 0.0;
    let wsp1 = ws + 1;
    let nlayer = 2 * (ls + ws);
    let top_start = (ls + 1) * (ws + 1);
    let mid_start = 2 * top_start;
    let mut vertices = Vec::with_capacity(mid_start + nlayer * (hs - 1));
    let (dx, dy, dz) = (w / ws as f32, l / ls as f32, h / hs as f32);
    let (x0, y0, x1, y1) = (-w / 2.0, -l / 2.0, w / 2.0, l / 2.0);
    let point = |x: f32, y: f32, z: f32| Vec3(f64::from(x), f64::from(y), f64::from(z));
    for z in [0.0f32, h] {
        let mut y = y0;
        for _ in 0..=ls {
            let mut x = x0;
            for _ in 0..=ws {
                vertices.push(point(x, y, z));
                x += dx;
            }
            y += dy;
        }
    }
    for iz in 1..hs {
        let z = dz * iz as f32;
        let (mut x, mut y) = (x0, y0);
        for _ in 0..ws {
            vertices.push(point(x, y, z));
            x += dx;
        }
        (x, y) = (x1, y0);
        for _ in 0..ls {
            vertices.push(point(x, y, z));
            y += dy;
        }
        (x, y) = (x1, y1);
        for _ in 0..ws {
            vertices.push(point(x, y, z));
            x -= dx;
        }
        (x, y) = (x0, y1);
        for _ in 0..ls {
            vertices.push(point(x, y, z));
            y -= dy;
        }
    }
    let (top_sg, bottom_sg) = if smoothing_fix {
        (1 << 2, 1 << 1)
    } else {
        (1 << 1, 1 << 2)
    };
    let mut b = Builder {
        faces: Vec::with_capacity(nfaces),
        map_faces: Vec::with_capacity(nfaces),
        bias,
    };
    // Texture grid starts: bottom, top, front, right, back, left.
    let (lsp, wsp, hsp) = (ls + 1, ws + 1, hs + 1);
    let uv_start = [
        0,
        lsp * wsp,
        2 * lsp * wsp,
        2 * lsp * wsp + hsp * wsp,
        2 * lsp * wsp + hsp * wsp + hsp * lsp,
        2 * lsp * wsp + 2 * hsp * wsp + hsp * lsp,
    ];
    // Bottom and top: map vertices numbered as the geometry ones.
    for iy in 0..ls {
        for ix in 0..ws {
            let kv = iy * wsp1 + ix;
            let q = [kv, kv + ws + 1, kv + ws + 2, kv + 1];
            b.quad(q, q, bottom_sg, 1);
        }
    }
    for iy in 0..ls {
        for ix in 0..ws {
            let kv = iy * wsp1 + ix + top_start;
            let q = [kv, kv + 1, kv + ws + 2, kv + ws + 1];
            b.quad(q, q, top_sg, 0);
        }
    }
    // Side texture quad `i` of a grid `n` cells wide starting at `start`.
    let side_map = |start: usize, row: usize, i: usize, n: usize| {
        let m = start + row * (n + 1) + i;
        [m, m + 1, m + n + 2, m + n + 1]
    };
    const FRONT: (u32, u16) = (1 << 3, 4);
    const RIGHT: (u32, u16) = (1 << 4, 3);
    const BACK: (u32, u16) = (1 << 5, 5);
    const LEFT: (u32, u16) = (1 << 6, 2);
    if hs == 1 {
        for ix in 0..ws {
            let (kv, mv) = (ix, top_start + ix);
            let m = side_map(uv_start[2], 0, ix, ws);
            b.quad([kv, kv + 1, mv + 1, mv], m, FRONT.0, FRONT.1);
        }
        for iy in 0..ls {
            let kv = ws + iy * wsp1;
            let mv = top_start + kv;
            let m = side_map(uv_start[3], 0, iy, ls);
            b.quad([kv, kv + wsp1, mv + wsp1, mv], m, RIGHT.0, RIGHT.1);
        }
        for ix in 0..ws {
            let (kv, mv) = (top_start - 1 - ix, mid_start - 1 - ix);
            let m = side_map(uv_start[4], 0, ix, ws);
            b.quad([kv, kv - 1, mv - 1, mv], m, BACK.0, BACK.1);
        }
        for iy in 0..ls {
            let kv = (ls - iy) * wsp1;
            let mv = top_start + kv;
            let m = side_map(uv_start[5], 0, iy, ls);
            b.quad([kv, kv - wsp1, mv - wsp1, mv], m, LEFT.0, LEFT.1);
        }
    } else {
        // Front: bottom grid row, inner rings, top grid row.
        let (mut kv, mut mv) = (0, mid_start);
        for iz in 0..hs {
            if iz == hs - 1 {
                mv = top_start;
            }
            for ix in 0..ws {
                let m = side_map(uv_start[2], iz, ix, ws);
                b.quad(
                    [kv + ix, kv + ix + 1, mv + ix + 1, mv + ix],
                    m,
                    FRONT.0,
                    FRONT.1,
                );
            }
            kv = mv;
            mv += nlayer;
        }
        // Right.
        for iy in 0..ls {
            let (kv, mv) = (ws + iy * wsp1, mid_start + ws + iy);
            let m = side_map(uv_start[3], 0, iy, ls);
            b.quad([kv, kv + wsp1, mv + 1, mv], m, RIGHT.0, RIGHT.1);
        }
        for iz in 0..hs - 2 {
            let kv = mid_start + ws + iz * nlayer;
            let mv = kv + nlayer;
            for iy in 0..ls {
                let m = side_map(uv_start[3], iz + 1, iy, ls);
                b.quad(
                    [kv + iy, kv + iy + 1, mv + iy + 1, mv + iy],
                    m,
                    RIGHT.0,
                    RIGHT.1,
                );
            }
        }
        for iy in 0..ls {
            let kv = mid_start + ws + (hs - 2) * nlayer + iy;
            let mv = top_start + ws + iy * wsp1;
            let m = side_map(uv_start[3], hs - 1, iy, ls);
            b.quad([kv, kv + 1, mv + wsp1, mv], m, RIGHT.0, RIGHT.1);
        }
        // Back.
        for ix in 0..ws {
            let (kv, mv) = (top_start - 1 - ix, mid_start + ws + ls + ix);
            let m = side_map(uv_start[4], 0, ix, ws);
            b.quad([kv, kv - 1, mv + 1, mv], m, BACK.0, BACK.1);
        }
        for iz in 0..hs - 2 {
            let kv = mid_start + ws + ls + iz * nlayer;
            let mv = kv + nlayer;
            for ix in 0..ws {
                let m = side_map(uv_start[4], iz + 1, ix, ws);
                b.quad(
                    [kv + ix, kv + ix + 1, mv + ix + 1, mv + ix],
                    m,
                    BACK.0,
                    BACK.1,
                );
            }
        }
        for ix in 0..ws {
            let kv = mid_start + ws + ls + (hs - 2) * nlayer + ix;
            let mv = top_start + ls * wsp1 + ws - ix;
            let m = side_map(uv_start[4], hs - 1, ix, ws);
            b.quad([kv, kv + 1, mv - 1, mv], m, BACK.0, BACK.1);
        }
        // Left: each ring closes on its first vertex.
        for iy in 0..ls {
            let kv = (ls - iy) * wsp1;
            let mv = mid_start + 2 * ws + ls + iy;
            let nextm = if iy == ls - 1 {
                mv + 1 - nlayer
            } else {
                mv + 1
            };
            let m = side_map(uv_start[5], 0, iy, ls);
            b.quad([kv, kv - wsp1, nextm, mv], m, LEFT.0, LEFT.1);
        }
        for iz in 0..hs - 2 {
            let kv = mid_start + 2 * ws + ls + iz * nlayer;
            let mv0 = kv + nlayer;
            for iy in 0..ls {
                let mv = mv0 + iy;
                let (mut nextm, mut nextk) = (mv + 1, kv + iy + 1);
                if iy == ls - 1 {
                    nextm -= nlayer;
                    nextk -= nlayer;
                }
                let m = side_map(uv_start[5], iz + 1, iy, ls);
                b.quad([kv + iy, nextk, nextm, mv], m, LEFT.0, LEFT.1);
            }
        }
        for iy in 0..ls {
            let kv = mid_start + 2 * ws + ls + (hs - 2) * nlayer + iy;
            let nextk = if iy == ls - 1 {
                kv + 1 - nlayer
            } else {
                kv + 1
            };
            let mv = top_start + (ls - iy) * wsp1;
            let m = side_map(uv_start[5], hs - 1, iy, ls);
            b.quad([kv, nextk, mv - wsp1, mv], m, LEFT.0, LEFT.1);
        }
    }
    if b.faces.len() != nfaces {
        return Err(EvalError::malformed(
            "",
            format!("{} box faces built, {nfaces} expected", b.faces.len()),
        ));
    }
    let maps = if p.flag(6, true) {
        vec![PolyMap {
            channel: 1,
            vertices: texture_vertices((ws, ls, hs), p.real_world().then_some((w, l, h))),
            faces: b.map_faces,
        }]
    } else {
        Vec::new()
    };
    // How `BuildPolyBox` numbers its edges is not known (the face-walk order
    // does not fit Table.max's Insert Vertex Edge record): edge operations on
    // a Box are refused.
    let poly = PolyMesh {
        vertices,
        faces: b.faces,
        maps,
        edges: None,
        normals: None,
    };
    poly.validate()?;
    Ok(poly)
}

struct Builder {
    faces: Vec<PolyFace>,
    map_faces: Vec<Vec<u32>>,
    bias: bool,
}

impl Builder {
    /// `MakePQuad`: corners in order, or 0, 3, 2, 1 for a negative height.
    fn quad(&mut self, v: [usize; 4], m: [usize; 4], smoothing: u32, material: u16) {
        let order = |q: [usize; 4]| -> Vec<u32> {
            let q = if self.bias {
                [q[0], q[3], q[2], q[1]]
            } else {
                q
            };
            q.iter().map(|&x| x as u32).collect()
        };
        self.faces
            .push(PolyFace::fan(order(v), material, smoothing));
        self.map_faces.push(order(m));
    }
}

/// The six texture grids, stepping in single precision as the builder does.
fn texture_vertices(
    (ws, ls, hs): (usize, usize, usize),
    sizes: Option<(f32, f32, f32)>,
) -> Vec<[f32; 3]> {
    let (mw, ml, mh) = sizes.unwrap_or((1.0, 1.0, 1.0));
    let (dw, dl, dh) = (mw / ws as f32, ml / ls as f32, mh / hs as f32);
    let mut tv = Vec::new();
    let mut grid = |rows: usize, cols: usize, du: f32, dv: f32, u0: f32| {
        let mut v = 0.0f32;
        for _ in 0..rows {
            let mut u = u0;
            for _ in 0..cols {
                tv.push([u, v, 0.0]);
                u += du;
            }
            v += dv;
        }
    };
    grid(ls + 1, ws + 1, -dw, dl, 1.0);
    grid(ls + 1, ws + 1, dw, dl, 0.0);
    grid(hs + 1, ws + 1, dw, dh, 0.0);
    grid(hs + 1, ls + 1, dl, dh, 0.0);
    grid(hs + 1, ws + 1, dw, dh, 0.0);
    grid(hs + 1, ls + 1, dl, dh, 0.0);
    tv
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Value;

    fn params(l: f32, w: f32, h: f32, segs: [i32; 3]) -> Params {
        Params::from_values(vec![
            Value::Float(l),
            Value::Float(w),
            Value::Float(h),
            Value::Int(segs[0]),
            Value::Int(segs[1]),
            Value::Int(segs[2]),
            Value::Int(1),
        ])
    }

    /// Every edge of a closed box is used once in each direction, and every
    /// face points away from the centre.
    fn closed_and_outward(m: &PolyMesh, centre: Vec3) {
        let mut sides = std::collections::HashMap::new();
        for f in &m.faces {
            let n = f.v.len();
            let mut normal = Vec3::default();
            for j in 0..n {
                let (a, b) = (f.v[j], f.v[(j + 1) % n]);
                *sides.entry((a, b)).or_insert(0) += 1;
                let (p, q) = (m.vertices[a as usize], m.vertices[b as usize]);
                normal = normal.plus(p.cross(q));
            }
            let c =
                f.v.iter()
                    .fold(Vec3::default(), |s, &v| s.plus(m.vertices[v as usize]))
                    .scale(1.0 / n as f64);
            assert!(normal.dot(c.minus(centre)) > 0.0, "face {:?} inward", f.v);
        }
        for (&(a, b), &k) in &sides {
            assert_eq!(k, 1, "edge {a}-{b}");
            assert_eq!(sides.get(&(b, a)), Some(&1), "edge {a}-{b} open");
        }
    }

    #[test]
    fn one_segment_box_has_the_builders_faces() {
        let m = poly_box(&params(2.0, 4.0, 3.0, [1, 1, 1]), true).expect("box");
        assert_eq!(m.vertices.len(), 8);
        let faces: Vec<_> = m.faces.iter().map(|f| f.v.clone()).collect();
        assert_eq!(
            faces,
            [
                vec![0, 2, 3, 1],
                vec![4, 5, 7, 6],
                vec![0, 1, 5, 4],
                vec![1, 3, 7, 5],
                vec![3, 2, 6, 7],
                vec![2, 0, 4, 6],
            ]
        );
        let mats: Vec<_> = m.faces.iter().map(|f| f.material).collect();
        assert_eq!(mats, [1, 0, 4, 3, 5, 2]);
        assert_eq!(m.faces[0].smoothing, 1 << 1);
        assert_eq!(m.faces[1].smoothing, 1 << 2);
        closed_and_outward(&m, Vec3(0.0, 0.0, 1.5));
    }

    #[test]
    fn segmented_boxes_are_closed_outward_and_mapped() {
        for segs in [[1, 1, 2], [2, 3, 1], [3, 2, 4], [1, 1, 3]] {
            let m = poly_box(&params(2.0, 4.0, 3.0, segs), false).expect("box");
            let [ws, ls, hs] = segs.map(|s| s as usize);
            assert_eq!(
                m.vertices.len(),
                2 * (ls + 1) * (ws + 1) + 2 * (ls + ws) * (hs - 1)
            );
            assert_eq!(m.faces.len(), 2 * (ls * ws + hs * ls + ws * hs));
            closed_and_outward(&m, Vec3(0.0, 0.0, 1.5));
            let tv = &m.maps[0].vertices;
            assert!(tv.iter().all(|t| (-1e-6..=1.0 + 1e-6).contains(&t[0])));
            // A negative height turns every face over and stays closed.
            let m = poly_box(&params(2.0, 4.0, -3.0, segs), false).expect("box");
            closed_and_outward(&m, Vec3(0.0, 0.0, -1.5));
        }
    }

    /// Buwaka's Door boxes (length 600, width 50, height 300, real-world map
    /// size on): the map their ProBoolean kept on the faces it did not cut
    /// reads, with s and t the fractions across a face, bottom u = 1 − 50·s,
    /// v = 600·t; top u = 50·s, v = 600·t; front u = 50·s, back u = 50·(1 −
    /// s), v = 300·t (docs/unseen-files.md).
    #[test]
    fn real_world_box_matches_the_map_door_kept() {
        let p = params(600.0, 50.0, 300.0, [1, 1, 1]).with_real_world();
        let m = poly_box(&p, true).expect("box");
        let map = &m.maps[0];
        for (f, mf) in m.faces.iter().zip(&map.faces) {
            for (&v, &t) in f.v.iter().zip(mf) {
                let c = m.vertices[v as usize];
                let (s, t_y, t_z) = ((c.0 + 25.0) / 50.0, (c.1 + 300.0) / 600.0, c.2 / 300.0);
                let want = match f.material {
                    1 => Some([1.0 - 50.0 * s, 600.0 * t_y]),
                    0 => Some([50.0 * s, 600.0 * t_y]),
                    4 => Some([50.0 * s, 300.0 * t_z]),
                    5 => Some([50.0 * (1.0 - s), 300.0 * t_z]),
                    _ => None,
                };
                let got = map.vertices[t as usize];
                if let Some(w) = want {
                    assert!(
                        (f64::from(got[0]) - w[0]).abs() < 1e-4
                            && (f64::from(got[1]) - w[1]).abs() < 1e-4,
                        "material {} corner {c:?}: {got:?}, want {w:?}",
                        f.material
                    );
                }
            }
        }
    }
}
