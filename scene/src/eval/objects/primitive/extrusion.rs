//! L-Ext ((0x09e73a08, 0x08693067)) and C-Ext ((0x33b1284d, 0x7af0200d);
//! Extended Primitives), built as the public Max SDK samples `lext.cpp` and
//! `cext.cpp` build them (the code here is ours). Both extrude an L or C
//! outline of constant wall widths; they share one layout.
//!
//! L-Ext's old ParamBlock by index (ParamBlock2 ids in the same order):
//! 0 side length (y), 1 front length (x), 2 side width, 3 front width,
//! 4 height, 5 side / 6 front / 7 width / 8 height segments, 9 generate
//! mapping, (ParamBlock2 only) 10 centre creation. C-Ext's: 0 back length,
//! 1 side length, 2 front length, 3 back / 4 side / 5 front width, 6 height,
//! 7 back / 8 side / 9 front / 10 width / 11 height segments, 12 generate
//! mapping, (ParamBlock2 only) 13 centre creation. Old ParamBlocks keep the
//! centre creation as an int in the object's chunk 0x0100. Widths are at
//! least 0.1, segment counts 1…200.
//!
//! Layout: the top cap as `width segments + 1` rows from the outer outline
//! to the inner one, each the front arm from x = 0, then the side arm (and,
//! for C-Ext, the back arm), then the wall rings of the outline (outer edge
//! out, inner edge back; `height segments + 1` levels from the top down),
//! then the bottom cap as the top. Faces: the top cap's quads (inner, outer,
//! outer + 1) and (inner, outer + 1, inner + 1) in group 1, the walls per
//! outline edge alternately groups 2 and 3 (bits 2, 4), the bottom cap's
//! quads wound the other way in group 1; material 0. Mapping: the caps
//! planar over the outline's box (v flipped on the bottom), the walls u by
//! outline length and v by height, with one extra column at u = 1 per level
//! for the seam. Negative lengths mirror the shape as Max does (about the
//! far side when created from the centre) and flip the faces. Max's
//! real-world map size (a flag outside the parameter block) is not decoded.

use super::checked_channel1;
use super::{check_quads, ext_face, Params};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const L_EXT: ClassId = ClassId(0x09e73a08, 0x08693067);
pub const C_EXT: ClassId = ClassId(0x33b1284d, 0x7af0200d);

/// Max's lower limit on the widths (`MIN_WIDTH`).
const MIN_WIDTH: f64 = 0.1;

/// An outline ready to extrude, in Max's terms.
struct Extrusion {
    /// Cap rows from the outer outline (j = 0) to the inner one, each the
    /// same number of points.
    rows: Vec<Vec<(f64, f64)>>,
    /// The outline ring: points and the count of segments per edge.
    ring: Vec<(f64, f64)>,
    edges: Vec<usize>,
    /// Outline length the wall mapping divides by.
    uvdist: f64,
    /// The caps' planar mapping: u = (x − min x) / x length, v = y / y length.
    min_x: f64,
    x_len: f64,
    y_len: f64,
    height: f64,
    hsegs: usize,
    mapping: bool,
    /// Negative lengths: mirror x / y about these (Some) or not at all.
    mirror_x: Option<f64>,
    mirror_y: Option<f64>,
}

fn segs(p: &Params, i: usize) -> usize {
    p.int_or(i, 1).clamp(1, 200) as usize
}

fn finite(v: &[f64]) -> Result<(), EvalError> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(EvalError::malformed("", "a parameter is not finite"))
    }
}

/// The centre-creation flag: ParamBlock2 parameter `pb2`, else chunk 0x0100.
fn centre_created(p: &Params, pb2: usize) -> bool {
    if p.has(pb2) {
        p.flag(pb2, false)
    } else {
        p.chunk_0100().is_some_and(|v| v != 0)
    }
}

/// Points a → b in `n` steps, without a, with b.
fn run(v: &mut Vec<(f64, f64)>, a: (f64, f64), b: (f64, f64), n: usize) {
    for i in 1..=n {
        let f = i as f64 / n as f64;
        v.push((a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f));
    }
}

