//! Sweep (0x25ebc866, 0x1f88220f): a section shape placed at every point of
//! the path shape it sits on, the rings joined into a mesh.
//!
//! References: 0 the ParamBlock2, 1 the custom section's shape object, k + 2
//! the built-in section of index k (0 Angle, 1 Bar: a Rectangle, 2 Channel,
//! 3 Cylinder: a Circle, 4 Half Round, 5 Pipe, 6 Quarter Round, 7 Tee,
//! 8 Tube: a WRectangle, 9 Wide Flange), made when the user first picks it.
//! ParamBlock2 ids, by their stored types and the public files: 0 the
//! section shapes (an object table), 2 the custom section's name, 3 the
//! current built-in section (a 0-based index: Spline-Chair's 3 with a
//! Circle at reference 5, Sweep_Frame's 4 with a Half Round last made),
//! 4 Custom Section (1) or built-in (0), 5 / 6 Mirror on XZ / XY, 7 X Offset,
//! 8 Y Offset (floats), 9 Angle (an angle), 12–20 switches (smoothing,
//! pivot alignment −1 at 17, banking, mapping, material ids), 21 the custom
//! section's mode (how a picked shape is attached: no bearing on the mesh).
//!
//! Verified against Gate.max's FBX export (ckpcso/meta3, docs/unseen-files.md:
//! Circle001, a Circle path of 28 points under a custom section of five
//! closed circles of 28 points; all 3920 vertices within 2.3e-6 of the
//! mesh's size, the 7840 triangles equal index for index):
//! - levels are the path polyline's points (its own interpolation), the
//!   section's points its polylines' (its own interpolation, in its object
//!   space, the section node's transform ignored);
//! - at each level the section's Y runs along the path's +Z, its X along
//!   T × Z, T the bisector of the path's chords to the previous and the next
//!   point; X is widened by 1 / cos(θ/2), θ the turn between those chords
//!   (the mitre Loft's constant cross-section also uses);
//! - vertices level by level, each level the section's polylines' points in
//!   order; per band and section segment, with a, a′ neighbours on one level
//!   and b, b′ the same points a level on, the triangles (a, b, b′) and
//!   (b′, a′, a), diagonal hidden; a closed path wraps to level 0, no cap.
//!
//! Pinned by Max's Mesh Totals and geometric invariants (no export):
//! - an open path (Sweep_Bridge.max: 17 path points × 115 section points and
//!   2 × 16 × 115 side triangles plus 2 × 109 cap triangles, its totals
//!   exactly): the end levels are square to the end chords, each closed
//!   section outline is capped on its own at both ends without new vertices
//!   (n − 2 triangles), the caps turned the way the sides are;
//! - both mirrors with an X offset and 90° corners (Sweep_Frame.max: 4 × 57
//!   vertices, 456 triangles, its totals less the Plane's): both mirrors
//!   turn the section by 180° in its plane, the X offset then moves it along
//!   +X (T × Z); Max's thumbnail of the file shows the thin band far outside
//!   the rectangle path that gives, not the crossed frame the offset before
//!   the mirror would. The mitre keeps each band between two levels the
//!   section's exact prism, the only reading the corners allow.
//!
//! Anything else is refused by name: built-in sections other than a Bar or
//! Cylinder this crate builds (named with their parameters), one mirror
//! alone (which way Max turns the faces of a reflected section is not
//! pinned), a Y offset or an angle, any other switch other than Gate's,
//! open sections, nested section outlines on an open path (holes in the
//! caps), several path splines, paths leaving their XY plane, and turns
//! sharper than 90°. Smoothing (one group on the sides, none on the caps) and
//! material (0 on the sides as Gate's section ids; the caps 0 and 1, the
//! help's front and rear cap ids) are ours: no reference pins them.

use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::core::pblock::{self, Value};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::eval::objects::shape::organize::organize;
use crate::eval::objects::shape::triangulate::triangulate;
use crate::eval::objects::shape::{self, PolyLine, ShapeEval};
use crate::typed::ClassId;
use std::sync::Arc;

