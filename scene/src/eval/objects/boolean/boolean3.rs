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
//! per operand and the operand tree (0x0140 / 0x00d2): the Boolean
//! Explorer's list, which gives the order the operands are combined in
//! (`operand_order`; docs/max-format.md).
//!
//! Evaluation: the first operand of the list starts the result; each later
//! one is combined with it by its operation through the same CSG as the old
//! Boolean (the first operand's own operation plays no part; one operand
//! alone is the result). Max computes no stored result for this class, and
//! its triangulation differs from ours (same surface, other triangles), so
//! index-based modifiers above it are refused as for the old Boolean. Merge,
//! attach, insert, imprint and cookie are refused by name. Material ids are
//! kept as each operand has them; where the node's material is a
//! Multi/Sub-Object they matter and coverage names them
//! ([`material_ids_gap`]).

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

/// The order Max combines the operands in, from the operand tree
/// (0x0140 / 0x00d2): the Boolean Explorer's list, which the user may reorder
/// (or nest) without the parameter tabs changing.
///
/// Layout (docs/max-format.md): i32 words `n, n`, then five arrays of `n`
/// words, one entry per tree node: parent, previous sibling, next sibling,
/// operand index, first child (-1 = none). Node `k` stands for operand `k`;
/// its operand word is `k`, or -1 in a copied Boolean. The operands are the
/// top-level list from the node without a previous sibling along the next
/// links. A node with a parent or a child (operands grouped under others) is
/// refused: no file shows what such a group computes.
fn operand_order(chunks: &[Chunk], n: usize) -> Result<Vec<usize>, EvalError> {
    let tree = chunks
        .iter()
        .find(|c| c.id == 0x0140)
        .and_then(|t| t.children().iter().find(|c| c.id == 0x00d2))
        .and_then(Chunk::payload)
        .ok_or_else(|| EvalError::malformed("", "no operand tree (0x0140 / 0x00d2)"))?;
    let mut r = ByteReader::new(tree);
    let count = r.i32("operand tree count").map_err(EvalError::from)?;
    let again = r.i32("operand tree count").map_err(EvalError::from)?;
    let bad = |what: String| EvalError::malformed("operand tree (0x0140)", what);
    if count != again || usize::try_from(count).ok() != Some(n) || r.remaining() != 5 * 4 * n {
        return Err(bad(format!(
            "counts {count}, {again} and {} bytes of links for {n} operands",
            r.remaining()
        )));
    }
    let mut words = Vec::with_capacity(5 * n);
    for _ in 0..5 * n {
        words.push(r.i32("operand tree link").map_err(EvalError::from)?);
    }
    let array = |k: usize| &words[k * n..(k + 1) * n];
    let (parent, prev, next, operand, child) = (array(0), array(1), array(2), array(3), array(4));
    if let Some(k) = (0..n).find(|&k| parent[k] != -1 || child[k] != -1) {
        return Err(EvalError::not_evaluated_why(
            format!(
                "operand tree node {k} with parent {} and first child {} (0x0140)",
                parent[k], child[k]
            ),
            "operands grouped under others",
        ));
    }
    if let Some(k) = (0..n).find(|&k| operand[k] != -1 && operand[k] != k as i32) {
        return Err(EvalError::not_evaluated_why(
            format!(
                "operand tree node {k} standing for operand {} (0x0140)",
                operand[k]
            ),
            "every tree seen has node k for operand k",
        ));
    }
    let link = |w: i32| usize::try_from(w).ok().filter(|&k| k < n);
    let heads: Vec<usize> = (0..n).filter(|&k| prev[k] == -1).collect();
    let mut order = Vec::with_capacity(n);
    let mut cur = match heads[..] {
        [h] => Some(h),
        _ => return Err(bad(format!("{} list heads", heads.len()))),
    };
    let mut seen = vec![false; n];
    while let Some(k) = cur {
        if std::mem::replace(&mut seen[k], true) {
            return Err(bad(format!("node {k} listed twice")));
        }
        order.push(k);
        cur = match next[k] {
            -1 => None,
            w => {
                let j = link(w).ok_or_else(|| bad(format!("node {k} next {w}")))?;
                if prev[j] != k as i32 {
                    return Err(bad(format!("node {j} does not link back to {k}")));
                }
                Some(j)
            }
        };
    }
    if order.len() != n {
        return Err(bad(format!("{} of {n} operands listed", order.len())));
    }
    Ok(order)
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
            (Some(acc), Some(op)) => csg(&acc, &m, op, b)?,
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
    if n == 0 {
        return Err(EvalError::malformed("", "a Boolean without operands"));
    }
    let order = operand_order(se.chunks(obj), n)?;
    let mut out = Vec::with_capacity(n);
    for (i, &k) in order.iter().enumerate() {
        // The first operand of the list is the base: its own operation plays
        // no part (a Boolean of one operand is that operand).
        let op = if i == 0 {
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

/// Why the material ids of node `node`'s Boolean result are not the ones Max
/// renders with, if they matter: the node's material `material` is a
/// Multi/Sub-Object, into which Max's material option ("apply operand
/// material" / "retain original material") maps each operand's faces by a
/// remapping not decoded here (the ids stay as each operand has them). Under
/// no material or a single one the ids select nothing, and nothing is lost.
pub fn material_ids_gap(se: &SceneEval, node: usize, material: usize) -> Option<String> {
    let (_, base) = se.modifier_stack(node)?;
    let class = se.graph.objects.get(base)?.class.as_ref()?.class_id;
    if class != BOOLEAN3 {
        return None;
    }
    let m = crate::eval::render::material::material(se, material)?;
    if m.sub_materials.is_empty() {
        return None;
    }
    let option = pblock::reference(&se.graph, base, 0)
        .and_then(|pb| pblock::param_block2(se.chunks(pb)).ok())
        .and_then(|b| b.params.iter().find(|p| p.id == 1).map(|p| p.value.clone()));
    let option = match option {
        Some(pblock::Value::Int(0)) => "apply operand material".to_string(),
        Some(pblock::Value::Int(1)) => "retain original material".to_string(),
        other => format!("material option {other:?}"),
    };
    Some(format!(
        "material ids of a Max 2017+ Boolean under Multi/Sub-Object {:?} ({option}: \
         how Max maps each operand's ids into it is not evaluated)",
        m.name
    ))
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

    /// An object's chunks holding operand tree `words`.
    fn tree(words: &[i32]) -> Vec<Chunk> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        vec![Chunk::container(
            0x0140,
            vec![
                Chunk::leaf(0x0064, 0u32.to_le_bytes().to_vec()),
                Chunk::leaf(0x00d2, bytes),
            ],
        )]
    }

    #[test]
    fn operand_trees_of_the_sweep_files() {
        // One operand (Dz_1_3.max Cylinder002), two side by side (street.max).
        assert_eq!(
            operand_order(&tree(&[1, 1, -1, -1, -1, 0, -1]), 1),
            Ok(vec![0])
        );
        let flat = [2, 2, -1, -1, -1, 0, 1, -1, 0, 1, -1, -1];
        assert_eq!(operand_order(&tree(&flat), 2), Ok(vec![0, 1]));
        // Lab06.max Sphere001: operand 1 moved to the top of the list.
        let moved = [2, 2, -1, -1, 1, -1, -1, 0, 0, 1, -1, -1];
        assert_eq!(operand_order(&tree(&moved), 2), Ok(vec![1, 0]));
        // комната2.max СТЕНА ОКОННЯЯ: operand 5 moved after operand 1.
        let six = [
            6, 6, -1, -1, -1, -1, -1, -1, -1, 0, 5, 2, 3, 1, 1, 5, 3, 4, -1, 2, 0, 1, 2, 3, 4, 5,
            -1, -1, -1, -1, -1, -1,
        ];
        assert_eq!(operand_order(&tree(&six), 6), Ok(vec![0, 1, 5, 2, 3, 4]));
        // A copied Boolean (bed.max Guard001): operand words -1.
        let copy = [3, 3, -1, -1, -1, -1, 0, 1, 1, 2, -1, -1, -1, -1, -1, -1, -1];
        assert_eq!(operand_order(&tree(&copy), 3), Ok(vec![0, 1, 2]));
    }

    #[test]
    fn unknown_and_damaged_operand_trees_are_refused() {
        let err = |words: &[i32], n| operand_order(&tree(words), n).unwrap_err().to_string();
        // Operand 1 grouped under operand 0 (parent and first child links).
        let nested = [2, 2, -1, 0, -1, -1, -1, -1, 0, 1, 1, -1];
        assert!(
            err(&nested, 2).contains("operands grouped under others"),
            "{}",
            err(&nested, 2)
        );
        let swapped = [2, 2, -1, -1, -1, 0, 1, -1, 1, 0, -1, -1];
        assert!(err(&swapped, 2).contains("standing for operand 1"));
        // Counts that disagree with the tabs or the payload.
        assert!(err(&[2, 2, -1, -1, -1, 0, 1, -1, 0, 1, -1, -1], 3).contains("counts 2, 2"));
        assert!(err(&[2, 2, -1, -1, -1, 0], 2).contains("bytes of links"));
        // A cycle, two heads, a link out of range, a link not returned.
        assert!(err(&[2, 2, -1, -1, 1, 0, 1, 0, 0, 1, -1, -1], 2).contains("0 list heads"));
        assert!(err(&[2, 2, -1, -1, -1, -1, -1, -1, 0, 1, -1, -1], 2).contains("2 list heads"));
        assert!(err(&[2, 2, -1, -1, -1, 0, 7, -1, 0, 1, -1, -1], 2).contains("next 7"));
        assert!(err(
            &[3, 3, -1, -1, -1, -1, 0, 0, 1, 2, -1, 0, 1, 2, -1, -1, -1],
            3
        )
        .contains("does not link back"));
        assert!(operand_order(&[], 1).is_err());
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
