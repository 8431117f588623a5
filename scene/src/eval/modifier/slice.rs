//! Slice (0x2e3741fe, 0x12702ab7): cuts the input with a plane.
//!
//! References (Max SDK sample `Slice.cpp`, public): 0 the parameter block, 1
//! the slicing plane's transform controller (PRS), 2 a node transform monitor.
//! The plane in object space is the controller's matrix times the inverse
//! mod-context TM; its normal is that matrix's Z axis (the default "planar Z";
//! a remove-top slice turns it round), its offset normal · origin.
//!
//! Parameters: the old ParamBlock (files saved before Max 2021's ParamBlock2,
//! and Max 2021's own "legacy" Slice) by index: 0 slice type (0 refine mesh, 1
//! split mesh, 2 remove top, 3 remove bottom), 1 polygons (1) or faces (0), 2
//! clean. Evaluated: remove top and remove bottom on polygons — the input's
//! triangles joined across hidden edges into polygons (as the legacy path's
//! `MakePolyMesh` does), each cut polygon keeping only the points where its
//! outer sides cross the plane (`symmetry_slice`). The legacy path fences
//! material ids, smoothing groups and non-planar edges before joining; an input
//! with a hidden edge across such a fence is refused (our join would cross
//! it). Refine and split (the kept halves both stay, cut), slicing faces
//! (triangles), a ParamBlock2 Slice (radial format, several axes, flips,
//! capping, a reference object) and an input with a sub-object selection are
//! not evaluated: they are errors naming what.

use super::symmetry_slice::slice_below;
use super::{gizmo, Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::primitive::block_params;
use crate::typed::ClassId;

pub const SLICE: ClassId = ClassId(0x2e3741fe, 0x12702ab7);

const PBLOCK_SLOT: u32 = 0;
const PLANE_SLOT: u32 = 1;
/// Class of the old (pre-ParamBlock2) parameter block.
const OLD_PARAM_BLOCK: ClassId = ClassId(0x08, 0);
const REMOVE_TOP: i64 = 2;
const REMOVE_BOTTOM: i64 = 3;
/// `MNMesh::FenceNonPlanarEdges`' default: faces whose normals' dot product is
/// below this are not joined.
const PLANAR_DOT: f64 = 0.9999;

/// Refuses an input whose hidden edges join triangles that the legacy path's
/// fences (material, smoothing group, non-planar) would keep apart.
fn check_fences(mesh: &Mesh) -> Result<(), EvalError> {
    use std::collections::HashMap;
    let normal = |f: usize| {
        let v = mesh.faces[f].v.map(|i| mesh.vertices[i as usize]);
        v[1].minus(v[0]).cross(v[2].minus(v[0])).normalized()
    };
    let mut directed: HashMap<(u32, u32), (usize, usize)> = HashMap::new();
    for (f, face) in mesh.faces.iter().enumerate() {
        if face.v.iter().any(|&v| v as usize >= mesh.vertices.len()) {
            return Err(EvalError::reference(
                "",
                format!("face {f} uses a missing vertex"),
            ));
        }
        for k in 0..3 {
            directed.insert((face.v[k], face.v[(k + 1) % 3]), (f, k));
        }
    }
    for (f, face) in mesh.faces.iter().enumerate() {
        for k in 0..3 {
            if face.flags & (1 << k) != 0 {
                continue;
            }
            let Some(&(g, j)) = directed.get(&(face.v[(k + 1) % 3], face.v[k])) else {
                continue;
            };
            if g == f || mesh.faces[g].flags & (1 << j) != 0 {
                continue;
            }
            let other = mesh.faces[g];
            if other.material != face.material || other.smoothing != face.smoothing {
                return Err(EvalError::not_evaluated(format!(
                    "faces {f} and {g} share a hidden edge across a material or smoothing fence"
                )));
            }
            if normal(f).dot(normal(g)) < PLANAR_DOT {
                return Err(EvalError::not_evaluated(format!(
                    "faces {f} and {g} share a hidden non-planar edge"
                )));
            }
        }
    }
    Ok(())
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let graph = &cx.eval.graph;
    let pb = pblock::reference(graph, m.object, PBLOCK_SLOT).ok_or_else(|| {
        EvalError::reference("", format!("no parameter block (reference {PBLOCK_SLOT})"))
    })?;
    let class = graph.class(pb);
    if class.is_none_or(|c| c.class_id != OLD_PARAM_BLOCK) {
        return Err(EvalError::not_evaluated(
            "a ParamBlock2 Slice (Max 2021+ options: radial, axes, flips, caps)",
        ));
    }
    let p = block_params(cx.eval, pb, cx.t)?;
    let kind = p.int_or(0, 0);
    if kind != REMOVE_TOP && kind != REMOVE_BOTTOM {
        return Err(EvalError::not_evaluated_why(
            format!(
                "slice type {kind} ({})",
                if kind == 0 {
                    "refine mesh"
                } else {
                    "split mesh"
                }
            ),
            "only remove top / remove bottom",
        ));
    }
    if p.int_or(1, 0) == 0 {
        return Err(EvalError::not_evaluated_why(
            "slicing faces (triangles)",
            "only polygons",
        ));
    }
    let ctl = pblock::reference(graph, m.object, PLANE_SLOT).ok_or_else(|| {
        EvalError::reference(
            "",
            format!("no slice plane controller (reference {PLANE_SLOT})"),
        )
    })?;
    let plane = cx
        .eval
        .prs_tm(ctl, cx.t)
        .ok_or_else(|| EvalError::not_evaluated("slice plane controller"))?
        .then(&gizmo::inverse(
            &gizmo::mod_context_tm(m.mod_app)?,
            "mod-context TM",
        )?);
    let origin = plane.transform_point(Vec3::default());
    let z = plane.transform_vector(Vec3(0.0, 0.0, 1.0));
    if z.len() < 1e-12 || !z.len().is_finite() {
        return Err(EvalError::malformed("", "slice plane has no normal"));
    }
    let mut n = z.normalized();
    if kind == REMOVE_TOP {
        n = n.scale(-1.0);
    }
    check_fences(mesh)?;
    slice_below(mesh, n, n.dot(origin))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::mesh::Face;

    fn quad(flags_diag: bool, material: u16) -> Mesh {
        // Two triangles of the unit square, diagonal 0–2 hidden unless asked.
        let diag = if flags_diag { 0b111 } else { 0b011 };
        Mesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
            ],
            faces: vec![
                Face {
                    v: [0, 1, 2],
                    smoothing: 1,
                    material: 0,
                    flags: diag,
                },
                Face {
                    v: [2, 3, 0],
                    smoothing: 1,
                    material,
                    flags: diag,
                },
            ],
            maps: Vec::new(),
            ..Default::default()
        }
    }

    #[test]
    fn fences_refuse_joins_max_would_not_make() {
        assert!(check_fences(&quad(false, 0)).is_ok());
        assert!(
            check_fences(&quad(true, 5)).is_ok(),
            "visible edge: no join"
        );
        let e = check_fences(&quad(false, 5)).unwrap_err();
        assert!(e.to_string().contains("material"), "{e}");
        let mut bent = quad(false, 0);
        bent.vertices[3].2 = 0.5;
        assert!(check_fences(&bent)
            .unwrap_err()
            .to_string()
            .contains("non-planar"));
    }
}
