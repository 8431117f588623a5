//! Bevel (0x1017, 0x7f9e; `bevel.dlm`): a shape extruded through up to four
//! levels, each level's outline offset in the shape's plane.
//!
//! Old ParamBlock (reference 0), in the order of the MAXScript properties:
//! 0 Cap_Bottom, 1 Cap_Top, 2 Cap_Type (0 morph, 1 grid), 3 Side_Type
//! (0 linear, 1 curved), 4 segments, 5 Smooth_Levels, 6 Produce_Mapping_Coords,
//! 7 Keep_Lines_From_Crossing, 8 separation, 9 Starting_Outline, 10 / 11
//! level 1 height / outline, 12 use level 2, 13 / 14 its height / outline,
//! 15 use level 3, 16 / 17 its height / outline.
//!
//! The documented rule: the start level is the shape offset by the start
//! outline at z 0; each level on lies its height above the previous one,
//! its outline offset by its outline amount more (positive grows the shape,
//! so outlines move outwards and holes inwards). Each ring is the polyline
//! offset with mitred corners: every edge moves along its normal by the
//! offset, and the point sits where the moved edges meet. Linear sides
//! interpolate `segments` rings between levels. Layout as Extrude's
//! (`extrude`): per polyline (organised: outlines counter-clockwise, holes
//! clockwise), per ring, its points; side quads as two triangles per
//! segment; morph caps on the first (facing −Z) and last ring (+Z).
//! Smoothing: with Smooth Across Levels the sides take Extrude's groups
//! (the same on every band, so smooth across the levels), without it none
//! ("smoothing groups are not applied"); caps group 0.
//!
//! Pinned on Max's Mesh Totals (docs/evaluation.md): an Egg whose inner
//! wall collapses to one point (23 coincident points) makes one vertex per
//! ring and no face. Refused by name: grid capping, curved sides, mapping,
//! Keep Lines From Crossing, a top below the start, open polylines with an
//! outline, polylines with coincident neighbours, and rings or profiles
//! that cross themselves or each other (Max's result there is not measured).

use super::extrude::{cap, organized, SideGroups};
use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::eval::objects::primitive::block_params;
use crate::eval::objects::shape::organize::Hierarchy;
use crate::eval::objects::shape::{PolyLine, PolyPt};
use crate::typed::ClassId;

pub const BEVEL: ClassId = ClassId(0x1017, 0x7f9e);

/// Largest height or outline accepted (damaged values beyond).
const MAX_AMOUNT: f64 = 1_000_000.0;
/// Most segments accepted (damaged values).
const MAX_SEGMENTS: i64 = 10_000;
/// Mesh vertices a bevel may make at most.
const MAX_VERTICES: usize = 1 << 23;

/// One level above the previous: its height and its outline's extra offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    pub height: f64,
    pub outline: f64,
}

/// Bevel's settings (linear sides and morph caps: the evaluated kind).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub cap_start: bool,
    pub cap_end: bool,
    pub segments: usize,
    pub smooth: bool,
    pub start_outline: f64,
    /// Level 1, then levels 2 and 3 when on.
    pub levels: Vec<Level>,
}

impl Settings {
    /// Each ring's (z, offset): the start level, then `segments` rings per
    /// level, interpolated linearly from the level below.
    pub fn rings(&self) -> Vec<(f64, f64)> {
        let mut out = vec![(0.0, self.start_outline)];
        let (mut z, mut d) = (0.0, self.start_outline);
        for l in &self.levels {
            for k in 1..=self.segments {
                let f = k as f64 / self.segments as f64;
                out.push((z + f * l.height, d + f * l.outline));
            }
            z += l.height;
            d += l.outline;
        }
        out
    }
}

