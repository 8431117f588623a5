//! The Boolean of Max 2017 and later (MAXScript `Boolean3`, class
//! (0x7bc209af, 0x1bbac5f)): a list of operands combined in order.
//!
//! Its only reference is a ParamBlock2 (parameter ids as MAXScript lists them):
//! 0 icon size, 1 material option, 2 display option, 3 display as shaded,
//! 4 `objects` (a reference-target tab: the operand objects), 5 `operation`
//! (int tab: 0 union, 1 intersect, 2 subtract, 3 merge, 4 attach, 5 insert),
//! 6 `option` (int tab: 0 none, 1 imprint, 2 cookie), 7 `operand_tm` (a
//! reference-target tab: the PRS controllers placing each operand in the
//! Boolean's object space). A reference-target tab stores one flag byte per
//! element and takes the block's reference slots in order, so the generic
//! ParamBlock2 decoder (which expects inline values) is not used here.
//!
//! The object's own chunks hold the operand names (0x00d2), one 0x0136 record
//! per operand and the operand tree (0x0140 / 0x00d2), which lets operands be
//! grouped under others. Only the tree of a flat two-operand Boolean is known
//! (every corpus file); any other tree is refused rather than guessed.
//!
//! Evaluation: operand 0 starts the result; each later operand is combined
//! with it by its operation through the same CSG as the old Boolean (the first
//! operand's own operation plays no part). Max computes no stored result for
//! this class, and its triangulation differs from ours (same surface, other
//! triangles), so index-based modifiers above it are refused as for the old
//! Boolean. Merge, attach, insert, imprint and cookie are refused by name.
//! Material ids are kept as each operand has them (Max's "apply operand
//! material" builds a Multi/Sub-Object material whose id remapping is not
//! evaluated); materials are not reported here.

use crate::chunk::Chunk;
use crate::eval::error::EvalError;
use crate::typed::ClassId;
use maxfs_file::reader::{ByteReader, ReadError};

use super::{csg, operand_mesh, prs, transform, Budget, Op};
use crate::eval::core::math::Mat43;
use crate::eval::core::pblock;
use crate::eval::objects::mesh::Mesh;
use crate::eval::SceneEval;

pub const BOOLEAN3: ClassId = ClassId(0x7bc209af, 0x1bbac5f);

const PARAM_OBJECTS: u16 = 4;
const PARAM_OPERATION: u16 = 5;
const PARAM_OPTION: u16 = 6;
const PARAM_OPERAND_TM: u16 = 7;

/// ParamBlock2 record chunks (Max 4…2016 and 2017+ layouts are the same).
const PB2_RECORDS: [u16; 2] = [0x000e, 0x100e];
/// Bytes before a record's payload: id, type, ten opaque bytes, flags.
const RECORD_HEADER: usize = 15;
const TYPE_TAB: u16 = 0x800;
const TYPE_INT: u16 = 1;
const TYPE_REFTARG: u16 = 18;
/// Operands decoded at most (a damaged count must not allocate much).
const MAX_OPERANDS: usize = 4096;

/// The operand tree of a flat two-operand Boolean, the only layout seen.
const FLAT_TWO: [i32; 12] = [2, 2, -1, -1, -1, 0, 1, -1, 0, 1, -1, -1];

/// A tab parameter of the Boolean's block.
#[derive(Debug, Clone, PartialEq)]
enum Tab {
    /// Reference-target elements: the block reference slot of each.
    Refs(Vec<u32>),
    Ints(Vec<i32>),
}

fn read_err(id: u16) -> impl Fn(ReadError) -> EvalError {
    move |e| EvalError::from(e).inside(format!("Boolean parameter {id}"))
}

