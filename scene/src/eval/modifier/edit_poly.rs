//! Edit Poly: the modifier keeps no mesh. Its local data (0x2512) holds the
//! selections it last saw and the list of committed operations, which Max
//! replays on the polygon form (MNMesh) of the modifier's input each time:
//!
//! - 0x0200 / 0x0210 / 0x0220 vertex / edge / face selection, 0x0224 / 0x0228
//!   hidden vertices / faces (bit arrays sized to the output mesh), 0x0240 paint
//!   host data;
//! - per operation, in order: 0x0230 operation id (u32, Max's `epolyModButtonOp`),
//!   0x0234 the operation (0x0600: 0x0400 the selection it acts on, one 0x0410
//!   per parameter = u32 parameter id + value, 0x0420 transform, 0x0430 mod
//!   context TM, 0x0440 map preservation), and 0x0238 its local data (for a
//!   transform: 0x12c3 vertex count, 0x12c4 one offset per vertex, 0x12c5 the
//!   node name);
//! - 0x0260 / 0x0268: an operation in progress and its data.
//!
//! Max 2024 and later add two records to each operation's basics, 0x0450 and
//! 0x0470, whose meaning is not known; only the values seen on real files (4 or
//! 6, and 2) are accepted. An Attach's local data holds the attached object's
//! polygon mesh (0x0e00, the MNMesh buffers of an Editable Poly) with three
//! words around it (0x0e04, 0x0e08, 0x0e0c), accepted only as seen (1, 0, 0).
//!
//! Operations evaluated: Transform, Set Material ID, Delete Face, Attach, Weld
//! Vertex, Detach Face when the next operation deletes the same faces, and Split
//! Edges and Tessellate when their selection leaves nothing to do. Any other
//! operation is an error naming it. The input is rebuilt as polygons from a
//! primitive, an Editable Poly, or the Edit Poly below (replayed the same way).

use crate::chunk::Chunk;

use super::edit_poly_extrude as extrude;
use super::edit_poly_smooth as smooth;
use super::edit_poly_topo as topo;
use super::{bits, payload, Applied, ModContext};
use crate::eval::core::keys::Words;
use crate::eval::core::math::Vec3;
use crate::eval::core::pblock;
use crate::eval::objects::mesh::{self, Mesh};
use crate::eval::objects::poly::PolyMesh;
use crate::eval::objects::primitive;
use crate::eval::objects::primitive_poly;

/// Operation ids (the `epolyModButtonOp` enumeration).
const OP_DELETE_FACE: u32 = 11;
const OP_DETACH_FACE: u32 = 13;
const OP_SPLIT: u32 = 14;
const OP_WELD_VERTEX: u32 = 22;
const OP_ATTACH: u32 = 58;
const OP_TESSELLATE: u32 = 28;
const OP_TRANSFORM: u32 = 53;
const OP_SET_MATERIAL: u32 = 70;
const OP_INSET: u32 = 38;
const OP_AUTOSMOOTH: u32 = 68;
const OP_SMOOTH: u32 = 69;
const OP_EXTRUDE_FACE: u32 = 41;
/// Max 2017+ records a Shift-move of faces as this extrusion (zero height, its
/// type in record 0x0601), the move as a Transform, then operation 92, which
/// changes nothing (its selection is sized to the extruded mesh).
const OP_MOVE_EXTRUDE: u32 = 91;
const OP_MOVE_EXTRUDE_END: u32 = 92;

/// Parameter ids (the `epolyModParameters` enumeration).
const PARAM_CURRENT_OPERATION: u16 = 12;
const PARAM_CONSTRAIN_TYPE: u32 = 14;
const PARAM_DELETE_ISOLATED: u32 = 26;
const PARAM_WELD_THRESHOLD: u32 = 27;
const PARAM_MATERIAL: u32 = 58;
const PARAM_EXTRUDE_FACE_TYPE: u32 = 36;
const PARAM_AUTOSMOOTH_THRESHOLD: u32 = 55;
const PARAM_SMOOTH_SET: u32 = 56;
const PARAM_SMOOTH_CLEAR: u32 = 57;
const PARAM_EXTRUDE_FACE_HEIGHT: u32 = 37;
const PARAM_INSET_TYPE: u32 = 41;
const PARAM_INSET: u32 = 42;
/// A Max 2016+ Extrude Face parameter of unknown meaning; only 1 is seen.
const PARAM_EXTRUDE_FACE_UNKNOWN: u32 = 120;
const PARAM_PRESERVE_MAPS: u32 = 71;

