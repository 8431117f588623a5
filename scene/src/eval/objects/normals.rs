//! Per-corner normals as 3ds Max's `Mesh::buildRenderNormals` builds them —
//! what its viewport shows and what the NeL exporter reads
//! (`CExportNel::getLocalNormal`): smoothing groups decide which faces share a
//! vertex normal. Every exporter takes its normals from here, so a `.shape`
//! and a `.glb` of the same mesh shade alike.
//!
//! Each face adds its unit normal, weighted by the corner angle, into the first
//! normal of the vertex whose smoothing bits intersect the face's (the bits are
//! then OR-ed in), or starts a new one (S:312: first-match-and-OR is what
//! reproduces the reference vertex counts). Faces without a group use their
//! face normal. Everything runs in f64: the reference build kept x87 extended
//! precision, which f64 follows far closer than f32 would.

use super::mesh::{Face, Mesh};

pub type V3 = [f64; 3];

/// How a face's normal is weighted into its vertices' normals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weighting {
    /// By the corner angle (Max 2010, S:312).
    CornerAngle,
    /// Unit face normals, unweighted (Max 3: the street references).
    Unit,
}

/// Scene root chunk id of Max 5, the first version that weights by angle
/// (and the NeL exporter's "current" era).
pub const MAX5_SCENE_VERSION: u16 = 0x2008;

impl Weighting {
    /// The weighting of the Max that saved a scene (its root chunk id,
    /// `SceneGraph::version`): Max 3/4 files keep unit weights (the street
    /// references), later ones weight by corner angle.
    pub fn of_scene_version(version: u16) -> Weighting {
        if version < MAX5_SCENE_VERSION {
            Weighting::Unit
        } else {
            Weighting::CornerAngle
        }
    }
}

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Unit vector, or zero when the input has no usable length.
pub fn normalize(a: V3) -> V3 {
    let l = dot(a, a).sqrt();
    if l > 0.0 && l.is_finite() {
        [a[0] / l, a[1] / l, a[2] / l]
    } else {
        [0.0; 3]
    }
}

/// Max's face normal: (v1 − v0) × (v2 − v1), normalized.
pub fn face_normal(p: &[V3], f: &Face) -> V3 {
    let [a, b, c] = f.v.map(|i| p.get(i as usize).copied().unwrap_or([0.0; 3]));
    normalize(cross(sub(b, a), sub(c, b)))
}

/// The angle of face corner `k`, between its two edges.
pub fn corner_angle(p: &[V3], f: &Face, k: usize) -> f64 {
    let at = |i: usize| p.get(f.v[i] as usize).copied().unwrap_or([0.0; 3]);
    let o = at(k);
    let e1 = normalize(sub(at((k + 1) % 3), o));
    let e2 = normalize(sub(at((k + 2) % 3), o));
    dot(e1, e2).clamp(-1.0, 1.0).acos()
}

/// One accumulated normal of a vertex and the smoothing bits it gathered.
struct RNormal {
    sum: V3,
    groups: u32,
}

/// Normal of every face corner (`out[face][corner]`), in the mesh's space.
pub fn corner_normals(p: &[V3], faces: &[Face], weighting: Weighting) -> Vec<[V3; 3]> {
    let fnorm: Vec<V3> = faces.iter().map(|f| face_normal(p, f)).collect();
    let mut per_vertex: Vec<Vec<RNormal>> = (0..p.len()).map(|_| Vec::new()).collect();
    for (fi, f) in faces.iter().enumerate() {
        if f.smoothing == 0 {
            continue;
        }
        for k in 0..3 {
            let Some(list) = per_vertex.get_mut(f.v[k] as usize) else {
                continue;
            };
            let w = match weighting {
                Weighting::CornerAngle => corner_angle(p, f, k),
                Weighting::Unit => 1.0,
            };
            let add = [fnorm[fi][0] * w, fnorm[fi][1] * w, fnorm[fi][2] * w];
            match list.iter_mut().find(|r| r.groups & f.smoothing != 0) {
                Some(r) => {
                    r.sum = [r.sum[0] + add[0], r.sum[1] + add[1], r.sum[2] + add[2]];
                    r.groups |= f.smoothing;
                }
                // Sums start from +0, so a −0 component becomes +0 as in Max.
                None => list.push(RNormal {
                    sum: [0.0 + add[0], 0.0 + add[1], 0.0 + add[2]],
                    groups: f.smoothing,
                }),
            }
        }
    }
    let mut out: Vec<[V3; 3]> = faces
        .iter()
        .enumerate()
        .map(|(fi, f)| {
            std::array::from_fn(|k| {
                if f.smoothing == 0 {
                    return fnorm[fi];
                }
                let list = match per_vertex.get(f.v[k] as usize) {
                    Some(l) => l,
                    None => return fnorm[fi],
                };
                let pick = if list.len() == 1 {
                    list.first()
                } else {
                    list.iter().find(|r| r.groups & f.smoothing != 0)
                };
                match pick {
                    Some(r) => normalize(r.sum),
                    None => fnorm[fi],
                }
            })
        })
        .collect();
    polygon_fallback(p, faces, &mut out);
    out
}

