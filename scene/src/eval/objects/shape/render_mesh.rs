//! The renderable-spline mesh: a shape whose "Enable In Renderer" is set is
//! rendered as a tube along each polyline — radial (a ring of `sides` points
//! of diameter `thickness`, turned by `angle`) or rectangular (`width` along
//! the cross-section's X, `length` along its Y, turned by `angle`).
//!
//! The ShapeObject's rendering block (reference 0, old ParamBlock by index —
//! the order of Max's `ShapeObject` accessors): 0 thickness, 1 sides,
//! 2 angle (degrees), 3–5 the viewport's, 6 renderable, 7 generate mapping,
//! 8 display in viewport, 9 use viewport settings, 11 rectangular, 12 width,
//! 13 length, 14 angle, 15–18 the viewport's, 20 auto smooth, 21 its
//! threshold (radians). Only the renderer's settings make geometry; a shape
//! shown in viewports only is not rendered.
//!
//! Max builds this mesh in its core (not public), so the layout here is ours
//! and stated: one ring per polyline point, in point order, its points
//! starting on the cross-section's +X turned by the angle, counter-clockwise
//! about the path direction; the ring's frame is carried along the path
//! without twist (parallel transport) from a start frame whose X is the
//! shape's +Z projected off the path (or +X when the path runs along Z);
//! where the path turns, the ring lies across the bisecting direction and
//! is stretched along the turn by 1 / cos(half the turn), a miter keeping
//! the thickness about both segments (measured against an FBX, see
//! `miter`); quads between consecutive rings (wrapping on closed splines), two
//! triangles each (a, b′, b) and (b′, a, a′) — a, a′ neighbours on one ring,
//! b, b′ on the next — with the diagonal hidden; an open polyline's ends are capped by fans over the ring's
//! own points (no new vertices). Smoothing: faces of one column share a
//! group, columns share none unless auto smooth is on and the ring's corner
//! angle is within the threshold (radial only); caps have none. Mapping (with
//! "generate mapping"): U along the path by length, V around the ring.
//! Mesh Totals cannot check it: Max's totals leave bare shapes out (the
//! renderable Lines and Arcs of 1st_island, animation and Villian), so the
//! counts are checked by invariants.

use serde::Serialize;

use super::parametric::block;
use super::{PolyLine, ShapeError};
use crate::eval::core::math::Vec3;
use crate::eval::core::transform::SceneEval;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};
use crate::eval::objects::primitive::Params;

/// Reference slot of the ShapeObject's rendering block.
const RENDER_BLOCK: u32 = 0;
/// Most sides a radial cross-section may have (Max's spinner stops at 100).
const MAX_SIDES: i64 = 100;
/// Rendered vertices at most (a damaged shape must not allocate much).
const MAX_RENDER_VERTICES: usize = 1 << 23;

/// The renderer's settings of a shape.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RenderParams {
    pub renderable: bool,
    /// The renderer's cross-section (0–2, 11–14).
    #[serde(flatten)]
    pub section: Section,
    pub mapping: bool,
    pub auto_smooth: bool,
    pub threshold: f64,
    /// "Enable In Viewport" (8): the viewport shows, and a mesh modifier
    /// above takes, the tube.
    pub in_viewport: bool,
    /// "Use Viewport Settings" (9): the viewport's tube has `viewport`'s
    /// cross-section, not the renderer's.
    pub use_viewport: bool,
    /// The viewport's cross-section (3–5, 15–18).
    pub viewport: Section,
}

/// A cross-section's settings (radial or rectangular).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Section {
    pub thickness: f64,
    pub sides: u32,
    /// Radians.
    pub angle: f64,
    pub rectangular: bool,
    pub width: f64,
    pub length: f64,
    pub rect_angle: f64,
}

impl Section {
    /// The section whose radial settings (thickness, sides, angle in
    /// degrees) are at `radial` and rectangular ones (switch, width,
    /// length, angle in degrees) at `rect` in the rendering block `p`.
    fn read(p: &Params, radial: [usize; 3], rect: [usize; 4]) -> Result<Section, ShapeError> {
        let [thickness, sides, angle] = radial;
        let [rectangular, width, length, rect_angle] = rect;
        let n = p.int_or(sides, 12);
        if !(3..=MAX_SIDES).contains(&n) {
            return Err(ShapeError::Param {
                index: sides,
                why: format!("{n} sides"),
            });
        }
        Ok(Section {
            thickness: p.float_or(thickness, 1.0),
            sides: n as u32,
            angle: p.float_or(angle, 0.0).to_radians(),
            rectangular: p.flag(rectangular, false),
            width: p.float_or(width, 2.0),
            length: p.float_or(length, 6.0),
            rect_angle: p.float_or(rect_angle, 0.0).to_radians(),
        })
    }

