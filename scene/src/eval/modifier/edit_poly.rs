//! Edit Poly: the modifier keeps no mesh. Its local data (0x2512) holds the
//! selections it last saw (0x0200 / 0x0210 / 0x0220 vertex / edge / face,
//! sized to the mesh it output) and the committed operations
//! (`edit_poly_records`), which Max replays on the polygon form (MNMesh) of
//! the modifier's input each time; so does this module, then checks the result
//! against those saved sizes and triangulates it as Max does.
//!
//! Operations evaluated: Transform, Set Material ID, Delete Face, Delete Edge
//! and Delete Vertex (`edit_poly_topo`), Make Planar X / Y / Z
//! (`edit_poly_planar`), Attach, Weld Vertex, Detach Face as clone (Clone
//! Face's replay) or when the next operation deletes the same faces, Inset
//! and Extrude Face on one-face clusters, Extrude Face of a group with one
//! border loop (`edit_poly_extrude_group`) and the Max 2017+ move extrusion of
//! faces not adjacent (`edit_poly_extrude`), Auto Smooth and Set Smoothing (`edit_poly_smooth`),
//! Insert Vertex Edge, Connect Vertex (`edit_poly_edges`), Connect Edge
//! (`edit_poly_connect`) and Clone Edge (`edit_poly_clone`) on a known edge
//! numbering, Clone Face (`edit_poly_clone_face`), Flip Face (`edit_poly_flip`),
//! Bevel (`edit_poly_bevel`; an outline on faces extruded one by one), Extrude Edge on closed
//! border loops and single border edges (`edit_poly_extrude_edge`), Create and Target Weld
//! (`edit_poly_create`), Cut across one face per segment (`edit_poly_cut`),
//! Cap of border loops (`edit_poly_cap`), and Split Edges and Tessellate when their selection leaves nothing to do.
//! Any other operation is an error naming it. The input is rebuilt as polygons
//! from a primitive's polygon builder, an Editable Poly, or the Edit Poly below
//! (replayed the same way), through any Unwrap UVW between them.

use crate::chunk::Chunk;
use crate::eval::error::EvalError;

use super::edit_poly_bevel as bevel;
use super::edit_poly_cap as cap;
use super::edit_poly_chamfer as chamfer;
use super::edit_poly_chamfer_standard_corner as corner;
use super::edit_poly_clone as clone;
use super::edit_poly_clone_face as clone_face;
use super::edit_poly_collapse as collapse;
use super::edit_poly_connect as connect;
use super::edit_poly_create as create;
use super::edit_poly_create_edge as create_edge;
use super::edit_poly_cut as cut;
use super::edit_poly_edges as edges;
use super::edit_poly_extrude as extrude;
use super::edit_poly_extrude_edge as extrude_edge;
use super::edit_poly_flip as flip;
use super::edit_poly_planar as planar;
use super::edit_poly_records::*;
use super::edit_poly_remove as remove;
use super::edit_poly_retriangulate as retriangulate;
use super::edit_poly_smooth as smooth;
use super::edit_poly_topo as topo;
use super::{bits, Applied, ModContext};
use crate::eval::core::pblock;
use crate::eval::objects::mesh::{self, Mesh, MissingMap, MissingNormals, MissingPart};
use crate::eval::objects::poly::PolyMesh;
use crate::eval::objects::primitive;
use crate::eval::objects::primitive_poly;

/// Applies an Edit Poly: rebuilds the polygon form of its input, replays the
/// operations, checks the result against the selection sizes the modifier saved
/// and triangulates it as Max does.
pub(super) fn apply(
    m: &Applied,
    _local: &Chunk,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    polygon_stage(m, mesh, cx, |stack, at, base, dropped| {
        output(stack, at, base, cx, None, dropped)
    })
}

/// Poly Select: Max hands the modifiers above a poly object — its input
/// converted as an Edit Poly converts it — with a selection and nothing else
/// changed, so its output is the polygon form of the stack below it (a
/// triangle consumer above gets that form's triangles, as above an Edit
/// Poly without operations). Its selection is read by `sub_selection`.
pub(super) fn apply_poly_select(
    m: &Applied,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    polygon_stage(m, mesh, cx, |stack, at, base, dropped| {
        below(stack, at + 1, base, cx, dropped)
    })
}

/// Replaces `mesh` by the triangles of the polygon mesh `stage` makes for
/// the modifier `m` (found at `at` in its stack over `base`), naming what it
/// left out.
fn polygon_stage(
    m: &Applied,
    mesh: &mut Mesh,
    cx: &ModContext,
    stage: impl FnOnce(&[Applied], usize, usize, &mut Left) -> Result<PolyMesh, EvalError>,
) -> Result<(), EvalError> {
    let (stack, base, at) = cx.place(m)?;
    let mut dropped = Left::default();
    let poly = stage(&stack, at, base, &mut dropped)?;
    let _ = std::mem::replace(mesh, poly.to_mesh()?);
    mesh.missing_maps.extend(dropped.maps);
    mesh.missing_normals = dropped.normals;
    mesh.missing_parts.extend(dropped.parts);
    Ok(())
}

/// What the replay left out of its result, to be named on the mesh: map
/// channels whose map faces an operation does not derive, and specified
/// normals an operation's effect on is not derived.
#[derive(Default)]
struct Left {
    maps: Vec<MissingMap>,
    normals: Option<MissingNormals>,
    /// Parts an Unwrap UVW's cache that stood in below does not hold.
    parts: Vec<MissingPart>,
}

/// The Unwrap UVW at `stack[at]`'s cache of its input in place of the stack
/// below it, which failed with `failed`; what was left out below is replaced
/// by what the cache lacks.
fn stand_in(
    stack: &[Applied],
    at: usize,
    base: usize,
    cx: &ModContext,
    failed: EvalError,
    ours: Option<super::cache_smoothing::Below>,
    dropped: &mut Left,
) -> Result<PolyMesh, EvalError> {
    if !cx.stand_ins {
        return Err(failed);
    }
    let (poly, parts) = super::unwrap_cache::stand_in(stack, at, base, cx, failed, ours)?;
    dropped.parts.extend(parts);
    Ok(poly)
}

/// The polygon mesh the Edit Poly at `at` in `node`'s modifier stack (0 = top)
/// outputs at time `t`, before anything above it: what tests compare with the
/// geometry a modifier above cached of its input.
pub fn polygon_output(
    eval: &crate::eval::SceneEval,
    node: usize,
    at: usize,
    t: i32,
) -> Result<PolyMesh, EvalError> {
    replayed_alone(eval, node, at, t, None)
}

/// The polygon mesh after the first `count` operations of the Edit Poly at
/// `at` in `node`'s stack, before the rest (not checked against the sizes the
/// modifier saved): what tests compare with the selection sizes the next
/// operation recorded.
pub fn polygon_output_after(
    eval: &crate::eval::SceneEval,
    node: usize,
    at: usize,
    t: i32,
    count: usize,
) -> Result<PolyMesh, EvalError> {
    replayed_alone(eval, node, at, t, Some(count))
}

/// The Edit Poly at `at` replayed alone (all its operations, or the first
/// `count`), as Max computed it: Max's order, no stand-in cache.
fn replayed_alone(
    eval: &crate::eval::SceneEval,
    node: usize,
    at: usize,
    t: i32,
    count: Option<usize>,
) -> Result<PolyMesh, EvalError> {
    let (stack, base) = eval
        .modifier_stack(node)
        .ok_or_else(|| EvalError::malformed("", "the node has no modifier stack"))?;
    if stack.get(at).is_none_or(|m| m.class != super::EDIT_POLY) {
        return Err(EvalError::malformed(
            "",
            format!("modifier {at} is not an Edit Poly"),
        ));
    }
    let cx = ModContext {
        eval,
        node: Some(node),
        t,
        max_order: true,
        // Max's result of the Edit Poly itself: never a cache above.
        stand_ins: false,
        object: None,
    };
    output(&stack, at, base, &cx, count, &mut Left::default())
}

/// The selections (vertex, edge, face sizes) operation `index` of the Edit
/// Poly at `at` in `node`'s stack recorded, with the operation's name.
pub fn operation_selection(
    eval: &crate::eval::SceneEval,
    node: usize,
    at: usize,
    index: usize,
) -> Result<(String, usize), EvalError> {
    recorded(eval, node, at, index, |op| {
        (op_name(op.id), op.selection.len())
    })
}

/// Operation `index` of the Edit Poly at `at` in `node`'s stack as Max
/// recorded it, for measuring tools: (id, selection bits, parameter ids with
/// their bytes, ids and sizes of its local data and extra records).
pub fn operation_record(
    eval: &crate::eval::SceneEval,
    node: usize,
    at: usize,
    index: usize,
) -> Result<OperationRecord, EvalError> {
    recorded(eval, node, at, index, |op| OperationRecord {
        id: op.id,
        selection: op.selection.clone(),
        params: op.params.clone(),
        records: op
            .data
            .iter()
            .chain(&op.extra)
            .map(|(id, b)| (*id, b.clone()))
            .collect(),
        offsets: op.offsets.len(),
    })
}

/// What [`operation_record`] returns.
#[derive(Debug, Clone)]
pub struct OperationRecord {
    pub id: u32,
    pub selection: Vec<bool>,
    pub params: Vec<(u32, Vec<u8>)>,
    pub records: Vec<(u16, Vec<u8>)>,
    pub offsets: usize,
}

/// How many vertex offsets operation `index` (a Transform) of the Edit Poly
/// at `at` in `node`'s stack recorded: Max saves one per vertex of the mesh
/// it moved, so the count is the vertex count after the operations before.
pub fn operation_offsets(
    eval: &crate::eval::SceneEval,
    node: usize,
    at: usize,
    index: usize,
) -> Result<usize, EvalError> {
    recorded(eval, node, at, index, |op| op.offsets.len())
}

/// The vertex offsets operation `index` (a Transform) of the Edit Poly at
/// `at` in `node`'s stack recorded, one per vertex in Max's order: which
/// vertices a Transform right after an operation moves pins that
/// operation's vertex numbering (measuring tools).
pub fn operation_offset_values(
    eval: &crate::eval::SceneEval,
    node: usize,
    at: usize,
    index: usize,
) -> Result<Vec<crate::eval::core::math::Vec3>, EvalError> {
    recorded(eval, node, at, index, |op| op.offsets.clone())
}