/// The tab parameters of the Boolean's ParamBlock2, by id.
fn tabs(chunks: &[Chunk]) -> Result<Vec<(u16, Tab)>, EvalError> {
    let mut out = Vec::new();
    let mut slot = 0u32;
    for c in chunks.iter().filter(|c| PB2_RECORDS.contains(&c.id)) {
        let Some(p) = c.payload() else { continue };
        let mut r = ByteReader::new(p);
        let id = r.u16("parameter id").map_err(read_err(0))?;
        let ty = r.u16("parameter type").map_err(read_err(id))?;
        r.take(RECORD_HEADER - 4, "parameter header")
            .map_err(read_err(id))?;
        if ty & TYPE_TAB == 0 {
            let is_const = p[RECORD_HEADER - 1] & 0x40 != 0;
            if !is_const || matches!(ty, 14 | 15 | 17 | TYPE_REFTARG) {
                // A controller or reference of a scalar parameter takes a slot.
                slot += 1;
            }
            continue;
        }
        let n = r.u32("tab count").map_err(read_err(id))? as usize;
        if n > MAX_OPERANDS {
            return Err(EvalError::malformed(
                format!("Boolean parameter {id}"),
                format!("tab of {n} elements"),
            ));
        }
        let tab = match ty & 0x7ff {
            TYPE_REFTARG => {
                let mut refs = Vec::with_capacity(n);
                for _ in 0..n {
                    r.u8("element flags").map_err(read_err(id))?;
                    refs.push(slot);
                    slot += 1;
                }
                Tab::Refs(refs)
            }
            TYPE_INT => {
                let mut ints = Vec::with_capacity(n);
                for _ in 0..n {
                    r.u8("element flags").map_err(read_err(id))?;
                    ints.push(r.i32("element").map_err(read_err(id))?);
                }
                Tab::Ints(ints)
            }
            other => {
                return Err(EvalError::not_evaluated(format!(
                    "Boolean parameter {id}: tab of type {other:#x}"
                )))
            }
        };
        r.finish("tab").map_err(read_err(id))?;
        out.push((id, tab));
    }
    Ok(out)
}

fn tab<'a>(tabs: &'a [(u16, Tab)], id: u16, what: &str) -> Result<&'a Tab, EvalError> {
    tabs.iter()
        .find(|(p, _)| *p == id)
        .map(|(_, t)| t)
        .ok_or_else(|| EvalError::malformed("", format!("no {what} parameter ({id})")))
}

/// The operand tree (0x0140 / 0x00d2) must be the flat one.
fn check_tree(chunks: &[Chunk]) -> Result<(), EvalError> {
    let tree = chunks
        .iter()
        .find(|c| c.id == 0x0140)
        .and_then(|t| t.children().iter().find(|c| c.id == 0x00d2))
        .and_then(Chunk::payload)
        .ok_or_else(|| EvalError::malformed("", "no operand tree (0x0140 / 0x00d2)"))?;
    let mut r = ByteReader::new(tree);
    let mut words = Vec::new();
    while r.remaining() >= 4 && words.len() <= FLAT_TWO.len() {
        words.push(r.i32("operand tree").map_err(EvalError::from)?);
    }
    if r.remaining() != 0 || words != FLAT_TWO {
        return Err(EvalError::not_evaluated_why(
            format!("operand tree {words:?} (0x0140)"),
            "only two operands side by side are known",
        ));
    }
    Ok(())
}

fn operation(code: i32) -> Result<Op, EvalError> {
    match code {
        0 => Ok(Op::Union),
        1 => Ok(Op::Intersection),
        2 => Ok(Op::AMinusB),
        3 => Err(EvalError::not_evaluated("operation Merge (3)")),
        4 => Err(EvalError::not_evaluated("operation Attach (4)")),
        5 => Err(EvalError::not_evaluated("operation Insert (5)")),
        c => Err(EvalError::not_evaluated(format!("operation {c}"))),
    }
}

/// The mesh of Boolean3 object `obj` at time `t`, in its object space.
pub(super) fn eval_at(
    se: &SceneEval,
    obj: usize,
    t: i32,
    depth: usize,
    b: &Budget,
) -> Result<Mesh, EvalError> {
    let mut result: Option<Mesh> = None;
    for (m, op) in operands_at(se, obj, t, depth, b)? {
        result = Some(match (result, op) {
            (Some(acc), Some(op)) => csg(&acc, &m, op, &b.work)?,
            _ => m,
        });
    }
    result.ok_or_else(|| EvalError::malformed("", "a Boolean without operands"))
}

/// The operands of Boolean3 object `obj` at `t`, each placed in the Boolean's
/// object space with the operation that combines it with those before (none
/// for the first).
pub fn operands(se: &SceneEval, obj: usize, t: i32) -> Result<Vec<(Mesh, Option<Op>)>, EvalError> {
    operands_at(se, obj, t, 0, &Budget::default())
}

