//! Edit Poly's stored operations, in its local data (0x2512), per operation in
//! order: 0x0230 the operation id (u32, Max's `epolyModButtonOp`), 0x0234 the
//! operation (0x0600 basics: 0x0400 the selection it acts on, one 0x0410 per
//! parameter = u32 `epolyModParameters` id + value, 0x0420 transform, 0x0430
//! mod-context TM, 0x0440 map preservation; beside 0x0600 some operations write
//! 0x0601 / 0x0602), and 0x0238 its local data (Transform: 0x12c3 vertex count,
//! 0x12c4 one offset per vertex, 0x12c5 the node name; Attach: the attached
//! object's MNMesh buffers 0x0e00 between three words 0x0e04 / 0x0e08 /
//! 0x0e0c, accepted only as seen, 1, 0, 0; or 0x0e04 = 0 alone, an Attach
//! that holds no mesh and attaches nothing). 0x0260 / 0x0268 hold an operation
//! in progress. Max 2019+ add 0x0450 to the basics, read as the release of
//! Edit Poly that recorded the operation: 2 on every operation of Max 2019.0
//! files, 3 of Max 2019.3, 4 of Max 2020 to 2024, 6 of Max 2026, where
//! operations recorded earlier keep their 4 (they come first in every stack
//! that mixes them). An operation's replay is accepted for the releases it is
//! checked against (`release_checked`). Max 2024+ also add 0x0470, of unknown
//! meaning, accepted only as seen (2).

use crate::chunk::Chunk;
use crate::eval::error::EvalError;

use super::{bits, payload};
use crate::eval::core::keys::Words;
use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh;
use crate::eval::objects::poly::PolyMesh;

/// Operation ids (the `epolyModButtonOp` enumeration).
/// Closes border loops (`edit_poly_cap`).
pub(super) const OP_CAP: u32 = 9;
pub(super) const OP_DELETE_FACE: u32 = 11;
pub(super) const OP_DETACH_FACE: u32 = 13;
pub(super) const OP_SPLIT: u32 = 14;
pub(super) const OP_WELD_VERTEX: u32 = 22;
pub(super) const OP_ATTACH: u32 = 58;
pub(super) const OP_TESSELLATE: u32 = 28;
pub(super) const OP_TRANSFORM: u32 = 53;
pub(super) const OP_SET_MATERIAL: u32 = 70;
pub(super) const OP_INSET: u32 = 38;
pub(super) const OP_OUTLINE: u32 = 51;
pub(super) const OP_AUTOSMOOTH: u32 = 68;
pub(super) const OP_SMOOTH: u32 = 69;
pub(super) const OP_EXTRUDE_FACE: u32 = 41;
/// Extrusion by a height, then an outline (`edit_poly_bevel`).
pub(super) const OP_BEVEL: u32 = 32;
/// Max 2017+ records a Shift-move of faces as this extrusion (zero height, its
/// type in record 0x0601), the move as a Transform, then operation 92, which
/// adds nothing (its selection sized to the extruded mesh, or naming the
/// extruded faces in a larger bit array; docs/max-format.md).
pub(super) const OP_MOVE_EXTRUDE: u32 = 91;
pub(super) const OP_MOVE_EXTRUDE_END: u32 = 92;
pub(super) const OP_CONNECT_VERTEX: u32 = 44;
pub(super) const OP_CONNECT_EDGE: u32 = 43;
pub(super) const OP_INSERT_VERTEX_EDGE: u32 = 66;
pub(super) const OP_CHAMFER_EDGE: u32 = 34;
pub(super) const OP_EXTRUDE_EDGE: u32 = 40;
pub(super) const OP_CREATE: u32 = 56;
pub(super) const OP_TARGET_WELD: u32 = 59;
pub(super) const OP_CUT: u32 = 35;
pub(super) const OP_CREATE_EDGE: u32 = 62;
pub(super) const OP_RETRIANGULATE: u32 = 29;
/// A Shift-move of edges (`edit_poly_clone`).
pub(super) const OP_CLONE_EDGE: u32 = 64;
/// A Shift-move of faces cloned as an element (`edit_poly_clone_face`).
pub(super) const OP_CLONE_FACE: u32 = 65;
pub(super) const OP_FLIP_FACE: u32 = 30;
/// Deletes the selected vertices and the faces on them (`edit_poly_topo::delete_vertices`).
pub(super) const OP_DELETE_VERTEX: u32 = 10;
/// Deletes the faces on the selected edges (`edit_poly_topo::delete_edges`).
pub(super) const OP_DELETE_EDGE: u32 = 54;
/// Flatten the selected vertices along x, y or z (`edit_poly_planar`).
pub(super) const OP_MAKE_PLANAR_X: u32 = 76;
pub(super) const OP_MAKE_PLANAR_Y: u32 = 77;
pub(super) const OP_MAKE_PLANAR_Z: u32 = 78;
/// Operations that save a slice plane or hinge transform (0x0420) and the
/// mod-context TM (0x0430) in their basics (the SDK sample's operations whose
/// `Transform()` / `ModContextTM()` are not null); none is replayed.
pub(super) const OP_SLICE: u32 = 20;
pub(super) const OP_SLICE_FACE: u32 = 21;
pub(super) const OP_EXTRUDE_ALONG_SPLINE: u32 = 42;
pub(super) const OP_HINGE_FROM_EDGE: u32 = 45;
pub(super) const OP_ALIGN: u32 = 57;
pub(super) const OP_WELD_EDGE: u32 = 23;
pub(super) const OP_MESHSMOOTH: u32 = 27;
pub(super) const OP_CHAMFER_VERTEX: u32 = 33;
pub(super) const OP_BRIDGE_BORDER: u32 = 74;
pub(super) const OP_BRIDGE_POLYGON: u32 = 75;
pub(super) const OP_BRIDGE_EDGE: u32 = 82;
/// Detach Face's "as clone" flag (record 0x0601 beside the basics, one byte).
pub(super) const RECORD_DETACH_CLONE: u16 = 0x0601;

