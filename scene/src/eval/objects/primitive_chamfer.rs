//! ChamferBox (Extended Primitives): a box whose edges and corners are rounded
//! with radius `fillet`.
//!
//! Parameters (checked against the FBX of Kenjis_Sofa and Kenjis_Bed): length
//! along Y (0), width along X (1), height along Z from 0 (2), fillet (3),
//! length / width / height segments (4, 5, 6), fillet segments (7), smooth (8),
//! generate mapping coordinates (9). A fillet above half the smallest
//! dimension is clamped to 0.005 below that half, leaving a band 0.01 high
//! between the fillets (Kenjis_Bed's FBX: fillet 50 on a 10-high box gives
//! rings at 4.995 and 5.005; GlobalGameJam-2020's WheelCart FBX: a
//! 1.9792-high box's at 0.9846 and 0.9946, where 0.999 of the half would
//! give 0.9886).
//!
//! The surface is the inner box `[±(w/2−r)] × [±(l/2−r)] × [r, h−r]` grown by
//! `r`: horizontal rings at the elevations `k·90°/fillet segs` (uniform in
//! angle), each a rounded rectangle whose corner arcs are split uniformly in
//! azimuth; the caps are flat grids over the inner rectangle. Vertex positions
//! and triangle counts match the FBX exactly, and so does the vertex order
//! (tests/corpus/eval_primitives.rs; every triangle lies in one of the FBX's
//! polygons, wound the same way). The faces follow the public SDK sample
//! `chbox.cpp` (`max_faces`): its order, each quad's diagonal and the edge
//! visibility it sets (the diagonal hidden), so a poly modifier's conversion
//! (`poly_make`) joins them as Max does — the face counts Max's Edit Polys
//! recorded over three ChamferBoxes are ours (primitive_poly.rs tests). The
//! sample gives every face smoothing group 1 when "smooth" is on and material
//! id 0 (Max's material 1), as here. A negative height: the sample builds the
//! box for the height's size and moves every vertex down by it, faces and
//! mapping unchanged.
//!
//! Generated mapping (parameter 9), as the FBX of Kenjis_Bed and Kenjis_Sofa
//! holds it per polygon corner: three parts, each seen from outside.
//! - Top: the top cap and the top fillet rings down to the ring at h − r,
//!   projected from above over the outer box: u = x / width + ½,
//!   v = y / length + ½.
//! - Bottom: the bottom cap and the bottom fillet rings up to the ring at r,
//!   projected from below: u = x / width + ½, v = ½ − y / length.
//! - Sides: the bands between the rings at h − r and r; v = 1 on the top ring
//!   down to 0 on the bottom one, in steps of 1 / height segments; u is the
//!   length walked along the ring (chords of the corner arcs, the straight
//!   sides) from Max's ring start (the (−X, +Y) arc's +Y end,
//!   counter-clockwise seen from above), divided by the ring's perimeter
//!   plus 4·fillet — so the last segment, back to the start, ends at u = 1
//!   and is longer than its share (Max's own arithmetic, measured on both
//!   files).
//!
//! Texture vertices in Max's order (the FBX's UV indices): the top part's
//! (texture vertex i for vertex i), the side rings top down, the bottom
//! part's (vertex i + 2 rings), then one u = 1 copy of each side ring's start,
//! top down. Max's real-world map size is not decoded (as for the other
//! primitives).

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};
use crate::eval::objects::primitive::{channel1, Params};

/// Vertices a ChamferBox may have (damaged segment counts beyond this).
const MAX_VERTICES: usize = 1 << 22;

/// The part of the surface a face belongs to, which picks its mapping.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Top,
    Side,
    Bottom,
}