pub const SWEEP: ClassId = ClassId(0x25eb_c866, 0x1f88_220f);

/// Reference slot of the parameter block and of the custom section; the
/// built-in section of index k sits at slot k + 2.
const PBLOCK_SLOT: u32 = 0;
const SECTION_SLOT: u32 = 1;
/// ParamBlock2 ids of the settings read here.
const BUILT_IN: u16 = 3;
const CUSTOM_SECTION: u16 = 4;
const MIRROR_XZ: u16 = 5;
const MIRROR_XY: u16 = 6;
const X_OFFSET: u16 = 7;
const Y_OFFSET: u16 = 8;
const ANGLE: u16 = 9;
/// Ids that name or list the sections, and the section-type mode (how a
/// picked shape is attached: no bearing on the mesh).
const NOT_GEOMETRY: [u16; 3] = [0, 2, 21];
/// The built-in sections by index, as Max's list names them.
const BUILT_IN_NAMES: [&str; 10] = [
    "Angle",
    "Bar",
    "Channel",
    "Cylinder",
    "Half Round",
    "Pipe",
    "Quarter Round",
    "Tee",
    "Tube",
    "Wide Flange",
];
/// The switches as Gate.max's Sweep holds them (the verified case).
const VERIFIED: [(u16, Value); 10] = [
    (1, Value::Bool(false)),
    (12, Value::Bool(false)),
    (13, Value::Bool(false)),
    (14, Value::Bool(true)),
    (15, Value::Bool(true)),
    (16, Value::Bool(false)),
    (17, Value::Int(-1)),
    (18, Value::Bool(true)),
    (19, Value::Bool(true)),
    (20, Value::Bool(true)),
];
/// Largest turn of the path at a point accepted (Sweep_Frame's rectangle
/// corners; Gate's circle turns by 13.2°).
const MAX_TURN_DEGREES: f64 = 90.0;
/// Mesh vertices a Sweep may make at most (damaged shapes).
const MAX_VERTICES: usize = 1 << 23;

/// Where the section sits on the path, from the Sweep's settings.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Placement {
    /// Both mirrors on: the section turned by 180° in its plane.
    pub mirrored: bool,
    /// X Offset, along +X (T × Z) after the mirrors.
    pub x_offset: f64,
}

/// The settings that choose the section and place it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Settings {
    /// The current built-in section's index, None for the custom section.
    built_in: Option<usize>,
    place: Placement,
}

fn unverified(what: String) -> EvalError {
    EvalError::not_evaluated_why(
        what,
        "only the settings of Gate.max's, Sweep_Bridge.max's and Sweep_Frame.max's Sweeps, \
         pinned by Gate's FBX export and the files' Mesh Totals, are evaluated",
    )
}

