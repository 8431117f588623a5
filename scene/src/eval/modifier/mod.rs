//! Modifier stacks: a derived object (0x2032 object-space, 0x2033 world-space)
//! holds its modifiers in references 0..n−1 (0 = top of the stack) and the object
//! they modify in its last reference; its chunks hold one ModApp container 0x2500
//! per modifier, in the same order, with the modifier's per-node data in 0x2512.
//!
//! One module per modifier family: `edit_mesh` (its MeshDelta), `edit_poly` (its
//! committed operations replayed on the input's polygon form), `unwrap` (Unwrap
//! UVW's stored texture vertices and faces), `uvw_map`, `mirror` and `symmetry`
//! (placed by a gizmo, see `gizmo`), `skin_deform` (Skin's bone blend at a
//! time), `morpher` (Morpher's weighted channel deltas), `turbo_smooth`
//! (Catmull-Clark of the input's polygons, see `subdivide`; MeshSmooth's
//! NURMS in `mesh_smooth` reuses it), `shell`, `bend`, `taper`, `twist`
//! `ripple`, `wave`, `skew`, `stretch` and `melt` (deformers placed by a gizmo and centre, see `simple_mod`; `noise`
//! names why Noise is refused, `face_extrude` why Face Extrude is), `ffd`
//! (lattice deformation), `cap_holes` (closes open edge loops), `chamfer_mod` (the Chamfer modifier, refused naming its case), `slice` (remove top / bottom of the polygons, see
//! `symmetry_slice`), `surface` (Normal's flip, Smooth's groups, its auto
//! smooth in `auto_smooth`), `relax` (Laplacian relaxation), `map_extender` (Map Extender's stored map
//! replayed), `vertex_tree_paint` (NeL VertexTreePaint's per-vertex
//! colours), `cloth` (the simulation's start state Max saved), `edit_normals`
//! (the normals Edit Normals saved, set on its input); `extrude` and
//! `lathe` make meshes of shapes (`apply_to_shape`), after the point
//! deformers at the bottom of a shape's stack deform its knots
//! (`shape_deform`); the selection-only
//! modifiers leave the mesh as it is. Any other modifier is an error naming it — dropping a modifier
//! silently would export the wrong geometry.

use crate::chunk::Chunk;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

use crate::eval::core::keys::Words;
use crate::eval::core::math::Vec3;
use crate::eval::core::transform::SceneEval;
use crate::eval::objects::mesh::Mesh;

mod auto_smooth;
mod bend;
pub mod bevel;
pub mod bevel_profile;
pub mod boolean_mod;
mod cache_smoothing;
pub mod cap_holes;
pub mod chamfer_mod;
pub mod cloth;
pub mod conform;
mod edit_mesh;
pub mod edit_normals;
mod edit_poly;
mod edit_poly_bevel;
mod edit_poly_bridged;
mod edit_poly_cap;
mod edit_poly_chamfer;
mod edit_poly_chamfer_cap_standard;
mod edit_poly_chamfer_corner;
mod edit_poly_chamfer_edge;
mod edit_poly_chamfer_edge_standard;
mod edit_poly_chamfer_ring;
mod edit_poly_chamfer_standard_corner;
mod edit_poly_clone;
mod edit_poly_clone_face;
mod edit_poly_collapse;
mod edit_poly_connect;
mod edit_poly_create;
mod edit_poly_create_edge;
mod edit_poly_cut;
mod edit_poly_edges;
mod edit_poly_extrude;
mod edit_poly_extrude_edge;
mod edit_poly_extrude_group;
mod edit_poly_flip;
mod edit_poly_planar;
mod edit_poly_records;
mod edit_poly_remove;
mod edit_poly_retriangulate;
mod edit_poly_smooth;
mod edit_poly_topo;
pub mod extrude;
pub mod face_extrude;
pub mod ffd;
mod gizmo;
pub mod lathe;
pub mod map_extender;
pub mod map_scaler;
mod melt;
mod mesh_smooth;
mod mirror;
pub mod morpher;
mod noise;
pub mod physique;
mod relax;
mod ripple;
pub mod shape_deform;
pub mod shape_input;
#[cfg(test)]
mod shape_input_tests;
mod shell;
mod simple_mod;
mod skew;
pub mod skin;
mod skin_deform;
pub mod slice;
mod smooth_input;
mod spherify;
pub mod squeeze;
mod stretch;
mod sub_selection;
pub mod subdivide;
mod surface;
pub mod sweep;
mod symmetry;
mod symmetry_poly;
mod symmetry_slice;
mod taper;
pub mod turbo_smooth;
mod twist;
mod unwrap;
mod unwrap_cache;
pub mod uv_only;
mod uvw_map;
pub(crate) mod uvw_project;
pub mod uvw_xform;
pub mod vertex_tree_paint;
mod wave;
pub mod xform;