fn settings(m: &Applied, cx: &ModContext) -> Result<Settings, EvalError> {
    let pb = crate::eval::core::pblock::reference(&cx.eval.graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    if crate::eval::core::pblock::is_param_block2(&cx.eval.graph, pb) {
        return Err(EvalError::not_evaluated_why(
            "a ParamBlock2 Bevel",
            "its ids are not known",
        ));
    }
    let p = block_params(cx.eval, pb, cx.t)?;
    if p.int_or(2, 0) != 0 {
        return Err(EvalError::not_evaluated_why(
            "grid capping",
            "Max's grid capper is not public",
        ));
    }
    if p.int_or(3, 0) != 0 {
        return Err(EvalError::not_evaluated_why(
            "curved sides",
            "the Bezier Max interpolates between levels is not measured",
        ));
    }
    if p.flag(6, false) {
        return Err(EvalError::not_evaluated_why(
            "generated mapping coordinates",
            "how Bevel maps its sides and caps is not measured",
        ));
    }
    if p.flag(7, false) {
        return Err(EvalError::not_evaluated_why(
            "Keep Lines From Crossing",
            "where Max inserts its extra outline vertices is not measured",
        ));
    }
    let segments = p.int_or(4, 1);
    if segments > MAX_SEGMENTS {
        return Err(EvalError::malformed("", format!("{segments} segments")));
    }
    let amount = |i: usize| -> Result<f64, EvalError> {
        let v = p.float_or(i, 0.0);
        if !v.is_finite() || v.abs() > MAX_AMOUNT {
            return Err(EvalError::malformed("", format!("parameter {i} is {v}")));
        }
        Ok(v)
    };
    let mut levels = vec![Level {
        height: amount(10)?,
        outline: amount(11)?,
    }];
    for (on, h, o) in [(12, 13, 14), (15, 16, 17)] {
        if p.flag(on, false) {
            levels.push(Level {
                height: amount(h)?,
                outline: amount(o)?,
            });
        }
    }
    Ok(Settings {
        cap_start: p.flag(0, true),
        cap_end: p.flag(1, true),
        segments: segments.max(1) as usize,
        smooth: p.flag(5, false),
        start_outline: amount(9)?,
        levels,
    })
}

/// The mesh of a Bevel applied to the polylines of a shape.
pub fn apply_to_shape(m: &Applied, lines: &[PolyLine], cx: &ModContext) -> Result<Mesh, EvalError> {
    let s = settings(m, cx)?;
    bevel(lines, &s)
}

/// Bevels `lines` (object space of the shape) with settings `s`.
pub fn bevel(lines: &[PolyLine], s: &Settings) -> Result<Mesh, EvalError> {
    let rings = s.rings();
    let top = rings.last().map_or(0.0, |r| r.0);
    if top <= 0.0 {
        return Err(EvalError::not_evaluated_why(
            format!("a bevel whose top level is at height {top}"),
            "Max's faces for a top not above the start are not measured",
        ));
    }
    check_profile(&rings)?;
    let eps = tolerance(lines);
    let (points, lines): (Vec<PolyLine>, Vec<PolyLine>) = lines
        .iter()
        .filter(|l| !l.pts.is_empty())
        .cloned()
        .partition(|l| collapsed(l, eps));
    let offsets = rings.iter().any(|r| r.1 != 0.0);
    for (i, l) in lines.iter().enumerate() {
        check_polyline(i, l, offsets, eps)?;
    }
    let (hier, lines) = organized(&lines);
    let mitres: Vec<Vec<(f64, f64)>> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| mitres(i, l))
        .collect::<Result<_, _>>()?;
    let ring_lines = |d: f64, z: f64| -> Vec<PolyLine> {
        lines
            .iter()
            .zip(&mitres)
            .map(|(l, m)| offset(l, m, d, z))
            .collect()
    };
    for &(z, d) in &rings {
        check_rings(&lines, &ring_lines(d, z), &hier)?;
    }
    let level_verts: usize = lines.iter().map(|l| l.pts.len()).sum::<usize>() + points.len();
    if level_verts.saturating_mul(rings.len()) > MAX_VERTICES {
        return Err(EvalError::malformed(
            "",
            format!("{level_verts} points × {} rings", rings.len()),
        ));
    }
    let mut mesh = Mesh::default();
    let mut first_vertex = Vec::with_capacity(lines.len());
    for (l, m) in lines.iter().zip(&mitres) {
        first_vertex.push(mesh.vertices.len());
        for &(z, d) in &rings {
            mesh.vertices
                .extend(offset(l, m, d, z).pts.iter().map(|p| p.p));
        }
    }
    // A polyline whose points all coincide: one vertex per ring, no face.
    for l in &points {
        for &(z, _) in &rings {
            mesh.vertices
                .push(Vec3(l.pts[0].p.0, l.pts[0].p.1, l.pts[0].p.2 + z));
        }
    }
    side_faces(&mut mesh, &lines, &first_vertex, rings.len(), s.smooth);
    if lines.iter().any(|l| l.closed) {
        let last = rings.len() - 1;
        for (start, wanted, ring, material) in
            [(true, s.cap_start, 0, 0u16), (false, s.cap_end, last, 1u16)]
        {
            if !wanted {
                continue;
            }
            let (z, d) = rings[ring];
            let at = ring_lines(d, z);
            let size = |li: usize| lines[li].pts.len();
            let vertex = |li: usize, k: usize| (first_vertex[li] + ring * size(li) + k) as u32;
            cap(&mut mesh, &at, &hier, vertex, start, material);
        }
    }
    Ok(mesh)
}