/// What `read` takes from operation `index` of the Edit Poly at `at` in
/// `node`'s stack, as Max recorded it.
fn recorded<T>(
    eval: &crate::eval::SceneEval,
    node: usize,
    at: usize,
    index: usize,
    read: impl FnOnce(&Operation) -> T,
) -> Result<T, EvalError> {
    let (stack, _) = eval
        .modifier_stack(node)
        .ok_or_else(|| EvalError::malformed("", "the node has no modifier stack"))?;
    let local = stack
        .get(at)
        .and_then(|m| m.mod_app)
        .and_then(|a| a.children().iter().find(|c| c.id == super::LOCAL_DATA))
        .ok_or_else(|| EvalError::malformed("", "no local data"))?;
    let ops = operations(local.children())?;
    let op = ops
        .get(index)
        .ok_or_else(|| EvalError::malformed("", format!("no operation {index}")))?;
    Ok(read(op))
}

/// The polygon mesh the Edit Poly at `stack[at]` outputs, or with `limit` the
/// mesh after that many of its operations; `dropped` gathers the map channels
/// and specified normals operations left out (named on the mesh, unless
/// written again or cleared above).
fn output(
    stack: &[Applied],
    at: usize,
    base: usize,
    cx: &ModContext,
    limit: Option<usize>,
    dropped: &mut Left,
) -> Result<PolyMesh, EvalError> {
    let m = &stack[at];
    let local = m
        .mod_app
        .and_then(|a| a.children().iter().find(|c| c.id == super::LOCAL_DATA))
        .ok_or_else(|| EvalError::malformed("", "no local data"))?;
    let mut ops = operations(local.children())?;
    if let Some(n) = limit {
        ops.truncate(n);
    }
    if drives_points(cx, m.object) {
        return Err(EvalError::not_evaluated(
            "animation mode (animated vertices)",
        ));
    }
    if let Some(pb) = pblock::reference(&cx.eval.graph, m.object, 0) {
        let block = pblock::param_block2(cx.eval.chunks(pb))?;
        if let Some(p) = block.param(PARAM_CURRENT_OPERATION) {
            if let pblock::Value::Int(op) = p.value {
                // A pending Transform that holds no offsets moves nothing.
                if op != 0
                    && !(op as u32 == OP_TRANSFORM && pending_is_empty_transform(local.children()))
                {
                    return Err(EvalError::not_evaluated(format!(
                        "{} in progress (not committed)",
                        op_name(op as u32)
                    )));
                }
            }
        }
    }
    if let Some(op) = ops.iter().find(|o| !is_evaluated(o.id) && !cuts_nothing(o)) {
        return Err(refusal(op));
    }
    if let Some(e) = ops.iter().find_map(release_refusal) {
        return Err(e);
    }
    // Right above a Boolean modifier the polygons are our CSG's triangles,
    // not Max's: only operations that address none of them replay, and
    // Max's saved sizes (of its own result) are not ours to match.
    let above_boolean = stack
        .get(at + 1)
        .is_some_and(|b| b.class == super::boolean_mod::BOOLEAN_MOD);
    if above_boolean {
        if let Some(op) = ops.iter().find(|o| o.id != OP_ATTACH) {
            return Err(EvalError::not_evaluated_why(
                format!("{} above a Boolean modifier", op_name(op.id)),
                "it addresses vertices, edges or faces of Max's triangulation of the \
                 Boolean's result, which this evaluation does not reproduce (same \
                 surface, other triangles)",
            ));
        }
    }
    let mut poly = below(stack, at + 1, base, cx, dropped)?;
    let mut known = extrude::Known::default();
    let mut caps = cap::Made::default();
    let mut unpinned = corner::Unpinned::default();
    for (i, op) in ops.iter().enumerate() {
        let next = ops.get(i + 1);
        if let Some(why) = &unpinned.numbering {
            reads_no_numbering(op, &poly, why)?;
        }
        let gone: Vec<i32> = dropped.maps.iter().filter_map(|d| d.channel).collect();
        if !specified_normals(op, &mut poly) && dropped.normals.is_none() {
            dropped.normals = Some(MissingNormals {
                modifier: m.name.to_string(),
                reason: format!(
                    "{}: which corners keep theirs is not derived",
                    op_name(op.id)
                ),
            });
        }
        let faces = poly.faces.len();
        let channels = replay(op, next, &mut poly, &mut known, &gone, &mut unpinned)
            .map_err(|e| e.inside(op_name(op.id).to_string()))?;
        if op.id == OP_CHAMFER_EDGE {
            if let Some(why) = unpinned.faces.take() {
                dropped.parts.push(MissingPart {
                    part: "material ids and smoothing groups".to_string(),
                    source: format!("modifier {}", m.name),
                    reason: format!("{}: {why}", op_name(op.id)),
                });
            }
        }
        if op.id == OP_CAP {
            caps.note(&poly, faces);
        }
        dropped
            .maps
            .extend(channels.into_iter().map(|c| MissingMap {
                channel: Some(c),
                modifier: m.name.to_string(),
                reason: format!("{}: its map faces are not derived", op_name(op.id)),
            }));
    }
    if limit.is_none() && !above_boolean {
        check_saved_sizes(local.children(), &poly)?;
    }
    if let (Some(why), None) = (&unpinned.numbering, limit) {
        nothing_above_reads_numbering(stack, at, why)?;
    }
    dropped.parts.extend(caps.left_in(&poly, m.name));
    Ok(poly)
}

/// The polygons `stack[from]` outputs, as an Edit Poly above it would take
/// them (`below`), for the subdividing modifiers (`smooth_input`); what they
/// leave out is not named here (those modifiers read maps from triangles).
pub(super) fn polygons_from(
    stack: &[Applied],
    from: usize,
    base: usize,
    cx: &ModContext,
) -> Result<PolyMesh, EvalError> {
    below(stack, from, base, cx, &mut Left::default())
}

/// The polygons the Symmetry at `stack[at]` outputs, for a modifier right
/// above it whose result does not depend on vertex numbering (TurboSmooth,
/// MeshSmooth): polygons across the plane are cut
/// (`symmetry_poly::apply_any_numbering`), where an Edit Poly above refuses
/// them. The stack below is taken as an Edit Poly would take it.
pub(super) fn symmetry_polygons(
    stack: &[Applied],
    at: usize,
    base: usize,
    cx: &ModContext,
) -> Result<PolyMesh, EvalError> {
    let m = stack
        .get(at)
        .filter(|m| m.class == super::SYMMETRY)
        .ok_or_else(|| EvalError::malformed("", "no Symmetry at that stack index"))?;
    through_symmetry(m, stack, at, base, cx, &mut Left::default(), true)
}

/// The polygons out of Symmetry `m` at `stack[at]`; `any_numbering` cuts
/// polygons across the plane even though Max's vertex numbering of the cut is
/// not known. Symmetry clears specified normals, as on triangles.
fn through_symmetry(
    m: &Applied,
    stack: &[Applied],
    at: usize,
    base: usize,
    cx: &ModContext,
    dropped: &mut Left,
    any_numbering: bool,
) -> Result<PolyMesh, EvalError> {
    let mut poly = below(stack, at + 1, base, cx, dropped)?;
    poly.normals = None;
    dropped.normals = None;
    for pl in super::symmetry::planes(m, cx).map_err(|e| m.error(Some(e)))? {
        let done = if any_numbering {
            super::symmetry_poly::apply_any_numbering(&mut poly, &pl)
        } else {
            super::symmetry_poly::apply(&mut poly, &pl)
        };
        done.map_err(|e| m.error(Some(e)))?;
    }
    Ok(poly)
}

