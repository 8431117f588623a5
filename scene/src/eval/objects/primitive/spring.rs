//! Spring (0x7ba3009a, 0x76b61f8e), free-standing, as the public Max SDK
//! sample `spring.cpp` builds it (the code here is ours).
//!
//! Old ParamBlock by index: 0 ends method (0 bound to two objects —
//! refused, 1 free), 1 free length, 2 diameter (at least 0.1), 3 turns (at
//! least 0.5), 4 clockwise, 5 manual segments, 6 segments per turn, 7
//! segments (both at least 3), 8 smoothing (0 all, 1 none, 2 sides, 3
//! segments), 9 renderable, 10 section (0 round, 1 rectangular, 2
//! D-section) and 11–23 its sizes as the Hose's 5–18 (`hose::section`),
//! 24–27 and 29 the dynamics (no effect on the mesh), 28 generate mapping.
//!
//! Segments: the manual count, or per turn × turns truncated (single
//! precision). Ring i of `segments + 1` sits at angle 2π·turns·i/segments
//! (negated when clockwise) on the coil circle at height length·i/segments:
//! the section's X runs out from the axis, its Y is world Z turned about
//! that radius by the helix angle atan(length / (turns·π·diameter))
//! (negated when clockwise), so the section stands across the wire. Then
//! the start and end centres. Faces, smoothing, materials and mapping as
//! the Hose's, wound the other way unless clockwise.

use crate::eval::error::EvalError;
use std::f64::consts::{PI, TAU};

use super::hose::{section, swept_section};
use super::{check_quads, Params};
use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const SPRING: ClassId = ClassId(0x7ba3009a, 0x76b61f8e);

/// Segments beyond this are refused (damaged values).
const MAX_SEGMENTS: i64 = 100_000;

/// The number of segments (`BuildMesh`): manual, or per turn × turns.
fn segments(p: &Params, turns: f64) -> Result<usize, EvalError> {
    let n = if p.flag(5, false) {
        p.int_or(7, 3).max(3)
    } else {
        let per_turn = p.int_or(6, 3).max(3);
        // Max multiplies in single precision and truncates.
        (per_turn as f32 * turns as f32) as i64
    };
    if !(1..=MAX_SEGMENTS).contains(&n) {
        return Err(EvalError::malformed("segments", format!("{n}")));
    }
    Ok(n as usize)
}

/// `RotateOnePoint` of world Z about the unit axis `w` (through the origin)
/// by `theta`: the third row of the sample's rotation matrix.
fn z_turned(w: Vec3, theta: f64) -> Vec3 {
    let (s, c) = theta.sin_cos();
    let mc = 1.0 - c;
    Vec3(
        w.0 * w.2 * mc + w.1 * s,
        w.1 * w.2 * mc - w.0 * s,
        w.2 * w.2 + (1.0 - w.2 * w.2) * c,
    )
}

pub fn spring_mesh(p: &Params) -> Result<Mesh, EvalError> {
    if p.int_or(0, 1) == 0 {
        return Err(EvalError::not_evaluated("a Spring bound to objects"));
    }
    let length = p.float_or(1, 0.0);
    let od = p.float_or(2, 1.0).max(0.1);
    let turns = p.float_or(3, 1.0).max(0.5);
    let clockwise = p.flag(4, false);
    let segs = segments(p, turns)?;
    let smooth = p.int_or(8, 0);
    let ring = section(p, 10)?;
    let n = ring.len();
    check_quads(segs * n)?;
    let mapping = p.flag(28, false);
    let mut helix = (length / (turns * PI * od)).atan();
    if clockwise {
        helix = -helix;
    }
    let hod = od / 2.0;
    Ok(swept_section(
        &ring,
        segs,
        smooth,
        mapping,
        !clockwise,
        |incr| {
            let mut angle = turns * TAU * incr;
            if clockwise {
                angle = -angle;
            }
            let centre = Vec3(hod * angle.cos(), hod * angle.sin(), length * incr);
            let x = Vec3(centre.0, centre.1, 0.0).normalized();
            (centre, x, z_turned(x, helix))
        },
    ))
}

#[cfg(test)]
mod tests {
    //! Invariants of the sample's layout: its vertex and face counts, rings
    //! centred on the coil and standing across the wire (the section's
    //! plane normal along the helix tangent), the fans' materials.
    use super::*;
    use crate::eval::core::pblock::Value;