/// Side faces: per polyline, per band between consecutive rings, per
/// segment two triangles as Extrude lays them, material 2.
fn side_faces(mesh: &mut Mesh, lines: &[PolyLine], first: &[usize], rings: usize, smooth: bool) {
    for (l, &base) in lines.iter().zip(first) {
        let n = l.pts.len() as u32;
        let pieces = l.segments() as u32;
        for band in 0..rings.saturating_sub(1) as u32 {
            let row = base as u32 + band * n;
            let mut groups = SideGroups::new(l.pts[0].smooth, pieces as usize);
            for piece in 0..pieces {
                let v1 = row + piece;
                let v2 = row + (piece + 1) % n;
                let (v3, v4) = (v1 + n, v2 + n);
                let group = groups.next(piece as usize, l.pts[piece as usize].smooth);
                let smoothing = if smooth { group } else { 0 };
                mesh.faces.push(Face {
                    v: [v1, v2, v4],
                    smoothing,
                    material: 2,
                    flags: 0b011,
                });
                mesh.faces.push(Face {
                    v: [v1, v4, v3],
                    smoothing,
                    material: 2,
                    flags: 0b110,
                });
            }
        }
    }
}

/// Points closer than this share of the shape's extent are one point
/// (Max's polylines are single precision).
const SAME_POINT: f64 = 1e-7;

/// The distance under which two points of `lines` are one.
fn tolerance(lines: &[PolyLine]) -> f64 {
    let extent = lines
        .iter()
        .flat_map(|l| &l.pts)
        .map(|p| p.p.0.abs().max(p.p.1.abs()))
        .fold(1.0, f64::max);
    SAME_POINT * extent
}

fn same(a: Vec3, b: Vec3, eps: f64) -> bool {
    (a.0 - b.0).abs() <= eps && (a.1 - b.1).abs() <= eps
}

/// Whether every point of `l` (not empty) coincides with its first.
fn collapsed(l: &PolyLine, eps: f64) -> bool {
    let a = l.pts[0].p;
    l.pts.iter().all(|p| same(p.p, a, eps))
}

/// The refusals of one polyline before offsetting.
fn check_polyline(i: usize, l: &PolyLine, offsets: bool, eps: f64) -> Result<(), EvalError> {
    if !l.closed {
        if offsets && l.pts.len() > 1 {
            return Err(EvalError::not_evaluated_why(
                format!("an outline on open polyline {i}"),
                "which side Max offsets an open polyline to is not measured",
            ));
        }
        return Ok(());
    }
    if l.pts.len() < 3 || l.signed_area_xy() == 0.0 {
        return Err(EvalError::not_evaluated_why(
            format!("closed polyline {i} of {} points and no area", l.pts.len()),
            "Max's bevel of it is not measured",
        ));
    }
    let n = l.pts.len();
    if let Some(k) = (0..n).find(|&k| same(l.pts[k].p, l.pts[(k + 1) % n].p, eps)) {
        return Err(EvalError::not_evaluated_why(
            format!("polyline {i}'s points {k} and {} coincide", (k + 1) % n),
            "whether Max's Bevel welds them is not measured",
        ));
    }
    Ok(())
}

