//! Whether what an object computes can change over time: the rule for using a
//! result Max saved with the scene (ProBoolean's stored mesh, Unwrap UVW's
//! cache of its input) as the evaluation at every time. Such a result holds
//! the one moment Max last evaluated, so it stands for the object only when no
//! controller it depends on takes another value at another time.

use std::collections::HashSet;

use crate::eval::core::channels;
use crate::eval::error::EvalError;
use crate::eval::SceneEval;

/// Objects the walk visits at most (a damaged reference graph must not make
/// it walk the whole scene repeatedly).
const MAX_REACHED: usize = 4096;

/// The first controller reachable from `roots` through references whose value
/// changes over time (keys at two or more times), or that cannot be decoded
/// (so whether it changes is not known), described for an error message.
///
/// Nodes in `holders` (those the result belongs to) are not entered: a
/// modifier stack shared by several nodes has one result for all of them, so
/// it follows none of their transforms (Shotgun's Shell and Shell001 share one
/// Unwrap UVW cache at two keyed positions). Any other node reached — a
/// Conform's target, an operand picked in the scene — is entered through its
/// transform controller, its ancestors' and its object, since the modifier
/// reads where that node is and what its mesh is.
pub fn first_varying(
    se: &SceneEval,
    roots: &[usize],
    holders: &[usize],
) -> Result<Option<String>, EvalError> {
    let mut seen = HashSet::new();
    let mut todo: Vec<usize> = roots.to_vec();
    while let Some(i) = todo.pop() {
        if !seen.insert(i) {
            continue;
        }
        if seen.len() > MAX_REACHED {
            return Err(EvalError::limit(
                "objects a saved result depends on",
                MAX_REACHED,
            ));
        }
        let Some(o) = se.graph.objects.get(i) else {
            continue;
        };
        if let Some(node) = &o.node {
            if holders.contains(&i) {
                continue;
            }
            // Its transform (slot 0), its object (slot 1) and its ancestors.
            todo.extend(
                o.references
                    .iter()
                    .filter(|r| r.slot <= 1)
                    .filter_map(|r| usize::try_from(r.target).ok()),
            );
            if let Some(p) = node.parent.and_then(|p| usize::try_from(p).ok()) {
                todo.push(p);
            }
            continue;
        }
        let is_controller = o
            .class
            .as_ref()
            .is_some_and(|c| (0x9000..0x9100).contains(&c.super_class));
        if is_controller {
            let name = o.class.as_ref().map_or("?", |c| c.name.as_str());
            match se.controller(i) {
                Some(c) if channels::varies(c) => {
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