pub use edit_poly::polygon_output as edit_poly_output;
pub use edit_poly::{
    operation_offset_values as edit_poly_operation_offset_values,
    operation_offsets as edit_poly_operation_offsets,
    operation_record as edit_poly_operation_record,
    operation_selection as edit_poly_operation_selection,
    polygon_output_after as edit_poly_output_after, OperationRecord as EditPolyOperationRecord,
};

pub const EDIT_MESH: ClassId = ClassId(0x50, 0);
/// Edit Spline: spline sub-object edits on a shape (not replayed).
pub const EDIT_SPLINE: ClassId = ClassId(0x60, 0);
pub const EDIT_POLY: ClassId = ClassId(0x79aa6e1d, 0x71a075b7);
pub const UNWRAP_UVW: ClassId = ClassId(0x02df2e3a, 0x72ba4e1f);
pub const UVW_MAP: ClassId = ClassId(0x000f72b1, 0);
pub const MIRROR: ClassId = ClassId(0xef92aa7c, 0x511bbe75);
pub const SYMMETRY: ClassId = ClassId(0x2d7e702b, 0x0be41a6e);
pub const MORPHER: ClassId = ClassId(0x17bb6854, 0xa5cba2a3);
pub const BEND: ClassId = ClassId(0x10, 0);
pub const TAPER: ClassId = ClassId(0x20, 0);
pub const TWIST: ClassId = ClassId(0x90, 0);
pub const RIPPLE: ClassId = ClassId(0x45, 0);
/// Mesh Select and Select By Channel only pass a selection up the stack
/// (`sub_selection` reads Mesh Select's level; Select By Channel's selection
/// is not read, so a modifier above acting on a selection is refused).
/// Select By Channel checked on public files: with it passed through,
/// bookshelf.max's totals equal Max's Mesh Totals (docs/unseen-files.md,
/// fourteenth sweep).
const SELECTION_ONLY: [ClassId; 2] = [sub_selection::MESH_SELECT, sub_selection::SELECT_BY_CHANNEL];
/// MassFX Rigid Body only holds physics properties: the simulation moves
/// the node, and only a bake writes that into its controllers. It passes its
/// input up unchanged, with no selection. Checked on public files: with the
/// rigid bodies passed through, cube game.max's and chain.max's vertex
/// totals equal Max's Mesh Totals (docs/unseen-files.md, "MassFX Rigid Body").
pub const MASSFX_RBODY: ClassId = ClassId(0x000a_750e, 0x0006_e6ba);
/// MAXtoA's Arnold Properties holds per-object render settings (its
/// subdivision and displacement happen in the renderer), so the scene Max
/// shows is its input. Checked on public files: with it passed through, the
/// vertex and face totals of nicolas-holst's seven Arnold visibility scenes
/// equal Max's Mesh Totals (docs/unseen-files.md).
pub const ARNOLD_PROPERTIES: ClassId = ClassId(0x9753_1356, 0x9c8a_4d2e);
/// Modifiers that only hold properties for a later stage (physics,
/// rendering): their output is their input, polygons and selection included.
pub(super) const PROPERTIES_ONLY: [ClassId; 2] = [MASSFX_RBODY, ARNOLD_PROPERTIES];
/// The simple (gizmo) deformers: each moves a vertex by a function of its
/// position alone and selects nothing.
const GIZMO_DEFORMERS: [ClassId; 9] = [
    BEND,
    squeeze::SQUEEZE,
    melt::MELT,
    TAPER,
    TWIST,
    RIPPLE,
    skew::SKEW,
    wave::WAVE,
    stretch::STRETCH,
];

/// Whether modifier `class` passes its input's sub-object selection up as it
/// came: it maps, moves or sets the material IDs of what it gets and selects
/// nothing (UVW Xform reads that selection). Unwrap UVW keeps a selection of
/// its own, so it is not counted.
fn leaves_selection_alone(class: ClassId) -> bool {
    PROPERTIES_ONLY.contains(&class)
        || class == surface::MATERIAL
        || (uv_only::is_uv_only(class) && class != UNWRAP_UVW)
        || GIZMO_DEFORMERS.contains(&class)
        || class == spherify::SPHERIFY
}

/// Whether modifier `class` moves each vertex by a function of its position
/// alone (its gizmo, its stored input box and its parameters): on a poly
/// object it moves the MNMesh's vertices and keeps everything else, so an
/// Edit Poly above it reads the polygons below, moved.
pub(crate) fn moves_points_only(class: ClassId) -> bool {
    GIZMO_DEFORMERS.contains(&class)
        || class == xform::XFORM
        || class == spherify::SPHERIFY
        || ffd::side(class).is_some()
}

