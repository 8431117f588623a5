//! The Boolean compound object (class "Boolean", (0x51db4f2f, 0x1c596b1a)):
//! two operand objects combined by mesh CSG.
//!
//! Layout, from the corpus (street.max, road_flag.max): reference 0 = operand A,
//! 1 = operand B (any object: a primitive, a derived object with its modifier
//! stack, another Boolean), 2 and 3 = the PRS controllers placing A and B in the
//! Boolean's object space, 4 = an old ParamBlock whose parameter 0 is the
//! operation: 0 union, 1 intersection, 2 A − B, 3 B − A (checked against the
//! reference NeL exports). Chunk 0x0100 (0x0c in every corpus Boolean, whatever
//! the operation) and 0x0140/0x0142/0x0144 are display/update flags; 0x0110 and
//! 0x0120 are the operand names; 0x0130/0x03E8 is a near-identity matrix (float
//! noise) that plays no part in the result.
//!
//! The result keeps only its corners and the operands' own vertices, as
//! Max's does (`corners`); Max still triangulates it its own way, so vertex
//! and face indices differ and index-based modifiers above a Boolean cannot
//! be applied ([`refuse_index_edits`]).

use crate::eval::error::EvalError;
use std::cell::Cell;
use std::collections::HashMap;

use crate::typed::ClassId;

use crate::eval::core::controller::Controller;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock::{self, Value};
use crate::eval::modifier::{self, Applied};
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};
use crate::eval::SceneEval;

pub const BOOLEAN: ClassId = ClassId(0x51db4f2f, 0x1c596b1a);

/// Nesting deeper than this is treated as a reference cycle in damaged data.
pub(super) const MAX_DEPTH: usize = 32;
/// Booleans one evaluation may compute (operands shared by reference would
/// otherwise make damaged files exponential).
pub(super) const MAX_BOOLEANS: usize = 256;
/// Faces an operand may bring in.
pub(super) const MAX_INPUT_FACES: usize = 100_000;
/// Polygons the splitting may create in one Boolean before giving up.
pub(super) const MAX_POLYGONS: usize = 1_000_000;
/// Vertex-against-plane tests of one evaluation's splitting and BSP node
/// visits of its clipping, nested Booleans included (about a second each 10⁸).
pub(super) const MAX_WORK: u64 = 200_000_000;
/// Vertex-against-edge tests of the T-junction repair of one evaluation,
/// nested Booleans included, before giving up.
pub(super) const MAX_EDGE_TESTS: u64 = 200_000_000;
/// Corners one split polygon may collect (triangulating it is cubic in them).
pub(super) const MAX_RING: usize = 1024;
/// Map channels carried (0 = colour, 1..99 texture).
pub(super) const MAX_CHANNEL: i32 = 99;
/// Distances below this fraction of the operands' size count as zero.
pub(super) const REL_EPS: f64 = 1e-5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Union,
    Intersection,
    AMinusB,
    BMinusA,
}

/// The operation of a Boolean object (its parameter block, reference 4).
pub fn operation(eval: &SceneEval, obj: usize) -> Result<Op, EvalError> {
    let pb = pblock::reference(&eval.graph, obj, 4)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 4)"))?;
    let params = pblock::param_block(eval.chunks(pb))?;
    let op = params
        .iter()
        .find(|p| p.index == 0)
        .ok_or_else(|| EvalError::malformed("", "no operation parameter"))?;
    match op.value {
        Value::Int(0) => Ok(Op::Union),
        Value::Int(1) => Ok(Op::Intersection),
        Value::Int(2) => Ok(Op::AMinusB),
        Value::Int(3) => Ok(Op::BMinusA),
        ref v => Err(EvalError::not_evaluated(format!("operation {v:?}"))),
    }
}

/// Work counters shared by one evaluation and its nested Booleans (both
/// start at 0).
#[derive(Default)]
pub(super) struct Budget {
    pub(super) booleans: Cell<usize>,
    /// Vertex-plane tests of all the splitting.
    pub(super) work: Cell<u64>,
    /// Vertex-edge tests of all the T-junction repairs.
    pub(super) edge_tests: Cell<u64>,
}

impl Budget {
    /// Counts one more Boolean at nesting `depth`, refusing one nested too
    /// deep or past the most one object may hold: either Boolean class
    /// enters here before it evaluates its operands.
    fn enter(&self, depth: usize) -> Result<(), EvalError> {
        if depth > MAX_DEPTH {
            return Err(EvalError::limit("Boolean nesting depth", MAX_DEPTH));
        }
        if self.booleans.get() >= MAX_BOOLEANS {
            return Err(EvalError::limit("Booleans in one object", MAX_BOOLEANS));
        }
        self.booleans.set(self.booleans.get() + 1);
        Ok(())
    }
}

/// Whether `class` is a Boolean compound this module evaluates: the old
/// Boolean, the Max 2017+ Boolean and ProBoolean.
pub fn is_compound(class: ClassId) -> bool {
    class == BOOLEAN || class == BOOLEAN3 || class == PRO_BOOLEAN
}