/// The polygon mesh that reaches `stack[at]` from below: the base object's
/// polygon form, an Edit Poly's output, or either through Unwrap UVW (which
/// keeps the polygons and replaces map channel 1 with its own), Symmetry
/// (`symmetry_poly`) or Smooth (polygon auto smooth).
fn below(
    stack: &[Applied],
    at: usize,
    base: usize,
    cx: &ModContext,
    dropped: &mut Left,
) -> Result<PolyMesh, EvalError> {
    let on_shape = crate::eval::objects::shape::is_shape_object(cx.eval, base);
    match stack.get(at) {
        None => input(base, cx, dropped),
        // Point deformers down to a shape deform its knots, not the
        // polygons made of it (`shape_deform`).
        Some(_) if on_shape && super::shape_deform::only_deformers_from(stack, at) => {
            let s = super::shape_deform::shape_below(stack, at, base, cx)?;
            super::shape_input::input_poly(&s)
        }
        Some(m) if m.class == super::boolean_mod::BOOLEAN_MOD => {
            let (poly, missing) = super::boolean_mod::polygons_below(stack, at, base, cx)?;
            dropped.maps.extend(missing);
            Ok(poly)
        }
        Some(m) if m.class == super::EDIT_POLY => {
            output(stack, at, base, cx, None, dropped).map_err(|e| e.inside("the Edit Poly below"))
        }
        Some(m) if m.class == super::UNWRAP_UVW => {
            // Where the stack below fails or does not take the Unwrap's map,
            // the Unwrap's cache of its input stands in (`unwrap_cache`).
            let mut inner = Left::default();
            let mut poly = match below(stack, at + 1, base, cx, &mut inner) {
                Ok(p) => p,
                Err(e) => return stand_in(stack, at, base, cx, e, None, dropped),
            };
            let local = m
                .mod_app
                .and_then(|a| a.children().iter().find(|c| c.id == super::LOCAL_DATA))
                .map_or(&[][..], Chunk::children);
            let applied = super::unwrap::apply_poly(local, cx.eval.chunks(m.object), &mut poly);
            match applied {
                Ok(()) => inner.maps.retain(|d| d.channel != Some(1)),
                Err(e) => {
                    let ours = Some(super::cache_smoothing::Below::Poly(&poly));
                    if let Ok(p) = stand_in(stack, at, base, cx, m.error(Some(e)), ours, dropped) {
                        return Ok(p);
                    }
                    // An Unwrap UVW that cannot be applied never costs the
                    // geometry: its channel leaves the polygons (the stack
                    // records why when it met the modifier, see `uv_only`).
                    poly.maps.retain(|x| x.channel != 1);
                }
            }
            dropped.maps.extend(inner.maps);
            dropped.parts.extend(inner.parts);
            if inner.normals.is_some() {
                dropped.normals = inner.normals;
            }
            Ok(poly)
        }
        // Symmetry and Smooth on a poly object pass polygons up.
        // As on triangles (`keeps_specified_normals`), Symmetry and Smooth
        // clear specified normals.
        // A rigid body or render properties pass the polygons up as they are.
        // So does a Poly Select (it only sets a selection).
        Some(m)
            if super::PROPERTIES_ONLY.contains(&m.class)
                || m.class == super::sub_selection::POLY_SELECT =>
        {
            below(stack, at + 1, base, cx, dropped)
        }
        Some(m) if m.class == super::SYMMETRY => {
            through_symmetry(m, stack, at, base, cx, dropped, false)
        }
        // TurboSmooth passes its quads up in Max's numbering
        // (`turbo_smooth::apply_poly`); it clears specified normals.
        Some(m) if m.class == super::turbo_smooth::TURBO_SMOOTH => {
            let poly = below(stack, at + 1, base, cx, dropped)?;
            dropped.normals = None;
            super::turbo_smooth::apply_poly(m, &poly, cx).map_err(|e| m.error(Some(e)))
        }
        // A modifier that writes one map channel and nothing else (UVW Map,
        // UVW Xform …; `uv_only`) keeps the polygons below it; its channel is
        // read over its triangle output, whose triangles are the polygons'
        // (`uv_only::over_polygons`). Where that fails the channel leaves the
        // polygons, named, as where such a modifier fails on a triangle mesh.
        Some(m) if super::uv_only::is_uv_only(m.class) => {
            let mut poly = below(stack, at + 1, base, cx, dropped)?;
            let channel = super::uv_only::channel(m, cx);
            let why = match (channel, cx.node, cx.object) {
                (Some(c), Some(node), None) => channel_over_polygons(&mut poly, at, node, c, m, cx),
                _ => Some(CHANNEL_NOT_DERIVED.to_string()),
            };
            let Some(reason) = why else {
                dropped.maps.retain(|d| d.channel != channel);
                return Ok(poly);
            };
            match channel {
                Some(c) => {
                    poly.maps.retain(|x| x.channel != c);
                    dropped.maps.retain(|d| d.channel != Some(c));
                }
                None => poly.maps.clear(),
            }
            dropped.maps.push(MissingMap {
                channel,
                modifier: m.name.to_string(),
                reason,
            });
            Ok(poly)
        }
        // Conform moves vertices along its polygons' normals (`conform`).
        Some(m) if m.class == super::conform::CONFORM => {
            let mut poly = below(stack, at + 1, base, cx, dropped)?;
            dropped.normals = None;
            super::conform::apply_poly(m, &mut poly, cx).map_err(|e| m.error(Some(e)))?;
            Ok(poly)
        }
        // Shell passes polygons up in its own numbering (`shell::shell_poly`).
        Some(m) if m.class == super::shell::SHELL => {
            let mut poly = below(stack, at + 1, base, cx, dropped)?;
            dropped.normals = None;
            super::shell::apply_poly(m, &mut poly, cx).map_err(|e| m.error(Some(e)))?;
            Ok(poly)
        }
        // A deformer moves a poly object's vertices in place (the MNMesh
        // keeps its polygons, numbering and maps), by the function of
        // position it applies to a triangle mesh's vertices.
        Some(m) if super::moves_points_only(m.class) => {
            let mut poly = below(stack, at + 1, base, cx, dropped)?;
            let target =
                super::sub_selection::target(stack, at, Some(base), cx, poly.vertices.len(), 0)?;
            // Only the selection left live below moves (`sub_selection`).
            let selected = match target {
                super::sub_selection::Target::Vertices(v) => Some(v),
                super::sub_selection::Target::Whole => None,
                // Only a mapping modifier is given faces.
                super::sub_selection::Target::Faces(_) => {
                    return Err(m.error(Some(EvalError::not_evaluated(
                        "a deformer on a face selection",
                    ))))
                }
            };
            let before = selected.as_ref().map(|_| poly.vertices.clone());
            let mut points = super::deform_points(m, std::mem::take(&mut poly.vertices), cx)?;
            if let (Some(sel), Some(before)) = (&selected, &before) {
                super::sub_selection::keep_unselected(before, &mut points, sel);
            }
            poly.vertices = points;
            // As on triangles (`keeps_specified_normals`), a deformer clears
            // specified normals.
            poly.normals = None;
            dropped.normals = None;
            Ok(poly)
        }
        Some(m) if m.class == super::surface::SMOOTH => {
            let mut poly = below(stack, at + 1, base, cx, dropped)?;
            // Smooth on a live sub-object selection is refused by name.
            super::sub_selection::target(stack, at, Some(base), cx, poly.vertices.len(), 0)?;
            poly.normals = None;
            dropped.normals = None;
            super::surface::apply_smooth_poly(m, &mut poly, cx).map_err(|e| m.error(Some(e)))?;
            Ok(poly)
        }
        // The bottom of a shape's stack: Extrude's or Lathe's triangle mesh,
        // joined across its hidden edges (`shape_input::poly_of_shape`).
        Some(m)
            if (m.class == super::extrude::EXTRUDE || m.class == super::lathe::LATHE)
                && on_shape
                && super::shape_deform::only_deformers_from(stack, at + 1) =>
        {
            let build = if m.class == super::extrude::EXTRUDE {
                super::extrude::apply_to_shape
            } else {
                super::lathe::apply_to_shape
            };
            let s = super::shape_deform::shape_below(stack, at + 1, base, cx)?;
            super::shape_input::poly_of_shape(m, &s, cx, build).map_err(|e| m.error(Some(e)))
        }
        // A Cap Holes right above a shape's Extrude or Lathe: their triangle
        // mesh capped, then joined as below.
        Some(m)
            if m.class == super::cap_holes::CAP_HOLES
                && on_shape
                && stack
                    .get(at + 1)
                    .is_some_and(|b| super::makes_mesh_of_shape(b.class))
                && super::shape_deform::only_deformers_from(stack, at + 2) =>
        {
            let bottom = &stack[at + 1];
            let s = super::shape_deform::shape_below(stack, at + 2, base, cx)?;
            let mut tri = if bottom.class == super::lathe::LATHE {
                super::lathe::apply_to_shape(bottom, &s.polylines, cx)
            } else {
                super::extrude::apply_to_shape(bottom, &s.polylines, cx)
            }
            .map_err(|e| bottom.error(Some(e)))?;
            super::cap_holes::apply(m, &mut tri, cx).map_err(|e| m.error(Some(e)))?;
            crate::eval::objects::poly_make::as_max_converts(&tri)
        }
        // An Edit Mesh and a Cap Holes output triangles, which Max converts as it does a
        // primitive's (`SetFromTri`, `MakePolyMesh`: joined across hidden
        // edges; `smooth_input::triangles_joined`).
        Some(m)
            if (m.class == super::EDIT_MESH || m.class == super::cap_holes::CAP_HOLES)
                && cx.object.is_none() =>
        {
            let (poly, missing) = super::smooth_input::triangles_joined(at, cx, m.name)
                .map_err(|e| m.error(Some(e)))?;
            dropped.maps.extend(missing);
            Ok(poly)
        }
        Some(m) => Err(EvalError::not_evaluated_why(
            format!("Edit Poly above {}", m.name),
            "it needs its input as polygons",
        )),
    }
}

/// What a UV-only modifier's channel lacks on the polygons an Edit Poly
/// above it takes, when it cannot be derived.
const CHANNEL_NOT_DERIVED: &str =
    "its channel on the polygons an Edit Poly above it takes is not derived";

/// Sets channel `c` of UV-only modifier `m` (at `at` in `node`'s stack) on
/// `poly`, the polygons below it, read over the triangles the modifier
/// outputs (`uv_only::over_polygons`), or over those triangles joined as Max
/// converts them where the triangle form has vertices the polygons lack
/// (`uv_only::from_joined`). None once set; else why not: the modifier's own
/// refusal on triangles, or what does not match.
fn channel_over_polygons(
    poly: &mut PolyMesh,
    at: usize,
    node: usize,
    c: i32,
    m: &Applied,
    cx: &ModContext,
) -> Option<String> {
    let tri = match cx.eval.mesh_up_to(node, at, cx.t) {
        Some(Ok(tri)) => tri,
        Some(Err(e)) => {
            return Some(format!(
                "{CHANNEL_NOT_DERIVED} (the triangle mesh it maps: {e})"
            ))
        }
        None => {
            return Some(format!(
                "{CHANNEL_NOT_DERIVED} (the triangle mesh it maps is not known)"
            ))
        }
    };
    if let Some(own) = tri.missing_maps.iter().find(|d| d.channel == Some(c)) {
        return Some(own.reason.clone());
    }
    let read = if tri.vertices.len() == poly.vertices.len() {
        super::uv_only::over_polygons(poly, &tri, c)
    } else {
        super::smooth_input::triangles_joined(at, cx, m.name).and_then(|(joined, missing)| {
            match missing.iter().find(|d| d.channel == Some(c)) {
                Some(d) => Err(EvalError::not_evaluated(d.reason.clone())),
                None => super::uv_only::from_joined(poly, &joined, c),
            }
        })
    };
    read.err().map(|e| format!("{CHANNEL_NOT_DERIVED} ({e})"))
}

/// A slice that cuts nothing, whatever MNMesh::Slice's numbering: a Slice
/// Face with no face selected (it cuts the flagged faces only), or either
/// slice whose plane matrix is not a number (no vertex is on either side).
/// Max's sizes say so: after 75 empty Slice Faces of KyleCRat's Wall_Lower_A
/// family the next operations recorded the Box's 6 faces, then 12 edges;
/// after the first of each of chocolate's 24 Spindles' two NaN-plane Slice
/// Faces (96 faces selected) the next recorded the 600 faces before it.
fn cuts_nothing(op: &Operation) -> bool {
    (op.id == OP_SLICE_FACE && !op.selection.iter().any(|&s| s))
        || (matches!(op.id, OP_SLICE | OP_SLICE_FACE) && op.plane_undefined)
}

