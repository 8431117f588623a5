//! Symmetry's slice: Max slices the POLYGONS of its input (the modifier works
//! on an MNMesh), not the triangles. A triangle mesh's polygons are its
//! triangles joined across hidden edges, as `MNMesh::SetFromTri` then
//! `MakePolyMesh` join them. Slicing a quad across its hidden diagonal
//! therefore makes no vertex on the diagonal: the cut polygon keeps only the
//! points where its outer sides cross the plane (3ds Max's own Skin above the
//! Symmetry in SeanConway_Character.max counts exactly those vertices).
//!
//! Polygons wholly on the kept side keep their triangles as they were; a cut
//! polygon is triangulated as a fan from its first kept corner with only its
//! sides visible (Max retriangulates the cut face; for the convex faces of the
//! corpus a fan covers the same area, for a non-convex one the diagonals may
//! differ from Max's).

use crate::eval::error::EvalError;
use std::collections::HashMap;

use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh::{Face, Mesh};

/// Max's polygon-mesh tolerance (MNEPS): a vertex this close lies on the plane.
pub(super) const ON_PLANE: f64 = 1e-4;
/// Edge visibility bits of a face.
const EDGES: u16 = 0b111;

/// A polygon corner: a mesh vertex and one map vertex per channel.
#[derive(Clone)]
struct Corner {
    v: u32,
    t: Vec<u32>,
}

/// Removes the part of the mesh below the plane n·p = offset: polygons wholly
/// below go, polygons across it are cut at new vertices (map vertices likewise
/// interpolated), and faces lying in the plane go too.
pub(super) fn slice_below(mesh: &mut Mesh, n: Vec3, offset: f64) -> Result<(), EvalError> {
    mesh.check_map_faces()?;
    let nf = mesh.faces.len();
    let dist: Vec<f64> = mesh.vertices.iter().map(|&p| n.dot(p) - offset).collect();
    for (f, face) in mesh.faces.iter().enumerate() {
        if face
            .v
            .iter()
            .any(|&v| !dist.get(v as usize).is_some_and(|d| d.is_finite()))
        {
            return Err(EvalError::reference(
                "",
                format!("face {f} uses a missing or non-finite vertex"),
            ));
        }
    }
    let side = |v: u32| {
        let d = dist[v as usize];
        if d > ON_PLANE {
            1
        } else if d < -ON_PLANE {
            -1
        } else {
            0
        }
    };
    let polygons = polygons(mesh);
    let mut cut_vertex: HashMap<(u32, u32), u32> = HashMap::new();
    let mut cut_map: Vec<HashMap<(u32, u32), u32>> = vec![HashMap::new(); mesh.maps.len()];
    let mut faces = Vec::with_capacity(nf);
    let mut map_faces: Vec<Vec<[u32; 3]>> = vec![Vec::with_capacity(nf); mesh.maps.len()];
    for poly in polygons {
        let sides: Vec<i32> = poly
            .corners
            .iter()
            .map(|&(f, k)| side(mesh.faces[f].v[k]))
            .collect();
        if sides.iter().all(|&s| s <= 0) {
            continue;
        }
        if sides.iter().all(|&s| s >= 0) {
            for &f in &poly.faces {
                faces.push(mesh.faces[f]);
                for (k, c) in mesh.maps.iter().enumerate() {
                    map_faces[k].push(c.faces[f]);
                }
            }
            continue;
        }
        let corners: Vec<Corner> = poly
            .corners
            .iter()
            .map(|&(f, k)| Corner {
                v: mesh.faces[f].v[k],
                t: mesh.maps.iter().map(|c| c.faces[f][k]).collect(),
            })
            .collect();
        let m = corners.len();
        let mut kept: Vec<Corner> = Vec::with_capacity(m + 2);
        for k in 0..m {
            let (a, b) = (&corners[k], &corners[(k + 1) % m]);
            let (sa, sb) = (sides[k], sides[(k + 1) % m]);
            if sa >= 0 {
                kept.push(a.clone());
            }
            if sa * sb < 0 {
                let (da, db) = (dist[a.v as usize], dist[b.v as usize]);
                kept.push(cut(mesh, &mut cut_vertex, &mut cut_map, a, b, da, db)?);
            }
        }
        let first = mesh.faces[poly.faces[0]];
        // A fan over the cut polygon; only the polygon's own sides show.
        for i in 1..kept.len().saturating_sub(1) {
            let tri = [&kept[0], &kept[i], &kept[i + 1]];
            let mut edges = 0b010;
            if i == 1 {
                edges |= 0b001;
            }
            if i + 2 == kept.len() {
                edges |= 0b100;
            }
            faces.push(Face {
                v: tri.map(|c| c.v),
                flags: (first.flags & !EDGES) | edges,
                ..first
            });
            for (k, mf) in map_faces.iter_mut().enumerate() {
                mf.push(tri.map(|c| c.t[k]));
            }
        }
    }
    // Faces lying in the plane itself would be doubled by the mirror.
    let on_plane = |v: u32| {
        let p = mesh.vertices[v as usize];
        (n.dot(p) - offset).abs() <= ON_PLANE
    };
    let keep: Vec<bool> = faces
        .iter()
        .map(|f| !f.v.iter().all(|&v| on_plane(v)))
        .collect();
    mesh.faces = faces
        .into_iter()
        .zip(&keep)
        .filter_map(|(f, &k)| k.then_some(f))
        .collect();
    for (c, mf) in mesh.maps.iter_mut().zip(map_faces) {
        c.faces = mf
            .into_iter()
            .zip(&keep)
            .filter_map(|(f, &k)| k.then_some(f))
            .collect();
    }
    mesh.drop_unused_vertices();
    Ok(())
}