fn operands_at(
    se: &SceneEval,
    obj: usize,
    t: i32,
    depth: usize,
    b: &Budget,
) -> Result<Vec<(Mesh, Option<Op>)>, EvalError> {
    let pb = pblock::reference(&se.graph, obj, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let tabs = tabs(se.chunks(pb))?;
    let Tab::Refs(objects) = tab(&tabs, PARAM_OBJECTS, "objects")? else {
        return Err(EvalError::reference(
            "",
            "the objects parameter is not a reference tab",
        ));
    };
    let Tab::Refs(tms) = tab(&tabs, PARAM_OPERAND_TM, "operand_tm")? else {
        return Err(EvalError::reference(
            "",
            "the operand_tm parameter is not a reference tab",
        ));
    };
    let Tab::Ints(ops) = tab(&tabs, PARAM_OPERATION, "operation")? else {
        return Err(EvalError::malformed(
            "",
            "the operation parameter is not an int tab",
        ));
    };
    let Tab::Ints(options) = tab(&tabs, PARAM_OPTION, "option")? else {
        return Err(EvalError::malformed(
            "",
            "the option parameter is not an int tab",
        ));
    };
    let n = objects.len();
    if tms.len() != n || ops.len() != n || options.len() != n {
        return Err(EvalError::malformed(
            "",
            format!(
                "{n} operands, {} placements, {} operations, {} options",
                tms.len(),
                ops.len(),
                options.len()
            ),
        ));
    }
    if n < 2 {
        return Err(EvalError::not_evaluated(format!(
            "a Boolean of {n} operands"
        )));
    }
    check_tree(se.chunks(obj))?;
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let op = if k == 0 {
            None
        } else {
            Some(operation(ops[k]).map_err(|e| e.inside(format!("operand {k}")))?)
        };
        match options[k] {
            0 => {}
            1 => return Err(EvalError::not_evaluated(format!("operand {k}: Imprint"))),
            2 => return Err(EvalError::not_evaluated(format!("operand {k}: Cookie"))),
            o => return Err(EvalError::not_evaluated(format!("operand {k}: option {o}"))),
        }
        let operand = pblock::reference(&se.graph, pb, objects[k]).ok_or_else(|| {
            EvalError::reference(
                format!("operand {k}"),
                format!("no object (block reference {})", objects[k]),
            )
        })?;
        let mut m = operand_mesh(se, operand, t, depth, b)
            .map_err(|e| e.inside(format!("Boolean operand {k}")))?;
        let tm = pblock::reference(&se.graph, pb, tms[k])
            .map_or(Ok(Mat43::IDENTITY), |c| prs(se, c, t))
            .map_err(|e| e.inside(format!("Boolean operand {k} transform")))?;
        transform(&mut m, &tm);
        out.push((m, op));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: u16, ty: u16, payload: &[u8]) -> Chunk {
        pblock::test_record(id, ty, 0, payload)
    }

    #[test]
    fn reference_tabs_take_slots_in_order() {
        let chunks = [
            record(4, TYPE_TAB | TYPE_REFTARG, &[2, 0, 0, 0, 0x40, 0x40]),
            record(5, TYPE_TAB | TYPE_INT, &[1, 0, 0, 0, 0x40, 2, 0, 0, 0]),
            record(7, TYPE_TAB | TYPE_REFTARG, &[2, 0, 0, 0, 0x40, 0x40]),
        ];
        let t = tabs(&chunks).expect("tabs");
        assert_eq!(t[0], (4, Tab::Refs(vec![0, 1])));
        assert_eq!(t[1], (5, Tab::Ints(vec![2])));
        assert_eq!(t[2], (7, Tab::Refs(vec![2, 3])));
    }

    #[test]
    fn damaged_tabs_are_errors() {
        // Two ints announced, one stored.
        let short = [record(
            5,
            TYPE_TAB | TYPE_INT,
            &[2, 0, 0, 0, 0x40, 2, 0, 0, 0],
        )];
        let e = tabs(&short).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("Boolean parameter 5: element flags"),
            "{e}"
        );
        let huge = [record(
            4,
            TYPE_TAB | TYPE_REFTARG,
            &[0xff, 0xff, 0xff, 0xff],
        )];
        assert_eq!(
            tabs(&huge).unwrap_err().to_string(),
            format!("Boolean parameter 4: tab of {} elements", u32::MAX)
        );
        assert!(operation(3).unwrap_err().to_string().contains("Merge"));
        assert_eq!(operation(2), Ok(Op::AMinusB));
    }
}