/// Moves `points` by point deformer `m` ([`moves_points_only`]) as it moves
/// a mesh's vertices: what it does to a poly object's vertices and to a
/// shape's knots and handles (`shape_deform`).
pub(super) fn deform_points(
    m: &Applied,
    points: Vec<Vec3>,
    cx: &ModContext,
) -> Result<Vec<Vec3>, EvalError> {
    if !moves_points_only(m.class) {
        return Err(EvalError::malformed(
            "",
            format!("{} is not a point deformer", m.name),
        ));
    }
    let mut mesh = Mesh {
        vertices: points,
        ..Mesh::default()
    };
    apply(m, &mut mesh, cx)?;
    Ok(mesh.vertices)
}

/// Hair and Fur (WSM) grows its hair at render time; the mesh it passes up
/// is its input. Checked on public files: with it passed through, the vertex
/// and face totals of deepdas007's "Grass and Fur.max" (Max 2020, 25 / 32)
/// and cyllinder.max (Max 2014, 110 / 216), whose only other nodes are
/// evaluated, equal Max's Mesh Totals. Any selection it sets is not read, so
/// a selection-sensitive modifier above it is refused by name.
pub const HAIR_AND_FUR: ClassId = ClassId(0x08d6_9a9a, 0x1c3b_cf66);

/// Modifiers whose output is their input.
const PASS_THROUGH: [ClassId; 5] = [
    SELECTION_ONLY[0],
    SELECTION_ONLY[1],
    MASSFX_RBODY,
    ARNOLD_PROPERTIES,
    HAIR_AND_FUR,
];

/// ModApp container, its local-data child, and the Edit Mesh delta.
const MOD_APP: u16 = 0x2500;
const LOCAL_DATA: u16 = 0x2512;
const MESH_DELTA: u16 = 0x4000;

/// Records decoded at most per list (a damaged count must not allocate much).
const MAX_RECORDS: usize = 1 << 22;

/// The container every modifier saves with its own chunks (Max's base
/// Modifier save) and the empty child that marks it switched off (the light
/// bulb in the stack). Measured on public files (docs/unseen-files.md, fourth
/// sweep): 26 modifiers of 5 of 419 files hold it (TurboSmooth, Subdivide,
/// MeshSmooth, Edit Poly, FFD), and Max's saved Mesh Totals leave those
/// modifiers out (LICUADORA.max: 1,444 vertices with its Box's TurboSmooth
/// skipped, 1,677 with it applied; washingmachine.max: 2,816 with its
/// Subdivide skipped).
const MODIFIER_BASE: u16 = 0x39bf;
const MODIFIER_OFF: u16 = 0x0110;

/// Whether the modifier with these chunks is switched off: Max passes its
/// input through unchanged.
pub fn is_switched_off(chunks: &[Chunk]) -> bool {
    chunks
        .iter()
        .filter(|c| c.id == MODIFIER_BASE)
        .any(|c| c.children().iter().any(|k| k.id == MODIFIER_OFF))
}

/// One modifier of a stack: its scene object, class and ModApp container.
#[derive(Debug, Clone, Copy)]
pub struct Applied<'a> {
    pub object: usize,
    pub class: ClassId,
    pub name: &'a str,
    pub mod_app: Option<&'a Chunk>,
}

/// The ModApp containers of a derived object, in modifier order.
pub fn mod_apps(derived: &[Chunk]) -> Vec<&Chunk> {
    derived.iter().filter(|c| c.id == MOD_APP).collect()
}

/// Where a modifier is applied: modifiers that read the scene (bones, gizmos,
/// animated weights) need the evaluator, the node being evaluated (None for a
/// Boolean operand) and the time.
#[derive(Clone, Copy)]
pub struct ModContext<'e> {
    pub eval: &'e SceneEval,
    pub node: Option<usize>,
    pub t: i32,
    /// Whether the mesh entering the stack has Max's vertex and face order:
    /// false above a recomputed Boolean, whose triangulation is not Max's.
    /// Modifiers that store per-vertex or per-face data without the
    /// geometry to check it against (Map Extender, VertexTreePaint) refuse
    /// otherwise.
    pub max_order: bool,
    /// Whether a result Max saved may stand in for a part of the stack that
    /// is not evaluated (an Unwrap UVW's cache of its input,
    /// `unwrap_cache`); false where the stack's own evaluation is wanted
    /// ([`Stack::Replayed`](crate::eval::core::memo::Stack::Replayed)).
    pub stand_ins: bool,
    /// The object whose stack is applied when it is not a node's (a Boolean
    /// operand's derived object): Edit Poly finds the modifiers below it
    /// there. None: the node's stack.
    pub object: Option<usize>,
}

