//! ChamferBox (Extended Primitives): a box whose edges and corners are rounded
//! with radius `fillet`.
//!
//! Parameters (checked against the FBX of Kenjis_Sofa and Kenjis_Bed): length
//! along Y (0), width along X (1), height along Z from 0 (2), fillet (3),
//! length / width / height segments (4, 5, 6), fillet segments (7), smooth (8),
//! generate mapping coordinates (9). A fillet above half the smallest
//! dimension is clamped to 0.999 of that half (Kenjis_Bed: fillet 50 on a
//! 10-high box gives rings at 4.995 and 5.005).
//!
//! The surface is the inner box `[±(w/2−r)] × [±(l/2−r)] × [r, h−r]` grown by
//! `r`: horizontal rings at the elevations `k·90°/fillet segs` (uniform in
//! angle), each a rounded rectangle whose corner arcs are split uniformly in
//! azimuth; the caps are flat grids over the inner rectangle. Vertex positions
//! and triangle counts match the FBX exactly, and so does the vertex order
//! (tests/corpus/eval_primitives.rs; every triangle lies in one of the FBX's
//! polygons, wound the same way). Not known from a reference, so not claimed:
//! Max's face order and quad diagonals,
//! material ids and smoothing groups (all faces get material 1 and, when
//! "smooth" is on, smoothing group 1). The generated mapping (parameter 9) is
//! not built: the mesh has no map channel and coverage names the node under
//! "generated mapping" ([`mapping_not_generated`]), so it is never dropped
//! silently.

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::eval::objects::primitive::Params;

/// All three edges visible.
const ALL_EDGES: u16 = 7;
/// Vertices a ChamferBox may have (damaged segment counts beyond this).
const MAX_VERTICES: usize = 1 << 22;

