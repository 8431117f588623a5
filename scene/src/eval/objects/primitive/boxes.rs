//! Box, Plane and Pyramid: grids of quads per side, in Max's order.

use super::*;
use crate::eval::error::EvalError;

/// Edge visibility of a quad's triangles: AB and BC (the diagonal CA hidden).
const QUAD_HALF_EDGES: u16 = 0b011;

/// Box: length along Y (0), width along X (1), height along Z (2), segments
/// width/length/height (3, 4, 5), generate mapping coordinates (6). Bottom grid,
/// top grid, inner side rings; faces bottom, top, then the sides −Y, +X, +Y, −X.
///
/// Mapping: three texture grids — Y×Z for the ±X sides, X×Z for ±Y, X×Y for the
/// caps — each spanning 0..1; a face picks its grid by the dominant axis of its
/// normal and mirrors U on the −X, +Y and −Z faces so every side reads
/// unmirrored from outside (checked against 3ds Max's ASE export). A negative
/// height turns every face over (corners 1 and 2 swap).
///
/// With the object's real-world map size on, the grids span the sides' sizes
/// instead of 1 (U and V step by width, length or height / segments, summed
/// in single precision from 0; a size of 0 counts as 0.0001), as the SDK
/// sample `boxobj.cpp` scales them: a negative height gives negative V.
pub fn box_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let (l, w, h) = (p.float(0)?, p.float(1)?, p.float(2)?);
    let (ws, ls, hs) = (p.segments(3)?, p.segments(4)?, p.segments(5)?);
    check_quads(2 * (ws * ls + hs * ls + ws * hs))?;
    let (x0, x1, y0, y1) = (-w / 2.0, w / 2.0, -l / 2.0, l / 2.0);
    let mut v = Vec::new();
    // Grid position (ix, iy, iz) of every vertex, for the mapping.
    let mut at: Vec<[usize; 3]> = Vec::new();
    let bottom = grid(&mut v, (x0, x1, ws), (y0, y1, ls), 0.0);
    let top = grid(&mut v, (x0, x1, ws), (y0, y1, ls), h);
    for iz in [0, hs] {
        for iy in 0..=ls {
            at.extend((0..=ws).map(|ix| [ix, iy, iz]));
        }
    }
    let row = ws + 1;
    let grid_at = |base: usize, ix: usize, iy: usize| (base + iy * row + ix) as u32;
    // The perimeter as grid positions, walking −Y, +X, +Y, −X from (x0, y0).
    let mut perimeter: Vec<(usize, usize)> = Vec::new();
    perimeter.extend((0..ws).map(|ix| (ix, 0)));
    perimeter.extend((0..ls).map(|iy| (ws, iy)));
    perimeter.extend((0..ws).map(|k| (ws - k, ls)));
    perimeter.extend((0..ls).map(|k| (0, ls - k)));
    let ring_len = perimeter.len();
    let mut rings: Vec<Vec<u32>> = vec![perimeter
        .iter()
        .map(|&(ix, iy)| grid_at(bottom, ix, iy))
        .collect()];
    for iz in 1..hs {
        let z = h * iz as f64 / hs as f64;
        let start = v.len() as u32;
        for &(ix, iy) in &perimeter {
            let b = &v[grid_at(bottom, ix, iy) as usize];
            v.push(Vec3(b.0, b.1, z));
            at.push([ix, iy, iz]);
        }
        rings.push((0..ring_len as u32).map(|k| start + k).collect());
    }
    rings.push(
        perimeter
            .iter()
            .map(|&(ix, iy)| grid_at(top, ix, iy))
            .collect(),
    );
    let mut faces = Vec::new();
    // Each quad is two triangles whose third edge (CA) is the hidden diagonal:
    // edges AB and BC visible, as Max's ASE export of a Box shows.
    let mut quad = |a: u32, b: u32, c: u32, d: u32, material: u16, smoothing: u32| {
        for v in [[a, b, c], [c, d, a]] {
            let mut f = face(v, material, smoothing);
            f.flags = QUAD_HALF_EDGES;
            faces.push(f);
        }
    };
    for iy in 0..ls {
        for ix in 0..ws {
            let a = grid_at(bottom, ix, iy);
            quad(a, a + row as u32, a + row as u32 + 1, a + 1, 1, 0x02);
        }
    }
    for iy in 0..ls {
        for ix in 0..ws {
            let a = grid_at(top, ix, iy);
            quad(a, a + 1, a + row as u32 + 1, a + row as u32, 0, 0x04);
        }
    }
    // Side k of the perimeter: (material, smoothing) for −Y, +X, +Y, −X.
    let sides = [(4u16, 0x08u32), (3, 0x10), (5, 0x20), (2, 0x40)];
    let side_of = |k: usize| {
        if k < ws {
            0
        } else if k < ws + ls {
            1
        } else if k < 2 * ws + ls {
            2
        } else {
            3
        }
    };
    for z in 0..hs {
        let (lo, hi) = (&rings[z], &rings[z + 1]);
        for k in 0..ring_len {
            let n = (k + 1) % ring_len;
            let (m, s) = sides[side_of(k)];
            quad(lo[k], lo[n], hi[n], hi[k], m, s);
        }
    }
    let mut maps = if p.flag(6, true) {
        let sizes = p.real_world().then_some((w as f32, l as f32, h as f32));
        box_mapping(&v, &at, &faces, (ws, ls, hs), sizes, h < 0.0)
    } else {
        Vec::new()
    };
    if h < 0.0 {
        // The top grid lies below the bottom one: Max turns every face over so
        // the box stays outward (checked against the FBX of Kenjis_Room's
        // Box007); the caps keep the mapping of the unturned faces, the sides
        // take that of the turned ones (`box_mapping`).
        for f in &mut faces {
            f.v.swap(1, 2);
            f.flags = (f.flags & !0b101) | (f.flags & 1) << 2 | (f.flags >> 2 & 1);
        }
        for m in &mut maps {
            for tf in &mut m.faces {
                tf.swap(1, 2);
            }
        }
    }
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
        ..Default::default()
    })
}

