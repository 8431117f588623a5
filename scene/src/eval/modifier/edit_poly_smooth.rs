//! Edit Poly's smoothing-group operations: Set Smoothing (bits set and
//! cleared on the selected faces) and Auto Smooth.

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

use super::edit_poly_topo::check_selection;

fn selected(sel: &[bool], i: usize) -> bool {
    sel.get(i).copied().unwrap_or(false)
}

/// Set Smoothing: the selected faces gain the bits `set` and lose `clear`.
pub(super) fn set_smoothing(
    poly: &mut PolyMesh,
    sel: &[bool],
    set: u32,
    clear: u32,
) -> Result<(), EvalError> {
    check_selection(sel, poly.faces.len(), "faces")?;
    for (i, f) in poly.faces.iter_mut().enumerate() {
        if selected(sel, i) {
            f.smoothing = (f.smoothing & !clear) | set;
        }
    }
    Ok(())
}

/// Unit face normal (Newell's), zero for a degenerate face.
fn normal(poly: &PolyMesh, v: &[u32]) -> Vec3 {
    let mut n = Vec3::default();
    for j in 0..v.len() {
        let (p, q) = (
            poly.vertices[v[j] as usize],
            poly.vertices[v[(j + 1) % v.len()] as usize],
        );
        n = n.plus(p.cross(q));
    }
    let l = n.len();
    if l > 0.0 {
        n.scale(1.0 / l)
    } else {
        n
    }
}

/// Auto Smooth: the selected faces are grouped into regions joined across
/// edges whose two faces (both selected) meet at no more than `angle`
/// radians; each region, in order of its first face, takes the lowest
/// smoothing bit that no face sharing a vertex with it (outside it) carries,
/// so neighbouring regions never smooth together. Faces outside the selection
/// keep their groups.
pub(super) fn auto_smooth(poly: &mut PolyMesh, sel: &[bool], angle: f64) -> Result<(), EvalError> {
    check_selection(sel, poly.faces.len(), "faces")?;
    if !angle.is_finite() {
        return Err(EvalError::malformed(
            "",
            format!("auto smooth angle {angle}"),
        ));
    }
    let n = poly.faces.len();
    let normals: Vec<Vec3> = poly.faces.iter().map(|f| normal(poly, &f.v)).collect();
    let mut edge_faces: std::collections::HashMap<(u32, u32), Vec<usize>> = Default::default();
    for (i, f) in poly.faces.iter().enumerate() {
        for j in 0..f.v.len() {
            let (a, b) = (f.v[j], f.v[(j + 1) % f.v.len()]);
            edge_faces.entry((a.min(b), a.max(b))).or_default().push(i);
        }
    }
    // Regions by union-find over the smooth edges.
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let cos = angle.cos();
    for faces in edge_faces.values() {
        if let [a, b] = faces[..] {
            if a != b && selected(sel, a) && selected(sel, b) && normals[a].dot(normals[b]) >= cos {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut vertex_faces: Vec<Vec<usize>> = vec![Vec::new(); poly.vertices.len()];
    for (i, f) in poly.faces.iter().enumerate() {
        for &v in &f.v {
            vertex_faces[v as usize].push(i);
        }
    }
    let mut members: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for i in (0..n).filter(|&i| selected(sel, i)) {
        let r = root(&mut parent, i);
        members.entry(r).or_default().push(i);
        poly.faces[i].smoothing = 0;
    }
    for faces in members.values() {
        let mut used = 0u32;
        let mut inside = std::collections::HashSet::new();
        inside.extend(faces.iter().copied());
        for &f in faces {
            for &v in &poly.faces[f].v {
                for &g in &vertex_faces[v as usize] {
                    if !inside.contains(&g) {
                        used |= poly.faces[g].smoothing;
                    }
                }
            }
        }
        let free = (!used).trailing_zeros();
        if free >= 32 {
            return Err(EvalError::malformed(
                "",
                "no smoothing group left for an auto-smoothed region",
            ));
        }
        for &f in faces {
            poly.faces[f].smoothing = 1 << free;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::PolyFace;

    /// A strip of three quads folded by 30° and then by 90°.
    fn folded() -> PolyMesh {
        let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
        let v = vec![
            Vec3(0.0, 0.0, 0.0),
            Vec3(0.0, 1.0, 0.0),
            Vec3(1.0, 0.0, 0.0),
            Vec3(1.0, 1.0, 0.0),
            Vec3(1.0 + c, 0.0, s),
            Vec3(1.0 + c, 1.0, s),
            Vec3(1.0 + c - s, 0.0, s + c),
            Vec3(1.0 + c - s, 1.0, s + c),
        ];
        PolyMesh {
            vertices: v,
            faces: vec![
                PolyFace::fan(vec![0, 2, 3, 1], 0, 0),
                PolyFace::fan(vec![2, 4, 5, 3], 0, 0),
                PolyFace::fan(vec![4, 6, 7, 5], 0, 1 << 4),
            ],
            maps: Vec::new(),
            edges: None,
        }
    }

    #[test]
    fn regions_split_at_the_threshold_and_avoid_neighbours() {
        let mut m = folded();
        auto_smooth(&mut m, &[true; 3], 45f64.to_radians()).expect("smooth");
        let g: Vec<u32> = m.faces.iter().map(|f| f.smoothing).collect();
        assert_eq!(g[0], g[1]);
        assert_ne!(g[1] & g[2], g[1], "the 90° fold stays sharp: {g:?}");
        assert_eq!(g[0].count_ones(), 1);
        // An unselected face keeps its group and the region avoids it.
        let mut m = folded();
        auto_smooth(&mut m, &[true, true, false], 45f64.to_radians()).expect("smooth");
        assert_eq!(m.faces[2].smoothing, 1 << 4);
        assert_eq!(m.faces[0].smoothing, 1);
        set_smoothing(&mut m, &[false, true, false], 1 << 7, 1).expect("set");
        assert_eq!(m.faces[1].smoothing, 1 << 7);
    }
}