/// Names of the operation ids, for errors.
const OP_NAMES: [&str; 84] = [
    "Null",
    "Hide Vertex",
    "Hide Face",
    "Unhide Vertex",
    "Unhide Face",
    "Hide Unselected Vertex",
    "Hide Unselected Face",
    "Named Selection Copy",
    "Named Selection Paste",
    "Cap",
    "Delete Vertex",
    "Delete Face",
    "Detach Vertex",
    "Detach Face",
    "Split Edges",
    "Break",
    "Collapse Vertex",
    "Collapse Edge",
    "Collapse Face",
    "Reset Plane",
    "Slice",
    "Slice Face",
    "Weld Vertex",
    "Weld Edge",
    "Create Shape",
    "Make Planar",
    "Remove Isolated Vertices",
    "MeshSmooth",
    "Tessellate",
    "Retriangulate",
    "Flip Face",
    "Flip Element",
    "Bevel",
    "Chamfer Vertex",
    "Chamfer Edge",
    "Cut",
    "Grow Selection",
    "Shrink Selection",
    "Inset",
    "Extrude Vertex",
    "Extrude Edge",
    "Extrude Face",
    "Extrude Along Spline",
    "Connect Edge",
    "Connect Vertex",
    "Hinge From Edge",
    "Select Ring",
    "Select Loop",
    "Remove Isolated Map Vertices",
    "Remove Vertex",
    "Remove Edge",
    "Outline",
    "Toggle Shaded Faces",
    "Transform",
    "Delete Edge",
    "Unused",
    "Create",
    "Align",
    "Attach",
    "Target Weld Vertex",
    "Target Weld Edge",
    "Edit Triangulation",
    "Create Edge",
    "Clone Vertex",
    "Clone Edge",
    "Clone Face",
    "Insert Vertex Edge",
    "Insert Vertex Face",
    "Autosmooth",
    "Smooth",
    "Set Material",
    "Select By Smooth",
    "Select By Material",
    "Get Stack Selection",
    "Bridge Border",
    "Bridge Polygon",
    "Make Planar X",
    "Make Planar Y",
    "Make Planar Z",
    "Turn Edge",
    "Relax",
    "Paint Deform",
    "Bridge Edge",
    "Preserve UV Settings",
];

/// Transform offsets decoded at most (a damaged count must not allocate much).
const MAX_OFFSETS: usize = 1 << 22;

fn op_name(id: u32) -> String {
    let name = match id {
        OP_MOVE_EXTRUDE => "Extrude Face by Move",
        OP_MOVE_EXTRUDE_END => "Extrude Face by Move end",
        _ => OP_NAMES.get(id as usize).copied().unwrap_or("unknown"),
    };
    format!("operation {name} ({id})")
}

/// One committed operation as stored.
#[derive(Debug, Default)]
struct Operation {
    id: u32,
    selection: Vec<bool>,
    /// (parameter id, value bytes).
    params: Vec<(u32, Vec<u8>)>,
    /// Transform offsets per vertex (local data 0x12c4).
    offsets: Vec<Vec3>,
    /// The attached polygon mesh (Attach local data 0x0e00).
    attached: Option<PolyMesh>,
    /// Records of the operation beside its basics (0x0601, 0x0602, …).
    extra: Vec<(u16, Vec<u8>)>,
}