impl<'e> ModContext<'e> {
    /// The stack being applied and its base object: the operand object's
    /// when set, else the node's (None: neither is known).
    pub fn stack(&self) -> Option<(Vec<Applied<'e>>, usize)> {
        match (self.object, self.node) {
            (Some(obj), _) => self.eval.object_stack(obj),
            (None, Some(node)) => self.eval.modifier_stack(node),
            (None, None) => None,
        }
    }

    /// The stack being applied, its base object and the index of `m` in it
    /// (top first): what modifiers that look below themselves start from.
    /// None when the stack is not known or `m` is not in it.
    pub fn place_of(&self, m: &Applied) -> Option<(Vec<Applied<'e>>, usize, usize)> {
        let (stack, base) = self.stack()?;
        let at = stack.iter().position(|a| a.object == m.object)?;
        Some((stack, base, at))
    }

    /// [`place_of`](Self::place_of), or why `m` cannot look below itself.
    pub fn place(&self, m: &Applied) -> Result<(Vec<Applied<'e>>, usize, usize), EvalError> {
        let (stack, base) = self.stack().ok_or_else(|| {
            EvalError::not_evaluated(format!("{} without a known modifier stack", m.name))
        })?;
        let at = stack
            .iter()
            .position(|a| a.object == m.object)
            .ok_or_else(|| EvalError::malformed("", "the modifier is not in the node's stack"))?;
        Ok((stack, base, at))
    }
}

/// Modifiers that act only on the sub-object selection passed up to them:
/// where one is live below them, `sub_selection` says what they act on (the
/// selected vertices of a point deformer) or refuses them by name.
const SELECTION_SENSITIVE: [ClassId; 22] = [
    melt::MELT,
    squeeze::SQUEEZE,
    spherify::SPHERIFY,
    surface::MATERIAL,
    cap_holes::CAP_HOLES,
    relax::RELAX,
    surface::NORMAL,
    xform::XFORM,
    surface::SMOOTH,
    stretch::STRETCH,
    skew::SKEW,
    wave::WAVE,
    BEND,
    slice::SLICE,
    RIPPLE,
    TAPER,
    TWIST,
    UVW_MAP,
    MIRROR,
    ffd::FFD_2X2X2,
    ffd::FFD_3X3X3,
    ffd::FFD_4X4X4,
];

/// Applies a modifier stack (`applied` in stack order, top first) bottom-up.
pub fn apply_stack(applied: &[Applied], mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    run_stack(applied, None, false, mesh, cx)
}

/// [`apply_stack`] on the part of a stack above base object `base` (read
/// for the sub-object selection it leaves live, see `sub_selection`), with
/// no saved result standing in.
pub fn apply_stack_from(
    applied: &[Applied],
    base: usize,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    run_stack(applied, Some(base), false, mesh, cx)
}

/// [`apply_stack`] on a stack whose base object is `base`: where the stack
/// below an Unwrap UVW cannot be evaluated, or its result does not take the
/// Unwrap's map, the Unwrap's cache of its input stands in for it
/// (`unwrap_cache`).
pub fn apply_stack_over(
    applied: &[Applied],
    base: usize,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    run_stack(applied, Some(base), true, mesh, cx)
}