/// Reads the parameter block: the section choice and placement, every other
/// setting checked against the verified values.
fn settings(m: &Applied, cx: &ModContext) -> Result<Settings, EvalError> {
    let pb = pblock::reference(&cx.eval.graph, m.object, PBLOCK_SLOT)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let block = pblock::param_block2(cx.eval.chunks(pb))?;
    let value = |id: u16| block.param(id).map(|p| &p.value);
    let built_in = match value(CUSTOM_SECTION) {
        Some(Value::Int(1)) => None,
        Some(Value::Int(0)) => match value(BUILT_IN) {
            Some(Value::Int(k)) if (0..BUILT_IN_NAMES.len() as i32).contains(k) => {
                Some(*k as usize)
            }
            other => {
                return Err(EvalError::not_evaluated(format!(
                    "a built-in section of index {other:?}"
                )))
            }
        },
        other => return Err(unverified(format!("Custom Section = {other:?}"))),
    };
    let flag = |id: u16| match value(id) {
        Some(Value::Bool(b)) => Ok(*b),
        other => Err(unverified(format!("parameter {id} = {other:?}"))),
    };
    let (xz, xy) = (flag(MIRROR_XZ)?, flag(MIRROR_XY)?);
    if xz != xy {
        return Err(EvalError::not_evaluated_why(
            format!("one mirror alone (Mirror on XZ {xz}, on XY {xy})"),
            "which way Max turns the faces of a reflected section is not pinned",
        ));
    }
    let x_offset = match value(X_OFFSET) {
        Some(Value::Float(v)) if v.is_finite() => f64::from(*v),
        other => return Err(unverified(format!("X Offset = {other:?}"))),
    };
    for (id, what) in [(Y_OFFSET, "a Y offset"), (ANGLE, "an angle")] {
        match value(id) {
            Some(Value::Float(v)) if *v == 0.0 => {}
            other => {
                return Err(EvalError::not_evaluated_why(
                    format!("{what} ({other:?})"),
                    "no file pins its direction",
                ))
            }
        }
    }
    for p in &block.params {
        if p.ref_slot.is_some() && !NOT_GEOMETRY.contains(&p.id) {
            return Err(unverified(format!("an animated parameter {}", p.id)));
        }
        if NOT_GEOMETRY.contains(&p.id)
            || [
                BUILT_IN,
                CUSTOM_SECTION,
                MIRROR_XZ,
                MIRROR_XY,
                X_OFFSET,
                Y_OFFSET,
                ANGLE,
            ]
            .contains(&p.id)
        {
            continue;
        }
        match VERIFIED.iter().find(|(id, _)| *id == p.id) {
            Some((_, want)) if *want == p.value => {}
            Some((_, want)) => {
                return Err(unverified(format!(
                    "parameter {} = {:?} (verified: {want:?})",
                    p.id, p.value
                )))
            }
            None => return Err(unverified(format!("parameter {}", p.id))),
        }
    }
    for (id, _) in &VERIFIED {
        if block.param(*id).is_none() {
            return Err(unverified(format!("a block without parameter {id}")));
        }
    }
    Ok(Settings {
        built_in,
        place: Placement {
            mirrored: xz,
            x_offset,
        },
    })
}

/// A parameter value as a short text.
fn value_text(v: &Value) -> String {
    match v {
        Value::Float(f) => format!("{f}"),
        Value::Int(i) => format!("{i}"),
        Value::Bool(b) => format!("{b}"),
        other => format!("{other:?}"),
    }
}

/// The stored parameters of section object `obj` (its reference 0 block),
/// for naming a section this module does not build.
fn section_params(cx: &ModContext, obj: usize) -> String {
    let g = &cx.eval.graph;
    let Some(pb) = pblock::reference(g, obj, 0) else {
        return "no parameter block".into();
    };
    let list: Vec<String> = if pblock::is_param_block2(g, pb) {
        match pblock::param_block2(cx.eval.chunks(pb)) {
            Ok(b) => b
                .params
                .iter()
                .map(|p| format!("{}={}", p.id, value_text(&p.value)))
                .collect(),
            Err(e) => return e.to_string(),
        }
    } else {
        match pblock::param_block(cx.eval.chunks(pb)) {
            Ok(b) => b
                .iter()
                .map(|p| format!("{}={}", p.index, value_text(&p.value)))
                .collect(),
            Err(e) => return e.to_string(),
        }
    };
    list.join(", ")
}

/// The section shape the settings choose: the custom section, or the
/// built-in one of the current index when this crate builds its class.
fn section(m: &Applied, s: &Settings, cx: &ModContext) -> Result<Arc<ShapeEval>, EvalError> {
    let Some(k) = s.built_in else {
        let obj = pblock::reference(&cx.eval.graph, m.object, SECTION_SLOT)
            .ok_or_else(|| EvalError::reference("", "no custom section (reference 1)"))?;
        return shape::eval_shape(cx.eval, obj, cx.t)
            .map_err(|e| EvalError::from(e).inside("custom section"));
    };
    let name = BUILT_IN_NAMES[k];
    let slot = k as u32 + 2;
    let obj = pblock::reference(&cx.eval.graph, m.object, slot).ok_or_else(|| {
        EvalError::reference(
            "",
            format!("no shape for the built-in {name} section (reference {slot})"),
        )
    })?;
    let class = cx
        .eval
        .graph
        .class(obj)
        .map_or("?".to_string(), |c| c.name.clone());
    shape::eval_shape(cx.eval, obj, cx.t).map_err(|e| {
        EvalError::not_evaluated_why(
            format!(
                "the built-in {name} section ({class}: {})",
                section_params(cx, obj)
            ),
            format!("its points are not built here: {}", EvalError::from(e)),
        )
    })
}