impl Operation {
    fn int_param(&self, id: u32) -> Result<Option<i32>, String> {
        match self.params.iter().find(|(p, _)| *p == id) {
            None => Ok(None),
            Some((_, v)) if v.len() == 4 => Ok(Some(Words(v).i32(0))),
            Some((_, v)) => Err(format!("parameter {id}: {} bytes", v.len())),
        }
    }

    fn float_param(&self, id: u32) -> Result<Option<f64>, String> {
        match self.params.iter().find(|(p, _)| *p == id) {
            None => Ok(None),
            Some((_, v)) if v.len() == 4 => Ok(Some(Words(v).f(0))),
            Some((_, v)) => Err(format!("parameter {id}: {} bytes", v.len())),
        }
    }

    /// A u32 record beside the basics.
    fn extra_u32(&self, id: u16) -> Result<Option<u32>, String> {
        match self.extra.iter().find(|(x, _)| *x == id) {
            None => Ok(None),
            Some((_, v)) if v.len() == 4 => Ok(Some(Words(v).u32(0))),
            Some((_, v)) => Err(format!("record {id:#06x}: {} bytes", v.len())),
        }
    }

    fn selected(&self, i: usize) -> bool {
        self.selection.get(i).copied().unwrap_or(false)
    }
}

/// Applies an Edit Poly: rebuilds the polygon form of its input, replays the
/// operations, checks the result against the selection sizes the modifier saved
/// and triangulates it as Max does.
pub(super) fn apply(
    m: &Applied,
    _local: &Chunk,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), String> {
    let node = cx
        .node
        .ok_or("Edit Poly on a compound object's operand is not evaluated")?;
    let (stack, base) = cx
        .eval
        .modifier_stack(node)
        .ok_or("the node has no modifier stack")?;
    let at = stack
        .iter()
        .position(|a| a.object == m.object)
        .ok_or("the modifier is not on the node's stack")?;
    let poly = output(&stack, at, base, cx)?;
    let _ = std::mem::replace(mesh, poly.to_mesh()?);
    Ok(())
}

/// The polygon mesh the Edit Poly at `at` in `node`'s modifier stack (0 = top)
/// outputs at time `t`, before anything above it: what tests compare with the
/// geometry a modifier above cached of its input.
pub fn polygon_output(
    eval: &crate::eval::SceneEval,
    node: usize,
    at: usize,
    t: i32,
) -> Result<PolyMesh, String> {
    let (stack, base) = eval
        .modifier_stack(node)
        .ok_or("the node has no modifier stack")?;
    match stack.get(at) {
        Some(m) if m.class == super::EDIT_POLY => {}
        _ => return Err(format!("modifier {at} is not an Edit Poly")),
    }
    let cx = ModContext {
        eval,
        node: Some(node),
        t,
    };
    output(&stack, at, base, &cx)
}

/// The polygon mesh the Edit Poly at `stack[at]` outputs.
fn output(stack: &[Applied], at: usize, base: usize, cx: &ModContext) -> Result<PolyMesh, String> {
    let m = &stack[at];
    let local = m
        .mod_app
        .and_then(|a| a.children().iter().find(|c| c.id == super::LOCAL_DATA))
        .ok_or("no local data")?;
    let ops = operations(local.children())?;
    for c in cx.eval.chunks(m.object) {
        // Point controllers of animation mode (0x0130/0x0138) and their nodes.
        if matches!(c.id, 0x0130 | 0x0138 | 0x0140 | 0x0148) {
            return Err("animated vertices (animation mode) are not evaluated".into());
        }
    }
    if let Some(pb) = pblock::reference(&cx.eval.graph, m.object, 0) {
        let block = pblock::param_block2(cx.eval.chunks(pb))?;
        if let Some(p) = block.param(PARAM_CURRENT_OPERATION) {
            if let pblock::Value::Int(op) = p.value {
                if op != 0 {
                    return Err(format!(
                        "{} in progress (not committed) is not evaluated",
                        op_name(op as u32)
                    ));
                }
            }
        }
    }
    if let Some(op) = ops.iter().find(|o| !is_evaluated(o.id)) {
        return Err(format!("{} is not evaluated", op_name(op.id)));
    }
    let mut poly = below(stack, at + 1, base, cx)?;
    for (i, op) in ops.iter().enumerate() {
        let next = ops.get(i + 1);
        replay(op, next, &mut poly).map_err(|e| format!("{}: {e}", op_name(op.id)))?;
    }
    check_saved_sizes(local.children(), &poly)?;
    Ok(poly)
}