/// Per point of `l`, the shift in XY of a unit outline: the sum of the
/// normals (to the right of travel: outwards on an organised outline,
/// into a hole) of the edges meeting there over 1 + their dot product, so
/// each edge moves by exactly the offset. An open polyline (no outline,
/// see `check_polyline`) has none.
fn mitres(i: usize, l: &PolyLine) -> Result<Vec<(f64, f64)>, EvalError> {
    let n = l.pts.len();
    if !l.closed || n < 3 {
        return Ok(vec![(0.0, 0.0); n]);
    }
    let normal = |a: usize, b: usize| {
        let (p, q) = (l.pts[a].p, l.pts[b].p);
        let (dx, dy) = (q.0 - p.0, q.1 - p.1);
        let len = dx.hypot(dy);
        (dy / len, -dx / len)
    };
    (0..n)
        .map(|k| {
            let n1 = normal((k + n - 1) % n, k);
            let n2 = normal(k, (k + 1) % n);
            let w = 1.0 + n1.0 * n2.0 + n1.1 * n2.1;
            if w.is_nan() || w <= 1e-9 || !n1.0.is_finite() || !n2.0.is_finite() {
                return Err(EvalError::not_evaluated_why(
                    format!("polyline {i} turning back on itself at point {k}"),
                    "a mitred offset there has no meeting point",
                ));
            }
            Ok(((n1.0 + n2.0) / w, (n1.1 + n2.1) / w))
        })
        .collect()
}

/// Polyline `l` offset by `d` along its mitres `m`, raised by `z`.
fn offset(l: &PolyLine, m: &[(f64, f64)], d: f64, z: f64) -> PolyLine {
    PolyLine {
        pts: l
            .pts
            .iter()
            .zip(m)
            .map(|(p, m)| PolyPt {
                p: Vec3(p.p.0 + d * m.0, p.p.1 + d * m.1, p.p.2 + z),
                ..*p
            })
            .collect(),
        closed: l.closed,
    }
}

/// The rings of one level keep the shape's topology: each edge keeps its
/// direction (an edge offset past its length turns over), each closed
/// ring keeps its orientation and nesting, and no two edges cross or touch.
fn check_rings(src: &[PolyLine], rings: &[PolyLine], hier: &Hierarchy) -> Result<(), EvalError> {
    for (i, (l, r)) in src.iter().zip(rings).enumerate() {
        let n = l.pts.len();
        for k in 0..l.segments() {
            let (a, b) = (l.pts[k].p, l.pts[(k + 1) % n].p);
            let (c, d) = (r.pts[k].p, r.pts[(k + 1) % n].p);
            if (b.0 - a.0) * (d.0 - c.0) + (b.1 - a.1) * (d.1 - c.1) <= 0.0 {
                return Err(crossing(format!(
                    "edge {k} of polyline {i}'s ring turned over"
                )));
            }
        }
        if let Some(depth) = hier.depth[i] {
            if (r.signed_area_xy() > 0.0) != (depth % 2 == 0) {
                return Err(crossing(format!("ring of polyline {i} turned over")));
            }
        }
    }
    for (i, r) in rings.iter().enumerate() {
        if hier.depth[i].is_none() {
            continue;
        }
        let p = r.pts[0].p;
        let containers = rings
            .iter()
            .enumerate()
            .filter(|&(j, o)| {
                j != i
                    && hier.depth[j].is_some()
                    && crate::eval::objects::shape::organize::inside(o, p.0, p.1)
            })
            .count();
        if Some(containers) != hier.depth[i] {
            return Err(crossing(format!(
                "ring of polyline {i} changed its nesting"
            )));
        }
    }
    let mut segs: Vec<Seg> = Vec::new();
    for (li, r) in rings.iter().enumerate() {
        let n = r.pts.len();
        for k in 0..r.segments() {
            let (a, b) = (r.pts[k].p, r.pts[(k + 1) % n].p);
            segs.push(Seg {
                line: li,
                k,
                n,
                closed: r.closed,
                a: (a.0, a.1),
                b: (b.0, b.1),
            });
        }
    }
    if let Some((x, y)) = first_crossing(&mut segs) {
        return Err(crossing(format!(
            "rings of polylines {} and {} cross",
            x.line, y.line
        )));
    }
    Ok(())
}