    /// The cross-section's points in its own plane (X, Y), counter-clockwise.
    pub fn points(&self) -> Vec<(f64, f64)> {
        if self.rectangular {
            let (w, l) = (self.width / 2.0, self.length / 2.0);
            let (s, c) = self.rect_angle.sin_cos();
            [(w, -l), (w, l), (-w, l), (-w, -l)]
                .iter()
                .map(|&(x, y)| (x * c - y * s, x * s + y * c))
                .collect()
        } else {
            let r = self.thickness / 2.0;
            (0..self.sides)
                .map(|k| {
                    let a =
                        self.angle + std::f64::consts::TAU * f64::from(k) / f64::from(self.sides);
                    (r * a.cos(), r * a.sin())
                })
                .collect()
        }
    }
}

impl RenderParams {
    pub fn read(eval: &SceneEval, obj: usize, t: i32) -> Result<RenderParams, ShapeError> {
        let p = block(eval, obj, RENDER_BLOCK, t)?;
        let viewport = Section::read(&p, [3, 4, 5], [15, 16, 17, 18])?;
        Ok(RenderParams {
            renderable: p.flag(6, false),
            section: Section::read(&p, [0, 1, 2], [11, 12, 13, 14])?,
            mapping: p.flag(7, false),
            auto_smooth: p.flag(20, true),
            threshold: p.float_or(21, 40f64.to_radians()),
            in_viewport: p.flag(8, false),
            use_viewport: p.flag(9, false),
            viewport,
        })
    }

    /// The tube the viewport shows: the viewport's cross-section when "Use
    /// Viewport Settings" is set, else the renderer's.
    pub fn viewport_tube(&self) -> RenderParams {
        if !self.use_viewport {
            return *self;
        }
        RenderParams {
            section: self.viewport,
            ..*self
        }
    }
}

/// Tangent at point `i` of a polyline: the mean of its two segment directions.
fn tangent(l: &PolyLine, i: usize) -> Vec3 {
    let n = l.pts.len();
    let dir = |a: usize, b: usize| l.pts[b].p.minus(l.pts[a].p).normalized();
    let (prev, next) = if l.closed {
        (Some((i + n - 1) % n), Some((i + 1) % n))
    } else {
        (i.checked_sub(1), (i + 1 < n).then_some(i + 1))
    };
    let t = match (prev, next) {
        (Some(p), Some(q)) => dir(p, i).plus(dir(i, q)),
        (Some(p), None) => dir(p, i),
        (None, Some(q)) => dir(i, q),
        (None, None) => Vec3(0.0, 0.0, 1.0),
    };
    if t.len() < 1e-12 {
        dir(i, next.or(prev).unwrap_or(i))
    } else {
        t.normalized()
    }
}

/// The miter of the ring at point `i` where the path turns: the unit
/// direction in the ring's plane (perpendicular to the bisecting tangent
/// `t`) that lies in the plane of the turn, and the factor 1 / cos(half the
/// turn) the ring is stretched by along it, so that the tube keeps its
/// thickness about both segments. Measured on Splitzy/Model-Showcase's
/// Door.max (Design Challenge 2): the 12-sided, 0.53 thick tube of Line
/// Handle turns 90° at its two inner knots, and the rings Max's FBX export
/// holds there span 0.53 across the turn's diagonal and along both
/// segments' directions (stretched by √2), as this gives; unstretched they
/// would span 0.375 (docs/unseen-files.md, fourteenth sweep). None at an
/// open end, on a straight run, or where the path folds back on itself.
fn miter(l: &PolyLine, i: usize, t: Vec3) -> Option<(Vec3, f64)> {
    let n = l.pts.len();
    let prev = if l.closed {
        (i + n - 1) % n
    } else {
        i.checked_sub(1)?
    };
    let next = if l.closed {
        (i + 1) % n
    } else {
        Some(i + 1).filter(|&j| j < n)?
    };
    let d_in = l.pts[i].p.minus(l.pts[prev].p);
    let d_out = l.pts[next].p.minus(l.pts[i].p);
    if d_in.len() < 1e-12 || d_out.len() < 1e-12 {
        return None;
    }
    let d_in = d_in.normalized();
    let c = t.dot(d_in);
    let across = d_in.minus(t.scale(c));
    // Straight (no turn) or folded back (no finite miter).
    if across.len() < 1e-9 || c < 1e-3 {
        return None;
    }
    Some((across.normalized(), 1.0 / c))
}

/// Turns `v` by the rotation taking unit vector `a` onto unit vector `b`.
fn transport(v: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let axis = a.cross(b);
    let s = axis.len();
    let c = a.dot(b);
    if s < 1e-12 {
        return v;
    }
    let k = axis.scale(1.0 / s);
    // Rodrigues' rotation by the angle between a and b about k.
    v.scale(c)
        .plus(k.cross(v).scale(s))
        .plus(k.scale(k.dot(v) * (1.0 - c)))
}

/// The rendered mesh of a shape's polylines.
pub fn render_mesh(lines: &[PolyLine], r: &RenderParams) -> Result<Mesh, ShapeError> {
    tube(lines, r, true)
}