/// The polygon mesh that reaches `stack[at]` from below: the base object's
/// polygon form, an Edit Poly's output, or either through Unwrap UVW (which
/// keeps the polygons and replaces map channel 1 with its own).
fn below(stack: &[Applied], at: usize, base: usize, cx: &ModContext) -> Result<PolyMesh, String> {
    match stack.get(at) {
        None => input(base, cx),
        Some(m) if m.class == super::EDIT_POLY => {
            output(stack, at, base, cx).map_err(|e| format!("the Edit Poly below: {e}"))
        }
        Some(m) if m.class == super::UNWRAP_UVW => {
            let mut poly = below(stack, at + 1, base, cx)?;
            let local = m
                .mod_app
                .and_then(|a| a.children().iter().find(|c| c.id == super::LOCAL_DATA))
                .ok_or("the Unwrap UVW below has no local data")?;
            super::unwrap::apply_poly(local.children(), &mut poly)
                .map_err(|e| format!("the Unwrap UVW below: {e}"))?;
            Ok(poly)
        }
        Some(m) => Err(format!(
            "Edit Poly above {} is not evaluated (it needs its input as polygons)",
            m.name
        )),
    }
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
            | OP_EXTRUDE_FACE
            | OP_MOVE_EXTRUDE
            | OP_MOVE_EXTRUDE_END
            | OP_AUTOSMOOTH
            | OP_SMOOTH
    )
}

/// The polygon form of a stack's base object: a primitive with a polygon
/// builder, or an Editable Poly.
fn input(base: usize, cx: &ModContext) -> Result<PolyMesh, String> {
    let class = cx
        .eval
        .graph
        .objects
        .get(base)
        .and_then(|o| o.class.as_ref())
        .ok_or("base object without a class")?;
    if class.class_id == mesh::EDITABLE_POLY {
        let geom = mesh::geom_buffers(cx.eval.chunks(base))?;
        return mesh::mnmesh(geom).map_err(|e| format!("{}: {e}", class.name));
    }
    if !primitive::is_primitive(class.class_id) {
        return Err(format!(
            "Edit Poly on a {} is not evaluated (its polygon form is not built)",
            class.name
        ));
    }
    let p = primitive::params(cx.eval, base, cx.t)?;
    primitive_poly::build(class.class_id, &p, cx.eval.chunks(base))
        .map_err(|e| format!("{}: {e}", class.name))
}