/// Applies `applied` bottom-up; `base` is the base object under it (its
/// selection level read by `sub_selection`), and with `stand_in` an Unwrap
/// UVW's cache may stand in for a failed part below it.
fn run_stack(
    applied: &[Applied],
    base: Option<usize>,
    stand_in: bool,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    // Above a Boolean modifier the triangles are ours, not Max's.
    let mut cx = *cx;
    let outer_order = cx.max_order;
    let mut recomputed = false;
    let deferred = replayed_by_edit_poly(applied);
    let mut i = applied.len();
    while i > 0 {
        i -= 1;
        if deferred[i] {
            continue;
        }
        let a = &applied[i];
        // A modifier acting on a sub-object selection left live below it:
        // the selected vertices only, or refused (`sub_selection`).
        let mut only: Option<Vec<bool>> = None;
        let mut only_faces: Option<Vec<bool>> = None;
        let refused = if SELECTION_SENSITIVE.contains(&a.class) {
            match sub_selection::target(
                applied,
                i,
                base,
                &cx,
                mesh.vertices.len(),
                mesh.faces.len(),
            ) {
                Ok(sub_selection::Target::Whole) => None,
                Ok(sub_selection::Target::Vertices(v)) => {
                    only = Some(v);
                    None
                }
                Ok(sub_selection::Target::Faces(f)) => {
                    only_faces = Some(f);
                    None
                }
                Err(e) => Some(e),
            }
        } else if recomputed && a.class == EDIT_MESH {
            crate::eval::objects::boolean::refuse_index_edits(std::slice::from_ref(a), true).err()
        } else {
            None
        };
        // Modifiers that rebuild the mesh do not carry the record of
        // channels left out below them: it is kept aside and put back.
        let mut missing = std::mem::take(&mut mesh.missing_maps);
        if a.class == EDIT_MESH {
            // Edit Mesh passes over the map delta of a channel left out
            // below by name (put back deduplicated after it).
            mesh.missing_maps.clone_from(&missing);
        }
        let mut missing_normals = mesh.missing_normals.take();
        let parts = std::mem::take(&mut mesh.missing_parts);
        let outcome = match (refused, &only) {
            (Some(e), _) => Err(e),
            (None, _) if only_faces.is_some() => {
                uvw_map::apply_to_faces(a, mesh, &cx, only_faces.as_deref())
                    .map_err(|e| a.error(Some(e)))
            }
            (None, None) => apply(a, mesh, &cx),
            // Relax leaves the unselected vertices out of every iteration.
            (None, Some(selected)) if a.class == relax::RELAX => {
                relax::apply_to(a, mesh, &cx, Some(selected)).map_err(|e| match e {
                    EvalError::Modifier { class, .. } if class == a.class => e,
                    other => a.error(Some(other)),
                })
            }
            (None, Some(selected)) => {
                let before = mesh.vertices.clone();
                apply(a, mesh, &cx)
                    .map(|()| sub_selection::keep_unselected(&before, &mut mesh.vertices, selected))
            }
        };
        match outcome {
            Ok(()) if a.class == boolean_mod::BOOLEAN_MOD => {
                recomputed = true;
                cx.max_order = false;
            }
            Ok(()) => {}
            Err(e) => {
                // The nearest Unwrap UVW at or above the failure whose cache
                // can stand in for the stack below it.
                let mut first_refusal = None;
                let mut stood_in = None;
                if let Some(base) = base.filter(|_| stand_in && cx.stand_ins) {
                    for j in (0..=i).rev().filter(|&j| applied[j].class == UNWRAP_UVW) {
                        // Where the Unwrap itself failed, `mesh` is our
                        // result of the stack below it.
                        let ours = (j == i).then_some(cache_smoothing::Below::Mesh(&*mesh));
                        match unwrap_cache::stand_in(applied, j, base, &cx, e.clone(), ours) {
                            Ok(found) => {
                                stood_in = Some((j, found));
                                break;
                            }
                            Err(r) => {
                                first_refusal.get_or_insert(r);
                            }
                        }
                    }
                }
                match stood_in {
                    Some((j, (poly, cache_parts))) => {
                        *mesh = poly.to_mesh()?;
                        mesh.missing_parts = cache_parts;
                        unwrap_cache::hide_edges(&applied[j], &cx, mesh);
                        // Whatever was left out below is replaced with the cache.
                        missing.clear();
                        missing_normals = None;
                        i = j;
                        // The cache is Max's own mesh: its order holds again.
                        recomputed = false;
                        cx.max_order = outer_order;
                    }
                    // A texture-coordinate modifier that fails never costs the geometry.
                    None if uv_only::is_uv_only(a.class) => {
                        uv_only::failed(a, mesh, &cx, first_refusal.as_ref().unwrap_or(&e))
                    }
                    None => return Err(first_refusal.unwrap_or(e)),
                }
            }
        }
        // A channel left out twice for the same reason (two Edit Polys
        // chamfering, two chamfers in one) is named once, as parts are.
        let added = std::mem::replace(&mut mesh.missing_maps, missing);
        for m in added {
            if !mesh.missing_maps.contains(&m) {
                mesh.missing_maps.push(m);
            }
        }
        // Normals an Edit Normals set replace those left out below it.
        let replaced = a.class == edit_normals::EDIT_NORMALS && mesh.normals.is_some();
        if mesh.missing_normals.is_none() && !replaced {
            mesh.missing_normals = missing_normals;
        }
        for p in parts {
            if !mesh.missing_parts.contains(&p) {
                mesh.missing_parts.push(p);
            }
        }
        // A channel written again above (a later UVW Map, an Edit Poly that
        // rebuilt it from below) is no longer missing.
        let maps = &mesh.maps;
        mesh.missing_maps.retain(|r| {
            r.channel
                .is_none_or(|c| !maps.iter().any(|x| x.channel == c))
        });
        if !keeps_specified_normals(applied[i].class) {
            // Max's TriObjectNormalXTC clears specified normals when a modifier
            // that does not support them changes geometry or topology:
            // those left out below would have gone here anyway.
            mesh.normals = None;
            mesh.missing_normals = None;
        }
    }
    Ok(())
}