/// Whether `class` is a Boolean whose result this evaluation computes by its
/// own CSG (other triangles than Max's: index edits above it are refused).
/// ProBoolean is not: its result is the mesh Max stored.
pub fn is_recomputed(class: ClassId) -> bool {
    class == BOOLEAN || class == BOOLEAN3
}

/// The mesh of Boolean compound `obj` (any class of [`is_compound`]) at time
/// `t`, in its object space.
pub fn eval(se: &SceneEval, obj: usize, t: i32) -> Result<Mesh, EvalError> {
    eval_any(se, obj, t, 0, &Budget::default())
}

/// `a` combined with `b` (both in one space) by `op`, through this module's
/// CSG: what the Boolean modifier of Max 2024+ reuses.
pub fn combine(a: &Mesh, b: &Mesh, op: Op) -> Result<Mesh, EvalError> {
    csg(a, b, op, &Budget::default())
}

/// The mesh of object `obj` (a derived object with its modifier stack, or a
/// base object, Boolean compounds included) at `t`, in its own object space:
/// a Boolean modifier's captured operand.
pub fn object_mesh_with_stack(se: &SceneEval, obj: usize, t: i32) -> Result<Mesh, EvalError> {
    operand_mesh(se, obj, t, 0, &Budget::default())
}

/// Moves `m` by `tm`, turning its faces round when `tm` mirrors.
pub fn place(m: &mut Mesh, tm: &Mat43) {
    transform(m, tm);
}

/// Dispatches on the compound's class (operands may nest any of them).
fn eval_any(
    se: &SceneEval,
    obj: usize,
    t: i32,
    depth: usize,
    b: &Budget,
) -> Result<Mesh, EvalError> {
    let class = se.graph.class_id(obj);
    match class {
        Some(c) if c == PRO_BOOLEAN => pro_boolean::eval(se, obj),
        Some(c) if c == BOOLEAN3 => {
            b.enter(depth)?;
            boolean3::eval_at(se, obj, t, depth, b)
        }
        _ => eval_at(se, obj, t, depth, b),
    }
}

pub(super) fn eval_at(
    se: &SceneEval,
    obj: usize,
    t: i32,
    depth: usize,
    b: &Budget,
) -> Result<Mesh, EvalError> {
    b.enter(depth)?;
    let op = operation(se, obj)?;
    let mut meshes = Vec::with_capacity(2);
    for k in 0..2 {
        let which = ["A", "B"][k];
        // An empty operand slot is a Boolean whose second operand was never
        // picked (or was deleted): a state Max saves, not damage. Max shows
        // operand A alone then (docs/evaluation.md: the Mesh Totals of the
        // puzzle files), which is A ∪ ∅ and A − ∅; what it shows for the
        // other operations is not pinned by any file, so they are refused.
        let Some(operand) = pblock::reference(&se.graph, obj, k as u32) else {
            if k == 1 && matches!(op, Op::Union | Op::AMinusB) {
                return Ok(meshes.pop().unwrap_or_default());
            }
            return Err(EvalError::not_evaluated_why(
                format!("a Boolean without operand {which} ({op:?})"),
                format!("reference {k} is empty"),
            ));
        };
        let mut m = operand_mesh(se, operand, t, depth, b)
            .map_err(|e| e.inside(format!("Boolean operand {which}")))?;
        let tm = pblock::reference(&se.graph, obj, 2 + k as u32)
            .map_or(Ok(Mat43::IDENTITY), |c| prs(se, c, t))
            .map_err(|e| e.inside(format!("Boolean operand {which} transform")))?;
        transform(&mut m, &tm);
        meshes.push(m);
    }
    let b_mesh = meshes.pop().unwrap_or_default();
    let a_mesh = meshes.pop().unwrap_or_default();
    csg(&a_mesh, &b_mesh, op, b)
}

/// A PRS controller's matrix at `t`.
pub(super) fn prs(se: &SceneEval, ctl: usize, t: i32) -> Result<Mat43, EvalError> {
    match se.controller(ctl) {
        Some(Controller::Prs {
            position,
            rotation,
            scale,
        }) => Ok(se
            .scale_tm(*scale, t)
            .then(&se.rotation_at(*rotation, t))
            .then(&Mat43::translation(se.position_at(*position, t)))),
        _ => Err(EvalError::reference(
            "",
            format!("object {ctl} is not a PRS controller"),
        )),
    }
}

pub(super) fn transform(m: &mut Mesh, tm: &Mat43) {
    for v in &mut m.vertices {
        *v = tm.transform_point(*v);
    }
    if tm.determinant3() < 0.0 {
        // A mirroring placement turns the faces inside out; keep them facing out.
        for f in &mut m.faces {
            f.v.swap(1, 2);
        }
        for map in &mut m.maps {
            for f in &mut map.faces {
                f.swap(1, 2);
            }
        }
    }
}

