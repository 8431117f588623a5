//! Symmetry (0x2d7e702b, 0xbe41a6e): keeps one side of a plane, adds its
//! mirror image and welds the two along the seam.
//!
//! ParamBlock2 (reference 0), by id: 0 axis (0 X, 1 Y, 2 Z), 1 slice, 2 weld,
//! 3 weld threshold, 4 flip; reference 1 is the gizmo controller. As Max's
//! `SymmetryMod`: the plane passes through the gizmo origin with the gizmo's
//! axis (negated by flip) as normal N, in object space; slicing removes what
//! lies below it (N·p < N·origin) and cuts the faces that cross it; the kept
//! faces are copied, reflected through the plane in gizmo space and turned
//! over; vertices within the threshold of the plane that lie within the
//! threshold of each other are welded to their mean.

use std::collections::HashMap;

use super::mirror::clone_reflected;
use super::{gizmo, Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::objects::mesh::{Face, Mesh};

const PBLOCK_SLOT: u32 = 0;
const GIZMO_SLOT: u32 = 1;
/// Max's polygon-mesh tolerance (MNEPS): a vertex this close lies on the plane.
const ON_PLANE: f64 = 1e-4;
/// Edge visibility bits of a face.
const EDGES: u16 = 0b111;

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), String> {
    let p = gizmo::params(cx, m, PBLOCK_SLOT)?;
    let axis = match p.int_or(0, 0) {
        a @ 0..=2 => a as usize,
        a => return Err(format!("symmetry axis {a}")),
    };
    let slice = p.flag(1, true);
    let weld = p.flag(2, true);
    let threshold = p.float_or(3, 0.1).max(0.0);
    let flip = p.flag(4, false);
    let to_object = gizmo::gizmo_to_object(cx, m, GIZMO_SLOT)?;
    let to_gizmo = gizmo::inverse(&to_object, "Symmetry gizmo")?;
    let mut dir = [0.0; 3];
    dir[axis] = if flip { -1.0 } else { 1.0 };
    let n = to_object
        .transform_vector(Vec3(dir[0], dir[1], dir[2]))
        .normalized();
    let offset = n.dot(to_object.0[3]);
    if slice {
        slice_below(mesh, n, offset)?;
    }
    let mut s = [1.0; 3];
    s[axis] = -1.0;
    let reflect = to_gizmo
        .then(&Mat43::scaling(Vec3(s[0], s[1], s[2])))
        .then(&to_object);
    clone_reflected(mesh, &reflect, true)?;
    if weld {
        weld_seam(mesh, n, offset, threshold);
    }
    Ok(())
}

/// A face corner during clipping: a mesh vertex and one map vertex per channel.
#[derive(Clone)]
struct Corner {
    v: u32,
    t: Vec<u32>,
}

