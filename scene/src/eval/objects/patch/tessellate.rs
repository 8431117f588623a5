//! Bicubic Bézier patches to triangles. A quad patch's 16 control points:
//! corners v0..v3, edge handles (`vec[2i]` next to corner i on edge i, `vec[2i+1]`
//! next to corner i+1) and interiors (next to corner i), the grid NeL's
//! CBezierPatch evaluates. Each patch is cut along its tile grid (OrderS ×
//! OrderT from the RPO data, as the landscape tessellates tiles), two
//! triangles per cell, counter-clockwise seen from the patch normal.

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::rklpatch::{RklPatch, PATCH_QUAD};

/// Cells per patch side when the RPO tile count is unusable.
const DEFAULT_CELLS: u32 = 4;

/// The patch's 4×4 control grid, `[u][v]`: u runs v0 → v1, v runs v0 → v3.
fn control_grid(p: &RklPatch, i: usize) -> [[[f32; 3]; 4]; 4] {
    let q = &p.patches[i];
    let vert = |k: usize| p.verts[q.v[k] as usize].pos();
    let vec = |k: usize| p.vecs[q.vec[k] as usize].pos();
    let int = |k: usize| p.vecs[q.interior[k] as usize].pos();
    [
        [vert(0), vec(7), vec(6), vert(3)],
        [vec(0), int(0), int(3), vec(5)],
        [vec(1), int(1), int(2), vec(4)],
        [vert(1), vec(2), vec(3), vert(2)],
    ]
}

fn bernstein(t: f64) -> [f64; 4] {
    let s = 1.0 - t;
    [s * s * s, 3.0 * s * s * t, 3.0 * s * t * t, t * t * t]
}

fn eval(g: &[[[f32; 3]; 4]; 4], u: f64, v: f64) -> Vec3 {
    let (bu, bv) = (bernstein(u), bernstein(v));
    let mut out = Vec3(0.0, 0.0, 0.0);
    for (a, row) in g.iter().enumerate() {
        for (b, p) in row.iter().enumerate() {
            out = out.plus(Vec3::from_f32(*p).scale(bu[a] * bv[b]));
        }
    }
    out
}

/// Every patch cut along its tile grid.
pub fn tessellate(p: &RklPatch) -> Result<Mesh, EvalError> {
    tessellate_with(p, |i| {
        let ui = p.rpo.mesh.patches.get(i);
        let s = ui.and_then(|u| u.order_s()).unwrap_or(DEFAULT_CELLS);
        let t = ui.and_then(|u| u.order_t()).unwrap_or(DEFAULT_CELLS);
        (s, t)
    })
}

/// Every patch cut into `cells(patch)` = (along u, along v) cells.
pub fn tessellate_with(
    p: &RklPatch,
    cells: impl Fn(usize) -> (u32, u32),
) -> Result<Mesh, EvalError> {
    p.check()
        .map_err(|e| EvalError::from(e).inside("RklPatch"))?;
    let mut mesh = Mesh::default();
    for (i, q) in p.patches.iter().enumerate() {
        if q.kind != PATCH_QUAD {
            return Err(EvalError::malformed("RklPatch", format!("patch {i} is triangular; only quad patches (the NeL landscape's) are tessellated")));
        }
        let g = control_grid(p, i);
        let (su, sv) = cells(i);
        let (su, sv) = (su.clamp(1, 64), sv.clamp(1, 64));
        let base = mesh.vertices.len() as u32;
        for b in 0..=sv {
            for a in 0..=su {
                mesh.vertices.push(eval(
                    &g,
                    f64::from(a) / f64::from(su),
                    f64::from(b) / f64::from(sv),
                ));
            }
        }
        let at = |a: u32, b: u32| base + b * (su + 1) + a;
        let face = |v: [u32; 3]| Face {
            v,
            smoothing: q.smooth,
            material: 0,
            flags: 0,
        };
        for b in 0..sv {
            for a in 0..su {
                let (p00, p10, p11, p01) = (at(a, b), at(a + 1, b), at(a + 1, b + 1), at(a, b + 1));
                mesh.faces.push(face([p00, p10, p11]));
                mesh.faces.push(face([p00, p11, p01]));
            }
        }
    }
    Ok(mesh)
}