/// The ChamferBox mesh, see the module documentation.
pub fn chamfer_box(p: &Params) -> Result<Mesh, EvalError> {
    let (l, w, h, fillet) = (p.float(0)?, p.float(1)?, p.float(2)?, p.float(3)?);
    let (ls, ws, hs, cs) = (
        p.segments(4)?,
        p.segments(5)?,
        p.segments(6)?,
        p.segments(7)?,
    );
    let smooth = p.flag(8, true);
    let ring_len = 2 * (ws + ls) + 4 * cs;
    let rings = 2 * cs + hs - 1;
    let total = ring_len
        .checked_mul(rings)
        .and_then(|n| n.checked_add(2 * (ws + 1) * (ls + 1)))
        .filter(|&n| n <= MAX_VERTICES)
        .ok_or_else(|| {
            EvalError::malformed(
                "",
                format!(
                    "ChamferBox with {ws}×{ls}×{hs} segments and {cs} fillet segments is too large"
                ),
            )
        })?;
    let (aw, al, ah) = (w.abs(), l.abs(), h.abs());
    let half_min = aw.min(al).min(ah) / 2.0;
    let r = if fillet > half_min {
        (half_min - FILLET_GAP / 2.0).max(0.0)
    } else {
        fillet.max(0.0)
    };
    let (xi, yi) = (aw / 2.0 - r, al / 2.0 - r);
    // Ring profile, bottom to top: (height above the base, offset from the
    // inner rectangle).
    let quarter = std::f64::consts::FRAC_PI_2;
    let mut profile: Vec<(f64, f64)> = Vec::with_capacity(rings);
    for k in 1..=cs {
        let a = quarter * k as f64 / cs as f64;
        profile.push((r - r * a.cos(), r * a.sin()));
    }
    for j in 1..hs {
        profile.push((r + (ah - 2.0 * r) * j as f64 / hs as f64, r));
    }
    for k in (1..=cs).rev() {
        let a = quarter * k as f64 / cs as f64;
        profile.push((ah - r + r * a.cos(), r * a.sin()));
    }
    // A negative height builds the same box below the base (Max shifts its
    // vertices down by the height, faces unchanged).
    let base = if h < 0.0 { -ah } else { 0.0 };
    let mut v: Vec<Vec3> = Vec::with_capacity(total);
    let cap = |v: &mut Vec<Vec3>, z: f64| {
        for iy in 0..=ls {
            for ix in 0..=ws {
                v.push(Vec3(
                    -xi + 2.0 * xi * ix as f64 / ws as f64,
                    -yi + 2.0 * yi * iy as f64 / ls as f64,
                    z,
                ));
            }
        }
    };
    cap(&mut v, base);
    for &(z, off) in &profile {
        ring(&mut v, (xi, yi), (ws, ls, cs), off, base + z);
    }
    cap(&mut v, base + ah);
    // Built bottom-up; renumber into Max's order (see `max_order`).
    let perm = max_order((ws, ls, cs), rings, ring_len);
    let mut vertices = vec![Vec3::default(); v.len()];
    for (i, p) in v.into_iter().enumerate() {
        vertices[perm[i]] = p;
    }
    let (faces, parts) = max_faces((ws, ls, cs, hs), u32::from(smooth));
    let maps = if p.flag(9, true) {
        let layout = Layout {
            grid: (ws + 1) * (ls + 1),
            ring_len,
            cs,
            hs,
        };
        mapping(&vertices, &faces, &parts, &layout, (aw, al, r))
    } else {
        Vec::new()
    };
    Ok(Mesh {
        vertices,
        faces,
        maps,
        ..Default::default()
    })
}

/// Counts that place a vertex in Max's order: top cap (`grid` vertices), then
/// `2·cs + hs − 1` rings of `ring_len` from the top down, then the bottom cap.
struct Layout {
    grid: usize,
    ring_len: usize,
    cs: usize,
    hs: usize,
}