/// The Box's generated mapping (see [`box_mesh`]).
pub(super) fn box_mapping(
    v: &[Vec3],
    at: &[[usize; 3]],
    faces: &[Face],
    (ws, ls, hs): (usize, usize, usize),
    sizes: Option<(f32, f32, f32)>,
    turned: bool,
) -> Vec<MapChannel> {
    // The coordinates along one side: k / n, or k · size / n summed in
    // single precision for the real-world map size.
    let steps = |n: usize, size: Option<f32>| -> Vec<f32> {
        match size {
            None => (0..=n).map(|k| (k as f64 / n as f64) as f32).collect(),
            Some(s) => {
                let d = if s == 0.0 { 0.0001 } else { s } / n as f32;
                let mut acc = 0.0f32;
                (0..=n)
                    .map(|_| {
                        let x = acc;
                        acc += d;
                        x
                    })
                    .collect()
            }
        }
    };
    let (sw, sl, sh) = match sizes {
        Some((w, l, h)) => (Some(w), Some(l), Some(h)),
        None => (None, None, None),
    };
    let mut tv = Vec::new();
    let mut push_grid = |us: Vec<f32>, vs: Vec<f32>| {
        let base = tv.len();
        for &v in &vs {
            for &u in &us {
                tv.push([u, v, 0.0]);
            }
        }
        base
    };
    let xbase = push_grid(steps(ls, sl), steps(hs, sh));
    let ybase = push_grid(steps(ws, sw), steps(hs, sh));
    let zbase = push_grid(steps(ws, sw), steps(ls, sl));
    let tf = faces
        .iter()
        .map(|f| {
            let [a, b, c] = f.v.map(|i| v[i as usize]);
            let n = b.minus(a).cross(c.minus(a));
            let abs = [n.0.abs(), n.1.abs(), n.2.abs()];
            // The dominant axis of the normal, ties to the lower axis.
            let axis = if abs[0] >= abs[1] && abs[0] >= abs[2] {
                0
            } else if abs[1] >= abs[2] {
                1
            } else {
                2
            };
            // A side of a box turned over (negative height) is mapped as
            // it faces once turned: U runs the other way than on the
            // unturned face (Kenjis_Room's Box007: the FBX's side corners
            // at 1 − U of the unturned mapping, its caps at it).
            let negative = ([n.0, n.1, n.2][axis] < 0.0) != (turned && axis < 2);
            f.v.map(|i| {
                let [ix, iy, iz] = at[i as usize];
                let idx = match (axis, negative) {
                    (0, neg) => xbase + iz * (ls + 1) + if neg { ls - iy } else { iy },
                    (1, neg) => ybase + iz * (ws + 1) + if neg { ix } else { ws - ix },
                    (_, neg) => zbase + iy * (ws + 1) + if neg { ws - ix } else { ix },
                };
                idx as u32
            })
        })
        .collect();
    channel1(tv, tf)
}