fn crossing(what: String) -> EvalError {
    EvalError::not_evaluated_why(what, "Max's bevel of outlines that cross is not measured")
}

/// The profile (offset, z) of the rings, closed by the caps as rays into
/// the shape, must not cross itself: else the sides pass through each other
/// or through a cap.
fn check_profile(rings: &[(f64, f64)]) -> Result<(), EvalError> {
    let far = rings.iter().map(|r| r.1.abs()).fold(0.0, f64::max) * 4.0 + 1.0;
    let mut pts: Vec<(f64, f64)> = vec![(rings[0].1 - far, 0.0)];
    pts.extend(rings.iter().map(|r| (r.1, r.0)));
    if let Some(last) = rings.last() {
        pts.push((last.1 - far, last.0));
    }
    // Rings at the same place (a level of no height and no outline) are one.
    pts.dedup();
    let mut segs: Vec<Seg> = pts
        .windows(2)
        .enumerate()
        .map(|(k, w)| Seg {
            line: 0,
            k,
            n: pts.len(),
            closed: false,
            a: w[0],
            b: w[1],
        })
        .collect();
    if first_crossing(&mut segs).is_some() {
        return Err(EvalError::not_evaluated_why(
            "a bevel profile that crosses itself",
            "Max's result for sides passing through each other is not measured",
        ));
    }
    Ok(())
}

/// An edge in XY: segment `k` of polyline `line` (of `n` points).
#[derive(Debug, Clone, Copy)]
struct Seg {
    line: usize,
    k: usize,
    n: usize,
    closed: bool,
    a: (f64, f64),
    b: (f64, f64),
}

impl Seg {
    fn lo(&self) -> f64 {
        self.a.0.min(self.b.0)
    }
    fn hi(&self) -> f64 {
        self.a.0.max(self.b.0)
    }
    /// Neighbours on one polyline share an end point by construction.
    fn adjacent(&self, o: &Seg) -> bool {
        if self.line != o.line {
            return false;
        }
        let d = self.k.abs_diff(o.k);
        d == 1 || (self.closed && d + 1 == self.n)
    }
}

/// Twice the signed area of (a, b, c).
fn orient(a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> f64 {
    (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
}

fn on_segment(a: (f64, f64), b: (f64, f64), p: (f64, f64)) -> bool {
    p.0 >= a.0.min(b.0) && p.0 <= a.0.max(b.0) && p.1 >= a.1.min(b.1) && p.1 <= a.1.max(b.1)
}

/// Whether two segments meet (cross, or one touches the other).
fn meet(s: &Seg, t: &Seg) -> bool {
    let (d1, d2) = (orient(t.a, t.b, s.a), orient(t.a, t.b, s.b));
    let (d3, d4) = (orient(s.a, s.b, t.a), orient(s.a, s.b, t.b));
    if d1 * d2 < 0.0 && d3 * d4 < 0.0 {
        return true;
    }
    (d1 == 0.0 && on_segment(t.a, t.b, s.a))
        || (d2 == 0.0 && on_segment(t.a, t.b, s.b))
        || (d3 == 0.0 && on_segment(s.a, s.b, t.a))
        || (d4 == 0.0 && on_segment(s.a, s.b, t.b))
}

/// The first pair of non-adjacent segments that meet (a sweep along X).
fn first_crossing(segs: &mut [Seg]) -> Option<(Seg, Seg)> {
    segs.sort_by(|x, y| x.lo().total_cmp(&y.lo()));
    for i in 0..segs.len() {
        let s = segs[i];
        for t in &segs[i + 1..] {
            if t.lo() > s.hi() {
                break;
            }
            if !s.adjacent(t) && meet(&s, t) {
                return Some((s, *t));
            }
        }
    }
    None
}

#[cfg(test)]
#[path = "bevel_tests.rs"]
mod tests;