/// The generated mapping (module documentation) of the faces, whose vertices
/// are in Max's order; `(width, length, fillet)` as built.
fn mapping(
    v: &[Vec3],
    faces: &[Face],
    parts: &[Part],
    l: &Layout,
    (width, length, r): (f64, f64, f64),
) -> Vec<MapChannel> {
    let Layout {
        grid,
        ring_len,
        cs,
        hs,
    } = *l;
    // Where each part's texture vertices start.
    let side_base = grid + cs * ring_len;
    let bottom_offset = 2 * ring_len;
    let wrap_base = 2 * grid + 2 * cs * ring_len + (hs + 1) * ring_len;
    let mut tv: Vec<[f32; 3]> = Vec::with_capacity(wrap_base + hs + 1);
    let ratio = |a: f64, b: f64| if b != 0.0 { a / b } else { 0.0 };
    let above = |p: &Vec3| [ratio(p.0, width) + 0.5, ratio(p.1, length) + 0.5];
    let below = |p: &Vec3| [ratio(p.0, width) + 0.5, 0.5 - ratio(p.1, length)];
    let push = |tv: &mut Vec<[f32; 3]>, [u, v]: [f64; 2]| tv.push([u as f32, v as f32, 0.0]);
    for p in &v[..side_base] {
        push(&mut tv, above(p));
    }
    // The side rings share one outline (the first side ring's, at h − r): u
    // is the length walked along it over its perimeter plus 4·fillet.
    let first_side = grid + (cs - 1) * ring_len;
    let outline = &v[first_side..first_side + ring_len];
    let step = |a: &Vec3, b: &Vec3| (b.0 - a.0).hypot(b.1 - a.1);
    let mut walked = Vec::with_capacity(ring_len);
    let mut total = 0.0;
    for m in 0..ring_len {
        walked.push(total);
        total += step(&outline[m], &outline[(m + 1) % ring_len]);
    }
    let span = total + 4.0 * r;
    for j in 0..=hs {
        let height = 1.0 - j as f64 / hs as f64;
        for &d in &walked {
            push(&mut tv, [ratio(d, span), height]);
        }
    }
    for p in &v[first_side + hs * ring_len..] {
        push(&mut tv, below(p));
    }
    for j in 0..=hs {
        push(&mut tv, [1.0, 1.0 - j as f64 / hs as f64]);
    }
    let tf = faces
        .iter()
        .zip(parts)
        .map(|(f, part)| match part {
            Part::Top => f.v,
            Part::Bottom => f.v.map(|i| i + bottom_offset as u32),
            Part::Side => {
                // Side ring j (0 at h − r) and position m on it; the segment
                // closing the ring takes the u = 1 copies of its start.
                let at = f.v.map(|i| {
                    let k = (i as usize).saturating_sub(first_side);
                    (k / ring_len, k % ring_len)
                });
                let closing = at.iter().any(|&(_, m)| m + 1 == ring_len);
                at.map(|(j, m)| {
                    (if m == 0 && closing {
                        wrap_base + j
                    } else {
                        side_base + j * ring_len + m
                    }) as u32
                })
            }
        })
        .collect();
    channel1(tv, tf)
}

/// Max's vertex order for the vertices built here (bottom cap, rings bottom to
/// top, top cap): the top cap first (rows from +Y to −Y, each from −X to +X),
/// then the rings from the top down, each starting where the (−X, +Y) corner
/// arc points along +Y and running counter-clockwise seen from above, then the
/// bottom cap (rows from −Y to +Y, each from +X to −X) — as the FBX of
/// Kenjis_Sofa and Kenjis_Bed lists them. Returns the new index of each vertex.
fn max_order((ws, ls, cs): (usize, usize, usize), rings: usize, ring_len: usize) -> Vec<usize> {
    let grid = (ws + 1) * (ls + 1);
    let mut perm = Vec::with_capacity(2 * grid + rings * ring_len);
    let bottom_start = grid + rings * ring_len;
    for iy in 0..=ls {
        for ix in 0..=ws {
            perm.push(bottom_start + iy * (ws + 1) + (ws - ix));
        }
    }
    // Our walk starts at the (−X, −Y) arc's −Y end, which is Max's index
    // 2·cs + ls: both walks run counter-clockwise over the same points.
    let shift = 2 * cs + ls;
    for b in 0..rings {
        let base = grid + (rings - 1 - b) * ring_len;
        perm.extend((0..ring_len).map(|ri| base + (ri + shift) % ring_len));
    }
    for iy in 0..=ls {
        for ix in 0..=ws {
            perm.push((ls - iy) * (ws + 1) + ix);
        }
    }
    perm
}

