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

/// `tri` as Max converts a triangle mesh to polygons (`SetFromTri`,
/// `MakePolyMesh`): regions joined across hidden edges
/// ([`join_hidden_regions`]), edges numbered as the triangles walk them
/// without the hidden ones, which is the numbering a poly modifier's
/// recorded edge indices refer to.
pub(crate) fn as_max_converts(tri: &Mesh) -> Result<PolyMesh, EvalError> {
    let mut p = join_hidden_regions(tri)?;
    let identity: Vec<Option<u32>> = (0..tri.vertices.len() as u32).map(Some).collect();
    p.set_edges(super::poly::triangle_walk_edges(&tri.faces, &identity)?)?;
    Ok(p)
}

/// Joins every region of `tri`'s triangles connected across hidden edges into
/// one polygon (`MakePolyMesh` without its degree limit), for builders whose
/// polygons are more than two triangles, such as Extrude's caps (one fan of
/// hidden diagonals per outline). A region of one triangle or of two
/// consecutive ones follows [`join_hidden_pairs`]; a larger one becomes the
/// loop of its outline edges from its first triangle's first corner, keeping
/// the region's triangles. A region whose outline is not one simple loop
/// (an outline with holes bridged inside) is refused.
pub(crate) fn join_hidden_regions(tri: &Mesh) -> Result<PolyMesh, EvalError> {
    use std::collections::HashMap;
    tri.check_map_faces()?;
    let n = tri.faces.len();
    // Directed edge → (face, edge) for hidden edges.
    let mut hidden: HashMap<(u32, u32), usize> = HashMap::new();
    for (i, f) in tri.faces.iter().enumerate() {
        for e in 0..3 {
            if f.flags & (1 << e) == 0 {
                hidden.insert((f.v[e], f.v[(e + 1) % 3]), i);
            }
        }
    }
    let mut region = vec![usize::MAX; n];
    let mut regions: Vec<Vec<usize>> = Vec::new();
    for start in 0..n {
        if region[start] != usize::MAX {
            continue;
        }
        let id = regions.len();
        region[start] = id;
        let mut members = vec![start];
        let mut k = 0;
        while k < members.len() {
            let f = &tri.faces[members[k]];
            for e in 0..3 {
                if f.flags & (1 << e) != 0 {
                    continue;
                }
                if let Some(&g) = hidden.get(&(f.v[(e + 1) % 3], f.v[e])) {
                    if region[g] == usize::MAX {
                        region[g] = id;
                        members.push(g);
                    }
                }
            }
            k += 1;
        }
        members.sort_unstable();
        regions.push(members);
    }
    let mut joined: Vec<Joined> = Vec::with_capacity(regions.len());
    for members in regions {
        let first = members[0];
        let slots: Vec<(usize, usize)> = match members.len() {
            1 => (0..3).map(|c| (first, c)).collect(),
            2 if members[1] == first + 1 => pair_slots(tri, first).ok_or_else(|| {
                EvalError::malformed("", format!("triangles {first} and its successor"))
            })?,
            _ => outline(tri, &members)?,
        };
        joined.push((members, slots));
    }
    assemble(tri, &joined)
}

/// The outline of a region of triangles as (face, corner) slots: each
/// corner's outgoing edge is one no other triangle of the region runs
/// backwards, walked from the first triangle's first outline corner.
fn outline(tri: &Mesh, members: &[usize]) -> Result<Vec<(usize, usize)>, EvalError> {
    use std::collections::{HashMap, HashSet};
    let directed: HashSet<(u32, u32)> = members
        .iter()
        .flat_map(|&f| {
            let v = tri.faces[f].v;
            (0..3).map(move |c| (v[c], v[(c + 1) % 3]))
        })
        .collect();
    // Outline edge start vertex → (face, corner).
    let mut next: HashMap<u32, (usize, usize)> = HashMap::new();
    let mut order = Vec::new();
    for &f in members {
        let v = tri.faces[f].v;
        for c in 0..3 {
            if directed.contains(&(v[(c + 1) % 3], v[c])) {
                continue;
            }
            if next.insert(v[c], (f, c)).is_some() {
                return Err(EvalError::not_evaluated_why(
                    format!("a polygon of {} triangles", members.len()),
                    "its outline touches itself",
                ));
            }
            order.push(v[c]);
        }
    }
    let start = order
        .first()
        .copied()
        .ok_or_else(|| EvalError::malformed("", "a closed region of hidden edges"))?;
    let mut slots = Vec::with_capacity(order.len());
    let mut at = start;
    loop {
        let (f, c) = *next
            .get(&at)
            .ok_or_else(|| EvalError::malformed("", "an open polygon outline"))?;
        slots.push((f, c));
        at = tri.faces[f].v[(c + 1) % 3];
        if at == start || slots.len() > order.len() {
            break;
        }
    }
    if at != start || slots.len() != order.len() {
        return Err(EvalError::not_evaluated_why(
            format!("a polygon of {} triangles", members.len()),
            "its outline is more than one loop (holes)",
        ));
    }
    Ok(slots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;

    fn face(v: [u32; 3], flags: u16) -> Face {
        Face {
            v,
            smoothing: 0,
            material: 0,
            flags,
        }
    }

    /// A pentagon fan with hidden diagonals is one polygon keeping its
    /// triangles; a lone triangle stays one.
    #[test]
    fn fan_of_hidden_diagonals_is_one_polygon() {
        let tri = Mesh {
            vertices: (0..6).map(|i| Vec3(f64::from(i), 0.0, 0.0)).collect(),
            faces: vec![
                face([5, 0, 1], 0b111),
                face([0, 1, 2], 0b011),
                face([0, 2, 3], 0b010),
                face([0, 3, 4], 0b110),
            ],
            ..Mesh::default()
        };
        let poly = join_hidden_regions(&tri).expect("joined");
        assert_eq!(poly.faces.len(), 2);
        assert_eq!(poly.faces[0].v, [5, 0, 1]);
        assert_eq!(poly.faces[1].v, [0, 1, 2, 3, 4]);
        assert_eq!(poly.faces[1].tris, [[0, 1, 2], [0, 2, 3], [0, 3, 4]]);
    }
}