/// The committed operations, in order.
fn operations(local: &[Chunk]) -> Result<Vec<Operation>, String> {
    let mut ops: Vec<Operation> = Vec::new();
    for c in local {
        match c.id {
            0x0230 => {
                let p = payload(c)?;
                if p.len() != 4 {
                    return Err(format!("operation id of {} bytes", p.len()));
                }
                ops.push(Operation {
                    id: Words(p).u32(0),
                    ..Operation::default()
                });
            }
            0x0234 => {
                let op = ops.last_mut().ok_or("operation record before its id")?;
                for x in c.children().iter().filter(|x| x.id != 0x0600) {
                    op.extra.push((x.id, payload(x)?.to_vec()));
                }
                let basics = c
                    .children()
                    .iter()
                    .find(|x| x.id == 0x0600)
                    .ok_or("operation without its basics (0x0600)")?;
                for b in basics.children() {
                    match b.id {
                        0x0400 => {
                            // An empty selection is saved as an empty chunk.
                            if b.payload().is_none_or(|p| !p.is_empty()) {
                                op.selection = bits(b)?;
                            }
                        }
                        0x0410 => {
                            let p = payload(b)?;
                            if p.len() < 4 {
                                return Err("short parameter record".into());
                            }
                            op.params.push((Words(p).u32(0), p[4..].to_vec()));
                        }
                        // Map preservation settings: only used when preserve maps is on.
                        0x0440 => {}
                        // Max 2024+ records of unknown meaning: the values seen only.
                        0x0450 | 0x0470 => {
                            let p = payload(b)?;
                            let v = (p.len() == 4).then(|| Words(p).u32(0));
                            let seen = match b.id {
                                0x0450 => matches!(v, Some(4 | 6)),
                                _ => v == Some(2),
                            };
                            if !seen {
                                return Err(format!(
                                    "{}: record {:#06x} = {p:02x?} is not evaluated",
                                    op_name(op.id),
                                    b.id
                                ));
                            }
                        }
                        other => {
                            return Err(format!(
                                "{}: record {other:#06x} is not evaluated",
                                op_name(op.id)
                            ))
                        }
                    }
                }
            }
            0x0238 => {
                let op = ops.last_mut().ok_or("operation data before its id")?;
                if op.id == OP_TRANSFORM {
                    op.offsets = offsets(c.children())?;
                } else if op.id == OP_ATTACH {
                    op.attached = Some(attached(c.children())?);
                } else if !c.children().is_empty() || c.payload().is_some_and(|p| !p.is_empty()) {
                    return Err(format!("{}: local data is not evaluated", op_name(op.id)));
                }
            }
            0x0260 | 0x0268 => return Err("an operation in progress is not evaluated".into()),
            _ => {}
        }
    }
    Ok(ops)
}

/// Attach local data: the attached object's polygon mesh (0x0e00) between
/// three words only accepted as seen on real files.
fn attached(data: &[Chunk]) -> Result<PolyMesh, String> {
    let mut mesh = None;
    for c in data {
        match c.id {
            0x0e00 => mesh = Some(mesh::mnmesh(c.children())?),
            0x0e04 | 0x0e08 | 0x0e0c => {
                let p = payload(c)?;
                let want = u32::from(c.id == 0x0e04);
                if p.len() != 4 || Words(p).u32(0) != want {
                    return Err(format!(
                        "attach record {:#06x} = {p:02x?} is not evaluated",
                        c.id
                    ));
                }
            }
            other => return Err(format!("attach record {other:#06x} is not evaluated")),
        }
    }
    mesh.ok_or_else(|| "attach without its mesh (0x0e00)".to_string())
}

/// Transform local data: count (0x12c3) and that many Point3 offsets (0x12c4).
fn offsets(data: &[Chunk]) -> Result<Vec<Vec3>, String> {
    let count = match data.iter().find(|c| c.id == 0x12c3) {
        None => return Ok(Vec::new()),
        Some(c) => {
            let p = payload(c)?;
            if p.len() != 4 {
                return Err("transform offset count".into());
            }
            Words(p).u32(0) as usize
        }
    };
    if count > MAX_OFFSETS {
        return Err(format!("{count} transform offsets"));
    }
    let p = data
        .iter()
        .find(|c| c.id == 0x12c4)
        .map(payload)
        .transpose()?
        .unwrap_or(&[]);
    if p.len() != count * 12 {
        return Err(format!("{count} transform offsets in {} bytes", p.len()));
    }
    let w = Words(p);
    Ok((0..count)
        .map(|i| Vec3(w.f(3 * i), w.f(3 * i + 1), w.f(3 * i + 2)))
        .collect())
}