/// Whether the edge from corner `k` to corner `k + 1` is hidden (a polygon's
/// diagonal): Max's edge-visibility bits 0–2 (`EDGE_A` …) are clear.
fn hidden(f: &Face, k: usize) -> bool {
    f.flags & (1 << k) == 0
}

/// The smoothed corners left without a normal — every face of their groups
/// at the vertex has no area — take their polygon's normal: the summed
/// (area-weighted) normal of the triangles joined to theirs across hidden
/// edges. It happens where our triangulation of a polygon leaves a corner
/// on zero-area triangles only (Table.max's chamfer slides a corner onto the
/// far end of its side, and the fan from corner 0 gives the slid corner one
/// triangle, of no area); Max's own diagonals there (the FBX: 1–3, 3–5, 5–7,
/// 3–7, 1–7 of the octagon) put that corner on triangles with area, so its
/// smoothed normal is the polygon's, which its FBX shows. A corner whose
/// polygon has no area either keeps its zero normal.
fn polygon_fallback(p: &[V3], faces: &[Face], out: &mut [[V3; 3]]) {
    let zero = |n: &V3| n.iter().all(|&x| x == 0.0);
    let lost: Vec<usize> = (0..faces.len())
        .filter(|&f| faces[f].smoothing != 0 && out[f].iter().any(zero))
        .collect();
    if lost.is_empty() {
        return;
    }
    // Faces by hidden edge (unordered vertex pair).
    let key = |a: u32, b: u32| (a.min(b), a.max(b));
    let mut by_edge: std::collections::HashMap<(u32, u32), Vec<usize>> =
        std::collections::HashMap::new();
    for (fi, f) in faces.iter().enumerate() {
        for k in 0..3 {
            if hidden(f, k) {
                by_edge
                    .entry(key(f.v[k], f.v[(k + 1) % 3]))
                    .or_default()
                    .push(fi);
            }
        }
    }
    for f in lost {
        let mut seen = vec![f];
        let mut met = std::collections::HashSet::from([f]);
        let mut at = 0;
        let mut sum = [0.0; 3];
        while let Some(&g) = seen.get(at) {
            at += 1;
            let [a, b, c] = faces[g]
                .v
                .map(|i| p.get(i as usize).copied().unwrap_or([0.0; 3]));
            let n = cross(sub(b, a), sub(c, b));
            sum = [sum[0] + n[0], sum[1] + n[1], sum[2] + n[2]];
            for k in 0..3 {
                if !hidden(&faces[g], k) {
                    continue;
                }
                let e = key(faces[g].v[k], faces[g].v[(k + 1) % 3]);
                for &h in by_edge.get(&e).map(Vec::as_slice).unwrap_or(&[]) {
                    if met.insert(h) {
                        seen.push(h);
                    }
                }
            }
        }
        let n = normalize(sum);
        for c in out[f].iter_mut().filter(|c| zero(c)) {
            *c = n;
        }
    }
}