/// Parameter ids (the `epolyModParameters` enumeration).
pub(super) const PARAM_CURRENT_OPERATION: u16 = 12;
pub(super) const PARAM_CONSTRAIN_TYPE: u32 = 14;
pub(super) const PARAM_DELETE_ISOLATED: u32 = 26;
pub(super) const PARAM_WELD_THRESHOLD: u32 = 27;
pub(super) const PARAM_MATERIAL: u32 = 58;
pub(super) const PARAM_EXTRUDE_FACE_TYPE: u32 = 36;
pub(super) const PARAM_AUTOSMOOTH_THRESHOLD: u32 = 55;
pub(super) const PARAM_SMOOTH_SET: u32 = 56;
pub(super) const PARAM_SMOOTH_CLEAR: u32 = 57;
pub(super) const PARAM_EXTRUDE_FACE_HEIGHT: u32 = 37;
/// Bevel's type (0 group, 1 local normal, 2 by polygon), height, outline
/// (`epm_bevel_type` / `_height` / `_outline`) and the Max 2016+ value 121.
pub(super) const PARAM_BEVEL_TYPE: u32 = 38;
pub(super) const PARAM_BEVEL_HEIGHT: u32 = 39;
pub(super) const PARAM_BEVEL_OUTLINE: u32 = 40;
pub(super) const PARAM_BEVEL_UNKNOWN: u32 = 121;
pub(super) const PARAM_INSET_TYPE: u32 = 41;
pub(super) const PARAM_INSET: u32 = 42;
/// Outline's amount (`epm_outline`): outwards when positive.
pub(super) const PARAM_OUTLINE: u32 = 43;
/// A Max 2016+ Extrude Face parameter of unknown meaning; only 1 is seen.
pub(super) const PARAM_EXTRUDE_FACE_UNKNOWN: u32 = 120;
pub(super) const PARAM_PRESERVE_MAPS: u32 = 71;
pub(super) const PARAM_CONNECT_EDGE_SEGMENTS: u32 = 31;
pub(super) const PARAM_CONNECT_EDGE_PINCH: u32 = 91;
pub(super) const PARAM_CONNECT_EDGE_SLIDE: u32 = 92;
/// Cut: split (`epm_cut_split`), the cut's new vertices doubled.
pub(super) const PARAM_CUT_SPLIT: u32 = 15;
/// Extrude Edge (`epm_extrude_edge_height` / `_width`).
pub(super) const PARAM_EXTRUDE_EDGE_HEIGHT: u32 = 33;
pub(super) const PARAM_EXTRUDE_EDGE_WIDTH: u32 = 34;
/// Chamfer Edge: amount (`epm_chamfer_edge`), segments (`epm_reserved1`, which
/// Max 9.5 made `epm_edge_chamfer_segments`), open (`epm_chamfer_edge_open`);
/// then, past the public enumeration's end (107), the Max 2015 type (0
/// standard, 1 quad) and tension, in the order MAXScript lists them
/// (`edgeChamferType`, `edgeChamferTension`, `edgeChamferInvert`).
pub(super) const PARAM_CHAMFER_EDGE: u32 = 35;
pub(super) const PARAM_CHAMFER_EDGE_SEGMENTS: u32 = 86;
pub(super) const PARAM_CHAMFER_EDGE_OPEN: u32 = 101;
pub(super) const PARAM_CHAMFER_EDGE_TYPE: u32 = 108;
pub(super) const PARAM_CHAMFER_EDGE_TENSION: u32 = 109;