fn replay(op: &Operation, next: Option<&Operation>, poly: &mut PolyMesh) -> Result<(), String> {
    match op.id {
        OP_DELETE_FACE => {
            let isolated = op.int_param(PARAM_DELETE_ISOLATED)?.unwrap_or(1) != 0;
            topo::delete_faces(poly, &op.selection, isolated)?;
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
                return Err("detaching faces that stay in the mesh is not evaluated".into());
            }
        }
        OP_WELD_VERTEX => {
            let threshold = op
                .float_param(PARAM_WELD_THRESHOLD)?
                .ok_or("no weld threshold parameter")?;
            topo::weld(poly, &op.selection, threshold)?;
        }
        OP_ATTACH => {
            let other = op.attached.clone().ok_or("no attached mesh")?;
            topo::attach(poly, other)?;
        }
        OP_TRANSFORM => {
            if op.int_param(PARAM_CONSTRAIN_TYPE)?.unwrap_or(0) != 0 {
                return Err("constrained moves are not evaluated".into());
            }
            if op.int_param(PARAM_PRESERVE_MAPS)?.unwrap_or(0) != 0 && !poly.maps.is_empty() {
                return Err("moves preserving the mapping are not evaluated".into());
            }
            for (v, d) in poly.vertices.iter_mut().zip(&op.offsets) {
                *v = v.plus(*d);
            }
        }
        OP_SET_MATERIAL => {
            let id = op
                .int_param(PARAM_MATERIAL)?
                .ok_or("no material id parameter")?;
            let id = u16::try_from(id).map_err(|_| format!("material id {id}"))?;
            for (i, f) in poly.faces.iter_mut().enumerate() {
                if op.selected(i) {
                    f.material = id;
                }
            }
        }
        OP_TESSELLATE => {
            // Tessellate acts on the faces its selection flags; none here.
            if (0..poly.faces.len()).any(|i| op.selected(i)) {
                return Err("tessellating faces is not evaluated".into());
            }
        }
        OP_INSET => {
            if op.int_param(PARAM_INSET_TYPE)?.unwrap_or(0) != 0 {
                return Err("inset by polygon is not evaluated".into());
            }
            let amount = op.float_param(PARAM_INSET)?.ok_or("no inset amount")?;
            extrude::inset(poly, &op.selection, amount)?;
        }
        OP_EXTRUDE_FACE => {
            let kind = op.int_param(PARAM_EXTRUDE_FACE_TYPE)?.unwrap_or(0);
            if !(0..=2).contains(&kind) {
                return Err(format!("extrusion type {kind}"));
            }
            if let Some(x) = op.float_param(PARAM_EXTRUDE_FACE_UNKNOWN)? {
                if x != 1.0 {
                    return Err(format!(
                        "parameter {PARAM_EXTRUDE_FACE_UNKNOWN} = {x} is not evaluated"
                    ));
                }
            }
            let height = op
                .float_param(PARAM_EXTRUDE_FACE_HEIGHT)?
                .ok_or("no extrusion height")?;
            extrude::extrude(poly, &op.selection, height, kind == 2)?;
        }
        OP_MOVE_EXTRUDE => {
            let kind = op.extra_u32(0x0601)?.ok_or("no extrusion type (0x0601)")?;
            if kind > 2 {
                return Err(format!("extrusion type {kind}"));
            }
            extrude::extrude_faces(poly, &op.selection, kind == 2)?;
        }
        OP_AUTOSMOOTH => {
            let angle = op
                .float_param(PARAM_AUTOSMOOTH_THRESHOLD)?
                .ok_or("no auto smooth threshold")?;
            smooth::auto_smooth(poly, &op.selection, angle)?;
        }
        OP_SMOOTH => {
            let set = op.int_param(PARAM_SMOOTH_SET)?.unwrap_or(0) as u32;
            let clear = op.int_param(PARAM_SMOOTH_CLEAR)?.unwrap_or(0) as u32;
            smooth::set_smoothing(poly, &op.selection, set, clear)?;
        }
        OP_MOVE_EXTRUDE_END => {
            topo::check_selection(&op.selection, poly.faces.len(), "faces")?;
        }
        OP_SPLIT => {
            // Splitting breaks vertices on two or more flagged edges (or on a
            // flagged edge and the border); with none such the mesh is unchanged.
            let edges = poly.edges();
            let mut flagged = vec![0u32; poly.vertices.len()];
            let mut border = vec![false; poly.vertices.len()];
            let mut uses = std::collections::HashMap::new();
            for f in &poly.faces {
                for j in 0..f.v.len() {
                    let (a, b) = (f.v[j], f.v[(j + 1) % f.v.len()]);
                    *uses.entry((a.min(b), a.max(b))).or_insert(0u32) += 1;
                }
            }
            for (i, &(a, b)) in edges.iter().enumerate() {
                if uses.get(&(a.min(b), a.max(b))) == Some(&1) {
                    border[a as usize] = true;
                    border[b as usize] = true;
                }
                if op.selected(i) {
                    flagged[a as usize] += 1;
                    flagged[b as usize] += 1;
                }
            }
            if (0..flagged.len()).any(|v| flagged[v] >= 2 || (flagged[v] == 1 && border[v])) {
                return Err("splitting edges that open the mesh is not evaluated".into());
            }
        }
        id => return Err(format!("{} is not evaluated", op_name(id))),
    }
    Ok(())
}

