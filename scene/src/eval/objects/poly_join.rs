//! A primitive's triangle mesh as a polygon mesh, for the primitives a poly
//! modifier receives converted (`MNMesh::SetFromTri`, then `MakePolyMesh`,
//! which joins faces across hidden edges): the Plane, and version-1
//! Cylinders with cap segments. Their builders emit each quad as two
//! consecutive triangles sharing a hidden diagonal and every other face as a
//! triangle with all edges visible, so only those two cases are joined here
//! (anything else is refused). The vertices stay the triangle mesh's; a
//! polygon takes its first triangle's place (the faces after it move up); a
//! quad's corners are its first triangle's from its first corner with the
//! second's far corner inserted in the hidden edge — the rule the version-1
//! Cylinder's side quads follow (checked against Wire.max's Unwrap cache,
//! `primitive_poly.rs`) — and it keeps the two triangles. Map faces follow
//! their faces.

use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::eval::objects::poly::{PolyFace, PolyMap, PolyMesh};

/// All three edge visibility bits.
const ALL_EDGES: u16 = 0b111;

/// One polygon: its triangles (ascending) and its corners as (triangle,
/// corner) slots.
type Joined = (Vec<usize>, Vec<(usize, usize)>);

/// The hidden edge `e` of `a` that `b` runs backwards (at its edge `back`).
fn shared_hidden(a: &Face, b: &Face) -> Option<(usize, usize)> {
    (0..3).find_map(|e| {
        if a.flags & (1 << e) != 0 {
            return None;
        }
        let (x, y) = (a.v[e], a.v[(e + 1) % 3]);
        let back = (0..3).find(|&j| b.v[j] == y && b.v[(j + 1) % 3] == x)?;
        (b.flags & (1 << back) == 0).then_some((e, back))
    })
}

/// Joins the triangle pairs of `tri` (see the module documentation).
pub(crate) fn join_hidden_pairs(tri: &Mesh) -> Result<PolyMesh, EvalError> {
    tri.check_map_faces()?;
    let mut joined: Vec<Joined> = Vec::with_capacity(tri.faces.len());
    let mut i = 0;
    while i < tri.faces.len() {
        if tri.faces[i].flags & ALL_EDGES == ALL_EDGES {
            joined.push((vec![i], (0..3).map(|c| (i, c)).collect()));
            i += 1;
            continue;
        }
        let slots = pair_slots(tri, i).ok_or_else(|| {
            EvalError::malformed(
                "",
                format!("triangle {i} has a hidden edge its successor does not share"),
            )
        })?;
        joined.push((vec![i, i + 1], slots));
        i += 2;
    }
    assemble(tri, &joined)
}

/// A quad of triangles `first` and `first + 1` sharing a hidden edge: the
/// first's corners with the second's far corner inserted in that edge.
fn pair_slots(tri: &Mesh, first: usize) -> Option<Vec<(usize, usize)>> {
    let (e, back) = shared_hidden(&tri.faces[first], tri.faces.get(first + 1)?)?;
    let mut slots: Vec<(usize, usize)> = (0..3).map(|c| (first, c)).collect();
    slots.insert(e + 1, (first + 1, (back + 2) % 3));
    Some(slots)
}

/// The polygon mesh of `joined` over `tri`'s vertices: a polygon keeps its
/// triangles, takes its first one's material and smoothing, and map faces
/// follow the corners.
fn assemble(tri: &Mesh, joined: &[Joined]) -> Result<PolyMesh, EvalError> {
    let faces = joined
        .iter()
        .map(|(members, slots)| {
            let v: Vec<u32> = slots.iter().map(|&(f, c)| tri.faces[f].v[c]).collect();
            // Each triangle's corners as polygon corners (by vertex).
            let tris = members
                .iter()
                .map(|&t| {
                    tri.faces[t]
                        .v
                        .map(|x| v.iter().position(|&y| y == x).unwrap_or(0))
                })
                .collect();
            let first = &tri.faces[members[0]];
            PolyFace {
                v,
                tris,
                material: first.material,
                smoothing: first.smoothing,
            }
        })
        .collect();
    let maps = tri
        .maps
        .iter()
        .map(|m| PolyMap {
            channel: m.channel,
            vertices: m.vertices.clone(),
            faces: joined
                .iter()
                .map(|(_, slots)| slots.iter().map(|&(f, c)| m.faces[f][c]).collect())
                .collect(),
        })
        .collect();
    let poly = PolyMesh {
        vertices: tri.vertices.clone(),
        faces,
        maps,
        edges: None,
        normals: None,
    };
    poly.validate()?;
    Ok(poly)
}