/// The mesh of Sweep `m` on the path polylines `lines` (see the module
/// documentation).
pub fn apply_to_shape(m: &Applied, lines: &[PolyLine], cx: &ModContext) -> Result<Mesh, EvalError> {
    let s = settings(m, cx)?;
    let section = section(m, &s, cx)?;
    sweep(lines, &section.polylines, s.place)
}

/// Twice the signed area of a polyline in its XY plane (> 0 counter-clockwise).
fn signed_area(l: &PolyLine) -> f64 {
    let n = l.pts.len();
    (0..n)
        .map(|i| {
            let (a, b) = (l.pts[i].p, l.pts[(i + 1) % n].p);
            a.0 * b.1 - b.0 * a.1
        })
        .sum()
}

/// Sweeps the closed `section` polylines along the one path polyline,
/// placed by `place`; an open path is capped at both ends.
pub fn sweep(path: &[PolyLine], section: &[PolyLine], place: Placement) -> Result<Mesh, EvalError> {
    let path: Vec<&PolyLine> = path.iter().filter(|l| !l.pts.is_empty()).collect();
    let path = match path.as_slice() {
        [one] => *one,
        many => {
            return Err(EvalError::not_evaluated(format!(
                "a path of {} splines",
                many.len()
            )))
        }
    };
    let section: Vec<&PolyLine> = section.iter().filter(|l| !l.pts.is_empty()).collect();
    if section.is_empty() {
        return Err(EvalError::malformed("section", "no points"));
    }
    if section.iter().any(|l| !l.closed) {
        return Err(EvalError::not_evaluated("an open section spline"));
    }
    if section.iter().any(|l| l.pts.len() < 3) || path.pts.len() < 2 + usize::from(path.closed) {
        return Err(EvalError::malformed(
            "",
            "a section spline of fewer than 3 points or a path too short",
        ));
    }
    let size = |l: &[&PolyLine]| {
        l.iter()
            .flat_map(|l| l.pts.iter())
            .map(|p| p.p.len())
            .fold(1e-30, f64::max)
    };
    let section_size = size(&section);
    if section
        .iter()
        .flat_map(|l| l.pts.iter())
        .any(|p| p.p.2.abs() > 1e-6 * section_size)
    {
        return Err(EvalError::not_evaluated("a section not in its XY plane"));
    }
    if section
        .iter()
        .flat_map(|l| l.pts.iter())
        .any(|p| p.material != 0)
    {
        return Err(EvalError::not_evaluated_why(
            "a section with material ids other than 1",
            "which ids the faces take is not verified",
        ));
    }
    if !path.closed {
        let owned: Vec<PolyLine> = section.iter().map(|l| (*l).clone()).collect();
        if organize(&owned)
            .0
            .depth
            .iter()
            .any(|d| d.is_some_and(|d| d > 0))
        {
            return Err(EvalError::not_evaluated_why(
                "a section with nested outlines on an open path",
                "how Max caps an outline with holes is not pinned",
            ));
        }
    }
    let z0 = path.pts[0].p.2;
    let path_size = size(&[path]);
    if path
        .pts
        .iter()
        .any(|p| (p.p.2 - z0).abs() > 1e-6 * path_size)
    {
        return Err(EvalError::not_evaluated_why(
            "a path that leaves its XY plane",
            "how Max orients the section about such a path is not verified",
        ));
    }
    let pts: Vec<Vec3> = path.pts.iter().map(|p| p.p).collect();
    let n = pts.len();
    let per: usize = section.iter().map(|l| l.pts.len()).sum();
    if per.saturating_mul(n) > MAX_VERTICES {
        return Err(EvalError::limit("Sweep vertices", MAX_VERTICES));
    }
    let up = Vec3(0.0, 0.0, 1.0);
    let sign = if place.mirrored { -1.0 } else { 1.0 };
    let mut mesh = Mesh::default();
    for k in 0..n {
        let at = pts[k];
        // The chords to the previous and next points; an open path's ends
        // take their one chord on both sides (square ends).
        let (a, b) = if path.closed {
            (at.minus(pts[(k + n - 1) % n]), pts[(k + 1) % n].minus(at))
        } else {
            let before = if k > 0 {
                at.minus(pts[k - 1])
            } else {
                pts[1].minus(at)
            };
            let after = if k + 1 < n {
                pts[k + 1].minus(at)
            } else {
                before
            };
            (before, after)
        };
        if a.len() == 0.0 || b.len() == 0.0 {
            return Err(EvalError::not_evaluated(format!(
                "a path whose point {k} repeats its neighbour"
            )));
        }
        let (a, b) = (a.normalized(), b.normalized());
        let turn = a.dot(b).clamp(-1.0, 1.0).acos();
        if turn.to_degrees() > MAX_TURN_DEGREES + 1e-6 {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "a path turning by {:.1}° at its point {k}",
                    turn.to_degrees()
                ),
                "the section at turns sharper than Sweep_Frame.max's 90° corners is not verified",
            ));
        }
        let x = a.plus(b).normalized().cross(up).normalized();
        let stretch = 1.0 / (turn / 2.0).cos();
        for q in section.iter().flat_map(|l| l.pts.iter()) {
            let (sx, sy) = (sign * q.p.0 + place.x_offset, sign * q.p.1);
            mesh.vertices
                .push(at.plus(x.scale(sx * stretch)).plus(up.scale(sy)));
        }
    }
    let bands = if path.closed { n } else { n - 1 };
    for k in 0..bands {
        let (base, next) = ((k * per) as u32, (((k + 1) % n) * per) as u32);
        let mut first = 0u32;
        for l in &section {
            let len = l.pts.len() as u32;
            for j in 0..len {
                let (i, i1) = (first + j, first + (j + 1) % len);
                let (a, b, b1, a1) = (base + i, next + i, next + i1, base + i1);
                for v in [[a, b, b1], [b1, a1, a]] {
                    mesh.faces.push(Face {
                        v,
                        smoothing: 1,
                        material: 0,
                        flags: 0b011,
                    });
                }
            }
            first += len;
        }
    }
    if !path.closed {
        for (level, material) in [(0, 0u16), (n - 1, 1)] {
            cap(
                &mut mesh,
                &section,
                (level * per) as u32,
                level == 0,
                material,
            );
        }
    }
    Ok(mesh)
}