/// Names of the operation ids, for errors.
pub(super) const OP_NAMES: [&str; 84] = [
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
pub(super) const MAX_OFFSETS: usize = 1 << 22;

pub(super) fn op_name(id: u32) -> String {
    let name = match id {
        OP_MOVE_EXTRUDE => "Extrude Face by Move",
        OP_MOVE_EXTRUDE_END => "Extrude Face by Move end",
        _ => OP_NAMES.get(id as usize).copied().unwrap_or("unknown"),
    };
    format!("operation {name} ({id})")
}

/// The refusal of an operation that is not replayed. Chamfer Edge and Extrude
/// Edge name the variant their parameters ask for, so a file's errors say
/// which one a future replay has to match (a damaged parameter is that error).
pub(super) fn refusal(op: &Operation) -> EvalError {
    variant(op).unwrap_or_else(|e| e)
}

/// A Chamfer Edge's variant as its parameters ask for it: ("quad chamfer with
/// 2 segments", "17 edges, amount 0.5905512, tension 1").
pub(super) fn chamfer_variant(op: &Operation) -> Result<(String, String), EvalError> {
    let edges = op.selection.iter().filter(|&&s| s).count();
    let float = |id| shown_float(op, id);
    let segments = op.int_param(PARAM_CHAMFER_EDGE_SEGMENTS)?.unwrap_or(1);
    let kind = match op.int_param(PARAM_CHAMFER_EDGE_TYPE)? {
        None | Some(0) => "standard".to_string(),
        Some(1) => "quad".to_string(),
        Some(k) => format!("type {k}"),
    };
    let open = op.int_param(PARAM_CHAMFER_EDGE_OPEN)?.unwrap_or(0) != 0;
    let mut why = format!("{edges} edges, amount {}", float(PARAM_CHAMFER_EDGE)?);
    if op.float_param(PARAM_CHAMFER_EDGE_TENSION)?.is_some() {
        why.push_str(&format!(", tension {}", float(PARAM_CHAMFER_EDGE_TENSION)?));
    }
    if open {
        why.push_str(", open");
    }
    let what = format!(
        "{kind} chamfer with {segments} segment{}",
        if segments == 1 { "" } else { "s" }
    );
    Ok((what, why))
}

fn variant(op: &Operation) -> Result<EvalError, EvalError> {
    let name = op_name(op.id);
    Ok(match op.id {
        OP_CHAMFER_EDGE => {
            let (what, why) = chamfer_variant(op)?;
            EvalError::not_evaluated_why(format!("{name}: {what}"), why)
        }
        OP_EXTRUDE_EDGE => extrude_edge_refusal(
            op,
            "how MNMesh::ExtrudeEdges numbers the new vertices, edges and faces is not derived",
            true,
        )?,
        _ => match library_rule(op.id) {
            Some(why) => EvalError::not_evaluated_why(name, why),
            None => EvalError::not_evaluated(name),
        },
    })
}

/// What is missing for operations whose SDK sample `Do` hands the work to a
/// routine of Max's MNMesh library (compiled, not in the SDK): the numbering of
/// what it adds, or its rule, is not derived and no reference pins it.
fn library_rule(id: u32) -> Option<&'static str> {
    Some(match id {
        OP_SLICE | OP_SLICE_FACE => {
            "MNMesh::Slice numbers the vertices, edges and faces it cuts by a rule not derived"
        }
        OP_HINGE_FROM_EDGE => {
            "MNMesh's hinge extrusion numbers the vertices and faces it adds by a rule not derived"
        }
        OP_WELD_EDGE => {
            "which ends MNMesh::WeldBorderVerts and WeldOpposingEdges keep, and where, is not derived"
        }
        OP_MESHSMOOTH => "MNMesh::CubicNURMS on the selected vertices is not replayed",
        OP_CHAMFER_VERTEX => {
            "MNMesh's vertex chamfer numbers the vertices and faces it adds by a rule not derived"
        }
        OP_BRIDGE_BORDER | OP_BRIDGE_POLYGON | OP_BRIDGE_EDGE => {
            "MNMesh's bridge numbers the faces it adds, and picks their corners, by a rule not derived"
        }
        _ => return None,
    })
}