/// A polygon of a triangle mesh: its triangles (in face order) and its outer
/// loop as (face, corner) pairs, each corner the start of an outer side.
struct Polygon {
    faces: Vec<usize>,
    corners: Vec<(usize, usize)>,
}

/// The mesh's polygons in the order of their first triangle: triangles joined
/// across edges hidden in both of them. A group whose outer sides do not form
/// one simple loop (a hole, a vertex met twice) stays as separate triangles.
fn polygons(mesh: &Mesh) -> Vec<Polygon> {
    let nf = mesh.faces.len();
    let hidden = |f: usize, k: usize| mesh.faces[f].flags & (1 << k) == 0;
    let mut directed: HashMap<(u32, u32), (usize, usize)> = HashMap::new();
    for (f, face) in mesh.faces.iter().enumerate() {
        for k in 0..3 {
            directed.insert((face.v[k], face.v[(k + 1) % 3]), (f, k));
        }
    }
    let mut parent: Vec<usize> = (0..nf).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut joined = vec![[false; 3]; nf];
    for (f, face) in mesh.faces.iter().enumerate() {
        // k is the corner: it indexes the face, its flags and `joined` alike.
        #[allow(clippy::needless_range_loop)]
        for k in 0..3 {
            let (a, b) = (face.v[k], face.v[(k + 1) % 3]);
            if !hidden(f, k) {
                continue;
            }
            if let Some(&(g, j)) = directed.get(&(b, a)) {
                if g != f && hidden(g, j) {
                    joined[f][k] = true;
                    let (rf, rg) = (root(&mut parent, f), root(&mut parent, g));
                    parent[rf.max(rg)] = rf.min(rg);
                }
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for f in 0..nf {
        let r = root(&mut parent, f);
        let g = *group_of.entry(r).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(f);
    }
    let single = |f: usize| Polygon {
        faces: vec![f],
        corners: vec![(f, 0), (f, 1), (f, 2)],
    };
    let mut out = Vec::with_capacity(groups.len());
    for g in groups {
        if g.len() == 1 {
            out.push(single(g[0]));
            continue;
        }
        match outer_loop(mesh, &g, &joined) {
            Some(corners) => out.push(Polygon { faces: g, corners }),
            None => out.extend(g.into_iter().map(single)),
        }
    }
    out
}

/// The outer sides of a group of triangles chained into one loop, or None when
/// they do not form exactly one simple loop.
fn outer_loop(mesh: &Mesh, group: &[usize], joined: &[[bool; 3]]) -> Option<Vec<(usize, usize)>> {
    let mut next: HashMap<u32, (u32, usize, usize)> = HashMap::new();
    for &f in group {
        let face = mesh.faces[f];
        #[allow(clippy::needless_range_loop)]
        for k in 0..3 {
            if !joined[f][k]
                && next
                    .insert(face.v[k], (face.v[(k + 1) % 3], f, k))
                    .is_some()
            {
                return None;
            }
        }
    }
    let start = mesh.faces[group[0]]
        .v
        .iter()
        .copied()
        .find(|v| next.contains_key(v))?;
    let mut corners = Vec::with_capacity(next.len());
    let mut v = start;
    loop {
        let &(to, f, k) = next.get(&v)?;
        corners.push((f, k));
        if corners.len() > next.len() {
            return None;
        }
        v = to;
        if v == start {
            break;
        }
    }
    (corners.len() == next.len() && corners.len() >= 3).then_some(corners)
}

/// The vertex where edge a–b crosses the plane, made once per edge (and per map
/// edge), interpolated from the end with the lower index so both faces of an
/// edge get the same point.
fn cut(
    mesh: &mut Mesh,
    cut_vertex: &mut HashMap<(u32, u32), u32>,
    cut_map: &mut [HashMap<(u32, u32), u32>],
    a: &Corner,
    b: &Corner,
    da: f64,
    db: f64,
) -> Result<Corner, EvalError> {
    let (lo, hi, dlo, dhi) = if a.v <= b.v {
        (a, b, da, db)
    } else {
        (b, a, db, da)
    };
    let s = dlo / (dlo - dhi);
    let v = match cut_vertex.get(&(lo.v, hi.v)) {
        Some(&v) => v,
        None => {
            let (p, q) = (mesh.vertices[lo.v as usize], mesh.vertices[hi.v as usize]);
            let v = u32::try_from(mesh.vertices.len())
                .map_err(|_| EvalError::limit("vertices", u32::MAX))?;
            mesh.vertices.push(p.plus(q.minus(p).scale(s)));
            cut_vertex.insert((lo.v, hi.v), v);
            v
        }
    };
    let mut t = Vec::with_capacity(lo.t.len());
    for (k, c) in mesh.maps.iter_mut().enumerate() {
        let key = (lo.t[k], hi.t[k]);
        let id = match cut_map[k].get(&key) {
            Some(&i) => i,
            None => {
                let get = |i: u32| {
                    c.vertices.get(i as usize).copied().ok_or_else(|| {
                        EvalError::reference(
                            "",
                            format!("map channel {} vertex {i} missing", c.channel),
                        )
                    })
                };
                let (p, q) = (get(key.0)?, get(key.1)?);
                let lerp = |x: f32, y: f32| x + (y - x) * s as f32;
                let i = u32::try_from(c.vertices.len())
                    .map_err(|_| EvalError::limit("map vertices", u32::MAX))?;
                c.vertices
                    .push([lerp(p[0], q[0]), lerp(p[1], q[1]), lerp(p[2], q[2])]);
                cut_map[k].insert(key, i);
                i
            }
        };
        t.push(id);
    }
    Ok(Corner { v, t })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quad (two triangles over a hidden diagonal 0–2) across x = 0: the
    /// polygon is cut where its sides cross, never on the diagonal.
    #[test]
    fn a_quad_is_cut_on_its_sides_only() {
        let face = |v, flags| Face {
            v,
            smoothing: 1,
            material: 2,
            flags,
        };
        let mut m = Mesh {
            vertices: vec![
                Vec3(-1.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
                Vec3(-1.0, 1.0, 0.0),
            ],
            // Edges 0–1, 1–2 visible in the first, 2–3, 3–0 in the second.
            faces: vec![face([0, 1, 2], 0b011), face([0, 2, 3], 0b110)],
            maps: Vec::new(),
            ..Default::default()
        };
        slice_below(&mut m, Vec3(1.0, 0.0, 0.0), 0.0).unwrap();
        // 1, 2 and the two side cuts; a triangle slice would add a third on 0–2.
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.faces.len(), 2);
        assert!(m.vertices.iter().all(|p| p.0 >= 0.0));
        let area: f64 = m
            .faces
            .iter()
            .map(|f| {
                let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
                b.minus(a).cross(c.minus(a)).2 / 2.0
            })
            .sum();
        assert!((area - 1.0).abs() < 1e-12, "{area}");
        assert!(m.faces.iter().all(|f| f.material == 2 && f.smoothing == 1));
        // The cut polygon's outer sides show, its own diagonal does not.
        let visible: usize = m
            .faces
            .iter()
            .map(|f| (f.flags & 7).count_ones() as usize)
            .sum();
        assert_eq!(visible, 4);
    }

    /// Triangles whose hidden edges do not close one loop stay triangles: a
    /// closed tetrahedron with every edge hidden has no outer side at all.
    #[test]
    fn a_group_without_one_outer_loop_stays_triangles() {
        let face = |v| Face {
            v,
            smoothing: 0,
            material: 0,
            flags: 0,
        };
        let mut m = Mesh {
            vertices: vec![
                Vec3(-1.0, 0.0, 0.0),
                Vec3(1.0, -1.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
                Vec3(0.5, 0.0, 1.0),
            ],
            faces: vec![
                face([0, 2, 1]),
                face([0, 1, 3]),
                face([1, 2, 3]),
                face([2, 0, 3]),
            ],
            maps: Vec::new(),
            ..Default::default()
        };
        assert_eq!(polygons(&m).len(), 4);
        slice_below(&mut m, Vec3(1.0, 0.0, 0.0), 0.0).unwrap();
        // 1, 2, 3 and the cuts of 0–1, 0–2, 0–3: every triangle is cut.
        assert_eq!(m.vertices.len(), 6);
        assert!(m.vertices.iter().all(|p| p.0 >= 0.0));
    }
}