/// Plane: length along Y (0), width along X (1), width segments (2) and
/// length segments (3) — the ids of the public SDK sample `gridobj.cpp`; the
/// block stores them in its descriptor's order 0, 1, 3, 2 —, render density
/// (4) and render scale (5), generate mapping coordinates (6); one smoothing
/// group, material 0. Each grid cell is split along its (x0, y0)–(x1, y1)
/// diagonal, which is hidden (the builder's `MakeQuad`); the mapping is the
/// grid itself over 0..1. This is the viewport mesh (what an exporter's
/// `EvalWorldState` sees): density and scale only act when rendering, except
/// that a render scale above 1 shows the middle 1/scale of the map
/// (`plane_map_scale`). With the real-world map size on, U runs over the
/// width and V over the length in scene units.
pub fn plane_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let (l, w) = (p.float(0)?, p.float(1)?);
    let (ws, ls) = (p.segments(2)?, p.segments(3)?);
    check_quads(ls * ws)?;
    let mut v = Vec::new();
    grid(
        &mut v,
        (-w / 2.0, w / 2.0, ws),
        (-l / 2.0, l / 2.0, ls),
        0.0,
    );
    let row = (ws + 1) as u32;
    let mut faces = Vec::new();
    for iy in 0..ls as u32 {
        for ix in 0..ws as u32 {
            let a = iy * row + ix;
            let (b, c, d) = (a + 1, a + row + 1, a + row);
            // Each pair shares the hidden diagonal a–c (edge 1 of both).
            for v in [[d, a, c], [b, c, a]] {
                faces.push(Face {
                    flags: 0b101,
                    ..face(v, 0, 1)
                });
            }
        }
    }
    let maps = if p.flag(6, true) {
        let (mult, off, su, sv) = plane_map_scale(p, w, l);
        // The fractions accumulate in single precision, as Max steps them.
        let (du, dv) = (1.0 / ws as f32, 1.0 / ls as f32);
        let mut tv = Vec::with_capacity(v.len());
        let mut fv = 0.0f32;
        for _ in 0..=ls {
            let mut fu = 0.0f32;
            for _ in 0..=ws {
                tv.push([su * (fu * mult + off), sv * (fv * mult + off), 0.0]);
                fu += du;
            }
            fv += dv;
        }
        channel1(tv, faces.iter().map(|f| f.v).collect())
    } else {
        Vec::new()
    };
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
        ..Default::default()
    })
}

/// How the Plane maps a grid fraction `t` (along the width for U, the length
/// for V) to a map coordinate: `size · (t · mult + off)`, returned as
/// (mult, off, U size, V size). From `gridobj.cpp` (facts only): with render
/// scale `r` above 1 the viewport mesh keeps its size but its map shows the
/// rendered plane's middle, `t / r + (r − 1) / (2r)`; with the real-world map
/// size on the offset is `(r − 1) / 2` unscaled and the sizes are the width
/// and length (else 1).
fn plane_map_scale(p: &Params, w: f64, l: f64) -> (f32, f32, f32, f32) {
    let r = p.float_or(5, 1.0).max(1.0) as f32;
    let real = p.real_world();
    let (mult, off) = match (r > 1.0, real) {
        (false, _) => (1.0, 0.0),
        (true, true) => (1.0, (r - 1.0) / 2.0),
        (true, false) => (1.0 / r, ((r - 1.0) / 2.0) / r),
    };
    if real {
        (mult, off, w as f32, l as f32)
    } else {
        (mult, off, 1.0, 1.0)
    }
}

