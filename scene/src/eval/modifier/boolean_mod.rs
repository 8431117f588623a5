//! The Boolean modifier of Max 2024+ (booleanmodifier.dlm, class
//! (0x7bc209ad, 0x1bbac5d)): the modifier's input (the "base object")
//! combined in list order with operand objects, through the CSG of the
//! Boolean compound objects (`objects::boolean`).
//!
//! Layout, read off the corpus (Can.max, Shotgun.max, WaterCooler.max; no
//! public document lists the parameter ids): reference 0 is a ParamBlock2
//! whose tabs are
//! - 1: one sub-block per entry of the operand list, the base object
//!   included, in list order;
//! - 11: a NodeTransformMonitor per node the modifier is applied to (two on
//!   an instanced modifier), 12: a material per such node;
//! - 17: a holder block per captured operand (its parameter 1 is the operand
//!   object, a derived object with its own stack), 20: the PRS controller
//!   placing each captured operand, same order;
//! - 26: an empty block tab in every corpus file.
//!
//! Each operand sub-block: 0 an id (GUID text), 1 the kind (0 the base object,
//! 1 a captured operand), 5 the name, 6 the captured object (its scene index
//! stored inline; −1 for the base object), 7 a block tab (nested operands of a
//! group; empty in the corpus), 8 the operation, 15 a Matrix3 placing the
//! operand object before its PRS (identity for the base object, the operand
//! node's pivot offset for a captured one — to the float bit a few 1e-8
//! rotations and a translation), 2, 3, 9 … 12 flags and values constant over
//! the corpus.
//!
//! A captured operand is placed in the modified object's space by its
//! Matrix3 then its PRS at `t` (checked against the authors' FBX exports,
//! docs/evaluation.md). Operations: 2 subtracts (Can's box from the can),
//! 0 … (see `operation`). Anything else — another operation, a value of the
//! constant parameters not seen, a group, a live (non-captured) operand — is
//! refused by name.
//!
//! Max re-triangulates the result its own way (same surface, other
//! triangles): modifiers above that address vertices or faces by index do
//! not apply (`ModContext::max_order` turns false above it).

use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock::{self, Known, ParamBlock2, Value};
use crate::eval::error::EvalError;
use crate::eval::objects::boolean::{self, Op};
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::poly::{PolyFace, PolyMap, PolyMesh};
use crate::typed::ClassId;

use super::{Applied, ModContext};

pub const BOOLEAN_MOD: ClassId = ClassId(0x7bc209ad, 0x1bbac5d);

const P_OPERANDS: u16 = 1;
const P_CAPTURED: u16 = 17;
const P_CAPTURED_TM: u16 = 20;
const P_GROUPS: u16 = 26;
/// The holder block's operand object.
const P_HOLDER_OBJECT: u16 = 1;

/// Operand sub-block parameters.
const O_KIND: u16 = 1;
const O_NAME: u16 = 5;
const O_OBJECT: u16 = 6;
const O_CHILDREN: u16 = 7;
const O_OPERATION: u16 = 8;
const O_MATRIX: u16 = 15;
/// Operand parameters whose meaning is not known, with the one value every
/// corpus operand has: another value is refused rather than ignored.
const O_CONSTANT: [(u16, Known); 6] = [
    (2, Known::Bool(false)),
    (3, Known::Bool(true)),
    (9, Known::Int(0)),
    (10, Known::Float(0.0)),
    (11, Known::Int(0)),
    (12, Known::Float(0.0)),
];

/// One entry of the operand list.
#[derive(Debug, Clone)]
pub struct Operand {
    pub name: String,
    /// 0: the base object (the modifier's input), 1: a captured operand.
    pub kind: i32,
    /// The captured operand object (scene index), None for the base object.
    pub object: Option<usize>,
    pub operation: i32,
    /// Sub-block parameter 15: placement of the operand object before its PRS.
    pub matrix: Mat43,
}

fn block(eval: &crate::eval::SceneEval, obj: usize) -> Result<ParamBlock2, EvalError> {
    pblock::param_block2(eval.chunks(obj))
}

fn ref_tab<'a>(pb: &'a ParamBlock2, id: u16, what: &str) -> Result<&'a [u32], EvalError> {
    match pb.param(id).map(|p| &p.value) {
        Some(Value::RefTab(slots)) => Ok(slots),
        // An empty tab stores its count only.
        Some(Value::IntTab(v)) if v.is_empty() => Ok(&[]),
        Some(v) => Err(EvalError::malformed(
            format!("parameter {id} ({what})"),
            format!("not a reference tab: {v:?}"),
        )),
        None => Err(EvalError::malformed(
            "",
            format!("no parameter {id} ({what})"),
        )),
    }
}