/// Caps each section outline on its own over the level starting at vertex
/// `base` (no new vertices: n − 2 triangles an outline), turned the way its
/// sides are: a counter-clockwise outline's sides face outwards, so its
/// start cap faces back along the path (the section plane's +Z there) and
/// its end cap forwards; a clockwise outline's caps turn with its sides.
fn cap(mesh: &mut Mesh, section: &[&PolyLine], base: u32, start: bool, material: u16) {
    let mut first = base;
    for l in section {
        let len = l.pts.len();
        let ccw = signed_area(l) > 0.0;
        // Stored index of the k-th point taken counter-clockwise.
        let stored = |k: usize| if ccw { k } else { len - 1 - k };
        let ring: Vec<(f64, f64)> = (0..len)
            .map(|k| l.pts[stored(k)].p)
            .map(|p| (p.0, p.1))
            .collect();
        let keep = start == ccw;
        for t in triangulate(&ring, &[]) {
            let v = t.map(|k| first + stored(k) as u32);
            let v = if keep { v } else { [v[0], v[2], v[1]] };
            // An edge is visible when its ends are neighbours on the outline.
            let mut flags = 0u16;
            for e in 0..3 {
                let (p, q) = ((v[e] - first) as usize, (v[(e + 1) % 3] - first) as usize);
                if (p + 1) % len == q || (q + 1) % len == p {
                    flags |= 1 << e;
                }
            }
            mesh.faces.push(Face {
                v,
                smoothing: 0,
                material,
                flags,
            });
        }
        first += len as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::shape::PolyPt;
    use crate::eval::objects::surface_checks::{closed as closed_and_consistent, signed_volume};

    /// Six times the enclosed volume (> 0: facing outwards).
    fn volume(m: &Mesh) -> f64 {
        6.0 * signed_volume(m)
    }

    fn line(pts: &[(f64, f64)], closed: bool) -> PolyLine {
        PolyLine {
            pts: pts
                .iter()
                .map(|&(x, y)| PolyPt {
                    p: Vec3(x, y, 0.0),
                    knot: true,
                    smooth: false,
                    material: 0,
                })
                .collect(),
            closed,
        }
    }

    /// Gate.max's Circle001 (ckpcso/meta3, its FBX export Gate.fbx): the
    /// path's first three points and the section's first point, and the FBX
    /// vertices 0 and 140 in Circle001's object space (the FBX's world
    /// positions through the inverse of the node's transform).
    #[test]
    fn gate_circle001_matches_the_fbx() {
        // Circle of radius 131.9398, 28 points; a closed section point.
        let path: Vec<(f64, f64)> = (0..28)
            .map(|i| {
                let a = i as f64 / 28.0 * std::f64::consts::TAU;
                (131.9398 * a.cos(), 131.9398 * a.sin())
            })
            .collect();
        let mut path = line(&path, true);
        // The interpolated points of Max's circle (not on the circle).
        path.pts[1].p = Vec3(128.45172775474765, 30.23187425877524, 0.0);
        path.pts[27].p = Vec3(128.45172775474762, -30.231874258775246, 0.0);
        path.pts[2].p = Vec3(118.51778362727983, 57.995017010492674, 0.0);
        let section = line(
            &[
                (-5.29235, -22.33507),
                (-11.87155, -15.75588),
                (-18.45075, -22.33507),
            ],
            true,
        );
        let m = sweep(&[path], &[section], Placement::default()).unwrap();
        assert_eq!(m.vertices.len(), 28 * 3);
        assert_eq!(m.faces.len(), 28 * 3 * 2);
        let near = |p: Vec3, q: Vec3| p.minus(q).len() < 2e-3;
        assert!(near(m.vertices[0], Vec3(126.6123, 0.0, -22.33506)));
        assert!(near(m.vertices[3], Vec3(123.26391, 29.02133, -22.33506)));
        // The FBX's first triangles: [0, 140, 141], [141, 1, 0] with 140
        // section points a level; here 3.
        assert_eq!(m.faces[0].v, [0, 3, 4]);
        assert_eq!(m.faces[1].v, [4, 1, 0]);
        // The last band wraps to level 0.
        let last = m.faces.len() - 2;
        assert_eq!(m.faces[last].v, [27 * 3 + 2, 2, 0]);
    }

    fn square(ccw: bool) -> PolyLine {
        let mut pts = vec![(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
        if !ccw {
            pts.reverse();
        }
        line(&pts, true)
    }

    /// Sweep_Bridge.max's layout: an open path of 17 points under a custom
    /// section of 3 separate outlines (59, 28 and 28 points) gives Max's
    /// Mesh Totals, 1,955 vertices and 3,898 faces: 17 levels of 115 points,
    /// 2 × 16 × 115 side triangles and each outline capped on its own at both
    /// ends (2 × (57 + 26 + 26)).
    #[test]
    fn an_open_path_gives_sweep_bridges_totals() {
        let path: Vec<(f64, f64)> = (0..17)
            .map(|i| {
                let a = i as f64 / 16.0 * std::f64::consts::PI;
                (-100.0 * a.cos(), 100.0 * a.sin())
            })
            .collect();
        let ring = |n: usize, cx: f64, r: f64| -> PolyLine {
            let pts: Vec<(f64, f64)> = (0..n)
                .map(|i| {
                    let a = i as f64 / n as f64 * std::f64::consts::TAU;
                    (cx + r * a.cos(), r * a.sin())
                })
                .collect();
            line(&pts, true)
        };
        let section = [
            ring(59, 0.0, 5.0),
            ring(28, 20.0, 2.0),
            ring(28, -20.0, 2.0),
        ];
        let m = sweep(&[line(&path, false)], &section, Placement::default()).unwrap();
        assert_eq!(m.vertices.len(), 1955);
        assert_eq!(m.faces.len(), 3898);
        assert!(closed_and_consistent(&m));
        assert!(volume(&m) > 0.0);
    }

    /// An open straight path: the end levels sit on the path's ends, square
    /// to it; the caps close the tube turned as its sides, for either way
    /// round of the section.
    #[test]
    fn open_path_ends_and_caps() {
        let path = line(&[(0.0, 0.0), (10.0, 0.0), (20.0, 0.0)], false);
        for ccw in [true, false] {
            let m = sweep(
                std::slice::from_ref(&path),
                &[square(ccw)],
                Placement::default(),
            )
            .unwrap();
            assert_eq!(m.vertices.len(), 3 * 4);
            assert_eq!(m.faces.len(), 2 * 2 * 4 + 2 * 2);
            for (level, x) in [(0, 0.0), (2, 20.0)] {
                for v in &m.vertices[level * 4..level * 4 + 4] {
                    assert!((v.0 - x).abs() < 1e-12);
                    assert!((v.1.abs() - 1.0).abs() < 1e-12 && (v.2.abs() - 1.0).abs() < 1e-12);
                }
            }
            assert!(closed_and_consistent(&m));
            // A counter-clockwise section faces outwards (the side rule Gate's
            // FBX pins); a clockwise one inwards, its caps with it.
            assert_eq!(volume(&m) > 0.0, ccw);
            assert!((volume(&m).abs() - 6.0 * 2.0 * 2.0 * 20.0).abs() < 1e-9);
        }
    }

    /// Both mirrors turn the section by 180°, then the X offset moves it
    /// along +X (T × Z: outwards of a counter-clockwise path); at a 90°
    /// corner the level lies on the bisector, X widened by √2, so each side
    /// is the section's exact prism.
    #[test]
    fn mirrors_offset_and_right_angle_corners() {
        let rect = line(
            &[(10.0, 10.0), (-10.0, 10.0), (-10.0, -10.0), (10.0, -10.0)],
            true,
        );
        let section = line(&[(0.0, 0.0), (2.0, 0.0), (2.0, 1.0)], true);
        let place = Placement {
            mirrored: true,
            x_offset: 5.0,
        };
        let m = sweep(&[rect], &[section], place).unwrap();
        assert_eq!(m.vertices.len(), 4 * 3);
        // Corner (10, 10): the bisector's X is (1, 1)/√2 outwards; the
        // section's (2, 1) becomes (−2 + 5, −1) = (3, −1), stretched by √2.
        let p = m.vertices[2];
        assert!(p.minus(Vec3(13.0, 13.0, -1.0)).len() < 1e-9, "{p:?}");
        // Along the top side every level point is 3 units outside y = 10.
        assert!((m.vertices[3 + 2].1 - 13.0).abs() < 1e-9);
        assert!(closed_and_consistent(&m));
    }

    #[test]
    fn open_sections_and_sharp_turns_are_refused() {
        let sq = square(true);
        let open = line(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], false);
        let p = Placement::default();
        assert!(sweep(std::slice::from_ref(&sq), std::slice::from_ref(&open), p).is_err());
        // A triangle path turns by 120° at its corners.
        let tri = line(&[(0.0, 0.0), (9.0, 0.0), (4.5, 7.0)], true);
        assert!(sweep(&[tri], std::slice::from_ref(&sq), p).is_err());
        // Nested outlines on an open path: holes in the caps.
        let big = line(&[(-3.0, -3.0), (3.0, -3.0), (3.0, 3.0), (-3.0, 3.0)], true);
        assert!(sweep(std::slice::from_ref(&open), &[big.clone(), sq.clone()], p).is_err());
        // On a closed path they need no cap.
        let ring = line(&[(0.0, 0.0), (40.0, 0.0), (40.0, 40.0), (0.0, 40.0)], true);
        assert!(sweep(&[ring], &[big, sq], p).is_ok());
    }
}