/// The refusal of an Extrude Edge that is not replayed, naming its variant
/// (edges, height, width) and `why`.
/// With `named` false the operation's name is left out (for an error the
/// replay names the operation on).
pub(super) fn extrude_edge_refusal(
    op: &Operation,
    why: &str,
    named: bool,
) -> Result<EvalError, EvalError> {
    let edges = op.selection.iter().filter(|&&s| s).count();
    let float = |id| shown_float(op, id);
    let name = if named {
        format!("{} of", op_name(op.id))
    } else {
        "extruding".to_string()
    };
    Ok(EvalError::not_evaluated_why(
        format!(
            "{name} {edges} edges, height {}, width {}",
            float(PARAM_EXTRUDE_EDGE_HEIGHT)?,
            float(PARAM_EXTRUDE_EDGE_WIDTH)?
        ),
        why,
    ))
}

/// A float parameter as stored (f32, shown as stored), or "not recorded".
fn shown_float(op: &Operation, id: u32) -> Result<String, EvalError> {
    Ok(match op.float_param(id)? {
        Some(x) => (x as f32).to_string(),
        None => "not recorded".to_string(),
    })
}

/// One committed operation as stored.
#[derive(Debug, Default)]
pub(super) struct Operation {
    pub(super) id: u32,
    pub(super) selection: Vec<bool>,
    /// (parameter id, value bytes).
    pub(super) params: Vec<(u32, Vec<u8>)>,
    /// Transform offsets per vertex (local data 0x12c4).
    pub(super) offsets: Vec<Vec3>,
    /// The attached polygon mesh (Attach local data 0x0e00); None inside
    /// when the record says nothing was attached (0x0e04 = 0 alone).
    pub(super) attached: Option<Option<PolyMesh>>,
    /// Records of the operation beside its basics (0x0601, 0x0602, …).
    pub(super) extra: Vec<(u16, Vec<u8>)>,
    /// Insert Vertex Edge's (edge, proportion from its v1) pairs (0x1600).
    pub(super) inserts: Vec<(u32, f64)>,
    /// Create's, Target Weld's, Cut's, Create Edge's and Hinge From Edge's local data records
    /// (id, payload).
    pub(super) data: Vec<(u16, Vec<u8>)>,
    /// The Edit Poly release that recorded the operation (record 0x0450;
    /// absent before Max 2019).
    pub(super) release: Option<u32>,
    /// A Slice's plane matrix (0x0420 → 0x03e8, 12 floats) holds a value
    /// that is not a number: no point is on either side of it.
    pub(super) plane_undefined: bool,
}

impl Operation {
    pub(super) fn int_param(&self, id: u32) -> Result<Option<i32>, EvalError> {
        match self.params.iter().find(|(p, _)| *p == id) {
            None => Ok(None),
            Some((_, v)) if v.len() == 4 => Ok(Some(Words(v).i32(0))),
            Some((_, v)) => Err(EvalError::malformed(
                format!("parameter {id}"),
                format!("{} bytes", v.len()),
            )),
        }
    }

    pub(super) fn float_param(&self, id: u32) -> Result<Option<f64>, EvalError> {
        match self.params.iter().find(|(p, _)| *p == id) {
            None => Ok(None),
            Some((_, v)) if v.len() == 4 => Ok(Some(Words(v).f(0))),
            Some((_, v)) => Err(EvalError::malformed(
                format!("parameter {id}"),
                format!("{} bytes", v.len()),
            )),
        }
    }

    /// A u32 record beside the basics.
    pub(super) fn extra_u32(&self, id: u16) -> Result<Option<u32>, EvalError> {
        match self.extra.iter().find(|(x, _)| *x == id) {
            None => Ok(None),
            Some((_, v)) if v.len() == 4 => Ok(Some(Words(v).u32(0))),
            Some((_, v)) => Err(EvalError::malformed(
                format!("record {id:#06x}"),
                format!("{} bytes", v.len()),
            )),
        }
    }