/// Inverse of the 3×3 part of row-vector matrix rows (`Mat43::rows`), or
/// `None` when singular. A normal `n` maps through it as `t[j] = Σ inv[j][i]·n[i]`
/// (the inverse transpose for column vectors).
pub fn inverse3(r: &[[f64; 3]; 4]) -> Option<[[f64; 3]; 3]> {
    let m = [r[0], r[1], r[2]];
    let c = |i: usize, j: usize| {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
        m[i1][j1] * m[i2][j2] - m[i1][j2] * m[i2][j1]
    };
    let det = m[0][0] * c(0, 0) + m[0][1] * c(0, 1) + m[0][2] * c(0, 2);
    if det.abs() < 1e-300 || !det.is_finite() {
        return None;
    }
    Some(std::array::from_fn(|i| {
        std::array::from_fn(|j| c(j, i) / det)
    }))
}

/// The specified normal of every face corner of `mesh` (`out[face][corner]`,
/// object space, `p` the object-space positions), `None` where the corner has
/// none and smoothing groups decide. `None` overall when the mesh carries no
/// specified normals. Exporters override [`corner_normals`] with these: Max
/// renders specified normals in place of the smoothing-group ones.
pub fn specified_corners(p: &[V3], mesh: &Mesh) -> Option<Vec<[Option<V3>; 3]>> {
    let spec = mesh.normals.as_ref()?;
    if spec.faces.len() != mesh.faces.len() {
        return None;
    }
    let pool = spec.resolved(p, &mesh.faces);
    Some(
        spec.faces
            .iter()
            .map(|f| f.map(|id| id.and_then(|id| pool.get(id as usize).copied())))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(v: [u32; 3], smoothing: u32) -> Face {
        Face {
            v,
            smoothing,
            material: 0,
            flags: 0,
        }
    }

    #[test]
    fn groups_merge_on_first_shared_bit() {
        // A folded quad: two triangles at a right angle sharing edge 0-1.
        let p = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let smooth = corner_normals(
            &p,
            &[face([0, 1, 2], 1), face([1, 0, 3], 1)],
            Weighting::CornerAngle,
        );
        let n = smooth[0][0];
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!(n[0].abs() < 1e-12 && (n[1] - h).abs() < 1e-12 && (n[2] - h).abs() < 1e-12);
        let hard = corner_normals(
            &p,
            &[face([0, 1, 2], 1), face([1, 0, 3], 2)],
            Weighting::CornerAngle,
        );
        assert_eq!(hard[0][0], [0.0, 0.0, 1.0]);
        assert_eq!(hard[1][1], face_normal(&p, &face([1, 0, 3], 2)));
        let flat = corner_normals(&p, &[face([0, 1, 2], 0)], Weighting::CornerAngle);
        assert_eq!(flat[0][2], [0.0, 0.0, 1.0]);
    }

    #[test]
    fn a_corner_on_zero_area_triangles_only_takes_its_polygons_normal() {
        // A pentagon in z = 0 whose corners 0 and 1 coincide, fanned from
        // corner 0: triangle (0, 1, 2) has no area and is corner 1's only one.
        let p = [
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [2.0, 2.0, 0.0],
            [0.0, 2.0, 0.0],
        ];
        // Sides visible (bits 0–2 for v0→v1, v1→v2, v2→v0), diagonals hidden.
        let tri = |v: [u32; 3], flags: u16| Face {
            v,
            smoothing: 1,
            material: 0,
            flags,
        };
        let faces = [
            tri([0, 1, 2], 0b011),
            tri([0, 2, 3], 0b010),
            tri([0, 3, 4], 0b110),
        ];
        let n = corner_normals(&p, &faces, Weighting::CornerAngle);
        assert_eq!(n[0][1], [0.0, 0.0, 1.0]);
        // Without the hidden edges there is no polygon to take it from.
        let apart: Vec<Face> = faces.iter().map(|f| Face { flags: 0b111, ..*f }).collect();
        let n = corner_normals(&p, &apart, Weighting::CornerAngle);
        assert_eq!(n[0][1], [0.0; 3]);
        // A polygon without area keeps its zero normals.
        let flat = [[0.0; 3]; 5];
        let n = corner_normals(&flat, &faces, Weighting::CornerAngle);
        assert!(n.iter().flatten().all(|c| *c == [0.0; 3]));
    }
}