fn is_evaluated(id: u32) -> bool {
    matches!(
        id,
        OP_TRANSFORM
            | OP_SET_MATERIAL
            | OP_SPLIT
            | OP_TESSELLATE
            | OP_DELETE_FACE
            | OP_DETACH_FACE
            | OP_WELD_VERTEX
            | OP_ATTACH
            | OP_INSET
            | OP_OUTLINE
            | OP_EXTRUDE_FACE
            | OP_BEVEL
            | OP_MOVE_EXTRUDE
            | OP_MOVE_EXTRUDE_END
            | OP_AUTOSMOOTH
            | OP_SMOOTH
            | OP_INSERT_VERTEX_EDGE
            | OP_CONNECT_VERTEX
            | OP_CONNECT_EDGE
            | OP_CHAMFER_EDGE
            | OP_EXTRUDE_EDGE
            | OP_CREATE
            | OP_TARGET_WELD
            | OP_CUT
            | OP_CREATE_EDGE
            | OP_RETRIANGULATE
            | OP_CLONE_EDGE
            | OP_CLONE_FACE
            | OP_FLIP_FACE
            | OP_CAP
            | OP_DELETE_EDGE
            | OP_DELETE_VERTEX
            | OP_MAKE_PLANAR_X
            | OP_MAKE_PLANAR_Y
            | OP_MAKE_PLANAR_Z
            | remove::OP_COLLAPSE_VERTEX
            | remove::OP_REMOVE_VERTEX
            | remove::OP_REMOVE_EDGE
    )
}

/// The polygon form of a stack's base object: a primitive with a polygon
/// builder, an Editable Poly, or a shape converted (`shape_input`).
fn input(base: usize, cx: &ModContext, dropped: &mut Left) -> Result<PolyMesh, EvalError> {
    if let Some(poly) = shape_input(base, cx) {
        return poly;
    }
    let class = super::base_class(cx, base)?;
    if class.class_id == mesh::EDITABLE_POLY {
        crate::eval::objects::poly_surface::refuse_polygon_reader(
            cx.eval,
            base,
            cx.t,
            "Edit Poly",
        )?;
        let geom = mesh::geom_buffers(cx.eval.chunks(base))?;
        return mesh::mnmesh(geom).map_err(|e| e.inside(class.name.to_string()));
    }
    if class.class_id == mesh::EDITABLE_MESH {
        // A TriObject reaches a poly modifier converted (`SetFromTri`,
        // `MakePolyMesh`): its triangles joined across their hidden edges,
        // as for MeshSmooth on an Editable Mesh and for a Loft.
        let tri = mesh::editable_mesh(cx.eval.chunks(base))?;
        return crate::eval::objects::poly_make::as_max_converts(&tri)
            .map_err(|e| e.inside(class.name.to_string()));
    }
    if crate::eval::objects::loft::is_loft(class.class_id) {
        // Max converts the Loft's triangles as it does any mesh
        // (`SetFromTri`, `MakePolyMesh`): quads across the hidden diagonals,
        // each cap one polygon.
        let tri = crate::eval::objects::loft::eval(cx.eval, base, cx.t)?;
        return crate::eval::objects::loft::as_poly(&tri);
    }
    if class.class_id == crate::eval::objects::boolean::PRO_BOOLEAN {
        let (poly, missing) = crate::eval::objects::boolean::pro_boolean_poly(cx.eval, base)?;
        dropped.maps.extend(missing);
        return Ok(poly);
    }
    if !primitive::is_primitive(class.class_id) {
        return Err(EvalError::not_evaluated_why(
            format!("Edit Poly on a {}", class.name),
            "its polygon form is not built",
        ));
    }
    let (poly, _, left) = primitive_poly::of_object(cx.eval, base, cx.t)?;
    dropped.maps.extend(left);
    Ok(poly)
}

/// The polygon form of `base` when it is a shape (None otherwise).
pub(super) fn shape_input(base: usize, cx: &ModContext) -> Option<Result<PolyMesh, EvalError>> {
    use crate::eval::objects::shape;
    shape::is_shape_object(cx.eval, base).then(|| {
        let s = shape::eval_shape(cx.eval, base, cx.t)
            .map_err(|e| EvalError::from(e).inside("shape"))?;
        super::shape_input::input_poly(&s)
    })
}

/// After a replay whose vertex numbering is ours (`corner::Unpinned`), an
/// operation may follow only if it reads no vertex, edge or face index: a
/// Transform moving every vertex by one offset (containerBody.max's, 24
/// offsets equal within 3e-8) moves them alike whatever their order.
fn reads_no_numbering(op: &Operation, poly: &PolyMesh, why: &str) -> Result<(), EvalError> {
    let uniform = op.id == OP_TRANSFORM
        && op.offsets.len() == poly.vertices.len()
        && op.offsets.first().is_some_and(|d0| {
            let tol = 1e-6 * (1.0 + d0.len());
            op.offsets.iter().all(|d| d.minus(*d0).len() <= tol)
        });
    if uniform {
        return Ok(());
    }
    Err(EvalError::not_evaluated_why(
        format!(
            "{} after a chamfer whose numbering is not Max's",
            op_name(op.id)
        ),
        format!("it addresses vertices, edges or faces by index, and {why}"),
    ))
}

/// The modifiers above the Edit Poly at `stack[at]` (0 is the top) must not
/// read the indices its replay numbered its own way: TurboSmooth (its
/// surface does not depend on the numbering), modifiers that only hold
/// properties, and Edit Polys without operations pass; anything else is
/// refused, named.
fn nothing_above_reads_numbering(stack: &[Applied], at: usize, why: &str) -> Result<(), EvalError> {
    for a in &stack[..at] {
        let empty_edit_poly = a.class == super::EDIT_POLY
            && a.mod_app
                .and_then(|x| x.children().iter().find(|c| c.id == super::LOCAL_DATA))
                .map(|l| operations(l.children()).is_ok_and(|o| o.is_empty()))
                .unwrap_or(false);
        if a.class == super::turbo_smooth::TURBO_SMOOTH
            || super::PROPERTIES_ONLY.contains(&a.class)
            || empty_edit_poly
        {
            continue;
        }
        return Err(EvalError::not_evaluated_why(
            format!(
                "a chamfer whose numbering is not Max's below modifier {}",
                a.name
            ),
            format!("that modifier may read vertex, edge or face indices, and {why}"),
        ));
    }
    Ok(())
}