/// One ring at height `z`, `off` out from the inner rectangle `±xi × ±yi`:
/// the −Y side from −X to +X, the (+X, −Y) corner arc, the +X side, and so on
/// counter-clockwise seen from above; each side and arc without its end point.
fn ring(
    v: &mut Vec<Vec3>,
    (xi, yi): (f64, f64),
    (ws, ls, cs): (usize, usize, usize),
    off: f64,
    z: f64,
) {
    let quarter = std::f64::consts::FRAC_PI_2;
    // (side start, side direction length, segments, corner centre, arc start angle)
    let sides = [
        ((-xi, -yi - off), (2.0 * xi, 0.0), ws, (xi, -yi), -quarter),
        ((xi + off, -yi), (0.0, 2.0 * yi), ls, (xi, yi), 0.0),
        ((xi, yi + off), (-2.0 * xi, 0.0), ws, (-xi, yi), quarter),
        (
            (-xi - off, yi),
            (0.0, -2.0 * yi),
            ls,
            (-xi, -yi),
            2.0 * quarter,
        ),
    ];
    for ((sx, sy), (dx, dy), segs, (cx, cy), a0) in sides {
        for s in 0..segs {
            let f = s as f64 / segs as f64;
            v.push(Vec3(sx + dx * f, sy + dy * f, z));
        }
        for k in 0..cs {
            let a = a0 + quarter * k as f64 / cs as f64;
            v.push(Vec3(cx + off * a.cos(), cy + off * a.sin(), z));
        }
    }
}

/// The cap grid vertices (top cap numbering: rows from +Y, each from −X) at
/// the two ends of ring segment `j` (ring point `j` to `j + 1`, rings
/// numbered as in `max_order`): a side segment runs between two neighbouring
/// cap vertices, a corner arc's segments all meet the cap corner (both ends
/// the same vertex).
fn cap_ends(j: usize, (ws, ls, cs): (usize, usize, usize)) -> (usize, usize) {
    let row = ws + 1;
    let (tl, bl, br, tr) = (0, ls * row, ls * row + ws, ws);
    // The walk: (−X, +Y) arc, −X side down, (−X, −Y) arc, −Y side towards
    // +X, (+X, −Y) arc, +X side up, (+X, +Y) arc, +Y side towards −X.
    let mut j = j;
    for (which, (corner, side)) in [(tl, ls), (bl, ws), (br, ls), (tr, ws)]
        .into_iter()
        .enumerate()
    {
        if j < cs {
            return (corner, corner);
        }
        j -= cs;
        if j < side {
            let step = |s: usize| match which {
                0 => s * row,
                1 => bl + s,
                2 => (ls - s) * row + ws,
                _ => ws - s,
            };
            return (step(j), step(j + 1));
        }
        j -= side;
    }
    (tl, tl)
}

/// Edge visibility as Max sets it on the two triangles of a quad: the first
/// shows its first two sides, the second its last two (bit k: side k → k + 1).
const FIRST: u16 = 0b011;
const SECOND: u16 = 0b110;