/// An operand: its base object (nested Booleans recursively) with its modifier
/// stack applied.
pub(super) fn operand_mesh(
    se: &SceneEval,
    obj: usize,
    t: i32,
    depth: usize,
    b: &Budget,
) -> Result<Mesh, EvalError> {
    let (stack, base) = se
        .object_stack(obj)
        .ok_or_else(|| EvalError::malformed("", "the operand's modifier stack is damaged"))?;
    let class = se.graph.class(base);
    let name = class.map_or("?", |c| c.name.as_str());
    let is_bool = class.is_some_and(|c| is_compound(c.class_id));
    let recomputed = class.is_some_and(|c| is_recomputed(c.class_id));
    let cx = modifier::ModContext {
        eval: se,
        node: None,
        t,
        max_order: !recomputed,
        stand_ins: true,
        object: Some(obj),
    };
    if !is_bool && crate::eval::objects::shape::is_shape_object(se, base) {
        return shape_operand(&stack, base, name, &cx);
    }
    let mut m = if is_bool {
        eval_any(se, base, t, depth + 1, b)?
    } else {
        se.object_mesh(base, t)
            .unwrap_or_else(|| Err(EvalError::not_evaluated(format!("object class {name}"))))?
    };
    refuse_index_edits(&stack, recomputed)?;
    modifier::apply_stack_from(&stack, base, &mut m, &cx)?;
    Ok(m)
}

/// An operand whose base is a shape (class `name`): the mesh its stack
/// makes of it (Extrude, Lathe, Sweep, or the shape converted for a mesh
/// modifier), as a node's stack does. A bare (or only deformed) shape's
/// conversion as an operand is not pinned by any file, so it is refused by
/// name.
fn shape_operand(
    stack: &[Applied],
    base: usize,
    name: &str,
    cx: &modifier::ModContext,
) -> Result<Mesh, EvalError> {
    // Point deformers alone leave it a shape (`shape_deform`).
    if modifier::shape_deform::bottom_run(stack) == stack.len() {
        return Err(EvalError::not_evaluated_why(
            format!("a bare shape ({name}) as an operand"),
            "which mesh Max converts it to is not pinned by any file",
        ));
    }
    let shape = crate::eval::objects::shape::eval_shape(cx.eval, base, cx.t)
        .map_err(|e| EvalError::from(e).inside(format!("shape {name}")))?;
    modifier::apply_to_shape(stack, base, &shape, cx)
}

/// Edit Mesh addresses vertices and faces by index; above a Boolean those are
/// indices of Max's triangulation of the result, which ours does not
/// reproduce, so applying it would silently edit the wrong elements. (Unwrap
/// UVW is not refused: it checks every stored polygon against the geometry
/// vertices of the faces it covers and, where they differ, fails as a
/// texture-coordinate modifier, keeping the geometry.)
pub fn refuse_index_edits(stack: &[Applied], base_is_boolean: bool) -> Result<(), EvalError> {
    if !base_is_boolean {
        return Ok(());
    }
    for m in stack.iter().rev() {
        if m.class == modifier::EDIT_MESH {
            let counts = delta_counts(m)
                .map(|(v, f)| format!(" (made for {v} vertices, {f} faces)"))
                .unwrap_or_default();
            return Err(EvalError::malformed(
                format!(
                    "modifier {} ({:#x}, {:#x}) on a Boolean",
                    m.name, m.class.0, m.class.1
                ),
                format!(
                    "it edits vertices and faces by \
                 index in Max's triangulation of the Boolean result{counts}, which this \
                 evaluation does not reproduce (same surface, other triangles)"
                ),
            ));
        }
    }
    Ok(())
}

/// The input vertex and face counts an Edit Mesh delta was made for.
pub(super) fn delta_counts(m: &Applied) -> Option<(u32, u32)> {
    let delta = m
        .mod_app?
        .children()
        .iter()
        .find(|c| c.id == 0x2512)?
        .children()
        .iter()
        .find(|c| c.id == 0x4000)?;
    let count = |id: u16| {
        let p = delta.children().iter().find(|c| c.id == id)?.payload()?;
        Some(u32::from_le_bytes(p.get(..4)?.try_into().ok()?))
    };
    Some((count(0x0100)?, count(0x0110)?))
}

// ---------------------------------------------------------------------------
// CSG on polygons through BSP trees (the classic clip-to scheme): each operand's
// polygons are clipped against the other's tree; coplanar faces are kept on the
// side their normal points to, so shared faces survive once.

mod assemble;
mod boolean3;
mod bsp;
mod corners;
mod pro_boolean;
#[cfg(test)]
mod tests;

use assemble::*;
pub use boolean3::{material_ids_gap, operands as boolean3_operands, BOOLEAN3};
use bsp::*;
pub use pro_boolean::{as_poly as pro_boolean_poly, PRO_BOOLEAN};