/// Replays one operation; returns the map channels it left out. `gone` are
/// those left out before (already named).
fn replay(
    op: &Operation,
    next: Option<&Operation>,
    poly: &mut PolyMesh,
    known: &mut extrude::Known,
    gone: &[i32],
    unpinned: &mut corner::Unpinned,
) -> Result<Vec<i32>, EvalError> {
    super::edit_poly_bridged::check(op, poly)?;
    // The edges a chamfer selects among: MNMesh's, or those extrusions kept.
    let numbered = matches!(op.id, OP_CHAMFER_EDGE | OP_CAP)
        .then(|| poly.edges.clone().or_else(|| known.prefix.clone()))
        .flatten();
    // What extrusions leave known lasts through operations that keep the
    // vertices, edges and faces there are.
    if !matches!(
        op.id,
        OP_TRANSFORM
            | OP_SET_MATERIAL
            | OP_AUTOSMOOTH
            | OP_SMOOTH
            | OP_TESSELLATE
            | OP_SPLIT
            | OP_INSET
            | OP_OUTLINE
            | OP_EXTRUDE_FACE
            | OP_BEVEL
            | OP_MOVE_EXTRUDE
            | OP_MOVE_EXTRUDE_END
            | OP_CAP
    ) {
        *known = extrude::Known::default();
    }
    // Operations whose effect on MNMesh's edge numbering is not derived.
    let mut before = None;
    if matches!(
        op.id,
        OP_WELD_VERTEX | OP_INSET | OP_EXTRUDE_FACE | OP_BEVEL | OP_MOVE_EXTRUDE
    ) {
        before = poly.edges.take();
        if op.id != OP_WELD_VERTEX && before.is_some() {
            known.prefix.clone_from(&before);
        }
    }
    let before = before.as_deref();
    match op.id {
        OP_CHAMFER_EDGE => {
            // A refusal, not damage: the operations before left a numbering
            // this replay does not derive.
            let edges = numbered.ok_or_else(|| {
                EvalError::not_evaluated_why(
                    "selecting edges by Max's numbering",
                    "the numbering after the operations before it (a weld, an inset, \
                     an extrusion …) is not derived",
                )
            })?;
            let params = chamfer_params(op)?;
            return chamfer::chamfer_edges(poly, &op.selection, &edges, &params, unpinned).map_err(
                |e| match (e, chamfer_variant(op)) {
                    (EvalError::NotEvaluated { what, .. }, Ok((variant, why))) => {
                        EvalError::not_evaluated_why(variant, format!("{why}: {what}"))
                    }
                    (e, _) => e,
                },
            );
        }
        OP_INSERT_VERTEX_EDGE => edges::insert_vertices(poly, &op.inserts)?,
        OP_CONNECT_VERTEX => edges::connect_vertices(poly, &op.selection)?,
        OP_CONNECT_EDGE => {
            let segments = op
                .int_param(PARAM_CONNECT_EDGE_SEGMENTS)?
                .ok_or_else(|| EvalError::malformed("", "no connect segments parameter"))?;
            let pinch = op.int_param(PARAM_CONNECT_EDGE_PINCH)?.unwrap_or(0);
            let slide = op.int_param(PARAM_CONNECT_EDGE_SLIDE)?.unwrap_or(0);
            connect::connect_edges(poly, &op.selection, segments, pinch, slide)?;
        }
        OP_EXTRUDE_EDGE => {
            let height = op.float_param(PARAM_EXTRUDE_EDGE_HEIGHT)?.unwrap_or(0.0);
            let width = op.float_param(PARAM_EXTRUDE_EDGE_WIDTH)?.unwrap_or(0.0);
            // What the border replay cannot do is refused with the variant.
            extrude_edge::extrude_border_edges(poly, &op.selection, height, width).map_err(
                |e| match e {
                    EvalError::NotEvaluated { what, .. } => {
                        extrude_edge_refusal(op, &what, false).unwrap_or_else(|e| e)
                    }
                    e => e,
                },
            )?;
        }
        OP_CLONE_EDGE => return clone::clone_edges(poly, &op.selection),
        // Adds only faces: the edge numbering, known or a known prefix, stays.
        OP_CAP => {
            let edges = numbered.ok_or_else(|| {
                EvalError::not_evaluated_why(
                    "selecting edges by Max's numbering",
                    "the numbering after the operations before it is not derived",
                )
            })?;
            return cap::cap(poly, &op.selection, &edges);
        }
        OP_CLONE_FACE => return clone_face::clone_faces(poly, &op.selection),
        // A slice that cuts nothing (`cuts_nothing`) changes nothing.
        OP_SLICE | OP_SLICE_FACE if cuts_nothing(op) => {}
        OP_FLIP_FACE => flip::flip_faces(poly, &op.selection)?,
        remove::OP_COLLAPSE_VERTEX => collapse::collapse(poly, &op.selection)?,
        remove::OP_REMOVE_VERTEX => return remove::remove_vertices(poly, &op.selection),
        remove::OP_REMOVE_EDGE => {
            let ctrl = match op
                .extra
                .iter()
                .find(|(id, _)| *id == remove::RECORD_REMOVE_EDGE_CTRL)
            {
                None => false,
                Some((_, b)) if b.as_slice() == [0] => false,
                Some((_, b)) if b.as_slice() == [1] => true,
                Some((_, b)) => {
                    return Err(EvalError::malformed(
                        "record 0x1601",
                        format!("{b:?} (one byte, 0 or 1, expected)"),
                    ))
                }
            };
            return remove::remove_edges(poly, &op.selection, ctrl);
        }
        OP_CREATE => create::create(poly, &op.data)?,
        OP_TARGET_WELD => create::target_weld(poly, &op.data, op.release == Some(2))?,
        OP_CREATE_EDGE => create_edge::create_edge(poly, &op.data)?,
        OP_RETRIANGULATE => retriangulate::retriangulate(poly, &op.selection)?,
        OP_CUT => {
            let split = op.int_param(PARAM_CUT_SPLIT)?.unwrap_or(0) != 0;
            cut::cut(poly, &op.data, split)?;
        }
        OP_DELETE_FACE => {
            let isolated = op.int_param(PARAM_DELETE_ISOLATED)?.unwrap_or(1) != 0;
            topo::delete_faces(poly, &op.selection, isolated)?;
        }
        OP_DETACH_FACE if detach_clones(op)? => {
            // Detach as clone: `PolyOpDetachFace::Do` clones the faces as
            // Clone Face does (`MNMesh::CloneFaces`, originals unflagged).
            return clone_face::clone_faces(poly, &op.selection);
        }
        OP_DETACH_FACE => {
            // Detached to an object the faces stay until the Delete Face Max
            // records after it; detached to an element they only get their own
            // vertices. Either way, followed by a delete of the same faces that
            // drops isolated vertices, the result is that delete's.
            topo::check_selection(&op.selection, poly.faces.len(), "faces")?;
            let deleted_next = next.is_some_and(|n| {
                n.id == OP_DELETE_FACE
                    && n.selection == op.selection
                    && n.int_param(PARAM_DELETE_ISOLATED)
                        .ok()
                        .flatten()
                        .unwrap_or(1)
                        != 0
            });
            if !deleted_next {
                return Err(EvalError::not_evaluated(
                    "detaching faces that stay in the mesh",
                ));
            }
        }
        OP_DELETE_EDGE => {
            let isolated = op.int_param(PARAM_DELETE_ISOLATED)?.unwrap_or(1) != 0;
            topo::delete_edges(poly, &op.selection, isolated)?;
        }
        OP_DELETE_VERTEX => {
            let isolated = op.int_param(PARAM_DELETE_ISOLATED)?.unwrap_or(1) != 0;
            topo::delete_vertices(poly, &op.selection, isolated)?;
        }
        OP_MAKE_PLANAR_X => planar::make_planar(poly, &op.selection, 0)?,
        OP_MAKE_PLANAR_Y => planar::make_planar(poly, &op.selection, 1)?,
        OP_MAKE_PLANAR_Z => planar::make_planar(poly, &op.selection, 2)?,
        OP_WELD_VERTEX => {
            let threshold = op
                .float_param(PARAM_WELD_THRESHOLD)?
                .ok_or_else(|| EvalError::malformed("", "no weld threshold parameter"))?;
            topo::weld(poly, &op.selection, threshold)?;
        }
        OP_ATTACH => {
            let attached = op
                .attached
                .clone()
                .ok_or_else(|| EvalError::malformed("", "no attached mesh"))?;
            // An Attach recorded without a mesh attaches nothing.
            if let Some(mut other) = attached {
                // A channel the mesh lost earlier (named) is left out of the
                // attached mesh too.
                other.maps.retain(|m| !gone.contains(&m.channel));
                topo::attach(poly, other)?;
            }
        }
        OP_TRANSFORM => {
            let constraint = op.int_param(PARAM_CONSTRAIN_TYPE)?.unwrap_or(0);
            if constraint != 0 {
                let to = match constraint {
                    1 => "edges (MNMeshUtilities::ConstrainDeltaToEdges)",
                    2 => "faces (MNMeshUtilities::ConstrainDeltaToFaces)",
                    3 => "normals (ConstrainDeltaToNormals)",
                    _ => "an unknown constraint",
                };
                return Err(EvalError::not_evaluated_why(
                    format!("a move constrained to {to}"),
                    "the recorded offsets are the free move; the library rule that bends them is not published",
                ));
            }
            if op.int_param(PARAM_PRESERVE_MAPS)?.unwrap_or(0) != 0 && !poly.maps.is_empty() {
                return Err(EvalError::not_evaluated("a move preserving the mapping"));
            }
            for (v, d) in poly.vertices.iter_mut().zip(&op.offsets) {
                *v = v.plus(*d);
            }
        }
        OP_SET_MATERIAL => {
            let id = op
                .int_param(PARAM_MATERIAL)?
                .ok_or_else(|| EvalError::malformed("", "no material id parameter"))?;
            let id = u16::try_from(id)
                .map_err(|_| EvalError::malformed("", format!("material id {id}")))?;
            for (i, f) in poly.faces.iter_mut().enumerate() {
                if op.selected(i) {
                    f.material = id;
                }
            }
        }
        OP_TESSELLATE => {
            // Tessellate acts on the faces its selection flags; none here.
            if (0..poly.faces.len()).any(|i| op.selected(i)) {
                return Err(EvalError::not_evaluated("tessellating faces"));
            }
        }
        OP_OUTLINE => {
            let amount = op
                .float_param(PARAM_OUTLINE)?
                .ok_or_else(|| EvalError::malformed("", "no outline amount"))?;
            super::edit_poly_extrude_group::outline_faces(poly, &op.selection, amount)?;
        }
        OP_INSET => {
            let by_polygon = match op.int_param(PARAM_INSET_TYPE)?.unwrap_or(0) {
                0 => false,
                1 => true,
                t => return Err(EvalError::malformed("", format!("inset type {t}"))),
            };
            let amount = op
                .float_param(PARAM_INSET)?
                .ok_or_else(|| EvalError::malformed("", "no inset amount"))?;
            extrude::inset(poly, &op.selection, amount, by_polygon, before, known)?;
        }
        OP_EXTRUDE_FACE => {
            let kind = op.int_param(PARAM_EXTRUDE_FACE_TYPE)?.unwrap_or(0);
            if !(0..=2).contains(&kind) {
                return Err(EvalError::malformed("", format!("extrusion type {kind}")));
            }
            if let Some(x) = op.float_param(PARAM_EXTRUDE_FACE_UNKNOWN)? {
                if x != 1.0 {
                    return Err(EvalError::not_evaluated(format!(
                        "parameter {PARAM_EXTRUDE_FACE_UNKNOWN} = {x}"
                    )));
                }
            }
            let height = op
                .float_param(PARAM_EXTRUDE_FACE_HEIGHT)?
                .ok_or_else(|| EvalError::malformed("", "no extrusion height"))?;
            extrude::extrude(
                poly,
                &op.selection,
                height,
                kind == 2,
                kind == 1,
                before,
                known,
            )?;
        }
        OP_BEVEL => {
            let params = bevel::Params {
                kind: op.int_param(PARAM_BEVEL_TYPE)?.unwrap_or(0),
                height: op.float_param(PARAM_BEVEL_HEIGHT)?.unwrap_or(0.0),
                outline: op.float_param(PARAM_BEVEL_OUTLINE)?.unwrap_or(0.0),
                unknown: op.float_param(PARAM_BEVEL_UNKNOWN)?,
            };
            bevel::bevel(poly, &op.selection, params, before, known)?;
        }
        OP_MOVE_EXTRUDE => {
            let kind = op
                .extra_u32(0x0601)?
                .ok_or_else(|| EvalError::malformed("", "no extrusion type (0x0601)"))?;
            if kind > 2 {
                return Err(EvalError::malformed("", format!("extrusion type {kind}")));
            }
            // Adjacent faces: Max's counts after WaterCooler.max's fit
            // neither rule (docs/max-format.md).
            if let Some(c) = extrude::first_group(poly, &op.selection)? {
                return Err(EvalError::not_evaluated_why(
                    format!("a move extrusion (type {kind}) of the adjacent faces {c:?}"),
                    "Max's vertex and face counts after one are neither a by-polygon nor a group extrusion's",
                ));
            }
            extrude::extrude_faces(poly, &op.selection, kind == 2, before, known)?;
            known.moved = Some(
                (0..op.selection.len())
                    .filter(|&i| op.selected(i))
                    .collect(),
            );
        }
        OP_AUTOSMOOTH => {
            let angle = op
                .float_param(PARAM_AUTOSMOOTH_THRESHOLD)?
                .ok_or_else(|| EvalError::malformed("", "no auto smooth threshold"))?;
            smooth::auto_smooth(poly, &op.selection, angle)?;
        }
        OP_SMOOTH => {
            let set = op.int_param(PARAM_SMOOTH_SET)?.unwrap_or(0) as u32;
            let clear = op.int_param(PARAM_SMOOTH_CLEAR)?.unwrap_or(0) as u32;
            smooth::set_smoothing(poly, &op.selection, set, clear)?;
        }
        // Adds nothing (every later size Max recorded says so: Mug, Can,
        // Chair); its selection is not always sized to the mesh (Can: 200 bits
        // for 182 faces, Chair: 294 for 260). Evaluated when sized to the mesh
        // or naming the faces the extrusion moved; Chair's names faces past
        // the mesh, and the face order after it is not Max's (the Extrude
        // Face at its operation 133 picks, by the walls the Unwrap UVW above
        // saved, the top our order holds 18 places later).
        OP_MOVE_EXTRUDE_END => {
            let n = poly.faces.len();
            let chosen: Vec<usize> = (0..op.selection.len())
                .filter(|&i| op.selected(i))
                .collect();
            let names_moved = known.moved.as_ref() == Some(&chosen);
            if !op.selection.is_empty() && op.selection.len() != n && !names_moved {
                let moved = known
                    .moved
                    .as_ref()
                    .map_or_else(|| "none recorded".to_string(), |m| format!("{m:?}"));
                return Err(EvalError::not_evaluated_why(
                    format!(
                        "a selection of {} faces naming faces {chosen:?}",
                        op.selection.len()
                    ),
                    format!(
                        "the extrusion left {n} faces and moved faces {moved}; what Max does to the face order then is not derived"
                    ),
                ));
            }
        }
        OP_SPLIT => {
            // Splitting breaks vertices on two or more flagged edges (or on a
            // flagged edge and the border); with none such the mesh is unchanged.
            // A flagged border edge has nothing to split: Key.max's Split of
            // its border edge 10 (ends on the border) leaves Max's counts (the
            // Transforms before and after it hold 20 offsets).
            if !(0..poly.walked_edges().len()).any(|i| op.selected(i)) {
                return Ok(Vec::new());
            }
            let edges = poly.mn_edges()?;
            let mut flagged = vec![0u32; poly.vertices.len()];
            let mut border = vec![false; poly.vertices.len()];
            let mut uses = std::collections::HashMap::new();
            for f in &poly.faces {
                for j in 0..f.v.len() {
                    let (a, b) = (f.v[j], f.v[(j + 1) % f.v.len()]);
                    *uses.entry((a.min(b), a.max(b))).or_insert(0u32) += 1;
                }
            }
            for (i, &[a, b]) in edges.iter().enumerate() {
                if uses.get(&(a.min(b), a.max(b))) == Some(&1) {
                    border[a as usize] = true;
                    border[b as usize] = true;
                }
                if op.selected(i) && uses.get(&(a.min(b), a.max(b))) != Some(&1) {
                    flagged[a as usize] += 1;
                    flagged[b as usize] += 1;
                }
            }
            if (0..flagged.len()).any(|v| flagged[v] >= 2 || (flagged[v] == 1 && border[v])) {
                return Err(EvalError::not_evaluated(
                    "splitting edges that open the mesh",
                ));
            }
        }
        _ => return Err(refusal(op)),
    }
    Ok(Vec::new())
}