/// Modifiers an Edit Poly above replays on polygons (`edit_poly`'s input
/// through Symmetry, Smooth, Conform and Shell): their triangle-mesh result would be
/// replaced, so they are not applied on triangles, where a polygon's
/// triangles are not what Max smooths or slices. True per modifier of
/// `applied` (top first) with an Edit Poly above it and only modifiers the
/// Edit Poly reads through between them.
fn replayed_by_edit_poly(applied: &[Applied]) -> Vec<bool> {
    let replayed = |c: ClassId| {
        c == SYMMETRY || c == surface::SMOOTH || c == conform::CONFORM || c == shell::SHELL
    };
    let through = |c: ClassId| c == EDIT_POLY || c == UNWRAP_UVW || replayed(c);
    let mut out = vec![false; applied.len()];
    let mut above = false;
    for (i, a) in applied.iter().enumerate() {
        out[i] = above && replayed(a.class);
        if a.class == EDIT_POLY {
            above = true;
        } else if !through(a.class) {
            above = false;
        }
    }
    out
}

/// Modifiers that leave geometry and topology alone (selection, mapping), so
/// specified normals pass through them, and Edit Poly and Poly Select, which
/// carry them on their polygons (`edit_poly::specified_normals`), and Edit
/// Normals, which sets them (`edit_normals`); every other modifier drops them.
/// VertexTreePaint changes colours only, but declares geometry and topology
/// changed (its `ChannelsChanged`), which is what Max's normals follow.
fn keeps_specified_normals(class: ClassId) -> bool {
    // Edit Poly outputs its own replay, specified normals carried through it.
    class == EDIT_POLY
        || class == edit_normals::EDIT_NORMALS
        || class == sub_selection::POLY_SELECT
        || PASS_THROUGH.contains(&class)
        || (uv_only::is_uv_only(class) && class != vertex_tree_paint::VERTEX_TREE_PAINT)
}

/// The class of a stack's base object, which the polygon-form builders
/// (Edit Poly, TurboSmooth, MeshSmooth, Smooth) dispatch on.
fn base_class<'a>(
    cx: &'a ModContext,
    base: usize,
) -> Result<&'a crate::graph::ObjectClass, EvalError> {
    cx.eval
        .graph
        .class(base)
        .ok_or_else(|| EvalError::malformed("", "base object without a class"))
}

/// Applies one modifier to `mesh` (object space).
pub fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    apply_one(m, mesh, cx).map_err(|e| match e {
        // Already this modifier's own refusal: naming it twice says nothing more.
        EvalError::Modifier { class, .. } if class == m.class => e,
        other => m.error(Some(other)),
    })
}

impl Applied<'_> {
    /// `source` (or "not evaluated") as this modifier's failure.
    pub fn error(&self, source: Option<EvalError>) -> EvalError {
        EvalError::Modifier {
            name: self.name.to_string(),
            class: self.class,
            source: source.map(Box::new),
        }
    }
}

