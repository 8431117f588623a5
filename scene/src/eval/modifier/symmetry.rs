//! Symmetry (0x2d7e702b, 0xbe41a6e): keeps one side of a plane, adds its
//! mirror image and welds the two along the seam.
//!
//! ParamBlock2 (reference 0), by id: 0 axis (0 X, 1 Y, 2 Z), 1 slice, 2 weld,
//! 3 weld threshold, 4 flip; reference 1 is the gizmo controller. As Max's
//! `SymmetryMod`: the plane passes through the gizmo origin with the gizmo's
//! axis (negated by flip) as normal N, in object space; slicing removes what
//! lies below it (N·p < N·origin) and cuts the polygons that cross it
//! (`symmetry_slice`); the kept
//! faces are copied, reflected through the plane in gizmo space and turned
//! over; vertices within the threshold of the plane that lie within the
//! threshold of each other are welded to their mean.

use crate::eval::error::EvalError;
use std::collections::HashMap;

use super::mirror::clone_reflected;
use super::symmetry_slice::slice_below;
use super::{gizmo, Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::objects::mesh::Mesh;

const PBLOCK_SLOT: u32 = 0;
const GIZMO_SLOT: u32 = 1;

/// Symmetry's plane and options, in object space.
pub(super) struct Plane {
    /// Unit normal of the plane (the kept side is n·p ≥ offset).
    pub n: Vec3,
    pub offset: f64,
    /// The reflection through the plane in gizmo space, in object space.
    pub reflect: Mat43,
    pub slice: bool,
    pub weld: bool,
    pub threshold: f64,
}

/// Reads the plane and options from the parameter block and the gizmo.
pub(super) fn plane(m: &Applied, cx: &ModContext) -> Result<Plane, EvalError> {
    let p = gizmo::params(cx, m, PBLOCK_SLOT)?;
    let axis = match p.int_or(0, 0) {
        a @ 0..=2 => a as usize,
        a => return Err(EvalError::malformed("", format!("symmetry axis {a}"))),
    };
    let flip = p.flag(4, false);
    let to_object = gizmo::gizmo_to_object(cx, m, GIZMO_SLOT)?;
    let to_gizmo = gizmo::inverse(&to_object, "Symmetry gizmo")?;
    let mut dir = [0.0; 3];
    dir[axis] = if flip { -1.0 } else { 1.0 };
    let n = to_object
        .transform_vector(Vec3(dir[0], dir[1], dir[2]))
        .normalized();
    let mut s = [1.0; 3];
    s[axis] = -1.0;
    Ok(Plane {
        n,
        offset: n.dot(to_object.0[3]),
        reflect: to_gizmo
            .then(&Mat43::scaling(Vec3(s[0], s[1], s[2])))
            .then(&to_object),
        slice: p.flag(1, true),
        weld: p.flag(2, true),
        threshold: p.float_or(3, 0.1).max(0.0),
    })
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let pl = plane(m, cx)?;
    if pl.slice {
        slice_below(mesh, pl.n, pl.offset)?;
    }
    clone_reflected(mesh, &pl.reflect, true)?;
    if pl.weld {
        weld_seam(mesh, pl.n, pl.offset, pl.threshold);
    }
    Ok(())
}

/// Welds the seam as `MNMesh::WeldBorderVerts` does: only vertices on an open
/// edge and within `threshold` of the plane take part, and each welds to the
/// nearest other such vertex within `threshold` (a pair, to its midpoint; the
/// lower index survives). A vertex is never welded twice, so near-plane
/// vertices do not chain into one lump.
fn weld_seam(mesh: &mut Mesh, n: Vec3, offset: f64, threshold: f64) {
    let mut uses: HashMap<(u32, u32), u32> = HashMap::new();
    for f in &mesh.faces {
        for k in 0..3 {
            let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
            *uses.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let mut border = vec![false; mesh.vertices.len()];
    for (&(a, b), &count) in &uses {
        if count == 1 {
            border[a as usize] = true;
            border[b as usize] = true;
        }
    }
    let into = pair_seam(&mut mesh.vertices, &border, n, offset, threshold);
    for f in &mut mesh.faces {
        for v in &mut f.v {
            *v = into[*v as usize] as u32;
        }
    }
    let keep: Vec<bool> = mesh
        .faces
        .iter()
        .map(|f| f.v[0] != f.v[1] && f.v[1] != f.v[2] && f.v[2] != f.v[0])
        .collect();
    let mut k = keep.iter();
    mesh.faces.retain(|_| *k.next().unwrap_or(&false));
    for c in &mut mesh.maps {
        let mut k = keep.iter();
        c.faces.retain(|_| *k.next().unwrap_or(&false));
    }
    drop_unused_vertices(mesh);
}

/// The pairing of `weld_seam` on `vertices` (`border`: on an open edge):
/// moves each pair's survivor to the midpoint and returns, per vertex, the
/// vertex it becomes (itself when not welded).
pub(super) fn pair_seam(
    vertices: &mut [Vec3],
    border: &[bool],
    n: Vec3,
    offset: f64,
    threshold: f64,
) -> Vec<usize> {
    let targets: Vec<usize> = (0..vertices.len())
        .filter(|&i| {
            border.get(i).copied().unwrap_or(false)
                && (n.dot(vertices[i]) - offset).abs() <= threshold
        })
        .collect();
    // Grid cells of the threshold's size: near vertices share or touch a cell.
    let cell = threshold.max(1e-9);
    let key = |p: Vec3| [p.0, p.1, p.2].map(|x| (x / cell).floor().clamp(-1e15, 1e15) as i64);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for &i in &targets {
        grid.entry(key(vertices[i])).or_default().push(i);
    }
    let mut into: Vec<usize> = (0..vertices.len()).collect();
    let mut done = vec![false; vertices.len()];
    for &i in &targets {
        if done[i] {
            continue;
        }
        let p = vertices[i];
        let k = key(p);
        let mut best: Option<(f64, usize)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(near) = grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) else {
                        continue;
                    };
                    for &j in near {
                        let d = vertices[j].minus(p).len();
                        if j != i && !done[j] && d <= threshold && best.is_none_or(|(bd, _)| d < bd)
                        {
                            best = Some((d, j));
                        }
                    }
                }
            }
        }
        if let Some((_, j)) = best {
            let (lo, hi) = (i.min(j), i.max(j));
            vertices[lo] = vertices[lo].plus(vertices[hi]).scale(0.5);
            into[hi] = lo;
            done[i] = true;
            done[j] = true;
        }
    }
    into
}

