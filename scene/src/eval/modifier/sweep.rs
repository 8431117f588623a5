//! Sweep (0x25ebc866, 0x1f88220f): a section shape placed at every point of
//! the path shape it sits on, the rings joined into a mesh.
//!
//! References: 0 the ParamBlock2, 1 the custom section's shape object, 2…
//! the built-in section shapes Max has created so far (Angle, Rectangle,
//! Channel, Circle, Half Round, PipeObject, Quarter Round, Tee, WRectangle).
//! ParamBlock2 ids, as far as the public files show them: 0 the section
//! shapes (an object table), 2 the custom section's name, 4 Custom Section
//! (1) or built-in (0), 5–6 the two mirror switches, 7–9 two offsets and the
//! angle (in some order), 12–20 switches (smoothing, pivot alignment −1 at
//! 17, banking, mapping, material ids), 21 the section-type mode.
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
//! Anything else is refused by name: built-in sections (which one is current
//! and its point layout are not pinned), parameter values other than
//! Gate's, open paths (caps and ends: Sweep_Bridge.max's totals show its
//! custom section re-interpolated, not pinned), open sections, several
//! path splines, paths leaving their XY plane, and turns sharper than the
//! 13.2° Gate's path makes. Smoothing (one group on every face) and material
//! (0, Gate's section ids) are ours: the FBX does not pin them.

use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::core::pblock::{self, Value};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::eval::objects::shape::{self, PolyLine};
use crate::typed::ClassId;

pub const SWEEP: ClassId = ClassId(0x25eb_c866, 0x1f88_220f);

/// Reference slot of the parameter block and of the custom section.
const PBLOCK_SLOT: u32 = 0;
const SECTION_SLOT: u32 = 1;
/// ParamBlock2 id of the Custom Section switch.
const CUSTOM_SECTION: u16 = 4;
/// Ids that name or list the sections, and the section-type mode (how a
/// picked shape is attached: no bearing on the mesh).
const NOT_GEOMETRY: [u16; 4] = [0, 2, 3, 21];
/// Every other parameter as Gate.max's Sweep holds it (the verified case).
const VERIFIED: [(u16, Value); 16] = [
    (1, Value::Bool(false)),
    (CUSTOM_SECTION, Value::Int(1)),
    (5, Value::Bool(false)),
    (6, Value::Bool(false)),
    (7, Value::Float(0.0)),
    (8, Value::Float(0.0)),
    (9, Value::Float(0.0)),
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
/// Largest turn of the path at a point accepted (Gate's path turns by
/// 13.2° at its knots).
const MAX_TURN_DEGREES: f64 = 14.0;
/// Mesh vertices a Sweep may make at most (damaged shapes).
const MAX_VERTICES: usize = 1 << 23;

fn unverified(what: String) -> EvalError {
    EvalError::not_evaluated_why(
        what,
        "only the settings of Gate.max's Sweep, checked against its FBX export, are evaluated",
    )
}

/// Checks the parameter block against the verified settings.
fn check_params(m: &Applied, cx: &ModContext) -> Result<(), EvalError> {
    let pb = pblock::reference(&cx.eval.graph, m.object, PBLOCK_SLOT)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let block = pblock::param_block2(cx.eval.chunks(pb))?;
    if block.param(CUSTOM_SECTION).map(|p| &p.value) == Some(&Value::Int(0)) {
        return Err(EvalError::not_evaluated_why(
            "a built-in section",
            "which built-in section is current and the points Max gives it are not pinned",
        ));
    }
    for p in &block.params {
        if NOT_GEOMETRY.contains(&p.id) {
            continue;
        }
        if p.ref_slot.is_some() {
            return Err(unverified(format!("an animated parameter {}", p.id)));
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
    Ok(())
}

/// The mesh of Sweep `m` on the path polylines `lines` (see the module
/// documentation).
pub fn apply_to_shape(m: &Applied, lines: &[PolyLine], cx: &ModContext) -> Result<Mesh, EvalError> {
    check_params(m, cx)?;
    let obj = pblock::reference(&cx.eval.graph, m.object, SECTION_SLOT)
        .ok_or_else(|| EvalError::reference("", "no custom section (reference 1)"))?;
    let section = shape::eval_shape(cx.eval, obj, cx.t)
        .map_err(|e| EvalError::from(e).inside("custom section"))?;
    sweep(lines, &section.polylines)
}

/// Sweeps the closed `section` polylines along the one closed path polyline.
pub fn sweep(path: &[PolyLine], section: &[PolyLine]) -> Result<Mesh, EvalError> {
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
    if !path.closed {
        return Err(EvalError::not_evaluated_why(
            "an open path",
            "its ends and caps are not verified",
        ));
    }
    let section: Vec<&PolyLine> = section.iter().filter(|l| !l.pts.is_empty()).collect();
    if section.is_empty() {
        return Err(EvalError::malformed("custom section", "no points"));
    }
    if section.iter().any(|l| !l.closed) {
        return Err(EvalError::not_evaluated("an open section spline"));
    }
    if section.iter().any(|l| l.pts.len() < 3) || path.pts.len() < 3 {
        return Err(EvalError::malformed(
            "",
            "a section or path spline of fewer than 3 points",
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
    let mut mesh = Mesh::default();
    for k in 0..n {
        let at = pts[k];
        let a = at.minus(pts[(k + n - 1) % n]);
        let b = pts[(k + 1) % n].minus(at);
        if a.len() == 0.0 || b.len() == 0.0 {
            return Err(EvalError::not_evaluated(format!(
                "a path whose point {k} repeats its neighbour"
            )));
        }
        let (a, b) = (a.normalized(), b.normalized());
        let turn = a.dot(b).clamp(-1.0, 1.0).acos();
        if turn.to_degrees() > MAX_TURN_DEGREES {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "a path turning by {:.1}° at its point {k}",
                    turn.to_degrees()
                ),
                "the section at sharper turns than Gate.max's 13.2° is not verified",
            ));
        }
        let x = a.plus(b).normalized().cross(up).normalized();
        let stretch = 1.0 / (turn / 2.0).cos();
        for q in section.iter().flat_map(|l| l.pts.iter()) {
            mesh.vertices
                .push(at.plus(x.scale(q.p.0 * stretch)).plus(up.scale(q.p.1)));
        }
    }
    for k in 0..n {
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
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::shape::PolyPt;

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
        let m = sweep(&[path], &[section]).unwrap();
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

    #[test]
    fn open_paths_and_sections_are_refused() {
        let sq = line(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)], true);
        let open = line(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], false);
        assert!(sweep(std::slice::from_ref(&open), std::slice::from_ref(&sq)).is_err());
        assert!(sweep(std::slice::from_ref(&sq), std::slice::from_ref(&open)).is_err());
        // A square path turns by 90°: not verified.
        let square = line(&[(0.0, 0.0), (9.0, 0.0), (9.0, 9.0), (0.0, 9.0)], true);
        assert!(sweep(&[square], &[sq]).is_err());
    }
}