fn apply_one(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    if PASS_THROUGH.contains(&m.class) {
        return Ok(());
    }
    let local = m
        .mod_app
        .and_then(|a| a.children().iter().find(|c| c.id == LOCAL_DATA));
    if m.class == EDIT_MESH {
        let delta = local
            .and_then(|l| l.children().iter().find(|c| c.id == MESH_DELTA))
            .ok_or_else(|| EvalError::malformed("", "no MeshDelta (0x4000)"))?;
        return edit_mesh::apply(m.name, delta.children(), mesh);
    }
    if m.class == EDIT_POLY {
        let local = local.ok_or_else(|| EvalError::malformed("", "no local data"))?;
        return edit_poly::apply(m, local, mesh, cx);
    }
    if m.class == edit_normals::EDIT_NORMALS {
        return edit_normals::apply(m, local, mesh, cx);
    }
    if m.class == sub_selection::POLY_SELECT {
        return edit_poly::apply_poly_select(m, mesh, cx);
    }
    if m.class == UNWRAP_UVW {
        let local = local.map_or(&[][..], Chunk::children);
        return unwrap::apply(local, cx.eval.chunks(m.object), mesh);
    }
    if m.class == cloth::CLOTH {
        return cloth::apply(m, local, mesh, cx);
    }
    if m.class == map_extender::MAP_EXTENDER {
        return map_extender::apply(local, mesh, cx);
    }
    if m.class == uvw_xform::UVW_XFORM || m.class == uvw_xform::UVW_XFORM2 {
        return uvw_xform::apply(m, mesh, cx);
    }
    if m.class == map_scaler::MAP_SCALER_WSM || m.class == map_scaler::MAP_SCALER_OSM {
        return map_scaler::apply(m, cx);
    }
    if m.class == vertex_tree_paint::VERTEX_TREE_PAINT {
        if m.mod_app.is_none() {
            return Err(EvalError::malformed("", "no ModApp (0x2500)"));
        }
        return vertex_tree_paint::apply(local, mesh, cx);
    }
    if m.class == crate::eval::modifier::skin::SKIN {
        return skin_deform::apply(m, mesh, cx);
    }
    if m.class == MORPHER {
        return morpher::apply(m, mesh, cx);
    }
    if m.class == skin::PHYSIQUE {
        return physique::deform::apply(m, mesh, cx);
    }
    if m.class == boolean_mod::BOOLEAN_MOD {
        return boolean_mod::apply(m, mesh, cx);
    }
    if m.class == conform::CONFORM {
        return conform::apply(m, mesh, cx);
    }
    if m.class == shell::SHELL {
        return shell::apply(m, mesh, cx);
    }
    if m.class == slice::SLICE {
        return slice::apply(m, mesh, cx);
    }
    if m.class == cap_holes::CAP_HOLES {
        return cap_holes::apply(m, mesh, cx);
    }
    if m.class == chamfer_mod::CHAMFER {
        return chamfer_mod::apply(m, mesh, cx);
    }
    if ffd::side(m.class).is_some() {
        return ffd::apply(m, mesh, cx);
    }
    if face_extrude::is_face_extrude(m.class) {
        return face_extrude::apply(m, mesh, cx);
    }
    if makes_mesh_of_shape(m.class) || m.class == bevel::BEVEL {
        return Err(EvalError::malformed("", "its input is a mesh, not a shape"));
    }
    if m.class == turbo_smooth::TURBO_SMOOTH {
        return turbo_smooth::apply(m, mesh, cx);
    }
    if m.class == mesh_smooth::MESH_SMOOTH {
        return mesh_smooth::apply(m, local, mesh, cx);
    }
    if m.class == surface::NORMAL {
        return surface::apply_normal(m, mesh, cx);
    }
    if m.class == surface::SMOOTH {
        return surface::apply_smooth(m, mesh, cx);
    }
    if m.class == surface::MATERIAL {
        return surface::apply_material(m, mesh, cx);
    }
    if m.class == relax::RELAX {
        return relax::apply(m, mesh, cx);
    }
    let gizmo_placed = match m.class {
        UVW_MAP => uvw_map::apply,
        MIRROR => mirror::apply,
        SYMMETRY => symmetry::apply,
        BEND => bend::apply,
        TAPER => taper::apply,
        TWIST => twist::apply,
        RIPPLE => ripple::apply,
        skew::SKEW => skew::apply,
        wave::WAVE => wave::apply,
        noise::NOISE => noise::apply,
        stretch::STRETCH => stretch::apply,
        squeeze::SQUEEZE => squeeze::apply,
        melt::MELT => melt::apply,
        spherify::SPHERIFY => spherify::apply,
        xform::XFORM => xform::apply,
        _ => return Err(m.error(None)),
    };
    gizmo_placed(m, mesh, cx)
}

/// Modifiers that turn a shape into a mesh (the bottom of a shape's stack).
pub fn makes_mesh_of_shape(class: ClassId) -> bool {
    class == extrude::EXTRUDE || class == lathe::LATHE
}

/// Whether a stack holding modifier `class` above a shape ends as a mesh:
/// the modifier builds one of the shape, or Max converts the shape for it.
/// A shape under deformers alone stays a shape (rendered as its tube).
pub fn meshes_a_shape(class: ClassId) -> bool {
    makes_mesh_of_shape(class)
        || class == sweep::SWEEP
        || class == bevel::BEVEL
        || class == bevel_profile::BEVEL_PROFILE
        || shape_input::takes_mesh(class)
}

/// The mesh of a shape's stack (`applied` top first, at least one modifier
/// that is not a point deformer): the point deformers at its bottom deform
/// the shape (`shape_deform`), the next modifier makes a mesh of the
/// deformed shape's polylines, the rest apply to that mesh.
pub fn apply_to_shape(
    applied: &[Applied],
    base: usize,
    shape: &crate::eval::objects::shape::ShapeEval,
    cx: &ModContext,
) -> Result<Mesh, EvalError> {
    let run = shape_deform::bottom_run(applied);
    let (above, deformers) = applied.split_at(applied.len() - run);
    let Some((bottom, rest)) = above.split_last() else {
        return Err(EvalError::reference(
            "",
            "a shape under point deformers alone is a shape, not a mesh",
        ));
    };
    let deformed;
    let shape = if deformers.is_empty() {
        shape
    } else {
        deformed = shape_deform::deformed(deformers, base, shape, cx)?;
        &deformed
    };
    let mut mesh = match bottom.class {
        c if c == extrude::EXTRUDE => extrude::apply_to_shape(bottom, &shape.polylines, cx),
        c if c == lathe::LATHE => lathe::apply_to_shape(bottom, &shape.polylines, cx),
        c if c == sweep::SWEEP => sweep::apply_to_shape(bottom, &shape.polylines, cx),
        c if c == bevel::BEVEL => bevel::apply_to_shape(bottom, &shape.polylines, cx),
        c if c == bevel_profile::BEVEL_PROFILE => bevel_profile::apply_to_shape(bottom, cx),
        // A mesh or poly modifier takes the shape converted to a mesh.
        c if shape_input::takes_mesh(c) => {
            let mut mesh = shape_input::input_mesh(shape).map_err(|e| bottom.error(Some(e)))?;
            apply_stack(above, &mut mesh, cx)?;
            return Ok(mesh);
        }
        _ => Err(EvalError::not_evaluated("acting on a shape")),
    }
    .map_err(|e| bottom.error(Some(e)))?;
    apply_stack(rest, &mut mesh, cx)?;
    Ok(mesh)
}