/// Removes vertices no face uses, keeping the order of the others.
pub(super) fn drop_unused_vertices(mesh: &mut Mesh) {
    let mut used = vec![false; mesh.vertices.len()];
    for f in &mesh.faces {
        for &v in &f.v {
            used[v as usize] = true;
        }
    }
    let mut new_index = vec![0u32; used.len()];
    let mut next = 0u32;
    for (i, &u) in used.iter().enumerate() {
        new_index[i] = next;
        next += u32::from(u);
    }
    let mut u = used.iter();
    mesh.vertices.retain(|_| *u.next().unwrap_or(&false));
    for f in &mut mesh.faces {
        f.v = f.v.map(|v| new_index[v as usize]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::mesh::Face;

    #[test]
    fn slice_mirror_and_weld_a_quad_across_the_plane() {
        let face = |v| Face {
            v,
            smoothing: 0,
            material: 0,
            flags: 0b111,
        };
        let mut m = Mesh {
            vertices: vec![
                Vec3(-1.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
                Vec3(-1.0, 1.0, 0.0),
            ],
            faces: vec![face([0, 1, 2]), face([0, 2, 3])],
            maps: Vec::new(),
            normals: None,
            missing_maps: Vec::new(),
            missing_normals: None,
            missing_parts: Vec::new(),
        };
        let n = Vec3(1.0, 0.0, 0.0);
        slice_below(&mut m, n, 0.0).unwrap();
        // Kept: 1, 2 and the cuts of edges 0–1, 0–2 and 2–3 (x = 0).
        assert_eq!(m.vertices.len(), 5);
        assert!(m.vertices.iter().all(|p| p.0 >= 0.0));
        assert_eq!(m.faces.len(), 3);
        clone_reflected(&mut m, &Mat43::scaling(Vec3(-1.0, 1.0, 1.0)), true).unwrap();
        weld_seam(&mut m, n, 0.0, 0.1);
        // The three seam vertices are shared by both halves.
        assert_eq!(m.vertices.len(), 7);
        assert_eq!(m.faces.len(), 6);
        let area: f64 = m
            .faces
            .iter()
            .map(|f| {
                let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
                b.minus(a).cross(c.minus(a)).len() / 2.0
            })
            .sum();
        assert!((area - 2.0).abs() < 1e-12, "{area}");
        for p in &m.vertices {
            assert!(m.vertices.iter().any(|q| *q == Vec3(-p.0, p.1, p.2)));
        }
        // A face over a missing vertex is an error, not a panic.
        let mut bad = m.clone();
        bad.faces[0].v[0] = 99;
        assert!(slice_below(&mut bad, n, 0.0).is_err());
    }
}