/// Whether the ChamferBox asks for generated mapping coordinates, which this
/// evaluation does not build.
pub fn mapping_not_generated(p: &Params) -> bool {
    p.flag(9, true)
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
        half_min * 0.999
    } else {
        fillet.max(0.0)
    };
    let (xi, yi) = (aw / 2.0 - r, al / 2.0 - r);
    let sign = if h < 0.0 { -1.0 } else { 1.0 };
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
    let mut v: Vec<Vec3> = Vec::with_capacity(total);
    let cap = |v: &mut Vec<Vec3>, z: f64| {
        let start = v.len();
        for iy in 0..=ls {
            for ix in 0..=ws {
                v.push(Vec3(
                    -xi + 2.0 * xi * ix as f64 / ws as f64,
                    -yi + 2.0 * yi * iy as f64 / ls as f64,
                    z,
                ));
            }
        }
        start
    };
    let bottom = cap(&mut v, 0.0);
    let mut ring_start = Vec::with_capacity(rings);
    for &(z, off) in &profile {
        ring_start.push(v.len());
        ring(&mut v, (xi, yi), (ws, ls, cs), off, z * sign);
    }
    let top = cap(&mut v, ah * sign);
    let smoothing = u32::from(smooth);
    let mut faces: Vec<Face> = Vec::new();
    let mut tri = |a: usize, b: usize, c: usize| {
        let v = [a as u32, b as u32, c as u32];
        faces.push(Face {
            v: if sign < 0.0 { [v[0], v[2], v[1]] } else { v },
            smoothing,
            material: 0,
            flags: ALL_EDGES,
        });
    };
    let row = ws + 1;
    // Caps: bottom faces down, top faces up.
    for iy in 0..ls {
        for ix in 0..ws {
            let a = bottom + iy * row + ix;
            tri(a, a + row, a + row + 1);
            tri(a + row + 1, a + 1, a);
            let a = top + iy * row + ix;
            tri(a, a + 1, a + row + 1);
            tri(a + row + 1, a + row, a);
        }
    }
    // Cap perimeter, in the rings' walk: (grid index, ring index of the side
    // point it meets). Corners meet an arc: a fan over its points.
    let perimeter = cap_perimeter(ws, ls, cs);
    for (cap_base, ring_base, outward_up) in [
        (bottom, ring_start[0], false),
        (top, ring_start[rings - 1], true),
    ] {
        for (k, &(g, ri)) in perimeter.iter().enumerate() {
            let (g2, ri2) = perimeter[(k + 1) % perimeter.len()];
            let (c0, c1) = (cap_base + g, cap_base + g2);
            let r0 = ring_base + ri;
            let r_end = ring_base + ri2;
            // Ring points from ri to ri2 (wrapping): one quad for a straight
            // segment (ri2 = ri + 1), or a corner: the fan from c0 (= c1).
            let steps = (ri2 + ring_len - ri) % ring_len;
            let at = |s: usize| ring_base + (ri + s) % ring_len;
            if c0 == c1 {
                for s in 0..steps {
                    if outward_up {
                        tri(c0, at(s), at(s + 1));
                    } else {
                        tri(c0, at(s + 1), at(s));
                    }
                }
            } else if outward_up {
                tri(c0, r0, r_end);
                tri(r_end, c1, c0);
            } else {
                tri(c0, c1, r_end);
                tri(r_end, r0, c0);
            }
        }
    }
    // Bands between consecutive rings.
    for b in 0..rings.saturating_sub(1) {
        let (lo, hi) = (ring_start[b], ring_start[b + 1]);
        for k in 0..ring_len {
            let n = (k + 1) % ring_len;
            tri(lo + k, lo + n, hi + n);
            tri(hi + n, hi + k, lo + k);
        }
    }
    // Built bottom-up; renumber into Max's order (see `max_order`).
    let perm = max_order((ws, ls, cs), rings, ring_len);
    let mut vertices = vec![Vec3::default(); v.len()];
    for (i, p) in v.into_iter().enumerate() {
        vertices[perm[i]] = p;
    }
    for f in &mut faces {
        f.v = f.v.map(|i| perm[i as usize] as u32);
    }
    Ok(Mesh {
        vertices,
        faces,
        maps: Vec::new(),
        normals: None,
        missing_maps: Vec::new(),
    })
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

/// The caps' perimeter in the rings' walk, as stops (cap grid index, ring
/// index): consecutive stops on two grid points span one ring segment (a
/// quad); consecutive stops on the same grid corner span that corner's arc (a
/// fan). The walk closes on the first stop.
fn cap_perimeter(ws: usize, ls: usize, cs: usize) -> Vec<(usize, usize)> {
    let grid = |ix: usize, iy: usize| iy * (ws + 1) + ix;
    let mut out = Vec::with_capacity(2 * (ws + ls) + 4);
    let mut ri = 0;
    out.push((grid(0, 0), ri));
    for ix in 1..=ws {
        ri += 1;
        out.push((grid(ix, 0), ri));
    }
    ri += cs;
    out.push((grid(ws, 0), ri));
    for iy in 1..=ls {
        ri += 1;
        out.push((grid(ws, iy), ri));
    }
    ri += cs;
    out.push((grid(ws, ls), ri));
    for k in 1..=ws {
        ri += 1;
        out.push((grid(ws - k, ls), ri));
    }
    ri += cs;
    out.push((grid(0, ls), ri));
    for k in 1..ls {
        ri += 1;
        out.push((grid(0, ls - k), ri));
    }
    // The last side ends on grid (0, 0) at ring index ring_len − cs; its arc
    // runs back to the first stop.
    ri += 1;
    out.push((grid(0, 0), ri));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Value;
    use crate::eval::objects::surface_checks::{closed, signed_volume};

    fn params(segs: [i32; 4], fillet: f32, h: f32) -> Params {
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
            Value::Int(0),
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
    fn mapping_flag_is_reported() {
        assert!(!mapping_not_generated(&params([1, 1, 1, 1], 2.0, 10.0)));
    }
}
