//! Normal (0xf8614, 0) and Smooth (0xf8613, 0), Max's surface modifiers
//! (public Max SDK sample source of both):
//!
//! - Normal: old ParamBlock (reference 0) by index, 0 unify, 1 flip. Flip
//!   turns every face over as Max's `Mesh::FlipNormal` does — corners 0 and
//!   1 swap, so edge A stays and edges B and C trade visibility; every map
//!   channel's face swaps the same corners. Unify (Max's `UnifyNormals`,
//!   which reorients faces by their neighbours) is not evaluated.
//! - Smooth: ParamBlock2 (reference 0) by id, 0 auto smooth, 1 threshold,
//!   2 smoothing bits, 3 prevent indirect. Without auto smooth every face's
//!   smoothing groups become the bits; auto smooth (Max's `AutoSmooth`) is
//!   not evaluated.
//!
//! Both act on the face selection passed up the stack, so above a Mesh
//! Select they are refused (`apply_stack`).

use super::{Applied, ModContext};
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::primitive::block_params;
use crate::typed::ClassId;

pub const NORMAL: ClassId = ClassId(0xf8614, 0);
pub const SMOOTH: ClassId = ClassId(0xf8613, 0);

fn params(
    m: &Applied,
    cx: &ModContext,
) -> Result<crate::eval::objects::primitive::Params, EvalError> {
    let pb = pblock::reference(&cx.eval.graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    block_params(cx.eval, pb, cx.t)
}

/// Turns every face over (Max's `Mesh::FlipNormal` on each face).
pub fn flip_faces(mesh: &mut Mesh) {
    for f in &mut mesh.faces {
        f.v.swap(0, 1);
        let (b, c) = (f.flags >> 1 & 1, f.flags >> 2 & 1);
        f.flags = (f.flags & !0b110) | c << 1 | b << 2;
    }
    for ch in &mut mesh.maps {
        for f in &mut ch.faces {
            f.swap(0, 1);
        }
    }
}

pub(super) fn apply_normal(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = params(m, cx)?;
    if p.flag(0, false) {
        return Err(EvalError::not_evaluated_why(
            "unify",
            "Max's UnifyNormals is not public",
        ));
    }
    if p.flag(1, true) {
        mesh.check_map_faces()?;
        flip_faces(mesh);
    }
    Ok(())
}

pub(super) fn apply_smooth(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = params(m, cx)?;
    if p.flag(0, false) {
        return Err(EvalError::not_evaluated_why(
            "auto smooth",
            "Max's AutoSmooth is not public",
        ));
    }
    let bits = p.int_or(2, 0) as u32;
    for f in &mut mesh.faces {
        f.smoothing = bits;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::mesh::{Face, MapChannel};

    #[test]
    fn flipping_reverses_winding_and_keeps_edges_with_their_vertices() {
        let mut m = Mesh {
            vertices: vec![Default::default(); 3],
            faces: vec![Face {
                v: [0, 1, 2],
                smoothing: 1,
                material: 4,
                // Edge A (0-1) and edge B (1-2) visible, C (2-0) hidden.
                flags: 0b011,
            }],
            maps: vec![MapChannel {
                channel: 1,
                vertices: vec![[0.0; 3]; 3],
                faces: vec![[5, 6, 7]],
            }],
            normals: None,
            missing_maps: Vec::new(),
        };
        flip_faces(&mut m);
        let f = m.faces[0];
        assert_eq!(f.v, [1, 0, 2]);
        // Edge 1-2 is now edge C (2-1 … 0): visible; edge 0-2 is B: hidden.
        assert_eq!(f.flags, 0b101);
        assert_eq!((f.smoothing, f.material), (1, 4));
        assert_eq!(m.maps[0].faces[0], [6, 5, 7]);
        flip_faces(&mut m);
        assert_eq!((m.faces[0].v, m.faces[0].flags), ([0, 1, 2], 0b011));
    }
}