/// The faces in Max's order over the vertices in Max's order (the SDK sample
/// `chbox.cpp`'s walk), with Max's edge visibility, and the mapping part of
/// each: the top cap row by row, the top fillet's first ring joined to the
/// cap's outline, the bands between consecutive rings from the top down, the
/// last ring joined to the bottom cap's outline, the bottom cap. Each quad is
/// two triangles sharing a hidden diagonal; a corner arc meets its cap
/// corner in a fan. Every face gets `smoothing` and material 0.
fn max_faces(
    (ws, ls, cs, hs): (usize, usize, usize, usize),
    smoothing: u32,
) -> (Vec<Face>, Vec<Part>) {
    let row = ws + 1;
    let grid = row * (ls + 1);
    let ring_len = 2 * (ws + ls) + 4 * cs;
    let rings = 2 * cs + hs - 1;
    let last_ring = grid + (rings - 1) * ring_len;
    let bottom = grid + rings * ring_len;
    // The bottom cap vertex under top cap vertex t (Max numbers the bottom
    // cap backwards from the last vertex).
    let under = |t: usize| bottom + grid - 1 - t;
    let mut faces = Vec::new();
    let mut parts = Vec::new();
    let mut tri = |part: Part, v: [usize; 3], flags: u16| {
        faces.push(Face {
            v: v.map(|i| i as u32),
            smoothing,
            material: 0,
            flags,
        });
        parts.push(part);
    };
    for iy in 0..ls {
        for ix in 0..ws {
            let (t, d) = (iy * row + ix, (iy + 1) * row + ix);
            tri(Part::Top, [t, d, d + 1], FIRST);
            tri(Part::Top, [t, d + 1, t + 1], SECOND);
        }
    }
    let at = |base: usize, j: usize| base + j % ring_len;
    for j in 0..ring_len {
        let (p, q) = cap_ends(j, (ws, ls, cs));
        tri(Part::Top, [p, at(grid, j), at(grid, j + 1)], FIRST);
        if p != q {
            tri(Part::Top, [p, at(grid, j + 1), q], SECOND);
        }
    }
    for b in 0..rings - 1 {
        let part = if b + 1 < cs {
            Part::Top
        } else if b + 1 < cs + hs {
            Part::Side
        } else {
            Part::Bottom
        };
        let (up, down) = (grid + b * ring_len, grid + (b + 1) * ring_len);
        for j in 0..ring_len {
            tri(part, [at(up, j), at(down, j), at(down, j + 1)], FIRST);
            tri(part, [at(up, j), at(down, j + 1), at(up, j + 1)], SECOND);
        }
    }
    for j in 0..ring_len {
        let (p, q) = cap_ends(j, (ws, ls, cs));
        let (r0, r1) = (at(last_ring, j), at(last_ring, j + 1));
        if p != q {
            tri(Part::Bottom, [r0, under(p), under(q)], FIRST);
        }
        tri(Part::Bottom, [r0, under(q), r1], SECOND);
    }
    for iy in 0..ls {
        for ix in 0..ws {
            let k = bottom + iy * row + ix;
            let u = k + row;
            tri(Part::Bottom, [u, k, k + 1], FIRST);
            tri(Part::Bottom, [u, k + 1, u + 1], SECOND);
        }
    }
    (faces, parts)
}