/// What operation `op` does to the mesh's specified normals, before it runs.
/// Operations that leave the faces' corners alone keep them (material and
/// smoothing changes; Delete Face and Attach carry them with their faces); a
/// Transform keeps the explicit ones as set and has the others recomputed
/// from the moved faces, as `MNNormalSpec` does when the geometry changes.
/// What the operations that make or reshape faces do to a specified corner
/// is not derived: with one present the normals are left out (false), the
/// geometry kept, and the caller names them.
fn specified_normals(op: &Operation, poly: &mut PolyMesh) -> bool {
    let Some(normals) = &mut poly.normals else {
        return true;
    };
    let clones = op.id == OP_DETACH_FACE && detach_clones(op).unwrap_or(true);
    match op.id {
        OP_TRANSFORM | OP_MAKE_PLANAR_X | OP_MAKE_PLANAR_Y | OP_MAKE_PLANAR_Z => {
            normals.pool.computed = false
        }
        // Cloned faces are new corners, as Clone Face's.
        OP_DETACH_FACE if clones => {
            let any = normals.any();
            poly.normals = None;
            return !any;
        }
        OP_SET_MATERIAL | OP_AUTOSMOOTH | OP_SMOOTH | OP_DELETE_FACE | OP_DELETE_EDGE
        | OP_DELETE_VERTEX | OP_DETACH_FACE | OP_ATTACH | OP_MOVE_EXTRUDE_END => {}
        // Nothing specified: nothing to carry.
        _ if !normals.any() => poly.normals = None,
        // Split and Tessellate are evaluated only when they change nothing.
        OP_SPLIT | OP_TESSELLATE => {}
        _ => {
            poly.normals = None;
            return false;
        }
    }
    true
}

/// The first reference of Edit Poly's animation-mode point controllers
/// (`EDIT_POINT_BASE_REF` in the SDK sample EditPoly.h, after the parameter
/// block, the slice plane and the master point controller).
const POINT_CONTROL_BASE_REF: u32 = 3;

/// Whether Edit Poly `modifier` references a point controller. In
/// animation mode each vertex of a node may get one; at every evaluation
/// `UpdateTransformData` (SDK sample EditPoly.cpp) overwrites the pending
/// Transform's offset of each vertex that has one with its value at that
/// time and skips the vertices without. The point ranges and node names
/// (chunks 0x0130–0x0148) saved with no controller referenced therefore
/// leave the offsets as saved.
fn drives_points(cx: &ModContext, modifier: usize) -> bool {
    cx.eval.graph.objects.get(modifier).is_some_and(|o| {
        o.references
            .iter()
            .any(|r| r.slot >= POINT_CONTROL_BASE_REF && r.target >= 0)
    })
}

/// Detach Face's "as clone" flag (record 0x0601, a C++ bool; false when
/// absent, as `PolyOpDetachFace` starts).
fn detach_clones(op: &Operation) -> Result<bool, EvalError> {
    match op.extra.iter().find(|(id, _)| *id == RECORD_DETACH_CLONE) {
        None => Ok(false),
        Some((_, b)) if b.as_slice() == [0] => Ok(false),
        Some((_, b)) if b.as_slice() == [1] => Ok(true),
        Some((_, b)) => Err(EvalError::malformed(
            "record 0x0601",
            format!("{b:?} (one byte, 0 or 1, expected)"),
        )),
    }
}

/// A Chamfer Edge's parameters as recorded.
fn chamfer_params(op: &Operation) -> Result<chamfer::Params, EvalError> {
    let kind = op.int_param(PARAM_CHAMFER_EDGE_TYPE)?.unwrap_or(0);
    let others = op
        .params
        .iter()
        .filter(|(id, _)| *id > PARAM_CHAMFER_EDGE_TENSION)
        .map(|(id, v)| {
            <[u8; 4]>::try_from(v.as_slice())
                .map(|b| (*id, b))
                .map_err(|_| {
                    EvalError::malformed(format!("parameter {id}"), format!("{} bytes", v.len()))
                })
        })
        .collect::<Result<_, _>>()?;
    Ok(chamfer::Params {
        amount: op
            .float_param(PARAM_CHAMFER_EDGE)?
            .ok_or_else(|| EvalError::malformed("", "no chamfer amount"))?,
        segments: op.int_param(PARAM_CHAMFER_EDGE_SEGMENTS)?.unwrap_or(1),
        kind,
        // Before Max 2015 (standard chamfers only) no tension is recorded.
        tension: op.float_param(PARAM_CHAMFER_EDGE_TENSION)?.unwrap_or(0.0),
        open: op.int_param(PARAM_CHAMFER_EDGE_OPEN)?.unwrap_or(0) != 0,
        others,
    })
}