/// A Matrix3 parameter stored inline: four rows of three floats, then a
/// flags word.
fn matrix(chunks: &[crate::chunk::Chunk], id: u16) -> Result<Mat43, EvalError> {
    let p = chunks
        .iter()
        .filter(|c| c.id == 0x100e || c.id == 0x000e)
        .filter_map(|c| c.payload())
        .find(|p| p.len() >= 4 && u16::from_le_bytes([p[0], p[1]]) == id)
        .ok_or_else(|| EvalError::malformed("", format!("no parameter {id} (matrix)")))?;
    let body = p.get(15..15 + 48).ok_or_else(|| {
        EvalError::malformed(
            format!("parameter {id} (matrix)"),
            format!("{} bytes", p.len()),
        )
    })?;
    let f = |i: usize| {
        let b = [
            body[4 * i],
            body[4 * i + 1],
            body[4 * i + 2],
            body[4 * i + 3],
        ];
        f64::from(f32::from_le_bytes(b))
    };
    let row = |r: usize| Vec3(f(3 * r), f(3 * r + 1), f(3 * r + 2));
    Ok(Mat43([row(0), row(1), row(2), row(3)]))
}

/// The operand list of Boolean modifier object `m`, in list order.
pub fn operands(eval: &crate::eval::SceneEval, m: usize) -> Result<Vec<Operand>, EvalError> {
    let main_obj = pblock::reference(&eval.graph, m, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let main = block(eval, main_obj)?;
    if !ref_tab(&main, P_GROUPS, "block tab")?.is_empty() {
        return Err(EvalError::not_evaluated(format!(
            "parameter {P_GROUPS} (a block tab) not empty"
        )));
    }
    let mut out = Vec::new();
    for (k, &slot) in ref_tab(&main, P_OPERANDS, "operands")?.iter().enumerate() {
        let at = || format!("operand {k}");
        let sub = pblock::reference(&eval.graph, main_obj, slot)
            .ok_or_else(|| EvalError::reference(at(), format!("no block (reference {slot})")))?;
        let pb = block(eval, sub).map_err(|e| e.inside(at()))?;
        let int = |id: u16| match pb.param(id).map(|p| &p.value) {
            Some(Value::Int(v)) => Ok(*v),
            v => Err(EvalError::malformed(at(), format!("parameter {id}: {v:?}"))),
        };
        let name = match pb.param(O_NAME).map(|p| &p.value) {
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        };
        let object = match pb.param(O_OBJECT).map(|p| &p.value) {
            Some(Value::Object(-1)) => None,
            Some(Value::Object(i)) => Some(
                usize::try_from(*i)
                    .map_err(|_| EvalError::reference(at(), format!("operand object {i}")))?,
            ),
            v => {
                return Err(EvalError::malformed(
                    at(),
                    format!("parameter {O_OBJECT} (object): {v:?}"),
                ))
            }
        };
        if !ref_tab(&pb, O_CHILDREN, "nested operands")
            .map_err(|e| e.inside(at()))?
            .is_empty()
        {
            return Err(EvalError::not_evaluated(format!(
                "operand {k} ({name}): a group of nested operands"
            )));
        }
        for (id, known) in O_CONSTANT {
            let v = pb.param(id).map(|p| &p.value);
            if !v.is_some_and(|v| known.matches(v)) {
                return Err(EvalError::not_evaluated(format!(
                    "operand {k} ({name}): parameter {id} = {v:?} (not seen in the corpus)"
                )));
            }
        }
        out.push(Operand {
            kind: int(O_KIND)?,
            operation: int(O_OPERATION)?,
            matrix: matrix(eval.chunks(sub), O_MATRIX).map_err(|e| e.inside(at()))?,
            name,
            object,
        });
    }
    Ok(out)
}

/// The captured operand objects of Boolean modifier `m` with the PRS
/// controller placing each.
fn captured(
    eval: &crate::eval::SceneEval,
    m: usize,
) -> Result<Vec<(usize, Option<usize>)>, EvalError> {
    let main_obj = pblock::reference(&eval.graph, m, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let main = block(eval, main_obj)?;
    let holders = ref_tab(&main, P_CAPTURED, "captured operands")?;
    let tms = ref_tab(&main, P_CAPTURED_TM, "captured operand placements")?;
    if holders.len() != tms.len() {
        return Err(EvalError::malformed(
            "",
            format!(
                "{} captured operands, {} placements",
                holders.len(),
                tms.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(holders.len());
    for (k, (&h, &tm)) in holders.iter().zip(tms).enumerate() {
        let holder = pblock::reference(&eval.graph, main_obj, h).ok_or_else(|| {
            EvalError::reference(format!("captured operand {k}"), "no holder block")
        })?;
        let pb = block(eval, holder)?;
        let slot = pb
            .param(P_HOLDER_OBJECT)
            .and_then(|p| p.ref_slot)
            .ok_or_else(|| {
                EvalError::malformed(format!("captured operand {k}"), "no object parameter")
            })?;
        let object = pblock::reference(&eval.graph, holder, slot)
            .ok_or_else(|| EvalError::reference(format!("captured operand {k}"), "no object"))?;
        out.push((object, pblock::reference(&eval.graph, main_obj, tm)));
    }
    Ok(out)
}

/// The operation of an operand (sub-block parameter 8).
fn operation(code: i32) -> Result<Op, EvalError> {
    match code {
        2 => Ok(Op::AMinusB),
        c => Err(EvalError::not_evaluated_why(
            format!("operation {c}"),
            "only 2 (subtract) is checked against a reference",
        )),
    }
}

/// Applies Boolean modifier `m` to `mesh` at `cx.t`.
pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let eval = cx.eval;
    let list = operands(eval, m.object)?;
    let captured = captured(eval, m.object)?;
    // The input enters through its one base-object entry; without it the
    // input would be dropped unsaid.
    let bases = list.iter().filter(|o| o.kind == 0).count();
    if bases != 1 {
        return Err(EvalError::not_evaluated(format!(
            "an operand list with {bases} base-object entries"
        )));
    }
    let mut result: Option<Mesh> = None;
    for (k, op) in list.iter().enumerate() {
        let at = || format!("operand {k} ({})", op.name);
        let operand = match (op.kind, op.object) {
            (0, None) => std::mem::take(mesh),
            (1, Some(obj)) => {
                let (_, prs) = captured
                    .iter()
                    .find(|(o, _)| *o == obj)
                    .ok_or_else(|| EvalError::reference(at(), "not among the captured operands"))?;
                let mut o =
                    boolean::object_mesh_with_stack(eval, obj, cx.t).map_err(|e| e.inside(at()))?;
                let tm = match prs {
                    Some(c) => eval.prs_tm(*c, cx.t).ok_or_else(|| {
                        EvalError::reference(at(), format!("object {c} is not a PRS controller"))
                    })?,
                    None => Mat43::IDENTITY,
                };
                boolean::place(&mut o, &op.matrix.then(&tm));
                o
            }
            (kind, obj) => {
                return Err(EvalError::not_evaluated(format!(
                    "{}: operand kind {kind} with object {obj:?}",
                    at()
                )))
            }
        };
        result = Some(match result {
            None => operand,
            Some(acc) => {
                let o = operation(op.operation).map_err(|e| e.inside(at()))?;
                boolean::combine(&acc, &operand, o).map_err(|e| e.inside(at()))?
            }
        });
    }
    *mesh = result.ok_or_else(|| EvalError::malformed("", "an empty operand list"))?;
    Ok(())
}

/// The mesh `stack[at..]` (a Boolean modifier on top) makes, as polygons
/// for an Edit Poly above: one polygon per triangle of our result, Max's
/// own polygons being unknown (the Edit Poly refuses every operation that
/// addresses them, see `edit_poly`).
pub(super) fn polygons_below(
    stack: &[Applied],
    at: usize,
    base: usize,
    cx: &ModContext,
) -> Result<(PolyMesh, Vec<crate::eval::objects::mesh::MissingMap>), EvalError> {
    let mut m = cx.eval.object_mesh(base, cx.t).unwrap_or_else(|| {
        Err(EvalError::not_evaluated(
            "a Boolean modifier on an object this evaluation does not build",
        ))
    })?;
    super::apply_stack_from(stack.get(at..).unwrap_or_default(), base, &mut m, cx)?;
    let faces = m
        .faces
        .iter()
        .map(|f| PolyFace::fan(f.v.to_vec(), f.material, f.smoothing))
        .collect();
    let maps = m
        .maps
        .iter()
        .map(|c| PolyMap {
            channel: c.channel,
            vertices: c.vertices.clone(),
            faces: c.faces.iter().map(|f| f.to_vec()).collect(),
        })
        .collect();
    let poly = PolyMesh {
        vertices: m.vertices,
        faces,
        maps,
        edges: None,
        normals: None,
    };
    poly.validate()?;
    Ok((poly, m.missing_maps))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::Chunk;

    fn record(id: u16, ty: u16, payload: &[u8]) -> Chunk {
        pblock::test_record(id, ty, 0x40, payload)
    }

    #[test]
    fn matrix_rows_are_read_in_order() {
        let mut p = Vec::new();
        for x in 1..=12 {
            p.extend((x as f32).to_le_bytes());
        }
        p.extend(7u32.to_le_bytes());
        let m = matrix(&[record(15, 0x14, &p)], 15).expect("matrix");
        assert_eq!(m.0[0], Vec3(1.0, 2.0, 3.0));
        assert_eq!(m.0[3], Vec3(10.0, 11.0, 12.0));
    }

    #[test]
    fn damaged_or_unknown_values_are_errors() {
        let short = matrix(&[record(15, 0x14, &[0; 20])], 15).unwrap_err();
        assert!(
            short.to_string().contains("parameter 15 (matrix)"),
            "{short}"
        );
        assert!(matrix(&[], 15).is_err());
        assert!(operation(0)
            .unwrap_err()
            .to_string()
            .contains("operation 0"));
        assert_eq!(operation(2), Ok(Op::AMinusB));
        assert!(Known::Bool(true).matches(&Value::Bool(true)));
        assert!(!Known::Int(0).matches(&Value::Int(1)));
        assert!(!Known::Float(0.0).matches(&Value::Int(0)));
    }
}
