//! What a mesh modifier sitting directly on a shape (Edit Poly, Shell,
//! TurboSmooth, Face Extrude, Mesh Select …: [`takes_mesh`]) receives: Max converts the
//! shape to a mesh first. Max's
//! manual (Splines, Rendering rollout) states the rule: with "Enable In
//! Viewport" on, the mesh shown in viewports; off, closed shapes "filled in"
//! and open ones vertices only, no edges or faces.
//!
//! - Shown in viewports: the tube (`render_mesh::tube`), with the viewport's
//!   cross-section when "Use Viewport Settings" is set, else the renderer's,
//!   whether or not "Enable In Renderer" is — and open ends NOT capped.
//!   Pinned by Source_of_power.max (public, docs/unseen-files.md): three open
//!   Lines shown in viewports but not renderable, renderer 6 sides, viewport
//!   12, under an Edit Poly whose saved vertex offsets number 66, 66 and 84
//!   (their 11, 11 and 14 points × 6 sides, no cap vertex) and whose saved
//!   face selection has 60 faces (10 rows × 6 quads, no cap polygon).
//! - Otherwise: the closed polylines' points, each outline with its holes
//!   capped (`extrude::cap`, the morph capping Extrude uses, facing +Z,
//!   outline edges visible, diagonals hidden), then the open polylines'
//!   points as loose vertices. The counts follow the interpolation (with
//!   optimize's tolerance, docs/evaluation.md): wodden_box's 4-knot Line
//!   under Face Extrude and Edit Poly is one 4-corner polygon (Max's Mesh
//!   Totals), sidewalk 03's 6-knot Line one 24-corner polygon (its Edit
//!   Poly's saved sizes). Vertex numbering, cap orientation, material (0)
//!   and smoothing (none) are ours, not pinned.
//!
//! Poly modifiers take these triangles joined across their hidden edges
//! (one polygon per tube quad, per cap region), edges numbered as the
//! triangles walk them, as they take Extrude's (`poly_of_shape`).

use super::extrude::cap;
use super::{Applied, ModContext, EDIT_MESH, EDIT_POLY, SYMMETRY, UNWRAP_UVW};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::poly::PolyMesh;
use crate::eval::objects::poly_make;
use crate::eval::objects::shape::render_mesh::tube;
use crate::eval::objects::shape::{organize, PolyLine, ShapeEval};
use crate::typed::ClassId;

/// Quadify Mesh (poly modifier; not evaluated).
const QUADIFY_MESH: ClassId = ClassId(0x4bb0_655a, 0x0e3e_3a15);

/// Whether modifier `class` works on meshes or polygons only, so that Max
/// converts a shape below it. Deformers (Bend, FFD, XForm …) deform a shape
/// and leave it a shape, and shape modifiers (Bevel, Sweep, Surface …) take
/// it as one: those stay refused "acting on a shape".
pub fn takes_mesh(class: ClassId) -> bool {
    [
        EDIT_POLY,
        EDIT_MESH,
        UNWRAP_UVW,
        SYMMETRY,
        super::shell::SHELL,
        super::turbo_smooth::TURBO_SMOOTH,
        super::mesh_smooth::MESH_SMOOTH,
        super::surface::SMOOTH,
        super::surface::NORMAL,
        super::face_extrude::FACE_EXTRUDE,
        super::face_extrude::FACE_EXTRUDE2,
        QUADIFY_MESH,
        super::sub_selection::MESH_SELECT,
        super::sub_selection::POLY_SELECT,
    ]
    .contains(&class)
}

/// The triangle mesh a modifier directly on shape `s` receives.
pub fn input_mesh(s: &ShapeEval) -> Result<Mesh, EvalError> {
    if s.render.in_viewport {
        return tube(&s.polylines, &s.render.viewport_tube(), false).map_err(EvalError::from);
    }
    Ok(filled(&s.polylines))
}

/// Closed polylines capped, open ones as loose vertices (see the module
/// documentation).
pub fn filled(lines: &[PolyLine]) -> Mesh {
    let lines: Vec<PolyLine> = lines
        .iter()
        .filter(|l| !l.pts.is_empty())
        .cloned()
        .collect();
    let (hier, lines) = organize(&lines);
    let capped = |i: usize| hier.depth[i].is_some();
    let order: Vec<usize> = (0..lines.len())
        .filter(|&i| capped(i))
        .chain((0..lines.len()).filter(|&i| !capped(i)))
        .collect();
    let mut mesh = Mesh::default();
    let mut first = vec![0u32; lines.len()];
    for &i in &order {
        first[i] = mesh.vertices.len() as u32;
        mesh.vertices.extend(lines[i].pts.iter().map(|p| p.p));
    }
    cap(
        &mut mesh,
        &lines,
        &hier,
        |li, k| first[li] + k as u32,
        false,
        0,
    );
    mesh
}

/// The polygon mesh a poly modifier directly on shape `s` receives: the
/// triangles of [`input_mesh`] joined across hidden edges, edges numbered as
/// the triangles walk them without the hidden ones (as for Extrude).
pub fn input_poly(s: &ShapeEval) -> Result<PolyMesh, EvalError> {
    let tri = input_mesh(s)?;
    poly_make::as_max_converts(&tri)
}

/// The polygon mesh an Edit Poly above receives from a shape modifier that
/// builds triangles (Extrude, Lathe: `build`) at the bottom of a shape's stack
/// (`s`, deformed by any point deformers below it): Max converts the mesh output (`SetFromTri`, `MakePolyMesh`),
/// joining faces across hidden edges, so each side quad is its two triangles
/// and each cap is one polygon per outline. Checked for Extrude against
/// Sword.max's Edit Poly, whose saved selection sizes the replay then
/// matches; for Lathe only through the sizes its Edit Polys saved.
pub(super) fn poly_of_shape(
    m: &Applied,
    s: &ShapeEval,
    cx: &ModContext,
    build: fn(&Applied, &[PolyLine], &ModContext) -> Result<Mesh, EvalError>,
) -> Result<PolyMesh, EvalError> {
    let tri = build(m, &s.polylines, cx)?;
    poly_make::as_max_converts(&tri)
}
