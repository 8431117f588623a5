//! FFD 2x2x2, 3x3x3 and 4x4x4 (free-form deformation): the input moves with a
//! lattice of n³ control points over its mod-context box, as a trivariate
//! Bernstein (Bézier) volume of degree n − 1.
//!
//! What the modifier saves (Max SDK sample `ffd.cpp`, public): chunk 0x2000
//! its reference version (absent: version 0, written before Max 3), 0x0100 the
//! point selection (a bit array), 0x0200 the n³ control points and 0x0400 their
//! "set volume" offsets (Point3 each, lattice space: the box is the unit cube),
//! 0x0300 the sub-object level. Point i is (i / n², i / n mod n, i mod n) along
//! (x, y, z); untouched, it sits at that triple divided by n − 1. References: 0
//! the lattice transform (a PRS controller), 1 the parameter block (id 2
//! "deform type": 0 only inside the source volume, 1 everywhere; inverted in
//! version-0 files), 2 the master point controller, 3 + i the controller of an
//! animated point i (version 0: 2 + i, there is no master).
//!
//! Max's `FFDDeformer`: object → lattice space is mod-context TM · lattice
//! TM⁻¹ (row vectors), moved by −box min and scaled by 1 / box size (a zero
//! size counts as 0.001). A point with lattice coordinates u is moved to
//! Σ (P_ijk − offset_ijk) B_i(u.x) B_j(u.y) B_k(u.z) and taken back by the
//! inverse. With "only in volume", points outside [−0.001, 1.001]³ keep their
//! place.

use super::simple_mod::mod_context_box;
use super::{gizmo, Applied, ModContext};
use crate::chunk::Chunk;
use crate::eval::core::controller::Controller;
use crate::eval::core::keys::Words;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::primitive::block_params;
use crate::typed::ClassId;

pub const FFD_4X4X4: ClassId = ClassId(0x21325596, 0x2cd10bd8);
pub const FFD_3X3X3: ClassId = ClassId(0x21325596, 0x2cd10bd9);
pub const FFD_2X2X2: ClassId = ClassId(0x21325596, 0x2cd10bd0);

const REF_VERSION: u16 = 0x2000;
const POINTS: u16 = 0x0200;
const OFFSETS: u16 = 0x0400;
const TM_SLOT: u32 = 0;
const PBLOCK_SLOT: u32 = 1;
/// Parameter id of "deform type" (0 only in volume, 1 deform all).
const DEFORM_ALL: usize = 2;
/// Max's floor for a flat box side and its in-volume tolerance.
const MIN_THICK: f64 = 0.001;
const IN_VOLUME_EPSILON: f64 = 0.001;

/// Points per side for an FFD class, None for any other class.
pub fn side(class: ClassId) -> Option<usize> {
    match class {
        FFD_2X2X2 => Some(2),
        FFD_3X3X3 => Some(3),
        FFD_4X4X4 => Some(4),
        _ => None,
    }
}

/// A lattice in its own space (the input box is the unit cube).
#[derive(Debug, Clone)]
pub(super) struct Lattice {
    /// Points per side.
    n: usize,
    /// Control points less their offsets, index i·n² + j·n + k.
    points: Vec<Vec3>,
    /// Points outside the unit cube stay where they are.
    in_volume: bool,
}

/// The Bernstein polynomial i of degree d at u.
fn bernstein(d: usize, i: usize, u: f64) -> f64 {
    let binomial = (0..i).fold(1.0, |acc, m| acc * (d - m) as f64 / (m + 1) as f64);
    binomial * u.powi(i as i32) * (1.0 - u).powi((d - i) as i32)
}

impl Lattice {
    pub fn new(n: usize, points: Vec<Vec3>, in_volume: bool) -> Result<Lattice, EvalError> {
        if !(2..=4).contains(&n) || points.len() != n * n * n {
            return Err(EvalError::malformed(
                "",
                format!("{} control points for a side of {n}", points.len()),
            ));
        }
        Ok(Lattice {
            n,
            points,
            in_volume,
        })
    }

