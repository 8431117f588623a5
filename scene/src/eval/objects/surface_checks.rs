//! Whether a built mesh is a closed, consistently wound surface, and which
//! way its faces point: what the object tests (here and in the corpus
//! tests) hold every generated solid to.

use crate::eval::objects::mesh::Mesh;
use std::collections::HashMap;

/// Every directed edge is used once and has exactly one opposite: closed,
/// consistently wound.
pub fn closed(m: &Mesh) -> bool {
    let mut edges: HashMap<(u32, u32), u32> = HashMap::new();
    for f in &m.faces {
        for k in 0..3 {
            *edges.entry((f.v[k], f.v[(k + 1) % 3])).or_default() += 1;
        }
    }
    edges
        .iter()
        .all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1))
}

/// The enclosed volume: positive when the faces point outwards. A face
/// naming a vertex the mesh lacks adds nothing.
pub fn signed_volume(m: &Mesh) -> f64 {
    m.faces
        .iter()
        .filter_map(|f| {
            let [a, b, c] = f.v.map(|i| m.vertices.get(i as usize).copied());
            Some(a?.dot(b?.cross(c?)) / 6.0)
        })
        .sum()
}