    pub(super) fn selected(&self, i: usize) -> bool {
        self.selection.get(i).copied().unwrap_or(false)
    }
}

/// Operations whose replay is checked against Max 2019's own results (record
/// 0x0450 = 2): positions against Buwaka/Level-editing-2's FBX and Unwrap
/// UVW caches, Auto Smooth against the FBX normals, Set Material against the
/// FBX's material per polygon, Attach against the Unwrap UVW caches on
/// either side of table.max's four Attaches, Connect Vertex and Cut against
/// the sizes and vertices the later operations of the level files' cylinders
/// recorded; Clone Edge and Weld Vertex against the sizes the operations
/// after them recorded on the blockout and level files' Plane001, Connect
/// Edge against the point the Cut after it recorded (blockout 3ds' Box001)
/// and level.FBX (Box019), Cap against the 13 sizes the operations after it
/// recorded on the blockout files' Box006, Target Weld (replayed as that
/// release welds: the source stays) against the pairs, Transform offsets and
/// sizes of the blockout and level files' Box013 and Box019, Clone Face and
/// Flip Face against the Unwrap UVW caches on either side of the level
/// files' Plane001 Edit Poly (docs/max-format.md, "Edit Poly").
pub(super) const CHECKED_RELEASE_2019: [u32; 15] = [
    OP_TRANSFORM,
    OP_DELETE_FACE,
    OP_EXTRUDE_FACE,
    OP_AUTOSMOOTH,
    OP_SET_MATERIAL,
    OP_ATTACH,
    OP_CONNECT_VERTEX,
    OP_CUT,
    OP_CLONE_EDGE,
    OP_CONNECT_EDGE,
    OP_WELD_VERTEX,
    OP_CAP,
    OP_TARGET_WELD,
    OP_CLONE_FACE,
    OP_FLIP_FACE,
];

/// Operations whose replay is checked against Max 2019.3's own results
/// (record 0x0450 = 3): Transform against eXperion17/IKToolkit's
/// DemoScene.FBX, whose Box005 (nine Transforms, nothing else) matches ours
/// exactly, 8 / 8 vertices (docs/unseen-files.md, fifteenth sweep).
const CHECKED_RELEASE_3: [u32; 1] = [OP_TRANSFORM];

/// Whether the replay of operation `op` recorded by Edit Poly release
/// `release` (record 0x0450) is checked against Max: releases 4 (Max 2020 to
/// 2024) and 6 (Max 2026) on every operation replayed (the corpus' Max 2024
/// and 2026 files), release 2 (Max 2019) on those in `CHECKED_RELEASE_2019`,
/// release 3 (Max 2019.3) on those in `CHECKED_RELEASE_3`.
pub(super) fn release_checked(op: u32, release: u32) -> bool {
    match release {
        4 | 6 => true,
        3 => CHECKED_RELEASE_3.contains(&op),
        2 => CHECKED_RELEASE_2019.contains(&op),
        _ => false,
    }
}

/// The refusal of an operation recorded by an Edit Poly release whose replay
/// of it is not checked, naming the record as stored.
pub(super) fn release_refusal(op: &Operation) -> Option<EvalError> {
    let release = op.release?;
    (!release_checked(op.id, release)).then(|| {
        EvalError::not_evaluated_why(
            format!(
                "{} recorded by Edit Poly release {release} (record 0x0450)",
                op_name(op.id)
            ),
            "its replay is not checked against Max's results of that release",
        )
    })
}