pub fn l_ext_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let (sl_raw, bl_raw) = (p.float_or(0, 0.0), p.float_or(1, 0.0));
    let sw = p.float_or(2, 0.0).max(MIN_WIDTH);
    let bw = p.float_or(3, 0.0).max(MIN_WIDTH);
    let h = p.float_or(4, 0.0);
    finite(&[sl_raw, bl_raw, sw, bw, h])?;
    let (ss, bs, ws, hs) = (segs(p, 5), segs(p, 6), segs(p, 7), segs(p, 8));
    let (sl, bl) = (sl_raw.abs(), bl_raw.abs());
    let (dx, dy) = (sw / ws as f64, bw / ws as f64);
    let rows = (0..=ws)
        .map(|j| {
            let (xe, y0) = (bl - j as f64 * dx, j as f64 * dy);
            let mut r = vec![(0.0, y0)];
            run(&mut r, (0.0, y0), (xe, y0), bs);
            run(&mut r, (xe, y0), (xe, sl), ss);
            r
        })
        .collect();
    let corners = [
        (0.0, 0.0),
        (bl, 0.0),
        (bl, sl),
        (bl - sw, sl),
        (bl - sw, bw),
        (0.0, bw),
    ];
    let edges = vec![bs, ss, ws, ss, bs, ws];
    let centre = centre_created(p, 10);
    extrude(&Extrusion {
        rows,
        ring: outline(&corners, &edges),
        edges,
        uvdist: 2.0 * (bl + sl),
        min_x: 0.0,
        x_len: bl,
        y_len: sl,
        height: h,
        hsegs: hs,
        mapping: p.flag(9, true),
        mirror_x: (bl_raw < 0.0).then_some(if centre { bl } else { 0.0 }),
        mirror_y: (sl_raw < 0.0).then_some(if centre { sl } else { 0.0 }),
    })
}

pub fn c_ext_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let (tl_raw, sl_raw, bl_raw) = (p.float_or(0, 0.0), p.float_or(1, 0.0), p.float_or(2, 0.0));
    let tw = p.float_or(3, 0.0).max(MIN_WIDTH);
    let sw = p.float_or(4, 0.0).max(MIN_WIDTH);
    let bw = p.float_or(5, 0.0).max(MIN_WIDTH);
    let h = p.float_or(6, 0.0);
    finite(&[tl_raw, sl_raw, bl_raw, tw, sw, bw, h])?;
    let (ts, ss, bs, ws, hs) = (segs(p, 7), segs(p, 8), segs(p, 9), segs(p, 10), segs(p, 11));
    let (tl, sl, bl) = (tl_raw.abs(), sl_raw.abs(), bl_raw.abs());
    let (dx, tdy, bdy) = (sw / ws as f64, tw / ws as f64, bw / ws as f64);
    let rows = (0..=ws)
        .map(|j| {
            let j = j as f64;
            let (xe, y0, y1) = (bl - j * dx, j * bdy, sl - j * tdy);
            let mut r = vec![(0.0, y0)];
            run(&mut r, (0.0, y0), (xe, y0), bs);
            run(&mut r, (xe, y0), (xe, y1), ss);
            run(&mut r, (xe, y1), (bl - tl, y1), ts);
            r
        })
        .collect();
    let corners = [
        (0.0, 0.0),
        (bl, 0.0),
        (bl, sl),
        (bl - tl, sl),
        (bl - tl, sl - tw),
        (bl - sw, sl - tw),
        (bl - sw, bw),
        (0.0, bw),
    ];
    let edges = vec![bs, ss, ts, ws, ts, ss, bs, ws];
    let centre = centre_created(p, 13);
    extrude(&Extrusion {
        rows,
        ring: outline(&corners, &edges),
        edges,
        uvdist: 2.0 * (bl + tl + sl) - 2.0 * sw,
        min_x: if bl > tl { 0.0 } else { bl - tl },
        x_len: bl.max(tl),
        y_len: sl,
        height: h,
        hsegs: hs,
        mapping: p.flag(12, true),
        mirror_x: (tl_raw < 0.0).then_some(if centre { tl } else { 0.0 }),
        mirror_y: (sl_raw < 0.0).then_some(if centre { sl } else { 0.0 }),
    })
}