    /// A point in lattice space, deformed (still in lattice space); None when
    /// it stays (outside the volume with "only in volume").
    pub fn map(&self, u: Vec3) -> Option<Vec3> {
        let outside = |x: f64| !(-IN_VOLUME_EPSILON..=1.0 + IN_VOLUME_EPSILON).contains(&x);
        if self.in_volume && u.to_array().into_iter().any(outside) {
            return None;
        }
        let d = self.n - 1;
        let mut q = Vec3::default();
        for i in 0..self.n {
            let bi = bernstein(d, i, u.0);
            for j in 0..self.n {
                let bj = bi * bernstein(d, j, u.1);
                for k in 0..self.n {
                    let w = bj * bernstein(d, k, u.2);
                    q = q.plus(self.points[(i * self.n + j) * self.n + k].scale(w));
                }
            }
        }
        Some(q)
    }
}

/// `count` Point3 records of a leaf chunk, exactly.
fn points(chunks: &[Chunk], id: u16, count: usize) -> Result<Vec<Vec3>, EvalError> {
    let c = chunks
        .iter()
        .find(|c| c.id == id)
        .ok_or_else(|| EvalError::malformed("", format!("no chunk {id:#06x}")))?;
    let p = super::payload(c)?;
    if p.len() != count * 12 {
        return Err(EvalError::malformed(
            format!("chunk {id:#06x}"),
            format!("{} bytes for {count} points", p.len()),
        ));
    }
    let w = Words(p);
    let v: Vec<Vec3> = (0..count)
        .map(|i| Vec3(w.f(3 * i), w.f(3 * i + 1), w.f(3 * i + 2)))
        .collect();
    if v.iter()
        .any(|p| p.to_array().iter().any(|x| !x.is_finite()))
    {
        return Err(EvalError::malformed(
            format!("chunk {id:#06x}"),
            "a point is not finite",
        ));
    }
    Ok(v)
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let n = side(m.class).ok_or_else(|| EvalError::malformed("", "not an FFD class"))?;
    let chunks = cx.eval.chunks(m.object);
    let version = match chunks.iter().find(|c| c.id == REF_VERSION) {
        None => 0,
        Some(c) => {
            let p = super::payload(c)?;
            if p.len() != 4 {
                return Err(EvalError::reference(
                    "reference version (0x2000)",
                    format!("{} bytes", p.len()),
                ));
            }
            Words(p).u32(0)
        }
    };
    let stored = points(chunks, POINTS, n * n * n)?;
    let offsets = points(chunks, OFFSETS, n * n * n)?;
    let graph = &cx.eval.graph;
    let first_point_slot = if version == 0 { 2 } else { 3 };
    let mut lattice_points = Vec::with_capacity(stored.len());
    for (i, (p, o)) in stored.iter().zip(&offsets).enumerate() {
        let slot = first_point_slot + i as u32;
        let p = match pblock::reference(graph, m.object, slot) {
            None => *p,
            Some(ctl) => match cx.eval.controller(ctl) {
                Some(Controller::Point3 { track, .. }) => {
                    let v = track.at(cx.t);
                    Vec3(v[0], v[1], v[2])
                }
                _ => {
                    let what = format!("controller of control point {i} (reference {slot})");
                    return Err(match cx.eval.controller_error(ctl) {
                        Some(e) => e.inside(what),
                        None => EvalError::not_evaluated(what),
                    });
                }
            },
        };
        lattice_points.push(p.minus(*o));
    }
    let pb = pblock::reference(graph, m.object, PBLOCK_SLOT).ok_or_else(|| {
        EvalError::reference("", format!("no parameter block (reference {PBLOCK_SLOT})"))
    })?;
    let mut deform_all = block_params(cx.eval, pb, cx.t)?.flag(DEFORM_ALL, false);
    if version == 0 {
        deform_all = !deform_all;
    }
    let lattice = Lattice::new(n, lattice_points, !deform_all)?;
    let ctm = match pblock::reference(graph, m.object, TM_SLOT) {
        None => Mat43::IDENTITY,
        Some(ctl) => cx
            .eval
            .prs_tm(ctl, cx.t)
            .ok_or_else(|| EvalError::not_evaluated("lattice transform controller"))?,
    };
    let (min, max) = mod_context_box(m)?;
    if (0..3).any(|a| max.to_array()[a] < min.to_array()[a]) {
        return Err(EvalError::malformed(
            "",
            "mod-context box (0x2511) is empty",
        ));
    }
    let size = max
        .minus(min)
        .to_array()
        .map(|s| if s == 0.0 { MIN_THICK } else { s });
    let to_lattice = gizmo::mod_context_tm(m.mod_app)?
        .then(&gizmo::inverse(&ctm, "lattice transform")?)
        .then(&Mat43::translation(min.scale(-1.0)))
        .then(&Mat43::scaling(Vec3(
            1.0 / size[0],
            1.0 / size[1],
            1.0 / size[2],
        )));
    let back = gizmo::inverse(&to_lattice, "lattice space")?;
    for v in &mut mesh.vertices {
        if let Some(q) = lattice.map(to_lattice.transform_point(*v)) {
            *v = back.transform_point(q);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The untouched lattice of side n (Max's initial control points).
    fn source(n: usize) -> Vec<Vec3> {
        let s = (n - 1) as f64;
        let mut v = Vec::new();
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    v.push(Vec3(i as f64 / s, j as f64 / s, k as f64 / s));
                }
            }
        }
        v
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        a.minus(b).len() < 1e-12
    }

    #[test]
    fn bernstein_is_a_partition_of_unity() {
        for d in 1..=3 {
            for u in [0.0, 0.25, 0.6, 1.0, 1.3] {
                let s: f64 = (0..=d).map(|i| bernstein(d, i, u)).sum();
                assert!((s - 1.0).abs() < 1e-12, "{d} {u} {s}");
            }
        }
        assert_eq!(bernstein(3, 1, 0.5), 3.0 * 0.125);
        assert_eq!(bernstein(2, 1, 0.5), 0.5);
    }

    #[test]
    fn untouched_lattice_is_identity_inside_and_out() {
        // Bernstein volumes reproduce linear functions: the source lattice
        // maps every point to itself, outside the unit cube too.
        for n in 2..=4 {
            let l = Lattice::new(n, source(n), false).unwrap();
            for p in [
                Vec3(0.3, 0.7, 0.1),
                Vec3(1.0, 0.0, 1.0),
                Vec3(-0.5, 2.0, 1.5),
            ] {
                assert!(close(l.map(p).unwrap(), p), "{n} {p:?}");
            }
        }
    }

    #[test]
    fn corners_follow_their_points_and_affine_lattices_are_affine() {
        let a = Mat43::rot_z(0.3)
            .then(&Mat43::scaling(Vec3(2.0, 1.0, 0.5)))
            .then(&Mat43::translation(Vec3(1.0, -2.0, 3.0)));
        for n in 2..=4 {
            let moved: Vec<Vec3> = source(n).iter().map(|p| a.transform_point(*p)).collect();
            let l = Lattice::new(n, moved.clone(), true).unwrap();
            // A corner of the cube lands on its control point.
            assert!(close(
                l.map(Vec3(1.0, 0.0, 1.0)).unwrap(),
                moved[(n - 1) * n * n + n - 1]
            ));
            let p = Vec3(0.2, 0.9, 0.45);
            assert!(close(l.map(p).unwrap(), a.transform_point(p)));
            // Only in volume: a point beyond the tolerance stays.
            assert!(l.map(Vec3(1.0011, 0.5, 0.5)).is_none());
            assert!(l.map(Vec3(1.0009, 0.5, 0.5)).is_some());
        }
    }

    #[test]
    fn one_moved_point_pulls_with_its_weight() {
        let mut pts = source(3);
        let centre = 9 + 3 + 1;
        pts[centre] = pts[centre].plus(Vec3(0.0, 0.0, 1.0));
        let l = Lattice::new(3, pts, true).unwrap();
        // At the centre the middle basis weighs (2·½·½)³ = 1/8.
        let q = l.map(Vec3(0.5, 0.5, 0.5)).unwrap();
        assert!(close(q, Vec3(0.5, 0.5, 0.625)), "{q:?}");
        assert!(Lattice::new(3, source(2), true).is_err());
    }
}