/// The tube along `lines`; an open polyline's ends are capped when `capped`.
pub fn tube(lines: &[PolyLine], r: &RenderParams, capped: bool) -> Result<Mesh, ShapeError> {
    let section = r.section.points();
    let m = section.len();
    let total: usize = lines
        .iter()
        .map(|l| l.pts.len())
        .sum::<usize>()
        .saturating_mul(m);
    if total > MAX_RENDER_VERTICES {
        return Err(ShapeError::damaged(
            "renderable shape",
            format!("{total} vertices"),
        ));
    }
    let smooth_around =
        !r.section.rectangular && r.auto_smooth && std::f64::consts::TAU / m as f64 <= r.threshold;
    let mut mesh = Mesh::default();
    let (mut tverts, mut tfaces) = (Vec::new(), Vec::new());
    for l in lines.iter().filter(|l| l.pts.len() >= 2) {
        let n = l.pts.len();
        let base = mesh.vertices.len() as u32;
        let tbase = tverts.len() as u32;
        let t0 = tangent(l, 0);
        let up = Vec3(0.0, 0.0, 1.0);
        let mut x = up.minus(t0.scale(up.dot(t0)));
        if x.len() < 1e-9 {
            x = Vec3(1.0, 0.0, 0.0).minus(t0.scale(t0.0));
        }
        let mut x = x.normalized();
        let mut prev_t = t0;
        let mut along = 0.0;
        let total_len = l.length().max(f64::MIN_POSITIVE);
        for i in 0..n {
            let t = tangent(l, i);
            x = transport(x, prev_t, t).normalized();
            prev_t = t;
            let y = t.cross(x);
            if i > 0 {
                along += l.pts[i].p.minus(l.pts[i - 1].p).len();
            }
            let miter = miter(l, i, t);
            for &(sx, sy) in &section {
                let mut o = x.scale(sx).plus(y.scale(sy));
                if let Some((b, s)) = miter {
                    o = o.plus(b.scale(o.dot(b) * (s - 1.0)));
                }
                mesh.vertices.push(l.pts[i].p.plus(o));
            }
            if r.mapping {
                for k in 0..=m {
                    tverts.push([(along / total_len) as f32, k as f32 / m as f32, 0.0]);
                }
            }
        }
        let rows = if l.closed { n } else { n - 1 };
        for i in 0..rows {
            let (a, b) = (i as u32, ((i + 1) % n) as u32);
            for k in 0..m as u32 {
                let k1 = (k + 1) % m as u32;
                let v = |row: u32, col: u32| base + row * m as u32 + col;
                let group = if smooth_around { 1 } else { 1 << (k % 32) };
                mesh.faces
                    .push(face([v(a, k), v(b, k1), v(b, k)], group, 0b110));
                mesh.faces
                    .push(face([v(b, k1), v(a, k), v(a, k1)], group, 0b110));
                if r.mapping {
                    let (ta, tb) = (
                        i as u32,
                        if l.closed && i + 1 == n {
                            n as u32
                        } else {
                            (i + 1) as u32
                        },
                    );
                    let tv = |row: u32, col: u32| tbase + row * (m as u32 + 1) + col;
                    tfaces.push([tv(ta, k), tv(tb, k + 1), tv(tb, k)]);
                    tfaces.push([tv(tb, k + 1), tv(ta, k), tv(ta, k + 1)]);
                }
            }
        }
        if r.mapping && l.closed {
            // The closing row's texture vertices at U = 1.
            for k in 0..=m {
                tverts.push([1.0, k as f32 / m as f32, 0.0]);
            }
        }
        if capped && !l.closed {
            for (row, flip) in [(0u32, true), ((n - 1) as u32, false)] {
                for k in 1..m as u32 - 1 {
                    let v = |col: u32| base + row * m as u32 + col;
                    let tri = if flip {
                        [v(0), v(k + 1), v(k)]
                    } else {
                        [v(0), v(k), v(k + 1)]
                    };
                    mesh.faces.push(face(tri, 0, cap_edges(k, m as u32, flip)));
                    if r.mapping {
                        let tv = |col: u32| tbase + row * (m as u32 + 1) + col;
                        tfaces.push(if flip {
                            [tv(0), tv(k + 1), tv(k)]
                        } else {
                            [tv(0), tv(k), tv(k + 1)]
                        });
                    }
                }
            }
        }
    }
    if r.mapping {
        mesh.maps.push(MapChannel {
            channel: 1,
            vertices: tverts,
            faces: tfaces,
        });
    }
    Ok(mesh)
}

/// Visible edges of cap fan triangle `k` (1 ..= m − 2) of an `m`-point
/// ring: the ring's own edges, never the fan's diagonals. Unflipped the
/// triangle is (0, k, k + 1): edge 0 is the ring's when k = 1, edge 2 when
/// k = m − 2; flipped, (0, k + 1, k), the other way round; edge 1 always is.
fn cap_edges(k: u32, m: u32, flip: bool) -> u16 {
    let (first, last) = if flip { (0b100, 0b001) } else { (0b001, 0b100) };
    let mut flags = 0b010;
    if k == 1 {
        flags |= first;
    }
    if k + 2 == m {
        flags |= last;
    }
    flags
}

fn face(v: [u32; 3], smoothing: u32, flags: u16) -> Face {
    Face {
        v,
        smoothing,
        material: 0,
        flags,
    }
}
