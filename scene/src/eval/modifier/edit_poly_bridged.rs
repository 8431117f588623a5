//! Edit Poly operations on a mesh holding a polygon with holes: one whose
//! outline is bridged to each hole along an edge it runs both ways, as Max's
//! conversion of a triangle mesh makes it (`objects::poly_make`, a
//! ProBoolean's result). The replays assume a polygon meets each of its
//! vertices once, so an operation reaching such a polygon is refused by name;
//! those that leave every polygon's corners as they are, those whose
//! selection stays clear of it, and a Clone Edge of edges between two faces
//! (which clones nothing), replay. (Checked: sidewalk 03's Connect
//! Vertex records beside two bridged 34-gons, docs/unseen-files.md.)

use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

use super::edit_poly_records::{
    op_name, Operation, OP_ATTACH, OP_AUTOSMOOTH, OP_CHAMFER_EDGE, OP_CLONE_EDGE,
    OP_CONNECT_VERTEX, OP_DELETE_FACE, OP_SET_MATERIAL, OP_SMOOTH, OP_TRANSFORM,
};

/// Err when `op` would reach a polygon that meets a vertex twice.
pub(super) fn check(op: &Operation, poly: &PolyMesh) -> Result<(), EvalError> {
    let bridged: Vec<usize> = (0..poly.faces.len())
        .filter(|&f| meets_a_vertex_twice(&poly.faces[f].v))
        .collect();
    if bridged.is_empty() {
        return Ok(());
    }
    let mut on_bridged = vec![false; poly.vertices.len()];
    for &f in &bridged {
        for &v in &poly.faces[f].v {
            if let Some(b) = on_bridged.get_mut(v as usize) {
                *b = true;
            }
        }
    }
    let selected = || op.selection.iter().enumerate().filter(|(_, &s)| s);
    let clear = match op.id {
        OP_TRANSFORM | OP_SET_MATERIAL | OP_AUTOSMOOTH | OP_SMOOTH | OP_DELETE_FACE | OP_ATTACH => {
            true
        }
        OP_CONNECT_VERTEX => selected().all(|(v, _)| !on_bridged.get(v).copied().unwrap_or(false)),
        // Clone Edge copies border edges only: an edge between two faces
        // clones nothing, whatever those faces are.
        OP_CLONE_EDGE => match &poly.edges {
            None => true,
            Some(edges) => selected().all(|(e, _)| {
                edges
                    .get(e)
                    .is_none_or(|&[a, b]| between_two_faces(poly, a, b))
            }),
        },
        OP_CHAMFER_EDGE => match &poly.edges {
            // Without Max's numbering the operation refuses on its own.
            None => true,
            Some(edges) => selected().all(|(e, _)| {
                edges.get(e).is_none_or(|&[a, b]| {
                    !on_bridged.get(a as usize).copied().unwrap_or(false)
                        && !on_bridged.get(b as usize).copied().unwrap_or(false)
                })
            }),
        },
        _ => false,
    };
    if clear {
        return Ok(());
    }
    Err(EvalError::not_evaluated_why(
        format!(
            "{} reaching a polygon with holes (face {} of {} corners, bridged to its holes)",
            op_name(op.id),
            bridged[0],
            poly.faces[bridged[0]].v.len()
        ),
        "its replay on a polygon meeting a vertex twice is not checked against Max",
    ))
}

/// Whether edge `a`–`b` is a side of two different faces, each running it
/// once (not a bridge, which one face runs both ways, nor a border).
fn between_two_faces(poly: &PolyMesh, a: u32, b: u32) -> bool {
    let runs = |v: &[u32], x: u32, y: u32| {
        let n = v.len();
        (0..n).filter(|&j| v[j] == x && v[(j + 1) % n] == y).count()
    };
    let (mut ab, mut ba) = (Vec::new(), Vec::new());
    for (f, face) in poly.faces.iter().enumerate() {
        for _ in 0..runs(&face.v, a, b) {
            ab.push(f);
        }
        for _ in 0..runs(&face.v, b, a) {
            ba.push(f);
        }
    }
    matches!((ab.as_slice(), ba.as_slice()), ([f], [g]) if f != g)
}

fn meets_a_vertex_twice(v: &[u32]) -> bool {
    let mut seen = std::collections::HashSet::with_capacity(v.len());
    !v.iter().all(|x| seen.insert(*x))
}