/// The modifier saves its selections sized to the mesh it output; a replay that
/// disagrees has rebuilt something else. That is a gap of the replay, not damage
/// of the file, so it is a named refusal (ModifiersTestScene.max's Teapot001,
/// eighth sweep in docs/unseen-files.md).
fn check_saved_sizes(local: &[Chunk], poly: &PolyMesh) -> Result<(), EvalError> {
    let ours = [
        (0x0200, poly.vertices.len(), "vertices"),
        (0x0210, poly.walked_edges().len(), "edges"),
        (0x0220, poly.faces.len(), "faces"),
    ];
    for (id, n, what) in ours {
        let Some(c) = local.iter().find(|c| c.id == id) else {
            continue;
        };
        let saved = bits(c)?.len();
        if saved != 0 && saved != n {
            return Err(EvalError::not_evaluated_why(
                format!("an Edit Poly whose replay gives {n} {what}"),
                format!("the modifier saved a selection of {saved}: the replay does not rebuild Max's mesh"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::error::EvalErrorKind;
    use crate::eval::objects::poly::PolyFace;

    /// Replays `op` alone: no next operation, nothing known from earlier
    /// extrusions, no channels left out before.
    fn replay_alone(op: &Operation, poly: &mut PolyMesh) -> Result<Vec<i32>, EvalError> {
        replay(
            op,
            None,
            poly,
            &mut extrude::Known::default(),
            &[],
            &mut Default::default(),
        )
    }

    fn u32s(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn transform(count: u32, offsets: &[f32]) -> Vec<Chunk> {
        let data: Vec<u8> = offsets.iter().flat_map(|x| x.to_le_bytes()).collect();
        vec![
            Chunk::leaf(0x0230, u32s(&[OP_TRANSFORM])),
            Chunk::container(
                0x0234,
                vec![Chunk::container(
                    0x0600,
                    vec![Chunk::leaf(0x0400, Vec::new())],
                )],
            ),
            Chunk::container(
                0x0238,
                vec![
                    Chunk::leaf(0x12c3, u32s(&[count])),
                    Chunk::leaf(0x12c4, data),
                ],
            ),
        ]
    }

    #[test]
    fn damaged_records_are_errors() {
        let short_id = [Chunk::leaf(0x0230, vec![1, 0, 0])];
        assert_eq!(
            operations(&short_id).unwrap_err().to_string(),
            "operation id of 3 bytes"
        );
        // Two offsets announced, one stored.
        assert_eq!(
            operations(&transform(2, &[1.0, 2.0, 3.0]))
                .unwrap_err()
                .to_string(),
            "2 transform offsets in 12 bytes"
        );
        assert_eq!(
            operations(&transform(u32::MAX, &[]))
                .unwrap_err()
                .to_string(),
            format!("{} transform offsets", u32::MAX)
        );
        let orphan = [Chunk::container(0x0234, Vec::new())];
        assert_eq!(
            operations(&orphan).unwrap_err().to_string(),
            "operation record before its id"
        );
    }

    #[test]
    fn the_recording_release_is_accepted_where_checked() {
        let rec = |id: u32, release: Vec<u8>| {
            operations(&op(
                id,
                vec![selection(1, &[0]), Chunk::leaf(0x0450, release)],
                vec![],
            ))
        };
        let refused = |id: u32, release: u32| {
            let ops = rec(id, u32s(&[release])).expect("ops");
            assert_eq!(ops[0].release, Some(release));
            release_refusal(&ops[0]).map(|e| e.to_string())
        };
        // Max 2019 (2): the operations checked against its results replay,
        // others are refused naming the release.
        for id in super::super::edit_poly_records::CHECKED_RELEASE_2019 {
            assert_eq!(refused(id, 2), None, "{}", op_name(id));
        }
        assert_eq!(
            refused(remove::OP_REMOVE_VERTEX, 2).as_deref(),
            Some(
                "operation Remove Vertex (49) recorded by Edit Poly release 2 (record 0x0450) \
                 is not evaluated (its replay is not checked against Max's results of that release)"
            )
        );
        for id in [OP_DETACH_FACE, OP_CHAMFER_EDGE, OP_INSERT_VERTEX_EDGE] {
            assert!(refused(id, 2).is_some(), "{}", op_name(id));
        }
        // Max 2020 to 2026 (4, 6): every operation replayed.
        for release in [4, 6] {
            assert_eq!(refused(OP_ATTACH, release), None);
            assert_eq!(refused(OP_CONNECT_VERTEX, release), None);
        }
        // Max 2019.3 (3): Transform only.
        assert_eq!(refused(OP_TRANSFORM, 3), None);
        for id in [OP_FLIP_FACE, OP_ATTACH, remove::OP_REMOVE_VERTEX] {
            assert!(refused(id, 3).is_some(), "{}", op_name(id));
        }
        // Releases never seen: none.
        for release in [0, 1, 5, 7, u32::MAX] {
            assert!(
                refused(OP_TRANSFORM, release).is_some(),
                "release {release}"
            );
        }
        // Without the record (before Max 2019) there is nothing to check.
        let old = operations(&op(OP_ATTACH, vec![selection(1, &[0])], vec![])).expect("ops");
        assert!(release_refusal(&old[0]).is_none());
        // A record of another size is refused as stored.
        assert_eq!(
            rec(OP_TRANSFORM, vec![2, 0]).unwrap_err().to_string(),
            "operation Transform (53): record 0x0450 = [02, 00] is not evaluated"
        );
        // 0x0470 is accepted only as seen.
        let seen = op(
            OP_TRANSFORM,
            vec![
                Chunk::leaf(0x0450, u32s(&[4])),
                Chunk::leaf(0x0470, u32s(&[2])),
            ],
            vec![],
        );
        assert!(operations(&seen).is_ok());
        let other = op(OP_TRANSFORM, vec![Chunk::leaf(0x0470, u32s(&[3]))], vec![]);
        assert_eq!(
            operations(&other).unwrap_err().to_string(),
            "operation Transform (53): record 0x0470 = [03, 00, 00, 00] is not evaluated"
        );
    }

    /// Extrude Along Spline keeps its spline as chunk trees beside the
    /// basics (ETdoFresh's Ladder.max): read, then refused by name in the
    /// replay; a chunk tree beside any other operation is named too.
    #[test]
    fn chunk_trees_beside_an_operation_are_not_damage() {
        let spline = || {
            vec![
                Chunk::container(0x0644, vec![Chunk::leaf(0x03e8, vec![0; 48])]),
                Chunk::container(0x0640, vec![Chunk::leaf(0x2900, u32s(&[2]))]),
            ]
        };
        let ops = operations(&op(OP_EXTRUDE_ALONG_SPLINE, vec![], spline())).expect("ops");
        assert_eq!(ops.len(), 1);
        assert_eq!(
            replay_alone(&ops[0], &mut quad()).unwrap_err().kind(),
            EvalErrorKind::NotEvaluated
        );
        assert_eq!(
            operations(&op(OP_TRANSFORM, vec![], spline()))
                .unwrap_err()
                .to_string(),
            "operation Transform (53): record 0x0644 holding chunks is not evaluated"
        );
    }

    /// A bit array container of `n` bits with `set` on.
    fn selection(n: u32, set: &[usize]) -> Chunk {
        let mut bytes = n.to_le_bytes().to_vec();
        bytes.resize(4 + (n as usize).div_ceil(8), 0);
        for &i in set {
            bytes[4 + i / 8] |= 1 << (i % 8);
        }
        Chunk::container(0x0400, vec![Chunk::leaf(0x2700, bytes)])
    }

    fn op(id: u32, basics: Vec<Chunk>, beside: Vec<Chunk>) -> Vec<Chunk> {
        let mut record = vec![Chunk::container(0x0600, basics)];
        record.extend(beside);
        vec![
            Chunk::leaf(0x0230, u32s(&[id])),
            Chunk::container(0x0234, record),
        ]
    }

    fn quad() -> PolyMesh {
        PolyMesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
            ],
            faces: vec![PolyFace::fan(vec![0, 1, 2, 3], 0, 1)],
            maps: Vec::new(),
            edges: None,
            normals: None,
        }
    }

    #[test]
    fn a_replay_unlike_the_saved_sizes_is_a_named_refusal() {
        // The saved vertex selection, sized to a mesh of 5 vertices: the quad has 4.
        let saved = |n: u32| {
            let mut bytes = n.to_le_bytes().to_vec();
            bytes.resize(4 + (n as usize).div_ceil(8), 0);
            Chunk::container(0x0200, vec![Chunk::leaf(0x2700, bytes)])
        };
        check_saved_sizes(&[saved(4)], &quad()).expect("sizes agree");
        let e = check_saved_sizes(&[saved(5)], &quad()).unwrap_err();
        assert_eq!(e.kind(), crate::eval::EvalErrorKind::NotEvaluated, "{e}");
        assert!(e.to_string().contains("saved a selection of 5"), "{e}");
    }

    #[test]
    fn detach_as_clone_clones_and_detach_alone_waits_for_its_delete() {
        let record = |flag: u8| {
            operations(&op(
                OP_DETACH_FACE,
                vec![selection(1, &[0])],
                vec![Chunk::leaf(RECORD_DETACH_CLONE, vec![flag])],
            ))
            .expect("ops")
        };
        // Clone (0x0601 = 1): the face and its four vertices are copied.
        let mut m = quad();
        replay_alone(&record(1)[0], &mut m).expect("detach as clone");
        assert_eq!((m.vertices.len(), m.faces.len()), (8, 2));
        assert_eq!(m.faces[1].v, [4, 5, 6, 7]);
        // Not a clone and no Delete Face after it: refused by name.
        let err = replay_alone(&record(0)[0], &mut quad()).unwrap_err();
        assert!(err.to_string().contains("stay in the mesh"), "{err}");
        let err = replay_alone(&record(2)[0], &mut quad()).unwrap_err();
        assert!(err.to_string().contains("0x0601"), "{err}");
    }

    #[test]
    fn a_slice_of_no_selected_face_cuts_nothing() {
        let record = |set: &[usize]| {
            operations(&op(
                OP_SLICE_FACE,
                vec![
                    selection(1, set),
                    Chunk::leaf(0x0420, vec![0; 52]),
                    Chunk::leaf(0x0430, vec![0; 52]),
                ],
                vec![],
            ))
            .expect("ops")
        };
        let empty = record(&[]);
        assert!(cuts_nothing(&empty[0]));
        let mut m = quad();
        replay_alone(&empty[0], &mut m).expect("nothing to cut");
        assert_eq!(m.vertices, quad().vertices);
        assert_eq!(m.faces.len(), 1);
        // A selected face is cut by MNMesh::Slice: refused by name.
        let one = record(&[0]);
        assert!(!cuts_nothing(&one[0]));
        let err = replay_alone(&one[0], &mut quad()).unwrap_err();
        assert!(err.to_string().contains("MNMesh::Slice"), "{err}");
        // A plane matrix that is not a number (chocolate.max's Spindles)
        // has no point on either side: nothing is cut, selection or not.
        let nan_plane = |id: u32| {
            let m: Vec<u8> = [f32::NAN; 12]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            operations(&op(
                id,
                vec![
                    selection(1, &[0]),
                    Chunk::container(
                        0x0420,
                        vec![Chunk::leaf(0x03e8, m), Chunk::leaf(0x03f2, u32s(&[4]))],
                    ),
                ],
                vec![],
            ))
            .expect("ops")
        };
        for id in [OP_SLICE, OP_SLICE_FACE] {
            let ops = nan_plane(id);
            assert!(cuts_nothing(&ops[0]), "{id}");
            let mut m = quad();
            replay_alone(&ops[0], &mut m).expect("nothing to cut");
            assert_eq!(m.vertices, quad().vertices);
        }
    }

    #[test]
    fn library_operations_are_refused_naming_what_is_missing() {
        // A Slice keeps its plane (0x0420) and mod-context TM (0x0430).
        let matrix = Chunk::leaf(0x0420, vec![0; 52]);
        let slice = operations(&op(
            OP_SLICE,
            vec![matrix.clone(), Chunk::leaf(0x0430, vec![0; 52])],
            vec![],
        ))
        .expect("ops");
        let err = replay_alone(&slice[0], &mut quad()).unwrap_err();
        assert!(err.to_string().contains("MNMesh::Slice"), "{err}");
        // On an operation that keeps no plane, the record is not read.
        let err = operations(&op(OP_TRANSFORM, vec![matrix], vec![])).unwrap_err();
        assert!(err.to_string().contains("record 0x0420"), "{err}");
        let bridge = operations(&op(OP_BRIDGE_EDGE, vec![], vec![])).expect("ops");
        let err = replay_alone(&bridge[0], &mut quad()).unwrap_err();
        assert!(err.to_string().contains("bridge"), "{err}");
        // A constrained move names its constraint.
        let mut constrained = transform(1, &[0.0, 0.0, 1.0]);
        constrained[1] = Chunk::container(
            0x0234,
            vec![Chunk::container(
                0x0600,
                vec![Chunk::leaf(0x0410, u32s(&[PARAM_CONSTRAIN_TYPE, 1]))],
            )],
        );
        let ops = operations(&constrained).expect("ops");
        let err = replay_alone(&ops[0], &mut quad()).unwrap_err();
        assert!(err.to_string().contains("ConstrainDeltaToEdges"), "{err}");
    }

    #[test]
    fn extrusions_need_their_understood_parameters() {
        let param = |id: u32, v: f32| {
            let mut p = id.to_le_bytes().to_vec();
            p.extend(v.to_le_bytes());
            Chunk::leaf(0x0410, p)
        };
        // The move extrusion takes its type from 0x0601.
        let bare = operations(&op(OP_MOVE_EXTRUDE, vec![selection(1, &[0])], vec![])).expect("ops");
        let err = replay_alone(&bare[0], &mut quad()).unwrap_err();
        assert!(err.to_string().contains("0x0601"), "{err}");
        let typed = operations(&op(
            OP_MOVE_EXTRUDE,
            vec![selection(1, &[0])],
            vec![Chunk::leaf(0x0601, u32s(&[2]))],
        ))
        .expect("ops");
        let mut m = quad();
        replay_alone(&typed[0], &mut m).expect("extrusion");
        assert_eq!((m.vertices.len(), m.faces.len()), (8, 5));
        assert_eq!(m.vertices[4..], m.vertices[..4]);
        // Extrude Face with the Max 2016+ parameter 120 at another value.
        let odd = operations(&op(
            OP_EXTRUDE_FACE,
            vec![
                selection(1, &[0]),
                param(PARAM_EXTRUDE_FACE_HEIGHT, 2.0),
                param(PARAM_EXTRUDE_FACE_UNKNOWN, 0.5),
            ],
            vec![],
        ))
        .expect("ops");
        assert!(replay_alone(&odd[0], &mut quad()).is_err());
        let up = operations(&op(
            OP_EXTRUDE_FACE,
            vec![selection(1, &[0]), param(PARAM_EXTRUDE_FACE_HEIGHT, 2.0)],
            vec![],
        ))
        .expect("ops");
        let mut m = quad();
        replay_alone(&up[0], &mut m).expect("extrude");
        assert_eq!(m.vertices[6], Vec3(1.0, 1.0, 2.0));
        // A selection sized to another mesh is an error.
        let wrong = operations(&op(OP_INSET, vec![selection(3, &[0])], vec![])).expect("ops");
        assert!(replay_alone(&wrong[0], &mut quad()).is_err());
    }

    #[test]
    fn edge_chamfers_and_extrusions_are_refused_with_their_variant() {
        let param = |id: u32, v: [u8; 4]| {
            let mut p = id.to_le_bytes().to_vec();
            p.extend(v);
            Chunk::leaf(0x0410, p)
        };
        let chamfer = operations(&op(
            OP_CHAMFER_EDGE,
            vec![
                selection(4, &[0, 2]),
                param(PARAM_CHAMFER_EDGE, 0.5f32.to_le_bytes()),
                param(PARAM_CHAMFER_EDGE_SEGMENTS, 3i32.to_le_bytes()),
                param(PARAM_CHAMFER_EDGE_TYPE, 1i32.to_le_bytes()),
                param(PARAM_CHAMFER_EDGE_TENSION, 0.25f32.to_le_bytes()),
                param(PARAM_CHAMFER_EDGE_OPEN, 1i32.to_le_bytes()),
            ],
            vec![Chunk::leaf(0x0602, u32s(&[700]))],
        ))
        .expect("ops");
        assert_eq!(
            refusal(&chamfer[0]).to_string(),
            "operation Chamfer Edge (34): quad chamfer with 3 segments is not evaluated \
             (2 edges, amount 0.5, tension 0.25, open)"
        );
        // Before Max 2015 there is no type: a standard chamfer, one segment
        // unless recorded.
        let old = operations(&op(OP_CHAMFER_EDGE, vec![selection(4, &[1])], vec![])).expect("ops");
        assert_eq!(
            refusal(&old[0]).to_string(),
            "operation Chamfer Edge (34): standard chamfer with 1 segment is not evaluated \
             (1 edges, amount not recorded)"
        );
        // A damaged parameter is that error, not a default.
        let damaged = operations(&op(
            OP_CHAMFER_EDGE,
            vec![
                selection(4, &[1]),
                Chunk::leaf(
                    0x0410,
                    [&PARAM_CHAMFER_EDGE_SEGMENTS.to_le_bytes()[..], &[2, 0]].concat(),
                ),
            ],
            vec![],
        ))
        .expect("ops");
        assert_eq!(refusal(&damaged[0]).to_string(), "parameter 86: 2 bytes");
        let extrude = operations(&op(
            OP_EXTRUDE_EDGE,
            vec![
                selection(4, &[3]),
                param(PARAM_EXTRUDE_EDGE_HEIGHT, 1.5f32.to_le_bytes()),
                param(PARAM_EXTRUDE_EDGE_WIDTH, 0f32.to_le_bytes()),
            ],
            vec![],
        ))
        .expect("ops");
        let err = replay_alone(&extrude[0], &mut quad())
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("extruding 1 edges, height 1.5, width 0 is not evaluated ("),
            "{err}"
        );
    }

    /// The quad with one explicit normal on its corner 2.
    fn quad_with_normals() -> PolyMesh {
        use crate::eval::objects::poly_normals::PolyNormals;
        use crate::eval::objects::specified_normals::SpecifiedNormals;
        PolyMesh {
            normals: Some(PolyNormals {
                pool: SpecifiedNormals {
                    normals: vec![[0.0, 0.6, 0.8]],
                    explicit: vec![true],
                    computed: true,
                    ..SpecifiedNormals::default()
                },
                faces: vec![vec![None, None, Some(0), None]],
            }),
            ..quad()
        }
    }

    #[test]
    fn specified_normals_follow_the_operations_that_keep_corners() {
        let run = |id: u32, m: &mut PolyMesh| {
            let ops = operations(&op(id, vec![selection(1, &[0])], vec![])).expect("ops");
            specified_normals(&ops[0], m)
        };
        let mut m = quad_with_normals();
        assert!(run(OP_SET_MATERIAL, &mut m), "kept");
        assert_eq!(m.normals, quad_with_normals().normals);
        // A move keeps explicit normals and has the others recomputed.
        assert!(run(OP_TRANSFORM, &mut m), "kept");
        assert!(m
            .normals
            .as_ref()
            .is_some_and(|n| !n.pool.computed && n.any()));
        // Reshaping faces with a specified corner leaves them out, for the
        // caller to name.
        let mut welded = quad_with_normals();
        assert!(!run(OP_WELD_VERTEX, &mut welded), "left out");
        assert!(welded.normals.is_none());
        // Nothing specified: nothing to name, the empty set goes.
        let mut bare = quad_with_normals();
        if let Some(n) = &mut bare.normals {
            n.faces[0][2] = None;
        }
        assert!(run(OP_WELD_VERTEX, &mut bare), "nothing specified");
        assert!(bare.normals.is_none());
        // Attached to a mesh without normals, they follow their face, and
        // the triangles (a fan from corner 0) take their polygon corners'.
        let mut m = quad();
        topo::attach(&mut m, quad_with_normals()).expect("attach");
        let n = m.normals.as_ref().expect("normals");
        assert_eq!(n.faces, [vec![None; 4], vec![None, None, Some(0), None]]);
        let t = m.to_mesh().expect("mesh");
        let spec = t.normals.expect("triangle normals");
        assert_eq!(
            spec.faces,
            [
                [None; 3],
                [None; 3],
                [None, None, Some(0)],
                [None, Some(0), None]
            ]
        );
        // Deleting the attached face drops its corners.
        topo::delete_faces(&mut m, &[false, true], true).expect("delete");
        assert_eq!(m.normals.expect("normals").faces, [vec![None; 4]]);
    }

    #[test]
    fn transform_offsets_add_to_the_first_vertices() {
        let ops = operations(&transform(1, &[1.0, 2.0, 3.0])).expect("ops");
        let mut poly = PolyMesh {
            vertices: vec![Vec3(1.0, 1.0, 1.0), Vec3(5.0, 5.0, 5.0)],
            ..PolyMesh::default()
        };
        replay_alone(&ops[0], &mut poly).expect("replay");
        assert_eq!(poly.vertices, [Vec3(2.0, 3.0, 4.0), Vec3(5.0, 5.0, 5.0)]);
        assert_eq!(op_name(32), "operation Bevel (32)");
        assert_eq!(op_name(500), "operation unknown (500)");
    }

    #[test]
    fn an_attach_recorded_without_a_mesh_attaches_nothing() {
        let attach = |data: Vec<Chunk>| {
            let mut chunks = op(OP_ATTACH, vec![], vec![]);
            chunks.push(Chunk::container(0x0238, data));
            operations(&chunks)
        };
        // Buwaka's table.max: 0x0e04 = 0 alone.
        let ops = attach(vec![Chunk::leaf(0x0e04, u32s(&[0]))]).expect("ops");
        assert!(matches!(ops[0].attached, Some(None)));
        let mut poly = quad();
        replay_alone(&ops[0], &mut poly).expect("replay");
        assert_eq!(poly, quad());
        // Other values, or 0 beside other records, are refused as stored.
        let e = attach(vec![Chunk::leaf(0x0e04, u32s(&[2]))]).expect_err("refused");
        assert_eq!(
            e.to_string(),
            "attach record 0x0e04 = [02, 00, 00, 00] is not evaluated"
        );
        let e = attach(vec![
            Chunk::leaf(0x0e04, u32s(&[0])),
            Chunk::leaf(0x0e08, u32s(&[0])),
        ])
        .expect_err("refused");
        assert_eq!(
            e.to_string(),
            "attach record 0x0e04 = [00, 00, 00, 00] is not evaluated"
        );
        let e = attach(vec![Chunk::leaf(0x0e04, u32s(&[1]))]).expect_err("no mesh");
        assert!(e.to_string().contains("attach without its mesh"), "{e}");
    }
}
