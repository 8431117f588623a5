//! ProBoolean (class (0x31cea620, 0x2257f993)): a compound object whose result
//! Max computes with its own mesh boolean engine and saves with the object.
//!
//! Layout, from the corpus (Kenjis_Room.max): references are the operand
//! objects and, after each, the PRS controller placing it (Box, PRS, Box, PRS);
//! chunk 0x0160 holds the operand count, 0x0161… the operand names, 0x0165…
//! one container per operand (a matrix 0x03e8 and its operation 0x03f2), and
//! 0x0150 the result mesh as `Mesh::Save` writes it (vertices 0x0914, faces
//! 0x0912, map channels 0x0959/0x2394/0x2396, selections 0x092c…).
//!
//! That stored mesh is Max's own result, vertex and face numbering included, so
//! it is the evaluation: recomputing the CSG would give the same surface with
//! other triangles (and other vertex totals than Max's "Mesh Totals"). It is
//! the result at the time Max last evaluated the object, so a ProBoolean whose
//! operands or placements are animated (any keyed controller it reaches) is
//! refused by name rather than shown frozen.

use crate::eval::error::EvalError;
use std::collections::HashSet;

use crate::typed::ClassId;

use crate::eval::core::channels;
use crate::eval::objects::mesh::{self, Mesh};
use crate::eval::SceneEval;

pub const PRO_BOOLEAN: ClassId = ClassId(0x31cea620, 0x2257f993);

/// The chunk holding the result mesh Max saved.
const RESULT: u16 = 0x0150;
/// Objects the animation check visits at most (a damaged reference graph must
/// not make it walk the whole scene repeatedly).
const MAX_REACHED: usize = 4096;

/// The ProBoolean's result: the mesh Max stored with the object.
pub fn eval(se: &SceneEval, obj: usize) -> Result<Mesh, EvalError> {
    let result = se
        .chunks(obj)
        .iter()
        .find(|c| c.id == RESULT)
        .ok_or_else(|| {
            EvalError::malformed(
                "",
                "ProBoolean without its stored result mesh (chunk 0x0150)",
            )
        })?;
    if let Some(why) = animated(se, obj)? {
        return Err(EvalError::malformed(
            format!("ProBoolean with animated operands ({why})"),
            "its stored result holds one \
             moment only",
        ));
    }
    mesh::mesh_buffers(result.children()).map_err(|e| e.inside("ProBoolean result (0x0150)"))
}

/// The first keyed (or undecodable) controller the object reaches through its
/// references, nodes excluded.
fn animated(se: &SceneEval, obj: usize) -> Result<Option<String>, EvalError> {
    let mut seen = HashSet::new();
    let mut todo = vec![obj];
    while let Some(i) = todo.pop() {
        if !seen.insert(i) {
            continue;
        }
        if seen.len() > MAX_REACHED {
            return Err(EvalError::limit(
                "objects a ProBoolean reaches",
                MAX_REACHED,
            ));
        }
        let Some(o) = se.graph.objects.get(i) else {
            continue;
        };
        if o.node.is_some() {
            continue;
        }
        let is_controller = o
            .class
            .as_ref()
            .is_some_and(|c| (0x9000..0x9100).contains(&c.super_class));
        if is_controller {
            let name = o.class.as_ref().map_or("?", |c| c.name.as_str());
            match se.controller(i) {
                Some(c) if channels::is_keyed(c) => {
                    return Ok(Some(format!("keyed controller {name} (object {i})")))
                }
                Some(_) => {}
                None => {
                    let e = se
                        .controller_error(i)
                        .map(|e| e.to_string())
                        .unwrap_or_default();
                    return Ok(Some(format!("controller {name} (object {i}): {e}")));
                }
            }
        }
        todo.extend(
            o.references
                .iter()
                .filter_map(|r| usize::try_from(r.target).ok()),
        );
    }
    Ok(None)
}