/// The band Max leaves between two fillets that would meet (module
/// documentation).
const FILLET_GAP: f64 = 0.01;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Value;
    use crate::eval::objects::surface_checks::{closed, signed_volume};

    /// A fillet above half the height: the elevations of 3ds Max's FBX of
    /// GlobalGameJam-2020's WheelCart_Poly.max, ChamferBox012 (35.945 ×
    /// 21.171 × 1.9792, 3 fillet segments), read in its local frame.
    #[test]
    fn an_oversized_fillet_leaves_a_band_of_one_hundredth() {
        let p = Params::from_values(vec![
            Value::Float(21.171146),
            Value::Float(35.94512),
            Value::Float(1.9792064),
            Value::Float(5.0),
            Value::Int(1),
            Value::Int(1),
            Value::Int(1),
            Value::Int(3),
            Value::Int(1),
            Value::Int(0),
        ]);
        let m = chamfer_box(&p).expect("builds");
        let mut zs: Vec<f64> = m.vertices.iter().map(|v| v.2).collect();
        zs.sort_by(f64::total_cmp);
        zs.dedup_by(|a, b| (*a - *b).abs() < 1e-5);
        let fbx = [0.0, 0.1319, 0.4923, 0.9846, 0.9946, 1.4869, 1.8473, 1.9792];
        assert_eq!(zs.len(), fbx.len(), "{zs:?}");
        for (z, f) in zs.iter().zip(fbx) {
            assert!((z - f).abs() < 1e-4, "{zs:?}");
        }
        let inner = m
            .vertices
            .iter()
            .map(|v| v.0.abs())
            .fold(f64::MAX, f64::min);
        assert!((inner - 16.988).abs() < 1e-4, "{inner}");
    }

    fn params(segs: [i32; 4], fillet: f32, h: f32) -> Params {
        with_mapping(segs, fillet, h, 0)
    }

    fn with_mapping(segs: [i32; 4], fillet: f32, h: f32, mapping: i32) -> Params {
        Params::from_values(vec![
            Value::Float(60.0),
            Value::Float(140.0),
            Value::Float(h),
            Value::Float(fillet),
            Value::Int(segs[0]),
            Value::Int(segs[1]),
            Value::Int(segs[2]),
            Value::Int(segs[3]),
            Value::Int(1),
            Value::Int(mapping),
        ])
    }

    #[test]
    fn closed_outward_and_counted_for_any_segments() {
        for segs in [[1, 1, 1, 1], [1, 1, 1, 3], [2, 3, 4, 1], [3, 2, 2, 5]] {
            for h in [10.0, -10.0] {
                let m = chamfer_box(&params(segs, 2.0, h)).expect("builds");
                let [ls, ws, hs, cs] = segs.map(|s| s as usize);
                let ring = 2 * (ws + ls) + 4 * cs;
                assert_eq!(
                    m.vertices.len(),
                    ring * (2 * cs + hs - 1) + 2 * (ws + 1) * (ls + 1),
                    "{segs:?}"
                );
                assert!(closed(&m), "{segs:?} {h}");
                // Outward: positive volume, less than the box's, more than the
                // box minus its edge and corner material.
                let vol = signed_volume(&m);
                let full = 60.0 * 140.0 * 10.0;
                assert!(vol > 0.9 * full && vol < full, "{segs:?} {h}: {vol}");
            }
        }
    }

    #[test]
    fn mapping_follows_the_flag() {
        let off = chamfer_box(&params([1, 1, 1, 1], 2.0, 10.0)).expect("builds");
        assert!(off.maps.is_empty());
        let on = chamfer_box(&with_mapping([1, 1, 1, 1], 2.0, 10.0, 1)).expect("builds");
        assert_eq!(on.maps.len(), 1);
    }

    /// For any segment counts: one texture face per face, texture vertices
    /// counted as the module says, UVs in the unit square, no texture face
    /// flipped, and the side bands tiling the unit square once.
    #[test]
    fn mapping_is_whole_for_any_segments() {
        for segs in [[1, 1, 1, 1], [1, 1, 1, 3], [2, 3, 4, 1], [3, 2, 2, 5]] {
            let m = chamfer_box(&with_mapping(segs, 2.0, 10.0, 1)).expect("builds");
            let ch = &m.maps[0];
            let [ls, ws, hs, cs] = segs.map(|s| s as usize);
            let ring = 2 * (ws + ls) + 4 * cs;
            let grid = (ws + 1) * (ls + 1);
            assert_eq!(ch.faces.len(), m.faces.len());
            assert_eq!(
                ch.vertices.len(),
                2 * grid + 2 * cs * ring + (hs + 1) * ring + hs + 1,
                "{segs:?}"
            );
            assert!(ch
                .vertices
                .iter()
                .all(|t| (0.0..=1.0).contains(&t[0]) && (0.0..=1.0).contains(&t[1])));
            let mut side = 0.0;
            for (f, tf) in m.faces.iter().zip(&ch.faces) {
                let t = tf.map(|i| ch.vertices[i as usize]);
                let area = 0.5
                    * f64::from(
                        (t[1][0] - t[0][0]) * (t[2][1] - t[0][1])
                            - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]),
                    );
                assert!(area > 0.0, "{segs:?}: {tf:?}");
                let p = f.v.map(|i| m.vertices[i as usize]);
                if p[1].minus(p[0]).cross(p[2].minus(p[0])).2.abs() < 1e-9 {
                    side += area;
                }
            }
            assert!((side - 1.0).abs() < 1e-6, "{segs:?}: {side}");
        }
    }
}