/// The committed operations, in order.
pub(super) fn operations(local: &[Chunk]) -> Result<Vec<Operation>, EvalError> {
    let mut ops: Vec<Operation> = Vec::new();
    for c in local {
        match c.id {
            0x0230 => {
                let p = payload(c)?;
                if p.len() != 4 {
                    return Err(EvalError::malformed(
                        "",
                        format!("operation id of {} bytes", p.len()),
                    ));
                }
                ops.push(Operation {
                    id: Words(p).u32(0),
                    ..Operation::default()
                });
            }
            0x0234 => {
                let op = ops
                    .last_mut()
                    .ok_or_else(|| EvalError::malformed("", "operation record before its id"))?;
                for x in c.children().iter().filter(|x| x.id != 0x0600) {
                    match x.payload() {
                        Some(p) => op.extra.push((x.id, p.to_vec())),
                        // Extrude Along Spline keeps its spline (0x0640) and
                        // the spline's TM (0x0644) as chunk trees; the
                        // operation is refused in the replay by name.
                        None if op.id == OP_EXTRUDE_ALONG_SPLINE => {}
                        None => {
                            return Err(EvalError::not_evaluated(format!(
                                "{}: record {:#06x} holding chunks",
                                op_name(op.id),
                                x.id
                            )))
                        }
                    }
                }
                let basics = c
                    .children()
                    .iter()
                    .find(|x| x.id == 0x0600)
                    .ok_or_else(|| {
                        EvalError::malformed("", "operation without its basics (0x0600)")
                    })?;
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
                                return Err(EvalError::malformed("", "short parameter record"));
                            }
                            op.params.push((Words(p).u32(0), p[4..].to_vec()));
                        }
                        // Map preservation settings: only used when preserve maps is on.
                        0x0440 => {}
                        // A slice's plane (0x03e8: a matrix, 12 floats): only
                        // whether it is a plane at all is read (`cuts_nothing`).
                        0x0420 if matches!(op.id, OP_SLICE | OP_SLICE_FACE) => {
                            op.plane_undefined = b
                                .children()
                                .iter()
                                .find(|c| c.id == 0x03e8)
                                .and_then(Chunk::payload)
                                .is_some_and(|p| {
                                    p.len() == 48 && (0..12).any(|i| !Words(p).f(i).is_finite())
                                });
                        }
                        // The plane / hinge matrices of operations refused in the
                        // replay (`variant` names what is missing).
                        0x0420 | 0x0430
                            if matches!(
                                op.id,
                                OP_SLICE
                                    | OP_SLICE_FACE
                                    | OP_EXTRUDE_ALONG_SPLINE
                                    | OP_HINGE_FROM_EDGE
                                    | OP_ALIGN
                            ) => {}
                        // The release that recorded the operation (checked
                        // against the operation in `release_refusal`).
                        0x0450 => {
                            let p = payload(b)?;
                            if p.len() != 4 {
                                return Err(EvalError::not_evaluated(format!(
                                    "{}: record {:#06x} = {p:02x?}",
                                    op_name(op.id),
                                    b.id
                                )));
                            }
                            op.release = Some(Words(p).u32(0));
                        }
                        // A Max 2024+ record of unknown meaning: the value seen only.
                        0x0470 => {
                            let p = payload(b)?;
                            if p.len() != 4 || Words(p).u32(0) != 2 {
                                return Err(EvalError::not_evaluated(format!(
                                    "{}: record {:#06x} = {p:02x?}",
                                    op_name(op.id),
                                    b.id
                                )));
                            }
                        }
                        other => {
                            return Err(EvalError::not_evaluated(format!(
                                "{}: record {other:#06x}",
                                op_name(op.id)
                            )))
                        }
                    }
                }
            }
            0x0238 => {
                let op = ops
                    .last_mut()
                    .ok_or_else(|| EvalError::malformed("", "operation data before its id"))?;
                if op.id == OP_TRANSFORM {
                    op.offsets = offsets(c.children())?;
                } else if op.id == OP_ATTACH {
                    op.attached = Some(attached(c.children())?);
                } else if op.id == OP_INSERT_VERTEX_EDGE {
                    op.inserts = inserts(c.children())?;
                } else if matches!(
                    op.id,
                    OP_CREATE | OP_TARGET_WELD | OP_CUT | OP_CREATE_EDGE | OP_HINGE_FROM_EDGE
                ) {
                    // (Hinge From Edge's hinge edge, 0x32f0, is kept unread:
                    // the operation is refused in the replay.)
                    for x in c.children() {
                        op.data.push((x.id, payload(x)?.to_vec()));
                    }
                } else if !c.children().is_empty() || c.payload().is_some_and(|p| !p.is_empty()) {
                    return Err(EvalError::not_evaluated(format!(
                        "{}: local data",
                        op_name(op.id)
                    )));
                }
            }
            0x0260 | 0x0268 if !pending_is_empty_transform(local) => {
                return Err(EvalError::not_evaluated("an operation in progress"));
            }
            _ => {}
        }
    }
    Ok(ops)
}

