//! Chamfer modifier (0x332c9510, 0x38bb548c; 3ds Max 2015 and later): a
//! procedural edge chamfer with its own ParamBlock2 (reference 0).
//!
//! Parameter ids read from the blocks of 61 saved modifiers (Gate.max,
//! radio.max, vilTools' displays and ModifiersTestScene; docs/unseen-files.md
//! "Chamfer modifier"): 0 amount (world units; 0.03 … 2.8, the MaxScript
//! default 1.0), 1 segments (0 … 25), 2 tension (1.0 or 0.5), 12 the minimum
//! angle (degrees; 30 or 90). Settings 5 and 6 (0 / 0 in Gate and radio, 5 / 2
//! in vilTools) vary with the edge choice and the corner style and are not
//! decoded; nor is which stored integer is the quad / standard switch.
//!
//! What Max chamfers was measured on Gate.max: its ten Rectangle slabs (a
//! Shell of 5 segments on a rectangle: 24 vertices, 22 polygons) come out
//! with 56 vertices and 58 polygons — the sizes the Edit Poly above saved
//! (0x0200 / 0x0220) and the FBX's. That is exactly one row of polygons on
//! each of the 28 edges at 30° or more (top and bottom borders, the four
//! corner lines of 5 edges each; not the rim's coplanar rows), a triangle at
//! each of the 8 corners where three meet, and each of the 16 vertices
//! between two collinear chamfered edges split in two: 8 × 3 + 16 × 2
//! vertices, 22 + 28 + 8 polygons. Those edges are what [`candidates`]
//! counts. Three chamfered edges meeting at a vertex, and chamfered edges
//! continuing through a vertex, are corners the replayed chamfers of Edit
//! Poly (`edit_poly_chamfer*`) do not cover; the positions could not be
//! checked (a Noise, not evaluated, sits above every Gate slab), and no other
//! saved modifier's edges fall into a case they cover. So every Chamfer
//! modifier is refused, naming its settings and the candidate edges of its
//! input: how many, how many vertices join three or more of them and how
//! many two, and the open and non-manifold edges.

use std::collections::HashMap;

use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::primitive::{block_params, Params};
use crate::typed::ClassId;

pub const CHAMFER: ClassId = ClassId(0x332c_9510, 0x38bb_548c);

/// The settings read from the block (ids in the module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub amount: f64,
    /// As stored: Gate's slabs store 0 and show one row of polygons.
    pub segments: i64,
    pub tension: f64,
    /// Degrees.
    pub min_angle: f64,
    /// Settings 5 and 6, not decoded (edge choice, corner style).
    pub undecoded: [i64; 2],
}

pub fn settings(p: &Params) -> Settings {
    Settings {
        amount: p.float_or(0, 1.0),
        segments: p.int_or(1, 1),
        tension: p.float_or(2, 1.0),
        min_angle: p.float_or(12, 30.0),
        undecoded: [p.int_or(5, 0), p.int_or(6, 0)],
    }
}

/// The input's edges at the minimum angle or more (between the normals of
/// the two triangles they join) — on Gate.max the edges Max chamfered —
/// counted as the refusal names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Candidates {
    /// Edges between two triangles whose normals differ by at least the
    /// minimum angle.
    pub edges: usize,
    /// Vertices where exactly two, and three or more, of those edges meet.
    pub two_way: usize,
    pub many_way: usize,
    /// Edges of one triangle (border).
    pub open: usize,
    /// Edges of more than two triangles.
    pub non_manifold: usize,
}

/// Counts the candidate edges of `mesh` for a minimum angle of `degrees`.
pub fn candidates(mesh: &Mesh, degrees: f64) -> Candidates {
    let normal = |f: usize| {
        let [a, b, c] = mesh.faces[f]
            .v
            .map(|i| mesh.vertices.get(i as usize).copied());
        match (a, b, c) {
            (Some(a), Some(b), Some(c)) => b.minus(a).cross(c.minus(a)).normalized(),
            _ => Vec3(0.0, 0.0, 0.0),
        }
    };
    let mut faces_of: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (i, f) in mesh.faces.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
            faces_of.entry((a.min(b), a.max(b))).or_default().push(i);
        }
    }
    let cos_limit = degrees.to_radians().cos();
    let mut out = Candidates::default();
    let mut per_vertex: HashMap<u32, usize> = HashMap::new();
    for (&(a, b), fs) in &faces_of {
        match fs.len() {
            1 => out.open += 1,
            2 => {
                if normal(fs[0]).dot(normal(fs[1])) <= cos_limit {
                    out.edges += 1;
                    *per_vertex.entry(a).or_default() += 1;
                    *per_vertex.entry(b).or_default() += 1;
                }
            }
            _ => out.non_manifold += 1,
        }
    }
    out.two_way = per_vertex.values().filter(|&&n| n == 2).count();
    out.many_way = per_vertex.values().filter(|&&n| n >= 3).count();
    out
}

/// The refusal: settings and candidate edges, so a later implementation can
/// see which case each modifier is.
pub fn refusal(s: &Settings, c: &Candidates) -> EvalError {
    EvalError::not_evaluated_why(
        format!(
            "chamfer of amount {}, {} segments (stored), tension {}, minimum angle {}° \
             (settings 5 = {}, 6 = {} not decoded) on a mesh with {} edges at that angle or \
             more ({} vertices joining three or more of them, {} joining two), {} open and \
             {} non-manifold edges",
            s.amount,
            s.segments,
            s.tension,
            s.min_angle,
            s.undecoded[0],
            s.undecoded[1],
            c.edges,
            c.many_way,
            c.two_way,
            c.open,
            c.non_manifold
        ),
        why(s, c),
    )
}

/// Why this case is not evaluated: what was measured on Gate.max (settings
/// 5 / 6 at 0, segments stored 0, edges at the minimum angle chamfered in
/// one row) and how this modifier departs from it.
fn why(s: &Settings, c: &Candidates) -> String {
    if s.undecoded != [0, 0] {
        "settings 5 / 6 other than 0 / 0 (Gate.max's, where the edges at the minimum angle \
         are chamfered) are not decoded"
            .into()
    } else if c.edges == 0 {
        "no edge at the minimum angle: whether Max then leaves the mesh as it is was not \
         measured"
            .into()
    } else if s.segments != 0 {
        format!(
            "{} segments stored: only 0 was measured (one row of polygons on Gate.max)",
            s.segments
        )
    } else {
        "one row of polygons on these edges, as on Gate.max, is not derived: the corners where \
         they meet are a case the Edit Poly chamfers do not cover, and Gate's positions, under \
         a Noise, could not be checked"
            .into()
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let pb = crate::eval::core::pblock::reference(&cx.eval.graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let s = settings(&block_params(cx.eval, pb, cx.t)?);
    Err(refusal(&s, &candidates(mesh, s.min_angle)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unit cube's quads (`poly::unit_cube`) as 12 triangles, the
    /// diagonals coplanar.
    fn cube() -> Mesh {
        crate::eval::objects::poly::unit_cube()
            .to_mesh()
            .expect("a cube")
    }

    #[test]
    fn a_cube_has_its_twelve_edges_three_at_each_corner() {
        let c = candidates(&cube(), 30.0);
        assert_eq!(
            c,
            Candidates {
                edges: 12,
                two_way: 0,
                many_way: 8,
                open: 0,
                non_manifold: 0
            }
        );
        // Right angles: none at more than 90°.
        assert_eq!(candidates(&cube(), 91.0).edges, 0);
    }
}
