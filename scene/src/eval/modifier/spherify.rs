//! Spherify (0xde17a34e, 0x8a41e2a0): pulls every vertex toward a sphere
//! around the centre of the modifier's input, as the public Max SDK sample
//! `spherify.cpp` does it:
//!
//! - old ParamBlock (reference 0), index 0: Percent (0 … 100, default 100);
//! - the work is done in mod-context space (the ModApp's TM 0x2510 takes
//!   object space there, its box 0x2511 is the input's box in it): the
//!   radius is half the box's largest extent, the centre the box's centre;
//! - each coordinate of a point's offset `w` from the centre moves by
//!   `sign(w)·(|w·r/|w|| − |w|)·percent/100`, so at 100 % the point lands
//!   on the sphere of radius `r` along its direction; a point at the centre
//!   is treated as offset (1, 1, 1).
//!
//! It moves each vertex by a function of its position alone (and the stored
//! box), so like the gizmo deformers it acts on the vertices of a live
//! sub-object selection only (`sub_selection`) and on a shape's knots and
//! handles (`shape_deform`).

use super::{gizmo, simple_mod, Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::primitive::block_params;
use crate::typed::ClassId;

pub const SPHERIFY: ClassId = ClassId(0xde17_a34e, 0x8a41_e2a0);

/// Spherify's deformation in mod-context space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Sphere {
    pub centre: Vec3,
    pub radius: f64,
    /// Percent / 100.
    pub amount: f64,
}

impl Sphere {
    /// The sphere of the mod-context box `min` … `max`.
    pub fn of_box(min: Vec3, max: Vec3, percent: f64) -> Sphere {
        let size = max.minus(min);
        Sphere {
            centre: min.plus(max).scale(0.5),
            radius: size.0.max(size.1).max(size.2) / 2.0,
            amount: percent / 100.0,
        }
    }

    pub fn map(&self, p: Vec3) -> Vec3 {
        let mut w = p.minus(self.centre);
        if w == Vec3(0.0, 0.0, 0.0) {
            w = Vec3(1.0, 1.0, 1.0);
        }
        let factor = self.radius / w.len();
        let pull = |x: f64| {
            let sign = if x < 0.0 { -1.0 } else { 1.0 };
            x + sign * ((x * factor).abs() - x.abs()) * self.amount
        };
        Vec3(pull(w.0), pull(w.1), pull(w.2)).plus(self.centre)
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let pb = pblock::reference(&cx.eval.graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    if pblock::is_param_block2(&cx.eval.graph, pb) {
        // The sample's block is an old ParamBlock; a ParamBlock2's ids are
        // not known.
        return Err(EvalError::not_evaluated_why(
            "Spherify",
            "its parameter block is a ParamBlock2, whose ids are not known",
        ));
    }
    let percent = block_params(cx.eval, pb, cx.t)?.float_or(0, 100.0);
    let (min, max) = simple_mod::mod_context_box(m)?;
    let sphere = Sphere::of_box(min, max, percent);
    let to_mc = gizmo::mod_context_tm(m.mod_app)?;
    let back = gizmo::inverse(&to_mc, "mod-context TM")?;
    for v in &mut mesh.vertices {
        *v = back.transform_point(sphere.map(to_mc.transform_point(*v)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        a.minus(b).len() < 1e-12
    }

    #[test]
    fn at_full_strength_points_land_on_the_sphere_of_the_box() {
        // A box 4 × 2 × 2 around (1, 0, 0): radius 2, centre (1, 0, 0).
        let s = Sphere::of_box(Vec3(-1.0, -1.0, -1.0), Vec3(3.0, 1.0, 1.0), 100.0);
        assert_eq!(s.radius, 2.0);
        assert!(close(s.map(Vec3(3.0, 0.0, 0.0)), Vec3(3.0, 0.0, 0.0)));
        // A box corner (2, 1, 1) from the centre goes out to radius 2 along
        // its own direction.
        let c = s.map(Vec3(3.0, 1.0, 1.0)).minus(s.centre);
        assert!((c.len() - 2.0).abs() < 1e-12);
        assert!(close(
            c.scale(1.0 / c.len()),
            Vec3(2.0, 1.0, 1.0).scale(1.0 / 6f64.sqrt())
        ));
    }

    #[test]
    fn the_percent_blends_each_coordinate_and_the_centre_moves_diagonally() {
        let s = Sphere::of_box(Vec3(-1.0, -1.0, -1.0), Vec3(1.0, 1.0, 1.0), 50.0);
        // (0.5, 0, 0): on the sphere it would be (1, 0, 0); half way.
        assert!(close(s.map(Vec3(0.5, 0.0, 0.0)), Vec3(0.75, 0.0, 0.0)));
        // The centre itself is taken as offset (1, 1, 1): each coordinate
        // moves half way from 1 to 1/√3.
        let h = 1.0 + (1.0 / 3f64.sqrt() - 1.0) * 0.5;
        assert!(close(s.map(Vec3(0.0, 0.0, 0.0)), Vec3(h, h, h)));
        // 0 % leaves points where they are.
        let none = Sphere::of_box(Vec3(-1.0, -1.0, -1.0), Vec3(1.0, 1.0, 1.0), 0.0);
        assert!(close(none.map(Vec3(0.3, -0.2, 0.9)), Vec3(0.3, -0.2, 0.9)));
    }
}