/// A u32 count and `size`-byte records, exactly.
pub(super) fn records<'a>(
    p: &'a [u8],
    size: usize,
    what: &str,
) -> Result<Vec<&'a [u8]>, EvalError> {
    if p.len() < 4 {
        return Err(EvalError::malformed(
            what.to_string(),
            format!("{} bytes", p.len()),
        ));
    }
    let n = Words(p).u32(0) as usize;
    if n > MAX_RECORDS || n * size != p.len() - 4 {
        return Err(EvalError::malformed(
            what.to_string(),
            format!("{n} records of {size} bytes in {}", p.len()),
        ));
    }
    Ok(p[4..].chunks_exact(size).collect())
}

pub(super) fn u32_at(r: &[u8], i: usize) -> u32 {
    Words(r).u32(i)
}

pub(super) fn vec_at(r: &[u8], i: usize) -> Vec3 {
    let w = Words(r);
    Vec3(w.f(i), w.f(i + 1), w.f(i + 2))
}

/// A bit array container (0x2700: u32 bit count, then the bits LSB first).
/// An empty chunk is an empty array: Max 2013's Edit Poly saves a selection
/// of no bits so (Academia2013's piment files, vertex selection 0x0200).
pub(super) fn bits(c: &Chunk) -> Result<Vec<bool>, EvalError> {
    if c.children().is_empty() && c.payload().is_none_or(<[u8]>::is_empty) {
        return Ok(Vec::new());
    }
    let p = c
        .children()
        .iter()
        .find(|x| x.id == 0x2700)
        .and_then(Chunk::payload)
        .ok_or_else(|| EvalError::malformed("", "bit array without 0x2700"))?;
    if p.len() < 4 {
        return Err(EvalError::malformed("", "short bit array"));
    }
    let n = Words(p).u32(0) as usize;
    if n.div_ceil(8) > p.len() - 4 {
        return Err(EvalError::malformed(
            "",
            format!("bit array of {n} bits in {} bytes", p.len()),
        ));
    }
    Ok((0..n).map(|i| p[4 + i / 8] >> (i % 8) & 1 != 0).collect())
}

/// The chunks of a modifier's local data (0x2512): its children, or, when
/// the plug-in's data was saved without the container flag, its payload read
/// as a chunk stream (Map Extender's caches come in both forms).
pub(super) fn local_chunks(local: &Chunk) -> Result<std::borrow::Cow<'_, [Chunk]>, EvalError> {
    match local.payload() {
        None => Ok(std::borrow::Cow::Borrowed(local.children())),
        Some(p) => crate::chunk::parse(p)
            .map(std::borrow::Cow::Owned)
            .map_err(|e| EvalError::malformed("local data (0x2512)", e.to_string())),
    }
}

pub(super) fn payload(c: &Chunk) -> Result<&[u8], EvalError> {
    c.payload()
        .ok_or_else(|| EvalError::malformed("", format!("chunk {:#06x} is a container", c.id)))
}

#[cfg(test)]
mod bits_tests {
    use super::*;

    #[test]
    fn an_empty_selection_chunk_is_an_empty_bit_array() {
        assert_eq!(
            bits(&Chunk::leaf(0x0200, Vec::new())).unwrap(),
            Vec::<bool>::new()
        );
        assert_eq!(
            bits(&Chunk::container(0x0200, Vec::new())).unwrap(),
            Vec::<bool>::new()
        );
        let mut p = 3u32.to_le_bytes().to_vec();
        p.push(0b101);
        let c = Chunk::container(0x0200, vec![Chunk::leaf(0x2700, p)]);
        assert_eq!(bits(&c).unwrap(), vec![true, false, true]);
        // Bytes without the bit array inside are damaged, not empty.
        assert!(bits(&Chunk::leaf(0x0200, vec![1, 2, 3, 4])).is_err());
        let other = Chunk::container(0x0200, vec![Chunk::leaf(0x2710, vec![0; 8])]);
        assert!(bits(&other).is_err());
    }
}