    fn params(extra: &[(usize, Value)]) -> Params {
        let mut v = vec![
            Value::Int(1),      // 0 free
            Value::Float(30.0), // 1 length
            Value::Float(20.0), // 2 diameter
            Value::Float(3.0),  // 3 turns
            Value::Int(0),      // 4 counter-clockwise
            Value::Int(0),      // 5 segments per turn
            Value::Int(8),      // 6 per turn
            Value::Int(10),     // 7 manual count
            Value::Int(0),      // 8 smooth all
            Value::Int(1),      // 9 renderable
            Value::Int(0),      // 10 round
            Value::Float(2.0),  // 11 diameter
            Value::Int(6),      // 12 sides
            Value::Float(4.0),  // 13..17 rectangle
            Value::Float(2.0),
            Value::Float(0.5),
            Value::Int(0),
            Value::Float(0.0),
            Value::Float(4.0), // 18..23 D-section
            Value::Float(2.0),
            Value::Float(0.5),
            Value::Int(0),
            Value::Int(4),
            Value::Float(0.0),
            Value::Float(0.0), // 24..27 dynamics
            Value::Float(1.0),
            Value::Int(0),
            Value::Int(0),
            Value::Int(1), // 28 mapping
            Value::Int(0),
        ];
        for (i, x) in extra {
            v[*i] = x.clone();
        }
        Params::from_values(v)
    }

    #[test]
    fn counts_follow_the_segments_and_ring() {
        // 8 per turn × 3 turns = 24 segments of 6-point rings.
        let m = spring_mesh(&params(&[])).unwrap();
        assert_eq!(m.vertices.len(), 25 * 6 + 2);
        assert_eq!(m.faces.len(), 24 * 12 + 2 * 6);
        assert_eq!(m.maps[0].vertices.len(), 25 * 6 + 2 + 25);
        // 2.5 turns × 7 per turn = 17.5: truncated.
        let p = params(&[(3, Value::Float(2.5)), (6, Value::Int(7))]);
        assert_eq!(spring_mesh(&p).unwrap().vertices.len(), 18 * 6 + 2);
        // Manual: the count, at least 3.
        let p = params(&[(5, Value::Int(1)), (7, Value::Int(1))]);
        assert_eq!(spring_mesh(&p).unwrap().vertices.len(), 4 * 6 + 2);
        // Materials: start fan 0, sides 1, end fan 2.
        assert!(m.faces[..6].iter().all(|f| f.material == 0));
        assert!(m.faces[6..6 + 24 * 12].iter().all(|f| f.material == 1));
        assert!(m.faces[6 + 24 * 12..].iter().all(|f| f.material == 2));
        // Bound to objects: refused.
        assert!(spring_mesh(&params(&[(0, Value::Int(0))])).is_err());
    }

    #[test]
    fn rings_stand_across_the_wire_either_way_round() {
        for clockwise in [0, 1] {
            let m = spring_mesh(&params(&[(4, Value::Int(clockwise))])).unwrap();
            let (n, segs) = (6, 24);
            let centre = |i: usize| {
                let r = &m.vertices[i * n..(i + 1) * n];
                r.iter()
                    .fold(Vec3::default(), |a, &b| a.plus(b))
                    .scale(1.0 / n as f64)
            };
            for i in 1..segs {
                let c = centre(i);
                // On the coil: radius 10, height 30·i/24.
                assert!((c.0.hypot(c.1) - 10.0).abs() < 1e-9);
                assert!((c.2 - 30.0 * i as f64 / segs as f64).abs() < 1e-9);
                // The exact helix tangent there.
                let a = 3.0 * TAU * i as f64 / segs as f64;
                let s = if clockwise == 1 { -1.0 } else { 1.0 };
                let t = Vec3(-10.0 * a.sin(), s * 10.0 * a.cos(), 30.0 / (3.0 * TAU)).normalized();
                for j in 0..n {
                    let d = m.vertices[i * n + j].minus(c);
                    assert!(d.dot(t).abs() < 1e-9, "ring {i} point {j}: {}", d.dot(t));
                    assert!((d.len() - 1.0).abs() < 1e-9);
                }
            }
            // Faces wind outwards: the first side face's normal points away
            // from the coil's axis.
            let f = &m.faces[n];
            let [a, b, c] = f.v.map(|k| m.vertices[k as usize]);
            let normal = b.minus(a).cross(c.minus(a));
            let mid = a.plus(b).plus(c).scale(1.0 / 3.0);
            let wire = centre(0);
            assert!(normal.dot(mid.minus(wire)) > 0.0, "clockwise {clockwise}");
        }
    }
}
