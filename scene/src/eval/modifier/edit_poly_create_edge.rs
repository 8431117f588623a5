//! Edit Poly's Create Edge (operation 62): a new edge between two vertices of
//! one polygon, which splits it. Its local data (0x0238) holds 0x0640 = u32 n
//! and n vertex indices, read as one (v1, v2) pair: n = 2 is the only count
//! seen (the Alien character files of the public sweep), others are refused.
//!
//! Decoded, not replayed: the split would be Connect Vertex's
//! (`edit_poly_edges::split_face`, whose kept and appended parts Table.max's
//! Unwrap UVW cache pins), but no file checks that Create Edge splits the same
//! way — every recorded one follows an operation not replayed, so neither
//! Max's later sizes nor a cache reach it. The operation is refused naming the
//! pair and the polygon it splits (or why it splits none).

use crate::eval::core::keys::Words;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

/// The record holding the vertex pairs.
const PAIRS: u16 = 0x0640;

/// Create Edge: decoded and located, then refused (see the module's doc).
pub(super) fn create_edge(poly: &PolyMesh, data: &[(u16, Vec<u8>)]) -> Result<(), EvalError> {
    if let Some((id, _)) = data.iter().find(|(id, _)| *id != PAIRS) {
        return Err(EvalError::not_evaluated(format!(
            "Create Edge record {id:#06x}"
        )));
    }
    let p = data
        .iter()
        .find(|(id, _)| *id == PAIRS)
        .map(|(_, p)| p)
        .ok_or_else(|| EvalError::malformed("", "Create Edge without its vertices (0x0640)"))?;
    if p.len() < 4 || !p.len().is_multiple_of(4) {
        return Err(EvalError::malformed(
            "",
            format!("Create Edge record 0x0640 of {} bytes", p.len()),
        ));
    }
    let w = Words(p);
    let n = w.u32(0) as usize;
    if n != p.len() / 4 - 1 {
        return Err(EvalError::malformed(
            "",
            format!("Create Edge of {n} vertices stores {}", p.len() / 4 - 1),
        ));
    }
    if n != 2 {
        return Err(EvalError::not_evaluated(format!(
            "Create Edge recording {n} vertices"
        )));
    }
    let (a, b) = (w.u32(1), w.u32(2));
    for v in [a, b] {
        if v as usize >= poly.vertices.len() {
            return Err(EvalError::malformed(
                "",
                format!("Create Edge on vertex {v} of {}", poly.vertices.len()),
            ));
        }
    }
    let (fi, i, j) = locate(poly, a, b)?;
    Err(EvalError::not_evaluated_why(
        format!("Create Edge {a}-{b} splitting face {fi} at corners {i} and {j}"),
        "which part keeps the face's index is not checked against a result of Max's",
    ))
}

/// The one polygon holding `a` and `b` as corners not on one side, and
/// those corners (i < j).
fn locate(poly: &PolyMesh, a: u32, b: u32) -> Result<(usize, usize, usize), EvalError> {
    let mut found = Vec::new();
    for (fi, f) in poly.faces.iter().enumerate() {
        let n = f.v.len();
        let (Some(ca), Some(cb)) = (
            f.v.iter().position(|&x| x == a),
            f.v.iter().position(|&x| x == b),
        ) else {
            continue;
        };
        let (i, j) = (ca.min(cb), ca.max(cb));
        if j == i + 1 || (i == 0 && j == n - 1) {
            return Err(EvalError::not_evaluated(format!(
                "Create Edge {a}-{b} along a side of face {fi} (the edge exists)"
            )));
        }
        found.push((fi, i, j));
    }
    match found[..] {
        [one] => Ok(one),
        [] => Err(EvalError::not_evaluated(format!(
            "Create Edge {a}-{b} across no polygon"
        ))),
        _ => Err(EvalError::not_evaluated(format!(
            "Create Edge {a}-{b} across {} polygons (which one Max splits is not derived)",
            found.len()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::{PolyFace, PolyMap};

    fn u32s(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A pentagon 0‥4 and a triangle 1-5-2 beside it, mapped, edges known.
    fn pentagon() -> PolyMesh {
        let mut m = PolyMesh {
            maps: vec![PolyMap {
                channel: 1,
                vertices: vec![[0.0; 3]; 6],
                faces: vec![vec![0, 1, 2, 3, 4], vec![1, 5, 2]],
            }],
            ..PolyMesh::planar(
                &[
                    (0.0, 0.0),
                    (2.0, 0.0),
                    (2.5, 1.5),
                    (1.0, 2.5),
                    (-0.5, 1.5),
                    (3.0, 0.0),
                ],
                &[(&[0, 1, 2, 3, 4], 3, 1), (&[1, 5, 2], 4, 2)],
            )
        };
        m.edges = Some(m.walked_edges());
        m
    }

    #[test]
    fn create_edge_names_the_pair_and_the_polygon_it_splits() {
        let m = pentagon();
        let e = create_edge(&m, &[(PAIRS, u32s(&[2, 3, 1]))]).expect_err("refused");
        assert_eq!(
            e.to_string(),
            "Create Edge 3-1 splitting face 0 at corners 1 and 3 is not evaluated (which part \
             keeps the face's index is not checked against a result of Max's)"
        );
        // The mesh is left as it was.
        assert_eq!(m.faces.len(), 2);
        // The id the dispatch uses names this operation.
        use super::super::edit_poly_records::{op_name, OP_CREATE_EDGE};
        assert_eq!(op_name(OP_CREATE_EDGE), "operation Create Edge (62)");
    }

    #[test]
    fn create_edge_refuses_what_it_cannot_place() {
        let refused = |w: &[u32]| {
            let m = pentagon();
            create_edge(&m, &[(PAIRS, u32s(w))]).map_err(|e| e.to_string())
        };
        // Along an existing side, across no polygon, off the mesh.
        assert!(refused(&[2, 1, 2])
            .expect_err("side")
            .contains("edge exists"));
        assert!(refused(&[2, 0, 5])
            .expect_err("none")
            .contains("no polygon"));
        assert!(refused(&[2, 0, 9]).is_err());
        // Counts other than one pair, a count the record does not hold.
        assert!(refused(&[4, 0, 2, 0, 3])
            .expect_err("two pairs")
            .contains("4 vertices"));
        assert!(refused(&[3, 0, 2]).is_err());
        let m = pentagon();
        assert!(create_edge(&m, &[]).is_err());
        assert!(create_edge(&m, &[(PAIRS, u32s(&[2, 0, 2])), (0x0641, vec![])]).is_err());
        // Two polygons holding both vertices: which one Max splits is not known.
        let mut m = pentagon();
        m.faces.push(PolyFace::fan(vec![0, 5, 3, 2], 0, 0));
        m.maps[0].faces.push(vec![0, 5, 3, 2]);
        m.edges = None;
        assert!(create_edge(&m, &[(PAIRS, u32s(&[2, 0, 3]))])
            .expect_err("two")
            .to_string()
            .contains("2 polygons"));
    }
}