/// Removes the part of the mesh below the plane n·p = offset: faces wholly
/// below go, faces across it are cut at new vertices (map vertices likewise
/// interpolated), and faces lying in the plane go too.
fn slice_below(mesh: &mut Mesh, n: Vec3, offset: f64) -> Result<(), String> {
    mesh.check_map_faces()?;
    let nf = mesh.faces.len();
    let dist: Vec<f64> = mesh.vertices.iter().map(|&p| n.dot(p) - offset).collect();
    let side = |d: f64| {
        if d > ON_PLANE {
            1
        } else if d < -ON_PLANE {
            -1
        } else {
            0
        }
    };
    let mut cut_vertex: HashMap<(u32, u32), u32> = HashMap::new();
    let mut cut_map: Vec<HashMap<(u32, u32), u32>> = vec![HashMap::new(); mesh.maps.len()];
    let mut faces = Vec::with_capacity(nf);
    let mut map_faces: Vec<Vec<[u32; 3]>> = vec![Vec::with_capacity(nf); mesh.maps.len()];
    for f in 0..nf {
        let face = mesh.faces[f];
        let corners: Vec<Corner> = (0..3)
            .map(|k| Corner {
                v: face.v[k],
                t: mesh.maps.iter().map(|c| c.faces[f][k]).collect(),
            })
            .collect();
        let d = |c: &Corner| dist.get(c.v as usize).copied().unwrap_or(f64::NAN);
        if corners.iter().any(|c| !d(c).is_finite()) {
            return Err(format!("face {f} uses a missing or non-finite vertex"));
        }
        let sides: Vec<i32> = corners.iter().map(|c| side(d(c))).collect();
        if sides.iter().all(|&s| s <= 0) {
            continue;
        }
        if sides.iter().all(|&s| s >= 0) {
            faces.push(face);
            for (k, c) in mesh.maps.iter().enumerate() {
                map_faces[k].push(c.faces[f]);
            }
            continue;
        }
        let mut poly: Vec<Corner> = Vec::with_capacity(4);
        for k in 0..3 {
            let (a, b) = (&corners[k], &corners[(k + 1) % 3]);
            let (sa, sb) = (sides[k], sides[(k + 1) % 3]);
            if sa >= 0 {
                poly.push(a.clone());
            }
            if sa * sb < 0 {
                poly.push(cut(mesh, &mut cut_vertex, &mut cut_map, a, b, d(a), d(b))?);
            }
        }
        // A fan over the clipped polygon; only the polygon's own edges show.
        for i in 1..poly.len() - 1 {
            let tri = [&poly[0], &poly[i], &poly[i + 1]];
            let mut edges = 0b010;
            if i == 1 {
                edges |= 0b001;
            }
            if i + 2 == poly.len() {
                edges |= 0b100;
            }
            faces.push(Face {
                v: tri.map(|c| c.v),
                flags: (face.flags & !EDGES) | edges,
                ..face
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
    drop_unused_vertices(mesh);
    Ok(())
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
) -> Result<Corner, String> {
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
            let v = u32::try_from(mesh.vertices.len()).map_err(|_| "too many vertices")?;
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
                    c.vertices
                        .get(i as usize)
                        .copied()
                        .ok_or_else(|| format!("map channel {} vertex {i} missing", c.channel))
                };
                let (p, q) = (get(key.0)?, get(key.1)?);
                let lerp = |x: f32, y: f32| x + (y - x) * s as f32;
                let i = u32::try_from(c.vertices.len()).map_err(|_| "too many map vertices")?;
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

/// Welds vertices within `threshold` of the plane that lie within `threshold`
/// of each other, each group to its mean, and drops the faces that collapse.
fn weld_seam(mesh: &mut Mesh, n: Vec3, offset: f64, threshold: f64) {
    let targets: Vec<usize> = (0..mesh.vertices.len())
        .filter(|&i| (n.dot(mesh.vertices[i]) - offset).abs() <= threshold)
        .collect();
    // Grid cells of the threshold's size: near vertices share or touch a cell.
    let cell = threshold.max(1e-9);
    let key = |p: Vec3| [p.0, p.1, p.2].map(|x| (x / cell).floor().clamp(-1e15, 1e15) as i64);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for &i in &targets {
        grid.entry(key(mesh.vertices[i])).or_default().push(i);
    }
    let mut parent: Vec<usize> = (0..mesh.vertices.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for &i in &targets {
        let p = mesh.vertices[i];
        let k = key(p);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(near) = grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) else {
                        continue;
                    };
                    for &j in near {
                        if j > i && mesh.vertices[j].minus(p).len() <= threshold {
                            let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                            // The lower index survives, as the original does.
                            parent[ri.max(rj)] = ri.min(rj);
                        }
                    }
                }
            }
        }
    }
    let mut sum: HashMap<usize, (Vec3, f64)> = HashMap::new();
    for &i in &targets {
        let r = root(&mut parent, i);
        let e = sum.entry(r).or_insert((Vec3::default(), 0.0));
        e.0 = e.0.plus(mesh.vertices[i]);
        e.1 += 1.0;
    }
    for (r, (total, count)) in sum {
        mesh.vertices[r] = total.scale(1.0 / count);
    }
    for f in &mut mesh.faces {
        for v in &mut f.v {
            *v = root(&mut parent, *v as usize) as u32;
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

/// Removes vertices no face uses, keeping the order of the others.
fn drop_unused_vertices(mesh: &mut Mesh) {
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
