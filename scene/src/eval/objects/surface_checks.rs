//! Checks the object tests share: a built mesh is a closed, consistently
//! wound surface, and its signed volume says which way its faces point.

use crate::eval::objects::mesh::Mesh;

/// Every directed edge is used once and has exactly one opposite: closed,
/// consistently wound.
pub fn closed(m: &Mesh) -> bool {
    let mut edges = std::collections::HashMap::new();
    for f in &m.faces {
        for k in 0..3 {
            *edges.entry((f.v[k], f.v[(k + 1) % 3])).or_insert(0) += 1;
        }
    }
    edges
        .iter()
        .all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1))
}

/// The enclosed volume: positive when the faces point outwards.
pub fn signed_volume(m: &Mesh) -> f64 {
    m.faces
        .iter()
        .map(|f| {
            let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
            a.dot(b.cross(c)) / 6.0
        })
        .sum()
}