/// Whether the operation in progress (0x0260 id, 0x0268 its data) is a
/// Transform that holds no offsets: Max applies the pending operation on top
/// of the committed ones, and a move not yet begun moves nothing
/// (Sword.max's Line001: Transform, empty data).
pub(super) fn pending_is_empty_transform(data: &[Chunk]) -> bool {
    let id = data
        .iter()
        .find(|c| c.id == 0x0260)
        .and_then(Chunk::payload)
        .filter(|p| p.len() == 4)
        .map(|p| Words(p).u32(0));
    let empty = data
        .iter()
        .find(|c| c.id == 0x0268)
        .is_some_and(|c| c.children().is_empty() && c.payload().is_none_or(<[u8]>::is_empty));
    id == Some(OP_TRANSFORM) && empty
}

/// Attach local data: the attached object's polygon mesh (0x0e00) between
/// three words only accepted as seen on real files: 0x0e04 = 1, 0x0e08 = 0,
/// 0x0e0c = 0. An Attach whose data is 0x0e04 = 0 alone holds no mesh and
/// attaches nothing (None): Buwaka's table.max, whose Unwrap UVW above that
/// Edit Poly cached exactly the three meshes the other Attaches hold
/// (docs/max-format.md, "Edit Poly").
fn attached(data: &[Chunk]) -> Result<Option<PolyMesh>, EvalError> {
    let word = |c: &Chunk| -> Result<u32, EvalError> {
        let p = payload(c)?;
        if p.len() != 4 {
            return Err(EvalError::not_evaluated(format!(
                "attach record {:#06x} = {p:02x?}",
                c.id
            )));
        }
        Ok(Words(p).u32(0))
    };
    if let [only] = data {
        if only.id == 0x0e04 && word(only)? == 0 {
            return Ok(None);
        }
    }
    let mut mesh = None;
    for c in data {
        match c.id {
            0x0e00 => mesh = Some(mesh::mnmesh(c.children())?),
            0x0e04 | 0x0e08 | 0x0e0c => {
                let want = u32::from(c.id == 0x0e04);
                if word(c)? != want {
                    return Err(EvalError::not_evaluated(format!(
                        "attach record {:#06x} = {:02x?}",
                        c.id,
                        payload(c)?
                    )));
                }
            }
            other => {
                return Err(EvalError::not_evaluated(format!(
                    "attach record {other:#06x}"
                )))
            }
        }
    }
    mesh.map(Some)
        .ok_or_else(|| EvalError::malformed("", "attach without its mesh (0x0e00)"))
}

/// Insert Vertex Edge local data: 0x1600, u32 n, n edge indices, n f32
/// proportions along each edge from its first vertex.
fn inserts(data: &[Chunk]) -> Result<Vec<(u32, f64)>, EvalError> {
    let mut out = Vec::new();
    for c in data {
        if c.id != 0x1600 {
            return Err(EvalError::not_evaluated(format!(
                "Insert Vertex Edge record {:#06x}",
                c.id
            )));
        }
        let p = payload(c)?;
        let w = Words(p);
        let n = if p.len() >= 4 {
            w.u32(0) as usize
        } else {
            usize::MAX
        };
        if n > MAX_OFFSETS || p.len() != 4 + 8 * n {
            return Err(EvalError::malformed(
                "",
                format!("Insert Vertex Edge record of {} bytes", p.len()),
            ));
        }
        out.extend((0..n).map(|i| (w.u32(1 + i), w.f(1 + n + i))));
    }
    Ok(out)
}

/// Transform local data: count (0x12c3) and that many Point3 offsets (0x12c4).
fn offsets(data: &[Chunk]) -> Result<Vec<Vec3>, EvalError> {
    let count = match data.iter().find(|c| c.id == 0x12c3) {
        None => return Ok(Vec::new()),
        Some(c) => {
            let p = payload(c)?;
            if p.len() != 4 {
                return Err(EvalError::malformed("", "transform offset count"));
            }
            Words(p).u32(0) as usize
        }
    };
    if count > MAX_OFFSETS {
        return Err(EvalError::malformed(
            "",
            format!("{count} transform offsets"),
        ));
    }
    let p = data
        .iter()
        .find(|c| c.id == 0x12c4)
        .map(payload)
        .transpose()?
        .unwrap_or(&[]);
    if p.len() != count * 12 {
        return Err(EvalError::malformed(
            "",
            format!("{count} transform offsets in {} bytes", p.len()),
        ));
    }
    let w = Words(p);
    Ok((0..count)
        .map(|i| Vec3(w.f(3 * i), w.f(3 * i + 1), w.f(3 * i + 2)))
        .collect())
}