/// The closed outline through `corners`, edge k in `edges[k]` steps; the
/// last edge stops before the first corner.
fn outline(corners: &[(f64, f64)], edges: &[usize]) -> Vec<(f64, f64)> {
    let mut v = vec![corners[0]];
    for (k, &n) in edges.iter().enumerate() {
        let (a, b) = (corners[k], corners[(k + 1) % corners.len()]);
        run(&mut v, a, b, n);
    }
    v.pop();
    v
}

fn extrude(e: &Extrusion) -> Result<Mesh, EvalError> {
    let dlevel = e.rows[0].len();
    let ws = e.rows.len() - 1;
    let vpl = e.ring.len();
    check_quads(vpl * (e.hsegs + 1) + 2 * dlevel * (ws + 1))?;
    let minush = e.height < 0.0;
    let h = e.height.abs();
    let topverts = (ws + 1) * dlevel;
    let nverts = 2 * topverts + (e.hsegs + 1) * vpl;
    let mut v = Vec::with_capacity(nverts);
    for r in &e.rows {
        v.extend(r.iter().map(|&(x, y)| Vec3(x, y, h)));
    }
    let hincr = h / e.hsegs as f64;
    for i in 0..=e.hsegs {
        let z = if i == 0 { h } else { h - hincr * i as f64 };
        v.extend(e.ring.iter().map(|&(x, y)| Vec3(x, y, z)));
    }
    for r in &e.rows {
        v.extend(r.iter().map(|&(x, y)| Vec3(x, y, 0.0)));
    }
    // Faces, and their texture faces (the vertex numbering, the wall seam
    // on the extra texture vertices after them).
    let mut faces = Vec::new();
    let mut tf: Vec<[usize; 3]> = Vec::new();
    let cap = |faces: &mut Vec<_>, tf: &mut Vec<[usize; 3]>, start: usize, top_is_inner: bool| {
        for i in 0..ws {
            for j in 0..dlevel - 1 {
                let (outer, inner) = (start + i * dlevel + j, start + (i + 1) * dlevel + j);
                let (t, b) = if top_is_inner {
                    (inner, outer)
                } else {
                    (outer, inner)
                };
                for (f, evis) in [([t, b, b + 1], 0), ([t, b + 1, t + 1], 1)] {
                    faces.push(ext_face(f, evis, 1));
                    tf.push(f);
                }
            }
        }
    };
    cap(&mut faces, &mut tf, 0, true);
    let seam = nverts;
    let groups: Vec<u32> = e
        .edges
        .iter()
        .enumerate()
        .flat_map(|(k, &n)| std::iter::repeat_n(if k % 2 == 0 { 2 } else { 4 }, n))
        .collect();
    for i in 0..e.hsegs {
        let (top, base) = (topverts + i * vpl, topverts + (i + 1) * vpl);
        for (j, &group) in groups.iter().enumerate() {
            let (b1, t1, tb1, tt1) = if j + 1 < vpl {
                (base + j + 1, top + j + 1, base + j + 1, top + j + 1)
            } else {
                (base, top, seam + i + 1, seam + i)
            };
            faces.push(ext_face([top + j, base + j, b1], 0, group));
            faces.push(ext_face([top + j, b1, t1], 1, group));
            tf.push([top + j, base + j, tb1]);
            tf.push([top + j, tb1, tt1]);
        }
    }
    cap(&mut faces, &mut tf, nverts - topverts, false);

    let mut maps = Vec::new();
    if e.mapping {
        let mut tv: Vec<[f32; 3]> = Vec::with_capacity(nverts + e.hsegs + 1);
        let planar = |x: f64, y: f64| [(x - e.min_x) / e.x_len, y / e.y_len];
        for r in &e.rows {
            tv.extend(r.iter().map(|&(x, y)| {
                let [u, w] = planar(x, y);
                [u as f32, w as f32, 0.0]
            }));
        }
        let mut us = Vec::with_capacity(vpl);
        let mut u = 0.0;
        for k in 0..vpl {
            if k > 0 {
                let (a, b) = (e.ring[k - 1], e.ring[k]);
                u += (b.0 - a.0).abs() + (b.1 - a.1).abs();
            }
            us.push(u / e.uvdist);
        }
        for i in 0..=e.hsegs {
            let z = if i == 0 {
                1.0
            } else {
                (h - hincr * i as f64) / h
            };
            tv.extend(us.iter().map(|&u| [u as f32, z as f32, 0.0]));
        }
        for r in &e.rows {
            tv.extend(r.iter().map(|&(x, y)| {
                let [u, w] = planar(x, y);
                [u as f32, (1.0 - w) as f32, 0.0]
            }));
        }
        for i in 0..=e.hsegs {
            let z = if i == 0 {
                1.0
            } else {
                (h - hincr * i as f64) / h
            };
            tv.push([1.0, z as f32, 0.0]);
        }
        maps.push((tv, tf));
    }
    if minush {
        for q in &mut v {
            q.2 -= h;
        }
    }
    if let Some(c) = e.mirror_x {
        for q in &mut v {
            q.0 = c - q.0;
        }
    }
    if let Some(c) = e.mirror_y {
        for q in &mut v {
            q.1 = c - q.1;
        }
    }
    let flip = e.mirror_x.is_some() != e.mirror_y.is_some();
    if flip {
        for f in &mut faces {
            f.v.swap(0, 2);
            // Edge AB takes BC's visibility and BC AB's (CA stays).
            let (ab, bc) = (f.flags & 1, (f.flags >> 1) & 1);
            f.flags = (f.flags & !0b11) | bc | (ab << 1);
        }
    }
    let mut mesh = Mesh {
        vertices: v,
        faces,
        ..Mesh::default()
    };
    for (tv, mut tf) in maps {
        if flip {
            for t in &mut tf {
                t.swap(0, 2);
            }
        }
        mesh.maps.push(checked_channel1(tv, tf)?);
    }
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    //! Invariants: Max's counts (vertices 2·(w + 1)·(arm points) +
    //! (h + 1)·(outline points), faces 4·h·(edge segments)/2 + 4·w·(arm
    //! segments)), a closed outward surface whose volume is the outline's
    //! area times the height, the outline's size equal to the lengths, the
    //! wall seam at u = 1, mirroring for negative lengths.
    use super::*;
    use crate::eval::core::pblock::Value;
    use crate::eval::objects::surface_checks::{closed, signed_volume};

    fn floats_ints(f: &[f32], n: &[i32]) -> Vec<Value> {
        let mut v: Vec<Value> = f.iter().map(|&x| Value::Float(x)).collect();
        v.extend(n.iter().map(|&x| Value::Int(x)));
        v.push(Value::Int(1));
        v
    }

    /// The mesh with coincident vertices merged: the caps and the walls
    /// have vertices of their own, as in Max.
    fn welded(m: &Mesh) -> Mesh {
        let mut first: Vec<u32> = Vec::with_capacity(m.vertices.len());
        for (i, p) in m.vertices.iter().enumerate() {
            let k = m.vertices[..i]
                .iter()
                .position(|q| (p.0 - q.0).abs() + (p.1 - q.1).abs() + (p.2 - q.2).abs() < 1e-9)
                .unwrap_or(i);
            first.push(k as u32);
        }
        let mut w = m.clone();
        for f in &mut w.faces {
            f.v = f.v.map(|i| first[i as usize]);
        }
        w
    }

    fn bounds(m: &Mesh) -> ([f64; 3], [f64; 3]) {
        let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
        for p in &m.vertices {
            for (k, x) in [p.0, p.1, p.2].into_iter().enumerate() {
                lo[k] = lo[k].min(x);
                hi[k] = hi[k].max(x);
            }
        }
        (lo, hi)
    }

    #[test]
    fn l_ext_counts_volume_and_mapping() {
        for [ss, bs, ws, hs] in [[1, 1, 1, 1], [2, 3, 2, 2], [1, 4, 3, 1]] {
            let p =
                Params::from_values(floats_ints(&[10.0, 20.0, 3.0, 4.0, 5.0], &[ss, bs, ws, hs]));
            let m = l_ext_mesh(&p).expect("mesh");
            let (s, b, w, h) = (ss as usize, bs as usize, ws as usize, hs as usize);
            let vpl = 2 * (w + s + b);
            assert_eq!(m.vertices.len(), 2 * (w + 1) * (1 + s + b) + (h + 1) * vpl);
            assert_eq!(m.faces.len(), h * 4 * (w + b + s) + 4 * w * (s + b));
            assert!(closed(&welded(&m)), "{ss}/{bs}/{ws}/{hs}");
            // Area: the 20 × 4 front arm plus the 3 × (10 − 4) side arm.
            let area = 20.0 * 4.0 + 3.0 * 6.0;
            assert!((signed_volume(&m) - area * 5.0).abs() < 1e-9);
            assert_eq!(bounds(&m), ([0.0, 0.0, 0.0], [20.0, 10.0, 5.0]));
            let map = &m.maps[0];
            assert_eq!(map.vertices.len(), m.vertices.len() + h + 1);
            assert_eq!(map.faces.len(), m.faces.len());
            m.check_map_faces().expect("map faces");
            assert_eq!(map.vertices.last(), Some(&[1.0, 0.0, 0.0]));
        }
    }

    #[test]
    fn c_ext_counts_volume() {
        for [ts, ss, bs, ws, hs] in [[1, 1, 1, 1, 1], [2, 3, 1, 2, 3]] {
            let p = Params::from_values(floats_ints(
                &[12.0, 10.0, 15.0, 2.0, 3.0, 4.0, 6.0],
                &[ts, ss, bs, ws, hs],
            ));
            let m = c_ext_mesh(&p).expect("mesh");
            let (t, s, b, w, h) = (
                ts as usize,
                ss as usize,
                bs as usize,
                ws as usize,
                hs as usize,
            );
            let vpl = 2 * (w + t + s + b);
            assert_eq!(
                m.vertices.len(),
                2 * (w + 1) * (1 + t + s + b) + (h + 1) * vpl
            );
            assert_eq!(m.faces.len(), h * 4 * (w + b + t + s) + 4 * w * (t + s + b));
            assert!(closed(&welded(&m)));
            // Front 15 × 4, side 3 × (10 − 4 − 2), back 12 × 2.
            let area = 15.0 * 4.0 + 3.0 * 4.0 + 12.0 * 2.0;
            assert!((signed_volume(&m) - area * 6.0).abs() < 1e-9);
            assert_eq!(bounds(&m), ([0.0, 0.0, 0.0], [15.0, 10.0, 6.0]));
            m.check_map_faces().expect("map faces");
            let us: Vec<f32> = m.maps[0].vertices.iter().map(|t| t[0]).collect();
            assert!(us.iter().all(|&u| (0.0..=1.0).contains(&u)));
        }
    }

    #[test]
    fn negative_lengths_mirror_and_stay_outward() {
        let p = Params::from_values(floats_ints(&[10.0, -20.0, 3.0, 4.0, -5.0], &[1, 1, 1, 1]));
        let m = l_ext_mesh(&p).expect("mesh");
        assert_eq!(bounds(&m), ([-20.0, 0.0, -5.0], [0.0, 10.0, 0.0]));
        assert!(closed(&welded(&m)));
        assert!(signed_volume(&m) > 0.0);
        // Created from the centre: mirrored about the far side.
        let m = l_ext_mesh(&p.clone_with_chunk(1)).expect("mesh");
        assert_eq!(bounds(&m).0[0], 0.0);
        assert_eq!(bounds(&m).1[0], 20.0);
        let p = Params::from_values(floats_ints(&[-10.0, -20.0, 3.0, 4.0, 5.0], &[1, 1, 1, 1]));
        let m = l_ext_mesh(&p).expect("mesh");
        assert!(closed(&welded(&m)) && signed_volume(&m) > 0.0);
    }

    impl Params {
        fn clone_with_chunk(&self, v: i32) -> Params {
            let vals = (0..10)
                .map(|i| {
                    if i < 5 {
                        Value::Float(self.float_or(i, 0.0) as f32)
                    } else {
                        Value::Int(self.int_or(i, 0) as i32)
                    }
                })
                .collect();
            Params::from_values(vals).with_chunk_0100(v)
        }
    }
}