/// The modifier saves its selections sized to the mesh it output; a replay that
/// disagrees has rebuilt something else.
fn check_saved_sizes(local: &[Chunk], poly: &PolyMesh) -> Result<(), String> {
    let ours = [
        (0x0200, poly.vertices.len(), "vertices"),
        (0x0210, poly.edges().len(), "edges"),
        (0x0220, poly.faces.len(), "faces"),
    ];
    for (id, n, what) in ours {
        let Some(c) = local.iter().find(|c| c.id == id) else {
            continue;
        };
        let saved = bits(c)?.len();
        if saved != 0 && saved != n {
            return Err(format!(
                "the replay gives {n} {what}, the modifier saved a selection of {saved}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::PolyFace;

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
            operations(&short_id).unwrap_err(),
            "operation id of 3 bytes"
        );
        // Two offsets announced, one stored.
        assert_eq!(
            operations(&transform(2, &[1.0, 2.0, 3.0])).unwrap_err(),
            "2 transform offsets in 12 bytes"
        );
        assert_eq!(
            operations(&transform(u32::MAX, &[])).unwrap_err(),
            format!("{} transform offsets", u32::MAX)
        );
        let orphan = [Chunk::container(0x0234, Vec::new())];
        assert_eq!(
            operations(&orphan).unwrap_err(),
            "operation record before its id"
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
        }
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
        let err = replay(&bare[0], None, &mut quad()).unwrap_err();
        assert!(err.contains("0x0601"), "{err}");
        let typed = operations(&op(
            OP_MOVE_EXTRUDE,
            vec![selection(1, &[0])],
            vec![Chunk::leaf(0x0601, u32s(&[2]))],
        ))
        .expect("ops");
        let mut m = quad();
        replay(&typed[0], None, &mut m).expect("extrusion");
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
        assert!(replay(&odd[0], None, &mut quad()).is_err());
        let up = operations(&op(
            OP_EXTRUDE_FACE,
            vec![selection(1, &[0]), param(PARAM_EXTRUDE_FACE_HEIGHT, 2.0)],
            vec![],
        ))
        .expect("ops");
        let mut m = quad();
        replay(&up[0], None, &mut m).expect("extrude");
        assert_eq!(m.vertices[6], Vec3(1.0, 1.0, 2.0));
        // A selection sized to another mesh is an error.
        let wrong = operations(&op(OP_INSET, vec![selection(3, &[0])], vec![])).expect("ops");
        assert!(replay(&wrong[0], None, &mut quad()).is_err());
    }

    #[test]
    fn transform_offsets_add_to_the_first_vertices() {
        let ops = operations(&transform(1, &[1.0, 2.0, 3.0])).expect("ops");
        let mut poly = PolyMesh {
            vertices: vec![Vec3(1.0, 1.0, 1.0), Vec3(5.0, 5.0, 5.0)],
            ..PolyMesh::default()
        };
        replay(&ops[0], None, &mut poly).expect("replay");
        assert_eq!(poly.vertices, [Vec3(2.0, 3.0, 4.0), Vec3(5.0, 5.0, 5.0)]);
        assert_eq!(op_name(32), "operation Bevel (32)");
        assert_eq!(op_name(500), "operation unknown (500)");
    }
}