/// Pyramid: width along X (0), depth along Y (1), height (2), segments width /
/// depth / height (3, 4, 5, each at least 1), generate mapping coordinates
/// (6). The layout is that of the public SDK sample `pyramid.cpp` (the code is
/// ours): vertex 0 the apex, then one ring of 2·(w + d) vertices per height
/// segment from the top down — ring k (1…h) at z = height − k·height/h with
/// half sizes k/h of the base's, starting at (−x, −y) and running along −Y, +X,
/// +Y and −X in equal steps — and last the base's centre. Faces side by side
/// (−Y, +X, +Y, −X) within each ring, top first: a fan from the apex for
/// ring 1 (all edges visible), then per step the quad to the ring above as
/// (above j, this j, this j+1), (above j, this j+1, above j+1) with the shared
/// diagonal hidden; then the base as a fan (ring j, centre, ring j+1) around
/// the last ring. Material 0; smoothing groups 4, 2, 16, 32 for the sides
/// −Y, +X, +Y, −X and 8 for the base. A negative height turns every face over
/// (corners 0 and 2 swapped). Mapping: V is the height fraction and the apex
/// (½, 1); a width side (−Y, +X mirrored) has U = ½ + x/width along its base
/// edge, a depth side U = 1 − (width/2 − y)/depth — the sample measures the
/// depth sides from the half *width*, so they span 0 … 1 only when width =
/// depth —, the back sides (+Y, −X) reuse the front sides' coordinates
/// mirrored; the base is mapped from above, U = ½ + x/width, V = ½ − y/depth.
/// With the real-world map size on, a width side's U and the base's U scale
/// by the width, a depth side's U and the base's V by the depth, the sides'
/// V by the height, the apex sits at (size/2, height) of its side, and the
/// base's centre at (width/2, height/2) (the sample's). Counts (2·(w+d)·h + 2
/// vertices, 4·(w+d)·h faces) are checked against Max's Mesh Totals
/// (quadrotor.max); one segment each against Babylon's glTF (corners,
/// positions, mapping; width = depth there).
pub fn pyramid_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let (w, d, h) = (p.float(0)?, p.float(1)?, p.float(2)?);
    let [ws, ds, hs] = [
        p.segments(3)?.max(1),
        p.segments(4)?.max(1),
        p.segments(5)?.max(1),
    ];
    let ring = 2 * (ws + ds);
    check_quads(ring * hs)?;
    // Map scales (width, depth, height): the sizes with the real-world map
    // size on, else 1.
    let (sw, sd, sh) = if p.real_world() {
        (w, d, h)
    } else {
        (1.0, 1.0, 1.0)
    };
    // Ring positions per height level, and each vertex's V (height fraction).
    let mut v = vec![Vec3(0.0, 0.0, h)];
    let mut level = vec![1.0];
    for k in 1..=hs {
        let f = k as f64 / hs as f64;
        let (x, y, z) = (w * f / 2.0, d * f / 2.0, h - h * f);
        let (wi, di) = (2.0 * x / ws as f64, 2.0 * y / ds as f64);
        let vf = 1.0 - f;
        v.push(Vec3(-x, -y, z));
        level.push(vf);
        for i in 1..=ws {
            let px = -x + wi * i as f64;
            v.push(Vec3(px, -y, z));
            level.push(vf);
        }
        for i in 1..=ds {
            let py = -y + di * i as f64;
            v.push(Vec3(x, py, z));
            level.push(vf);
        }
        for i in 1..=ws {
            let px = x - wi * i as f64;
            v.push(Vec3(px, y, z));
            level.push(vf);
        }
        for i in 1..ds {
            let py = y - di * i as f64;
            v.push(Vec3(-x, py, z));
            level.push(vf);
        }
    }
    let centre = v.len() as u32;
    v.push(Vec3::default());
    // The side a ring step belongs to, by its index within the ring.
    let side_of = |j: usize| {
        if j < ws {
            0
        } else if j < ws + ds {
            1
        } else if j < 2 * ws + ds {
            2
        } else {
            3
        }
    };
    const SIDE_GROUPS: [u32; 4] = [4, 2, 16, 32];
    // U of a ring vertex on `side` (its own, or the corner it shares),
    // scaled by the side's size.
    let side_u = |side: usize, vi: u32| {
        let q = v[vi as usize];
        let ratio = |a: f64, b: f64| if b == 0.0 { 0.5 } else { a / b };
        match side {
            0 => sw * (0.5 + ratio(q.0, w)),
            1 => sd * (1.0 - ratio(w / 2.0 - q.1, d)),
            2 => sw * (0.5 - ratio(q.0, w)),
            _ => sd * (1.0 - ratio(w / 2.0 + q.1, d)),
        }
    };
    let side_size = |side: usize| if side.is_multiple_of(2) { sw } else { sd };
    let side_v = |vi: u32| level[vi as usize];
    let at = |k: usize, j: usize| (1 + (k - 1) * ring + j % ring) as u32;
    let mut tv = TexVerts::default();
    let mut faces = Vec::with_capacity(2 * ring * hs);
    let mut tf = Vec::with_capacity(2 * ring * hs);
    let mut push =
        |c: [u32; 3], vis: u16, side: usize, faces: &mut Vec<Face>, tv: &mut TexVerts| {
            let uv = c.map(|vi| {
                if vi == 0 {
                    tv.at(side_size(side) * 0.5, sh)
                } else {
                    tv.at(side_u(side, vi), sh * side_v(vi))
                }
            });
            faces.push(Face {
                v: c,
                smoothing: SIDE_GROUPS[side],
                material: 0,
                flags: vis,
            });
            tf.push(uv);
        };
    for k in 1..=hs {
        for j in 0..ring {
            let side = side_of(j);
            if k == 1 {
                push(
                    [0, at(1, j), at(1, j + 1)],
                    ALL_EDGES,
                    side,
                    &mut faces,
                    &mut tv,
                );
            } else {
                let (a0, a1) = (at(k - 1, j), at(k - 1, j + 1));
                let (b0, b1) = (at(k, j), at(k, j + 1));
                // Edges (0–1, 1–2) visible / (1–2, 2–0) visible.
                push([a0, b0, b1], 0b011, side, &mut faces, &mut tv);
                push([a0, b1, a1], 0b110, side, &mut faces, &mut tv);
            }
        }
    }
    let base_uv = |tv: &mut TexVerts, i: u32| {
        let c = v[i as usize];
        if i == centre {
            return tv.at(sw * 0.5, sh * 0.5);
        }
        let (u, vv) = if w == 0.0 || d == 0.0 {
            (0.5, 0.5)
        } else {
            (0.5 + c.0 / w, 0.5 - c.1 / d)
        };
        tv.at(sw * u, sd * vv)
    };
    for j in 0..ring {
        let (a, b) = (at(hs, j), at(hs, j + 1));
        faces.push(Face {
            v: [a, centre, b],
            smoothing: 8,
            material: 0,
            flags: ALL_EDGES,
        });
        tf.push([
            base_uv(&mut tv, a),
            base_uv(&mut tv, centre),
            base_uv(&mut tv, b),
        ]);
    }
    if h < 0.0 {
        for (f, t) in faces.iter_mut().zip(tf.iter_mut()) {
            f.v.swap(0, 2);
            t.swap(0, 2);
            // Edge 0 (corners 0–1) becomes edge 1 (1–2) and back.
            let (e0, e1, e2) = (f.flags & 1, f.flags >> 1 & 1, f.flags & 4);
            f.flags = (f.flags & !0b111) | e1 | e0 << 1 | e2;
        }
    }
    let maps = if p.flag(6, true) {
        channel1(tv.list, tf)
    } else {
        Vec::new()
    };
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
        ..Default::default()
    })
}
